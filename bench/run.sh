#!/usr/bin/env bash
# make bench: every benchmark script in bench/, each printing its figures
# and the ratios against its peers measured side by side in the same run,
# then how long it took.  The engines' copies are of 256 MiB here
# (BENCH_SIZE_MIB; bench/engines.sh alone copies 1 GiB), so the whole
# bench takes minutes.
cd "$(dirname "$0")/.." || exit 1
export BENCH_SIZE_MIB=${BENCH_SIZE_MIB:-256}
status=0
start=$SECONDS
for b in bench/measures.sh bench/whole.sh bench/sampler.sh bench/frame.sh bench/engines.sh bench/metrics.sh bench/steady.sh bench/elapsed.sh; do
	[ -f "$b" ] || { echo "# $b: not present"; continue; }
	echo "=== $b"
	t=$SECONDS
	bash "$b" || { echo "# $b failed"; status=1; }
	echo "# $b: $((SECONDS - t)) s"
done
echo "# make bench: $((SECONDS - start)) s"
exit $status

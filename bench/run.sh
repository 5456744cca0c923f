#!/usr/bin/env bash
# make bench: every benchmark script in bench/, each printing its figures
# and the ratios against its peers measured side by side in the same run.
cd "$(dirname "$0")/.." || exit 1
status=0
for b in bench/measures.sh bench/whole.sh bench/sampler.sh bench/frame.sh bench/engines.sh bench/metrics.sh bench/steady.sh bench/elapsed.sh; do
	[ -f "$b" ] || { echo "# $b: not present"; continue; }
	echo "=== $b"
	bash "$b" || { echo "# $b failed"; status=1; }
done
exit $status

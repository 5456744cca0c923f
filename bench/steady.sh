#!/usr/bin/env bash
# steady.sh - does the default run's workload line read as a steady rate?
# The default workload (no -w, no command) in batch mode at -i 0.5 for
# BENCH_STEADY_S seconds after a 10 s start (default 30): the coefficient
# of variation (standard deviation / mean) of the workload's write rate
# from sample to sample, target at most 0.5.  Side by side in the same run,
# the same copy with a flush per pass (sync=end, the earlier default): the
# comb a first-time user would have seen.  Prints both, and fails when
# the default is over its target.  Needs jq, and 2 GiB free in $TMPDIR
# (else /var/tmp).
set -u
cd "$(dirname "$0")/.." || exit 1
BT=${BENCHTOP:-./benchtop}
SECS=${BENCH_STEADY_S:-30}
TARGET=0.5
[ -x "$BT" ] || make -s benchtop || exit 1
command -v jq >/dev/null || { echo "  steady: n/a (no jq on this machine)"; exit 0; }
DIR=$(mktemp -d "${TMPDIR:-/var/tmp}/benchtop-steady.XXXXXX") || exit 1
trap 'rm -rf "$DIR"' EXIT

# cv FILE: "mean_MiB/s cv samples below_a_tenth" of the workload's write
# rate after 10 s (the last sample, taken as the run stops, left out); the
# comb shows as samples under a tenth of the mean
cv() {
	jq -rs '[.[] | select(.type == "sample" and .t >= 10) | .workloads[0].write_bps] | .[:-1] as $v |
		($v | length) as $n | if $n < 2 then "0 n/a 0 0" else
		($v | add / $n) as $m | ([$v[] | (. - $m) * (. - $m)] | add / $n | sqrt) as $sd |
		"\($m / 1048576 | floor) \(if $m > 0 then ($sd / $m * 100 | round) / 100 else "n/a" end) \($n) \([$v[] | select(. < $m / 10)] | length)" end' "$1"
}

TMPDIR=$DIR "$BT" -b --format json -i 0.5 -t $((SECS + 10)) > "$DIR/default.jsonl" 2>/dev/null
head -c 1G /dev/zero > "$DIR/src" 2>/dev/null || { echo "  steady: no room for a 1 GiB source in $DIR"; exit 0; }
"$BT" -b --format json -i 0.5 -t $((SECS + 10)) --loop \
	-w copy:engine=pipe,procs=3,sync=end,src="$DIR/src",dst="$DIR/dst" > "$DIR/end.jsonl" 2>/dev/null

read -r m1 c1 n1 z1 <<< "$(cv "$DIR/default.jsonl")"
read -r m2 c2 n2 z2 <<< "$(cv "$DIR/end.jsonl")"
echo "== the default run's workload line over ${SECS} s at -i 0.5 (after the first 10 s)"
printf '  %-44s %8s MiB/s  cv %-5s %3s samples, %s under a tenth of the mean\n' \
	"default (copy engine=pipe procs=3 sync=none)" "$m1" "$c1" "$n1" "$z1"
printf '  %-44s %8s MiB/s  cv %-5s %3s samples, %s under a tenth of the mean\n' \
	"the same, flushed every pass (sync=end)" "$m2" "$c2" "$n2" "$z2"
echo "  load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (other work on the machine shows in both)"
if [ "$c1" = n/a ] || awk -v c="$c1" -v t="$TARGET" 'BEGIN { exit !(c > t) }'; then
	echo "  default: cv $c1 is over the target $TARGET"
	exit 1
fi
echo "  default: cv $c1 within the target $TARGET"

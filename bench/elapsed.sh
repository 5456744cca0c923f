#!/bin/bash
# bench/elapsed.sh - how much longer benchtop's elapsed time is than the
# outside wall time of the same command (tests/helpers/truthrun: fork to
# the last wait4), for a few serial commands, 5 runs each, --no-sync.
# tests/e2e/truth.sh checks that elapsed is never shorter; how much longer
# is benchtop's own scheduling (how soon it sees the command end), which
# this prints: min, median and max in milliseconds.  A figure, not a
# gate: it exits 0.  `bash bench/elapsed.sh [BENCHTOP]` or `make bench`.
set -u
cd "$(dirname "$0")/.." || exit 1
BT=${1:-./benchtop}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
cc -std=c17 -O1 -o "$TMP/truthrun" tests/helpers/truthrun.c || { echo "# cannot compile truthrun.c"; exit 0; }
command -v jq >/dev/null || { echo "# jq not installed"; exit 0; }
head -c $((24 << 20)) /dev/zero > "$TMP/src"

echo "== elapsed beyond the outside wall time (ms: min median max, 5 runs)"
for c in "cp $TMP/src $TMP/out" "dd if=$TMP/src of=$TMP/out bs=4k" "md5sum $TMP/src" "sleep 0.3"; do
	for i in 1 2 3 4 5; do
		"$BT" -b --format json -i 0.1 --no-sync -- "$TMP/truthrun" sh -c "$c" > "$TMP/o.json" 2> "$TMP/o.err"
		wall=$(sed -n 's/^truth wall=\([0-9.]*\) .*/\1/p' "$TMP/o.err")
		el=$(jq -s 'map(select(.type == "end"))[0].summary[0].elapsed' "$TMP/o.json")
		[ -n "$wall" ] && [ -n "$el" ] && awk -v e="$el" -v w="$wall" 'BEGIN { printf "%.1f\n", (e - w) * 1000 }'
	done | sort -n | awk -v c="${c%% *}" '{ v[NR] = $1 } END {
		if (NR) printf "  %-8s %7.1f %7.1f %7.1f\n", c, v[1], v[int((NR + 1) / 2)], v[NR];
		else printf "  %-8s n/a\n", c }'
done
exit 0

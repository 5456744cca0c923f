#!/usr/bin/env bash
# engines.sh - benchtop's engines against cp, cat and dd, in one run.
#
#  1. A file (1 GiB; BENCH_SIZE_MIB to change) copied with every engine and
#     with cp, cat and dd bs=1M, interleaved over BENCH_ROUNDS rounds, page
#     cache warm, memory prefaulted before each copy (memory left free for a
#     while is slow to touch again here, which would punish whoever goes
#     first); then once cold (drop_caches, root only).  Best of the rounds,
#     in the summary format, and the ratios best engine / best tool and
#     rw / cat.
#  2. Per-call overhead: read with bs 16 B .. 64 KiB against dd at the same
#     bs, µs per block.
#  3. The misaligned rewrite: written with bs, rewritten in place with bs
#     after the file left the cache, for bs=8192 and bs=5000; rewrite/write
#     ratio of each.
# Not part of make check: it takes minutes and needs a few GiB free.
set -u
cd "$(dirname "$0")/.." || exit 1

SIZE_MIB=${BENCH_SIZE_MIB:-1024}
ROUNDS=${BENCH_ROUNDS:-3}
OUT=build/bench
DRIVE=$OUT/engine_drive
mkdir -p "$OUT"
cc -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Iinclude -o "$DRIVE" \
	bench/engine_drive.c src/engine.c src/engines/*.c || exit 1

W=$(mktemp -d /var/tmp/benchtop-bench.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
free_mib=$(( $(stat -f -c '%a * %S' "$W") / 1048576 ))
if [ "$free_mib" -lt $(( SIZE_MIB * 3 )) ]; then
	echo "bench/engines.sh: needs $(( SIZE_MIB * 3 )) MiB free in /var/tmp, has $free_mib"
	exit 3
fi
root=0; [ "$(id -u)" = 0 ] && root=1
drop() { [ $root = 1 ] && sync && echo 3 >/proc/sys/vm/drop_caches; }
prefault() { "$DRIVE" prefault $(( SIZE_MIB * 2 )); }

head -c $(( SIZE_MIB * 1048576 )) /dev/urandom >"$W/src"
sync

ENGINES="rw cfr sendfile splice mmap pipe2 pipe3"
TOOLS="cp cat dd"

# timed NAME COMMAND...: run, print "user sys elapsed" of it and its children.
timed() {
	/usr/bin/time -o "$W/time" -f '%U %S %e' "$@" >/dev/null 2>&1
	tail -1 "$W/time"
}

copy_once() {   # copy_once TEST -> "user sys elapsed"
	rm -f "$W/dst"
	prefault
	case $1 in
	cp)  timed cp "$W/src" "$W/dst" ;;
	cat) timed sh -c "cat '$W/src' >'$W/dst'" ;;
	dd)  timed dd if="$W/src" of="$W/dst" bs=1M ;;
	*)   timed "$DRIVE" copy "$1" "$W/src" "$W/dst" 131072 ;;
	esac
}

declare -A best_bps best_line
row() {   # row TEST "user sys elapsed" -> remembers the best
	local test=$1 u s e bps
	read -r u s e <<<"$2"
	bps=$(awk -v m="$SIZE_MIB" -v e="$e" 'BEGIN { printf "%.0f", (e > 0 ? m / e : 0) }')
	if [ -z "${best_bps[$test]:-}" ] || [ "$bps" -gt "${best_bps[$test]}" ]; then
		best_bps[$test]=$bps
		best_line[$test]=$(awk -v u="$u" -v s="$s" -v e="$e" -v b="$bps" -v t="$test" \
			'BEGIN { printf "%6.2f  %6.2f  %6.2f  %3.0f%%  %7d  %s", u, s, e, (e > 0 ? 100 * (u + s) / e : 0), b, t }')
	fi
}

table() {
	echo "  user     sys   elaps   hog    MiB/s  test"
	for t in $ENGINES $TOOLS; do echo "${best_line[$t]}"; done
}

ratios() {
	local be=0 bt=0 t
	for t in $ENGINES; do [ "${best_bps[$t]}" -gt $be ] && be=${best_bps[$t]}; done
	for t in $TOOLS; do [ "${best_bps[$t]}" -gt $bt ] && bt=${best_bps[$t]}; done
	awk -v be=$be -v bt=$bt -v rw="${best_bps[rw]}" -v cat="${best_bps[cat]}" 'BEGIN {
		printf "best engine / best tool: %.2f (target >= 1.00)\n", (bt ? be / bt : 0)
		printf "rw bs=128k / cat:        %.2f (target >= 0.95)\n", (cat ? rw / cat : 0) }'
}

echo "== copy $SIZE_MIB MiB, page cache warm, best of $ROUNDS interleaved rounds (engines: sync=none)"
cat "$W/src" >/dev/null
order="$ENGINES $TOOLS"
for r in $(seq "$ROUNDS"); do
	for t in $order; do row "$t" "$(copy_once "$t")"; done
	# rotate the order so no test always runs first
	order="$(echo "$order" | cut -d' ' -f2-) $(echo "$order" | cut -d' ' -f1)"
done
table
ratios

if [ $root = 1 ]; then
	echo
	echo "== copy $SIZE_MIB MiB, cold (drop_caches before each)"
	unset best_bps best_line
	declare -A best_bps best_line
	for t in $ENGINES $TOOLS; do drop; row "$t" "$(copy_once "$t")"; done
	table
	ratios
fi

echo
echo "== per-call overhead: read, µs per block (engine read vs dd bs=N of=/dev/null)"
head -c $(( 32 * 1048576 )) "$W/src" >"$W/small"
printf "%8s  %10s  %10s  %6s\n" bs engine_us dd_us ratio
bs=16
while [ $bs -le 65536 ]; do
	f=$W/small; [ $bs -ge 1024 ] && f=$W/src
	blocks=$(( $(stat -c %s "$f") / bs ))
	cat "$f" >/dev/null
	read -r _ _ e1 <<<"$(timed "$DRIVE" read "$f" $bs)"
	read -r _ _ e2 <<<"$(timed dd if="$f" of=/dev/null bs=$bs)"
	awk -v bs=$bs -v n=$blocks -v a="$e1" -v b="$e2" 'BEGIN {
		printf "%8d  %10.3f  %10.3f  %6.2f\n", bs, 1e6 * a / n, 1e6 * b / n, (b > 0 ? a / b : 0) }'
	bs=$(( bs * 2 ))
done

echo
echo "== misaligned rewrite: $SIZE_MIB MiB written, then rewritten in place after leaving the cache"
printf "%6s  %9s  %11s  %7s\n" bs write_s rewrite_s ratio
for bs in 8192 5000; do
	drop
	out=$("$DRIVE" rewrite "$W" $(( SIZE_MIB * 1048576 )) $bs) || { echo "rewrite bs=$bs failed"; continue; }
	read -r _ _ p0 p1 <<<"$out"
	awk -v bs=$bs -v a="$p0" -v b="$p1" 'BEGIN { printf "%6d  %9.2f  %11.2f  %7.2f\n", bs, a, b, (a > 0 ? b / a : 0) }'
done

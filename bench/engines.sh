#!/usr/bin/env bash
# engines.sh - benchtop's engines against cp, cat and dd, in one run.
#
#  1. A file (1 GiB; BENCH_SIZE_MIB to change) copied with every engine and
#     with cp, cat and dd bs=1M, interleaved (the order rotates every round),
#     after one untimed warm-up round, over BENCH_ROUNDS rounds (default 3),
#     page cache warm, memory prefaulted before each copy (memory left free
#     for a while is slow to touch again here, which would punish whoever
#     goes first); each copy writes a new file.  Then cold: the page cache
#     dropped before each copy (root only), BENCH_COLD_ROUNDS rounds
#     (default 2).  Best of the rounds, in the summary format, and the
#     ratios best engine / best tool and rw / cat.
#  2. Copy and flush: engines with sync=end (the fsync inside the engine,
#     counted in its elapsed) against `sh -c "cp a b; sync"` and the like,
#     BENCH_SYNC_ROUNDS rounds (default 1); the flush_s column is the
#     engine's own fsync time, a part of its elaps.
#  3. Per-call overhead: the read engine with bs 16 B .. 64 KiB against dd
#     at the same bs (dd also writes each block to /dev/null), µs per block,
#     interleaved, best of BENCH_ROUNDS.
#  4. The misaligned rewrite: written with bs, rewritten in place with bs
#     after the file left the cache, for bs=8192 and bs=5000; rewrite/write
#     ratio of each.
# BENCH_ONLY="warm cold sync call rewrite" picks sections; BENCH_ENGINES and
# BENCH_TOOLS pick rows (default all).  Not part of make
# check: it takes minutes and needs 3 × the size free in /var/tmp.
set -u
cd "$(dirname "$0")/.." || exit 1

SIZE_MIB=${BENCH_SIZE_MIB:-1024}
ROUNDS=${BENCH_ROUNDS:-3}
COLD_ROUNDS=${BENCH_COLD_ROUNDS:-2}
SYNC_ROUNDS=${BENCH_SYNC_ROUNDS:-1}
ONLY=${BENCH_ONLY:-warm cold sync call rewrite}
OUT=build/bench
DRIVE=$OUT/engine_drive
mkdir -p "$OUT"
# The engines as benchtop is built: the product's own objects, its flags.
EOBJS="build/src/work/engine.o build/src/work/engine_child.o $(ls src/work/engines/*.c src/base/*.c | sed 's|^|build/|; s|\.c$|.o|' | tr '\n' ' ') build/build/gen/builtin_files.o"
# shellcheck disable=SC2086
make -s $EOBJS || exit 1
# shellcheck disable=SC2086
cc -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Iinclude -o "$DRIVE" \
	bench/engine_drive.c $EOBJS || exit 1

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
want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

head -c $(( SIZE_MIB * 1048576 )) /dev/urandom >"$W/src"
sync

ENGINES=${BENCH_ENGINES:-rw cfr sendfile splice mmap pipe2 pipe3}
TOOLS=${BENCH_TOOLS:-cp cat dd dd128k}

# timed COMMAND...: run it, print "user sys elapsed" of it and its children
# (bash's time: milliseconds; /usr/bin/time's centiseconds are too coarse
# for a copy of a quarter of a second).
timed() {
	local TIMEFORMAT='%3U %3S %3R'
	{ time "$@" >"$W/out" 2>/dev/null; } 2>&1
}

# copy_once TEST SYNC -> "user sys elapsed"; SYNC none or end.  The
# destination is always a new file, the memory prefaulted first; with end,
# the tools run as `sh -c "TOOL; sync"`, engines fsync at their end.
copy_once() {
	local t=$1 s=$2 cmd
	rm -f "$W/dst"
	[ "$s" = end ] && sync
	prefault
	case $t in
	cp)  cmd="cp '$W/src' '$W/dst'" ;;
	cat) cmd="cat '$W/src' >'$W/dst'" ;;
	dd)  cmd="dd if='$W/src' of='$W/dst' bs=1M 2>/dev/null" ;;
	dd128k) cmd="dd if='$W/src' of='$W/dst' bs=128k 2>/dev/null" ;;
	*)   timed "$DRIVE" copy "$t" "$W/src" "$W/dst" 131072 "$s"; return ;;
	esac
	[ "$s" = end ] && cmd="$cmd; sync"
	timed sh -c "$cmd"
}

declare -A best_bps best_line
row() {   # row TEST "user sys elapsed" [extra column] -> remembers the best
	local test=$1 u s e bps
	read -r u s e <<<"$2"
	bps=$(awk -v m="$SIZE_MIB" -v e="$e" 'BEGIN { printf "%.0f", (e > 0 ? m / e : 0) }')
	if [ -z "${best_bps[$test]:-}" ] || [ "$bps" -gt "${best_bps[$test]}" ]; then
		best_bps[$test]=$bps
		best_line[$test]=$(awk -v u="$u" -v s="$s" -v e="$e" -v b="$bps" -v t="$test" -v x="${3:-}" \
			'BEGIN { printf "%6.2f  %6.2f  %6.2f  %3.0f%%  %7d  %s%s", u, s, e,
			         (e > 0 ? 100 * (u + s) / e : 0), b, t, x }')
	fi
}

table() {   # table ROWS...
	echo "  user     sys   elaps   hog    MiB/s  test"
	for t in "$@"; do echo "${best_line[$t]:-   (no result)  $t}"; done
}

ratios() {   # ratios: best engine / best tool, rw / cat, of the rows remembered
	local be=0 bt=0 ben=- btn=- t v
	for t in $ENGINES; do v=${best_bps[$t]:-0}; [ "$v" -gt $be ] && be=$v ben=$t; done
	for t in $TOOLS; do v=${best_bps[$t]:-0}; [ "$v" -gt $bt ] && bt=$v btn=$t; done
	awk -v be=$be -v bt=$bt -v ben="$ben" -v btn="$btn" -v rw="${best_bps[rw]:-0}" \
		-v cat="${best_bps[cat]:-0}" -v dd="${best_bps[dd128k]:-0}" -v cfr="$CAT_CFR" 'BEGIN {
		r1 = bt ? be / bt : 0; r2 = cat ? rw / cat : 0; r3 = dd ? rw / dd : 0
		printf "best engine / best tool: %.2f (%s / %s; target >= 1.00) %s\n", r1, ben, btn, (r1 >= 1.00 ? "ok" : "MISSED")
		printf "rw bs=128k / cat:        %.2f (target >= 0.95) %s%s\n", r2, (r2 >= 0.95 ? "ok" : "MISSED"),
		       (cfr ? " (this cat copies with copy_file_range, in the kernel)" : "")
		if (dd) printf "rw bs=128k / dd bs=128k: %.2f (the read/write loop at the same bs)\n", r3 }'
}

# coreutils 9 cat copies a regular file with copy_file_range, not read/write.
CAT_CFR=0
if command -v strace >/dev/null; then
	echo x >"$W/probe"
	strace -e trace=copy_file_range cat "$W/probe" 2>&1 >"$W/probe2" | grep -q copy_file_range && CAT_CFR=1
	rm -f "$W/probe" "$W/probe2"
fi

is_tool() { case " $TOOLS " in *" $1 "*) return 0 ;; esac; return 1; }

# copies SYNC ROUNDS WARMUP [drop]: interleaved rounds, the order rotating.
copies() {
	local s=$1 n=$2 warm=$3 cold=${4:-} order="$ENGINES $TOOLS" r t
	for r in $(seq "$warm"); do
		for t in $order; do copy_once "$t" "$s" >/dev/null; done
	done
	for r in $(seq "$n"); do
		for t in $order; do
			[ -n "$cold" ] && drop
			local tm
			tm=$(copy_once "$t" "$s")
			if [ "$s" = end ] && ! is_tool "$t"; then
				row "$t" "$tm" "  sync=end, flush $(awk '{ printf "%.2f", $4 }' "$W/out") s"
			elif [ "$s" = end ]; then
				row "$t" "$tm" "; sync"
			else
				row "$t" "$tm"
			fi
		done
		order="$(echo "$order" | cut -d' ' -f2-) $(echo "$order" | cut -d' ' -f1)"
	done
}

if want warm; then
	echo "== copy $SIZE_MIB MiB, page cache warm, best of $ROUNDS interleaved rounds after a warm-up (engines: sync=none, bs=128k)"
	cat "$W/src" >/dev/null
	copies none "$ROUNDS" 1
	table $ENGINES $TOOLS
	ratios
fi

if want cold && [ $root = 1 ]; then
	echo
	echo "== copy $SIZE_MIB MiB, cold (drop_caches before each), best of $COLD_ROUNDS interleaved rounds"
	unset best_bps best_line
	declare -A best_bps best_line
	copies none "$COLD_ROUNDS" 0 cold
	table $ENGINES $TOOLS
	ratios
elif want cold; then
	echo; echo "== cold copies skipped: drop_caches needs root"
fi

if want sync; then
	echo
	echo "== copy $SIZE_MIB MiB and flush it, warm: engines sync=end vs sh -c \"TOOL; sync\", best of $SYNC_ROUNDS"
	unset best_bps best_line
	declare -A best_bps best_line
	cat "$W/src" >/dev/null
	copies end "$SYNC_ROUNDS" 0
	table $ENGINES $TOOLS
	ratios
fi

if want call; then
	echo
	echo "== per-call overhead: read, µs per block (engine read vs dd bs=N of=/dev/null), best of $ROUNDS"
	echo "   (dd also writes each block to /dev/null; bs < 4 KiB reads a file of 256 Ki blocks)"
	printf "%8s  %10s  %10s  %6s\n" bs engine_us dd_us ratio
	bs=16
	while [ $bs -le 65536 ]; do
		f=$W/src
		if [ $bs -lt 4096 ]; then
			f=$W/small; head -c $(( bs * 262144 )) "$W/src" >"$f"
		fi
		blocks=$(( $(stat -c %s "$f") / bs ))
		cat "$f" >/dev/null
		e1=9999 e2=9999
		for r in $(seq "$ROUNDS"); do
			read -r _ _ a <<<"$(timed "$DRIVE" read "$f" $bs)"
			read -r _ _ b <<<"$(timed dd if="$f" of=/dev/null bs=$bs)"
			e1=$(awk -v x="$e1" -v y="$a" 'BEGIN { print (y < x ? y : x) }')
			e2=$(awk -v x="$e2" -v y="$b" 'BEGIN { print (y < x ? y : x) }')
		done
		awk -v bs=$bs -v n=$blocks -v a="$e1" -v b="$e2" 'BEGIN {
			r = b > 0 ? a / b : 0
			printf "%8d  %10.3f  %10.3f  %6.2f %s\n", bs, 1e6 * a / n, 1e6 * b / n, r, (r <= 1.10 ? "" : "MISSED (target <= 1.10)") }'
		bs=$(( bs * 2 ))
	done
	rm -f "$W/small"
fi

if want rewrite; then
	echo
	echo "== misaligned rewrite: $SIZE_MIB MiB written, then rewritten in place after leaving the cache"
	printf "%6s  %9s  %11s  %7s\n" bs write_s rewrite_s ratio
	for bs in 8192 5000; do
		drop
		out=$("$DRIVE" rewrite "$W" $(( SIZE_MIB * 1048576 )) $bs) || { echo "rewrite bs=$bs failed"; continue; }
		read -r _ _ p0 p1 <<<"$out"
		awk -v bs=$bs -v a="$p0" -v b="$p1" 'BEGIN { printf "%6d  %9.2f  %11.2f  %7.2f\n", bs, a, b, (a > 0 ? b / a : 0) }'
	done
fi

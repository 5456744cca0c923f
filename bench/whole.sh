#!/usr/bin/env bash
# The whole program against top, side by side in one run: after a
# warm-up, benchtop and top take turns (three rounds, each figure a ratio
# per round and the median of the rounds), so a load that comes and goes
# weighs on both.  Start-up (the first sample of -b -i 0.1, a 1 s batch
# run's wall and CPU time, against one `top -b -n 1`); peak memory (batch,
# attach and the dashboard with a few processes, 1000 attached, the
# dashboard at two sizes, a run ten times longer); CPU per refresh at
# 10 Hz, batch beside `top -b` and the dashboard beside top in tmux panes
# of 200x50, both watching the same busy dd: a short and a long run of
# each, the difference over the refreshes between them, so start-up and
# exit cancel out; a tick over 1000 tracked processes against one
# `top -b -n 1`; and whether every one of 1000 processes is in every
# sample, attached and started by a shell.  Part of `make bench`: figures,
# not assertions ("met" / "NOT met" name the targets).
set -u
cd "$(dirname "$0")/.." || exit 1
B=$PWD/benchtop
[ -x "$B" ] || { echo "no ./benchtop: make benchtop first"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/benchtop-bench.XXXXXX") || exit 1
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -- "-$p" "$p" 2>/dev/null; done
	tmux -L "btbench$$" kill-server 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
export XDG_RUNTIME_DIR=$T/run XDG_CONFIG_HOME=$T/config
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
mkdir -p build/bench
cc -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o build/bench/cpu bench/cpu.c || exit 1
C=$PWD/build/bench/cpu
cc -std=c17 -O2 -o build/bench/sleepers tests/helpers/sleepers.c || exit 1

# fig FILE FIELD: a field of a bench/cpu line (1 wall, 2 CPU, 3 peak RSS
# KiB, 4 first line's time, 5 status).
fig() { awk -v f="$2" '{ print $f }' "$1" 2>/dev/null; }
# wait_file FILE: until bench/cpu has written it (at most 120 s)
wait_file() { for _ in $(seq 1200); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }
# median of the numbers on standard input
median() { sort -g | awk '{ v[++n] = $1 } END { if (n) print v[int((n + 1) / 2)]; else print 0 }'; }
tm() { tmux -L "btbench$$" "$@"; }
# in_pane OUT COLSxROWS CMD...: run CMD under bench/cpu in a tmux pane of
# that size; waits for it to end
in_pane() {
	local out=$1 size=$2; shift 2
	rm -f "$out"
	tm new-session -d -s "p$$" -x "${size%x*}" -y "${size#*x}" "$C $out $*"
	wait_file "$out"
	tm kill-session -t "p$$" 2>/dev/null
}
ROUNDS=3

sleep 600 & PIDS+=($!); sl=$!
sleep 600 & PIDS+=($!); a1=$!
sleep 600 & PIDS+=($!); a2=$!

# warm-up: the ceiling measured once (a first run of the boot measures it
# at its end), the binaries and /proc in the page cache
"$B" -b -t 0.2 -- true >/dev/null 2>&1
"$C" "$T/warm" "$B" -b -i 0.1 -t 0.5 --attach "$sl" >/dev/null 2>&1
"$C" "$T/warm" top -b -n 2 >/dev/null 2>&1

echo "== start-up: benchtop -b -i 0.1 -t 1 --attach (first sample, wall, CPU) and top -b -n 1, in turns"
for r in $(seq $ROUNDS); do
	# the first sample is the 4th line (a comment, two header lines)
	"$C" -l 4 "$T/st.$r" "$B" -b -i 0.1 -t 1 --attach "$sl" >/dev/null 2>&1
	"$C" -l 1 "$T/top1.$r" top -b -n 1 >/dev/null 2>&1
	awk -v f="$(fig "$T/st.$r" 4)" -v w="$(fig "$T/st.$r" 1)" -v c="$(fig "$T/st.$r" 2)" \
		-v tw="$(fig "$T/top1.$r" 1)" -v tc="$(fig "$T/top1.$r" 2)" -v r="$r" 'BEGIN {
		printf "round %d: first sample %.3f s (target 0.3: %s), wall %.2f s (target 1.3: %s), CPU %.3f s (target 0.1: %s); top -b -n 1: wall %.2f s, CPU %.3f s\n",
			r, f, (f <= 0.3 ? "met" : "NOT met"), w, (w <= 1.3 ? "met" : "NOT met"), c, (c <= 0.1 ? "met" : "NOT met"), tw, tc }'
done
for k in 4 1 2; do
	b=$(for r in $(seq $ROUNDS); do fig "$T/st.$r" $k; done | median)
	t=$(for r in $(seq $ROUNDS); do fig "$T/top1.$r" $k; done | median)
	case $k in 4) what="first output" ;; 1) what="wall" ;; 2) what="CPU" ;; esac
	awk -v b="$b" -v t="$t" -v w="$what" 'BEGIN { printf "median %s: benchtop %.3f s, top -b -n 1 %.3f s: %.2fx\n", w, b, t, (t > 0 ? b / t : 0) }'
done

echo "== peak RSS (target: 16 MiB with a few processes)"
"$C" "$T/m.batch" "$B" -b -i 0.1 -t 1 -- sleep 2 >/dev/null 2>&1
"$C" "$T/m.attach" "$B" -b -i 0.1 -t 1 --attach "$sl,$a1,$a2" >/dev/null 2>&1
"$C" "$T/m.long" "$B" -b -i 0.1 -t 10 --attach "$sl,$a1,$a2" >/dev/null 2>&1
in_pane "$T/m.dash80" 80x24 "$B" -i 0.1 -t 2 --attach "$sl,$a1,$a2"
in_pane "$T/m.dash" 200x50 "$B" -i 0.1 -t 2 --attach "$sl,$a1,$a2"
in_pane "$T/m.dashlong" 200x50 "$B" -i 0.1 -t 20 --attach "$sl,$a1,$a2"
"$C" "$T/m.top" top -b -n 2 >/dev/null 2>&1
build/bench/sleepers 1000 & PIDS+=($!); many=$!
for _ in $(seq 300); do [ "$(pgrep -c -P "$many")" -ge 1000 ] && break; sleep 0.1; done
"$C" "$T/m.many" "$B" -b --format json -i 0.1 -t 3 --attach "$many" > "$T/many.jsonl" 2>/dev/null
in_pane "$T/m.dashmany" 200x50 "$B" -i 0.1 -t 3 --attach "$many"
"$C" "$T/m.topmany" top -b -n 2 >/dev/null 2>&1
for k in batch attach long dash80 dash dashlong top many dashmany topmany; do
	case $k in
	batch) what="benchtop -b -t 1 -- sleep 2" ;;
	attach) what="benchtop -b -t 1 --attach (3 processes)" ;;
	long) what="benchtop -b -t 10 --attach (3 processes, 100 samples)" ;;
	dash80) what="dashboard 80x24 -t 2 --attach (3 processes)" ;;
	dash) what="dashboard 200x50 -t 2 --attach (3 processes)" ;;
	dashlong) what="dashboard 200x50 -t 20 --attach (3 processes, 200 samples)" ;;
	top) what="top -b -n 2" ;;
	many) what="benchtop -b -t 3 --attach (1001 processes)" ;;
	dashmany) what="dashboard 200x50 -t 3 --attach (1001 processes)" ;;
	topmany) what="top -b -n 2 (1000 more processes on the machine)" ;;
	esac
	awk -v w="$what" -v k="$k" -v m="$(fig "$T/m.$k" 3)" -v t="$(fig "$T/m.top" 3)" 'BEGIN {
		few = k == "batch" || k == "attach" || k == "long" || k ~ /^dash(80|long)?$/
		printf "%s: %.1f MiB (%.1fx top)%s\n", w, m / 1024, (t > 0 ? m / t : 0),
			few ? (m <= 16384 ? " (target 16: met)" : " (target 16: NOT met)") : "" }'
done

echo "== 1000 attached processes at -i 0.1: every one in every sample, and the tick's cost"
want=$(( $(pgrep -c -P "$many") + 1 ))
jq -r 'select(.type=="sample") | (.procs | length)' "$T/many.jsonl" 2>/dev/null |
	awk -v want="$want" '{ n++; if ($1 == want) full++; if (n == 1 || $1 < min) min = $1 }
	END { ok = full == n && n > 0
		printf "%d samples, %d with all %d processes (fewest %d): %s\n", n, full, want, min, (ok ? "met" : "NOT met") }'
tick=$(jq -r 'select(.type=="sample") | .self_tick_us' "$T/many.jsonl" 2>/dev/null | median)
"$C" "$T/top1k" top -b -n 1 >/dev/null 2>&1
awk -v t="$tick" -v top="$(fig "$T/top1k" 2)" 'BEGIN {
	printf "tick over 1001 processes: median %.1f ms CPU; one top -b -n 1 among them: %.1f ms: %.2fx (target 1: %s)\n",
		t / 1000, top * 1000, (top > 0 ? t / 1e6 / top : 0), (t / 1e6 <= top ? "met" : "NOT met") }'
kill "$many" $(pgrep -P "$many") 2>/dev/null
for _ in $(seq 100); do [ -z "$(pgrep -P "$many")" ] && ! kill -0 "$many" 2>/dev/null && break; sleep 0.1; done

echo "== a shell starting 1000 sleeps, run for 8 s at -i 0.1 (--format json): how many each sample holds"
"$B" -b --format json -i 0.1 -t 8 -- sh -c 'for i in $(seq 1000); do sleep 30 & done; wait' > "$T/sh.jsonl" 2>/dev/null &
bt=$!
shp=""
for _ in $(seq 100); do shp=$(pgrep -x -P "$bt" sh | head -1); [ -n "$shp" ] && break; sleep 0.05; done
at=""
while kill -0 "$bt" 2>/dev/null; do
	if [ -z "$at" ] && [ -n "$shp" ] && [ "$(pgrep -c -P "$shp")" -ge 1000 ]; then
		at=$(grep -c '"type":"sample"' "$T/sh.jsonl")
	fi
	sleep 0.1
done
wait "$bt"
jq -r 'select(.type=="sample") | [.procs[] | select(.comm == "sleep")] | length' "$T/sh.jsonl" |
	awk -v at="${at:-}" 'BEGIN { from = at == "" ? -1 : at + 1 }
	{ n++; v[n] = $1; if ($1 > max) max = $1 }
	END { line = ""; for (i = 1; i <= n; i += 10) line = line " " v[i]
		printf "%d samples, every 10th holds:%s; the most %d sleeps\n", n, line, max
		if (from < 0) { print "the shell had not started all 1000 within the 8 s run (this machine forks slower)"; exit }
		for (i = from + 1; i < n; i++) { k++; if (v[i] == 1000) full++ }
		printf "after all 1000 existed (sample %d on): %d of %d samples hold all 1000: %s\n", from, full, k,
			(k > 0 && full == k ? "met" : "NOT met") }'

# cost OUT.b OUT.t SHORT LONG: CPU per refresh of the long run over the
# short one, for benchtop (.b) and top (.t), in turns, per round
per_refresh() {
	awk -v a="$(fig "$1" 2)" -v b="$(fig "$2" 2)" -v n="$3" 'BEGIN { printf "%.6f\n", (b - a) / n }'
}

dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null & PIDS+=($!); dd=$!
echo "== batch at 10 Hz beside a busy dd: benchtop -b against top -b, CPU per refresh (long run less short run), in turns"
for r in $(seq $ROUNDS); do
	"$C" "$T/b1.$r" "$B" -b -i 0.1 -t 1 --attach "$dd" >/dev/null 2>&1
	"$C" "$T/b6.$r" "$B" -b -i 0.1 -t 6 --attach "$dd" >/dev/null 2>&1
	"$C" "$T/t1.$r" top -b -d 0.1 -n 10 >/dev/null 2>&1
	"$C" "$T/t6.$r" top -b -d 0.1 -n 60 >/dev/null 2>&1
	b=$(per_refresh "$T/b1.$r" "$T/b6.$r" 50); t=$(per_refresh "$T/t1.$r" "$T/t6.$r" 50)
	echo "$b $t" > "$T/bt.$r"
	awk -v b="$b" -v t="$t" -v r="$r" 'BEGIN { printf "round %d: benchtop -b %.3f ms, top -b %.3f ms per refresh: %.2fx\n", r, b * 1000, t * 1000, (t > 0 ? b / t : 0) }'
done
m=$(for r in $(seq $ROUNDS); do awk '{ if ($2 > 0) print $1 / $2 }' "$T/bt.$r"; done | median)
awk -v m="$m" 'BEGIN { printf "batch / top -b per refresh, median of the rounds = %.2fx (target <= 0.25: %s)\n", m, (m <= 0.25 ? "met" : "NOT met") }'

echo "== the dashboard at 10 Hz in a 200x50 tmux pane beside a busy dd, against top -d 0.1 in a pane of the same size, in turns"
if command -v tmux >/dev/null; then
	for r in $(seq $ROUNDS); do
		in_pane "$T/d1.$r" 200x50 "$B" -i 0.1 -t 1 --attach "$dd"
		in_pane "$T/d6.$r" 200x50 "$B" -i 0.1 -t 6 --attach "$dd"
		in_pane "$T/u1.$r" 200x50 top -d 0.1 -n 10
		in_pane "$T/u6.$r" 200x50 top -d 0.1 -n 60
		b=$(per_refresh "$T/d1.$r" "$T/d6.$r" 50); t=$(per_refresh "$T/u1.$r" "$T/u6.$r" 50)
		echo "$b $t" > "$T/dt.$r"
		awk -v b="$b" -v t="$t" -v r="$r" 'BEGIN { printf "round %d: dashboard %.3f ms, top %.3f ms per refresh: %.2fx\n", r, b * 1000, t * 1000, (t > 0 ? b / t : 0) }'
	done
	m=$(for r in $(seq $ROUNDS); do awk '{ if ($2 > 0) print $1 / $2 }' "$T/dt.$r"; done | median)
	awk -v m="$m" 'BEGIN { printf "dashboard / top per refresh, median of the rounds = %.2fx (target <= 0.20: %s)\n", m, (m <= 0.2 ? "met" : "NOT met") }'
else
	echo "tmux not installed: skipped"
fi

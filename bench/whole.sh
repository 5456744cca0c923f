#!/usr/bin/env bash
# The whole program against top, side by side in one run: start-up (the
# first sample of -b -i 0.1, a 1 s batch run's wall and CPU time, one
# `top -b -n 1`), peak memory (batch, attach to a few processes, attach to
# 1000), CPU per refresh at 10 Hz of batch mode beside `top -b` and of the
# dashboard beside top in tmux panes of the same size (200x50), both
# attached to the same busy dd, and whether every one of 1000 attached
# processes is in every sample.  Part of `make bench`: figures, not
# assertions ("met" / "NOT met" name the targets).
set -u
cd "$(dirname "$0")/.." || exit 1
B=$PWD/benchtop
[ -x "$B" ] || { echo "no ./benchtop: make benchtop first"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "GNU time (/usr/bin/time) is needed"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/benchtop-bench.XXXXXX") || exit 1
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	tmux -L "btbench$$" kill-server 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
export XDG_RUNTIME_DIR=$T/run XDG_CONFIG_HOME=$T/config
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
mkdir -p build/bench
cc -std=c17 -O2 -o build/bench/sleepers -x c - <<'EOF' || exit 1
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
/* sleepers N: N children that sleep until killed; the parent waits. */
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < n; i++)
		if (fork() == 0) {
			pause();
			_exit(0);
		}
	while (wait(NULL) > 0)
		;
	return 0;
}
EOF

# gtime OUT CMD...: run CMD under GNU time: "wall user sys maxrss_kib" in OUT.
gtime() { local out=$1; shift; /usr/bin/time -f '%e %U %S %M' -o "$out" "$@"; }
# the figures of a gtime file (its last line: a failed command adds one)
figs() { tail -1 "$1"; }
# sum of user+sys of a gtime file
cpu_of() { figs "$1" | awk '{ printf "%.3f", $2 + $3 }'; }
# wait_file FILE: until GNU time has written it (at most 30 s)
wait_file() { for _ in $(seq 300); do [ -s "$1" ] && return 0; sleep 0.1; done; return 1; }

# One ceiling measured now (a first run of the boot measures it at its end).
"$B" -b -t 0.2 -- true >/dev/null 2>&1

echo "== start-up: benchtop -b -i 0.1 -t 1 (first sample, wall, CPU), against top -b -n 1"
sleep 30 & PIDS+=($!); sl=$!
for i in 1 2 3; do
	t0=$EPOCHREALTIME
	first=$( { read -r _; read -r _; read -r _; echo "$EPOCHREALTIME"; cat >/dev/null; } \
		< <(gtime "$T/st.$i" "$B" -b -i 0.1 -t 1 --attach "$sl" 2>/dev/null) )
	wait_file "$T/st.$i"
	read -r wall _ _ rss < <(figs "$T/st.$i")
	awk -v a="$t0" -v b="$first" -v w="$wall" -v c="$(cpu_of "$T/st.$i")" -v i="$i" 'BEGIN {
		printf "run %d: first sample after %.3f s (target 0.3: %s), wall %.2f s (target 1.3: %s), CPU %.3f s (target 0.1: %s)\n",
			i, b - a, b - a <= 0.3 ? "met" : "NOT met", w, w <= 1.3 ? "met" : "NOT met", c, c <= 0.1 ? "met" : "NOT met" }'
done
gtime "$T/top1" top -b -n 1 >/dev/null
echo "top -b -n 1: wall $(awk '{print $1}' "$T/top1") s, CPU $(cpu_of "$T/top1") s"

echo "== peak RSS (GNU time %M)"
gtime "$T/m.batch" "$B" -b -i 0.1 -t 1 -- sleep 2 >/dev/null 2>&1
sleep 30 & PIDS+=($!); a1=$!
sleep 30 & PIDS+=($!); a2=$!
gtime "$T/m.attach" "$B" -b -i 0.1 -t 1 --attach "$sl,$a1,$a2" >/dev/null 2>&1
build/bench/sleepers 1000 & PIDS+=($!); many=$!
for _ in $(seq 300); do [ "$(pgrep -c -P "$many")" -ge 1000 ] && break; sleep 0.1; done
gtime "$T/m.many" "$B" -b --format json -i 0.1 -t 3 --attach "$many" > "$T/many.jsonl" 2>/dev/null
gtime "$T/m.top" top -b -d 0.1 -n 10 >/dev/null
for k in batch attach many top; do
	case $k in
	batch) what="benchtop -b -t 1 -- sleep 2" ;;
	attach) what="benchtop -b -t 1 --attach (3 processes)" ;;
	many) what="benchtop -b -t 3 --attach (1001 processes)" ;;
	top) what="top -b -n 10 (this machine, 1000 sleepers among its processes)" ;;
	esac
	figs "$T/m.$k" | awk -v w="$what" -v k="$k" '{ printf "%s: %.1f MiB%s\n", w, $4 / 1024,
		(k == "batch" || k == "attach") ? ($4 <= 16384 ? " (target 16: met)" : " (target 16: NOT met)") : "" }'
done

echo "== 1000 attached processes at -i 0.1: every one in every sample"
want=$(( $(pgrep -c -P "$many") + 1 ))
jq -r 'select(.type=="sample") | (.procs | length)' "$T/many.jsonl" 2>/dev/null |
	awk -v want="$want" '{ n++; if ($1 == want) full++; if (n == 1 || $1 < min) min = $1 }
	END { printf "%d samples, %d with all %d processes (fewest %d): %s\n", n, full, want, min, (full == n && n > 0) ? "met" : "NOT met" }'
jq -r 'select(.type=="sample") | .self_tick_us' "$T/many.jsonl" 2>/dev/null | sort -n |
	awk '{ v[++n] = $1 } END { if (n) printf "tick CPU over 1001 processes: median %.1f ms\n", v[int((n + 1) / 2)] / 1000 }'
gtime "$T/top1k" top -b -n 1 >/dev/null
echo "top -b -n 1 with them: CPU $(cpu_of "$T/top1k") s"
kids=$(pgrep -P "$many")
kill "$many" $kids 2>/dev/null
for _ in $(seq 100); do [ -z "$(pgrep -P "$many")" ] && ! kill -0 "$many" 2>/dev/null && break; sleep 0.1; done

echo "== 10 Hz for 10 s beside a busy dd: benchtop -b against top -b, at the same time"
dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null & PIDS+=($!); dd=$!
gtime "$T/c.bt" "$B" -b -i 0.1 -t 10 --attach "$dd" > "$T/c.bt.out" 2>/dev/null &
w1=$!
gtime "$T/c.top" top -b -d 0.1 -n 100 > /dev/null &
w2=$!
wait "$w1" "$w2"
bt_lines=$(grep -cE '^ *[0-9]+\.[0-9]+ ' "$T/c.bt.out")
awk -v b="$(cpu_of "$T/c.bt")" -v t="$(cpu_of "$T/c.top")" -v n="$bt_lines" 'BEGIN {
	bt = n > 0 ? b / n : 0; tp = t / 100
	printf "benchtop -b: %.3f s CPU for %d samples = %.2f ms each; top -b: %.3f s for 100 = %.2f ms each\n", b, n, bt * 1000, t, tp * 1000
	if (tp > 0) printf "batch / top -b per refresh = %.2fx (target <= 0.25: %s)\n", bt / tp, bt / tp <= 0.25 ? "met" : "NOT met" }'

echo "== the dashboard at 10 Hz for 10 s in a 200x50 tmux pane, beside top -d 0.1 in another"
if command -v tmux >/dev/null; then
	tm() { tmux -L "btbench$$" "$@"; }
	tm new-session -d -s bt -x 200 -y 50 "/usr/bin/time -f '%e %U %S %M' -o '$T/d.bt' '$B' -i 0.1 -t 10 --attach $dd; sleep 30"
	tm new-session -d -s top -x 200 -y 50 "/usr/bin/time -f '%e %U %S %M' -o '$T/d.top' top -d 0.1 -n 100; sleep 30"
	wait_file "$T/d.bt" && wait_file "$T/d.top"
	awk -v b="$(cpu_of "$T/d.bt" 2>/dev/null)" -v t="$(cpu_of "$T/d.top" 2>/dev/null)" 'BEGIN {
		printf "dashboard: %.3f s CPU for 100 refreshes; top: %.3f s for 100\n", b, t
		if (t > 0) printf "dashboard / top per refresh = %.2fx (target <= 0.20: %s)\n", b / t, b / t <= 0.2 ? "met" : "NOT met" }'
else
	echo "tmux not installed: skipped"
fi

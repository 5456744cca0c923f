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
# `top -b -n 1`; whether every one of 1000 processes is in every sample,
# attached, and started by a shell (each sample against the processes that
# existed before it, by their start times read from outside); and whether
# phases and residency count from the run's start (a fake cpufreq tree
# under performance, --governor powersave: no time at the highest
# frequency).  Part of `make bench`: figures, not assertions ("met" /
# "NOT met" name the targets).
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
cc -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Iinclude -o build/bench/cpu bench/cpu.c src/base/clock.c || exit 1
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
# the server outlives each pane's session: one that exits with its last
# session races the next new-session ("server exited unexpectedly")
command -v tmux >/dev/null && tm start-server \; set -s exit-empty off 2>/dev/null
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

echo "== a shell starting 1000 sleeps, run for 8 s at -i 0.1 (--format json): every sleep in every sample once it exists"
# Each sleep's start time is read from outside (/proc/PID/stat) while the
# run goes; a sample must hold every sleep that started more than half an
# interval before it, however slowly the machine forks.
"$B" -b --format json -i 0.1 -t 8 -- sh -c 'for i in $(seq 1000); do sleep 30 & done; wait' > "$T/sh.jsonl" 2>/dev/null &
bt=$!
shp=""
for _ in $(seq 100); do shp=$(pgrep -x -P "$bt" sh | head -1); [ -n "$shp" ] && break; sleep 0.05; done
declare -A seen=()
: > "$T/sh.starts"
while kill -0 "$bt" 2>/dev/null; do
	for p in $(pgrep -P "${shp:-0}" 2>/dev/null); do
		[ -n "${seen[$p]:-}" ] && continue
		{ read -r line < "/proc/$p/stat"; } 2>/dev/null || continue
		set -- ${line#*) }
		seen[$p]=1
		echo "$p ${20}" >> "$T/sh.starts"   # field 22 of stat: start time in clock ticks
	done
	sleep 0.1
done
wait "$bt"
# (a child is the shell's own copy until it has exec'd sleep: by PID,
# whatever its name)
jq -r 'select(.type=="sample") | "S \(.t)", (.procs[] | "P \(.pid) \(.age)")' "$T/sh.jsonl" |
	awk -v hz="$(getconf CLK_TCK)" -v total="${#seen[@]}" '
	FNR == NR { st[$1] = $2 / hz; next }
	$1 == "S" { t[++ns] = $2; got[ns] = 0; next }
	$1 == "P" { have[ns, $2] = 1; if ($2 in st) { got[ns]++; if (got[ns] > most) most = got[ns] }
		if (($2 in st) && !($2 in off)) { off[$2] = t[ns] - $3 - st[$2]; o[++no] = off[$2] } }
	END {
		if (!no) { printf "none of the %d sleeps seen in any sample: NOT met\n", total; exit }
		# the run clock against boot time: the median over the sleeps seen
		for (i = 2; i <= no; i++) for (k = i; k > 1 && o[k - 1] > o[k]; k--) { x = o[k]; o[k] = o[k - 1]; o[k - 1] = x }
		c = o[int((no + 1) / 2)]
		for (s = 1; s < ns; s++) {   # the last sample, taken as the run stopped, left out
			want = 0; miss = 0
			for (p in st) if (st[p] + c < t[s] - 0.05) { want++; if (!((s, p) in have)) miss++ }
			if (want > wmax) wmax = want
			if (miss) { bad++; if (miss > mmax) mmax = miss }
		}
		printf "%d sleeps started in 8 s; %d samples, each against the sleeps that existed before it (up to %d; the most held %d): %s\n",
			total, ns - 1, wmax, most, bad ? sprintf("%d samples missed some (up to %d): NOT met", bad, mmax) : "every sample held them all: met" }' \
		"$T/sh.starts" -

echo "== phases and residency from the run's start: a fake cpufreq tree under performance, benchtop -b -t 3 --governor powersave"
cc -std=c17 -O2 -o build/bench/fake_kernel tests/helpers/fake_kernel.c || exit 1
if tests/fakesys.sh "$T/sys" --cpus 2 --governor performance; then
	tis=$T/sys/devices/system/cpu/cpufreq/policy0/stats/time_in_state
	before=$(cat "$tis")
	build/bench/fake_kernel "$T/sys" 120 & PIDS+=($!)
	for _ in $(seq 100); do [ "$(cat "$tis")" != "$before" ] && break; sleep 0.1; done
	"$B" -b --format json -i 0.1 -t 3 --sysfs "$T/sys" --governor powersave -- sleep 10 > "$T/gov.jsonl" 2>/dev/null
	jq -r 'select(.type == "end") | .t as $t | .phases as $p |
		([$p[] | select(.to > .from)][0].from) as $first |
		([$p[].residency[] | to_entries[] | select(.key == "2600000") | .value] | add // 0) as $hi |
		([$p[].residency | to_entries[] | {cpu: .key, s: ([.value[]] | add // 0)}] | group_by(.cpu) |
		 map({cpu: .[0].cpu, s: (map(.s) | add)})) as $res |
		"\($t) \($first) \($hi) \([$res[] | "\(.cpu):\(.s)"] | join(","))"' "$T/gov.jsonl" |
	awk '{ t = $1; first = $2; hi = $3; n = split($4, r, ","); worst = 0; list = ""
		for (i = 1; i <= n; i++) { split(r[i], a, ":"); d = a[2] - t; if (d < 0) d = -d; if (d > worst) worst = d
			list = list sprintf("%scpu%s %.2f s", i > 1 ? ", " : "", a[1], a[2]) }
		printf "first phase with time in it from %.3f s (target 0, within one interval: %s)\n", first, (first <= 0.1 ? "met" : "NOT met")
		printf "time at 2600 MHz, the highest, in the run'\''s phases: %.2f s (target 0: %s)\n", hi, (hi == 0 ? "met" : "NOT met")
		printf "residency over the run of %.2f s: %s (target: within 0.2 s, two steps of the fake kernel: %s)\n", t, list, (worst <= 0.2 ? "met" : "NOT met") }'
else
	echo "cannot build a fake sysfs tree: skipped"
fi

# cost OUT.b OUT.t SHORT LONG: CPU per refresh of the long run over the
# short one, for benchtop (.b) and top (.t), in turns, per round
per_refresh() {
	awk -v a="$(fig "$1" 2)" -v b="$(fig "$2" 2)" -v n="$3" 'BEGIN { printf "%.6f\n", (b - a) / n }'
}
# the four runners: benchtop and top, batch and in a 200x50 pane, OUT then
# seconds (benchtop) or refreshes (top)
run_batch() { "$C" "$1" "$B" -b -i 0.1 -t "$2" --attach "$dd" >/dev/null 2>&1; }
run_topb() { "$C" "$1" top -b -d 0.1 -n "$2" >/dev/null 2>&1; }
run_dash() { in_pane "$1" 200x50 "$B" -i 0.1 -t "$2" --attach "$dd"; }
run_top() { in_pane "$1" 200x50 top -d 0.1 -n "$2"; }
# rounds NAME WHAT TARGET BENCHTOP_RUNNER TOP_RUNNER: ROUNDS rounds of a
# 1 s and an 11 s run of benchtop, then 10 and 110 refreshes of top, the
# CPU per refresh of each (the 100 refreshes between: a start-up that
# costs a few ms more or less in one run weighs half what it did over 50),
# the ratio per round and the median of the rounds against TARGET
rounds() {
	local name=$1 what=$2 target=$3 rb=$4 rt=$5 r b t m
	for r in $(seq $ROUNDS); do
		$rb "$T/$name.b1.$r" 1; $rb "$T/$name.b11.$r" 11
		$rt "$T/$name.t1.$r" 10; $rt "$T/$name.t11.$r" 110
		b=$(per_refresh "$T/$name.b1.$r" "$T/$name.b11.$r" 100); t=$(per_refresh "$T/$name.t1.$r" "$T/$name.t11.$r" 100)
		echo "$b $t" > "$T/$name.r.$r"
		awk -v b="$b" -v t="$t" -v r="$r" -v w="$what" 'BEGIN { printf "round %d: %s %.3f ms, top %.3f ms per refresh: %.2fx\n", r, w, b * 1000, t * 1000, (t > 0 ? b / t : 0) }'
	done
	m=$(for r in $(seq $ROUNDS); do awk '{ if ($2 > 0) print $1 / $2 }' "$T/$name.r.$r"; done | median)
	awk -v m="$m" -v w="$what" -v g="$target" 'BEGIN { printf "%s / top per refresh, median of the rounds = %.2fx (target <= %.2f: %s)\n", w, m, g, (m <= g ? "met" : "NOT met") }'
}

dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null & PIDS+=($!); dd=$!
echo "== batch at 10 Hz beside a busy dd: benchtop -b against top -b, CPU per refresh (long run less short run), in turns"
rounds batch "benchtop -b" 0.25 run_batch run_topb
echo "== the dashboard at 10 Hz in a 200x50 tmux pane beside a busy dd, against top -d 0.1 in a pane of the same size, in turns"
if command -v tmux >/dev/null; then
	rounds dash "dashboard" 0.20 run_dash run_top
else
	echo "tmux not installed: skipped"
fi

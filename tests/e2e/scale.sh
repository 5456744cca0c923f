#!/usr/bin/env bash
# scale.sh - a thousand tracked processes, every one in every sample: a
# command that starts 1000 sleeping children (tests/helpers/sleepers.c, the
# command of a batch run at -i 0.1, JSON Lines), and a tree of 1000 made
# outside attached.  (A shell's loop of 1000 `sleep &` takes minutes to
# fork on a busy machine: make bench runs that one.)  Once the 1000 exist (seen from
# outside, in /proc), every sample holds each of them, by PID, alive.  A
# count check, never a timed one: how fast the shell forks depends on the
# machine, and each wait is a bounded poll.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "jq not installed"
T=$E2E_TMP
cc -std=c17 -O1 -o "$T/sleepers" "$(dirname "$0")/../helpers/sleepers.c" || skip_all "cannot compile sleepers.c"
N=1000

# samples FILE: how many sample lines FILE holds now.
samples() { local n; n=$(grep -c '"type":"sample"' "$1" 2>/dev/null); echo "${n:-0}"; }
# samples_reach FILE N: FILE holds at least N samples (counted afresh at
# every try of wait_for).
samples_reach() { [ "$(samples "$1")" -ge "$2" ]; }
# kids PID: PID's children, one a line: the kernel's own list of them
# (one small file, where pgrep reads every process of a busy machine),
# else pgrep.
kids() {
	local f=/proc/$1/task/$1/children
	if [ -r "$f" ]; then tr ' ' '\n' <"$f" | grep .; else pgrep -P "$1"; fi
}
# all_born PID: PID has N children.
all_born() { [ "$(kids "$1" | wc -l)" -ge "$N" ]; }
# held FILE PIDFILE FROM: one line per sample of FILE after the first FROM
# (the last one, taken as the run stopped, left out), "held missing" of the
# PIDs in PIDFILE among its live processes.  awk hands jq only those
# samples, and jq reads them in one pass.
held() {
	awk -v from="$3" 'index($0, "{\"type\":\"sample\"") == 1 && k++ >= from' "$1" |
	jq -r --rawfile want "$2" -s '
		($want | split("\n") | map(select(. != ""))) as $w |
		.[:-1][] |
		(reduce (.procs[] | select(.alive != false and .state != "Z") | .pid | tostring) as $p
		 ({}; .[$p] = true)) as $have |
		([$w[] | select($have[.] | not)] | length) as $miss |
		"\(($w | length) - $miss) \($miss)"'
}
# verdict: of the lines of held on stdin, "ok" when there are at least 3
# and each held every PID, else what was missing; then the most held at
# once in any of them.
verdict() {
	awk -v n="$N" '
		{ k++; if ($1 > most) most = $1; if ($2 > 0) { bad++; if ($2 > worst) worst = $2 } }
		END { if (k < 3) v = "only " k + 0 " samples after all " n " existed";
		      else if (bad) v = bad " of " k " samples missed up to " worst " of the " n;
		      else v = "ok"
		      print v; print most + 0 }'
}

# 1. the command: it starts the sleepers while the run samples it
"$BENCHTOP" -b --format json -i 0.1 -t 600 -- "$T/sleepers" "$N" > "$T/cmd.jsonl" 2> "$T/cmd.err" &
bt=$!
wait_for 30 pgrep -x -P "$bt" sleepers >/dev/null || { kill "$bt"; skip_all "the command never started"; }
sh_pid=$(pgrep -x -P "$bt" sleepers | head -1)
if wait_for 300 all_born "$sh_pid"; then
	from=$(samples "$T/cmd.jsonl")
	kids "$sh_pid" > "$T/cmd.pids"
	# the sample under way when the last sleep started may predate it
	from=$((from + 1))
	wait_for 120 samples_reach "$T/cmd.jsonl" $((from + 5))
	kill -INT "$bt"
	wait "$bt"
	rc=$?
	check "command: exits 0 on SIGINT" test "$rc" = 0
	{ read -r v; read -r n; } < <(held "$T/cmd.jsonl" "$T/cmd.pids" "$from" | verdict)
	check "command: every sample after all $N sleepers started holds each of them ($v)" test "$v" = ok
	check "command: the most held at once after they all started is $N ($n)" test "$n" = "$N"
	left=0
	for p in $(cat "$T/cmd.pids"); do kill -0 "$p" 2>/dev/null && left=$((left + 1)); done
	check "command: no sleeper left behind ($left)" test "$left" = 0
else
	kill -INT "$bt"
	wait "$bt"
	skip "the command did not start $N sleepers within the bound"
fi

# 2. attached: the tree exists before the run starts
setsid "$T/sleepers" "$N" </dev/null >/dev/null 2>&1 &
root=$!
if wait_for 300 all_born "$root"; then
	{ kids "$root"; echo "$root"; } > "$T/att.pids"
	# (until 5 samples are in, however long a loaded machine takes to
	# give them: then SIGINT ends the run)
	"$BENCHTOP" -b --format json -i 0.1 -t 600 --attach "$root" > "$T/att.jsonl" 2> "$T/att.err" &
	bt=$!
	wait_for 120 samples_reach "$T/att.jsonl" 5
	kill -INT "$bt"
	wait "$bt"
	rc=$?
	check "attach: exits 0 on SIGINT" test "$rc" = 0
	read -r v < <(held "$T/att.jsonl" "$T/att.pids" 0 | verdict)
	check "attach: every sample holds the tree's $((N + 1)) processes ($v)" test "$v" = ok
	alive=0
	for p in $(cat "$T/att.pids"); do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
	check "attach: the attached tree goes on ($alive of $((N + 1)))" test "$alive" = $((N + 1))
else
	skip "the outside tree did not reach $N children within the bound"
fi
kill -KILL -- -"$root" 2>/dev/null
wait "$root" 2>/dev/null
finish

#!/usr/bin/env bash
# Steering a run: pause and resume, markers, stop and restart, timed
# actions in batch, and the phase table that follows the events.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
T=$E2E_TMP
proc_state() { awk '{print $3}' "/proc/$1/stat" 2>/dev/null; }

# Batch: pause, resume and a marker as timed actions.
"$BENCHTOP" -b --format json -i 0.1 -t 2.5 --at 0.5:pause --at 1.2:resume --at 1.8:marker=half-way \
	-- sh -c 'while :; do :; done' > "$T/at.jsonl" 2>/dev/null
check "batch --at: exit 0" [ $? = 0 ]
acts=$(jq -r 'select(.type=="event") | .action' "$T/at.jsonl" | tr '\n' ' ')
check "batch --at: events in order ($acts)" [ "$acts" = "pause resume marker " ]
check "batch --at: event times follow the schedule" quiet jq -se '
	[.[] | select(.type=="event") | .t] as $t |
	$t[0] >= 0.5 and $t[1] >= 1.2 and $t[2] >= 1.8 and $t[0] < $t[1] and $t[1] < $t[2]' "$T/at.jsonl"
check "batch --at: marker text in the event" quiet jq -se '
	[.[] | select(.type=="event" and .action=="marker") | .detail.text] == ["half-way"]' "$T/at.jsonl"
check "batch --at: phases = events + 1" quiet jq -se '
	([.[] | select(.type=="event")] | length) + 1 == ([.[] | select(.type=="end")][0].phases | length)' "$T/at.jsonl"
check "batch --at: the paused phase burns no CPU" quiet jq -se '
	[.[] | select(.type=="end")][0].phases as $p | $p[1].label == "pause" and $p[1].hog < 0.05 and $p[2].hog > $p[1].hog' "$T/at.jsonl"
check "batch --at: samples say paused while paused" quiet jq -se '
	([.[] | select(.type=="event") | .t]) as $e
	| [.[] | select(.type=="sample" and .t > $e[0] and .t < $e[1]) | .workloads[0].state] | length > 0 and all(. == "paused")' "$T/at.jsonl"

# --placement spread: each workload starts (before exec) on a CPU of its own.
if [ "$(nproc)" -ge 2 ]; then
	"$BENCHTOP" -b --placement spread -w cmd:run="exec grep Cpus_allowed_list /proc/self/status >>$T/cpus" \
		-w cmd:run="exec grep Cpus_allowed_list /proc/self/status >>$T/cpus" >/dev/null 2>&1
	check "spread before exec: two different single CPUs ($(tr '\n\t' '  ' <"$T/cpus"))" \
		sh -c "[ \$(awk '{print \$2}' $T/cpus | sort -u | grep -cE '^[0-9]+\$') = 2 ]"
fi

# A process that resets its own affinity is reported, and pinned again.
cat > "$T/reset.sh" <<'EOS'
#!/bin/sh
while :; do taskset -p 3 $$ >/dev/null 2>&1; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; done
EOS
chmod +x "$T/reset.sh"
if command -v taskset >/dev/null; then
	"$BENCHTOP" -b -t 2.5 --at 1:pin=0 -- "$T/reset.sh" >/dev/null 2>"$T/reset.err"
	check "a pin that does not hold is reported" grep -q "did not keep CPU 0" "$T/reset.err"
fi

# Dashboard: space pauses (state T in /proc), again resumes; m adds a
# marker; x stops the selected workload; r restarts it.
first_pid() { jq -r 'select(.type=="sample") | .procs[0].pid // empty' "$T/dash.jsonl" 2>/dev/null | head -1; }
has_first_pid() { [ -n "$(first_pid)" ]; }
on_d() { tmux capture-pane -p -t "bt$$-d" | grep -q -- "$1"; }
npids() { jq -r 'select(.type=="sample") | .procs[].pid' "$T/dash.jsonl" 2>/dev/null | sort -u | wc -l; }
two_pids() { [ "$(npids)" -ge 2 ]; }
restarted() { grep -q '"w1 restart"' "$T/dash.jsonl"; }
tm_start d 120x40 "$BENCHTOP -o $T/dash.jsonl -- sh -c 'while :; do :; done'; sleep 30"
wait_for 15 has_first_pid
pid=$(first_pid)
if [ -z "$pid" ]; then
	fail "dashboard: no workload pid recorded"
else
	tm_keys d Space
	wait_for 3 sh -c "[ \"\$(awk '{print \$3}' /proc/$pid/stat)\" = T ]"
	check "space: workload stopped (state $(proc_state "$pid"))" [ "$(proc_state "$pid")" = T ]
	tm_keys d Space
	wait_for 3 sh -c "[ \"\$(awk '{print \$3}' /proc/$pid/stat)\" != T ]"
	check "space again: workload running ($(proc_state "$pid"))" [ "$(proc_state "$pid")" != T ]
	tm_keys d +
	check "+: a longer interval (1 s) on the status line and header" wait_for 20 \
		sh -c "tmux capture-pane -p -t bt$$-d | grep -q 'sample interval 1.00 s' && tmux capture-pane -p -t bt$$-d | head -1 | grep -Eq '(every )?1s'"
	tm_keys d - -
	check "- -: a shorter interval (0.25 s)" wait_for 20 on_d 'sample interval 0.25 s'
	tm_keys d t
	check "t: the next theme is named on the status line" wait_for 20 on_d 'theme: '
	tm_keys d m
	check "m: the marker prompt opens" wait_for 20 on_d 'marker label: '
	tm_keys d -l "warm cache"
	tm_keys d Enter
	check "m: marker label on the graph" wait_for 20 on_d 'warm cache'
	check "m: the prompt is closed" wait_for 20 sh -c "! tmux capture-pane -p -t bt$$-d | grep -q 'marker label: '"
	tm_keys d x
	wait_for 20 sh -c "! kill -0 $pid 2>/dev/null"
	check "x: workload process gone" sh -c "! kill -0 $pid 2>/dev/null"
	# r is refused while the stop is still being reaped: press it again
	# until the restart event is recorded.
	for _ in 1 2 3 4 5; do
		tm_keys d r
		wait_for 3 restarted && break
	done
	wait_for 15 two_pids
	n=$(npids)
	check "r: workload restarted with a new process ($n pids seen)" [ "$n" -ge 2 ]
	tm_keys d q
	wait_for 20 sh -c "! tmux capture-pane -p -t bt$$-d | grep -q 'Throughput'"
	check "dashboard: events recorded" quiet jq -se '
		[.[] | select(.type=="event") | .action] as $a |
		($a | index("pause")) != null and ($a | index("resume")) != null and ($a | index("marker")) != null' "$T/dash.jsonl"
fi
tm_kill d


# Migrations follow the kernel's count: a dd moved between the CPUs from
# outside, then held on one; once it stays, the samples' count equals
# /proc/PID/sched's (read on a CPU change, and at least every tenth tick).
# The kernel's count is taken once the moves are done (pinned to one CPU,
# it no longer changes), and the run goes on for 15 more samples (more
# than ten ticks however late a busy machine runs them) before it ends.
if [ "$(nproc)" -ge 2 ]; then
	dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null & mdd=$!
	$BENCHTOP -b --format json -i 0.1 -t 120 --attach "$mdd" > "$T/migr.jsonl" 2>/dev/null &
	mbt=$!
	nsamples() { jq -s '[.[] | select(.type=="sample")] | length' "$T/migr.jsonl" 2>/dev/null || echo 0; }
	samples_past() { [ "$(nsamples)" -ge "$1" ]; }
	wait_for 20 samples_past 2
	for i in 1 2 3 4 5 6; do taskset -p -c $((i % 2)) "$mdd" >/dev/null; sleep 0.2; done
	kernel=$(awk '/nr_migrations/ { print $3 }' "/proc/$mdd/sched")
	n0=$(nsamples)
	wait_for 30 samples_past $((n0 + 15))
	kill -INT "$mbt"; wait "$mbt" 2>/dev/null
	after=$(awk '/nr_migrations/ { print $3 }' "/proc/$mdd/sched")
	kill "$mdd"; wait "$mdd" 2>/dev/null
	last=$(jq -s '[.[] | select(.type=="sample") | .procs[] | .migrations] | last' "$T/migr.jsonl")
	check "migrations: the kernel's count held once the moves ended ($kernel, $after)" [ "$kernel" = "$after" ]
	check "migrations: the last sample's count ($last) is the kernel's ($kernel) for a dd moved 6 times" \
		sh -c '[ -n "$1" ] && [ "$1" -ge 1 ] && [ "$2" = "$1" ]' _ "$kernel" "$last"
else
	skip "migrations: needs 2 CPUs"
fi

finish

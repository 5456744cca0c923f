#!/usr/bin/env bash
# Runs keep their processes and the rules set on them: built-in engines
# loop inside their processes (a pass is counted, not an event), pins hold
# for the whole run and across a command's restarts, the phase table has a
# row per action, and input that cannot work is refused at start.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
T=$E2E_TMP
mkdir -p "$T/home" "$T/run" "$T/tmp"
export HOME=$T/home XDG_RUNTIME_DIR=$T/run XDG_CONFIG_HOME=$T/home/.config TMPDIR=$T/tmp
quiet() { "$@" >/dev/null 2>&1; }
# Cpus_allowed_list of every thread of PID, one distinct value per line.
thread_cpus() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^Cpus_allowed_list/ {print $2}' | sort -u; }

head -c 24M /dev/urandom > "$T/src"

# --loop with an engine: the same PIDs from the first sample to the last,
# passes that grow, no event, and a destination equal to its source.
"$BENCHTOP" -b --format json -i 0.2 -t 3 --loop -w copy:engine=pipe,src="$T/src",dst="$T/dst" \
	> "$T/loop.jsonl" 2>"$T/loop.err"
check "--loop engine: exit 0" [ $? = 0 ]
check "--loop engine: one set of 3 PIDs for the whole run" quiet jq -se '
	[.[] | select(.type=="sample") | .procs[].pid] | unique | length == 3' "$T/loop.jsonl"
check "--loop engine: passes counted (> 2) and never going back" quiet jq -se '
	[.[] | select(.type=="sample") | .workloads[0].passes] as $p |
	($p | last) > 2 and ([range(1; $p | length) | select($p[.] < $p[. - 1])] | length == 0)' "$T/loop.jsonl"
check "--loop engine: no events" quiet jq -se '[.[] | select(.type=="event")] | length == 0' "$T/loop.jsonl"
check "--loop engine: the destination equals the source" cmp -s "$T/src" "$T/dst"

# A command under --loop re-runs; its passes are not workload_end events.
"$BENCHTOP" -b --format json -i 0.2 -t 2.5 --loop --no-sync -- sh -c 'sleep 0.3' \
	> "$T/cmd.jsonl" 2>/dev/null
check "--loop command: runs counted as passes (> 3)" quiet jq -se '
	[.[] | select(.type=="sample") | .workloads[0].passes] | last > 3' "$T/cmd.jsonl"
check "--loop command: no workload_end" quiet jq -se '
	[.[] | select(.type=="event" and .action=="workload_end")] | length == 0' "$T/cmd.jsonl"

# Two markers: three phases, also when a workload ends for good between them.
"$BENCHTOP" -b --format json -t 3 --at 1:marker=one --at 2:marker=two \
	-w cmd:run="sleep 1.5" -w cmd:run="sleep 5" > "$T/ph.jsonl" 2>/dev/null
check "two markers: the end of w1 is an event" quiet jq -se '
	[.[] | select(.type=="event" and .action=="workload_end")] | length == 1' "$T/ph.jsonl"
check "two markers: three phase rows ($(jq -sc '[.[] | select(.type=="end")][0].phases | map(.label)' "$T/ph.jsonl" 2>/dev/null))" \
	quiet jq -se '[.[] | select(.type=="end")][0].phases | map(.label) == ["start","one","two"]' "$T/ph.jsonl"

# Bad input.
"$BENCHTOP" --loop --attach $$ >/dev/null 2>"$T/att.err"
rc=$?
check "--loop --attach: refused with exit 2 ($rc)" [ $rc = 2 ]
check "--loop --attach: the message names --loop" grep -q -- "--loop" "$T/att.err"

# The default workload in the dashboard for 20 s: at most 4 PIDs (source,
# reader, writer, control), no workload_end, and a 0 pin on the selected
# process that still holds 15 s later on every thread.
tm_start def 120x40 "$BENCHTOP -o $T/def.jsonl; sleep 30"
engines() { jq -e 'select(.type=="sample") | select([.procs[].role] | index("writer"))' "$T/def.jsonl" >/dev/null 2>&1; }
if ! wait_for 120 engines; then
	fail "default workload: the copy never started"
else
	t_pin=$(date +%s)
	tm_keys def 0
	pinned() { jq -e 'select(.type=="event" and .action=="pin")' "$T/def.jsonl" >/dev/null 2>&1; }
	wait_for 5 pinned
	pid=$(jq -r 'select(.type=="event" and .action=="pin") | .detail.pid // (.detail.target | tonumber? ) // empty' \
		"$T/def.jsonl" | head -1)
	if [ -z "$pid" ]; then
		fail "0: no pin event recorded"
	else
		check "0: PID $pid pinned to CPU 0 at once ($(thread_cpus "$pid" | tr '\n' ' '))" \
			[ "$(thread_cpus "$pid")" = 0 ]
		sleep $((t_pin + 15 - $(date +%s)))
		check "0: 15 s later PID $pid is alive and every thread still on CPU 0 ($(thread_cpus "$pid" | tr '\n' ' '))" \
			[ "$(thread_cpus "$pid")" = 0 ]
	fi
	first=$(jq -r 'select(.type=="sample") | .t' "$T/def.jsonl" | head -1)
	long() { jq -se '[.[] | select(.type=="sample") | .t] | last >= 20' "$T/def.jsonl" >/dev/null 2>&1; }
	wait_for 30 long
	tm_keys def q
	ended() { jq -e 'select(.type=="end")' "$T/def.jsonl" >/dev/null 2>&1; }
	wait_for 15 ended
	check "default workload: ran 20 s and ended on q" quiet jq -se \
		'([.[] | select(.type=="sample") | .t] | last >= 20) and ([.[] | select(.type=="end")] | length == 1)' "$T/def.jsonl"
	npid=$(jq -s '[.[] | select(.type=="sample") | .procs[].pid] | unique | length' "$T/def.jsonl")
	check "default workload: at most 4 PIDs in 20 s ($npid, first sample at ${first}s)" [ "${npid:-99}" -le 4 ]
	check "default workload: passes counted" quiet jq -se \
		'[.[] | select(.type=="sample") | .workloads[0].passes] | last >= 1' "$T/def.jsonl"
	check "default workload: no workload_end in the recording" quiet jq -se \
		'[.[] | select(.type=="event" and .action=="workload_end")] | length == 0' "$T/def.jsonl"
fi
tm_kill def
finish

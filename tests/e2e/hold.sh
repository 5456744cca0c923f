#!/usr/bin/env bash
# Runs keep their processes and the rules set on them: built-in engines
# loop inside their processes (a pass is counted, not an event), pins hold
# for the whole run and across a command's restarts, the phase table has a
# row per action, and input that cannot work is refused at start.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
own_dirs
T=$E2E_TMP
# Cpus_allowed_list of every thread of PID, one distinct value per line.
# A recording still being written, without its last (perhaps partial) line.
live() { sed '$d' "$1"; }
thread_cpus() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^Cpus_allowed_list/ {print $2}' | sort -u; }

head -c 24M /dev/urandom > "$T/src"

# most_passes FILE.jsonl: the highest pass count of workload 1 so far
most_passes() { live "$1" | jq -s '[.[] | select(.type=="sample") | .workloads[0].passes // 0] | max // 0' 2>/dev/null; }

# --loop with an engine: the same PIDs from the first sample to the last,
# passes that grow, no event, and a destination equal to its source.  The
# run goes on until 3 passes are seen, then SIGTERM ends it.
"$BENCHTOP" -b --format json -i 0.2 -t 300 --loop -w copy:engine=pipe,src="$T/src",dst="$T/dst" \
	> "$T/loop.jsonl" 2>"$T/loop.err" &
bp=$!
three_passes() { [ "$(most_passes "$T/loop.jsonl")" -ge 3 ]; }
wait_for 120 three_passes
kill -TERM $bp
wait $bp
check "--loop engine: exit 0" [ $? = 0 ]
check "--loop engine: one set of 3 PIDs for the whole run" quiet jq -se '
	[.[] | select(.type=="sample") | .procs[].pid] | unique | length == 3' "$T/loop.jsonl"
check "--loop engine: passes counted (> 2) and never going back" quiet jq -se '
	[.[] | select(.type=="sample") | .workloads[0].passes] as $p |
	($p | last) > 2 and ([range(1; $p | length) | select($p[.] < $p[. - 1])] | length == 0)' "$T/loop.jsonl"
check "--loop engine: no events" quiet jq -se '[.[] | select(.type=="event")] | length == 0' "$T/loop.jsonl"
check "--loop engine: the destination equals the source" cmp -s "$T/src" "$T/dst"

# loop_until_runs N FILE.jsonl RUNS INTERVAL CMD: benchtop --loop runs CMD
# (which appends a line to RUNS each time it ends) until RUNS has N lines
# seen from outside, then SIGTERM ends the run: nothing depends on how
# fast the machine is.
loop_until_runs() {
	# (names of their own: wait_for's locals would hide n and runs)
	lur_n=$1 lur_runs=$3
	local out=$2 iv=$4 cmd=$5 bp
	"$BENCHTOP" -b --format json -i "$iv" -t 300 --loop --no-sync -- sh -c "$cmd" > "$out" 2>/dev/null &
	bp=$!
	enough() { [ "$(wc -l 2>/dev/null < "$lur_runs" || echo 0)" -ge "$lur_n" ]; }
	wait_for 120 enough
	kill -TERM $bp
	wait $bp
}
last_passes() { jq -s '[.[] | select(.type=="sample") | .workloads[0].passes] | last' "$1"; }

# A command under --loop re-runs; its passes are not workload_end events,
# and every run is counted (the run going on as the run was stopped may
# count either way).
loop_until_runs 4 "$T/cmd.jsonl" "$T/cmd.runs" 0.2 "sleep 0.3; echo run >> '$T/cmd.runs'"
cmd_passes=$(last_passes "$T/cmd.jsonl")
cmd_runs=$(wc -l < "$T/cmd.runs")
check "--loop command: runs counted as passes ($cmd_passes passes, $cmd_runs runs seen from outside)" \
	[ "${cmd_passes:-0}" -ge 3 -a "${cmd_passes:-0}" -le $((cmd_runs + 1)) -a "${cmd_passes:-0}" -ge $((cmd_runs - 1)) ]
check "--loop command: no workload_end" quiet jq -se '
	[.[] | select(.type=="event" and .action=="workload_end")] | length == 0' "$T/cmd.jsonl"

# A fast command under --loop runs back to back, not once per tick: at
# 5 s samples a 50 ms command runs many times between two samples (a
# restart at the tick would give at most one run per sample).
loop_until_runs 12 "$T/fast.jsonl" "$T/fast.runs" 5 "sleep 0.05; echo run >> '$T/fast.runs'"
fast_passes=$(last_passes "$T/fast.jsonl")
fast_samples=$(jq -s '[.[] | select(.type=="sample")] | length' "$T/fast.jsonl")
fast_runs=$(wc -l < "$T/fast.runs" 2>/dev/null || echo 0)
check "--loop command: back to back ($fast_passes passes, more than the $fast_samples samples)" \
	[ "${fast_passes:-0}" -gt "${fast_samples:-0}" ]
check "--loop command: every run counted ($fast_passes passes, $fast_runs runs seen from outside)" \
	[ "${fast_passes:-0}" -le $((fast_runs + 1)) -a "${fast_passes:-0}" -ge $((fast_runs - 1)) ]

# Two markers: three phases, also when a workload ends for good between them.
# (-t well after w1's end: on a loaded machine its sleep may start late)
"$BENCHTOP" -b --format json -t 8 --at 1:marker=one --at 2:marker=two \
	-w cmd:run="sleep 1.5" -w cmd:run="sleep 30" > "$T/ph.jsonl" 2>/dev/null
check "two markers: the end of w1 is an event ($(jq -sc '[.[] | select(.type=="event") | [.t, .action, .label]]' "$T/ph.jsonl" 2>/dev/null))" quiet jq -se '
	[.[] | select(.type=="event" and .action=="workload_end")] | length == 1' "$T/ph.jsonl"
check "two markers: three phase rows ($(jq -sc '[.[] | select(.type=="end")][0].phases | map(.label)' "$T/ph.jsonl" 2>/dev/null))" \
	quiet jq -se '[.[] | select(.type=="end")][0].phases | map(.label) == ["start","one","two"]' "$T/ph.jsonl"

# Bad input.
"$BENCHTOP" --loop --attach $$ >/dev/null 2>"$T/att.err"
rc=$?
check "--loop --attach: refused with exit 2 ($rc)" [ $rc = 2 ]
check "--loop --attach: the message names --loop" grep -q -- "--loop" "$T/att.err"

# A pin to an offline CPU is refused, naming the online CPUs (a fake
# sysfs tree with CPU 1 offline).
bash tests/fakesys.sh "$T/sys" --cpus 2 >/dev/null 2>&1
mkdir -p "$T/sys/devices/system/cpu/cpu1" && echo 0 > "$T/sys/devices/system/cpu/cpu1/online"
"$BENCHTOP" -b -t 2 --sysfs "$T/sys" --at 1:pin=1 -- true >/dev/null 2>"$T/off.err"
rc=$?
check "pin to an offline CPU: exit 2 ($rc)" [ $rc = 2 ]
check "pin to an offline CPU: names it and the online CPUs ($(cat "$T/off.err"))" \
	grep -q "CPU 1 is offline: online CPUs are 0" "$T/off.err"

# Roles of a command's processes from what they do: a local rsync's three
# processes are a reader, a writer and an idle one, all named rsync.
mkdir -p "$T/rs/src" "$T/rs/dst"
head -c 96M /dev/urandom > "$T/rs/src/big"
"$BENCHTOP" -b --format json -i 0.2 -- rsync -a --bwlimit=24000 "$T/rs/src/" "$T/rs/dst/" \
	> "$T/rs.jsonl" 2>/dev/null
check "rsync: copied" cmp -s "$T/rs/src/big" "$T/rs/dst/big"
echo "# rsync roles: $(jq -c 'select(.type=="sample") | [.procs[] | .role]' "$T/rs.jsonl" | uniq | tr '\n' ' ')"
check "rsync: its three processes are reader, writer and idle" quiet jq -se '
	[.[] | select(.type=="sample") | [.procs[] | select(.comm=="rsync") | .role] | sort]
	| any(. == ["idle","reader","writer"])' "$T/rs.jsonl"
check "rsync: a role, once known, does not flicker" quiet jq -se '
	[.[] | select(.type=="sample") | .procs[] | select(.comm=="rsync") | {pid, role}]
	| group_by(.pid) | map([.[].role] | map(select(. != "cmd")) | [foreach .[] as $r ({p: null, n: 0};
	  if .p != null and .p != $r then .n += 1 else . end | .p = $r; .n)] | last // 0) | all(. <= 1)' "$T/rs.jsonl"

# --at 4s:pack on the default workload: from 4.1 s on no workload process
# is allowed on more than one CPU (those that start later are packed
# before they run).
if [ "$(nproc)" -ge 2 ]; then
	# on a small tmpfs (root) the default source is small and the copy
	# starts soon; elsewhere the 1 GiB source may still be written at 9 s
	small_tmp "$T/small" && small=1 || small=
	pdir=$TMPDIR
	[ -n "$small" ] && pdir=$T/small
	TMPDIR=$pdir "$BENCHTOP" -b --format json -i 0.1 -t 9 --at 4:pack > "$T/pack.jsonl" 2>/dev/null
	[ -n "$small" ] && umount "$T/small"
	check "--at 4s:pack: the copy's processes ran after 4.1 s${small:- (no tmpfs here: only the source)}" quiet jq -se \
		'[.[] | select(.type=="sample" and .t > 4.1) | .procs[] | .role] | index("writer") != null or ("'"$small"'" == "")' "$T/pack.jsonl"
	check "--at 4s:pack: samples after 4.1 s exist" quiet jq -se \
		'[.[] | select(.type=="sample" and .t > 4.1 and (.procs | length) > 0)] | length > 0' "$T/pack.jsonl"
	echo "# allowed after 4.1 s: $(jq -c 'select(.type=="sample" and .t > 4.1) | [.procs[] | .role + ":" + .allowed]' "$T/pack.jsonl" | uniq | tr '\n' ' ')"
	# (after the pack event as recorded: on a loaded machine the 4 s
	# action may run late)
	check "--at 4s:pack: no process on more than one CPU after the pack" quiet jq -se '
		([.[] | select(.type=="event" and .action=="placement") | .t][0] // 4) as $e |
		[.[] | select(.type=="sample" and .t > $e + 0.1) | .procs[] | .allowed] | all(test("^[0-9]+$"))' "$T/pack.jsonl"
else
	skip "--at 4s:pack: needs 2 CPUs"
fi

# --loop -- cp A B: a pin on the cp process (key 1) holds for each of its
# next runs, from each run's first sample.
if [ "$(nproc)" -ge 2 ]; then
	head -c 192M /dev/zero > "$T/cpsrc"
	tm_start cp 120x40 "$BENCHTOP -i 0.05 -o $T/cp.jsonl --loop --no-sync -- cp $T/cpsrc $T/cpdst; sleep 30"
	pinned() {
		tm_keys cp 1
		sleep 0.3
		tm_screen cp | grep 'holds across restarts' >> "$T/cp.status"
		grep -q '"action":"pin"' "$T/cp.jsonl" 2>/dev/null
	}
	started() { grep -q '"comm":"cp"' "$T/cp.jsonl" 2>/dev/null; }
	wait_for 30 started
	# benchtop, the pane's shell's child: looked for once it runs (the
	# shell may not have forked it yet right after the pane started)
	bt=$(ps -o pid= --ppid "$(tmux list-panes -t "bt$$-cp" -F '#{pane_pid}')" | head -1 | tr -d ' ')
	if [ -z "$bt" ]; then
		fail "--loop cp: benchtop not found in its pane"
	elif ! wait_for 30 pinned; then
		fail "--loop cp: no pin event after pressing 1"
	else
		t_pin=$(grep '"action":"pin"' "$T/cp.jsonl" | head -1 | jq -r .t)
		check "--loop cp: the status line says the pin holds across restarts" \
			grep -q 'pinned cp (.*) of workload 1 to CPU 1 (PID [0-9]*); holds across restarts' "$T/cp.status"
		# The placement strip: one row for the cp role, whatever its PID.
		check "--loop cp: one placement row for cp across its restarts ($(tm_screen cp | grep -cE '[0-9]+ (cmd|writer|reader|idle|pipe) +cp +[0-9a-f ]*(mig|ended)'))" \
			[ "$(tm_screen cp | grep -cE '[0-9]+ (cmd|writer|reader|idle|pipe) +cp +[0-9a-f ]*(mig|ended)')" = 1 ]
		# Watch every cp run from outside as well: all threads on CPU 1.
		bad=0 seen= runs=0 i=0 until=$((SECONDS + 300))
		while [ "$SECONDS" -lt "$until" ]; do
			i=$((i + 1))
			for p in $(ps -o pid=,comm= --ppid "$bt" 2>/dev/null | awk '$2=="cp" {print $1}'); do
				c=$(thread_cpus "$p" | tr '\n' ' ')
				[ -z "$c" ] && continue
				case " $seen " in *" $p "*) ;; *) seen="$seen $p";; esac
				[ "$c" = "1 " ] || { bad=$((bad + 1)); echo "# PID $p allowed on $c"; }
			done
			# (the recording is read once a second, not at every look)
			[ $((i % 10)) = 0 ] && runs=$(live "$T/cp.jsonl" | jq -s --argjson t "$t_pin" '[.[] | select(.type=="sample" and .t > $t)
				| .procs[] | select(.comm=="cp") | .pid] | unique | length' 2>/dev/null)
			[ "${runs:-0}" -ge 7 ] && [ "$(wc -w <<<"$seen")" -ge 3 ] && break
			sleep 0.1
		done
		check "--loop cp: every cp seen from outside ($(wc -w <<<"$seen")) had all threads on CPU 1" \
			[ "$bad" = 0 -a -n "$seen" ]
		# x stops it for good (an event), r starts it again with the same rule.
		stopped() { tm_keys cp x; sleep 0.3; grep -q '"action":"workload_end"' "$T/cp.jsonl"; }
		restarted() { tm_keys cp r; sleep 0.3; grep -q '"w1 restart"' "$T/cp.jsonl"; }
		# ... and the restarted cp is seen in a sample
		cp_after_restart() { live "$T/cp.jsonl" | jq -se '
			([.[] | select(.type=="event" and .label=="w1 restart") | .t] | first) as $r
			| [.[] | select(.type=="sample" and .t > $r) | .procs[] | select(.comm=="cp") | .allowed
			   | select(. != null)] | length > 0' >/dev/null 2>&1; }
		wait_for 10 stopped && wait_for 10 restarted && wait_for 20 cp_after_restart
		tm_keys cp q
		ended() { jq -e 'select(.type=="end")' "$T/cp.jsonl" >/dev/null 2>&1; }
		wait_for 15 ended
		echo "# cp runs after the pin: $(jq -sc --argjson t "$t_pin" '[.[] | select(.type=="sample" and .t > $t) | .procs[] | select(.comm=="cp") | {pid, allowed}] | group_by(.pid) | map({pid: .[0].pid, allowed: [.[].allowed] | unique})' "$T/cp.jsonl")"
		"$BENCHTOP" --report "$T/cp.jsonl" -o "$T/cp.svg" 2>/dev/null
		check "--loop cp: the report's strip has one row for cp, its restarts counted ($(grep -oE '>[0-9]+ cp \([a-z]+\)[^<]*<' "$T/cp.svg" | tr '\n' ' '))" \
			sh -c "[ \$(grep -cE '>[0-9]+ cp \([a-z]+\) \+[0-9]+<' '$T/cp.svg') = 1 ] && [ \$(grep -cE '>[0-9]+ cp \(' '$T/cp.svg') = 1 ]"
		check "x then r: each is a row of the phase table ($(jq -sc '[.[] | select(.type=="end")][0].phases | map(.label)' "$T/cp.jsonl" 2>/dev/null))" quiet jq -se '
			[.[] | select(.type=="end")][0].phases | map(.label) | index("w1 stopped") != null and index("w1 restart") != null' "$T/cp.jsonl"
		check "x then r: the restarted cp runs on CPU 1 from its first sample" quiet jq -se '
			([.[] | select(.type=="event" and .label=="w1 restart") | .t] | first) as $r
			| [.[] | select(.type=="sample" and .t > $r) | .procs[] | select(.comm=="cp") | .allowed
			   | select(. != null)] | length > 0 and all(. == "1")' "$T/cp.jsonl"
		check "--loop cp: 5 restarts after the pin, each on CPU 1 from its first sample" quiet jq -se --argjson t "$t_pin" '
			[.[] | select(.type=="sample") | . as $s | .procs[] | select(.comm=="cp") | {pid, allowed, t: $s.t}]
			| group_by(.pid) | map(select(.[0].t > $t + 0.05)) | length >= 5
			  and all(all(.allowed == "1" or .allowed == null))' "$T/cp.jsonl"
	fi
	tm_kill cp
else
	skip "--loop cp pin: needs 2 CPUs"
fi

# The default workload in the dashboard: at most 4 PIDs (source, reader,
# writer, control) over its passes, no workload_end, and a 0 pin on the
# selected process that still holds 5 passes and 5 samples later on every
# thread.  On a
# small tmpfs (root) the default source is small and a pass short.
dtmp=$TMPDIR
small_tmp "$T/dsmall" && dtmp=$T/dsmall
tm_start def 120x40 "env TMPDIR=$dtmp $BENCHTOP -o $T/def.jsonl; sleep 30"
engines() { grep -q '"role":"writer"' "$T/def.jsonl" 2>/dev/null; }
if ! wait_for 120 engines; then
	fail "default workload: the copy never started"
else
	tm_keys def 0
	pinned() { grep -q '"action":"pin"' "$T/def.jsonl" 2>/dev/null; }
	wait_for 10 pinned
	p0=$(most_passes "$T/def.jsonl")
	n0=$(live "$T/def.jsonl" | grep -c '"type":"sample"')
	pid=$(grep '"action":"pin"' "$T/def.jsonl" | head -1 | jq -r '.detail.pid // (.detail.target | tonumber? ) // empty')
	if [ -z "$pid" ]; then
		fail "0: no pin event recorded"
	else
		check "0: PID $pid pinned to CPU 0 at once ($(thread_cpus "$pid" | tr '\n' ' '))" \
			[ "$(thread_cpus "$pid")" = 0 ]
		later() { [ "$(most_passes "$T/def.jsonl")" -ge $((p0 + 5)) ] &&
			[ "$(live "$T/def.jsonl" | grep -c '"type":"sample"')" -ge $((n0 + 5)) ]; }
		wait_for 180 later || fail "default workload: not 5 passes and samples after the pin (passes $p0 then $(most_passes "$T/def.jsonl"))"
		check "0: 5 passes later PID $pid is alive and every thread still on CPU 0 ($(thread_cpus "$pid" | tr '\n' ' '))" \
			[ "$(thread_cpus "$pid")" = 0 ]
	fi
	tm_keys def q
	ended() { jq -e 'select(.type=="end")' "$T/def.jsonl" >/dev/null 2>&1; }
	wait_for 30 ended
	check "default workload: ended on q after its passes" quiet jq -se \
		'([.[] | select(.type=="sample") | .workloads[0].passes] | last >= '"$((p0 + 5))"') and ([.[] | select(.type=="end")] | length == 1)' "$T/def.jsonl"
	npid=$(jq -s '[.[] | select(.type=="sample") | .procs[].pid] | unique | length' "$T/def.jsonl")
	check "default workload: at most 4 PIDs over $(most_passes "$T/def.jsonl") passes ($npid)" [ "${npid:-99}" -le 4 ]
	check "default workload: no workload_end in the recording" quiet jq -se \
		'[.[] | select(.type=="event" and .action=="workload_end")] | length == 0' "$T/def.jsonl"
fi
tm_kill def
finish

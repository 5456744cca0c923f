#!/usr/bin/env bash
# placement.sh - issue 5 end to end: keys 0 / p / c / f / s in the dashboard
# (through tmux) and --at in batch JSON, checked against what the kernel
# reports in /proc/PID/task/TID/status, never against what benchtop says.
source "$(dirname "$0")/lib.sh"

NCPU=$(getconf _NPROCESSORS_CONF)
ALL=$([ "$NCPU" = 1 ] && echo 0 || echo "0-$((NCPU - 1))")
HELPERS=()              # pids of our helper processes, killed at exit

trap 'kill_helpers; e2e_cleanup' EXIT

kill_helpers() {
	local p
	for p in "${HELPERS[@]}"; do kill -9 "$p" 2>/dev/null; done
}


# The helpers below that poll /proc use bash builtins only: under two
# spinning workloads every fork is slow, and ps takes seconds.

# tasks_allowed PID: Cpus_allowed_list of every task of PID, one a line.
tasks_allowed() {
	local f k v
	for f in /proc/"$1"/task/*/status; do
		[ -r "$f" ] || continue
		while read -r k v; do
			[ "$k" = Cpus_allowed_list: ] && { echo "$v"; break; }
		done 2>/dev/null <"$f"
	done
}

# all_on LIST PID...: every task of every PID (at least one) has LIST.
all_on() {
	local want=$1 p l n
	shift
	[ $# -gt 0 ] || return 1
	for p; do
		n=0
		while read -r l; do
			[ "$l" = "$want" ] || return 1
			n=$((n + 1))
		done < <(tasks_allowed "$p")
		[ $n -gt 0 ] || return 1
	done
}

# single_cpu PID: prints the one CPU all tasks of PID are pinned to, or fails.
single_cpu() {
	local l one=
	while read -r l; do
		[[ "$l" =~ ^[0-9]+$ ]] && [ -z "$one" -o "$one" = "$l" ] || return 1
		one=$l
	done < <(tasks_allowed "$1")
	[ -n "$one" ] && echo "$one"
}

# same_cpu PID PID: both pinned to the same single CPU.
same_cpu() {
	local a b
	a=$(single_cpu "$1") && b=$(single_cpu "$2") && [ "$a" = "$b" ]
}

# spread_ok PID PID: both pinned to one CPU each, and not the same one.
spread_ok() {
	local a b
	a=$(single_cpu "$1") && b=$(single_cpu "$2") && [ "$a" != "$b" ]
}

# tree PID: the descendants of PID, from the parent field of every
# /proc/N/stat (read with builtins; the field after the ")" of comm).
tree() {
	local f line rest pid ppid
	local -A kids=()
	for f in /proc/[0-9]*/stat; do
		line=
		read -r line 2>/dev/null <"$f" || [ -n "$line" ] || continue
		rest=${line##*) }
		pid=${f#/proc/}
		pid=${pid%/stat}
		ppid=${rest#* }
		ppid=${ppid%% *}
		kids[$ppid]+=" $pid"
	done
	tree_walk "$1"
}
tree_walk() {
	local p
	for p in ${kids[$1]:-}; do echo "$p"; tree_walk "$p"; done
}

# named ROOT COMM: descendants of ROOT whose comm is COMM.
named() {
	local p c
	for p in $(tree "$1"); do
		c=
		read -r c 2>/dev/null <"/proc/$p/comm"
		[ "$c" = "$2" ] && echo "$p"
	done
}

# ntasks_is N PID: PID has exactly N tasks.
ntasks_is() { [ "$(tasks_allowed "$2" | wc -l)" = "$1" ]; }

json_ok() { jq -e . "$1" >/dev/null; }
# jqs FILTER FILE [ARGS]: the records of FILE as one array pass FILTER.
jqs() { jq -se "$@" >/dev/null; }

# count_named N ROOT COMM: true once exactly N such processes exist.
count_named() { [ "$(named "$2" "$3" | wc -l)" = "$1" ]; }

# The benchtop process of a tmux session (the pane may run it under a shell).
bt_pid() {
	local pane p c
	pane=$(tmux display -p -t "bt$$-$1" '#{pane_pid}' 2>/dev/null) || return 1
	for p in "$pane" $(tree "$pane"); do
		c=
		read -r c 2>/dev/null <"/proc/$p/comm"
		[ "$c" = benchtop ] && { echo "$p"; return 0; }
	done
	return 1
}

screen_has() { tm_screen "$1" 2>/dev/null | grep -qF -- "$2"; }
screen_re() { tm_screen "$1" 2>/dev/null | grep -qiE -- "$2"; }
prompt_closed() { ! screen_has "$1" "(Tab: "; }
session_gone() { ! tmux has-session -t "bt$$-$1" 2>/dev/null; }
none_alive() { local p; for p; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }

# quit NAME PIDS...: q ends the dashboard and leaves no workload process.
quit() {
	local s=$1
	shift
	tm_keys "$s" q
	check "$s: q ends the dashboard" wait_for 15 session_gone "$s"
	check "$s: no workload process left after q" wait_for 10 none_alive "$@"
	tm_kill "$s"
}

# ---- preconditions -------------------------------------------------------

[ -x "$BENCHTOP" ] || skip_all "no binary at $BENCHTOP (build it with make build/san/benchtop)"
help=$("$BENCHTOP" --help 2>&1)
grep -q -- '--at' <<<"$help" && grep -q -- '--placement' <<<"$help" ||
	skip_all "$BENCHTOP --help lists no --at / --placement yet"
[ "$NCPU" -ge 2 ] || skip_all "one CPU only: spread and free cannot be told from pin"
command -v jq >/dev/null || skip_all "jq is not installed"
cc -std=c17 -O1 -pthread -o "$E2E_TMP/threads" "$(dirname "$0")/../helpers/threads.c" ||
	skip_all "cannot compile tests/helpers/threads.c"
cc -std=c17 -O1 -o "$E2E_TMP/affwatch" "$(dirname "$0")/../helpers/affwatch.c" ||
	skip_all "cannot compile tests/helpers/affwatch.c"
AW="$E2E_TMP/affwatch"
cp "$E2E_TMP/threads" "$E2E_TMP/busyloop"
B="$E2E_TMP/busyloop"
T="$E2E_TMP/threads"

# ---- bad CPU lists are refused before anything runs ----------------------

i=0
for word in 9 1-0 x ""; do
	i=$((i + 1))
	[ "$word" = 9 ] && [ "$NCPU" -gt 9 ] && continue
	out=$("$BENCHTOP" -b -t 1 --at "1:pin=$word" -- touch "$E2E_TMP/ran$i" 2>&1)
	rc=$?
	check "--at 1:pin=$word exits 2 (got $rc)" [ "$rc" = 2 ]
	if [ -n "$word" ]; then
		check "--at 1:pin=$word names \"$word\"" grep -qF -- "$word" <<<"$out"
	else
		check "--at 1:pin= names the entry and says a list is needed" \
			grep -qiE '1:pin=.*(empty|needs|LIST)' <<<"$out"
	fi
	check "--at 1:pin=$word runs nothing" [ ! -e "$E2E_TMP/ran$i" ]
done
if [ "$NCPU" -le 9 ]; then
	out=$("$BENCHTOP" -b -t 1 --cpus 9 -- touch "$E2E_TMP/ran-cpus" 2>&1)
	rc=$?
	check "--cpus 9 exits 2 (got $rc)" [ "$rc" = 2 ]
	check "--cpus 9 says CPU 9 is out of range" grep -q 'CPU 9 .*range' <<<"$out"
	check "--cpus 9 runs nothing" [ ! -e "$E2E_TMP/ran-cpus" ]
fi

# ---- batch: --at pin, spread, free ---------------------------------------

json="$E2E_TMP/at.json"
# Phases of 3 s, so the watch below (it starts once both loops exist)
# sees each one even on a busy machine.
"$BENCHTOP" -b --format json -i 0.2 -t 11 --at 3:pin=0 --at 6:spread --at 9:free \
	-- sh -c "$B 1 spin >/dev/null & exec $B 1 spin >/dev/null" >"$json" 2>"$E2E_TMP/at.err" &
bt=$!
HELPERS+=("$bt")
# The kernel's view while it runs, from affwatch (a C poll every 10 ms,
# no fork per look): states are compared in order, never against the clock.
states=()
if wait_for 15 count_named 2 "$bt" busyloop; then
	mapfile -t pids < <(named "$bt" busyloop)
	HELPERS+=("${pids[@]}")
	while read -r _ a b; do
		[ -n "${PLACEMENT_DEBUG:-}" ] && echo "# $a $b"
		[ "$a" = gone ] || [ "$b" = gone ] && continue
		if [ "$a" = 0 ] && [ "$b" = 0 ]; then s=pin0
		elif [ "$a" = "$ALL" ] && [ "$b" = "$ALL" ]; then s=all
		elif [[ $a =~ ^[0-9]+$ && $b =~ ^[0-9]+$ && $a != "$b" ]]; then s=spread
		else s=other; fi
		[ ${#states[@]} -gt 0 ] && [ "${states[-1]}" = "$s" ] || states+=("$s")
	done < <(timeout 60 "$AW" "${pids[@]}")
fi
wait "$bt"
rc=$?
if ! grep -q '"type" *: *"start"' "$json"; then
	echo "# batch JSON: $(head -c 300 "$E2E_TMP/at.err")"
	skip "batch --format json prints no start record yet"
else
	check "batch with --at exits 0 (got $rc)" [ "$rc" = 0 ]
	check "batch output is JSON Lines" json_ok "$json"
	seq="${states[*]}"
	echo "# affinity states seen in /proc: $seq"
	# "other" may show for an instant between two pids being set.
	seq=$(sed 's/ other//g; s/^other //' <<<"$seq")
	check "affinity follows all → pin 0 → spread → all" \
		grep -qE '^(all )?pin0 spread all$' <<<"$seq"
	ev=$(jq -c 'select(.type == "event")' "$json")
	echo "# events: $(tr '\n' ' ' <<<"$ev")"
	acts=$(jq -r 'select(.type == "event") | .action' "$json" | grep -E '^(pin|placement)$' | tr '\n' ' ')
	check "events pin, placement, placement in order" [ "$acts" = "pin placement placement " ]
	check "placement events say spread, then free" jqs '
		[.[] | select(.type == "event" and .action == "placement") | .detail | tostring]
		| length == 2 and (.[0] | test("spread")) and (.[1] | test("free"))' "$json"
	check "event times are in order, each at or after its --at time" jqs '
		[.[] | select(.type == "event" and (.action == "pin" or .action == "placement")) | .t]
		| length == 3 and .[0] >= 2.99 and .[0] < 6 and .[1] >= 5.99 and .[1] < 9
		  and .[2] >= 8.99 and .[2] < 11.5' "$json"
	nev=$(jq -s '[.[] | select(.type == "event")] | length' "$json")
	check "end record has events + 1 = $((nev + 1)) phases" jqs --argjson n "$nev" '
		[.[] | select(.type == "end")] | length == 1 and (.[0].phases | length) == $n + 1' "$json"
	check "each phase starts at the event that split it" jqs '
		([.[] | select(.type == "event") | .t]) as $ev
		| [.[] | select(.type == "end")][0].phases as $ph
		| [range(1; $ph | length) | ($ph[.].from - $ev[. - 1])
		   | (if . < 0 then -. else . end) < 0.05] | all' "$json"
	check "the last sample shows the workload processes free again" jqs --arg all "$ALL" '
		[.[] | select(.type == "sample" and (.procs | length) > 0)] | last | .procs
		| map(select(.comm == "busyloop") | .allowed) | length == 2 and all(. == $all)' "$json"
fi
kill_helpers

# ---- dashboard: 2 processes: 9, p 1-0, 0 on each row, f, s ----------------

tm_start two 120x40 "$BENCHTOP -i 0.2 -- sh -c '$B 1 spin & exec $B 1 spin'"
if ! wait_for 15 bt_pid two >/dev/null; then
	echo "# screen: $(tm_screen two 2>/dev/null | head -5 | tr '\n' '|')"
	fail "dashboard starts (no benchtop process in the tmux pane)"
else
	bt=$(bt_pid two)
	check "two: both workload processes run" wait_for 15 count_named 2 "$bt" busyloop
	mapfile -t pids < <(named "$bt" busyloop)
	HELPERS+=("${pids[@]}")
	check "two: process table lists the workload pids" wait_for 10 screen_has two "${pids[1]}"
	if [ "$NCPU" -le 9 ]; then
		tm_keys two 9
		check "two: key 9 says CPU 9 is out of range" wait_for 10 screen_has two "CPU 9"
		check "two: key 9 changes nothing" all_on "$ALL" "${pids[@]}"
	fi
	tm_keys two p
	check "two: p opens the pin prompt" wait_for 10 screen_has two "pin the selected process to CPUs"
	tm_keys two 1-0 Enter
	check "two: prompt 1-0 is refused with a message naming it" wait_for 10 screen_re two \
		'1-0.*(backwards|range|bad|invalid)|(backwards|range|bad|invalid).*1-0'
	check "two: prompt 1-0 changes nothing" all_on "$ALL" "${pids[@]}"
	# A prompt still open is closed with Escape; waiting until it is gone
	# means ncurses has read the Escape (ESCDELAY), so 0 is not Alt-0.
	if screen_has two "(Tab: "; then
		tm_keys two Escape
		check "two: Escape closes the prompt" wait_for 10 prompt_closed two
	fi
	tm_keys two 0 Down 0 Down 0
	check "two: after 0 on each row every task is on CPU 0" wait_for 10 all_on 0 "${pids[@]}"
	tm_keys two f
	check "two: after f every task is on all CPUs ($ALL)" wait_for 10 all_on "$ALL" "${pids[@]}"
	tm_keys two s
	check "two: after s the two processes are on different single CPUs" \
		wait_for 10 spread_ok "${pids[@]}"
	tm_keys two c
	check "two: after c both processes are on one CPU (the selected one's)" \
		wait_for 10 same_cpu "${pids[@]}"
	quit two "${pids[@]}"
fi
kill_helpers

# ---- dashboard: a 3-thread process ---------------------------------------

tm_start thr 120x40 "$BENCHTOP -i 0.2 -- $T 3 sleep"
if wait_for 15 bt_pid thr >/dev/null && wait_for 15 count_named 1 "$(bt_pid thr)" threads; then
	p=$(named "$(bt_pid thr)" threads)
	HELPERS+=("$p")
	check "thr: the process has 3 tasks" wait_for 10 ntasks_is 3 "$p"
	wait_for 10 screen_has thr "$p"
	tm_keys thr 0
	check "thr: after 0 all 3 tasks are on CPU 0" wait_for 10 all_on 0 "$p"
	check "thr: still 3 tasks" ntasks_is 3 "$p"
	tm_keys thr f
	check "thr: after f all 3 tasks are on all CPUs" wait_for 10 all_on "$ALL" "$p"
	quit thr "$p"
else
	fail "thr: dashboard runs the 3-thread process"
fi
kill_helpers

# ---- dashboard: a process started after the pin gets the placement -------

# the late process waits at a gate the test opens once the pin took
mkfifo "$E2E_TMP/late.gate"
tm_start late 120x40 "$BENCHTOP -i 0.2 -- sh -c 'read x < $E2E_TMP/late.gate; $B 1 spin & wait'"
if wait_for 15 bt_pid late >/dev/null; then
	bt=$(bt_pid late)
	wait_for 10 count_named 1 "$bt" sh
	mapfile -t early < <(tree "$bt")
	HELPERS+=("${early[@]}")
	wait_for 10 screen_has late "${early[0]}"
	tm_keys late 0 Down 0 Down 0
	check "late: the first processes are pinned to CPU 0" wait_for 10 all_on 0 "${early[@]}"
	timeout 30 sh -c "echo go > '$E2E_TMP/late.gate'"
	check "late: the late process starts" wait_for 15 count_named 1 "$bt" busyloop
	p=$(named "$bt" busyloop)
	HELPERS+=("$p")
	check "late: the process started after the pin is on CPU 0" wait_for 10 all_on 0 "$p"
	quit late "$p"
else
	fail "late: dashboard starts"
fi

finish

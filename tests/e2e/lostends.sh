#!/usr/bin/env bash
# lostends.sh - runs that cannot go on end by themselves, in order:
# a dashboard whose terminal goes away (the pty's other side closed, with a
# hang-up when it is the controlling terminal and without one when it is
# not), and `-b --loop` whose every workload fails (with -t and without).
# Each ends with the governor it set restored in the fake sysfs tree, its
# restore journal removed, no child left, and says why; a --loop with one
# workload still going runs on to its -t.  Every wait is a bounded poll.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
own_dirs
need_benchtop
command -v jq >/dev/null || skip_all "jq not installed"
T=$E2E_TMP
cc -std=c17 -O1 -o "$T/ptyhold" tests/helpers/ptyhold.c || skip_all "cannot compile ptyhold.c"
tests/fakesys.sh "$T/sys" --cpus 2 --governor ondemand || skip_all "cannot build a fake sysfs tree"

alive() { kill -0 "$1" 2>/dev/null; }
samples() { local n; n=$(grep -c '"type":"sample"' "$1" 2>/dev/null); echo "${n:-0}"; }
govs_are() {
	local f
	for f in "$T"/sys/devices/system/cpu/cpufreq/policy*/scaling_governor; do
		[ "$(cat "$f")" = "$1" ] || return 1
	done
}
# the workload's sleeps, by PID, from the recording's samples
sleeps_of() { jq -r 'select(.type=="sample") | .procs[] | select(.comm=="sleep") | .pid' "$1" 2>/dev/null | sort -u; }
# sampled FILE: 3 samples or more, and the workload's two sleeps in them
sampled() { [ "$(samples "$1")" -ge 3 ] && [ "$(sleeps_of "$1" | wc -l)" -ge 2 ]; }

# ---- the terminal goes away --------------------------------------------
for mode in plain ctty; do
	rec=$T/$mode.jsonl
	rm -f "$T/close"
	"$T/ptyhold" "$mode" "$T/close" "$BENCHTOP" -i 0.1 --sysfs "$T/sys" --governor powersave -o "$rec" \
		-- sh -c 'sleep 300 & sleep 300 & wait' > "$T/$mode.pid" 2> "$T/$mode.err" &
	holder=$!
	wait_for 20 test -s "$T/$mode.pid"
	bt=$(head -1 "$T/$mode.pid")
	if ! wait_for 60 sampled "$rec"; then
		fail "$mode: the dashboard never sampled its workload ($(tail -2 "$T/$mode.err" | tr '\n' '|'))"
		echo "# $(samples "$rec") samples, sleeps: $(sleeps_of "$rec" | tr '\n' ' '); benchtop $bt: $(ps -o stat=,wchan:20= -p "$bt" 2>/dev/null || echo gone)"
		echo "# its children: $(ps -o pid=,stat=,comm= --ppid "$bt" 2>/dev/null | tr '\n' ';')"
		touch "$T/close"; wait "$holder"
		continue
	fi
	check "$mode: the run set powersave" govs_are powersave
	kids=$(sleeps_of "$rec")
	touch "$T/close"
	wait "$holder"
	rc=$?
	check "$mode: benchtop ended by itself once its terminal was closed (status $rc)" test "$rc" = 0
	check "$mode: the governor is back to ondemand" govs_are ondemand
	check "$mode: no restore journal is left" sh -c "! ls '$XDG_RUNTIME_DIR'/benchtop/journal.* >/dev/null 2>&1"
	left=""
	for p in $kids; do alive "$p" && [ "$(cat /proc/$p/comm 2>/dev/null)" = sleep ] && left="$left $p"; done
	check "$mode: none of the workload's sleeps is left ($(echo $kids):$left)" test -z "$left"
	check "$mode: the recording has its end record" jqe 'any(.[]; .type == "end")' "$rec"
	[ -n "$bt" ] && alive "$bt" && kill -KILL "$bt"
done

# ---- --loop with nothing that can run ------------------------------------
# bounded runner: the run, in the background, waited for at most 60 s
loop_run() {
	local out=$1; shift
	"$BENCHTOP" -b --format json -i 0.1 --loop "$@" > "$out.jsonl" 2> "$out.err" &
	local p=$!
	wait_for 60 sh -c "! kill -0 $p 2>/dev/null"
	if alive "$p"; then
		kill -TERM "$p"
		wait "$p"
		echo "still running"
		return
	fi
	wait "$p"
	echo "$?"
}
rc=$(loop_run "$T/none" -- false)
check "--loop, the one workload fails, no -t: the run ends with status 1 ($rc)" test "$rc" = 1
check "--loop: says no workload is left to run" grep -q -- "--loop: no workload is left to run" "$T/none.err"
check "--loop: prints the workload's error" grep -q "false exited with status 1" "$T/none.err"
check "--loop: the end record is written" jqe 'any(.[]; .type == "end")' "$T/none.jsonl"
rc=$(loop_run "$T/none600" -t 600 -w cmd:run=/nonexistent/cmd -w cmd:run=false)
check "--loop -t 600, both workloads fail: the run ends with status 1 ($rc)" test "$rc" = 1
check "--loop -t 600: names the command that could not run" grep -q "/nonexistent/cmd" "$T/none600.err"
# one workload fails, the other re-runs: the run goes on to its -t
rc=$(loop_run "$T/one" -t 2 -w cmd:run=false -w cmd:run=true)
check "--loop -t 2, one of two fails: status 1 at the end ($rc)" test "$rc" = 1
check "--loop -t 2, one of two fails: the run went on to its -t" \
	jqe '[.[] | select(.type == "end")][0].t >= 2' "$T/one.jsonl"
check "--loop -t 2, one of two fails: not said to have nothing left" \
	sh -c "! grep -q 'no workload is left' '$T/one.err'"
finish

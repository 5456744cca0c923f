#!/usr/bin/env bash
# signals.sh - quit signals end a run as SIGTERM does, and a crash kills
# the whole tree.  Ctrl-\ in the dashboard is a key, not SIGQUIT; kill
# -QUIT of the dashboard, and QUIT, USR1, USR2, PIPE, ALRM of a batch run,
# each end the run cleanly: the terminal back to normal (alternate screen
# off, cursor shown), exit 0 with the summary, governors of a fake sysfs
# tree back to the original, no process of the run left (a setsid'd one
# included), the journal and the cgroup gone.  An experiment passes the
# signal on to its step and stops after it.  A SIGSEGV kills the
# workload's cgroup, so even a setsid'd child ends with benchtop.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
need_benchtop
own_dirs
T=$E2E_TMP
FS=$T/sys
bash tests/fakesys.sh "$FS" --cpus 2 >/dev/null

govs_are() {
	local f
	for f in "$FS"/devices/system/cpu/cpufreq/policy*/scaling_governor; do
		[ "$(cat "$f")" = "$1" ] || return 1
	done
}
alt_screen() { tmux display -p -t "bt$$-$1" '#{alternate_on}'; }
cursor_on() { tmux display -p -t "bt$$-$1" '#{cursor_flag}'; }
no_journal() { ! ls "$XDG_RUNTIME_DIR"/benchtop/journal.* >/dev/null 2>&1; }
# the run's cgroup (benchtop.PID under the cgroup2 mount), if any is left
cgroup_of() { find /sys/fs/cgroup -maxdepth 3 -type d -name "benchtop.$1" 2>/dev/null | head -1; }
has_cgroup2() { grep -q cgroup2 /proc/mounts; }
alive() { pgrep -f "^sleep $1\$" >/dev/null; }

# A command whose second child leaves the process group (setsid): only
# the cgroup still holds it.
workload() { echo "sh -c 'setsid sleep $1 & sleep $1'"; }

# ---- the dashboard: Ctrl-\ is a key, kill -QUIT ends the run cleanly ----
secs=7100.$$
tm_start dq 120x40 "cd '$T' && $BENCHTOP --sysfs $FS --governor performance -- $(workload $secs) 2>/dev/null; echo EXIT=\$?; sleep 60"
check "dashboard: governors set to performance" wait_for 20 govs_are performance
check "dashboard: the workload runs (setsid'd child too)" wait_for 10 bash -c "[ \$(pgrep -c -f '^sleep $secs\$') = 2 ]"
pid=$(bt_main "^$BENCHTOP --sysfs $FS --governor performance")
check "dashboard: up on the alternate screen" [ "$(alt_screen dq)" = 1 ]
tm_keys dq 'C-\'
sleep 1
check "Ctrl-\\ does not end benchtop" kill -0 "$pid"
check "Ctrl-\\ leaves the dashboard up" [ "$(alt_screen dq)" = 1 ]
check "Ctrl-\\ is an unbound key: the status line points to F1" wait_for 5 bash -c "tmux capture-pane -p -t bt$$-dq | grep -q F1"
kill -QUIT "$pid"
wait_for 20 bash -c "tmux capture-pane -p -t bt$$-dq | grep -q EXIT="
screen=$(tm_screen dq)
check "QUIT (dashboard): exit 0 ($(grep -o 'EXIT=[0-9]*' <<<"$screen"))" grep -q "EXIT=0" <<<"$screen"
check "QUIT (dashboard): the summary is printed" grep -q elaps <<<"$screen"
check "QUIT (dashboard): alternate screen off" [ "$(alt_screen dq)" = 0 ]
check "QUIT (dashboard): cursor visible" [ "$(cursor_on dq)" = 1 ]
check "QUIT (dashboard): governors back to ondemand" govs_are ondemand
check "QUIT (dashboard): no process of the run left" wait_for 5 bash -c "! pgrep -f '^sleep $secs\$' >/dev/null"
check "QUIT (dashboard): journal removed" no_journal
if has_cgroup2; then
	check "QUIT (dashboard): cgroup removed" [ -z "$(cgroup_of "$pid")" ]
else
	skip "no cgroup2 here"
fi
tm_kill dq

# ---- batch mode: every quit signal ends the run as SIGTERM does ---------
n=0
for sig in QUIT USR1 USR2 PIPE ALRM; do
	n=$((n + 1))
	secs=$((7200 + n)).$$
	"$BENCHTOP" -b -t 60 --sysfs "$FS" --governor performance -- sh -c "setsid sleep $secs & sleep $secs" \
		>"$T/$sig.out" 2>"$T/$sig.err" &
	pid=$!
	wait_for 20 govs_are performance || fail "$sig: governors never set"
	wait_for 10 bash -c "[ \$(pgrep -c -f '^sleep $secs\$') = 2 ]" || fail "$sig: workload not running"
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	check "$sig (batch): exit 0 (rc $rc)" [ "$rc" = 0 ]
	check "$sig (batch): the summary is printed" grep -q elaps "$T/$sig.out"
	check "$sig (batch): governors back to ondemand" govs_are ondemand
	check "$sig (batch): no process of the run left" wait_for 5 bash -c "! pgrep -f '^sleep $secs\$' >/dev/null"
	check "$sig (batch): journal removed" no_journal
	if has_cgroup2; then
		check "$sig (batch): cgroup removed" [ -z "$(cgroup_of "$pid")" ]
	else
		skip "no cgroup2 here"
	fi
done

# ---- an experiment: a quit signal is passed on to its step and ends it ---
"$BENCHTOP" -b --sweep bs=4k:64k --cell 6s -w write:size=256M >"$T/sweep.out" 2>"$T/sweep.err" &
pid=$!
stepping() { pgrep -P "$pid" >/dev/null; }
wait_for 20 stepping || fail "sweep: no step running"
kill -USR2 "$pid"
wait "$pid"
rc=$?
check "USR2 (sweep): exit 0 (rc $rc)" [ "$rc" = 0 ]
check "USR2 (sweep): it says what stopped it" grep -q "stopped by User defined signal 2 after" "$T/sweep.err"
check "USR2 (sweep): the scratch directory is gone" bash -c "[ -z \"\$(ls -A '$TMPDIR')\" ]"
check "USR2 (sweep): journal removed" no_journal

# ---- a crash: the cgroup is killed, a setsid'd child too ----------------
if has_cgroup2; then
	secs=7300.$$
	"$BENCHTOP" -b -t 60 -- sh -c "setsid sleep $secs & sleep $secs" >"$T/segv.out" 2>&1 &
	pid=$!
	wait_for 10 bash -c "[ \$(pgrep -c -f '^sleep $secs\$') = 2 ]" || fail "SEGV: workload not running"
	kill -SEGV "$pid"
	wait "$pid"
	rc=$?
	check "SEGV: a failing exit status ($rc)" [ "$rc" != 0 ]
	check "SEGV: no process of the run left, not even the setsid'd one" \
		wait_for 5 bash -c "! pgrep -f '^sleep $secs\$' >/dev/null"
	# what a crash leaves (journal, empty cgroup) is --restore's
	"$BENCHTOP" --restore >"$T/segv-restore.out" 2>&1
	check "SEGV: --restore clears the rest (journal, cgroup)" bash -c "! ls '$XDG_RUNTIME_DIR'/benchtop/journal.* >/dev/null 2>&1 && [ -z \"\$(find /sys/fs/cgroup -maxdepth 3 -type d -name benchtop.$pid)\" ]"
else
	skip "no cgroup2 here: a setsid'd child cannot be held"
fi

finish

#!/usr/bin/env bash
# Every way the dashboard can end gives the terminal back (no alternate
# screen left on) and leaves no workload process behind.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
T=$E2E_TMP

alt_screen() { tmux display -p -t "bt$$-$1" '#{alternate_on}'; }
bt_pid() { bt_main "^$BENCHTOP .*$1"; }

n=0
for how in TERM INT HUP SEGV q; do
	S=x$how
	n=$((n + 1))
	secs=$((7000 + n)).$$   # a duration no other process here uses
	tm_start $S 100x30 "$BENCHTOP -- sleep $secs 2>/dev/null; echo EXIT=\$?; sleep 30"
	up() { pgrep -x -f "sleep $secs" >/dev/null && [ "$(alt_screen $S)" = 1 ]; }
	wait_for 30 up
	pid=$(bt_main "^$BENCHTOP -- sleep $secs")
	kid=$(pgrep -x -f "sleep $secs" | head -1)
	check "$how: workload running ($kid)" [ -n "$kid" ]
	check "$how: dashboard up (alternate screen on)" [ "$(alt_screen $S)" = 1 ]
	if [ "$how" = q ]; then tm_keys $S q; else kill -$how "$pid"; fi
	wait_for 10 sh -c "tmux capture-pane -p -t bt$$-$S | grep -q EXIT="
	screen=$(tm_screen $S)
	code=$(echo "$screen" | sed -n 's/^EXIT=\([0-9]*\).*/\1/p' | tail -1)
	check "$how: terminal back to the shell (alternate screen off)" [ "$(alt_screen $S)" = 0 ]
	case $how in
	# 139 (killed by SIGSEGV); under AddressSanitizer its report exits 1
	SEGV) check "$how: a failing exit status ($code)" sh -c '[ -n "$1" ] && [ "$1" != 0 ]' _ "$code" ;;
	*) check "$how: exit 0 ($code)" [ "$code" = 0 ]
	   check "$how: summary printed" sh -c "echo \"\$1\" | grep -q elaps" _ "$screen" ;;
	esac
	wait_for 5 sh -c "! kill -0 $kid 2>/dev/null"
	check "$how: workload process $kid gone" sh -c "! kill -0 $kid 2>/dev/null"
	tm_kill $S
done

finish

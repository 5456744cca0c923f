#!/usr/bin/env bash
# Stray input never ends a run: keys the dashboard does not bind, mouse
# motion reports and clicks on the graph leave the workload running and
# the screen drawn (an unbound key says so in the status line); only a
# terminal that has really gone ends the run, and then no child is left.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
own_dirs
T=$E2E_TMP

WORK="sh -c 'sleep 300 & sleep 300 & wait'"
# the workload's sleeps under benchtop (the pane's process: exec'd)
sleeps() { for p in $(descendants "$1"); do [ "$(cat /proc/$p/comm 2>/dev/null)" = sleep ] && echo "$p"; done; }
nsleeps() { [ "$(sleeps "$1" | wc -l)" -ge "$2" ]; }
drawn() { tm_screen "$1" | grep -q " PID WL " && tm_screen "$1" | grep -q "Throughput\|throughput"; }
alive() { kill -0 "$1" 2>/dev/null; }
running() { alive "$BT" && tmux has-session -t "bt$$-s" 2>/dev/null; }
# X10 mouse report: button code, column and row counted from 0.
mouse() { tmux send-keys -t "bt$$-$1" -l "$(printf '\033[M%b%b%b' "\\$(printf '%03o' $((32 + $2)))" \
	"\\$(printf '%03o' $((33 + $3)))" "\\$(printf '%03o' $((33 + $4)))")"; }
status_has() { tm_screen "$1" | tail -2 | grep -qF "$2"; }

tm_start s 120x40 "exec $BENCHTOP -i 0.2 -- $WORK"
BT=$(tmux display-message -p -t "bt$$-s" '#{pane_pid}')
if ! wait_for 20 nsleeps "$BT" 2 || ! wait_for 10 drawn s; then
	fail "the workload never showed ($(tm_screen s | tail -3 | tr '\n' '|'))"
	finish
	exit 1
fi
before=$(sleeps "$BT" | sort | tr '\n' ' ')

tm_keys s y y y
check "y leaves a hint naming F1 ($(tm_screen s | tail -1 | cut -c1-70))" \
	wait_for 5 status_has s "y does nothing here: F1 for the keys"
for k in Escape F12 Enter y; do
	for _ in 1 2 3 4 5; do tm_keys s "$k"; done
done
sleep 0.5
check "after y, Escape, F12, Enter x5 benchtop still runs" running

# 40 motion reports (button 3 + motion 32) across the graph, X10 and SGR
for i in $(seq 40); do mouse s 67 $((10 + i)) 8; done
for i in $(seq 10); do tmux send-keys -t "bt$$-s" -l "$(printf '\033[<35;%d;9M' $((10 + i)))"; done
# clicks (press, release) on the graph, on the header and on the CPU panel
for y in 5 6 7 8 0 20; do mouse s 0 30 "$y"; mouse s 3 30 "$y"; done
# the wheel on the graph
for _ in 1 2 3; do mouse s 64 30 6; mouse s 65 30 6; done
sleep 1
check "after mouse motion, clicks and wheel benchtop still runs" running
after=$(sleeps "$BT" | sort | tr '\n' ' ')
check "the workload's processes are the same and alive ($before / $after)" \
	[ -n "$after" ] && [ "$before" = "$after" ]
# the screen still draws: a new sample moves the clock; a key still acts
tm_keys s u
check "the screen is still drawn and keys act (u: units)" \
	wait_for 5 sh -c "tmux capture-pane -p -t bt$$-s | tail -2 | grep -q 'units'"
check "the panels are still there" drawn s

# Real loss: the terminal goes away; the run ends and leaves nothing.
kids=$(descendants "$BT" | tr '\n' ' ')
tmux kill-session -t "bt$$-s"
gone() { ! alive "$BT"; }
check "killing the terminal ends the run" wait_for 20 gone
left=""
for p in $kids; do alive "$p" && [ "$(cat /proc/$p/comm 2>/dev/null)" = sleep ] && left="$left $p"; done
check "no child is left after the terminal went ($kids:$left)" [ -z "$left" ]
finish

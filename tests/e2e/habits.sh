#!/usr/bin/env bash
# Habits of htop users in the Processes panel: a mouse click selects the
# row under it and the wheel moves the selection (ncurses mouse, off
# under --no-mouse), o cycles the sort column and says which, / filters
# by name.  The selection is checked by what a key then does to it: the
# PID a 0 or 1 pins, read back from the recording and /proc.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
own_dirs
T=$E2E_TMP
command -v jq >/dev/null || skip_all "jq not installed (make check installs TEST_DEBS)"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs to tell a pin from no pin"

WORK="sh -c 'sleep 60 & sleep 60 & sleep 60 & wait'"
# rows: the Processes panel's process lines as "LINE PID COMMAND" (LINE
# counted from 0, as the terminal's rows are).
rows() { tm_screen "$1" | awk 'h && $1 ~ /^[0-9]+$/ { print NR - 1, $1, $NF } / PID WL / { h = 1 }'; }
nrows() { [ "$(rows "$1" | wc -l)" -ge "$2" ]; }
# X10 mouse report: button code, column and row counted from 0.
mouse() { tmux send-keys -t "bt$$-$1" -l "$(printf '\033[M%b%b%b' "\\$(printf '%03o' $((32 + $2)))" \
	"\\$(printf '%03o' $((33 + $3)))" "\\$(printf '%03o' $((33 + $4)))")"; }
pin_pid() { jq -r 'select(.type=="event" and .action=="pin") | .detail.pid' "$T/$1.jsonl" 2>/dev/null | sed -n "${2}p"; }
cpus_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
# click SESSION ROW: a left click (press and release) on a row's PID.
click() { mouse "$1" 0 5 "$2"; mouse "$1" 3 5 "$2"; }
# pin_key SESSION CPU N: the key CPU pins the selected process; the PID
# of the Nth pin event of the recording is printed once it is there.
pin_key() {
	sleep 0.3
	tm_keys "$1" "$2"
	local i
	for i in $(seq 50); do
		[ -n "$(pin_pid "$1" "$3")" ] && break
		sleep 0.1
	done
	pin_pid "$1" "$3"
}

tm_start m 120x40 "$BENCHTOP -i 0.2 -o $T/m.jsonl -- $WORK; sleep 60"
if ! wait_for 20 nrows m 4; then
	fail "the command's 4 processes never showed ($(tm_screen m | tail -8 | tr '\n' '|'))"
else
	# click the third process row, then 0 pins it
	read -r y pid comm < <(rows m | sed -n 3p)
	click m "$y"
	got=$(pin_key m 0 1)
	check "a click selects the row under it: 0 pinned PID $pid ($got)" [ "$got" = "$pid" ]
	check "the clicked process is on CPU 0 ($(cpus_of "$pid"))" [ "$(cpus_of "$pid")" = 0 ]
	# the wheel (down) moves the selection one row on
	read -r _ next _ < <(rows m | sed -n 4p)
	mouse m 65 5 "$y"
	got=$(pin_key m 1 2)
	check "the wheel moves the selection: 1 pinned PID $next ($got)" [ "$got" = "$next" ]
	check "that process is on CPU 1 ($(cpus_of "$next"))" [ "$(cpus_of "$next")" = 1 ]
	# o: the sort column changes, and the screen says which
	tm_keys m o
	# (the status line's "sorted by" goes after a few seconds, and a busy
	# machine may draw it between two captures; the heading's mark stays)
	sorted() { tm_screen m | grep -qE 'sorted by|^ +PID .*[A-Z%]+(▼|▲|v) '; }
	check "o sorts by another column and says which ($(tm_screen m | tail -1 | cut -c1-60))" wait_for 5 sorted
	check "the Processes title names the sort column" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-m | grep 'Processes' | grep -q ', by '"
	# / filters by name: only sh stays
	tm_keys m /
	sleep 0.3
	tm_keys m -l sh
	tm_keys m Enter
	only_sh() { [ "$(rows m | awk '{ print $3 }' | sort -u)" = sh ]; }
	check "/sh leaves only the sh row ($(rows m | awk '{ print $3 }' | tr '\n' ' '))" wait_for 5 only_sh
	# / with nothing shows every process again
	tm_keys m /
	sleep 0.3
	tm_keys m Enter
	check "/ with nothing: all 4 rows again" wait_for 5 nrows m 4
fi
tm_keys m q
tm_kill m

# --no-mouse: a click selects nothing (the first row stays selected).
tm_start n 120x40 "$BENCHTOP -i 0.2 --no-mouse -o $T/n.jsonl -- $WORK; sleep 60"
if ! wait_for 20 nrows n 4; then
	fail "--no-mouse: the command's 4 processes never showed"
else
	read -r _ first _ < <(rows n | sed -n 1p)
	read -r y third _ < <(rows n | sed -n 3p)
	click n "$y"
	got=$(pin_key n 0 1)
	check "--no-mouse: a click does not select: 0 pinned the first row's PID $first ($got, not $third)" \
		[ "$got" = "$first" ]
fi
tm_keys n q
tm_kill n

# A marker is drawn in the graph from the start of a run, before the
# graph's window has filled (its line and its labelled head).
tm_start k 120x40 "$BENCHTOP -i 0.2 --at 1:marker=warm -- sleep 30; sleep 30"
in_graph() { tm_screen k | sed -n '3,20p' | grep -q "◆warm\|\*warm"; }
check "a marker shows in the graph before its window has filled ($(tm_screen k | sed -n '3,20p' | grep -o '.\{0,3\}warm.\{0,3\}' | head -1))" \
	wait_for 6 in_graph
tm_keys k q
tm_kill k
finish

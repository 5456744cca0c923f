#!/usr/bin/env bash
# htop habits, round 2: the key bar, F3 search, F4 and \ filter as you
# type, F5 tree, F6 sort menu and a click on a heading, F9 signals (the
# state read from /proc/PID/stat, the event from the recording), the a
# affinity dialog (read back from /proc/PID/status), PgUp/PgDn/Home/End
# and the wheel.  Which process is selected is read from the affinity
# dialog's prompt, which names it.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
own_dirs
T=$E2E_TMP
command -v jq >/dev/null || skip_all "jq not installed (make check installs TEST_DEBS)"

WORK="sh -c 'sleep 300 & tail -f /dev/null & sleep 301 & wait'"
scr() { tm_screen "$1"; }
bar() { tm_screen "$1" | tail -1; }
statusl() { tm_screen "$1" | tail -2 | head -1; }
# rows: the Processes panel's lines as "PID COMMAND" (the tree's glyphs dropped)
rows() { tm_screen "$1" | awk 'h && $1 ~ /^[0-9]+$/ { print $1, $NF } / WL ROLE / { h = 1 }'; }
nrows() { [ "$(rows "$1" | wc -l)" -eq "$2" ]; }
pid_of() { rows "$1" | awk -v c="$2" '$2 == c { print $1; exit }'; }
# the selected PID: the affinity dialog names it; Esc closes it
sel() {
	tm_keys "$1" a
	wait_for 5 sh -c "tmux capture-pane -p -t bt$$-$1 | grep -q 'CPUs of PID'" || return 1
	statusl "$1" | sed -n 's/.*CPUs of PID \([0-9]*\).*/\1/p'
	tm_keys "$1" Escape
	wait_for 5 sh -c "! tmux capture-pane -p -t bt$$-$1 | grep -q 'CPUs of PID'"
}
state_of() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
cpus_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
mouse() { tmux send-keys -t "bt$$-$1" -l "$(printf '\033[M%b%b%b' "\\$(printf '%03o' $((32 + $2)))" \
	"\\$(printf '%03o' $((33 + $3)))" "\\$(printf '%03o' $((33 + $4)))")"; }
is() { [ "$1" = "$2" ]; }

# ---- the key bar at 80x24 ----
tm_start b 80x24 "$BENCHTOP -i 0.3 -- $WORK; sleep 60"
some_rows() { [ "$(rows b | wc -l)" -ge 1 ]; }
if wait_for 20 some_rows b; then
	line=$(bar b)
	miss=""
	for w in F1Help 0-9Pin sSpread cPack fFree gGov mMark F10Quit; do
		case "$line" in *"$w"*) ;; *) miss="$miss $w" ;; esac
	done
	check "80 columns: the key bar names help, pin, spread, pack, free, governor, marker, quit ($line)" [ -z "$miss" ]
	tm_keys b m
	check "a prompt's keys on the bar while it is open ($(bar b))" \
		wait_for 5 sh -c "tmux capture-pane -p -t bt$$-b | tail -1 | grep -q 'EnterAdd.*EscCancel'"
	tm_keys b Escape
	check "Esc: the steering keys again" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-b | tail -1 | grep -q 'F10Quit'"
	tm_keys b y
	check "an unbound key names F1 ($(statusl b | cut -c1-50))" \
		wait_for 5 sh -c "tmux capture-pane -p -t bt$$-b | grep -q 'y does nothing here: F1 for the keys'"
else
	fail "80x24: no process showed ($(scr b | tail -3 | tr '\n' '|'))"
fi
tm_keys b q
tm_kill b

# ---- the rest at 120x40, recorded ----
tm_start k 120x40 "$BENCHTOP -i 0.3 -o $T/k.jsonl -- $WORK; sleep 60"
if ! wait_for 20 nrows k 4; then
	fail "the 4 processes never showed ($(scr k | tail -3 | tr '\n' '|'))"
	finish
	exit 1
fi
SH=$(pid_of k sh) TAIL=$(pid_of k tail)
S1=$(rows k | awk '$2 == "sleep" { print $1 }' | sort -n | head -1)
S2=$(rows k | awk '$2 == "sleep" { print $1 }' | sort -n | tail -1)

# F3: the selection moves as the name is typed; F3 again: the next match
tm_keys k F3
tm_keys k -l ta
sleep 0.3
tm_keys k Enter
got=$(sel k)
check "F3 ta: the selection is on tail (PID $TAIL, got $got)" is "$got" "$TAIL"
tm_keys k F3
tm_keys k -l sleep
sleep 0.3
tm_keys k Enter
first=$(sel k)
tm_keys k F3
tm_keys k -l sleep
tm_keys k F3
sleep 0.3
tm_keys k Enter
second=$(sel k)
check "F3 sleep, F3: from one sleep to the other ($first -> $second)" \
	sh -c "[ -n '$first' ] && [ -n '$second' ] && [ '$first' != '$second' ] && [ \"\$(echo $first $second | tr ' ' '\n' | sort -n | tr '\n' ' ')\" = '$S1 $S2 ' ]"

# F4: the list narrows with each character, before Enter; Esc puts it back
tm_keys k F4
tm_keys k -l sle
only_sleep() { [ "$(rows k | awk '{ print $2 }' | sort -u)" = sleep ] && nrows k 2; }
check "F4 sle: only the 2 sleeps, before Enter ($(rows k | awk '{ print $2 }' | tr '\n' ' '))" wait_for 5 only_sleep
check "the bar shows the filter's keys ($(bar k))" sh -c "tmux capture-pane -p -t bt$$-k | tail -1 | grep -q 'EnterKeep'"
tm_keys k Escape
check "Esc: every process again" wait_for 5 nrows k 4
tm_keys k '\'
tm_keys k -l tai
tm_keys k Enter
check "\\ tai Enter: only tail stays" wait_for 5 sh -c "[ \"\$(tmux capture-pane -p -t bt$$-k | awk 'h && \$1 ~ /^[0-9]+\$/ { print \$NF } / PID WL / { h = 1 }')\" = tail ]"
tm_keys k /
tm_keys k Enter
check "/ Enter: all 4 again (/ keeps its meaning)" wait_for 5 nrows k 4

# F5: the tree, with its glyphs, sh above its children
tm_keys k F5
tree_ok() { scr k | grep -q "├─ " && scr k | grep -q "└─ " && [ "$(rows k | head -1 | cut -d' ' -f1)" = "$SH" ]; }
check "F5: ├─ and └─ before the children, sh first" wait_for 5 tree_ok
tm_keys k F5
check "F5 again: a flat list" wait_for 5 sh -c "! tmux capture-pane -p -t bt$$-k | grep -q '└─ '"

# F6: a menu of columns; PID (the last row), Enter; I inverts
tm_keys k F6
wait_for 5 sh -c "tmux capture-pane -p -t bt$$-k | grep -q 'sort by'"
check "F6 lists the columns" sh -c "tmux capture-pane -p -t bt$$-k | grep -q 'HOG' && tmux capture-pane -p -t bt$$-k | grep -q 'tracking order'"
tm_keys k End Enter
asc() { nrows k 4 && [ "$(rows k | cut -d' ' -f1 | tr '\n' ' ')" = "$(rows k | cut -d' ' -f1 | sort -n | tr '\n' ' ')" ]; }
desc() { nrows k 4 && [ "$(rows k | cut -d' ' -f1 | tr '\n' ' ')" = "$(rows k | cut -d' ' -f1 | sort -rn | tr '\n' ' ')" ]; }
# (tracking order is PID order here too: the heading's mark is what shows
# the sort was taken, waited for before the rows are looked at)
check "the heading marks PID ($(scr k | grep ' WL ROLE' | cut -c1-12))" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-k | grep -q 'PID[▲▼^v] WL'"
check "F6 PID: rows in PID order ($(rows k | cut -d' ' -f1 | tr '\n' ' '))" wait_for 5 asc
tm_keys k F6
tm_keys k I Enter
check "F6 I: the order inverted ($(rows k | cut -d' ' -f1 | tr '\n' ' '))" wait_for 5 desc
# a click on the MIG heading sorts by it; the heading is the line under "Processes"
hy=$(tm_screen k | grep -n ' WL ROLE ' | head -1 | cut -d: -f1)
hx=$(tm_screen k | grep ' WL ROLE ' | head -1 | awk '{ print index($0, " MIG") }')
mouse k 0 "$hx" $((hy - 1)); mouse k 3 "$hx" $((hy - 1))
check "a click on the MIG heading sorts by MIG ($(statusl k | cut -c1-60))" \
	wait_for 5 sh -c "tmux capture-pane -p -t bt$$-k | grep -q 'sorted by MIG'"
tm_keys k F6
tm_keys k Home Enter

# F9: STOP then CONT for tail, read from /proc; events in the recording
tm_keys k F3
tm_keys k -l tail
tm_keys k Enter
sleep 0.3
tm_keys k F9
wait_for 5 sh -c "tmux capture-pane -p -t bt$$-k | grep -q 'signal to PID $TAIL'"
check "F9 lists TERM KILL STOP CONT INT HUP" sh -c "s=\$(tmux capture-pane -p -t bt$$-k); for w in TERM KILL STOP CONT INT HUP; do echo \"\$s\" | grep -q \" \$w \" || exit 1; done"
tm_keys k Down Down Enter
stopped() { [ "$(state_of "$TAIL")" = T ]; }
check "F9 STOP: tail is stopped (/proc state $(state_of "$TAIL"))" wait_for 5 stopped
tm_keys k F9
tm_keys k Down Down Down Enter
running() { [ "$(state_of "$TAIL")" = S ] || [ "$(state_of "$TAIL")" = R ]; }
check "F9 CONT: tail runs again (/proc state $(state_of "$TAIL"))" wait_for 5 running
check "the other processes were left alone ($(state_of "$S1") $(state_of "$S2"))" \
	sh -c "[ \"\$(awk '{print \$3}' /proc/$S1/stat)\" = S ] && [ \"\$(awk '{print \$3}' /proc/$S2/stat)\" = S ]"

# a: the affinity dialog; CPU 1 unchecked, Enter pins to 0 (read back)
if [ "$(nproc)" -ge 2 ]; then
	tm_keys k a
	wait_for 5 sh -c "tmux capture-pane -p -t bt$$-k | grep -q 'CPUs of PID $TAIL'"
	check "a: a checkbox per CPU ($(scr k | grep -c '\[x\] CPU'))" [ "$(scr k | grep -c '\[x\] CPU')" -ge 2 ]
	tm_keys k Down Space
	check "space toggles CPU 1" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-k | grep -q '\[ \] CPU 1'"
	tm_keys k Escape
	sleep 0.5
	check "Esc cancels: tail's CPUs unchanged ($(cpus_of "$TAIL"))" [ "$(cpus_of "$TAIL")" = "0-$(($(nproc) - 1))" ]
	tm_keys k a
	wait_for 5 sh -c "tmux capture-pane -p -t bt$$-k | grep -q 'CPUs of PID $TAIL'"
	tm_keys k Down Space Enter
	pinned() { [ "$(cpus_of "$TAIL")" = 0 ]; }
	check "Enter pins tail to CPU 0 (/proc: $(cpus_of "$TAIL"))" wait_for 5 pinned
else
	skip "the affinity dialog needs 2 CPUs to tell a pin from none"
fi

# PgUp/PgDn/Home/End and the wheel move the selection in the shown order
tm_keys k End
last=$(rows k | tail -1 | cut -d' ' -f1) firstp=$(rows k | head -1 | cut -d' ' -f1)
got=$(sel k)
check "End: the last process ($last, got $got)" is "$got" "$last"
tm_keys k Home
got=$(sel k)
check "Home: the first process ($firstp, got $got)" is "$got" "$firstp"
tm_keys k NPage
got=$(sel k)
check "PgDn: a page down, at most the last ($last, got $got)" is "$got" "$last"
tm_keys k PPage
got=$(sel k)
check "PgUp: back to the first ($firstp, got $got)" is "$got" "$firstp"
py=$(tm_screen k | grep -n "^ *$firstp " | head -1 | cut -d: -f1)
mouse k 65 5 $((py - 1))
second=$(rows k | sed -n 2p | cut -d' ' -f1)
got=$(sel k)
check "the wheel scrolls one on ($second, got $got)" is "$got" "$second"

tm_keys k q
wait_for 20 sh -c "grep -q '\"type\":\"end\"' $T/k.jsonl" || true
ev() { jq -r "select(.type==\"event\" and .action==\"signal\") | .detail.signal + \" \" + (.detail.pid|tostring)" "$T/k.jsonl" 2>/dev/null | tr '\n' ','; }
check "the recording has the two signal events ($(ev))" [ "$(ev)" = "SIGSTOP $TAIL,SIGCONT $TAIL," ]
check "each signal starts a phase in the summary" \
	wait_for 10 sh -c "tmux capture-pane -p -S - -t bt$$-k | grep -q 'SIGSTOP tail $TAIL'"
tm_kill k
finish

#!/usr/bin/env bash
# The dashboard through the real binary in tmux: panels, the workload's
# pid, units cycling, the help screen from the key table, the selection,
# resizing below the minimum and back, a bad theme, --no-color without
# colour escapes, and q back to the shell with the summary.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

if [ ! -x "$BENCHTOP" ] || ! command -v tmux >/dev/null; then
	skip_all "no $BENCHTOP or no tmux"
fi

S=dash
screen() { tm_screen $S; }
on_screen() { screen | grep -qF -- "$1"; }
# The PID on the highlighted (select role: cyan background) table row.
selected_pid() {
	tmux capture-pane -p -e -t "bt$$-$S" | grep -aoE $'\e\\[46m +[0-9]+ ' | grep -oE '[0-9]+' | tail -1
}

tm_start $S 120x40 "env PS1='SHELL-READY\$ ' bash --norc --noprofile"
Z=1000.$$   # a duration only this script's sleeps have
tm_keys $S "$BENCHTOP -- sh -c 'sleep $Z & sleep $Z & wait'" Enter
if ! wait_for 20 on_screen "Processes"; then
	screen | head -5 | sed 's/^/# /'; skip_all "the dashboard did not start"
	exit
fi
for t in Throughput CPUs Placement Residency Processes; do
	check "panel $t on screen" on_screen "$t"
done
check "residency says where its figures come from" \
	sh -c "tmux capture-pane -p -t bt$$-$S | grep -Eq 'Residency +(kernel stats|sampled)|no cpufreq here'"
bt=$(bt_main "^$BENCHTOP -- sh -c sleep $Z")
wl=$(pgrep -P "$bt" -x sh | head -1)
check "the workload's pid $wl is in the process table" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-$S | grep -qw '$wl'"
check "MiB/s on screen" on_screen "MiB/s"
tm_keys $S u
check "u: MB/s" wait_for 3 on_screen "Throughput MB/s"
tm_keys $S u
check "u again: Mbit/s" wait_for 3 on_screen "Throughput Mbit/s"
tm_keys $S u
check "u a third time: back to MiB/s" wait_for 3 on_screen "Throughput MiB/s"

tm_keys $S '?'
wait_for 3 on_screen "benchtop help"
# the help turns pages (Space): every page of it, then each key on one
screen > "$E2E_TMP/help"
for pg in 2 3 4 5; do
	on_screen "/$((pg - 1)): Space" && break   # the last page
	tm_keys $S Space
	wait_for 3 on_screen "page $pg/" || break
	screen >> "$E2E_TMP/help"
done
# (one awk pass: a help line is two spaces, the key, spaces, a word)
missing=$(awk -v keys="F1/h Up/k Down/j 0-9 p s c f g G F m space r x + - u t d o / ? q/F10 < > Left Right Home End" '
	/^  [^ ]+ +[a-z]/ { seen[$1] = 1 }
	END { n = split(keys, k, " "); for (i = 1; i <= n; i++) if (!(k[i] in seen)) printf " %s", k[i] }' "$E2E_TMP/help")
check "? shows every key of the table${missing:+ (missing:$missing)}" test -z "$missing"
tm_keys $S Escape
check "any key closes the help" wait_for 3 on_screen "Processes"

wait_for 5 sh -c "[ \$(tmux capture-pane -p -t bt$$-$S | grep -cE '^ +[0-9]+ +1 [a-z]+ ') -ge 2 ]"
before=$(selected_pid)
tm_keys $S Down
moved() { local p; p=$(selected_pid); [ -n "$p" ] && [ "$p" != "$before" ]; }
wait_for 20 moved
after=$(selected_pid)
check "Down moves the selection ($before -> $after)" test -n "$before" -a -n "$after" -a "$before" != "$after"

tmux resize-window -t "bt$$-$S" -x 80 -y 24
check "80x24: the table keeps WAIT% HOG WRITE MIG" wait_for 5 sh -c \
	"tmux capture-pane -p -t bt$$-$S | grep -Eq '^ +PID WL ROLE +CPU ALLOWED S +%CPU WAIT% +HOG .*WRITE.* MIG'"
tmux resize-window -t "bt$$-$S" -x 40 -y 10
check "40x10: terminal too small" wait_for 5 on_screen "terminal too small"
check "40x10: still running" kill -0 "$bt"
tmux resize-window -t "bt$$-$S" -x 120 -y 40
check "120x40 again: the panels" wait_for 5 on_screen "Processes"

tm_keys $S q
check "q: benchtop ends" wait_for 20 sh -c "! kill -0 $bt 2>/dev/null"
check "q: the summary is printed" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-$S | grep -q 'elaps'"
check "q: back at the shell prompt" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-$S | grep -v '^$' | tail -2 | grep -q 'SHELL-READY'"
check "q: no workload left" sh -c "! pgrep -P $bt >/dev/null"

# A bad theme file: exit 2, naming the file's line and the word.
printf 'title = cyan\nwrite = grene\n' > "$E2E_TMP/bad.theme"
tm_keys $S "clear; $BENCHTOP --theme $E2E_TMP/bad.theme -- sleep 5; echo RC=\$?" Enter
check "bad theme: exit 2" wait_for 10 on_screen "RC=2"
check "bad theme: names file and line" on_screen "bad.theme:2"
check "bad theme: names the word" on_screen "grene"
tm_kill $S

# --no-color: not one colour escape in the raw output; the same run in
# colour has them (so the check can fail).
sgr_colour=$'\e\\[([0-9]*;)*(3[0-9]|4[0-9])(;[0-9]*)*m'
raw() {
	TERM=xterm-256color LINES=40 COLUMNS=120 timeout 30 \
		script -q -e -c "$BENCHTOP $1 -t 2 -- sleep 30" "$2" >/dev/null 2>&1 </dev/null
}
raw "--no-color" "$E2E_TMP/mono.raw"
raw "" "$E2E_TMP/colour.raw"
if grep -qa "Processes" "$E2E_TMP/colour.raw"; then
	check "--no-color: no colour escape sequences" sh -c "! grep -qaE '$sgr_colour' '$E2E_TMP/mono.raw'"
	check "--no-color: the dashboard was drawn" grep -qa "Processes" "$E2E_TMP/mono.raw"
	check "colour run has colour escapes (control)" grep -qaE "$sgr_colour" "$E2E_TMP/colour.raw"
	NO_COLOR=1 raw "" "$E2E_TMP/nocolor-env.raw"
	check "NO_COLOR=1: no colour escape sequences" sh -c "! grep -qaE '$sgr_colour' '$E2E_TMP/nocolor-env.raw'"
else
	skip "--no-color check: the dashboard did not draw under script(1)"
fi
finish

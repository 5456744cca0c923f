#!/usr/bin/env bash
# glance.sh - the dashboard read at a glance (issue: graph scaled to the
# workload, legend, markers by kind, a layout that stands still, finished
# runs that stay readable, htop habits): driven through tmux against the
# real binary and a fake cpufreq tree.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
source tests/e2e/lib.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export XDG_RUNTIME_DIR=$E2E_TMP/run HOME=$E2E_TMP/home TMPDIR=$E2E_TMP
mkdir -p "$XDG_RUNTIME_DIR" "$HOME"
if [ ! -x "$BENCHTOP" ] || ! command -v tmux >/dev/null; then
	skip_all "no $BENCHTOP or no tmux"
fi
KERNELS=()
trap 'for k in "${KERNELS[@]}"; do kill "$k" 2>/dev/null; done; e2e_cleanup' EXIT
tree() {
	T=$E2E_TMP/$1; shift
	tests/fakesys.sh "$T" --cpus 2 "$@" || return 1
	fake_kernel_start "$T" 600
	KERNELS+=("$FAKE_KERNEL")
}
scr() { tm_screen "$1"; }
on() { tm_screen "$1" | grep -qF -- "$2"; }
shell() { tm_start "$1" "$2" "env PS1='SHELL-READY\$ ' bash --norc --noprofile"; }

# A workload that writes steadily at a modest rate: 1 MiB every 0.1 s.
RATE_CMD="sh -c 'while :; do head -c 1048576 /dev/zero >>$E2E_TMP/steady; sleep 0.1; : >$E2E_TMP/steady; done'"

# 0. --help lists the dashboard keys from the key table; --report says
#    what it wrote, with the size measured here.
help=$("$BENCHTOP" --help)
for k in "F1/h" "q/F10" "Up/k" " d " " o " " / "; do
	check "--help lists the key '$k'" grep -qF -- "$k" <<<"$help"
done
"$BENCHTOP" -b -t 1.2 -o "$E2E_TMP/rec.jsonl" -- sleep 5 >/dev/null 2>&1
"$BENCHTOP" --report "$E2E_TMP/rec.jsonl" -o "$E2E_TMP/rep.html" 2>"$E2E_TMP/rep.err"
size=$(stat -c %s "$E2E_TMP/rep.html" 2>/dev/null)
check "--report says \"wrote FILE ($size bytes)\"" grep -qxF "wrote $E2E_TMP/rep.html ($size bytes)" "$E2E_TMP/rep.err"

# Phases shorter than two samples: rate and hog null in JSON, "-" in the
# summary, the replay's summary and the report; never a hog over a sliver.
"$BENCHTOP" -b -t 2.2 --format json -o "$E2E_TMP/ph.jsonl" --at 1:marker=a --at 1.1:marker=b \
	-- sh -c 'while :; do :; done' >"$E2E_TMP/ph.out" 2>&1
check "a 0.1 s phase has null bps and hog" \
	jq -se '[.[] | select(.type == "end")][0].phases[] | select(.label == "a") | .bps == null and .hog == null' "$E2E_TMP/ph.jsonl"
check "a 1 s phase (two samples) has numbers" \
	jq -se '[.[] | select(.type == "end")][0].phases[0] | (.bps | type) == "number" and (.hog | type) == "number"' "$E2E_TMP/ph.jsonl"
check "the summary shows - for the short phase" grep -qE '^ +1\.0[0-9] +1\.1[0-9] +- +- ' "$E2E_TMP/ph.out"
"$BENCHTOP" --replay "$E2E_TMP/ph.jsonl" -b >"$E2E_TMP/ph.replay" 2>&1
check "the replay's summary shows - for the short phase" grep -qE '^ +1\.0[0-9] +1\.1[0-9] +- +- ' "$E2E_TMP/ph.replay"

# 1. 80x24: the legend names every series; the header cuts no number.
tree t1
shell a 80x24
tm_keys a "$BENCHTOP --sysfs $E2E_TMP/t1 -w write:path=$E2E_TMP/w1,size=64m,bs=1048576 --loop -w read:path=/etc/services,bs=1048576 --loop" Enter
if ! wait_for 20 on a "Processes"; then
	scr a | sed 's/^/# /'; skip_all "the dashboard did not start"
fi
wait_for 5 on a "disk" >/dev/null
legend=$(scr a | sed -n 3p)
for s in "write|wr" "read|rd" "disk w|dw" "disk r|dr" "dirty/wb|dty/wb"; do
	check "80x24: the legend names ${s%%|*} ($legend)" grep -qE "(^|[^a-z])($s)[ ^↑]" <<<"$legend"
done
header=$(scr a | sed -n 1p)
cut_numbers=$(grep -oE 'bs=[0-9]+' <<<"$header" | grep -vx 'bs=1048576')
check "80x24: the header shows bs=1048576 whole or not at all ($header)" [ -z "$cut_numbers" ]
tm_keys a q
wait_for 20 on a "SHELL-READY" >/dev/null

# 2. The CPUs panel's title row stands still over 5 s of a steady run.
tree t2
tm_start b 120x40 "$BENCHTOP --sysfs $E2E_TMP/t2 -- $RATE_CMD; sleep 30"
wait_for 20 on b "Processes" >/dev/null
wait_for 10 on b "cpu1" >/dev/null   # the first sample is on screen
rows=()
for i in 1 2 3 4 5 6 7 8 9 10; do
	rows+=("$(scr b | grep -n ' CPUs ' | head -1 | cut -d: -f1)")
	sleep 0.5
done
uniq=$(printf '%s\n' "${rows[@]}" | sort -u | wc -l)
check "CPUs title on the same row in 10 captures over 5 s (${rows[*]})" [ "$uniq" = 1 -a -n "${rows[0]}" ]

# 3. Round tick labels for three different rates.
# ticks_of NAME: the y labels on screen; round_set LABELS: they step by
# 1, 2 or 5 times a power of ten
ticks_of() { scr "$1" | sed -n '4,20p' | grep -oE '^ *[0-9]+(\.[0-9]+)? ' | tr -d ' '; }
round_set() {
	awk 'function gcd(a, b) { while (b) { t = b; b = a % b; a = t } return a }
		{ v = int($1 * 1000 + 0.5); if (v > 0) g = g ? gcd(g, v) : v }
		END { if (!g) exit 1; m = g; while (m % 10 == 0) m /= 10; exit !(m == 1 || m == 2 || m == 5) }' <<<"$1"
}
round_ticks() { local l; l=$(ticks_of "$1"); [ "$(wc -w <<<"$l")" -ge 2 ] && round_set "$l"; }
for bs in 16k 256k 4m; do
	tm_start "r$bs" 120x40 "$BENCHTOP -- sh -c 'while :; do head -c $bs /dev/zero >>$E2E_TMP/r$bs; sleep 0.05; : >$E2E_TMP/r$bs; done'; sleep 30"
done
for bs in 16k 256k 4m; do
	wait_for 30 round_ticks "r$bs"
	# labels are round whenever two or more show (a frame whose rate
	# fell to 0 for a moment shows fewer): ten looks, 0.2 s apart
	seen=0 bad="" shown=""
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		l=$(ticks_of "r$bs" | tr '\n' ' ')
		if [ "$(wc -w <<<"$l")" -ge 2 ]; then
			seen=$((seen + 1)) shown=$l
			round_set "$(tr ' ' '\n' <<<"$l")" || bad="$bad[$l]"
		fi
		sleep 0.2
	done
	check "round tick labels at a $bs-per-50ms rate (${bad:-$shown}; $seen of 10 looks with two or more)" \
		sh -c '[ "$1" -ge 1 ] && [ -z "$2" ]' _ "$seen" "$bad"
	tm_kill "r$bs"
done

# 4. A marker's whole label is on screen.
tm_keys b m
tm_keys b "cache warm now" Enter
check "the marker's whole label is on screen" wait_for 5 on b "cache warm now"

# 5. A finished run stays readable: processes listed 5 s later, the time
#    axis has stopped, the header says done.
tm_start c 120x40 "$BENCHTOP -- sh -c 'sleep 2'; sleep 60"
wait_for 20 on c "Processes" >/dev/null
check "the header says the run is done" wait_for 10 on c "DONE"
axis() { scr c | grep -E '^ +(─|-)+.*[0-9]+s' | head -1; }
axis1=$(axis)
sleep 5
check "5 s after the end the process is still listed" on c "sleep"
axis2=$(axis)
check "the time axis has stopped" [ -n "$axis1" -a "$axis1" = "$axis2" ]
tm_kill c

# 6. F1 shows help; F10 exits 0 and prints the summary.
shell d 100x30
tm_keys d "$BENCHTOP -- sleep 100; echo RC=\$?" Enter
wait_for 20 on d "Processes" >/dev/null
tm_keys d F1
check "F1 shows the help" wait_for 5 on d "benchtop help"
check "the help explains HOG" sh -c "for i in 1 2 3 4; do tmux capture-pane -p -t bt$$-d | grep -q '^ *HOG ' && exit 0; tmux send-keys -t bt$$-d Space; sleep 0.3; done; exit 1"
tm_keys d Escape
wait_for 5 on d "Processes" >/dev/null
tm_keys d F10
check "F10 exits 0" wait_for 20 on d "RC=0"
check "F10 prints the summary" on d "elaps"

# 7. G opens on the current governor; at 40x10 g changes no governor file.
tree t7 --governor schedutil
tm_start e 120x40 "$BENCHTOP --sysfs $E2E_TMP/t7 -- sleep 100; sleep 30"
wait_for 20 on e "Processes" >/dev/null
tm_keys e G
check "G opens with schedutil marked current" wait_for 5 on e "schedutil (current)"
check "G's cursor is on the current governor (select colour)" sh -c "tmux capture-pane -p -e -t bt$$-e | grep -a 'schedutil (current)' | grep -qa '46m'"
tm_keys e Escape
# 80x24: the residency panel's colour legend is on screen (the ramp from
# the tree's lowest to its highest frequency)
tmux resize-window -t "bt$$-e" -x 80 -y 24 2>/dev/null || tmux resize-pane -t "bt$$-e" -x 80 -y 24
check "80x24: the residency colour legend is shown ($(tmux capture-pane -p -t bt$$-e | grep Residency))" \
	wait_for 5 sh -c "tmux capture-pane -p -t bt$$-e | grep 'Residency' | grep -qE '(≤|<=)[0-9.]+[MG].*(≤|<=)[0-9.]+[MG].*(≤|<=)[0-9.]+[MG]'"
tmux resize-window -t "bt$$-e" -x 40 -y 10 2>/dev/null || tmux resize-pane -t "bt$$-e" -x 40 -y 10
wait_for 5 on e "too small" >/dev/null
before=$(cat "$E2E_TMP"/t7/devices/system/cpu/cpufreq/policy*/scaling_governor | tr '\n' ' ')
tm_keys e g
# the key's answer is on screen once it has been handled
check "at 40x10 a key says to enlarge the terminal" wait_for 20 on e "enlarge the terminal"
after=$(cat "$E2E_TMP"/t7/devices/system/cpu/cpufreq/policy*/scaling_governor | tr '\n' ' ')
check "at 40x10 g changes no governor file ($before -> $after)" [ "$before" = "$after" ]
tm_kill e

# 8. Replay: the whole recording fills the graph's width; Home and End seek.
"$BENCHTOP" -b -i 0.1 -t 4 -o "$E2E_TMP/fit.jsonl" -- sh -c 'while :; do head -c 200000 /dev/zero >>'"$E2E_TMP"'/fit.dat; : >'"$E2E_TMP"'/fit.dat; done' >/dev/null 2>&1
tm_start f 120x40 "$BENCHTOP --replay $E2E_TMP/fit.jsonl; sleep 30"
wait_for 20 on f "Processes" >/dev/null
tm_keys f '>' '>' '>'
check "replay: the recording plays to its end" wait_for 20 on f "end of recording"
# the leftmost and rightmost plotted columns of the graph (braille cells)
span() {
	local LC_ALL=C.UTF-8 line c lo=0 hi=0 ch
	while IFS= read -r line; do
		line=${line:8}
		for ((c = 0; c < ${#line}; c++)); do
			ch=${line:c:1}
			[ "$ch" = " " ] || [ "$ch" = "│" ] && continue
			[ $lo = 0 ] || [ $((c + 1)) -lt $lo ] && lo=$((c + 1))
			[ $((c + 1)) -gt $hi ] && hi=$((c + 1))
		done
	done < <(scr f | sed -n '4,17p')   # every plot row, down to the 0 line
	echo "$lo $hi"
}
span_fills() { read -r lo hi <<<"$(span)"; [ "${lo:-999}" -le 12 ] && [ "${hi:-0}" -ge 95 ]; }
wait_for 5 span_fills
check "replay: the plot starts at the left ($lo) and reaches the right ($hi) of the graph" span_fills
tm_keys f Home
check "replay: Home goes back to the start" wait_for 5 on f "at 0.0 s"
tm_keys f End
check "replay: End goes to the end" wait_for 5 on f "end of recording"
tm_kill f
finish

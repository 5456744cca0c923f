#!/usr/bin/env bash
# A teacher's view: the shipped preset lesson (captions across the graph,
# one phase per step, the governor steps where cpufreq exists: a fake
# sysfs tree here, read back; skipped and said without one), z zoom (the
# graph on the whole screen, z again: every panel back) and v, the
# frequency line (the fake tree's frequency; "not observable here"
# without cpufreq).
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
own_dirs
T=$E2E_TMP
mkdir -p "$T/nosys"
command -v jq >/dev/null || skip_all "jq not installed (make check installs TEST_DEBS)"
FS=$T/sys
bash tests/fakesys.sh "$FS" --cpus 2 >/dev/null
gov() { cat "$FS/devices/system/cpu/cpufreq/policy0/scaling_governor"; }
scr() { tm_screen "$1"; }
has() { tm_screen "$1" | grep -qF -- "$2"; }
# the caption banner's row: the graph's fifth row (the screen's sixth line)
banner() { tm_screen "$1" | sed -n 6p; }
# the line of the graph's time axis (drawn from the first sample on)
axis_at() { scr "$1" | grep -n '^ \{6,\}──────────────────────' | head -1 | cut -d: -f1; }
axis_shown() { [ -n "$(axis_at "$1")" ]; }
# A and B copy a source sized by the room of their own small tmpfs: their
# scratch files are quick to write and to remove (a removal of gigabytes
# on a disk that discards holds up every start beside it)
for d in a b; do
	small_tmp "$T/tmp-$d" || mkdir -p "$T/tmp-$d"
done

# A: the whole lesson in batch mode on a fake cpufreq tree (60 s)
TMPDIR=$T/tmp-a "$BENCHTOP" --sysfs "$FS" --preset lesson -b -o "$T/a.jsonl" >"$T/a.out" 2>"$T/a.err" &
APID=$!

# B: the lesson in the dashboard without cpufreq (an empty sysfs tree);
# the pane outlives the run (sleep) so its last screen stays to be read,
# however late a loaded machine gets there
tm_start b 120x40 "TMPDIR=$T/tmp-b $BENCHTOP --sysfs $T/nosys --preset lesson -t 40 -o $T/b.jsonl; sleep 900"
check "the first caption is a banner across the graph ($(banner b | tr -s ' ' | cut -c1-60))" \
	wait_for 120 sh -c "tmux capture-pane -p -t bt$$-b | sed -n 6p | grep -q 'Step 1 of 5 - pack'"
wait_for 60 axis_shown b || true
# z: the graph takes the screen; the caption stays
tm_keys b z
zoomed() { ! has b "Processes" && ! has b "Placement" && has b "Throughput" && banner b | grep -q "Step" && axis_shown b; }
check "z: no Processes or Placement panel, the graph and its caption stay" wait_for 30 zoomed
axis_z=$(axis_at b)
check "z: the time axis is near the bottom (line $axis_z of 40)" [ "${axis_z:-0}" -ge 34 ]
check "the key bar stays ($(scr b | tail -1 | cut -c1-30))" has b "F10Quit"
tm_keys b z
unzoomed() { has b "Processes" && has b "Placement" && axis_shown b; }
check "z again: every panel back" wait_for 30 unzoomed
axis_n=$(axis_at b)
check "the graph is its own size again (axis at line $axis_n, zoomed $axis_z)" [ "${axis_n:-99}" -lt "${axis_z:-0}" ]
# v without cpufreq: said, not drawn
tm_keys b v
check "v without cpufreq: not observable here" wait_for 30 sh -c "tmux capture-pane -p -t bt$$-b | grep -q 'Frequency.*not observable here'"
tm_keys b v
# until the next caption: step 2 replaces step 1
check "at 12 s the banner is the second caption, the first gone from it" \
	wait_for 120 sh -c "tmux capture-pane -p -t bt$$-b | sed -n 6p | grep -q 'Step 2 of 5' && ! tmux capture-pane -p -t bt$$-b | sed -n 6p | grep -q 'Step 1 of 5'"
check "the governor step says it cannot be taken here ($(banner b | tr -s ' ' | cut -c1-50))" \
	wait_for 150 sh -c "tmux capture-pane -p -t bt$$-b | grep -q 'not here: no cpufreq'"
done_b() { tmux capture-pane -p -S - -t "bt$$-b" | grep -q 'phase$'; }
wait_for 150 done_b
sum=$(tmux capture-pane -p -S - -t "bt$$-b")
steps=$(echo "$sum" | sed -n '/phase$/,$p' | grep -c 'Step [1-4] of 5')
check "the summary's phase table has one row per step, named by its caption ($steps of 4)" [ "$steps" -eq 4 ]
caps=$(jq -r 'select(.type=="event" and .action=="caption") | .detail.text' "$T/b.jsonl" 2>/dev/null | grep -c 'Step [1-4] of 5')
check "each caption is an event of the recording ($caps of 4)" [ "$caps" -eq 4 ]
tm_kill b

# C: v with a fake cpufreq tree: the line, from the header's source
tm_start c 120x40 "$BENCHTOP --sysfs $FS -i 0.3 -- sleep 120; sleep 60"
wait_for 60 has c "  1 cmd " || true
tm_keys c v
khz=$(cat "$FS/devices/system/cpu/cpufreq/policy0/scaling_cur_freq")
want=$(awk -v k="$khz" 'BEGIN { printf "%.2f GHz", k / 1e6 }')
check "v: a Frequency line naming scaling_cur_freq and $want" \
	wait_for 30 sh -c "tmux capture-pane -p -t bt$$-c | grep 'Frequency' | grep 'scaling_cur_freq' | grep -q '$want'"
check "the line is drawn under the graph" sh -c "tmux capture-pane -p -t bt$$-c | grep -q '█'"
tm_keys c q
tm_kill c

# A's end: every step, the governors of the fake tree, the phase table
wait "$APID"
rc=$?
check "the batch lesson ends with exit 0 ($rc; $(tail -2 "$T/a.err" | tr '\n' ' '))" [ "$rc" = 0 ]
caps=$(jq -r 'select(.type=="event" and .action=="caption") | .detail.text' "$T/a.jsonl" | grep -c '^Step')
check "five captions recorded ($caps)" [ "$caps" -eq 5 ]
govs=$(jq -r 'select(.type=="event" and .action=="governor") | .detail.after' "$T/a.jsonl" | tr '\n' ' ')
check "powersave then performance were set ($govs)" [ "$govs" = "powersave performance " ]
places=$(jq -r 'select(.type=="event" and .action=="placement") | .label' "$T/a.jsonl" | tr '\n' ' ')
check "pack, free, spread in that order ($places)" [ "$places" = "pack free spread " ]
rows=$(sed -n '/phase$/,$p' "$T/a.out" | grep -o 'Step [1-5] of 5' | tr '\n' ',')
check "the phase table compares the 5 steps ($rows)" \
	[ "$rows" = "Step 1 of 5,Step 2 of 5,Step 3 of 5,Step 4 of 5,Step 5 of 5," ]
check "the fake tree's governor is put back (ondemand: $(gov))" [ "$(gov)" = ondemand ]
finish

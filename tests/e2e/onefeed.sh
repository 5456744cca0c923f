#!/usr/bin/env bash
# A recording is the run, kept: on a fake cpufreq tree, the summary and
# phase tables a live run prints are those its replay prints and its
# HTML report holds; a replayed experiment's header names the step it
# shows and its graph marks each step, its summary ends with the
# experiment's table and the policies it recorded; an experiment's report names its workload series after
# the experiment, marks each step on its chart and shows its residency
# rows under each step's full label.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

need_benchtop
command -v jq >/dev/null || skip_all "needs jq"
command -v python3 >/dev/null || skip_all "needs python3"
own_dirs

FS=$E2E_TMP/fs
tests/fakesys.sh "$FS" --cpus 2
fake_kernel_start "$FS" 300
bg_track "$FAKE_KERNEL"

# the tables at the end of a text: from the summary's heading to the
# policy table's last row
tables() { sed -n '/^  user     sys   elaps/,$p' "$1" | sed '/^policy /,$d'; }

# ---- a live run and its recording: the same tables ----
# The command reads a regular file and writes one, so its row is rated by
# what it wrote and says what it read too, however early or late its
# first sample sees it.
REC=$E2E_TMP/run.jsonl
head -c $((30 << 20)) /dev/zero >"$E2E_TMP/src"
"$BENCHTOP" -b -t 3 --sysfs "$FS" -o "$REC" --at 1:governor=performance --at 2:marker=hi -- \
	sh -c "dd if=$E2E_TMP/src of=$E2E_TMP/z bs=1M count=30 2>/dev/null; sleep 5" >"$E2E_TMP/live.out" 2>/dev/null
"$BENCHTOP" --replay "$REC" -b >"$E2E_TMP/replay.out" 2>&1
tables "$E2E_TMP/live.out" >"$E2E_TMP/live.tab"
tables "$E2E_TMP/replay.out" >"$E2E_TMP/replay.tab"
check "live: a summary and a phase table ($(wc -l <"$E2E_TMP/live.tab") lines)" \
	sh -c "grep -q '  test\$' '$E2E_TMP/live.tab' && grep -q '  phase\$' '$E2E_TMP/live.tab'"
check "live: the command's row says what it was measured by" grep -q '(written: read .*, written .*)$' "$E2E_TMP/live.tab"
check "replay: the summary and phase tables the live run printed" cmp -s "$E2E_TMP/live.tab" "$E2E_TMP/replay.tab"
if ! cmp -s "$E2E_TMP/live.tab" "$E2E_TMP/replay.tab"; then
	diff "$E2E_TMP/live.tab" "$E2E_TMP/replay.tab" | sed 's/^/# /'
fi

# The HTML report's summary and phase rows: the text rows, cell by cell.
"$BENCHTOP" --report "$REC" -o "$E2E_TMP/run.html" >/dev/null 2>&1
html_rows() {
	python3 - "$1" "$2" <<'EOF'
import html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.sec = None; s.rows = {}; s.row = None; s.cell = None
    def handle_starttag(s, tag, a):
        if tag == 'h2': s.cell = ''
        elif tag == 'tr': s.row = []
        elif tag in ('td', 'th'): s.cell = ''
    def handle_endtag(s, tag):
        if tag == 'h2': s.sec = s.cell.strip(); s.cell = None
        elif tag in ('td', 'th') and s.row is not None: s.row.append(s.cell.strip()); s.cell = None
        elif tag == 'tr' and s.row is not None:
            s.rows.setdefault(s.sec, []).append(s.row); s.row = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
for r in p.rows.get(sys.argv[2], [])[1:]:
    print('|'.join(r))
EOF
}
# the text rows in the same shape: numbers as the page rounds them
text_rows() {
	python3 - "$1" "$2" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split('\n')
want = sys.argv[2]
head = '  test' if want == 'Summary' else '  phase'
out, on = [], False
for l in lines:
    if l.endswith(head) and l.lstrip().startswith(('user', 'from')): on = True; continue
    if on and not l.strip(): break
    if on:
        f = l.split(None, 5 if want == 'Summary' else 6)
        print('|'.join(f))
EOF
}
html_rows "$E2E_TMP/run.html" Summary | cut -d'|' -f6 >"$E2E_TMP/h.sum"
text_rows "$E2E_TMP/live.out" Summary | cut -d'|' -f6 >"$E2E_TMP/t.sum"
check "report: the summary's tests as the live run named them" \
	sh -c "[ -s '$E2E_TMP/h.sum' ] && cmp -s '$E2E_TMP/h.sum' '$E2E_TMP/t.sum'"
html_rows "$E2E_TMP/run.html" Phases | cut -d'|' -f1,2,5,7 >"$E2E_TMP/h.ph"
text_rows "$E2E_TMP/live.out" Phases | cut -d'|' -f1,2,5,7 >"$E2E_TMP/t.ph"
check "report: the phase rows of the live run ($(wc -l <"$E2E_TMP/t.ph"))" \
	sh -c "[ \$(wc -l <'$E2E_TMP/t.ph') = 3 ] && cmp -s '$E2E_TMP/h.ph' '$E2E_TMP/t.ph'"
# the events table: each event's typed details, as its record has them
html_rows "$E2E_TMP/run.html" Events >"$E2E_TMP/h.ev"
gdet=$(jq -c 'select(.type == "event" and .action == "governor") | .detail' "$REC" | head -1)
check "report: the governor event's details in the events table ($gdet)" \
	sh -c "[ -n '$gdet' ] && [ '$gdet' != null ] && grep -q '^[0-9.]*|governor|[^|]*|.*performance' '$E2E_TMP/h.ev'"

# ---- an experiment, replayed and reported ----
XREC=$E2E_TMP/exp.jsonl
"$BENCHTOP" --sysfs "$FS" --preset aligntest --cell 2M -o "$XREC" >"$E2E_TMP/exp.out" 2>/dev/null
end=$(tail -1 "$XREC")
check "experiment: recorded with four steps" test "$(jq '.phases | length' <<<"$end")" = 4
check "experiment: its end record has the policies" jqe '.[-1].policies | length == 2' "$XREC"
# (a step shorter than the fake kernel's tick may see no time pass)
check "experiment: a phase per step, each with its CPUs' residency from time_in_state" \
	jqe '[.[] | select(.type == "step")] as $s | .[-1].phases as $p | ($p | length) == ($s | length) and
	     ($p | all(.residency | length == 2)) and ([$p[].residency[][]] | add > 0)' "$XREC"
check "experiment: one note says what from disk means" \
	jqe '[.[-1].experiment.notes[] | select(startswith("from disk:"))] | length == 1' "$XREC"
"$BENCHTOP" --replay "$XREC" -b >"$E2E_TMP/exp.rep" 2>&1
check "experiment replay: the policy table, not 'no cpufreq policies recorded'" \
	sh -c "grep -q '^policy ' '$E2E_TMP/exp.rep' && ! grep -q 'no cpufreq policies' '$E2E_TMP/exp.rep'"
check "experiment replay: the experiment's table last" grep -q '^  bs  copies' "$E2E_TMP/exp.rep"

if command -v tmux >/dev/null; then
	S=xr
	tm_start $S 120x40 "$BENCHTOP --replay $XREC; sleep 60"
	if wait_for 20 sh -c "tmux capture-pane -p -t bt$$-$S | grep -q Residency"; then
		tm_keys $S End
		first=$(jq -r '.phases[-1].label' <<<"$end")
		check "experiment replay: the header names the last step at the end ($first (4/4))" \
			wait_for 10 sh -c "tmux capture-pane -p -t bt$$-$S | head -1 | grep -qF '$first (4/4)'"
		check "experiment replay: its table at the end, in place of the processes" \
			wait_for 10 sh -c "tmux capture-pane -p -t bt$$-$S | grep -q '^─ Experiment  aligntest' &&
			                   tmux capture-pane -p -t bt$$-$S | grep -qE '^ *bs +copies' &&
			                   ! tmux capture-pane -p -t bt$$-$S | grep -q '^─ Processes'"
		check "experiment replay: the key bar names the replay's keys, not a live run's" \
			sh -c "tmux capture-pane -p -t bt$$-$S | tail -1 | grep -q '<Slower' &&
			       ! tmux capture-pane -p -t bt$$-$S | tail -1 | grep -qE 'Pin|Spread|Gov'"
		# each step opens a phase with its marker on the graph (the
		# recording has no event at the steps: aligntest changes nothing)
		l2=$(jq -r '.phases[1].label' <<<"$end")
		check "experiment replay: the steps marked on the graph ($l2)" \
			sh -c "tmux capture-pane -p -t bt$$-$S | sed -n '3,22p' | grep -qF '$l2'"
		# a step shorter than the fake kernel's tick may have no time at
		# all: then the block says so
		want='cpu0 .*avg '
		jq -e '[.phases[].residency["0"] | length] | add > 0' <<<"$end" >/dev/null ||
			want='cpu0 .*no time recorded yet '
		if jq -e '.phases[-1].residency["0"] | length > 0' <<<"$end" >/dev/null; then
			want+='.*avg'
		else
			want+='.*no time recorded since the event'
		fi
		check "experiment replay: residency since the start and since the last step ($want)" \
			sh -c "tmux capture-pane -p -t bt$$-$S | grep -E '$want' >/dev/null"
		# paused at the start: the first step may be shorter than a look
		# at the screen (Space does nothing at the end; Home plays on)
		tm_keys $S Home
		tm_keys $S Space
		tm_keys $S Home
		first=$(jq -r '.phases[0].label' <<<"$end")
		check "experiment replay: ... and the first at the start ($first (1/4))" \
			wait_for 10 sh -c "tmux capture-pane -p -t bt$$-$S | head -1 | grep -qF '$first (1/4)'"
		check "experiment replay: the processes again away from the end" \
			sh -c "tmux capture-pane -p -t bt$$-$S | grep -q '^─ Processes'"
		check "experiment replay: not '(no workload)' nor 'workload 1'" \
			sh -c "! tmux capture-pane -p -t bt$$-$S | head -1 | grep -qE 'no workload|workload 1'"
		check "experiment replay: the frequency source in the header" \
			sh -c "tmux capture-pane -p -t bt$$-$S | head -1 | grep -q \"freq: kernel's current readout\""
		tm_keys $S q
	else
		fail "experiment replay: the dashboard did not start"
	fi
	tm_kill $S
else
	skip "experiment replay in the dashboard: needs tmux"
fi

XH=$E2E_TMP/exp.html
"$BENCHTOP" --report "$XREC" -o "$XH" >/dev/null 2>&1
python3 - "$XH" >"$E2E_TMP/svgtext" <<'EOF'
import re, sys, xml.dom.minidom
s = open(sys.argv[1], encoding='utf-8').read()
svg = re.findall(r'<svg.*?</svg>', s, re.S)[-1]
d = xml.dom.minidom.parseString(svg)
for t in d.getElementsByTagName('text'):
    print(''.join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE))
EOF
check "experiment report: the workload series named after the experiment" grep -qx 'aligntest write' "$E2E_TMP/svgtext"
check "experiment report: a title that is not empty" grep -qE '<title>benchtop report: [^<]+</title>' "$XH"
# (the title's 16 px bold characters are about 8.8 px: 105 fill the 900 px plot)
check "experiment report: the chart's title fits its width" \
	sh -c "t=\$(sed -n 1p '$E2E_TMP/svgtext'); [ \${#t} -le 105 ] && [ \${#t} -gt 20 ]"
check "experiment report: a phase row per step" test "$(html_rows "$XH" Phases | wc -l)" = 4
check "experiment report: the summary row of every step" test "$(html_rows "$XH" Summary | wc -l)" = 4
check "experiment report: no 'no cpufreq' over a residency it has" \
	sh -c "grep -q 'MHz' '$E2E_TMP/svgtext' && ! grep -q 'no cpufreq' '$XH'"
check "experiment report: no 'workload 1' series" sh -c "! grep -q '^workload 1' '$E2E_TMP/svgtext'"
check "experiment report: each step marked on the chart" \
	sh -c "[ \$(grep -c '^aligntest bs=' '$E2E_TMP/svgtext') -ge 8 ]"
for i in 0 1 2 3; do
	l=$(jq -r ".phases[$i].label" <<<"$end")
	check "experiment report: residency of step $((i + 1)) under its full name ($l)" grep -qxF "$l" "$E2E_TMP/svgtext"
done

finish

#!/usr/bin/env bash
# Recordings read back: a short recorded run replayed in the dashboard
# through tmux (panels, the recorded pid, pause, speed, end of recording,
# q prints the summary with the recorded test name, a caption's whole
# text), rendered to SVG and
# HTML (XML parses, marker label and workload name inside, an existing
# output is left alone without --force), and files that are not
# recordings refused with the right exit status.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

if [ ! -x "$BENCHTOP" ]; then
	skip_all "no $BENCHTOP"
fi

REC=$E2E_TMP/run.jsonl
"$BENCHTOP" -b -t 3 -o "$REC" --at 1:marker=hello -- \
	sh -c "dd if=/dev/zero of=$E2E_TMP/z bs=1M count=100 2>/dev/null; sleep 5" >/dev/null 2>&1
check "a short run was recorded" grep -q '"type":"end"' "$REC"
PID=$(grep -m1 '"type":"sample"' "$REC" | grep -oE '"pid":[0-9]+' | head -1 | cut -d: -f2)
check "the recording has a process" test -n "$PID"

# ---- replay in the dashboard ----
if command -v tmux >/dev/null; then
	S=rp
	screen() { tm_screen $S; }
	on_screen() { screen | grep -qF -- "$1"; }
	tm_start $S 120x40 "env PS1='SHELL-READY\$ ' bash --norc --noprofile"
	tm_keys $S "$BENCHTOP --replay $REC" Enter
	if wait_for 20 on_screen "Processes"; then
		for t in Throughput CPUs Placement Residency Processes REPLAY; do
			check "replay: $t on screen" on_screen "$t"
		done
		check "replay: the recorded pid $PID is shown" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-$S | grep -qw '$PID'"
		# from the start again, so a slow start has not played it all yet
		# (the recording is 3 s: a busy machine may play it out between
		# Home and Space, where Space does nothing; then from Home again)
		played=0 paused=0
		for _ in 1 2 3; do
			tm_keys $S Home
			wait_for 5 on_screen "replay playing  speed 1x" || continue
			played=1
			tm_keys $S Space
			wait_for 5 sh -c "tmux capture-pane -p -t bt$$-$S | grep -qE 'paused|end of recording'"
			on_screen "paused" && { paused=1; break; }
		done
		check "replay: playing at 1x" [ "$played" = 1 ]
		check "replay: space pauses" [ "$paused" = 1 ]
		check "replay: PAUSED in the header" on_screen "PAUSED"
		a=$(screen | grep -oE '[0-9.]+/[0-9.]+ s' | tail -1); sleep 1.2
		b=$(screen | grep -oE '[0-9.]+/[0-9.]+ s' | tail -1)
		check "replay: the clock stands still while paused ($a = $b)" test "$a" = "$b"
		tm_keys $S '>'
		check "replay: > doubles the speed" wait_for 3 on_screen "speed 2x"
		tm_keys $S '<'; tm_keys $S '<'; tm_keys $S '<'
		check "replay: < halves it, down to 0.25x" wait_for 3 on_screen "speed 0.25x"
		tm_keys $S '<'
		check "replay: not below 0.25x" wait_for 3 on_screen "speed stays 0.25x"
		for k in '>' '>' '>' '>' '>' '>'; do tm_keys $S "$k"; done
		check "replay: 16x at most" wait_for 3 on_screen "speed 16x"
		tm_keys $S u
		check "replay: u switches units" wait_for 3 on_screen "Throughput MB/s"
		check "replay: u names them as a live run does" wait_for 3 on_screen "units: SI (MB/s)"
		tm_keys $S s
		check "replay: steering keys say why not" wait_for 3 on_screen "cannot be steered"
		tm_keys $S Space
		check "replay: end of recording" wait_for 10 on_screen "end of recording"
		tm_keys $S q
		check "replay: q returns to the shell" wait_for 10 on_screen "SHELL-READY"
		check "replay: summary table header" on_screen "MB/s  test"
		check "replay: summary names the recorded test" on_screen "cmd sh -c dd if=/dev/zero"
		check "replay: phase table with the marker phase" sh -c "tmux capture-pane -p -t bt$$-$S | grep -E '  hello$' >/dev/null"
	else
		fail "replay: the dashboard did not start"; screen | head -5 | sed 's/^/# /'
	fi
	tm_kill $S
else
	echo "# tmux missing: replay dashboard not tested"
fi

# ---- a replay shows what a live run shows: residency on a fake cpufreq tree ----
if command -v tmux >/dev/null && command -v jq >/dev/null; then
	FS=$E2E_TMP/fs
	tests/fakesys.sh "$FS" --cpus 2
	fake_kernel_start "$FS" 120
	KPID=$FAKE_KERNEL
	FREC=$E2E_TMP/freq.jsonl
	"$BENCHTOP" -b -t 3 --sysfs "$FS" -o "$FREC" --at 1:governor=performance -- \
		sh -c "dd if=/dev/zero of=$E2E_TMP/f bs=1M count=50 2>/dev/null; sleep 5" >/dev/null 2>&1
	kill $KPID 2>/dev/null
	# cpu0's mean frequency over the whole run, from the recorded phases
	mean=$(tail -1 "$FREC" | jq -r '[.phases[].residency["0"] // {} | to_entries[]] |
		(map((.key | tonumber) * .value) | add) / (map(.value) | add) / 1e6' 2>/dev/null)
	mean=$(printf '%.2f' "$mean" 2>/dev/null)
	check "freq recording: kernel residency per phase ($mean GHz)" sh -c "[ -n '$mean' ] && [ '$mean' != 0.00 ] && head -1 '$FREC' | jq -e '.cpufreq == \"kernel\"' >/dev/null"
	S=rf
	tm_start $S 120x40 "$BENCHTOP --replay $FREC; sleep 60"
	if wait_for 20 sh -c "tmux capture-pane -p -t bt$$-$S | grep -qF Residency"; then
		tm_keys $S End
		res() { tmux capture-pane -p -t "bt$$-$S" | grep -oE 'Residency.*|cpu0 .*'; }
		check "replay: residency panel from the recorded phases" wait_for 10 sh -c "tmux capture-pane -p -t bt$$-$S | grep -q 'Residency  kernel stats'"
		check "replay: cpu0 at a mean of $mean GHz since start, as recorded" wait_for 10 sh -c "tmux capture-pane -p -t bt$$-$S | grep -qE 'cpu0 .*avg $mean GHz'"
		check "replay: since the governor event too, at its end" wait_for 10 sh -c "tmux capture-pane -p -t bt$$-$S | grep -E 'cpu0 .*avg .*avg' >/dev/null"
		tm_keys $S '>'
		check "replay: speed 2x on the status line" wait_for 5 sh -c "tmux capture-pane -p -t bt$$-$S | grep '^replay ' | grep -qF 'speed 2x'"
		n=$(tmux capture-pane -p -t "bt$$-$S" | grep '^replay ' | grep -oF 'speed 2x' | wc -l)
		check "replay: speed said once ($n)" test "$n" = 1
		# the graph is lines: the 0 row of a few samples spread over the width
		# fills most of its cells, not a dot per sample (a series that is
		# off zero for a while, such as the machine's disk reads, leaves a
		# gap in it, so the row's cells are counted, not its first run)
		# (waited for: on a busy machine the replay draws later)
		zero_run() {
			local zero
			zero=$(tmux capture-pane -p -t "bt$$-$S" | sed -n '3,20p' | grep -E '^ +0 ' | head -1)
			zero=${zero#*0 } && zero=${zero// /}
			LC_ALL=C.UTF-8 bash -c 'echo ${#1}' _ "$zero"
		}
		long_run() { [ "$(zero_run)" -ge 60 ]; }
		wait_for 10 long_run
		run=$(zero_run)
		check "replay: the graph drawn as lines (${run:-0} cells of its 0 row)" test "${run:-0}" -ge 60
		tm_keys $S q
	else
		fail "replay: the dashboard did not start on the cpufreq recording"
	fi
	tm_kill $S
else
	skip "replay of a cpufreq recording: needs tmux and jq"
fi

# ---- an experiment's recording: cells as phases, its table, its report ----
if command -v jq >/dev/null; then
	XFS=$E2E_TMP/xfs
	tests/fakesys.sh "$XFS" --cpus 2
	fake_kernel_start "$XFS" 120
	KPID=$FAKE_KERNEL
	XREC=$E2E_TMP/matrix.jsonl
	"$BENCHTOP" --sysfs "$XFS" --matrix governor=performance,powersave --cell 2 -o "$XREC" -- \
		sh -c "dd if=/dev/zero of=$E2E_TMP/m bs=1M count=20 2>/dev/null; sleep 3" >"$E2E_TMP/matrix.out" 2>/dev/null
	kill $KPID 2>/dev/null
	end=$(tail -1 "$XREC")
	check "experiment: one phase per cell in the end record" test "$(jq '.phases | length' <<<"$end")" = 2
	check "experiment: each phase labelled by its cell" jq -e '[.phases[].label] == [.summary[].test]' <<<"$end"
	check "experiment: the phases carry residency" jq -e '[.phases[].residency["0"] | length > 0] | all' <<<"$end"
	check "experiment: the start record names the frequency source" \
		jq -e '.freq_source != null and .freq_source != "none"' <<<"$(head -1 "$XREC")"
	"$BENCHTOP" --replay "$XREC" -b >"$E2E_TMP/matrix.rep" 2>&1
	grep -A3 '^placement  governor' "$E2E_TMP/matrix.out" >"$E2E_TMP/matrix.tab"
	grep -A3 '^placement  governor' "$E2E_TMP/matrix.rep" >"$E2E_TMP/matrix.rtab"
	check "experiment replay: the study table as the experiment printed it" \
		sh -c "[ -s '$E2E_TMP/matrix.tab' ] && cmp -s '$E2E_TMP/matrix.tab' '$E2E_TMP/matrix.rtab'"
	check "experiment replay: the cells in the phase table" grep -q ' cmd placement=as-is governor=powersave$' "$E2E_TMP/matrix.rep"
	"$BENCHTOP" --report "$XREC" -o "$E2E_TMP/matrix.html" 2>/dev/null
	check "experiment report: titled by the experiment" grep -q 'class="t">benchtop: matrix placement=as-is governor=performance,powersave' "$E2E_TMP/matrix.html"
	check "experiment report: the workload's line" grep -q '>sh -c dd if=/dev/zero.* write<' "$E2E_TMP/matrix.html"
	check "experiment report: residency bars" grep -q 'cpu0 whole run' "$E2E_TMP/matrix.html"
	check "experiment report: no claim of no residency" sh -c "! grep -q 'no cpufreq residency' '$E2E_TMP/matrix.html'"
	check "experiment report: phase rows" grep -q '<td>cmd placement=as-is governor=powersave</td>' "$E2E_TMP/matrix.html"
else
	skip "experiment recordings: needs jq"
fi

# ---- report ----
SVG=$E2E_TMP/out.svg HTML=$E2E_TMP/out.html
"$BENCHTOP" --report "$REC" -o "$SVG"
check "report: svg written (exit 0)" test -s "$SVG"
"$BENCHTOP" --report "$REC" -o "$HTML"
check "report: html written (exit 0)" test -s "$HTML"
if command -v python3 >/dev/null; then
	check "report: the SVG parses as XML" python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$SVG"
	check "report: the HTML's inline SVG parses as XML" python3 -c "
import re,sys,xml.dom.minidom
s=open(sys.argv[1],encoding='utf-8').read()
xml.dom.minidom.parseString(re.search(r'<svg.*</svg>',s,re.S).group(0))" "$HTML"
fi
check "report: svg has the marker label" grep -q '>hello<' "$SVG"
check "report: svg has the workload name" grep -q 'cmd sh -c dd' "$SVG"
check "report: svg has the placement strip with the pid" grep -q ">$PID " "$SVG"
check "report: no cpufreq or residency bars" grep -qE 'no cpufreq|MHz [0-9]+%' "$SVG"
check "report: html has the summary table" grep -q '<th>test</th>' "$HTML"
check "report: html has the marker in the events table" grep -q '<td>hello</td>' "$HTML"
sum=$(md5sum <"$SVG")
"$BENCHTOP" --report "$REC" -o "$SVG" 2>"$E2E_TMP/err"; rc=$?
check "report: existing output without --force exits 3 (got $rc)" test $rc = 3
check "report: ... and says so" grep -q -- '--force' "$E2E_TMP/err"
check "report: ... and leaves it unchanged" test "$(md5sum <"$SVG")" = "$sum"
check "report: no temporary file left" sh -c "! ls -A '$E2E_TMP' | grep -q '\.tmp'"
"$BENCHTOP" --report "$REC" -o "$SVG" --force; rc=$?
check "report: --force replaces it (exit $rc)" test $rc = 0
"$BENCHTOP" --report "$REC" -o "$E2E_TMP/out.png" 2>"$E2E_TMP/err"; rc=$?
check "report: .png output exits 2 (got $rc)" test $rc = 2
check "report: ... naming it" grep -q 'out.png' "$E2E_TMP/err"
check "report: ... and writes nothing" test ! -e "$E2E_TMP/out.png"

# ---- files that are not (whole) recordings ----
BAD=$E2E_TMP/bad.jsonl
{ head -2 "$REC"; echo '{"type":"sample","t":1,'; tail -1 "$REC"; } >"$BAD"
for mode in replay report; do
	out=$E2E_TMP/bad-$mode.svg
	if [ $mode = replay ]; then "$BENCHTOP" --replay "$BAD" 2>"$E2E_TMP/err" </dev/null; rc=$?
	else "$BENCHTOP" --report "$BAD" -o "$out" 2>"$E2E_TMP/err"; rc=$?; fi
	check "$mode: broken line exits 2 (got $rc)" test $rc = 2
	check "$mode: ... naming file and line 3" grep -q "bad.jsonl:3:" "$E2E_TMP/err"
done
check "report: nothing written for a broken recording" test ! -e "$E2E_TMP/bad-report.svg"
echo '{"hello":"world"}' >"$E2E_TMP/other.jsonl"
"$BENCHTOP" --replay "$E2E_TMP/other.jsonl" 2>"$E2E_TMP/err" </dev/null; rc=$?
check "replay: not a recording exits 2 (got $rc)" test $rc = 2
check "replay: ... says so" grep -q "not a benchtop recording" "$E2E_TMP/err"
printf 'plain text\n' >"$E2E_TMP/text.jsonl"
"$BENCHTOP" --report "$E2E_TMP/text.jsonl" -o "$E2E_TMP/t.svg" 2>/dev/null; rc=$?
check "report: plain text exits 2 (got $rc)" test $rc = 2
"$BENCHTOP" --replay "$E2E_TMP/missing.jsonl" 2>"$E2E_TMP/err" </dev/null; rc=$?
check "replay: missing file exits 3 (got $rc)" test $rc = 3
check "replay: ... naming it" grep -q "missing.jsonl" "$E2E_TMP/err"

# A caption longer than an event's label: a replay's banner shows all of
# it, read back from the event's details (the label holds only its start).
if command -v tmux >/dev/null && command -v jq >/dev/null; then
	CREC=$E2E_TMP/cap.jsonl
	CAP="Replayed captions keep their whole text, well past the length of a label: the very end"
	"$BENCHTOP" -b -t 1.5 -i 0.2 -o "$CREC" --at "0.2:caption=$CAP" -- sleep 5 >/dev/null 2>&1
	check "caption recording: the label is cut, the detail holds the whole text" jq -se --arg cap "$CAP" \
		'map(select(.type == "event")) | length == 1 and (.[0].label | contains("very end") | not) and
		 .[0].detail.text == $cap' "$CREC"
	S=rc
	tm_start $S 120x40 "$BENCHTOP --replay $CREC; sleep 60"
	check "replay: the caption banner shows the whole caption" \
		wait_for 30 sh -c "tmux capture-pane -p -t bt$$-$S | grep -qF 'length of a label: the very end'"
	tm_keys $S q
	tm_kill $S
fi

# Newer recordings: unknown keys and record types are passed over; a run
# cut short (no end record) still renders.
NEW=$E2E_TMP/new.jsonl
{ head -1 "$REC" | sed 's/"version":1,/"version":1,"future":{"x":[1,2]},/'
  echo '{"type":"hint","what":"from a later benchtop"}'
  sed -n '2,$p' "$REC" | grep -v '"type":"end"'; } >"$NEW"
"$BENCHTOP" --report "$NEW" -o "$E2E_TMP/new.svg"; rc=$?
check "report: unknown keys and types skipped, no end record (exit $rc)" test $rc = 0
check "report: ... still has the marker" grep -q '>hello<' "$E2E_TMP/new.svg"
check "report: ... and says there is no end record" grep -q 'no end record' "$E2E_TMP/new.svg"

finish

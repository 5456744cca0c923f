#!/usr/bin/env bash
# experiment.sh - sweeps, matrices and presets through the binary: a read
# sweep's table and JSON, a placement matrix of a command, a governor
# matrix on a fake sysfs tree (governors back after), preset refusals.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"
cd "$E2E_TMP" || exit 1   # shipped presets are built in: found from any directory

export XDG_RUNTIME_DIR=$E2E_TMP/run XDG_CONFIG_HOME=$E2E_TMP/config TMPDIR=$E2E_TMP
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME"

if [ ! -x "$BENCHTOP" ]; then
	skip_all "$BENCHTOP is not built"
fi

F=$E2E_TMP/src
head -c 8M /dev/urandom >"$F"
BUSY='while :; do :; done'
# jqs FILTER [FILE]: FILTER holds for the JSON Lines in FILE, else in $out.
jqs() { if [ $# -gt 1 ]; then jq -se "$1" "$2" >/dev/null; else jq -se "$1" >/dev/null <<<"$out"; fi; }

# 1. a read sweep: 5 rows, calls fall as bs grows.
out=$("$BENCHTOP" -w read:path="$F" --sweep bs=4k:64k 2>"$E2E_TMP/sweep.err")
rc=$?
check "sweep: exit 0 (rc $rc)" [ $rc = 0 ]
rows=$(awk '$1 ~ /^[0-9]+$/ && NF >= 8' <<<"$out")
check "sweep: 5 rows" [ "$(wc -l <<<"$rows")" = 5 ]
check "sweep: bs 4096 .. 65536" [ "$(awk '{print $1}' <<<"$rows" | tr '\n' ' ')" = "4096 8192 16384 32768 65536 " ]
check "sweep: calls decrease as bs grows" awk 'NR > 1 && $2 >= prev { exit 1 } { prev = $2 }' <<<"$rows"
check "sweep: header names bs, calls, MiB/s, us/call, hog" grep -Eq 'bs +calls +MiB/s +us/call .*hog' <<<"$out"

# 2. the same as JSON Lines, and recorded with -o.
out=$("$BENCHTOP" -w read:path="$F" --sweep bs=4k:64k --format json -o "$E2E_TMP/sweep.jsonl" 2>/dev/null)
rc=$?
check "sweep json: exit 0" [ $rc = 0 ]
check "sweep json: every line parses" jqs 'length == 7'
check "sweep json: start, 5 steps, end" jqs '[.[].type] == ["start","step","step","step","step","step","end"]'
check "sweep json: end has the table and the summary" \
	jqs '.[-1].experiment as $x | ($x.rows | length) == 5 and (.[-1].summary | length) == 5 and $x.rows[0].bs == 4096 and $x.rows[0].calls > $x.rows[4].calls'
check "sweep json: every row has every column and a from disk share" \
	jqs '.[-1].experiment as $x | [$x.rows[] as $r | $x.columns[] | .key as $k | $r | has($k)] | all and ($x.rows[0] | has("from disk"))'
check "sweep json: the fitted cost per call and per KiB" jqs '.[-1].experiment.notes | any(test("fit \\(least squares"))'
check "sweep json: every step read the whole file" jqs '[.[] | select(.type == "step") | .bytes == 8388608] | all'
check "sweep record: the same records, with each step's samples" \
	jqs '[.[] | select(.type != "sample" and .type != "event") | .type] == ["start","step","step","step","step","step","end"] and ([.[] | select(.type == "sample")] | length >= 5) and ([.[] | select(.type == "sample") | .cell] | unique == [1,2,3,4,5])' "$E2E_TMP/sweep.jsonl"
"$BENCHTOP" -w read:path="$F" --sweep bs=4k:8k -o "$E2E_TMP/sweep.jsonl" >/dev/null 2>"$E2E_TMP/exist.err"
check "sweep record: an existing -o file is refused (exit 3)" [ $? = 3 ]

# 3. a placement matrix of a 2-process command, 1 s a cell.
# (M=... marks this test's loops apart from any other busy loop on the machine)
out=$("$BENCHTOP" --matrix placement=pack,spread --cell 1 -- sh -c "M=matrix$$; $BUSY & $BUSY; wait" 2>"$E2E_TMP/matrix.err")
rc=$?
check "matrix: exit 0 (rc $rc)" [ $rc = 0 ]
check "matrix: a pack row and a spread row" bash -c '[ "$(grep -Ec "^(pack|spread) +as-is +[0-9]" <<<"$1")" = 2 ]' _ "$out"
check "matrix: one table, placement and governor columns" grep -Eq '^placement +governor +calls +MiB/s' <<<"$out"
check "matrix: no busy loop left" bash -c "! pgrep -f 'M=matri[x]$$' >/dev/null"

# 4. a governor matrix on a fake tree: each cell runs under its governor,
# the original comes back.
T=$E2E_TMP/sys
"$ROOT/tests/fakesys.sh" "$T" --cpus 2 --governor ondemand
G0=$T/devices/system/cpu/cpufreq/policy0/scaling_governor
# (a cell ends when its command does: --cell only bounds it, so a busy
# machine that starts the command late cannot cut it short)
out=$("$BENCHTOP" --sysfs "$T" --matrix governor=performance,powersave --cell 60 --format json \
	-- sh -c "cat $G0 >>$E2E_TMP/seen" 2>"$E2E_TMP/gov.err")
rc=$?
check "governor matrix: exit 0 (rc $rc)" [ $rc = 0 ]
check "governor matrix: 2 cells" jqs '[.[] | select(.type == "step") | .governor] == ["performance","powersave"]'
check "governor matrix: a heat map of placement x governor" jqs '.[-1].experiment.chart.kind == "heatmap"'
check "governor matrix: each cell ran under its governor" [ "$(tr '\n' ' ' <"$E2E_TMP/seen")" = "performance powersave " ]
check "governor matrix: governors back to ondemand" \
	bash -c 'for f in "$1"/devices/system/cpu/cpufreq/policy*/scaling_governor; do [ "$(cat "$f")" = ondemand ] || exit 1; done' _ "$T"
"$BENCHTOP" --sysfs "$T" --matrix governor=performance,turbo -- true >/dev/null 2>"$E2E_TMP/bad.err"
rc=$?
check "governor matrix: an unknown governor exits 2 (rc $rc)" [ $rc = 2 ]
check "governor matrix: the message names it" grep -q '"turbo"' "$E2E_TMP/bad.err"
"$BENCHTOP" --sysfs "$E2E_TMP/nosys" --matrix governor=performance -- true >/dev/null 2>"$E2E_TMP/none.err"
rc=$?
check "governor matrix without cpufreq: exit 3 (rc $rc)" [ $rc = 3 ]
check "governor matrix without cpufreq: says so" grep -q "no governors here" "$E2E_TMP/none.err"

# 5. presets.
out=$("$BENCHTOP" --preset list 2>&1)
rc=$?
check "preset list from another directory: exit 0 (rc $rc)" [ $rc = 0 ]
for p in aligntest blocksize bonnie rsync-demo; do
	check "preset list: $p with its description" grep -Eq "^$p +[a-z]" <<<"$out"
done
"$BENCHTOP" --preset no-such-thing >/dev/null 2>"$E2E_TMP/preset.err"
rc=$?
check "unknown preset: exit 2 (rc $rc)" [ $rc = 2 ]
check "unknown preset: the names are listed" grep -q 'blocksize.*bonnie' "$E2E_TMP/preset.err"
mkdir -p "$XDG_CONFIG_HOME/benchtop/presets"
printf 'args = -w read:path=%s --sweep "bs=4k:8k"\n' "$F" >"$XDG_CONFIG_HOME/benchtop/presets/mine.preset"
out=$("$BENCHTOP" --preset mine --format json 2>/dev/null)
check "user preset from \$XDG_CONFIG_HOME: 2 steps" jqs '[.[] | select(.type == "step")] | length == 2'
printf 'args = -w read:path="unterminated\n' >"$XDG_CONFIG_HOME/benchtop/presets/broken.preset"
"$BENCHTOP" --preset broken >/dev/null 2>"$E2E_TMP/broken.err"
rc=$?
check "broken preset: exit 2 naming file:line (rc $rc)" bash -c '[ $1 = 2 ] && grep -q "broken.preset:1:" "$2"' _ $rc "$E2E_TMP/broken.err"
out=$("$BENCHTOP" --preset blocksize --cell 0.2 2>"$E2E_TMP/bs.err")
rc=$?
check "blocksize preset with a short cell: exit 0 (rc $rc)" [ $rc = 0 ]
check "blocksize preset: 13 steps from 16 B to 64 KiB" \
	bash -c '[ "$(awk '"'"'$1 ~ /^[0-9]+$/ && NF >= 6 {print $1}'"'"' <<<"$1" | sed -n "1p;\$p" | tr "\n" " ")" = "16 65536 " ] &&
	         [ "$(awk '"'"'$1 ~ /^[0-9]+$/ && NF >= 6'"'"' <<<"$1" | wc -l)" = 13 ]' _ "$out"
check "blocksize preset: its source is removed" [ "$(ls -d "$TMPDIR"/benchtop-exp.* 2>/dev/null | wc -l)" = 0 ]
# a preset of several runs ends with one table, one row per run
printf 'description = two reads\nargs = -w read:path=%s,bs=64k\nargs = -w read:path=%s,bs=1m\n' "$F" "$F" \
	>"$XDG_CONFIG_HOME/benchtop/presets/two.preset"
out=$("$BENCHTOP" --preset two --format json 2>/dev/null)
check "a two-run preset: one end record with a two-row table" \
	jqs '[.[] | select(.type == "end")] | length == 1 and (.[0].experiment.rows | length) == 2'
check "a two-run preset: from disk and test columns" \
	jqs '[.[] | select(.type == "end")][0].experiment.rows | all(has("from disk") and has("test") and has("MiB/s"))'

# 6. SIGINT ends the whole experiment, not only the cell that is running.
# (The commands' durations are this script's own, 31.PID and 33.PID s:
# another suite's sleep on the machine is not taken for them.)
s31="^sleep 31[.]$$\$"
"$BENCHTOP" --matrix placement=pack,free,spread --cell 25 -- sleep "31.$$" >"$E2E_TMP/int.out" 2>&1 &
pid=$!
wait_for 30 pgrep -f "$s31" >/dev/null   # the first cell is running
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit 0 (rc $rc)" [ $rc = 0 ]
one_cell() { [ "$(grep -Ec "^(pack|free|spread) +as-is" "$1")" = 1 ] && grep -q "stopped by" "$1"; }
check "SIGINT: one cell, then it says it stopped" one_cell "$E2E_TMP/int.out"
one_cell "$E2E_TMP/int.out" || sed 's/^/# int.out: /' "$E2E_TMP/int.out" | head -20
check "SIGINT: no workload left" bash -c '! pgrep -f "$1" >/dev/null' _ "$s31"

# 7. SIGTERM in a governor matrix on the fake tree: the cell ends (its
# governor restored, its command gone), then the experiment, with its
# records; the cell ran in benchtop's own process, no process per step.
s33="^sleep 33[.]$$\$"
"$BENCHTOP" --sysfs "$T" --matrix governor=performance,powersave --cell 25 -o "$E2E_TMP/term.jsonl" \
	-- sleep "33.$$" >"$E2E_TMP/term.out" 2>&1 &
pid=$!
wait_for 30 pgrep -f "$s33" >/dev/null
sp=$(pgrep -f "$s33" | head -1)
check "SIGTERM: the step's command is benchtop's own child (no process per step)" \
	[ "$(ps -o ppid= -p "$sp" | tr -d ' ')" = "$pid" ]
check "SIGTERM: the cell runs under its governor" grep -qx performance "$G0"
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM: exit 0 (rc $rc)" [ $rc = 0 ]
check "SIGTERM: governors back to ondemand" \
	bash -c 'for f in "$1"/devices/system/cpu/cpufreq/policy*/scaling_governor; do [ "$(cat "$f")" = ondemand ] || exit 1; done' _ "$T"
check "SIGTERM: no command left" bash -c '! pgrep -f "$1" >/dev/null' _ "$s33"
check "SIGTERM: the record has the start, one step and the end saying so" \
	jqs '[.[] | select(.type == "start" or .type == "step" or .type == "end") | .type] == ["start","step","end"] and
	     (.[-1].experiment.notes | any(test("stopped by")))' "$E2E_TMP/term.jsonl"

finish

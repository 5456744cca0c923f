#!/usr/bin/env bash
# Batch mode end to end: command workloads, JSON Lines, text/CSV, exit
# status, signals and no child left behind.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
T=$E2E_TMP

# A 256 MiB file copied by cp: every line is JSON, bytes >= size, identical.
head -c $((256 << 20)) /dev/urandom > "$T/A"
"$BENCHTOP" -b --format json -i 0.1 -- cp "$T/A" "$T/B" > "$T/cp.jsonl" 2> "$T/cp.err"
rc=$?
check "cp: exit 0" [ $rc = 0 ]
check "cp: every line parses as JSON" quiet jq -e . "$T/cp.jsonl"
check "cp: start record" [ "$(jq -r 'select(.type=="start") | .version' "$T/cp.jsonl")" = 1 ]
check "cp: sample records" [ "$(jq -r 'select(.type=="sample") | .t' "$T/cp.jsonl" | wc -l)" -ge 1 ]
end_bytes=$(jq -r 'select(.type=="end") | .summary[0].bytes' "$T/cp.jsonl")
check "cp: end bytes ($end_bytes) >= file size" [ "${end_bytes:-0}" -ge $((256 << 20)) ]
check "cp: files identical" cmp -s "$T/A" "$T/B"
check "cp: start lists the workload" [ "$(jq -r 'select(.type=="start") | .workloads[0].kind' "$T/cp.jsonl")" = cmd ]
check "cp: samples carry cpus, disk and workloads" \
	quiet jq -se 'map(select(.type=="sample")) | length > 0 and all((.cpus[0] | has("user") and has("idle") and has("khz") and has("governor")) and (.disk | has("dirty") and has("writeback")) and (.workloads[0] | has("bytes") and has("state")))' "$T/cp.jsonl"
check "cp: summary on stderr" grep -q 'elaps' "$T/cp.err"
rm -f "$T/B"

# rsync runs several processes: at least two rsync PIDs are tracked.
if command -v rsync >/dev/null; then
	head -c $((64 << 20)) /dev/urandom > "$T/R"
	"$BENCHTOP" -b --format json -i 0.05 -- sh -c "rsync '$T/R' '$T/R2'; sleep 0.3" > "$T/rs.jsonl" 2>/dev/null
	n=$(jq -r 'select(.type=="sample") | .procs[] | select(.comm=="rsync") | .pid' "$T/rs.jsonl" | sort -u | wc -l)
	check "rsync: $n rsync PIDs tracked (>= 2)" [ "$n" -ge 2 ]
	check "rsync: copy identical" cmp -s "$T/R" "$T/R2"
else
	skip "rsync not installed"
fi

# Text and CSV: a header and one line per interval.
"$BENCHTOP" -b -i 0.1 -t 1 -- sleep 5 > "$T/text.out" 2>/dev/null
check "text: header" grep -q '^ *t ' "$T/text.out"
# the sample lines: up to the blank line before the summary
lines=$(awk '/^$/ { exit } /^ *[0-9]+\.[0-9]+ / { n++ } END { print n + 0 }' "$T/text.out")
# one line per tick: never more than the 10 ticks of 1 s and the last
# sample (taken after the run stopped), none earlier than the one before
check "text: one line per tick ($lines lines in 1 s at 0.1 s)" sh -c '[ "$1" -ge 1 ] && [ "$1" -le 11 ]' _ "$lines"
check "text: t of each line never goes back" awk '/^$/ { exit } /^ *[0-9]+\.[0-9]+ / { if ($1 + 0 < last) exit 1; last = $1 + 0 }' "$T/text.out"
check "text: summary table" grep -q 'hog' "$T/text.out"
"$BENCHTOP" -b --format csv -i 0.1 -t 0.5 -- sleep 5 > "$T/csv.out" 2>/dev/null
check "csv: header row" grep -q '^t,write_MiB/s' "$T/csv.out"
cols=$(head -1 "$T/csv.out" | awk -F, '{print NF}')
bad=$(awk -F, -v c="$cols" 'NF != c' "$T/csv.out" | wc -l)
check "csv: every row has $cols columns" [ "$bad" = 0 ]

# Exit status follows the command; a failure is reported.
"$BENCHTOP" -b -- sh -c 'exit 3' > /dev/null 2> "$T/fail.err"
check "failing command: exit 1" [ $? = 1 ]
check "failing command: reason printed" grep -q 'status 3' "$T/fail.err"
"$BENCHTOP" -b -- /nonexistent/prog > /dev/null 2> "$T/noprog.err"
check "missing program: exit 1" [ $? = 1 ]
check "missing program: named" grep -q 'nonexistent' "$T/noprog.err"

# Bad command lines: exit 2, the offending word named.
"$BENCHTOP" -b --interval 0 -- true > /dev/null 2> "$T/bad.err"
check "bad interval: exit 2" [ $? = 2 ]
"$BENCHTOP" --bogus > /dev/null 2> "$T/bad.err"
rc=$?; check "unknown option: exit 2 naming it (rc $rc)" sh -c '[ "$1" = 2 ] && grep -q bogus "$2"' _ "$rc" "$T/bad.err"
"$BENCHTOP" -b -w copy:src=x,frobs=1 > /dev/null 2> "$T/bad.err"
rc=$?; check "unknown key: exit 2 naming it (rc $rc)" sh -c '[ "$1" = 2 ] && grep -q frobs "$2"' _ "$rc" "$T/bad.err"
"$BENCHTOP" -b --cpus 9 -- true > /dev/null 2> "$T/bad.err"
rc=$?; check "--cpus out of range: exit 2 naming it (rc $rc)" sh -c '[ "$1" = 2 ] && grep -q 9 "$2"' _ "$rc" "$T/bad.err"

# The record file is never overwritten without --force.
echo keep > "$T/rec.jsonl"
"$BENCHTOP" -b -o "$T/rec.jsonl" -- true > /dev/null 2>&1
check "-o existing file: exit 3" [ $? = 3 ]
check "-o existing file: untouched" [ "$(cat "$T/rec.jsonl")" = keep ]
"$BENCHTOP" -b -t 0.5 -o "$T/rec2.jsonl" -- sleep 2 > /dev/null 2>&1
check "-o: records parse" quiet jq -e . "$T/rec2.jsonl"
check "-o: end record" [ "$(jq -r 'select(.type=="end") | .type' "$T/rec2.jsonl")" = end ]

# SIGTERM during a long run: benchtop exits, no child remains.
for sig in TERM INT HUP; do
	"$BENCHTOP" -b -- sh -c 'sleep 100 & sleep 100 & wait' > "$T/sig.out" 2>&1 &
	bt=$!
	# both sleeps started (their shell and they are the children to check)
	two_sleeps() { [ "$(for p in $(descendants $bt); do cat /proc/$p/comm 2>/dev/null; done | grep -cx sleep)" -ge 2 ]; }
	wait_for 30 two_sleeps || fail "SIG$sig: the workload's sleeps never started"
	kids=$(descendants $bt)
	kill -$sig $bt
	wait_for 10 sh -c "! kill -0 $bt 2>/dev/null"
	wait $bt 2>/dev/null
	check "SIG$sig: benchtop exited" sh -c "! kill -0 $bt 2>/dev/null"
	left=""
	for k in $kids; do kill -0 "$k" 2>/dev/null && left="$left $k"; done
	check "SIG$sig: no child left (${kids//$'\n'/ })" [ -z "$left" ]
	check "SIG$sig: summary printed" grep -q 'elaps' "$T/sig.out"
done

# Duration: -t stops a long command and exits 0.
"$BENCHTOP" -b -t 1 -- sleep 30 > /dev/null 2>&1
check "duration ends the run with exit 0" [ $? = 0 ]

# Attach: follows a running process, does not kill it.
sleep 30 &
sp=$!
"$BENCHTOP" -b --format json -t 1 --attach $sp > "$T/att.jsonl" 2>/dev/null
check "attach: exit 0" [ $? = 0 ]
check "attach: process tracked" quiet jq -se "[.[] | select(.type==\"sample\") | .procs[] | select(.pid==$sp)] | length > 0" "$T/att.jsonl"
check "attach: process still alive" kill -0 $sp
kill $sp

# A sample benchtop could not take in time says so: benchtop is stopped
# for a second once it has printed two samples (the stop is the fixture,
# nothing is timed): the next sample is late by most of that second.
"$BENCHTOP" -b --format json -i 0.1 -t 30 -- sleep 60 > "$T/late.jsonl" 2> "$T/late.err" &
bp=$!
two_samples() { [ "$(grep -c '"type":"sample"' "$T/late.jsonl")" -ge 2 ]; }
if wait_for 20 two_samples; then
	kill -STOP $bp
	sleep 1
	kill -CONT $bp
	# (the line being written may be cut: jq reads what came before it)
	late_seen() { jq -r 'select(.type=="sample") | .late' "$T/late.jsonl" 2>/dev/null | awk '$1 >= 0.5 { f = 1 } END { exit !f }'; }
	check "late: the sample after a stop says it came late" wait_for 20 late_seen
	echo "# late samples [t, late]: $(jq -c 'select(.type=="sample" and .late > 0) | [.t, .late]' "$T/late.jsonl" 2>/dev/null | tr '\n' ' ')"
	check "late: standard error says which sample came late" wait_for 5 grep -q 'came [0-9.]* s late' "$T/late.err"
	check "late: every sample carries it, 0 or more seconds" sh -c "jq -r 'select(.type==\"sample\") | .late' '$T/late.jsonl' 2>/dev/null | awk '\$1 !~ /^[0-9.e+-]+\$/ || \$1 < 0 { exit 1 } { n++ } END { exit n < 2 }'"
else
	fail "late: benchtop printed no samples"
fi
kill $bp 2>/dev/null
wait $bp 2>/dev/null

# benchtop raises its own soft descriptor limit (it holds /proc files of
# every tracked process); the command it starts gets the user's
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -gt 1024 ]; then
	( ulimit -Sn 1024; "$BENCHTOP" -b -t 30 -- sh -c "ulimit -Sn > '$T/lim.cmd'; sleep 2" >/dev/null 2>&1 ) &
	lp=$!
	# (the subshell may have exec'd benchtop itself)
	lim_bt() { local b=$lp; [ "$(cat /proc/$lp/comm 2>/dev/null)" = benchtop ] || b=$(pgrep -P "$lp" -x benchtop) &&
		awk '/^Max open files/ { print $4 }' "/proc/$b/limits"; }
	wait_for 20 sh -c "[ -s '$T/lim.cmd' ]"
	bl=$(lim_bt)
	wait $lp
	check "descriptor limit: the command gets the user's soft limit ($(cat "$T/lim.cmd" 2>/dev/null))" \
		grep -qx 1024 "$T/lim.cmd"
	want=$(( hard > 1048576 ? 1048576 : hard ))   # (raised at most to 2^20)
	check "descriptor limit: benchtop's own is raised to the hard one (${bl:-?} of $want)" [ "${bl:-0}" = "$want" ]
else
	skip "descriptor limit: the hard limit here is $hard"
fi

finish

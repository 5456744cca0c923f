#!/usr/bin/env bash
# studies.sh - the classic studies at small sizes (--cell): each ends with
# one table in its own layout, parsed from the JSON end record with every
# column in every row; the cache is honest (bonnie's block read comes from
# the disk after eviction); aligntest shows the misaligned rewrite; the
# copytools table has four rows; rsync-demo runs its placements without
# cpufreq and its 3 x 3 cells on a fake tree; --report draws the tables.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"
cd "$E2E_TMP" || exit 1

export XDG_RUNTIME_DIR=$E2E_TMP/run XDG_CONFIG_HOME=$E2E_TMP/config TMPDIR=$E2E_TMP HOME=$E2E_TMP
mkdir -p "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME"
[ -x "$BENCHTOP" ] || skip_all "$BENCHTOP is not built"

# jqe FILTER FILE: FILTER holds for the JSON Lines in FILE.
# table_ok FILE ROWS: one end record whose table has ROWS rows, each with
# every column, a note and a from_cache list.
table_ok() {
	jq -se --argjson n "$2" '[.[] | select(.type == "end")] | length == 1 and
		(.[0].experiment as $x | ($x.rows | length) == $n and
		 ([$x.rows[] as $r | $x.columns[].key as $k | $r | has($k)] | all) and
		 ([$x.rows[] | has("note") and has("from_cache")] | all))' "$1" >/dev/null
}
# The device under the test directory, if any (tmpfs and overlay have none).
dev=$(findmnt -n -o SOURCE -T "$E2E_TMP" 2>/dev/null)
real_disk=false
[ -b "$dev" ] && real_disk=true

# 1. copytools: four rows, rsync, cpio -p, cp, cat (or "not installed").
"$BENCHTOP" --preset copytools --cell 8M --format json >"$E2E_TMP/ct.json" 2>"$E2E_TMP/ct.err"
rc=$?
check "copytools: exit 0 (rc $rc)" [ $rc = 0 ]
check "copytools: one table of four rows, every column present" table_ok "$E2E_TMP/ct.json" 4
check "copytools: the seed's columns" \
	jqe '[.[] | select(.type == "end")][0].experiment.columns | map(.key) == ["user","sys","elaps","hog","MiB/s","from disk","test"]' "$E2E_TMP/ct.json"
check "copytools: rsync, cpio -p, cp, cat" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | map(.test) == ["rsync","cpio -p","cp","cat"]' "$E2E_TMP/ct.json"
check "copytools: each installed tool copied the file (rate > 0), a missing one says so" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | all((."MiB/s" > 0) or (.note == "not installed"))' "$E2E_TMP/ct.json"
if [ "$(id -u)" = 0 ]; then
	check "copytools as root: the title says cold cache" \
		jqe '[.[] | select(.type == "end")][0].experiment.title | test("cold cache")' "$E2E_TMP/ct.json"
else
	check "copytools as a user: the title says warm cache" \
		jqe '[.[] | select(.type == "end")][0].experiment.title | test("warm cache")' "$E2E_TMP/ct.json"
fi
check "copytools: no copy left behind" bash -c '! ls -d "$1"/benchtop-exp.* 2>/dev/null' _ "$E2E_TMP"
# a missing tool is a row saying so: a PATH without cpio and rsync
mkdir -p "$E2E_TMP/bin"
for p in sh cp cat sync; do ln -sf "$(command -v $p)" "$E2E_TMP/bin/$p"; done
PATH=$E2E_TMP/bin "$BENCHTOP" --preset copytools --cell 1M --format csv >"$E2E_TMP/ct2.csv" 2>"$E2E_TMP/ct2.err"
check "copytools csv: a header of the seed's columns and four rows" \
	bash -c '[ "$(head -1 "$1")" = "user,sys,elaps,hog,MiB/s,from disk,test,note" ] && [ "$(wc -l <"$1")" = 5 ]' _ "$E2E_TMP/ct2.csv"
check "copytools without rsync and cpio: their rows say not installed, cp and cat ran" \
	bash -c 'grep -q "^,,,,,,rsync,not installed$" "$1" && grep -q "^,,,,,,cpio -p,not installed$" "$1" &&
	         grep -Eq "^[0-9.]+,.*,cp,$" "$1" && grep -Eq "^[0-9.]+,.*,cat,$" "$1"' _ "$E2E_TMP/ct2.csv"

# 2. bonnie: one line in bonnie's layout; every figure a number or "too short".
drop=
[ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ] && drop=--drop-caches
"$BENCHTOP" --preset bonnie --cell 16M $drop --format json -o "$E2E_TMP/bonnie.jsonl" >"$E2E_TMP/bonnie.json" 2>"$E2E_TMP/bonnie.err"
rc=$?
check "bonnie: exit 0 (rc $rc)" [ $rc = 0 ]
check "bonnie: one row, every column present" table_ok "$E2E_TMP/bonnie.json" 1
check "bonnie: K/sec and %CPU for the five tests, /sec for seeks, from disk for the reads" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows[0] | has("per-char write K/sec") and has("block write %CPU")
		and has("rewrite from disk") and has("per-char read K/sec") and has("block read from disk") and has("seeks /sec")' \
	"$E2E_TMP/bonnie.json"
check "bonnie: each rate is a number or too short, never a number from a sub-second test" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows[0] as $r |
		["per-char write","block write","rewrite","per-char read","block read"] |
		all(. as $g | ($r[$g + " K/sec"] | type == "number" or . == "too short"))' "$E2E_TMP/bonnie.json"
check "bonnie: every test lasted a second in all (repeated when short)" \
	jqe '[.[] | select(.type == "step")] | group_by(.test | sub(", run [0-9]+$"; "")) |
		all((map(.elapsed) | add) >= 1 or length == 16)' "$E2E_TMP/bonnie.json"
check "bonnie: the rewrite rewrote the file in place (it read it whole)" \
	jqe '[.[] | select(.type == "step" and (.test | startswith("bonnie rewrite")))] | all(.bytes == 16777216)' "$E2E_TMP/bonnie.json"
if ! $real_disk; then
	skip "bonnie from disk: $E2E_TMP is on $(findmnt -n -o FSTYPE -T "$E2E_TMP") with no block device"
elif [ -z "$drop" ]; then
	skip "bonnie from disk: not root, caches cannot be dropped"
elif ! jqe '[.[] | select(.type == "end")][0].experiment.rows[0]["block read K/sec"] | type == "number"' "$E2E_TMP/bonnie.json"; then
	skip "bonnie from disk: block read of 16 MiB was too short on this machine even when repeated"
else
	check "bonnie: block read after eviction came from the disk (> 50%)" \
		jqe '[.[] | select(.type == "end")][0].experiment.rows[0]["block read from disk"] > 0.5' "$E2E_TMP/bonnie.json"
fi
check "bonnie: the recording holds the same end record" \
	bash -c 'cmp <(jq -c "select(.type == \"end\") | .experiment" "$1") <(jq -c "select(.type == \"end\") | .experiment" "$2")' \
	_ "$E2E_TMP/bonnie.jsonl" "$E2E_TMP/bonnie.json"
"$BENCHTOP" --report "$E2E_TMP/bonnie.jsonl" -o "$E2E_TMP/bonnie.html" 2>/dev/null
# bars only for figures that are numbers ("too short" has none)
nbars=$(jq -s '[.[] | select(.type == "end")][0].experiment.rows[0] | [to_entries[] | select((.key | test("K/sec$")) and (.value | type == "number"))] | length' "$E2E_TMP/bonnie.json")
check "bonnie report: the table with bonnie's headings and a bar chart ($nbars bars)" \
	bash -c 'grep -q "<table class=\"study\">" "$1" && grep -q "colspan=\"3\" class=\"g\">block read<" "$1" &&
	         [ "$2" -ge 1 ] && [ "$(grep -c "<rect x=\"240\"" "$1")" -ge 1 ]' _ "$E2E_TMP/bonnie.html" "$nbars"
"$BENCHTOP" --preset bonnie --cell 2s >/dev/null 2>"$E2E_TMP/bad.err"
rc=$?
check "bonnie with a time cell: exit 2, says it takes a size (rc $rc)" \
	bash -c '[ $1 = 2 ] && grep -q "takes a size" "$2"' _ $rc "$E2E_TMP/bad.err"

# 3. aligntest: four rows; the misaligned rewrite is slow, the aligned not.
"$BENCHTOP" --preset aligntest --cell 8M --format json >"$E2E_TMP/al.json" 2>"$E2E_TMP/al.err"
rc=$?
check "aligntest: exit 0 (rc $rc)" [ $rc = 0 ]
check "aligntest: four rows, every column present" table_ok "$E2E_TMP/al.json" 4
check "aligntest: bs 8192 and 5000, 1 copy and 5" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | map("\(.bs)x\(.copies)") == ["8192x1","5000x1","8192x5","5000x5"]' "$E2E_TMP/al.json"
# How much slower the misaligned rewrite is depends on the disk and on
# what else the machine does: a speed, not a fact make check can hold to
# (it is printed here).  That every row has a factor, a ratio of two
# measured times, is.
echo "# aligntest factors (bs x copies: factor): $(jq -sr '[.[] | select(.type == "end")][0].experiment.rows | map("\(.bs)x\(.copies): \(.factor)") | join(", ")' "$E2E_TMP/al.json" 2>/dev/null)"
check "aligntest: every row has a factor, a positive number" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | all(.factor | type == "number" and . > 0)' "$E2E_TMP/al.json"

# 4. blocksize: 13 rows, the file described as it is, the fitted costs.
"$BENCHTOP" --preset blocksize --cell 4M --format json >"$E2E_TMP/bs.json" 2>"$E2E_TMP/bs.err"
rc=$?
check "blocksize: exit 0 (rc $rc)" [ $rc = 0 ]
check "blocksize: 13 rows, 16 B to 64 KiB, every column present" table_ok "$E2E_TMP/bs.json" 13
check "blocksize: the header names the 4 MiB file it reads" \
	jqe '[.[] | select(.type == "end")][0].experiment.title | test("a 4 MiB file")' "$E2E_TMP/bs.json"
check "blocksize: each step read the whole file" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | all(."MiB read" == 4)' "$E2E_TMP/bs.json"
check "blocksize: fixed cost per call and cost per KiB fitted" \
	jqe '[.[] | select(.type == "end")][0].experiment.notes | any(test("fixed cost of -?[0-9.]+ us per call and -?[0-9.]+ us per KiB"))' "$E2E_TMP/bs.json"
check "blocksize: rows read from the cache are marked so" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | any(.from_cache == ["from disk"])' "$E2E_TMP/bs.json"

# 5. rsync-demo without cpufreq: the placements, and why no frequencies.
"$BENCHTOP" --preset rsync-demo --cell 4M --sysfs "$E2E_TMP/nosys" >"$E2E_TMP/rd.txt" 2>&1
rc=$?
check "rsync-demo without cpufreq: exit 0 (rc $rc)" [ $rc = 0 ]
check "rsync-demo without cpufreq: three placement rows" [ "$(grep -Ec '^ *[0-9.]+ +[0-9]+ +(pack|free|spread) ' "$E2E_TMP/rd.txt")" = 3 ]
check "rsync-demo without cpufreq: says why the frequency columns are missing" \
	grep -q "frequency columns are left out: no cpufreq" "$E2E_TMP/rd.txt"
# on a fake tree: 3 x 3 cells, sorted by throughput, governors restored
T=$E2E_TMP/sys
"$ROOT/tests/fakesys.sh" "$T" --cpus 2 --governor ondemand
"$BENCHTOP" --preset rsync-demo --cell 2M --sysfs "$T" --format json -o "$E2E_TMP/rd.jsonl" >"$E2E_TMP/rd.json" 2>"$E2E_TMP/rd.err"
rc=$?
check "rsync-demo on a fake tree: exit 0 (rc $rc)" [ $rc = 0 ]
check "rsync-demo: nine cells, every column present" table_ok "$E2E_TMP/rd.json" 9
check "rsync-demo: the study's layout first: throughput, #CPUs, frequency" \
	jqe '[.[] | select(.type == "end")][0].experiment.columns | map(.key)[0:3] == ["throughput MiB/s","#CPUs","frequency"]' "$E2E_TMP/rd.json"
check "rsync-demo: pack/free/spread x powersave/ondemand/performance" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | (map(.placement) | unique) == ["free","pack","spread"] and
		(map(.governor) | unique) == ["ondemand","performance","powersave"]' "$E2E_TMP/rd.json"
check "rsync-demo: sorted by throughput" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | map(."throughput MiB/s") | . == (sort | reverse)' "$E2E_TMP/rd.json"
check "rsync-demo: residency per CPU in each cell" \
	jqe '[.[] | select(.type == "end")][0].experiment.rows | all(."residency per CPU" | test("^0:.*; 1:"))' "$E2E_TMP/rd.json"
check "rsync-demo: governors back to ondemand" \
	bash -c 'for f in "$1"/devices/system/cpu/cpufreq/policy*/scaling_governor; do [ "$(cat "$f")" = ondemand ] || exit 1; done' _ "$T"
"$BENCHTOP" --report "$E2E_TMP/rd.jsonl" -o "$E2E_TMP/rd.html" 2>/dev/null
check "rsync-demo report: a heat map of placement x governor" \
	bash -c '[ "$(grep -c "<rect x=\"[0-9]*\" y=\"[0-9]*\" width=\"130\" height=\"34\"" "$1")" = 9 ]' _ "$E2E_TMP/rd.html"
# each cell's marker names its placement and governor: its set-up events
# keep their lines (named on hover), not a second label saying the same
check "rsync-demo report: the cells' governor events not labelled twice" \
	bash -c '! grep -q ">gov \(powersave\|ondemand\|performance\)</text>" "$1" &&
	         [ "$(grep -c "<title>governor at [0-9.]* s: gov " "$1")" -ge 9 ] &&
	         [ "$(grep -c "<title>step at [0-9.]* s</title>\([0-9.]* s \)*rsync-demo placement=[a-z]* governor=[a-z]*<" "$1")" = 9 ]' \
	_ "$E2E_TMP/rd.html"
# without rsync: the built-in pipe engine, and the table says so
PATH=$E2E_TMP/bin "$BENCHTOP" --preset rsync-demo --cell 2M --sysfs "$E2E_TMP/nosys" >"$E2E_TMP/rd2.txt" 2>&1
check "rsync-demo without rsync: the built-in pipe engine, said in the title" \
	bash -c 'grep -q "built-in 3-process pipe engine (rsync is not installed)" "$1" &&
	         [ "$(grep -Ec "^ *[0-9.]+ +[0-9]+ +(pack|free|spread) " "$1")" = 3 ]' _ "$E2E_TMP/rd2.txt"

finish

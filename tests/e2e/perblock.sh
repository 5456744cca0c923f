#!/usr/bin/env bash
# perblock.sh - per-block overhead between two sources, and tables that
# agree with their notes: a sweep over two read sources prints both rows
# per bs with delta us/call (the difference of the two us/call), each step
# reading its whole source; us/call counts the calls only (below the
# step's elapsed per call); a character device with --cell SIZE ends and
# leaves nothing in /dev; from disk is never above 100%; a matrix over a
# command does not claim an eviction; banners follow --cell; rows carry
# identifier keys with numbers; rsync-demo's residency on a fake cpufreq
# tree (tests/fake_kernel.sh playing the kernel) is its governor's.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"
need_benchtop
own_dirs
cd "$E2E_TMP" || exit 1
X='[.[] | select(.type == "end")][0].experiment'

# 1. Two read sources: both rows per bs, and the delta between them.
head -c 2097152 /dev/zero >A
head -c 2097152 /dev/urandom >B
"$BENCHTOP" --sweep bs=4k:16k -w read:path="$E2E_TMP/A" -w read:path="$E2E_TMP/B" --format json >two.json 2>two.err
rc=$?
check "two sources: exit 0 (rc $rc)" [ $rc = 0 ]
check "two sources: both rows per bs, A then B" \
	jqe "$X"' | .rows | map([.bs, .source]) == [[4096,"'"$E2E_TMP"'/A"],[4096,"'"$E2E_TMP"'/B"],[8192,"'"$E2E_TMP"'/A"],[8192,"'"$E2E_TMP"'/B"],[16384,"'"$E2E_TMP"'/A"],[16384,"'"$E2E_TMP"'/B"]]' two.json
check "two sources: delta us/call is B's us/call minus A's, none on A's rows" \
	jqe "$X"' | .rows as $r | [0, 2, 4] | all(($r[.]["delta us/call"] == null) and
		(($r[. + 1]["delta us/call"] - ($r[. + 1]["us/call"] - $r[.]["us/call"])) | fabs < 1e-4))' two.json
check "two sources: six steps, one source each, each reading it whole" \
	jqe '[.[] | select(.type == "step")] | length == 6 and all(.bytes == 2097152)' two.json
check "two sources: a fit per source and the delta explained" \
	jqe "$X"' | .notes | (map(select(test("^fit of "))) | length == 2) and any(test("delta us/call"))' two.json
check "us/call counts the calls only: us/call x calls is less than each step's elapsed (no set-up)" \
	jqe '[.[] | select(.type == "step")] as $s | [.[] | select(.type == "end")][0].experiment.rows as $r |
		[range(6)] | all(($r[.]["us/call"] * $r[.].calls / 1e6) < $s[.].elapsed)' two.json
"$BENCHTOP" --sweep bs=4k:8k -w read:path="$E2E_TMP/A" -- true >/dev/null 2>mix.err
rc=$?
check "a sweep over a read and a command: exit 2 naming it (rc $rc)" bash -c '[ $1 = 2 ] && grep -q "not a read" "$2"' _ $rc mix.err

# 2. A character device with --cell SIZE ends (bounded by timeout: a run
#    that would not end is a failure, not a hang); nothing goes to /dev.
before=$(ls -d /dev/benchtop* 2>/dev/null | wc -l)
timeout 300 "$BENCHTOP" --sweep bs=4k:8k -w read:path=/dev/urandom --cell 1M --format json >dev.json 2>dev.err
rc=$?
check "sweep of /dev/urandom with --cell 1M: ends, exit 0 (rc $rc)" [ $rc = 0 ]
check "sweep of /dev/urandom: each step read 1 MiB" jqe '[.[] | select(.type == "step")] | length == 2 and all(.bytes == 1048576)' dev.json
check "sweep of /dev/urandom: from disk does not apply (null)" jqe "$X"' | .rows | all(."from disk" == null)' dev.json
timeout 300 "$BENCHTOP" --preset blocksize -w read:path=/dev/urandom --cell 256k --format json >devbs.json 2>devbs.err
rc=$?
check "blocksize over /dev/urandom with --cell 256k: ends, exit 0 (rc $rc)" [ $rc = 0 ]
check "blocksize over /dev/urandom: 13 steps of 256 KiB from the device" \
	jqe '[.[] | select(.type == "step")] | length == 13 and all(.bytes == 262144)' devbs.json
check "blocksize over /dev/urandom: the title names the device" jqe "$X"' | .title | test("/dev/urandom")' devbs.json
check "nothing of benchtop's in /dev" [ "$(ls -d /dev/benchtop* 2>/dev/null | wc -l)" = "$before" ]

# 3. Notes that agree with the rows.
"$BENCHTOP" --preset aligntest --cell 4M --format json >al.json 2>/dev/null
check "aligntest: from disk never above 100%" jqe "$X"' | .rows | all((."from disk" // 0) <= 1)' al.json
"$BENCHTOP" --preset bonnie --cell 8M --format json >bo.json 2>/dev/null
check "bonnie: from disk never above 100%" \
	jqe "$X"' | .rows[0] | to_entries | map(select(.key | endswith("from disk")) | .value // 0) | all(. <= 1)' bo.json
"$BENCHTOP" --matrix placement=pack,free --cell 0.5s -- sh -c 'echo hi >/dev/null' >mx.txt 2>/dev/null
check "matrix over a command: no claim that a file was evicted" \
	bash -c '! grep -q "evicted before" mx.txt && grep -q "nothing evicted" mx.txt'
"$BENCHTOP" --preset copytools --cell 1M >ct.txt 2>/dev/null
check "copytools banner follows --cell 1M" bash -c 'head -1 ct.txt | grep -q "one 1 MiB file" && ! head -1 ct.txt | grep -q "2 GiB"'
"$BENCHTOP" --preset blocksize --cell 128k --format json >bs.json 2>/dev/null
check "blocksize: the fit note counts the rows it fitted" \
	jqe "$X"' | (.rows | length) as $n | .notes | any(test("over \($n) steps"))' bs.json
check "blocksize: rows marked from cache are the ones the note says are read from the cache" \
	jqe "$X"' | .rows | any(.note == "from cache, on purpose") and
	          all((."from disk" < 0.5) == (.note == "from cache, on purpose"))' bs.json
check "experiment JSON: every column has an identifier, every row numeric values under it" \
	jqe "$X"' | (.columns | all(.id | test("^[a-z_][a-z0-9_]*$"))) and (.rows | all(.values.us_call | type == "number"))' bs.json

# 4. rsync-demo on a fake cpufreq tree: each cell's residency is its governor's
#    (fake_kernel.sh: powersave the lowest frequency, performance the highest).
T=$E2E_TMP/sys
"$ROOT/tests/fakesys.sh" "$T" --cpus 2 --governor ondemand >/dev/null
fake_kernel_start "$T" 600
fk=$FAKE_KERNEL
"$BENCHTOP" --preset rsync-demo --cell 64M -i 0.1 --sysfs "$T" --format json >rd.json 2>rd.err
rc=$?
kill $fk 2>/dev/null
wait $fk 2>/dev/null
check "rsync-demo on a fake tree: exit 0 (rc $rc)" [ $rc = 0 ]
check "rsync-demo: residency as numbers (seconds per kHz per CPU) in every row" \
	jqe "$X"' | .rows | length == 9 and all(.residency | type == "object" and (to_entries | all(.value | to_entries | all(.value | type == "number"))))' rd.json
check "rsync-demo: in every cell most of the time is at its governor's frequency" \
	jqe "$X"' | .rows | all(. as $row | ($row.residency | [.[] | to_entries[]] | group_by(.key) |
		map({key: .[0].key, s: (map(.value) | add)}) | max_by(.s).key) as $top |
		($row.governor | if . == "powersave" then "800000" elif . == "performance" then "2600000" else "1600000" end) == $top)' rd.json
check "rsync-demo: governors back to ondemand" \
	bash -c 'for f in "$1"/devices/system/cpu/cpufreq/policy*/scaling_governor; do [ "$(cat "$f")" = ondemand ] || exit 1; done' _ "$T"
finish

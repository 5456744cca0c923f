#!/usr/bin/env bash
# compare.sh - results compiled across machines: every start record
# carries a machine object whose facts match what the system says from
# outside (/proc/meminfo, uname, nproc, findmnt, the disk's scheduler; the
# caches of a fake sysfs tree), live runs and experiments alike; --compare
# prints the machines side by side and one table per kind of result with
# ratios to the first row (checked against the recordings' own rates),
# says when machines, kinds or tests differ, and writes csv, json and an
# HTML page; bad files exit 2 or 3.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"
need_benchtop
own_dirs
cd "$E2E_TMP" || exit 1
M='[.[] | select(.type == "start")][0].machine'

# 1. The machine object of a live run, against the system's own answers,
# with the same file system also mounted read-only elsewhere (a bind
# mount, as other runs on the machine may make): the mount the path is
# under is the one described.
mkdir -p "$E2E_TMP/view"
if mount --bind "$E2E_TMP" "$E2E_TMP/view" 2>/dev/null; then
	E2E_MOUNTS+=("$E2E_TMP/view")
	mount -o remount,bind,ro "$E2E_TMP/view" 2>/dev/null
fi
"$BENCHTOP" -b -o a.jsonl -w write:path="$E2E_TMP",size=16M,bs=64k >/dev/null 2>a.err
rc=$?
check "a live run records (rc $rc)" [ $rc = 0 ]
mem=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))
model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
check "machine: memory is MemTotal in bytes ($mem)" jqe "$M.memory == $mem" a.jsonl
check "machine: kernel is uname -r" jqe "$M.kernel == \"$(uname -r)\"" a.jsonl
check "machine: cpus is nproc's" jqe "$M.cpus == $(nproc --all 2>/dev/null || nproc)" a.jsonl
if [ -n "$model" ]; then
	check "machine: cpu_model as /proc/cpuinfo names it" jqe "$M.cpu_model == \"$model\"" a.jsonl
else
	check "machine: no model name in /proc/cpuinfo, cpu_model from another key or null" \
		jqe "$M | has(\"cpu_model\")" a.jsonl
fi
. /etc/os-release 2>/dev/null
check "machine: os is os-release's PRETTY_NAME" jqe "$M.os == \"${PRETTY_NAME:-}\"" a.jsonl
fstype=$(findmnt -n -o FSTYPE -T "$E2E_TMP")
check "machine: the disk under the workload's path has findmnt's type ($fstype)" \
	jqe "$M.disks | map(select(.path == \"$E2E_TMP\")) | length == 1 and .[0].fstype == \"$fstype\"" a.jsonl
opts=$(findmnt -n -o VFS-OPTIONS -T "$E2E_TMP" | cut -d, -f1)
check "machine: its mount options start as findmnt's ($opts)" \
	jqe "$M.disks[0].mount_options | startswith(\"$opts\")" a.jsonl
src=$(findmnt -n -o SOURCE -T "$E2E_TMP")
if [ -b "$src" ]; then
	dev=$(basename "$(readlink -f "$src")")
	check "machine: the device is findmnt's source ($dev)" jqe "$M.disks[0].device == \"$dev\"" a.jsonl
	disk=$(basename "$(readlink -f "/sys/class/block/$dev/..")")
	[ -e "/sys/class/block/$dev/partition" ] || disk=$dev
	sched=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$disk/queue/scheduler" 2>/dev/null)
	rot=$(cat "/sys/block/$disk/queue/rotational" 2>/dev/null)
	[ -n "$sched" ] && check "machine: the disk's scheduler is sysfs's ($sched)" jqe "$M.disks[0].scheduler == \"$sched\"" a.jsonl
	[ -n "$rot" ] && check "machine: rotational as sysfs says ($rot)" \
		jqe "$M.disks[0].rotational == $([ "$rot" = 1 ] && echo true || echo false)" a.jsonl
else
	skip "machine device: $E2E_TMP has no block device under it"
fi

# 2. Caches from a fake sysfs tree (in bytes), and the experiment's start.
fake=$E2E_TMP/sys
mkdir -p "$fake"/devices/system/cpu/cpu0/cache/index{0,1,2}
printf '1\n' >"$fake/devices/system/cpu/cpu0/cache/index0/level"
printf 'Data\n' >"$fake/devices/system/cpu/cpu0/cache/index0/type"
printf '32K\n' >"$fake/devices/system/cpu/cpu0/cache/index0/size"
printf '1\n' >"$fake/devices/system/cpu/cpu0/cache/index1/level"
printf 'Instruction\n' >"$fake/devices/system/cpu/cpu0/cache/index1/type"
printf '64K\n' >"$fake/devices/system/cpu/cpu0/cache/index1/size"
printf '2\n' >"$fake/devices/system/cpu/cpu0/cache/index2/level"
printf 'Unified\n' >"$fake/devices/system/cpu/cpu0/cache/index2/type"
printf '1024K\n' >"$fake/devices/system/cpu/cpu0/cache/index2/size"
"$BENCHTOP" --sysfs "$fake" --preset blocksize --cell 64k -o s1.jsonl >/dev/null 2>s1.err
rc=$?
check "an experiment records (rc $rc)" [ $rc = 0 ]
check "machine in an experiment's start: the fake tree's caches in bytes" \
	jqe "$M.caches == [{\"level\":1,\"type\":\"Data\",\"size\":32768},{\"level\":1,\"type\":\"Instruction\",\"size\":65536},{\"level\":2,\"type\":\"Unified\",\"size\":1048576}]" s1.jsonl
"$BENCHTOP" --preset blocksize --cell 64k -o s2.jsonl >/dev/null 2>&1

# 3. --compare two runs of the same test: a row each, the ratio of rates.
"$BENCHTOP" -b -o b.jsonl -w write:path="$E2E_TMP",size=16M,bs=64k >/dev/null 2>&1
want=$(jq -sr '[.[] | select(.type == "end")] as $e | $e[0].summary[0].bps' b.jsonl)
base=$(jq -sr '[.[] | select(.type == "end")][0].summary[0].bps' a.jsonl)
ratio=$(awk -v a="$want" -v b="$base" 'BEGIN { printf "%.2fx", a / b }')
"$BENCHTOP" --compare a.jsonl b.jsonl >cmp.txt 2>cmp.err
rc=$?
check "compare: exit 0 (rc $rc)" [ $rc = 0 ]
check "compare: the machines' facts side by side, a column per file" \
	bash -c 'grep -Eq "^fact +a\.jsonl +b\.jsonl" cmp.txt && grep -Eq "^memory " cmp.txt && grep -Eq "^kernel " cmp.txt && grep -Eq "^disks " cmp.txt'
check "compare: one machine: the facts agree" grep -q "the machines agree in every fact shown" cmp.txt
check "compare: a row per recording with its host, the first at 1.00x, the second at $ratio" \
	bash -c 'h=$(hostname); grep -Eq "^a\.jsonl +$h +write .* 1\.00x$" cmp.txt && grep -Eq "^b\.jsonl +$h +write .* $1$" cmp.txt' _ "$ratio"
"$BENCHTOP" --compare a.jsonl b.jsonl --format json >cmp.json 2>/dev/null
check "compare json: ratios are numbers, the second the rates' ratio" \
	jq -e --argjson w "$want" --argjson b "$base" '.tables[0].rows | (.[0].ratio == 1) and ((.[1].ratio - $w / $b) | fabs < 1e-6)' cmp.json >/dev/null
check "compare json: each file's machine object as recorded (numbers stay numbers)" \
	jq -e '.files | length == 2 and (.[0].machine.memory | type == "number") and (.[0].host | type == "string")' cmp.json >/dev/null
"$BENCHTOP" --compare a.jsonl b.jsonl --format csv >cmp.csv 2>/dev/null
check "compare csv: the machines then the summary table" \
	bash -c 'head -1 cmp.csv | grep -q "^fact,a.jsonl,b.jsonl,note$" && grep -q "^file,host,test,MiB/s,elaps,ratio,note$" cmp.csv'

# 4. Differences are said: another machine, other kinds of result.
jq -c 'if .type == "start" then .machine.cpu_model = "Another CPU" | .host = "elsewhere" else . end' b.jsonl >c.jsonl
"$BENCHTOP" --compare a.jsonl c.jsonl >cmp2.txt 2>/dev/null
check "compare: a machine with another CPU is named in the note" grep -q "the machines differ in: cpu_model" cmp2.txt
check "compare: its rows carry its host" grep -Eq "^c\.jsonl +elsewhere " cmp2.txt
"$BENCHTOP" --compare a.jsonl s1.jsonl s2.jsonl --format json >cmp3.json 2>/dev/null
check "compare: a summary and a study make two tables, the study's rows from both recordings" \
	jq -e '.tables | length == 2 and .[0].study == "summary" and .[1].study == "blocksize" and (.[1].rows | length == 26)' cmp3.json >/dev/null
check "compare: the differing kinds are said" \
	jq -e '.tables[0].notes | any(test("different kinds"))' cmp3.json >/dev/null
check "compare: the study's ratio is each row over the first recording's same row" \
	jq -e '.tables[1].rows as $r | [range(13)] | all($r[.].ratio == 1 and (($r[13 + .].ratio - $r[13 + .]["MiB/s"] / $r[.]["MiB/s"]) | fabs < 1e-6))' cmp3.json >/dev/null

# 5. The HTML page; never over a file without --force; bad input.
"$BENCHTOP" --compare a.jsonl b.jsonl -o cmp.html >/dev/null 2>&1
rc=$?
check "compare -o cmp.html: a page with the tables and bars (rc $rc)" \
	bash -c '[ $1 = 0 ] && grep -q "<table" cmp.html && grep -q "<svg" cmp.html && grep -q "a.jsonl" cmp.html' _ $rc
"$BENCHTOP" --compare a.jsonl b.jsonl -o cmp.html >/dev/null 2>cmp4.err
rc=$?
check "compare -o an existing file: exit 3 without --force (rc $rc)" bash -c '[ $1 = 3 ] && grep -q "force" cmp4.err' _ $rc
"$BENCHTOP" --compare a.jsonl b.jsonl -o cmp.svg >/dev/null 2>cmp5.err
rc=$?
check "compare -o cmp.svg: exit 2 saying .html (rc $rc)" bash -c '[ $1 = 2 ] && grep -q "html" cmp5.err' _ $rc
echo 'not json' >bad.jsonl
"$BENCHTOP" --compare a.jsonl bad.jsonl >/dev/null 2>cmp6.err
rc=$?
check "compare a file that is not a recording: exit 2 naming it (rc $rc)" bash -c '[ $1 = 2 ] && grep -q "bad.jsonl" cmp6.err' _ $rc
"$BENCHTOP" --compare a.jsonl missing.jsonl >/dev/null 2>cmp7.err
rc=$?
check "compare a missing file: exit 3 naming it (rc $rc)" bash -c '[ $1 = 3 ] && grep -q "missing.jsonl" cmp7.err' _ $rc
finish

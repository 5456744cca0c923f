#!/usr/bin/env bash
# safety.sh - nothing lost, no one let in, nothing hangs: --force never
# replaces a device node or FIFO; a link another user planted is replaced,
# never followed (-o of a run, of an experiment, --report, --metrics); a
# recording on a file system that fills, or a full standard output, is
# reported once, naming it, with a non-zero exit; infinite numbers in a
# recording are refused; FIFOs as theme, config or sysfs files do not
# block; benchtop does not attach to itself.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh

T=$E2E_TMP
export TMPDIR=$T/tmpdir
mkdir -p "$TMPDIR"
MOUNTS=()
OTHER=
cleanup() {
	for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
	[ -n "$OTHER" ] && userdel -f "$OTHER" 2>/dev/null
	e2e_cleanup
}
trap cleanup EXIT
bt() { timeout 60 "$BENCHTOP" "$@"; }
is_root() { [ "$(id -u)" = 0 ]; }

# ---- --force and nodes that are not regular files --------------------------

if is_root; then
	mknod "$T/null" c 1 3 && mknod "$T/blk" b 7 250 && mkfifo "$T/fifo"
	bt -b -t 2 -w "write:path=$T/null,size=1M" --force > /dev/null 2> "$T/n.err"; rc=$?
	check "write path= a char device with --force: exit 3 ($rc), named" \
		sh -c "[ $rc = 3 ] && grep -q 'null.*character device' '$T/n.err'"
	check "... the node is still a char device" test -c "$T/null"
	echo data > "$T/src"
	bt -b -t 2 -w "copy:src=$T/src,dst=$T/blk" --force > /dev/null 2> "$T/b.err"; rc=$?
	check "copy dst= a block device with --force: exit 3 ($rc), named" \
		sh -c "[ $rc = 3 ] && grep -q 'blk.*block device' '$T/b.err'"
	check "... the node is still a block device" test -b "$T/blk"
	bt -b -t 2 -w "copy:src=$T/src,dst=$T/fifo" --force > /dev/null 2> "$T/f.err"; rc=$?
	check "copy dst= a FIFO with --force: exit 3 ($rc), named" \
		sh -c "[ $rc = 3 ] && grep -q 'fifo.*FIFO' '$T/f.err'"
	check "... the FIFO is still a FIFO" test -p "$T/fifo"
	bt -b -t 2 -w "read:path=$T/blk,update=10" --force > /dev/null 2> "$T/u.err"; rc=$?
	check "read update= into a block device: exit 3 ($rc)" [ $rc = 3 ]
	bt -b -t 0.3 -o "$T/blk" --force -- true > /dev/null 2> "$T/ob.err"; rc=$?
	check "-o a block device with --force: exit 3 ($rc), named" \
		sh -c "[ $rc = 3 ] && grep -q 'blk.*block device' '$T/ob.err'"
	check "... still a block device" test -b "$T/blk"
else
	skip "device nodes need root (mknod)"
fi
# A FIFO or /dev/null as -o is written in place, not replaced.
mkfifo "$T/rec.fifo"
timeout 30 cat "$T/rec.fifo" > "$T/fifo.got" &
reader=$!
wait_for 10 sh -c "grep -q rec.fifo /proc/$reader/cmdline 2>/dev/null"
bt -b -t 0.5 -i 0.1 -o "$T/rec.fifo" -- sleep 2 > /dev/null 2> "$T/rf.err"; rc=$?
wait $reader
check "-o FIFO: exit 0 ($rc)" [ $rc = 0 ]
check "-o FIFO: the reader got the records (end last)" \
	sh -c "jq -e . '$T/fifo.got' > /dev/null && [ \"\$(tail -1 '$T/fifo.got' | jq -r .type)\" = end ]"
check "-o FIFO: still a FIFO" test -p "$T/rec.fifo"
bt -b -t 0.3 -o "$T/rec.fifo" -- true > /dev/null 2> "$T/nr.err"; rc=$?
check "-o FIFO without a reader: exit 3 ($rc), says so, no wait" \
	sh -c "[ $rc = 3 ] && grep -q 'without a reader' '$T/nr.err'"
n=$(bt -b -t 0.3 -i 0.1 -o /dev/stdout -- true 2>/dev/null | grep -c '^{"type":"end"')
check "-o /dev/stdout: the records come out on the pipe ($n end record), /dev/stdout still a link" \
	sh -c "[ '$n' = 1 ] && [ -L /dev/stdout ]"
if [ -c /dev/null ]; then
	bt -b -t 0.3 -o /dev/null --force -- true > /dev/null 2>&1; rc=$?
	check "-o /dev/null --force: exit 0 ($rc), /dev/null still a char device" \
		sh -c "[ $rc = 0 ] && [ -c /dev/null ]"
fi

# ---- links planted by another user ----------------------------------------

if is_root && command -v useradd > /dev/null; then
	OTHER=btsafe$$
	if useradd -M -N -s /bin/sh "$OTHER" 2>/dev/null; then
		S=$T/shared
		mkdir -p "$S" && chmod 1777 "$S"
		chmod 755 "$T"
		victim=$T/victim
		echo precious > "$victim"
		chmod 644 "$victim"
		plant() { rm -f "$S/$1"; su -s /bin/sh "$OTHER" -c "ln -s '$victim' '$S/$1'"; }
		owner_is_other() { [ "$(stat -c %U "$S/$1")" = "$OTHER" ]; }
		plant run.jsonl
		check "the other user's link is planted" owner_is_other run.jsonl
		bt -b -t 0.5 -o "$S/run.jsonl" --force -- true > /dev/null 2> "$T/l.err"; rc=$?
		check "-o planted link --force: exit 0 ($rc)" [ $rc = 0 ]
		check "-o planted link: the victim is untouched" [ "$(cat "$victim")" = precious ]
		check "-o planted link: the name is now benchtop's regular file with the run" \
			sh -c "[ ! -L '$S/run.jsonl' ] && [ -f '$S/run.jsonl' ] && [ \"\$(tail -1 '$S/run.jsonl' | jq -r .type)\" = end ]"
		plant run.jsonl
		bt -b -t 0.5 -o "$S/run.jsonl" -- true > /dev/null 2> "$T/l2.err"; rc=$?
		check "-o planted link without --force: exit 3 ($rc), victim untouched" \
			sh -c "[ $rc = 3 ] && [ \"\$(cat '$victim')\" = precious ] && [ -L '$S/run.jsonl' ]"
		plant sweep.jsonl
		mkdir -p "$T/d" && head -c 256k /dev/urandom > "$T/d/in"
		bt -w "read:path=$T/d/in" --sweep bs=4k:8k -o "$S/sweep.jsonl" --force > /dev/null 2> "$T/sw.err"; rc=$?
		check "experiment -o planted link --force: exit 0 ($rc), victim untouched" \
			sh -c "[ $rc = 0 ] && [ \"\$(cat '$victim')\" = precious ] && [ ! -L '$S/sweep.jsonl' ] && jq -e . '$S/sweep.jsonl' > /dev/null"
		plant out.svg
		bt -b -t 0.3 -o "$T/own.jsonl" -- true > /dev/null 2>&1
		bt --report "$T/own.jsonl" -o "$S/out.svg" --force > /dev/null 2>&1; rc=$?
		check "--report -o planted link --force: exit 0 ($rc), victim untouched" \
			sh -c "[ $rc = 0 ] && [ \"\$(cat '$victim')\" = precious ] && [ ! -L '$S/out.svg' ] && grep -q '<svg' '$S/out.svg'"
		plant m.prom
		bt -b -t 0.5 -i 0.1 --metrics "$S/m.prom" --keep --force -- true > /dev/null 2>&1; rc=$?
		check "--metrics planted link --force: exit 0 ($rc), victim untouched" \
			sh -c "[ $rc = 0 ] && [ \"\$(cat '$victim')\" = precious ] && [ ! -L '$S/m.prom' ]"
		check "no temporary file left in the shared directory" \
			sh -c "! ls -A '$S' | grep -q tmp"
	else
		skip "useradd refused: no second user for the link checks"
	fi
else
	skip "planted links need root (a second user)"
fi

# ---- recordings that cannot be written --------------------------------------

M=$T/small
mkdir -p "$M"
if is_root && mount -t tmpfs -o size=256k tmpfs "$M" 2>/dev/null; then
	MOUNTS+=("$M")
	# fills mid-run: the tmpfs is filled from outside once lines are there
	"$BENCHTOP" -b -i 0.1 -t 60 -o "$M/rec.jsonl" -- sleep 90 > "$T/mid.out" 2> "$T/mid.err" &
	pid=$!
	wait_for 20 sh -c "[ \$(wc -l 2>/dev/null < '$M/rec.jsonl' || echo 0) -ge 3 ]"
	dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null
	wait_for 20 grep -q 'rec.jsonl' "$T/mid.err"
	kill -TERM $pid 2>/dev/null
	wait $pid; rc=$?
	check "recording fills mid-run: exit 3 ($rc)" [ $rc = 3 ]
	check "... said once, naming the file" [ "$(grep -c "$M/rec.jsonl" "$T/mid.err")" = 1 ]
	check "... the summary is still printed" grep -q 'sleep' "$T/mid.out"
	check "... what was written is whole lines of JSON" \
		sh -c "[ -s '$M/rec.jsonl' ] && jq -e . '$M/rec.jsonl' > /dev/null && [ \"\$(tail -c 1 '$M/rec.jsonl' | od -An -c | tr -d ' ')\" = '\\n' ]"
	# full from the start
	rm -f "$M/rec.jsonl"
	dd if=/dev/zero of="$M/fill2" bs=4k 2>/dev/null
	bt -b -i 0.1 -t 0.5 -o "$M/full.jsonl" -- sleep 2 > "$T/full.out" 2> "$T/full.err"; rc=$?
	check "recording on a full file system: exit 3 ($rc), named once" \
		sh -c "[ $rc = 3 ] && [ \$(grep -c '$M/full.jsonl' '$T/full.err') = 1 ]"
	check "... summary still printed" grep -q 'sleep' "$T/full.out"
	check "... no temporary file left" sh -c "! ls -A '$M' | grep -q tmp"
	# an experiment's record
	rm -f "$M/full.jsonl"
	dd if=/dev/zero of="$M/fill3" bs=512 2>/dev/null   # what that freed, filled again
	head -c 128k /dev/urandom > "$T/in"
	bt -w "read:path=$T/in" --sweep bs=4k:8k -o "$M/sw.jsonl" > "$T/swf.out" 2> "$T/swf.err"; rc=$?
	check "experiment record on a full file system: exit 3 ($rc), named once, table printed" \
		sh -c "[ $rc = 3 ] && [ \$(grep -c '$M/sw.jsonl' '$T/swf.err') = 1 ] && grep -q 'MiB/s' '$T/swf.out'"
else
	skip "a small tmpfs needs root (mount)"
fi
if [ -c /dev/full ]; then
	bt -b -i 0.1 -t 0.5 -o "$T/withfull.jsonl" -- sleep 2 > /dev/full 2> "$T/sf.err"; rc=$?
	check "standard output full: exit 3 ($rc), said once" \
		sh -c "[ $rc = 3 ] && [ \$(grep -c 'standard output' '$T/sf.err') = 1 ]"
	check "... the summary goes to standard error" grep -q 'sleep' "$T/sf.err"
	check "... the recording is kept whole (end record)" \
		sh -c "[ \"\$(tail -1 '$T/withfull.jsonl' | jq -r .type)\" = end ]"
else
	skip "no /dev/full"
fi

# ---- nothing hangs ----------------------------------------------------------

bt -b -t 0.3 -i 0.1 -o "$T/good.jsonl" -- true > /dev/null 2>&1
mkdir -p "$T/rep"
{ head -n -1 "$T/good.jsonl"; echo '{"type":"end","t":1e999,"summary":[]}'; } > "$T/inf.jsonl"
bt --report "$T/inf.jsonl" -o "$T/rep/out.svg" > /dev/null 2> "$T/inf.err"; rc=$?
line=$(wc -l < "$T/inf.jsonl")
check "--report of t 1e999: exit 2 ($rc), named as file:line:col" \
	sh -c "[ $rc = 2 ] && grep -Eq 'inf.jsonl:$line:[0-9]+:.*(range|infin)' '$T/inf.err'"
check "... no output and no temporary file left" [ -z "$(ls -A "$T/rep")" ]
sed -n 1p "$T/good.jsonl" | sed 's/"interval":[0-9.]*/"interval":-1e400/' > "$T/inf2.jsonl"
bt --replay "$T/inf2.jsonl" -b > /dev/null 2> "$T/inf2.err"; rc=$?
check "--replay of -1e400: exit 2 ($rc), line 1 named" sh -c "[ $rc = 2 ] && grep -q 'inf2.jsonl' '$T/inf2.err'"

mkfifo "$T/x.theme"
bt -b -t 0.3 --theme "$T/x.theme" -- true > /dev/null 2> "$T/th.err"; rc=$?
check "a FIFO as --theme: refused ($rc), not opened for long" \
	sh -c "[ $rc = 2 ] && grep -q 'not a regular file' '$T/th.err'"
mkdir -p "$XDG_CONFIG_HOME/benchtop/themes"
mkfifo "$XDG_CONFIG_HOME/benchtop/themes/pipe.theme"
bt -b -t 0.3 --theme pipe -- true > /dev/null 2> "$T/th2.err"; rc=$?
check "a FIFO in the themes directory: refused ($rc)" \
	sh -c "[ $rc = 2 ] && grep -q 'not a regular file' '$T/th2.err'"
rm -f "$XDG_CONFIG_HOME/benchtop/themes/pipe.theme"
mkfifo "$XDG_CONFIG_HOME/benchtop/config"
bt -b -t 0.3 -- true > /dev/null 2> "$T/cf.err"; rc=$?
check "a FIFO as the config file: refused ($rc), named" \
	sh -c "[ $rc != 0 ] && [ $rc != 124 ] && grep -q 'config' '$T/cf.err'"
rm -f "$XDG_CONFIG_HOME/benchtop/config"
bash tests/fakesys.sh "$T/sys" --cpus 2
g=$T/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq
rm -f "$g" && mkfifo "$g"
bt -b -t 0.5 -i 0.1 --sysfs "$T/sys" -- true > /dev/null 2> "$T/sy.err"; rc=$?
check "a FIFO in the --sysfs tree: the run ends ($rc, not 124 from the timeout)" [ $rc != 124 ]
a=$T/sys/devices/system/cpu/cpufreq/policy1/scaling_governor
rm -f "$a" && mkfifo "$a"
bt -b -t 0.5 -i 0.1 --sysfs "$T/sys" --governor performance -- true > /dev/null 2> "$T/sg.err"; rc=$?
check "a FIFO as a scaling_governor with --governor: ends ($rc, not 124)" [ $rc != 124 ]

timeout 20 sh -c 'exec "$0" -b -t 1 --attach $$' "$BENCHTOP" > /dev/null 2> "$T/self.err"; rc=$?
check "--attach of benchtop's own PID: exit 2 ($rc), says so" \
	sh -c "[ $rc = 2 ] && grep -q 'benchtop itself' '$T/self.err'"
bt -b -t 1 --attach $$ > /dev/null 2> "$T/anc.err"; rc=$?
check "--attach of an ancestor: exit 2 ($rc), says so" \
	sh -c "[ $rc = 2 ] && grep -q 'ancestor' '$T/anc.err'"

# ---- broken recordings are refused or drawn, never read out of bounds -----

{ printf '\0{"type":"start"}\n'; cat "$T/good.jsonl"; } > "$T/nul.jsonl"
bt --report "$T/nul.jsonl" -o "$T/rep/nul.svg" > /dev/null 2> "$T/nul.err"; rc=$?
check "a recording line starting with NUL: exit 2 ($rc), named, no sanitizer report" \
	sh -c "[ $rc = 2 ] && grep -q 'nul.jsonl' '$T/nul.err' && ! grep -q 'Sanitizer' '$T/nul.err'"
jq -c 'if .type == "sample" then .cpus |= map(.user = 1e300 | .system = 1e300) else . end' \
	"$T/good.jsonl" > "$T/huge.jsonl"
tm_start huge 120x40 "sh -c '\"$BENCHTOP\" --replay \"$T/huge.jsonl\" 2> \"$T/huge.err\"; echo rc=\$? > \"$T/huge.rc\"'"
if wait_for 30 sh -c "tm_screen() { tmux capture-pane -p -t bt$$-huge; }; tm_screen | grep -q 'end of recording'"; then
	tm_keys huge q
	wait_for 20 test -s "$T/huge.rc"
	check "a replay of CPU shares of 1e300: drawn, quits with 0" grep -q 'rc=0' "$T/huge.rc"
else
	fail "a replay of CPU shares of 1e300 did not reach its end: $(cat "$T/huge.err" 2>/dev/null | head -3)"
fi
tm_kill huge

finish

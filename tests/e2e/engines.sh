#!/usr/bin/env bash
# engines.sh - benchtop's own workloads through the real binary in batch
# mode: every copy engine copies exactly, write/rewrite/read/seek/jobs run
# and leave nothing behind (or keep it with --keep), a dst that exists is
# refused (exit 3, untouched) unless --force, a small tmpfs shows the
# free-space refusal (exit 3) and a disk that fills mid-run (exit 1, no
# partial file), and SIGTERM mid-write leaves no scratch dir and no child.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh

T=$E2E_TMP
export TMPDIR=$T/tmpdir
mkdir -p "$TMPDIR"

# bt ARGS...: run benchtop in batch with a time limit; output in $T/out.
bt() { timeout 120 "$BENCHTOP" -b -t 60 "$@" >"$T/out" 2>&1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
empty_dir() { [ -z "$(ls -A "$1")" ]; }

if [ ! -x "$BENCHTOP" ]; then
	skip_all "$BENCHTOP not built"
fi
bt -w copy:src=/dev/null,dst="$T/probe"
if grep -qi 'not supported\|not implemented' "$T/out"; then
	skip "this benchtop does not run workloads yet: $(head -1 "$T/out")"
	finish
	exit
fi
rm -f "$T/probe"

# ---- every copy engine, on an odd size ----
head -c 3000001 /dev/urandom >"$T/src"
for e in rw cfr sendfile splice mmap pipe,procs=2 pipe,procs=3; do
	name=${e//[,=]/-}
	bt -w "copy:src=$T/src,dst=$T/dst-$name,engine=$e,bs=4k"
	rc=$?
	check "copy engine=$e exits 0" [ $rc = 0 ]
	check "copy engine=$e: dst identical" cmp -s "$T/src" "$T/dst-$name"
done
bt -w "copy:src=$T/src,dst=$T/dst-direct,direct,bs=8k"
rc=$?
check "copy direct exits 0" [ $rc = 0 ]
check "copy direct: dst identical" cmp -s "$T/src" "$T/dst-direct"

# ---- write, rewrite, char, read, seek, jobs ----
mkdir -p "$T/wdir"
bt -w "write:path=$T/wdir,size=8M,pattern=rewrite,bs=5000"
check "rewrite bs=5000 exits 0" [ $? = 0 ]
check "rewrite: invented file removed" empty_dir "$T/wdir"
bt -w "write:path=$T/wdir,size=8M,pattern=rewrite,bs=8192"
check "rewrite bs=8192 exits 0" [ $? = 0 ]
check "rewrite bs=8192: invented file removed" empty_dir "$T/wdir"
bt --keep -w "write:path=$T/wdir,size=8M,pattern=rewrite,bs=5000"
check "--keep keeps the invented file" \
	bash -c "[ \$(ls '$T/wdir' | wc -l) = 1 ] && [ \$(stat -c %s '$T/wdir'/*) = 8388608 ]"
rm -f "$T/wdir"/*

bt -w "write:path=$T/chars,size=300k,unit=char"
check "write unit=char exits 0" [ $? = 0 ]
check "write unit=char: the named file stays, 300 KiB" [ "$(stat -c %s "$T/chars" 2>/dev/null)" = 307200 ]
bt -w "read:path=$T/chars,unit=char"
check "read unit=char exits 0" [ $? = 0 ]
bt -w "read:path=$T/src,bs=64k"
check "read bs=64k exits 0" [ $? = 0 ]
bt -w "seek:path=$T/src,seekers=3,count=200"
check "seek seekers=3 exits 0" [ $? = 0 ]
bt -w "write:path=$T/wdir,size=2M,jobs=3"
check "write jobs=3 exits 0" [ $? = 0 ]
check "write jobs=3: files removed" empty_dir "$T/wdir"
rm -rf "${TMPDIR:?}"/*     # what the --keep run above kept
bt -w "write:size=2M,jobs=3"
check "write jobs=3 in scratch exits 0" [ $? = 0 ]
check "scratch directory removed" empty_dir "$TMPDIR"

# ---- the user's files ----
head -c 12345 /dev/urandom >"$T/precious"
before=$(sha "$T/precious")
bt -w "copy:src=$T/src,dst=$T/precious"
rc=$?
check "dst exists: exit 3" [ $rc = 3 ]
check "dst exists: message names it" grep -q "$T/precious" "$T/out"
check "dst exists: contents unchanged" [ "$(sha "$T/precious")" = "$before" ]
bt --force -w "copy:src=$T/src,dst=$T/precious"
check "--force: exit 0" [ $? = 0 ]
check "--force: dst replaced by the copy" cmp -s "$T/src" "$T/precious"

# ---- a small tmpfs ----
mkdir -p "$T/small"
if mount -t tmpfs -o size=8m tmpfs "$T/small" 2>/dev/null; then
	bt -w "write:path=$T/small,size=16M"
	rc=$?
	check "write bigger than the tmpfs: exit 3" [ $rc = 3 ]
	check "write bigger than the tmpfs: says how much it needs" grep -q "16.0 MiB" "$T/out"
	check "write bigger than the tmpfs: nothing left" empty_dir "$T/small"
	# their needs add up: refused before either writes
	bt -w "write:path=$T/small,size=5M" -w "write:path=$T/small,size=5M"
	rc=$?
	check "two writes filling the tmpfs: refused, exit 3" [ $rc = 3 ]
	check "two writes filling the tmpfs: the reason is shown" grep -q "10.0 MiB" "$T/out"
	check "two writes filling the tmpfs: no partial file" empty_dir "$T/small"
	umount -l "$T/small"
else
	skip "cannot mount a tmpfs here"
fi
mkdir -p "$T/ram"
if mount -t ramfs ramfs "$T/ram" 2>/dev/null; then
	bt -w "write:path=$T/ram,size=1M,direct,bs=4k"
	rc=$?
	check "direct on ramfs: exit 3" [ $rc = 3 ]
	check "direct on ramfs: names the file system" grep -q "ramfs.*O_DIRECT" "$T/out"
	umount -l "$T/ram"
fi

# ---- SIGTERM mid-write ----
rm -rf "${TMPDIR:?}"/*
timeout 120 "$BENCHTOP" -b -w "write:size=4G,bs=4k,sync=each" >"$T/term" 2>&1 &
bpid=$!
if wait_for 20 bash -c "ls -d '$TMPDIR'/benchtop.* >/dev/null 2>&1 && [ -n \"\$(ps -o pid= --ppid $bpid)\" ]"; then
	kids=$(descendants $bpid | tr '\n' ' ')
	kill -TERM $bpid
	wait $bpid
	alive=""
	for k in $kids; do
		# the timeout wrapper is the parent; benchtop itself is a child of it
		kill -0 "$k" 2>/dev/null && alive="$alive $k"
	done
	check "SIGTERM mid-write: no child left" [ -z "$alive" ]
	check "SIGTERM mid-write: scratch directory removed" empty_dir "$TMPDIR"
else
	kill -TERM $bpid 2>/dev/null
	wait $bpid
	fail "SIGTERM mid-write: the write never started ($(head -3 "$T/term"))"
fi

# An engine is a fork of benchtop: it holds its standard descriptors, its
# files and its pipe, none of benchtop's (held /proc files, its records)
timeout 120 "$BENCHTOP" -b -t 60 -o "$T/fds.jsonl" -w "write:size=4G,bs=4k,sync=each" >/dev/null 2>&1 &
bpid=$!
# (timeout's child is benchtop; the engine benchtop's)
eng_fds() {
	local b e
	b=$(ps -o pid= --ppid $bpid | tr -d ' ' | head -1) && [ -n "$b" ] &&
		e=$(ps -o pid= --ppid "$b" | tr -d ' ' | head -1) && [ -n "$e" ] &&
		[ "$(cat /proc/$e/comm 2>/dev/null)" != benchtop ] &&
		ls -l /proc/$e/fd 2>/dev/null | grep -q 'bt-write\|benchtop\.' &&
		ls -l "/proc/$e/fd" > "$T/eng.fds" 2>/dev/null && [ -s "$T/eng.fds" ] &&
		ls -l "/proc/$b/fd" > "$T/bt.fds" 2>/dev/null
}
if wait_for 20 eng_fds; then
	check "engine: benchtop holds /proc files and its record ($(grep -c ' /proc/' "$T/bt.fds") /proc)" \
		sh -c "grep -q ' /proc/' '$T/bt.fds' && grep -q 'fds.jsonl' '$T/bt.fds'"
	check "engine: holds none of benchtop's ($(awk 'NR > 1 { print $NF }' "$T/eng.fds" | tr '\n' ' '))" \
		sh -c "! grep -qE ' /proc/|fds\.jsonl|socket:' '$T/eng.fds'"
else
	fail "engine: no write engine seen with its file open"
fi
kill -TERM $bpid 2>/dev/null
wait $bpid

finish

#!/usr/bin/env bash
# leftbehind.sh - nothing a run makes is lost track of: --restore removes
# a killed run's cgroup with the groups below it and names what it ended;
# --restore --sysfs takes journals that changed no policy; --loop
# restarts, x and r leave no old process group in the journal, an
# attach + pause + exit no paused entry; a failed --loop pass keeps the
# user's dst, and a source that shrinks under --loop is reported by every
# engine; two benchtops with different XDG_RUNTIME_DIRs on one sysfs tree
# see each other's claims (running or killed), so the original governor
# comes back; a scratch file left on a file system shut down after EIO is
# reported and kept in the journal until --restore removes it.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
need_benchtop
own_dirs
T=$E2E_TMP
J=$XDG_RUNTIME_DIR/benchtop
PIDS=()
MNT=""
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -n "$MNT" ] && umount -l "$MNT" 2>/dev/null
	"$BENCHTOP" --restore >/dev/null 2>&1
	e2e_cleanup
}
trap cleanup EXIT

has_cgroup2() { grep -q cgroup2 /proc/mounts; }
cgroup_of() { find /sys/fs/cgroup -maxdepth 3 -type d -name "benchtop.$1" 2>/dev/null | head -1; }
pgid_lines() { local n; n=$(grep -cs '^pgid ' "$J/journal.$1"); echo "${n:-0}"; }
# failed_in JSONL: a sample there shows the (only) workload failed.  A
# failed workload is not restarted under --loop, but the run goes on to
# -t: the test ends it with SIGTERM once the failure is seen.
failed_in() { jq -s -e '[.[] | select(.type == "sample") | .workloads[0].state] | index("failed")' "$1" >/dev/null 2>&1; }
mark=7400   # durations mark+N.PID: only this script's processes have them

# ---- 1. --restore: a cgroup tree, named processes ----------------------
if has_cgroup2; then
	s=$((mark + 1)).$$
	"$BENCHTOP" -b -t 60 -- sh -c "setsid sleep $s & sleep $s" >/dev/null 2>&1 &
	pid=$!
	wait_for 10 bash -c "[ \$(pgrep -c -f '^sleep $s\$') = 2 ]" || fail "restore: workload not running"
	cg=$(cgroup_of $pid)
	check "restore: the run's cgroup has a workload group below it" test -d "$cg/w1"
	kill -9 $pid
	wait $pid 2>/dev/null
	out=$("$BENCHTOP" --restore 2>&1)
	rc=$?
	check "restore: exit 0 (rc $rc)" [ $rc = 0 ]
	check "restore: the cgroup and the group below it are gone" test ! -e "$cg"
	check "restore: no process of the run left (setsid'd too)" wait_for 5 bash -c "! pgrep -f '^sleep $s\$' >/dev/null"
	check "restore: it names the processes it ended" grep -q "ended 2 processes ([0-9]* sleep, [0-9]* sleep) in cgroup $cg and removed it with the 1 group below it" <<<"$out"
	check "restore: the journal is gone" test ! -e "$J/journal.$pid"
else
	skip "no cgroup2 here"
fi

# ---- 2. --restore --sysfs takes a journal with no sysfs line -------------
FS=$T/sys
bash tests/fakesys.sh "$FS" --cpus 2 >/dev/null
s=$((mark + 2)).$$
"$BENCHTOP" -b -t 60 -- sleep $s >/dev/null 2>&1 &
pid=$!
wait_for 10 pgrep -f "^sleep $s\$" >/dev/null || fail "sysfs: workload not running"
kill -9 $pid
wait $pid 2>/dev/null
check "sysfs: the journal has no sysfs line" bash -c "! grep -q '^sysfs ' '$J/journal.$pid'"
out=$("$BENCHTOP" --restore --sysfs "$FS" 2>&1)
rc=$?
check "sysfs: --restore --sysfs exits 0 (rc $rc)" [ $rc = 0 ]
check "sysfs: it took the journal" test ! -e "$J/journal.$pid"
check "sysfs: the process is ended" wait_for 5 bash -c "! pgrep -f '^sleep $s\$' >/dev/null"

# ---- 3. --loop restarts leave no old process group in the journal -------
"$BENCHTOP" -b -t 60 --loop -w "cmd:run=sleep 0.05" --format json >"$T/loop.jsonl" 2>/dev/null &
pid=$!
runs() { jq -s '[.[] | select(.type == "sample") | .workloads[0].passes // 0] | max // 0' "$T/loop.jsonl" 2>/dev/null; }
check "loop: the command restarts at least 10 times" wait_for 30 bash -c "[ \"\$(jq -s '[.[] | select(.type == \"sample\") | .workloads[0].passes // 0] | max // 0' '$T/loop.jsonl' 2>/dev/null)\" -ge 10 ]"
n=$(pgid_lines $pid)
kill -9 $pid
wait $pid 2>/dev/null
check "loop: at most one process group in the journal after $(runs) runs ($n)" [ "$n" -le 1 ]
"$BENCHTOP" --restore >/dev/null 2>&1

# ---- 4. x and r in the dashboard --------------------------------------
s=$((mark + 4)).$$
tm_start xr 120x40 "$BENCHTOP -- sleep $s"
check "x/r: the workload runs" wait_for 10 pgrep -f "^sleep $s\$" >/dev/null
pid=$(bt_main "^$BENCHTOP -- sleep $s")
# r is refused while the stop is still being reaped (the sleep leaves
# pgrep's view as a zombie, before that): pressed until the sleep is back.
# The journal's group line is written once the exec is seen and dropped
# once the reap is done: both waited for.
# (r restarts a running workload too: pressed again only once a press
# has had 3 s to show)
xr_running() { pgrep -f "^sleep $s\$" >/dev/null; }
xr_restart() {
	local i
	for _ in 1 2 3 4 5 6; do
		tm_keys xr r
		for i in $(seq 30); do xr_running && return 0; sleep 0.1; done
	done
	return 1
}
pgid_is() { [ "$(pgid_lines "$1")" = "$2" ]; }
for k in 1 2 3; do
	tm_keys xr x
	wait_for 10 bash -c "! pgrep -f '^sleep $s\$' >/dev/null" || fail "x/r: x did not stop it (round $k)"
	xr_restart || fail "x/r: r did not restart it (round $k)"
done
wait_for 10 pgid_is $pid 1
n=$(pgid_lines $pid)
check "x/r: one process group in the journal after 3 restarts ($n)" [ "$n" = 1 ]
tm_keys xr x
wait_for 10 bash -c "! pgrep -f '^sleep $s\$' >/dev/null"
wait_for 10 pgid_is $pid 0
n=$(pgid_lines $pid)
check "x/r: none once it is stopped ($n)" [ "$n" = 0 ]
tm_keys xr q
wait_for 10 ended "$pid"
tm_kill xr

# ---- 5. attach + pause + exit: no paused entry left ----------------------
s=$((mark + 5)).$$
sleep $s &
target=$!
PIDS+=($target)
"$BENCHTOP" -b -t 60 --attach $target --at 0.3:pause >"$T/attach.out" 2>&1 &
pid=$!
state() { awk '{ print $3 }' "/proc/$target/stat"; }
check "attach: the target is paused" wait_for 10 bash -c "[ \"\$(awk '{ print \$3 }' /proc/$target/stat)\" = T ]"
check "attach: the journal notes it paused" grep -q "^paused $target " "$J/journal.$pid"
kill -TERM $pid
wait $pid
check "attach: the target runs again ($(state))" [ "$(state)" = S ]
check "attach: no journal left with a paused entry" bash -c "! grep -qs '^paused ' '$J'/journal.*"
kill -STOP $target
out=$("$BENCHTOP" --restore 2>&1)
check "attach: a later --restore resumes nothing ($(state))" [ "$(state)" = T ]
check "attach: --restore says nothing of it" bash -c "! grep -q 'resumed process $target' <<<\"\$1\"" _ "$out"
kill -9 $target
wait $target 2>/dev/null

# ---- 6. a source that shrinks under --loop; the user's dst stays ---------
for e in rw cfr sendfile splice mmap pipe; do
	head -c 32M /dev/urandom >"$T/src"
	rm -f "$T/dst"
	"$BENCHTOP" -b -t 60 --loop -w "copy:src=$T/src,dst=$T/dst,engine=$e,sync=none" \
		--format json >"$T/shrink.jsonl" 2>"$T/shrink.err" &
	pid=$!
	wait_for 20 bash -c "jq -s -e '[.[] | select(.type == \"sample\") | .workloads[0].passes // 0] | max >= 1' '$T/shrink.jsonl' >/dev/null 2>&1" ||
		fail "shrink $e: no pass done"
	truncate -s 1M "$T/src"
	wait_for 30 failed_in "$T/shrink.jsonl" || fail "shrink $e: no sample shows it failed"
	kill -TERM $pid
	wait $pid
	rc=$?
	check "shrink $e: the run fails (rc $rc)" [ $rc = 1 ]
	check "shrink $e: it says the source changed size" grep -q "the source changed size during the copy (33554432 bytes when the copy began, 1048576 now)" "$T/shrink.err"
	check "shrink $e: the failed run keeps the user's dst" test -f "$T/dst"
done

# ---- 7. two benchtops, two journal directories, one sysfs tree -----------
govs_are() {
	local f
	for f in "$FS"/devices/system/cpu/cpufreq/policy*/scaling_governor; do
		[ "$(cat "$f")" = "$1" ] || return 1
	done
}
mkdir -p "$T/xa" "$T/xb"
chmod 700 "$T/xa" "$T/xb"
XDG_RUNTIME_DIR=$T/xa "$BENCHTOP" -b -t 60 --sysfs "$FS" --governor performance -- sleep 60 >/dev/null 2>&1 &
pa=$!
PIDS+=($pa)
check "two: A set performance" wait_for 20 govs_are performance
XDG_RUNTIME_DIR=$T/xb "$BENCHTOP" -b -t 1 --sysfs "$FS" --governor powersave -- sleep 5 >"$T/b.out" 2>&1
rc=$?
check "two: B (another XDG_RUNTIME_DIR) is refused (rc $rc)" [ $rc = 3 ]
check "two: B names A and its journal" grep -q "steered by benchtop $pa, which is running (journal $T/xa/benchtop/journal.$pa)" "$T/b.out"
check "two: the governors are still A's" govs_are performance
kill -TERM $pa
wait $pa
check "two: A's exit puts back the original" govs_are ondemand
# A killed: B still sees A's changes and says how to undo them
XDG_RUNTIME_DIR=$T/xa "$BENCHTOP" -b -t 60 --sysfs "$FS" --governor performance -- sleep 60 >/dev/null 2>&1 &
pa=$!
PIDS+=($pa)
wait_for 20 govs_are performance || fail "two: A did not set performance again"
kill -9 $pa
wait $pa 2>/dev/null
XDG_RUNTIME_DIR=$T/xb "$BENCHTOP" -b -t 1 --sysfs "$FS" --governor powersave -- sleep 5 >"$T/b.out" 2>&1
rc=$?
check "two: with A killed, B is refused (rc $rc)" [ $rc = 3 ]
check "two: B points to A's journal and its --restore" grep -q "XDG_RUNTIME_DIR=$T/xa benchtop --restore" "$T/b.out"
XDG_RUNTIME_DIR=$T/xb "$BENCHTOP" --restore --sysfs "$FS" >/dev/null 2>&1
check "two: B's own --restore has nothing of A's to put back" govs_are performance
XDG_RUNTIME_DIR=$T/xa "$BENCHTOP" --restore --sysfs "$FS" >"$T/ra.out" 2>&1
check "two: A's --restore puts back the original" govs_are ondemand
XDG_RUNTIME_DIR=$T/xb "$BENCHTOP" -b -t 1 --sysfs "$FS" --governor powersave -- sleep 5 >"$T/b.out" 2>&1
rc=$?
check "two: then B may steer (rc $rc)" [ $rc = 0 ]
check "two: and B's exit leaves the original" govs_are ondemand

# ---- 8. a scratch file on a file system shut down after EIO -------------
IMG=$T/ext4.img
MNT=$T/mnt
mkdir -p "$MNT"
if truncate -s 64M "$IMG" && mkfs.ext4 -q -F "$IMG" >/dev/null 2>&1 && mount -o loop "$IMG" "$MNT" 2>/dev/null; then
	"$BENCHTOP" -b -t 60 --loop -w "write:path=$MNT,size=4M,bs=64k" --format json >"$T/eio.jsonl" 2>"$T/eio.err" &
	pid=$!
	wait_for 10 bash -c "ls '$MNT' | grep -q benchtop-write" || fail "eio: no file written"
	f=$(ls -d "$MNT"/benchtop-write.* | head -1)
	# EXT4_IOC_SHUTDOWN, no log flush: every call on it fails with EIO from now on
	python3 -c "import fcntl, os, struct; fd = os.open('$MNT', os.O_RDONLY); fcntl.ioctl(fd, 0x8004587D, struct.pack('I', 2))"
	wait_for 30 failed_in "$T/eio.jsonl" || fail "eio: no sample shows it failed"
	kill -TERM $pid
	wait $pid
	rc=$?
	check "eio: the run fails (rc $rc)" [ $rc = 1 ]
	check "eio: it says the scratch file stays for --restore" grep -q "cannot remove scratch file $f: Input/output error; it stays in the journal" "$T/eio.err"
	check "eio: the journal keeps it" grep -q "^scratch $f\$" "$J/journal.$pid"
	umount "$MNT" && mount -o loop "$IMG" "$MNT"
	check "eio: the file is there after a remount" test -f "$f"
	out=$("$BENCHTOP" --restore 2>&1)
	check "eio: --restore removes it" bash -c "[ ! -e '$f' ] && grep -q 'removed scratch file $f' <<<\"\$1\"" _ "$out"
	check "eio: and the journal" test ! -e "$J/journal.$pid"
	umount "$MNT" && MNT=""
else
	skip "cannot mount an ext4 image here"
fi

finish

#!/usr/bin/env bash
# hardening-life.sh - a run ends when its terminal or its reader goes, no
# process of a run outlives it, attach touches only what it may and puts
# back what it changed, and input files are checked before they are read.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"
T=$E2E_TMP
export XDG_RUNTIME_DIR=$T/xdg HOME=$T/home TMPDIR=$T/tmp XDG_CONFIG_HOME=$T/config
mkdir -p "$XDG_RUNTIME_DIR" "$HOME" "$TMPDIR" "$XDG_CONFIG_HOME"
chmod 700 "$XDG_RUNTIME_DIR"
MOUNTS=() KILL=()
trap 'for p in "${KILL[@]}"; do kill -KILL "$p" 2>/dev/null; done;
      for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done; e2e_cleanup' EXIT

[ -x "$BENCHTOP" ] || skip_all "$BENCHTOP is not built"
LONG=700.$$        # `sleep $LONG`: a duration only this script's processes use
# marked CMDLINE: how many live processes have exactly this command line.
marked() { pgrep -c -x -f "$1" 2>/dev/null || true; }
gov_of() { cat "$1/devices/system/cpu/cpufreq/policy0/scaling_governor"; }
scratch_left() { ls -d "$TMPDIR"/benchtop.* >/dev/null 2>&1; }
# wait_gone PID SECONDS: PID has ended (SECONDS bounds the wait only: a
# hang guard, never a measure).
wait_gone() { wait_for "$2" sh -c "! kill -0 $1 2>/dev/null"; }

# ---- a terminal that goes away -------------------------------------------
# make is the terminal's session leader and waits for benchtop (as under
# `make run`): killing the tmux session hangs up the terminal, make gets
# SIGHUP and benchtop never does.  It must end on its own, in order.
tmux_lost() {
	local S=lost sys=$T/sys-lost
	"$ROOT/tests/fakesys.sh" "$sys" --cpus 2 || return
	printf '.PHONY: go\ngo:\n\t$(BT) $(ARGS)\n' >"$T/Makefile"
	# (tmux runs it in the server's environment: the private dirs are passed)
	tm_start $S 100x30 "cd $T && exec env TMPDIR=$TMPDIR XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR \
HOME=$HOME XDG_CONFIG_HOME=$XDG_CONFIG_HOME make -s -f $T/Makefile go BT=$BENCHTOP \
ARGS='--sysfs $sys --governor performance -t 600 -w write:size=30M -- sleep $LONG' 2>$T/lost.err"
	local pid=""
	wait_for 10 pgrep -f "^$BENCHTOP --sysfs $sys" >/dev/null &&
		pid=$(bt_main "^$BENCHTOP --sysfs $sys")
	check "make-led dashboard started ($pid)" [ -n "$pid" ]
	[ -n "$pid" ] || return
	KILL+=("$pid")
	wait_for 10 sh -c "[ \"\$(cat $sys/devices/system/cpu/cpufreq/policy0/scaling_governor)\" = performance ]"
	check "governor changed while the run goes" [ "$(gov_of "$sys")" = performance ]
	check "scratch directory made" scratch_left
	tm_kill $S
	wait_gone "$pid" 60
	check "benchtop ends by itself once its terminal is lost" sh -c "! kill -0 $pid 2>/dev/null"
	check "governor restored" [ "$(gov_of "$sys")" = ondemand ]
	check "scratch removed" sh -c "! ls -d $TMPDIR/benchtop.* >/dev/null 2>&1"
	check "workload stopped" [ "$(marked "sleep $LONG")" = 0 ]
	check "says the terminal has gone" grep -q "terminal has gone" "$T/lost.err"
	check "summary to stderr" grep -q "elaps" "$T/lost.err"
}
tmux_lost

# ---- no terminal at all ---------------------------------------------------
"$BENCHTOP" -- sleep 3 </dev/null >"$T/noterm.out" 2>"$T/noterm.err" &
p=$!
KILL+=("$p")
wait_gone $p 60
check "no terminal: ends by itself, before its workload does" sh -c "! kill -0 $p 2>/dev/null"
kill -KILL $p 2>/dev/null
wait $p
rc=$?
check "no terminal: exit 2 ($rc)" [ $rc = 2 ]
check "no terminal: message points to -b" grep -q -- "-b" "$T/noterm.err"
check "no terminal: one line" [ "$(wc -l <"$T/noterm.err")" = 1 ]
check "no terminal: no scratch left" sh -c "! ls -d $TMPDIR/benchtop.* >/dev/null 2>&1"

# ---- a closed standard output ----------------------------------------------
# sleep 600 and no -t: only the reader's going can end it before timeout
# (124); an output that could not be written is exit 3
timeout 120 "$BENCHTOP" -b -i 0.1 -- sleep 600 2>"$T/pipe.err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
check "| head -1: ends by itself, output lost: exit 3 ($rc)" [ "$rc" = 3 ]
check "| head -1: says output was closed" grep -q "standard output" "$T/pipe.err"
check "| head -1: summary to stderr" grep -q "elaps" "$T/pipe.err"

# ---- no process of a run outlives it ----------------------------------------
ESC=777.$$
"$BENCHTOP" -b -t 4 -- sh -c "for i in \$(seq 1100); do setsid sleep $ESC & done; wait" \
	>/dev/null 2>"$T/esc.err"
rc=$?
check "setsid escapes: exit 0 ($rc)" [ $rc = 0 ]
n=$(marked "sleep $ESC")
check "setsid escapes: none of 1100 left after the run ($n)" [ "$n" = 0 ]
[ "$n" = 0 ] || pkill -KILL -x -f "sleep $ESC"
if grep -q "no cgroup" "$T/esc.err"; then
	skip "background job belongs to the workload: no cgroup here ($(head -1 "$T/esc.err"))"
else
	# sh ends at once; its background loop is the workload until -t
	start=$(date +%s%N)   # outside wall time: never shorter than -t
	# (5 s: the cgroup is looked for while the run lasts, and a sanitized
	# start on a busy machine takes some of it)
	"$BENCHTOP" -b --format json -t 5 -- sh -c '(while :; do :; done) & sleep 0.01' \
		>"$T/bg.json" 2>/dev/null &
	pid=$!
	KILL+=("$pid")
	grp=""
	wait_for 5 sh -c "find /sys/fs/cgroup -maxdepth 8 -type d -name benchtop.$pid | grep -q ." &&
		grp=$(find /sys/fs/cgroup -maxdepth 8 -type d -name "benchtop.$pid" | head -1)
	wait_gone $pid 60 || kill -KILL $pid 2>/dev/null
	wait $pid
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	check "background job: the run had a cgroup ($grp)" [ -n "$grp" ]
	check "background job: the run lasts until -t (${ms} ms)" [ "$ms" -ge 4800 ]
	check "background job: benchtop ends by itself at -t, not held by the loop (exit $rc)" [ "$rc" = 0 ]
	# sh alone uses a few ms; any share of 5 s of a busy loop is more
	check "background job: its CPU counts" \
		jq -se 'map(select(.type=="end"))[0].summary[0] | .user + .sys >= 0.05' "$T/bg.json" >/dev/null
	check "background job: its cgroup is removed ($grp)" sh -c '[ -n "$1" ] && [ ! -d "$1" ]' _ "$grp"
fi

# ---- attach ----------------------------------------------------------------
cpus_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
state_of() { sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status"; }
NCPU=$(nproc --all)
init_before=$(cpus_of 1)
"$BENCHTOP" -b -t 1 --attach 1 --at 0.2:pin=0 >/dev/null 2>"$T/a1.err"
rc=$?
check "attach 1: refused with exit 2 ($rc)" [ $rc = 2 ]
check "attach 1: says why" grep -q "PID 1" "$T/a1.err"
check "attach 1: PID 1's affinity unchanged ($(cpus_of 1))" [ "$(cpus_of 1)" = "$init_before" ]
kt=$(ps -eo pid=,comm= | awk '$2 ~ /^kworker/ { print $1; exit }')
if [ -n "$kt" ]; then
	kt_before=$(cpus_of "$kt")
	"$BENCHTOP" -b -t 1 --attach "$kt" --at 0.2:pin=0 >/dev/null 2>"$T/a2.err"
	rc=$?
	check "attach kernel thread $kt: refused with exit 2 ($rc)" [ $rc = 2 ]
	check "attach kernel thread: says why" grep -q "kernel thread" "$T/a2.err"
	check "attach kernel thread: affinity unchanged" [ "$(cpus_of "$kt")" = "$kt_before" ]
else
	skip "no kworker thread found to attach to"
fi
"$BENCHTOP" -b -t 1 --attach 2 >/dev/null 2>&1
check "attach 2 (kthreadd): refused with exit 2" [ $? = 2 ]

if [ "$NCPU" -ge 2 ]; then
	# a running and a stopped process: both pinned and paused by benchtop,
	# both as they were afterwards
	sleep "$LONG" & run=$!
	sleep "$LONG" & stp=$!
	KILL+=("$run" "$stp")
	kill -STOP "$stp"
	wait_for 5 sh -c "[ \"\$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$stp/status)\" = T ]"
	orig=$(cpus_of "$run")
	"$BENCHTOP" -b --format json -t 2 --attach "$run,$stp" --at 0.3:pin=1 --at 0.6:pause \
		>"$T/att.json" 2>"$T/att.err"
	rc=$?
	check "attach: exit 0 ($rc)" [ $rc = 0 ]
	check "attach: it was pinned during the run" \
		jq -se 'map(select(.type=="event" and .action=="pin"))[0].detail.ok == true' "$T/att.json" >/dev/null
	check "attach: affinity put back at exit ($(cpus_of "$run"), was $orig)" [ "$(cpus_of "$run")" = "$orig" ]
	check "attach: the paused process runs again ($(state_of "$run"))" [ "$(state_of "$run")" != T ]
	check "attach: the one found stopped stays stopped ($(state_of "$stp"))" [ "$(state_of "$stp")" = T ]
	"$BENCHTOP" -b -t 1 --attach "$run" --at 0.3:pin=1 --leave-placement >/dev/null 2>&1
	check "attach --leave-placement: benchtop's pin stays ($(cpus_of "$run"))" [ "$(cpus_of "$run")" = 1 ]
	kill -KILL "$run" "$stp" 2>/dev/null; wait "$run" "$stp" 2>/dev/null
else
	skip "one CPU: attach placement cannot be seen"
fi
"$BENCHTOP" -b -t 1 --leave-placement -- true >/dev/null 2>"$T/lp.err"
check "--leave-placement without --attach: exit 2" [ $? = 2 ]

# a pin the kernel refuses (an ordinary user pinning root's process)
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	sleep "$LONG" & rp=$!
	KILL+=("$rp")
	before=$(cpus_of "$rp")
	mkdir -p "$T/nobody" && chown 65534:65534 "$T/nobody" && chmod 700 "$T/nobody"
	chmod o+x "$T"   # nobody may pass through to its own directory, no more
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/nobody" \
		XDG_RUNTIME_DIR="$T/nobody" TMPDIR="$T/nobody" XDG_CONFIG_HOME="$T/nobody" \
		"$BENCHTOP" -b --format json -t 1.5 --attach "$rp" --at 0.3:pin=0 \
		>"$T/eperm.json" 2>"$T/eperm.err"
	rc=$?
	check "failed pin: exit 3 ($rc)" [ $rc = 3 ]
	check "failed pin: the event says it failed, and why" \
		jq -se 'map(select(.type=="event" and .action=="pin"))[0].detail | .ok == false and (.error | length > 0)' \
		"$T/eperm.json" >/dev/null
	check "failed pin: stderr says so" grep -q "could not be placed" "$T/eperm.err"
	check "failed pin: affinity unchanged" [ "$(cpus_of "$rp")" = "$before" ]
	kill -KILL "$rp" 2>/dev/null; wait "$rp" 2>/dev/null
else
	skip "failed pin: needs root and setpriv to run benchtop as another user"
fi

# ---- input files, free space, records -----------------------------------------
# two 50M writes on a 100M file system: refused before either writes
SMALL=$T/small
mkdir -p "$SMALL"
if mount -t tmpfs -o size=100M tmpfs "$SMALL" 2>/dev/null; then
	MOUNTS+=("$SMALL")
	"$BENCHTOP" -b -w write:path="$SMALL/a",size=50M -w write:path="$SMALL/b",size=50M \
		>/dev/null 2>"$T/space.err"
	rc=$?
	check "two 50M writes on 100M: refused with exit 3 ($rc)" [ $rc = 3 ]
	check "two 50M writes: the message says how much is needed" grep -q "100.0 MiB" "$T/space.err"
	check "two 50M writes: one line" [ "$(wc -l <"$T/space.err")" = 1 ]
	check "two 50M writes: nothing written or left" [ -z "$(ls -A "$SMALL")" ]
	"$BENCHTOP" -b -w write:path="$SMALL/a",size=50M >/dev/null 2>&1
	check "one 50M write on 100M: runs (control)" [ $? = 0 ]
	umount "$SMALL"
else
	skip "cannot mount a tmpfs for the free-space check"
fi

for f in /dev/zero "$T"; do
	# reading /dev/zero would last until timeout (124): exit 2 is a refusal
	timeout 60 "$BENCHTOP" --replay "$f" >/dev/null 2>"$T/rz.err"
	rc=$?
	check "--replay $f: exit 2 ($rc), refused before reading" [ $rc = 2 ]
	check "--replay $f: is not a regular file" grep -q "is not a regular file" "$T/rz.err"
	timeout 20 "$BENCHTOP" --report "$f" -o "$T/r.svg" >/dev/null 2>"$T/rr.err"
	rc=$?
	check "--report $f: exit 2 ($rc), not a regular file" \
		sh -c "[ $rc = 2 ] && grep -q 'is not a regular file' '$T/rr.err'"
done
head -c $((17 << 20)) /dev/zero | tr '\0' a | sed '1s/^/{"type":"start","x":"/' >"$T/long.jsonl"
"$BENCHTOP" -b --replay "$T/long.jsonl" >/dev/null 2>"$T/long.err"
rc=$?
check "a line over 16 MiB: exit 2 ($rc)" [ $rc = 2 ]
check "a line over 16 MiB: names file and line" grep -q "long.jsonl:1: line longer than 16 MiB" "$T/long.err"
printf '%s\n' '{"type":"start","version":1,"ncpu":1,"interval":0.5,"workloads":[]}' \
	'{"type":"sample","t":0.5,"cpus":[{"id":7.5e10,"khz":1e300}],"procs":[{"pid":7.5e10,"workload":-9e99,"cpu":1e300,"threads":7.5e10}],"workloads":[{"id":7.5e10}]}' \
	>"$T/huge.jsonl"
"$BENCHTOP" -b --replay "$T/huge.jsonl" >/dev/null 2>"$T/huge.err"
rc=$?
check "numbers out of int range in a recording: read without undefined behaviour ($rc)" \
	sh -c "[ $rc = 0 ] && ! grep -q 'runtime error' '$T/huge.err'"

# the start record comes first, also with --governor
gsys=$T/sys-start
"$ROOT/tests/fakesys.sh" "$gsys" --cpus 2
"$BENCHTOP" -b --format json --sysfs "$gsys" --governor performance -o "$T/start.jsonl" -- sleep 0.3 \
	>"$T/start.out" 2>/dev/null
check "--governor: the start record is the first record (-o)" \
	[ "$(head -1 "$T/start.jsonl" | jq -r .type)" = start ]
check "--governor: the start record is the first record (stdout)" \
	[ "$(head -1 "$T/start.out" | jq -r .type)" = start ]
check "--governor: its event follows" \
	jq -se 'map(select(.type=="event"))[0].action == "governor"' "$T/start.jsonl" >/dev/null

# --keep keeps files, never an empty scratch directory
K=$T/keep
mkdir -p "$K"
echo data >"$T/ksrc"
TMPDIR=$K "$BENCHTOP" -b --keep -w copy:src="$T/ksrc",dst="$T/kdst" >/dev/null 2>&1
TMPDIR=$K "$BENCHTOP" -b --keep -w write:path="$T/kw",size=1M >/dev/null 2>&1
check "--keep: no empty benchtop.XXXXXX directory left" \
	sh -c "! find '$K' -mindepth 1 -type d -empty | grep -q ."
TMPDIR=$K "$BENCHTOP" -b --keep -w write:size=1M >/dev/null 2>&1
check "--keep: a scratch directory with kept files stays" \
	sh -c "find '$K' -mindepth 2 -type f -name 'benchtop-write.*' | grep -q ."

# messages that say what happened
mkdir -p "$T/adir.preset"
"$BENCHTOP" --preset "$T/adir.preset" >/dev/null 2>"$T/pd.err"
rc=$?
check "preset that is a directory: exit 2 ($rc), says so" \
	sh -c "[ $rc = 2 ] && grep -q 'is a directory' '$T/pd.err'"
truncate -s 256M "$T/msrc"
"$BENCHTOP" -b -w copy:src="$T/msrc",dst="$T/mdst",engine=mmap,bs=512 >/dev/null 2>"$T/mm.err" &
mp=$!
KILL+=("$mp")
if wait_for 20 sh -c "[ \$(stat -c %s '$T/mdst' 2>/dev/null || echo 0) -gt 4194304 ]" &&
   kill -0 $mp 2>/dev/null; then
	truncate -s 1M "$T/msrc"
	wait $mp
	rc=$?
	check "mmap source shrinks: exit 1 ($rc)" [ $rc = 1 ]
	check "mmap source shrinks: says the source changed size" grep -q "source changed size" "$T/mm.err"
	check "mmap source shrinks: not \"Bad address\"" sh -c "! grep -q 'Bad address' '$T/mm.err'"
else
	wait $mp
	skip "the mmap copy ended before its source could be cut"
fi
rm -f "$T/msrc" "$T/mdst"

finish

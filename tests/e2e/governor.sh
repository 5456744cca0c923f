#!/usr/bin/env bash
# governor.sh - governors, residency and the restore journal through the
# binary, against a fake sysfs tree that tests/fake_kernel.sh keeps ticking.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"

export XDG_RUNTIME_DIR=$E2E_TMP/run   # journals stay inside the test
mkdir -p "$XDG_RUNTIME_DIR"
JDIR=$XDG_RUNTIME_DIR/benchtop
KERNELS=()
trap 'for k in "${KERNELS[@]}"; do kill "$k" 2>/dev/null; done; umount "$E2E_TMP/ro" 2>/dev/null; e2e_cleanup' EXIT

if [ ! -x "$BENCHTOP" ] || ! "$BENCHTOP" --help 2>&1 | grep -q -- '--sysfs'; then
	skip_all "$BENCHTOP is not built or has no --sysfs yet"
fi

# tree NAME [fakesys options]: T = a fresh fake tree with a kernel playing
# it (the kernel gets no stdout of ours, so nothing waits on it).
tree() {
	T=$E2E_TMP/$1; shift
	"$ROOT/tests/fakesys.sh" "$T" --cpus 2 "$@" || return 1
	fake_kernel_start "$T" 600
	KERNELS+=("$FAKE_KERNEL")
}
# govs_are TREE NAME: every policy's scaling_governor reads NAME.
govs_are() {
	local f
	for f in "$1"/devices/system/cpu/cpufreq/policy*/scaling_governor; do
		[ "$(cat "$f")" = "$2" ] || return 1
	done
}
# jq_out FILTER: FILTER holds for the JSON Lines in $out.
jq_out() { jq -se "$1" <<<"$out" >/dev/null; }
no_journal() { ! ls "$JDIR"/journal.* >/dev/null 2>&1; }
has_journal() { ls "$JDIR"/journal.* >/dev/null 2>&1; }
# kill_tree PID SIG: signal PID, then make sure its children are gone too.
kill_tree() {
	local kids; kids=$(descendants "$1")
	kill -"$2" "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	[ -n "$kids" ] && kill -KILL $kids 2>/dev/null
	return 0
}

# 1. batch: performance then powersave; JSON events and per-phase residency
# at max then min; restored at the end.
tree batch
out=$("$BENCHTOP" -b --format json --sysfs "$T" -t 6 --at 1:governor=performance \
	--at 3.5:governor=powersave -- sleep 8 2>"$E2E_TMP/batch.err")
rc=$?
check "batch run exits 0 (rc $rc)" [ $rc = 0 ]
check "start record says cpufreq kernel" \
	jq_out 'map(select(.type=="start"))[0].cpufreq == "kernel"'
check "a governor event in the JSON" \
	jq_out 'map(select(.type=="event" and .action=="governor")) | length >= 1'
check "samples show performance after the event" \
	jq_out '[.[] | select(.type=="sample") | .cpus[].governor] | index("performance") != null'
check "residency at the max frequency in the performance phase" \
	jq_out 'map(select(.type=="end"))[0].phases[-2].residency["0"]["2600000"] > 0'
check "residency at the min frequency in the powersave phase" \
	jq_out 'map(select(.type=="end"))[0].phases[-1].residency["0"]["800000"] > 0'
check "no time at the max frequency before the first event" \
	jq_out 'map(select(.type=="end"))[0].phases[0].residency["0"]["2600000"] == null'
check "governors back to ondemand after the run" govs_are "$T" ondemand
check "journal removed after the run" no_journal

# 2. SIGTERM mid-run: orderly exit, originals back.
tree term
"$BENCHTOP" -b --format json --sysfs "$T" -t 60 --at 0.5:governor=performance -- sleep 60 \
	>"$E2E_TMP/term.out" 2>&1 &
pid=$!
check "SIGTERM: governor changed while running" wait_for 20 govs_are "$T" performance
check "SIGTERM: journal present while running" has_journal
kill_tree $pid TERM
check "SIGTERM: governors back to ondemand" govs_are "$T" ondemand
check "SIGTERM: journal removed" no_journal

# 3. SIGKILL: the journal stays; --restore puts the originals back.
tree kill
"$BENCHTOP" -b --format json --sysfs "$T" -t 60 --at 0.5:governor=performance -- sleep 60 \
	>"$E2E_TMP/kill.out" 2>&1 &
pid=$!
check "SIGKILL: governor changed while running" wait_for 20 govs_are "$T" performance
kill_tree $pid KILL
check "SIGKILL: governors left changed" govs_are "$T" performance
check "SIGKILL: journal left behind" has_journal
"$BENCHTOP" --restore --sysfs "$T" >"$E2E_TMP/restore.out" 2>&1
check "--restore exits 0" [ $? = 0 ]
check "--restore: governors back to ondemand" govs_are "$T" ondemand
check "--restore: journal removed" no_journal

# 4. dashboard: g flips to the next governor (schedutil -> performance), q restores.
tree dash --governor schedutil
tm_start dash 120x40 "$BENCHTOP --sysfs $T -- sleep 60"
check "dashboard draws" wait_for 20 bash -c "tmux capture-pane -p -t bt$$-dash | grep -q schedutil"
tm_keys dash g
check "g: every policy on performance" wait_for 20 govs_are "$T" performance
check "g: the screen says performance" wait_for 10 bash -c "tmux capture-pane -p -t bt$$-dash | grep -q performance"
check "g: the residency panel shows time at 2.60 GHz" \
	wait_for 20 bash -c "tmux capture-pane -p -t bt$$-dash | grep -Eq '2\.60 GHz [0-9]+%'"
tm_keys dash q
check "q: governors back to schedutil" wait_for 30 govs_are "$T" schedutil
check "q: journal removed" wait_for 10 no_journal
tm_kill dash

# 5. a read-only tree: the refusal is reported, nothing crashes, nothing changes.
tree rosrc
mkdir -p "$E2E_TMP/ro"
if mount --bind "$T" "$E2E_TMP/ro" 2>/dev/null && mount -o remount,ro,bind "$E2E_TMP/ro" 2>/dev/null; then
	"$BENCHTOP" -b --format json --sysfs "$E2E_TMP/ro" -t 2 --at 0.5:governor=performance -- sleep 5 \
		>"$E2E_TMP/ro.out" 2>&1
	rc=$?
	check "read-only: benchtop ends normally (rc $rc)" [ $rc -lt 2 ]
	check "read-only: the reason is given" grep -q "Read-only file system" "$E2E_TMP/ro.out"
	check "read-only: governors unchanged" govs_are "$T" ondemand
	check "read-only: no journal left" no_journal
	umount "$E2E_TMP/ro"
else
	skip "read-only tree: cannot bind-mount here"
fi

# 6. two benchtops on one tree at once: the second is refused with the
# first one's PID and changes nothing; the tree ends at its originals.
# limits_of TREE: every policy's min and max, one line.
limits_of() { cat "$1"/devices/system/cpu/cpufreq/policy*/scaling_{min,max}_freq | tr '\n' ' '; }
tree two
limits=$(limits_of "$T")
"$BENCHTOP" -b --sysfs "$T" --at 0.2:governor=performance \
	--at 0.2:maxfreq=1600000 -- sleep 60 >"$E2E_TMP/two-a.out" 2>&1 &
pid=$!
check "two: A changed the governor" wait_for 20 govs_are "$T" performance
check "two: A capped the frequency" \
	wait_for 20 grep -qx 1600000 "$T/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
"$BENCHTOP" -b --sysfs "$T" -t 1 --governor powersave -- sleep 8 >"$E2E_TMP/two-b.out" 2>&1
rc=$?
check "two: B with --governor exits 3 (rc $rc)" [ $rc = 3 ]
check "two: B names A's PID" grep -q "benchtop $pid, which is running" "$E2E_TMP/two-b.out"
"$BENCHTOP" -b --sysfs "$T" -t 1 --at 0.2:maxfreq=1200000 -- sleep 8 >"$E2E_TMP/two-c.out" 2>&1
check "two: a key-like change in B is refused naming A" grep -q "benchtop $pid" "$E2E_TMP/two-c.out"
check "two: A's settings stand while A runs" govs_are "$T" performance
check "two: A's cap stands while A runs" grep -qx 1600000 "$T/devices/system/cpu/cpufreq/policy1/scaling_max_freq"
kill -TERM $pid
wait $pid
check "two: A ends on SIGTERM in order" [ $? -lt 2 ]
check "two: governors back to ondemand" govs_are "$T" ondemand
check "two: limits back to the originals" [ "$(limits_of "$T")" = "$limits" ]
check "two: no journal left" no_journal

finish

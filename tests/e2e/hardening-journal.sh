#!/usr/bin/env bash
# hardening-journal.sh - journals and --restore under attack: journals
# planted by another user (made by this test and removed after), symbolic
# links planted in a tree and in the journal directory, odd governor files,
# a --restore without the right to write, and a benchtop killed with
# SIGKILL whose processes and scratch files --restore must clear.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"

export XDG_RUNTIME_DIR=$E2E_TMP/run HOME=$E2E_TMP/home TMPDIR=$E2E_TMP/tmp
mkdir -p "$XDG_RUNTIME_DIR" "$HOME" "$TMPDIR"
chmod 700 "$XDG_RUNTIME_DIR"
U=bttest$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	# the run's own processes, found by their unique argument, ended by PID
	for p in $(pgrep -f "^sleep 3$$\$"); do kill -9 "$p" 2>/dev/null; done
	id "$U" >/dev/null 2>&1 && userdel "$U" 2>/dev/null
	e2e_cleanup
}
trap cleanup EXIT

[ -x "$BENCHTOP" ] || skip_all "$BENCHTOP is not built"
[ "$(id -u)" = 0 ] || skip_all "needs root to make a second user"
command -v useradd >/dev/null && command -v setpriv >/dev/null || skip_all "no useradd or setpriv"
useradd -M -d /nonexistent -s /bin/sh "$U" 2>/dev/null || skip_all "cannot add a user here"
UID2=$(id -u "$U") GID2=$(id -g "$U")
chmod 711 "$E2E_TMP"   # the second user may pass through to its own corners
cp "$ROOT/tests/fakesys.sh" "$E2E_TMP/fakesys.sh"
chmod 755 "$E2E_TMP/fakesys.sh"
# as_user CMD...: run as the second user, with a clean environment.
as_user() {
	setpriv --reuid="$UID2" --regid="$GID2" --clear-groups env -i PATH="$PATH" "$@"
}
BOOT=$(cat /proc/sys/kernel/random/boot_id)
POL=devices/system/cpu/cpufreq

# 1. A journal planted by another user names a tree whose scaling_governor
# is a symbolic link to a root-owned 0600 file.
A=$E2E_TMP/attack
mkdir -p "$A" && chown "$U" "$A"
SECRET=$E2E_TMP/secret
echo "root's own text" >"$SECRET" && chmod 600 "$SECRET"
cp "$SECRET" "$E2E_TMP/secret.orig"
as_user sh -c "
	'$E2E_TMP/fakesys.sh' '$A/x' --cpus 1 &&
	ln -sfn '$SECRET' '$A/x/$POL/policy0/scaling_governor' &&
	mkdir -p '$A/xdg/benchtop' '$A/tmp/benchtop' &&
	printf 'benchtop-journal 1\npid 99998\nstarttime 0\nboot_id %s\nsysfs %s\npolicy $POL/policy0 performance 800000 2600000\n' \
		'$BOOT' '$A/x' >'$A/xdg/benchtop/journal.99998' &&
	cp '$A/xdg/benchtop/journal.99998' '$A/tmp/benchtop/journal.99998'"
check "attack: the journals are planted" test -s "$A/tmp/benchtop/journal.99998"

# a. root, with XDG_RUNTIME_DIR pointing at the other user's directory
out=$(XDG_RUNTIME_DIR=$A/xdg "$BENCHTOP" --restore 2>&1); rc=$?
check "planted dir: --restore exits 3 (rc $rc)" [ $rc = 3 ]
check "planted dir: refused by name" grep -q "refusing journal directory $A/xdg/benchtop" <<<"$out"
check "planted dir: the root-owned file is unchanged" cmp -s "$SECRET" "$E2E_TMP/secret.orig"
# b. root without a runtime directory of its own: never $TMPDIR/benchtop
mkdir -p "$E2E_TMP/rootrun" && chmod 700 "$E2E_TMP/rootrun"
out=$(XDG_RUNTIME_DIR=$E2E_TMP/rootrun TMPDIR=$A/tmp "$BENCHTOP" --restore 2>&1); rc=$?
check "shared tmp: --restore exits 0 (rc $rc)" [ $rc = 0 ]
check "shared tmp: the journal there is not read" grep -q "nothing to restore" <<<"$out"
check "shared tmp: the root-owned file is unchanged" cmp -s "$SECRET" "$E2E_TMP/secret.orig"
check "shared tmp: the planted journal is left alone" test -f "$A/tmp/benchtop/journal.99998"
# c. the same journal in root's own directory: the link in the tree is
# not followed out of it
mkdir -p "$E2E_TMP/rootrun/benchtop" && chmod 700 "$E2E_TMP/rootrun/benchtop"
cp "$A/xdg/benchtop/journal.99998" "$E2E_TMP/rootrun/benchtop/journal.99998"
chown root:root "$E2E_TMP/rootrun/benchtop/journal.99998"
chmod 600 "$E2E_TMP/rootrun/benchtop/journal.99998"
out=$(XDG_RUNTIME_DIR=$E2E_TMP/rootrun "$BENCHTOP" --restore 2>&1); rc=$?
check "tree link: --restore exits 3 (rc $rc)" [ $rc = 3 ]
check "tree link: says the link leads out of the tree" grep -q "symbolic link" <<<"$out"
check "tree link: the root-owned file is unchanged" cmp -s "$SECRET" "$E2E_TMP/secret.orig"
check "tree link: the journal is kept" test -f "$E2E_TMP/rootrun/benchtop/journal.99998"
rm -f "$E2E_TMP/rootrun/benchtop/journal.99998"
# d. links inside a tree, as sysfs has them (cpuN/cpufreq -> ../cpufreq/policyN), still work
"$ROOT/tests/fakesys.sh" "$E2E_TMP/legit" --cpus 2
printf 'benchtop-journal 2\npid 99997\nstarttime 0\nboot_id %s\nsysfs %s\npolicy devices/system/cpu/cpu1/cpufreq performance 800000 1600000\n' \
	"$BOOT" "$E2E_TMP/legit" >"$E2E_TMP/rootrun/benchtop/journal.99997"
chmod 600 "$E2E_TMP/rootrun/benchtop/journal.99997"
out=$(XDG_RUNTIME_DIR=$E2E_TMP/rootrun "$BENCHTOP" --restore 2>&1); rc=$?
check "sysfs links: --restore exits 0 (rc $rc)" [ $rc = 0 ]
check "sysfs links: the governor is written through cpu1/cpufreq" \
	grep -qx performance "$E2E_TMP/legit/$POL/policy1/scaling_governor"
check "sysfs links: the limit too" grep -qx 1600000 "$E2E_TMP/legit/$POL/policy1/scaling_max_freq"
check "sysfs links: journal removed" test ! -e "$E2E_TMP/rootrun/benchtop/journal.99997"

# 2. The temporary journal file: a symbolic link planted under its name
# in a directory others can write never leads the journal text elsewhere.
B=$E2E_TMP/tmpattack
mkdir -p "$B/tmp/benchtop" "$B/home" && chmod 777 "$B/tmp/benchtop"
chown "$U" "$B" "$B/home"
as_user sh -c "'$E2E_TMP/fakesys.sh' '$B/tree' --cpus 2 && echo precious >'$B/victim'"
cp "$B/victim" "$B/victim.orig"
mkdir -p "$B/gate" && chown "$U" "$B/gate"
as_user sh -c "echo \$\$ >'$B/gate/pid'; while [ ! -e '$B/gate/go' ]; do sleep 0.05; done
	exec env HOME='$B/home' TMPDIR='$B/tmp' '$BENCHTOP' -b --sysfs '$B/tree' -t 1 \
		--governor performance -- sleep 3" >"$B/out" 2>&1 &
bpid=$!
PIDS+=($bpid)
wait_for 10 test -s "$B/gate/pid"
vpid=$(cat "$B/gate/pid")
ln -s "$B/victim" "$B/tmp/benchtop/.journal.$vpid.tmp"
ln -s "$B/victim" "$B/tmp/benchtop/journal.$vpid"
touch "$B/gate/go"
wait $bpid; rc=$?
check "tmp link: the run ends normally (rc $rc)" [ $rc = 0 ]
check "tmp link: the other file is unchanged" cmp -s "$B/victim" "$B/victim.orig"
check "tmp link: the journal went to ~/.local/state/benchtop" \
	test "$(stat -c %U:%a "$B/home/.local/state/benchtop")" = "$U:700"
check "tmp link: the tree is back to ondemand" grep -qx ondemand "$B/tree/$POL/policy0/scaling_governor"

# 3. Odd governor files: 10 KB, a NUL byte: left alone and said so.
"$ROOT/tests/fakesys.sh" "$E2E_TMP/odd" --cpus 2
head -c 10240 /dev/zero | tr '\0' a >"$E2E_TMP/odd/$POL/policy0/scaling_governor"
printf 'ond\0emand\n' >"$E2E_TMP/odd/$POL/policy1/scaling_governor"
cp "$E2E_TMP/odd/$POL/policy0/scaling_governor" "$E2E_TMP/odd0"
cp "$E2E_TMP/odd/$POL/policy1/scaling_governor" "$E2E_TMP/odd1"
out=$("$BENCHTOP" -b --sysfs "$E2E_TMP/odd" -t 1 --governor performance -- sleep 3 2>&1); rc=$?
check "odd files: nothing to change, exit 3 (rc $rc)" [ $rc = 3 ]
check "odd files: said so" grep -q "left alone" <<<"$out"
check "odd files: the 10 KB file is unchanged" cmp -s "$E2E_TMP/odd/$POL/policy0/scaling_governor" "$E2E_TMP/odd0"
check "odd files: the NUL file is unchanged" cmp -s "$E2E_TMP/odd/$POL/policy1/scaling_governor" "$E2E_TMP/odd1"
# one odd policy, one plain: the plain one changes, the odd one is named
"$ROOT/tests/fakesys.sh" "$E2E_TMP/odd2" --cpus 2
head -c 10240 /dev/zero | tr '\0' a >"$E2E_TMP/odd2/$POL/policy0/scaling_governor"
out=$("$BENCHTOP" -b --sysfs "$E2E_TMP/odd2" -t 1 --governor performance -- sleep 3 2>&1); rc=$?
check "one odd file: the run goes on (rc $rc)" [ $rc = 0 ]
check "one odd file: stderr names the policy left alone" grep -q "CPUs 0 left alone: scaling_governor is too long" <<<"$out"
check "one odd file: the other policy ran under performance" grep -Eq '^1 .* performance ' <<<"$out"
check "one odd file: unchanged" cmp -s "$E2E_TMP/odd2/$POL/policy0/scaling_governor" "$E2E_TMP/odd0"
check "one odd file: the other restored" grep -qx ondemand "$E2E_TMP/odd2/$POL/policy1/scaling_governor"

# 4. The second user's --restore: every exit status matches what happened.
C=$E2E_TMP/nowrite
mkdir -p "$C/run" "$C/tmp/benchtop" && chown "$U" "$C" "$C/run" && chmod 700 "$C/run" "$C/tmp/benchtop"
as_user sh -c "'$E2E_TMP/fakesys.sh' '$C/tree' --cpus 2"
# user_killed: the user's benchtop changes its tree and is killed.  Not
# through as_user: $! must be benchtop's PID (setpriv and env exec it).
user_killed() {
	setpriv --reuid="$UID2" --regid="$GID2" --clear-groups env -i PATH="$PATH" XDG_RUNTIME_DIR="$C/run" \
		HOME="$C" TMPDIR="$C/tmp" "$BENCHTOP" -b --sysfs "$C/tree" --governor performance -- sleep 60 \
		>/dev/null 2>&1 &
	cpid=$!
	PIDS+=($cpid)
	wait_for 20 grep -qx performance "$C/tree/$POL/policy1/scaling_governor" || return 1
	kill -9 $cpid
	wait $cpid 2>/dev/null
	return 0
}
restore_as_user() {
	as_user env XDG_RUNTIME_DIR="$C/run" HOME="$C" TMPDIR="$C/tmp" "$BENCHTOP" --restore 2>&1
}
# a. it can write: exit 0, even with a directory it cannot read in TMPDIR
check "user: its benchtop changed its tree and was killed" user_killed
out=$(restore_as_user); rc=$?
check "user: --restore exits 0 (rc $rc)" [ $rc = 0 ]
check "user: it says what it restored" grep -q "restored 2 cpufreq policies under $C/tree" <<<"$out"
check "user: the tree is back to ondemand" grep -qx ondemand "$C/tree/$POL/policy1/scaling_governor"
# b. it cannot write (the tree now root's): exit 3 with a message
check "no write: its benchtop changed its tree and was killed" user_killed
chown -R root:root "$C/tree"
out=$(restore_as_user); rc=$?
check "no write: --restore exits 3 (rc $rc)" [ $rc = 3 ]
check "no write: a message says why" grep -q "read-only here: run as root" <<<"$out"
check "no write: it claims nothing was restored" bash -c '! grep -q "restored\|undid" <<<"$1"' _ "$out"
check "no write: the journal is kept" test -f "$C/run/benchtop/journal.$cpid"

# 5. kill -9 of benchtop mid-run, with a command whose children go on and
# a scratch file: --restore ends them, removes it, says so.
mark="sleep 3$$"
"$BENCHTOP" -b -w write:size=8M -- sh -c "$mark & $mark & wait" >"$E2E_TMP/k.out" 2>&1 &
kpid=$!
PIDS+=($kpid)
check "kill: the grandchildren run" wait_for 20 pgrep -f "^$mark\$" >/dev/null
has_scratch() { ls -d "$TMPDIR"/benchtop.* >/dev/null 2>&1; }
check "kill: a scratch directory" wait_for 10 has_scratch
scratch=$(ls -d "$TMPDIR"/benchtop.* 2>/dev/null | head -1)
check "kill: the journal names it" grep -q "scratch $scratch" "$XDG_RUNTIME_DIR/benchtop/journal.$kpid"
kill -9 $kpid; wait $kpid 2>/dev/null
sleep 0.3
check "kill: processes of the run are left" pgrep -f "^$mark\$" >/dev/null
check "kill: the scratch directory is left" test -d "$scratch"
out=$("$BENCHTOP" --restore 2>&1); rc=$?
check "kill: --restore exits 0 (rc $rc)" [ $rc = 0 ]
check "kill: no process of the run is left" wait_for 5 bash -c "! pgrep -f '^$mark\$' >/dev/null"
check "kill: the scratch directory is gone" test ! -e "$scratch"
check "kill: it says it ended processes" grep -q "ended [0-9]* process" <<<"$out"
check "kill: it says it removed the scratch" grep -q "removed scratch directory $scratch" <<<"$out"
check "kill: the journal is gone" test ! -e "$XDG_RUNTIME_DIR/benchtop/journal.$kpid"

finish

# Shared helpers for end-to-end scripts: source it, call ok/fail/skip/check,
# and end with `finish`, which prints "N passed, N failed, N skipped".
# A skip is never a pass: the runner adds it up on its own.
BENCHTOP=${BENCHTOP:-$PWD/build/san/benchtop}
E2E_PASSED=0
E2E_FAILED=0
E2E_SKIPPED=0
E2E_TMP=$(mktemp -d /var/tmp/benchtop-e2e.XXXXXX)
trap 'e2e_cleanup' EXIT

E2E_MOUNTS=()
e2e_cleanup() {
	local m
	bg_stop
	tmux kill-server 2>/dev/null
	for m in "${E2E_MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
	rm -rf "$E2E_TMP"
}

ok()   { E2E_PASSED=$((E2E_PASSED + 1)); echo "ok - $*"; }
fail() { E2E_FAILED=$((E2E_FAILED + 1)); echo "not ok - $*"; }
# skip REASON: one check that could not run here (counted as skipped).
skip() { E2E_SKIPPED=$((E2E_SKIPPED + 1)); echo "ok - # SKIP $*"; }
# skip_all REASON: the whole script cannot run here; ends it.
skip_all() { skip "$*"; finish; exit $?; }
# check NAME COMMAND...: passes when COMMAND exits 0.
check() { local n=$1; shift; if "$@"; then ok "$n"; else fail "$n"; fi; }
finish() { echo "$E2E_PASSED passed, $E2E_FAILED failed, $E2E_SKIPPED skipped"; [ "$E2E_FAILED" = 0 ]; }

# No user's config file (defaults for options) reaches a test.
export XDG_CONFIG_HOME=$E2E_TMP/xdg-config

# Scripts run side by side (tests/run.sh): each has its own runtime
# directory (journals, the cached memcpy ceiling) unless it sets one, and
# its own tmux server, which starts with this script's environment.
export XDG_RUNTIME_DIR=$E2E_TMP/xdg-run
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
export TMUX_TMPDIR=$E2E_TMP/tmux
mkdir -p "$TMUX_TMPDIR"
unset TMUX

# Tests drive ncurses: make the Escape delay deterministic.
export ESCDELAY=25

# own_dirs: HOME, TMPDIR, XDG_RUNTIME_DIR and XDG_CONFIG_HOME of this
# script's own, below E2E_TMP (home, tmp, run, home/.config): no file of
# the user's is read, and what a run leaves behind is found there.
own_dirs() {
	export HOME=$E2E_TMP/home TMPDIR=$E2E_TMP/tmp XDG_RUNTIME_DIR=$E2E_TMP/run
	export XDG_CONFIG_HOME=$HOME/.config
	mkdir -p "$TMPDIR" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
}
# need_benchtop: the whole script is skipped when the binary is not built.
need_benchtop() { [ -x "$BENCHTOP" ] || skip_all "$BENCHTOP is not built"; }
# The build folder of $BENCHTOP's objects, for checks that read them with
# nm: the sanitizer build's for build/san/benchtop, else the plain one's.
objdir() {
	case "$BENCHTOP" in
	*/build/san/benchtop) echo build/san ;;
	*) echo build ;;
	esac
}
# quiet COMMAND...: COMMAND's status, its output dropped.
quiet() { "$@" >/dev/null 2>&1; }
# jqe FILTER FILE: jq -e of FILTER over FILE's records (slurped), quietly.
jqe() { jq -se "$1" "$2" >/dev/null; }

# Background processes a script starts (bg_track PID) are ended at exit
# or by bg_stop: SIGTERM, a few seconds to go, then SIGKILL.
E2E_PIDS=()
bg_track() { E2E_PIDS+=("$@"); }
bg_stop() {
	local p n
	for p in "${E2E_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${E2E_PIDS[@]}"; do
		for ((n = 0; n < 30; n++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	E2E_PIDS=()
}

# free_port: a TCP port nothing listens on (from /proc/net/tcp*), never
# one handed out before in this script.
E2E_PORTS=" "
free_port() {
	local used p
	used=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk 'NR > 1 { split($2, a, ":"); print a[2] }')
	while :; do
		p=$(( 20000 + (RANDOM * 7 + $$) % 40000 ))
		case $E2E_PORTS in *" $p "*) continue ;; esac
		grep -qix "$(printf '%04x' "$p")" <<<"$used" && continue
		E2E_PORTS="$E2E_PORTS$p "
		echo "$p"
		return
	done
}
# http_code [CURL OPTIONS] URL: the HTTP status of one request (000: none).
http_code() { curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$@"; }

# children_of PID: pids whose parent is PID (recursively).
descendants() {
	local p
	for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$p"; descendants "$p"; done
}

# bt_main PATTERN: the benchtop process whose command line matches PATTERN
# (pgrep -f) and whose parent's does not.  benchtop's engines and a
# command's child before its exec are forks with benchtop's command line,
# and PIDs wrap: the lowest match need not be benchtop.
bt_main() {
	local all p pp
	all=$(pgrep -f "$1") || return 1
	for p in $all; do
		pp=$(ps -o ppid= -p "$p" | tr -d ' ')
		[ -n "$pp" ] || continue   # ended since pgrep
		grep -qx -- "$pp" <<<"$all" || { echo "$p"; return 0; }
	done
	return 1
}

# ended PID: PID has exited (gone, or a zombie its parent has not reaped
# yet: a tmux server may leave a pane's process so for many seconds).
ended() { ! kill -0 "$1" 2>/dev/null || [ "$(ps -o stat= -p "$1" | cut -c1)" = Z ]; }

# wait_for SECONDS COMMAND...: retry COMMAND every 0.1 s until it succeeds.
# SECONDS only bounds the wait, and never below E2E_WAIT_MIN (20 s): a
# hang guard, never a measure - on a busy machine a condition may come
# late, and that is no failure.  COMMAND is run afresh at every try, so
# what it measures must be inside it (a function, or sh -c '...'), never
# a "$(...)" of the caller's, which is expanded once.  A wait that runs
# out says so in a "#" line (the runner shows those): a condition that
# can never hold costs its whole bound, and this is where it shows.
# The bound is on the clock, not a count of tries: on a loaded machine
# one try (a tmux capture, a pgrep) can take longer than the 0.1 s pause.
E2E_WAIT_MIN=${E2E_WAIT_MIN:-20}
wait_for() {
	local s=$(( $1 > E2E_WAIT_MIN ? $1 : E2E_WAIT_MIN )) end; shift
	end=$((SECONDS + s))
	while :; do
		"$@" && return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.1
	done
	echo "# gave up after ${s} s waiting for: $*"
	return 1
}

# fake_kernel_start ROOT SECONDS: play the kernel for the fake sysfs tree
# ROOT (tests/fake_kernel.sh) in the background, its PID in FAKE_KERNEL,
# and wait until it has ticked once (time_in_state moved), so a run that
# starts next sees its residency grow from its first sample on, however
# slowly a busy machine starts the script.
fake_kernel_start() {
	local tis before
	tis=$(ls "$1"/devices/system/cpu/cpufreq/policy*/stats/time_in_state 2>/dev/null | head -1)
	before=$(cat "$tis" 2>/dev/null)
	bash "$(dirname "${BASH_SOURCE[0]}")/../fake_kernel.sh" "$1" "$2" </dev/null >/dev/null 2>&1 &
	FAKE_KERNEL=$!
	[ -n "$tis" ] && wait_for 30 bash -c '[ "$(cat "$1" 2>/dev/null)" != "$2" ]' _ "$tis" "$before"
	return 0
}

# A tmux session for dashboard tests: tm_start NAME WxH COMMAND
# The script's tmux server stays up between sessions (exit-empty off): a
# server that exits with its last session races the next new-session,
# which then fails with "server exited unexpectedly".
tm_server() { tmux has-session 2>/dev/null || tmux start-server \; set -s exit-empty off 2>/dev/null; }
tm_start() { tm_server; tmux new-session -d -s "bt$$-$1" -x "${2%x*}" -y "${2#*x}" "$3"; }
tm_keys() { local s=$1; shift; tmux send-keys -t "bt$$-$s" "$@"; }
tm_screen() { tmux capture-pane -p -t "bt$$-$1"; }
tm_kill() { tmux kill-session -t "bt$$-$1" 2>/dev/null; }

# small_tmp DIR: DIR becomes a 160 MiB tmpfs (root only; unmounted at
# exit) so that the default workload's source, sized by the room it has,
# is small and quick to write and to copy.  Fails, leaving DIR a plain
# directory, where it cannot mount.
small_tmp() {
	mkdir -p "$1" && mount -t tmpfs -o size=160m tmpfs "$1" 2>/dev/null || return 1
	E2E_MOUNTS+=("$1")
}

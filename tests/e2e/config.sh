#!/usr/bin/env bash
# Defaults from $XDG_CONFIG_HOME/benchtop/config: a file's option takes
# effect (batch JSON says so), the command line wins, and a bad line exits 2
# naming the file and the line.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
[ -x "$BENCHTOP" ] || skip_all "no $BENCHTOP"
command -v jq >/dev/null || skip_all "no jq"
export HOME=$E2E_TMP/home TMPDIR=$E2E_TMP XDG_RUNTIME_DIR=$E2E_TMP/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME/benchtop"
CFG=$XDG_CONFIG_HOME/benchtop/config

printf '# my defaults\ninterval = 0.2\nformat = json\n\nat = 0.3:marker=from the file\n' >"$CFG"
"$BENCHTOP" -b -t 1 -- sleep 5 >"$E2E_TMP/out.jsonl" 2>"$E2E_TMP/err"
check "config: exits 0" test $? = 0
check "config: format = json gives JSON Lines" jq -e -s 'length > 0' "$E2E_TMP/out.jsonl"
check "config: interval = 0.2 is the run's interval" \
	jq -e -s '[.[] | select(.type == "start")][0].interval == 0.2' "$E2E_TMP/out.jsonl"
check "config: the file's --at marker is an event" \
	jq -e -s '[.[] | select(.type == "event" and .action == "marker")] | length == 1' "$E2E_TMP/out.jsonl"

"$BENCHTOP" -b -t 1 -i 0.25 --at 0.3:marker=cli -- sleep 5 >"$E2E_TMP/out2.jsonl" 2>/dev/null
check "config: -i on the command line wins" \
	jq -e -s '[.[] | select(.type == "start")][0].interval == 0.25' "$E2E_TMP/out2.jsonl"
check "config: --at on the command line replaces the file's" \
	jq -e -s '[.[] | select(.type == "event" and .action == "marker")] | length == 1 and .[0].label == "cli"' "$E2E_TMP/out2.jsonl"

printf 'interval = 0.2\nunits = furlongs\n' >"$CFG"
"$BENCHTOP" -b -t 1 -w "write:path=$E2E_TMP/c,size=1m" >/dev/null 2>"$E2E_TMP/err"
rc=$?
check "config: a bad line exits 2 (got $rc)" test $rc = 2
check "config: the message names file and line" grep -qF "$CFG:2:" "$E2E_TMP/err"
check "config: the message names the bad word" grep -qF "furlongs" "$E2E_TMP/err"
test ! -e "$E2E_TMP/c"
check "config: nothing ran after a bad line" test $? = 0
finish

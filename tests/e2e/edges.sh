#!/usr/bin/env bash
# edges.sh - small refusals that must say the right thing: `force = true`
# is refused in the config file; control characters from a config file, a
# theme file and a theme name reach the terminal only as \xNN escapes;
# a bad --metrics-listen address names the whole word.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
[ -x "$BENCHTOP" ] || skip_all "$BENCHTOP not built"

T=$E2E_TMP
export XDG_CONFIG_HOME=$T/config XDG_RUNTIME_DIR=$T/run TMPDIR=$T/tmp
mkdir -p "$XDG_CONFIG_HOME/benchtop" "$XDG_RUNTIME_DIR" "$TMPDIR"
chmod 700 "$XDG_RUNTIME_DIR"
CFG=$XDG_CONFIG_HOME/benchtop/config
ESC=$(printf '\033')
BEL=$(printf '\007')

# ---- force = true ----
echo mine >"$T/precious"
printf 'force = true\n' >"$CFG"
"$BENCHTOP" -b -t 1 -w "write:path=$T/precious,size=64k" >"$T/out" 2>"$T/err"
rc=$?
check "force = true: exit 2 (rc $rc)" [ $rc = 2 ]
check "force = true: names the file, the line and the word" grep -q "$CFG:1: \"force\" cannot be a default" "$T/err"
check "force = true: the file is untouched" [ "$(cat "$T/precious")" = mine ]
printf 'force = yes\n' >"$CFG"
"$BENCHTOP" -b -t 1 -- true >/dev/null 2>"$T/err"
check "force = yes: refused too" grep -q '"force" cannot be a default' "$T/err"

# ---- control characters in messages ----
printf 'inter\033]0;owned\007val = 1\n' >"$CFG"
"$BENCHTOP" -b -t 1 -- true >/dev/null 2>"$T/err"
rc=$?
check "config option name with escapes: exit 2 (rc $rc)" [ $rc = 2 ]
check "config: no raw ESC or BEL in the message" bash -c "! LC_ALL=C grep -q '[$ESC$BEL]' '$T/err'"
check "config: shown as \\x1b and \\x07" grep -qF 'inter\x1b]0;owned\x07val' "$T/err"
printf 'units = \033[2Jsi\n' >"$CFG"
"$BENCHTOP" -b -t 1 -- true >/dev/null 2>"$T/err"
check "config value with escapes: shown escaped" bash -c "grep -qF '\\x1b[2Jsi' '$T/err' && ! LC_ALL=C grep -q '[$ESC]' '$T/err'"
rm -f "$CFG"
printf 'normal = \033[2Jred\n' >"$T/evil.theme"
"$BENCHTOP" -b -t 1 --theme "$T/evil.theme" -- true >/dev/null 2>"$T/err"
rc=$?
check "theme file with escapes: exit 2 (rc $rc)" [ $rc = 2 ]
check "theme file: shown escaped" bash -c "grep -qF '\\x1b[2Jred' '$T/err' && ! LC_ALL=C grep -q '[$ESC]' '$T/err'"
"$BENCHTOP" -b -t 1 --theme "$(printf 'x\033]0;t\007')" -- true >/dev/null 2>"$T/err"
rc=$?
check "theme name with escapes: exit 2 (rc $rc)" [ $rc = 2 ]
check "theme name: shown escaped" bash -c "grep -qF 'x\\x1b]0;t\\x07' '$T/err' && ! LC_ALL=C grep -q '[$ESC$BEL]' '$T/err'"

# ---- --metrics-listen names the whole word ----
for word in '[:' '[::1' '[:1' 'a:b:c' '[]:80' '1.2.3:9101' '[:::]:1'; do
	"$BENCHTOP" -b -t 1 --metrics-listen "$word" -- true >/dev/null 2>"$T/err"
	rc=$?
	check "--metrics-listen '$word': exit 2 (rc $rc)" [ $rc = 2 ]
	check "--metrics-listen '$word': the message names the whole word" grep -qF "bad address \"$word\" for --metrics-listen" "$T/err"
done

finish

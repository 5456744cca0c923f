#!/usr/bin/env bash
# Runs every unit test binary given as arguments, then every end-to-end
# script in tests/e2e/, and ends with one line: "N passed, N failed, N skipped".
# A script that skips is counted as skipped, never as passed.
set -u
cd "$(dirname "$0")/.." || exit 1
export BENCHTOP=${BENCHTOP:-$PWD/build/san/benchtop}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0 failed=0 skipped=0 failures=()

for bin in "$@"; do
	name=$(basename "$bin")
	out=$(CMOCKA_MESSAGE_OUTPUT=stdout ASAN_OPTIONS=detect_leaks=1 "$bin" 2>&1)
	rc=$?
	echo "$out" | grep -E '^\[  (FAILED|ERROR)|^\[  PASSED|^\[==========\]' | sed "s|^|$name: |"
	p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	k=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
	skipped=$((skipped + ${k:-0}))
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	p=${p:-0} f=${f:-0}
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; echo "$out" | tail -20; fi
	[ "$f" != 0 ] && { failures+=("$name"); echo "$out" | grep -B2 -A8 'FAILED\|ERROR' | head -60; }
	passed=$((passed + p)) failed=$((failed + f))
done

for t in tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	[ "$(basename "$t")" = lib.sh ] && continue
	name=$(basename "$t" .sh)
	echo "== $name"
	out=$(timeout 600 bash "$t" 2>&1 </dev/null)
	rc=$?
	echo "$out" | grep -E '^(ok|not ok|#)' | sed "s|^|$name: |"
	last=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
	f=$(echo "$last" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
	k=$(echo "$last" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
	skipped=$((skipped + ${k:-0}))
	if [ -z "$last" ]; then p=0 f=1; echo "$out" | tail -30; fi
	if [ $rc -ne 0 ] && [ "${f:-0}" = 0 ]; then f=1; echo "$name exited $rc"; echo "$out" | tail -30; fi
	[ "${f:-0}" != 0 ] && failures+=("$name")
	passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
done

[ ${#failures[@]} -gt 0 ] && echo "failing: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

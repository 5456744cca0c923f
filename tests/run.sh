#!/usr/bin/env bash
# Runs every unit test binary given as arguments and every end-to-end
# script in tests/e2e/ (lib*.sh, sourced, aside), JOBS at a time (default: three per
# CPU, at least 4: the scripts mostly wait on the programs they drive, a
# script's own CPU seconds are a tenth of its wall time or less),
# and ends with one line: "N passed, N failed, N skipped".  A script that
# skips is counted as skipped, never as passed.
#
# Each job's output is kept apart and printed whole, prefixed with its
# name, when it ends.  The scripts keep their own state apart: lib.sh gives
# each a temporary directory, a runtime directory and tmux sessions named
# by its PID.  The longest jobs of the last run (build/check.times; on a
# fresh clone tests/durations) start first, so the run ends soon after its
# longest script.
#
# LOAD=N keeps N busy loops running meanwhile (make check-loaded: 2), to
# see that nothing in the suite depends on an idle machine.  E2E="a b"
# runs only those e2e scripts (names without .sh).
set -u
cd "$(dirname "$0")/.." || exit 1
export BENCHTOP=${BENCHTOP:-$PWD/build/san/benchtop}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ncpu=$(nproc 2>/dev/null || echo 2)
JOBS=${JOBS:-$((ncpu * 3 > 4 ? ncpu * 3 : 4))}
TIMES=build/check.times
ORDER=$TIMES
[ -s "$ORDER" ] || ORDER=tests/durations
OUT=$(mktemp -d "${TMPDIR:-/tmp}/benchtop-check.XXXXXX") || exit 1
passed=0 failed=0 skipped=0 failures=() hogs=()

cleanup() {
	for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ((i = 0; i < ${LOAD:-0}; i++)); do
	( trap - INT TERM; while :; do :; done ) &
	hogs+=($!)
done
[ ${#hogs[@]} -gt 0 ] && echo "# background load: ${#hogs[@]} busy loops (PIDs ${hogs[*]})"

# The jobs: "unit PATH" and "e2e PATH", longest (last time) first.
jobs_list() {
	local b t
	for b in "$@"; do echo "unit $b"; done
	for t in tests/e2e/*.sh; do
		[ -f "$t" ] && [[ $(basename "$t") != lib*.sh ]] || continue
		[ -z "${E2E:-}" ] || [[ " $E2E " == *" $(basename "$t" .sh) "* ]] || continue
		echo "e2e $t"
	done
}
ordered=$(jobs_list "$@" | awk -v times="$ORDER" '
	BEGIN { while ((getline l < times) > 0) { if (l ~ /^#/) continue; split(l, f, " "); secs[f[2]] = f[1] } }
	{ print (($2 in secs) ? secs[$2] : 1000), $0 }' | sort -k1,1nr | cut -d' ' -f2-)

# run_job KIND PATH: run it, its output to $OUT/N.out, its status and
# seconds to $OUT/N.rc.
run_job() {
	local kind=$1 path=$2 id=$3 t0=$SECONDS rc
	if [ "$kind" = unit ]; then
		CMOCKA_MESSAGE_OUTPUT=stdout ASAN_OPTIONS=detect_leaks=1 timeout 1200 "$path" >"$OUT/$id.out" 2>&1 </dev/null
	else
		timeout 1200 bash "$path" >"$OUT/$id.out" 2>&1 </dev/null
	fi
	rc=$?
	# the CPU seconds (user + sys) of the job's processes, from this
	# shell's `times` (its waited-for children): what a script costs the
	# others running beside it
	times >"$OUT/$id.times"
	echo "$rc $((SECONDS - t0)) $(awk 'NR == 2 {
		for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
		printf "%.0f", s }' "$OUT/$id.times")" >"$OUT/$id.rc.tmp" && mv "$OUT/$id.rc.tmp" "$OUT/$id.rc"
}

# report KIND PATH ID: print one finished job and add up its counts.
report() {
	local kind=$1 path=$2 id=$3 name rc secs cpu out p f k last lines
	name=$(basename "$path" .sh)
	read -r rc secs cpu <"$OUT/$id.rc"
	out=$(cat "$OUT/$id.out")
	echo "$secs $path $cpu" >>"$OUT/times"
	if [ "$kind" = unit ]; then
		echo "$out" | grep -E '^\[  (FAILED|ERROR)|^\[  PASSED|^\[==========\]' | sed "s|^|$name: |"
		p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
		k=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
		f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
		p=${p:-0} f=${f:-0}
		if [ "$rc" -ne 0 ] && [ "$f" = 0 ]; then f=1; echo "$out" | tail -20; fi
		[ "$f" != 0 ] && echo "$out" | grep -B2 -A8 'FAILED\|ERROR' | head -60
	else
		echo "== $name (${secs} s, ${cpu} s CPU)"
		echo "$out" | grep -E '^(ok|not ok|#)' | sed "s|^|$name: |"
		last=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
		p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
		f=$(echo "$last" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
		k=$(echo "$last" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p')
		p=${p:-0} f=${f:-0}
		if [ -z "$last" ]; then f=1; echo "$out" | tail -30; fi
		if [ "$rc" -ne 0 ] && [ "$f" = 0 ]; then f=1; echo "$name exited $rc"; echo "$out" | tail -30; fi
	fi
	if [ "$f" != 0 ]; then
		failures+=("$name")
		# kept for the closing lines, which are all a CI log may show
		lines=$(echo "$out" | grep -E '^not ok|^\[  (FAILED|ERROR)' | head -8)
		[ -n "$lines" ] || lines="exited $rc: $(echo "$out" | tail -3)"
		failed_lines+=("$(echo "$lines" | sed "s|^|$name: |")")
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${k:-0}))
}

declare -A running=()   # id -> "kind path"
failed_lines=()
id=0
t_start=$SECONDS
reap() {
	local j
	for j in "${!running[@]}"; do
		if [ -f "$OUT/$j.rc" ]; then
			wait "${running_pid[$j]}" 2>/dev/null
			report ${running[$j]} "$j"
			unset "running[$j]" "running_pid[$j]"
		fi
	done
}
declare -A running_pid=()
while read -r kind path; do
	[ -n "$kind" ] || continue
	while [ ${#running[@]} -ge "$JOBS" ]; do
		wait -n 2>/dev/null
		reap
	done
	id=$((id + 1))
	run_job "$kind" "$path" "$id" &
	running[$id]="$kind $path"
	running_pid[$id]=$!
done <<<"$ordered"
while [ ${#running[@]} -gt 0 ]; do
	wait -n 2>/dev/null
	reap
done
mkdir -p "$(dirname "$TIMES")" && sort -k1,1nr "$OUT/times" >"$TIMES" 2>/dev/null

echo "# wall time $((SECONDS - t_start)) s, $JOBS jobs at a time${LOAD:+, LOAD=$LOAD}"
if [ ${#failures[@]} -gt 0 ]; then
	printf '%s\n' "${failed_lines[@]}"
	echo "failing: ${failures[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]

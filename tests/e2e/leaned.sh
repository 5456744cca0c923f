#!/usr/bin/env bash
# Leaned on, the dashboard holds: attached processes are measured as a
# workload, phases end with the work, markers never overwrite each other,
# spread gives busy roles CPUs of their own, the first minute reads as a
# steady rate, and the smaller figures on screen tell the truth.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
T=$E2E_TMP
mkdir -p "$T/home" "$T/run" "$T/tmp"
export HOME=$T/home XDG_RUNTIME_DIR=$T/run XDG_CONFIG_HOME=$T/home/.config TMPDIR=$T/tmp
quiet() { "$@" >/dev/null 2>&1; }
# screen_has SESSION TEXT: the pane shows TEXT (fixed string).
screen_has() { tm_screen "$1" | grep -qF -- "$2"; }
# ended FILE: the record holds its end line.
ended() { grep -q '"type":"end"' "$1" 2>/dev/null; }

# ---- phases end with the work -------------------------------------------
# A 192 MiB cp in the dashboard, left on screen for a while after it ended,
# then q: the last phase ends at the copy's end, so its rate agrees with
# the summary's.
head -c 192M /dev/zero > "$T/big"
tm_start ph 120x40 "'$BENCHTOP' -i 0.2 -o '$T/ph.jsonl' -- cp '$T/big' '$T/big.copy' 2>'$T/ph.err'"
wait_for 60 screen_has ph "all workloads have ended"
check "finished run: stays on screen" screen_has ph "all workloads have ended"
# some samples after the end (counted in the record, not timed)
n_end=$(grep -c '"type":"sample"' "$T/ph.jsonl")
wait_for 30 sh -c "[ \$(grep -c '\"type\":\"sample\"' '$T/ph.jsonl') -ge $((n_end + 15)) ]"
tm_keys ph q
wait_for 30 ended "$T/ph.jsonl"
echo "# summary $(jq -c 'select(.type=="end") | .summary' "$T/ph.jsonl") phases $(jq -c 'select(.type=="end") | .phases | map({from,to,bps})' "$T/ph.jsonl")"
check "finished run: one phase that ends by the copy's end" quiet jq -se '
	(.[] | select(.type=="end")) as $e | ($e.phases | length) == 1 and
	($e.phases[0].to <= $e.summary[0].elapsed + 0.6) and
	([.[] | select(.type=="sample") | .t] | last) > $e.phases[0].to + 1' "$T/ph.jsonl"
check "finished run: the phase's rate and the summary's agree (within 25%)" quiet jq -se '
	(.[] | select(.type=="end")) as $e | ($e.phases[0].bps / $e.summary[0].bps) as $r |
	$r > 0.75 and $r < 1.25' "$T/ph.jsonl"
tm_kill ph

finish

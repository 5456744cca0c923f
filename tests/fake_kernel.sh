#!/usr/bin/env bash
# fake_kernel.sh ROOT [SECONDS]: play the kernel for a fake sysfs tree made
# by tests/fakesys.sh.  Every 100 ms, for each policy, add 10 (time_in_state
# counts 10 ms units) to the row its governor implies - performance: the
# highest frequency within scaling_max_freq, powersave: the lowest within
# scaling_min_freq, any other: the middle one - and set scaling_cur_freq to
# it.  Runs until killed, for SECONDS, or until ROOT is removed.
set -u
root=${1:?usage: fake_kernel.sh ROOT [SECONDS]}
secs=${2:-0}
base=$root/devices/system/cpu

# Real policy directories: policyN, or per-CPU dirs that are not symlinks.
policy_dirs() {
	local d
	for d in "$base"/cpufreq/policy*; do [ -d "$d" ] && echo "$d"; done
	for d in "$base"/cpu[0-9]*/cpufreq; do [ -d "$d" ] && [ ! -L "$d" ] && echo "$d"; done
}

num() { [[ $1 =~ ^[0-9]+$ ]] && echo "$1" || echo "$2"; }

# tick DIR: one 100 ms step of one policy.
tick() {
	local d=$1 gov="" lo=0 hi=999999999 i pick=-1 khz=() val=() sel=() k v
	read -r gov <"$d/scaling_governor" 2>/dev/null
	read -r lo <"$d/scaling_min_freq" 2>/dev/null; lo=$(num "$lo" 0)
	read -r hi <"$d/scaling_max_freq" 2>/dev/null; hi=$(num "$hi" 999999999)
	[ -f "$d/stats/time_in_state" ] || { [ -f "$d/scaling_available_frequencies" ] || return 0; }
	if [ -f "$d/stats/time_in_state" ]; then
		while read -r k v; do
			[[ $k =~ ^[0-9]+$ && $v =~ ^[0-9]+$ ]] || return 0
			khz+=("$k") val+=("$v")
		done <"$d/stats/time_in_state"
	else
		read -r -a khz <"$d/scaling_available_frequencies"
	fi
	for i in "${!khz[@]}"; do
		[ "${khz[i]}" -ge "$lo" ] && [ "${khz[i]}" -le "$hi" ] && sel+=("$i")
	done
	[ ${#sel[@]} -gt 0 ] || return 0
	case $gov in
	performance) pick=${sel[${#sel[@]}-1]} ;;
	powersave) pick=${sel[0]} ;;
	*) pick=${sel[$(( ${#sel[@]} / 2 ))]} ;;
	esac
	if [ ${#val[@]} -gt 0 ]; then
		val[pick]=$(( val[pick] + 10 ))
		: >"$d/stats/.tis.tmp"
		for i in "${!khz[@]}"; do echo "${khz[i]} ${val[i]}" >>"$d/stats/.tis.tmp"; done
		mv -f "$d/stats/.tis.tmp" "$d/stats/time_in_state"
	fi
	echo "${khz[pick]}" >"$d/.cur.tmp" && mv -f "$d/.cur.tmp" "$d/scaling_cur_freq"
}

# The same kernel in C (tests/helpers/fake_kernel.c: no process per step,
# and the time a busy machine delays a step is counted): build/tests'
# copy when it is up to date, else one compiled into ROOT; the shell
# steps below only where no compiler is.
here=$(dirname "$0")
bin=$here/../build/tests/fake_kernel
if [ ! -x "$bin" ] || [ "$here/helpers/fake_kernel.c" -nt "$bin" ]; then
	bin=$root/.fake_kernel
	cc -std=c17 -O1 -o "$bin" "$here/helpers/fake_kernel.c" 2>/dev/null || bin=
fi
[ -n "$bin" ] && exec "$bin" "$root" "$secs"

mapfile -t dirs < <(policy_dirs)
n=0
while [ "$secs" = 0 ] || [ $n -lt $(( secs * 10 )) ]; do
	[ -d "$base" ] || exit 0
	for d in "${dirs[@]}"; do tick "$d"; done
	sleep 0.1
	n=$((n + 1))
done

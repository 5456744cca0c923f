#!/usr/bin/env bash
# fakesys.sh DIR [options]: build a fake sysfs tree with cpufreq files shaped
# like a real kernel's, for benchtop --sysfs DIR and the unit tests.
#
#   --cpus N               CPUs (default 2)
#   --layout policy|percpu policyN dirs + cpuN/cpufreq symlinks (default),
#                          or real cpuN/cpufreq dirs only (older kernels)
#   --per-policy K         CPUs sharing one policy (default 1)
#   --governors "a b c"    scaling_available_governors
#                          (default "performance powersave ondemand schedutil")
#   --governor NAME        the current governor (default: ondemand if listed,
#                          else the first)
#   --freqs "f1 f2 ..."    available frequencies in kHz, ascending
#                          (default "800000 1600000 2600000")
#   --driver NAME          scaling_driver (default acpi-cpufreq)
#   --no-stats             no stats/ directory
#   --junk                 junk content in every file
set -eu

usage() { echo "usage: $0 DIR [--cpus N] [--layout policy|percpu] [--per-policy K] [--no-stats] [--junk] [--governors LIST] [--governor NAME] [--freqs LIST] [--driver NAME]" >&2; exit 2; }

[ $# -ge 1 ] || usage
root=$1; shift
cpus=2 layout=policy per=1 stats=1 junk=0 driver=acpi-cpufreq
govs="performance powersave ondemand schedutil" gov="" freqs="800000 1600000 2600000"
while [ $# -gt 0 ]; do
	case $1 in
	--cpus) cpus=$2; shift ;;
	--layout) layout=$2; shift ;;
	--per-policy) per=$2; shift ;;
	--governors) govs=$2; shift ;;
	--governor) gov=$2; shift ;;
	--freqs) freqs=$2; shift ;;
	--driver) driver=$2; shift ;;
	--no-stats) stats=0 ;;
	--junk) junk=1 ;;
	*) usage ;;
	esac
	shift
done
case $layout in policy|percpu) ;; *) usage ;; esac
if [ -z "$gov" ]; then
	case " $govs " in *" ondemand "*) gov=ondemand ;; *) gov=${govs%% *} ;; esac
fi
read -r -a fa <<<"$freqs"
fmin=${fa[0]:-0} fmax=${fa[${#fa[@]}-1]:-0}
fmid=${fa[$(( ${#fa[@]} / 2 ))]:-0}

# The CPUs of the policy that starts at CPU first, space separated, in
# $list (no subshell: a tree is built without a process per file).
members() {
	local first=$1 c
	list=""
	for ((c = first; c < first + per && c < cpus; c++)); do list+="${list:+ }$c"; done
}

# fill DIR CPUS: one policy directory's files.
fill() {
	local d=$1 list=$2 f
	echo "$list" >"$d/affected_cpus"
	echo "$list" >"$d/related_cpus"
	echo "$govs" >"$d/scaling_available_governors"
	echo "$gov" >"$d/scaling_governor"
	echo "$freqs" >"$d/scaling_available_frequencies"
	echo "$driver" >"$d/scaling_driver"
	echo "$fmin" >"$d/cpuinfo_min_freq"
	echo "$fmax" >"$d/cpuinfo_max_freq"
	echo "$fmin" >"$d/scaling_min_freq"
	echo "$fmax" >"$d/scaling_max_freq"
	echo "$fmid" >"$d/scaling_cur_freq"
	echo "<unsupported>" >"$d/scaling_setspeed"
	if [ "$stats" = 1 ]; then
		: >"$d/stats/time_in_state"
		for f in "${fa[@]}"; do echo "$f 0" >>"$d/stats/time_in_state"; done
		echo 0 >"$d/stats/total_trans"
		echo "" >"$d/stats/reset"
	fi
	if [ "$junk" = 1 ]; then junkify "$d"; fi
}

# Junk of a different kind in every file: binary, negative, huge, words.
junkify() {
	local d=$1 i=0 f
	local kinds=('' '-5' '99999999999999999999' 'garbage here' $'\x01\x02\xff' 'nan' '0x10' ' 12 34' $'800000 x\n1600000' 'performance\tpowersave')
	for f in "$d"/* "$d"/stats/*; do
		[ -f "$f" ] || continue
		printf '%s' "${kinds[i % ${#kinds[@]}]}" >"$f"
		i=$((i + 1))
	done
}

base=$root/devices/system/cpu
# Every directory first, in one mkdir; then the files (shell builtins
# only); then the links.
dirs=("$base") pols=() lists=() links=()
c=0
while [ $c -lt "$cpus" ]; do
	members $c
	if [ "$layout" = policy ]; then
		pols+=("$base/cpufreq/policy$c") lists+=("$list")
		for m in $list; do dirs+=("$base/cpu$m") links+=("../cpufreq/policy$c" "$base/cpu$m/cpufreq"); done
	else
		for m in $list; do pols+=("$base/cpu$m/cpufreq") lists+=("$list"); done
	fi
	c=$((c + per))
done
for d in "${pols[@]}"; do
	dirs+=("$d")
	[ "$stats" = 1 ] && dirs+=("$d/stats")
done
mkdir -p "${dirs[@]}"
for i in "${!pols[@]}"; do fill "${pols[i]}" "${lists[i]}"; done
for ((i = 0; i < ${#links[@]}; i += 2)); do ln -sfn "${links[i]}" "${links[i + 1]}"; done
n=$((cpus - 1))
echo "0-$n" >"$base/online"
echo "0-$n" >"$base/possible"
echo "0-$n" >"$base/present"

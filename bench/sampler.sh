#!/usr/bin/env bash
# The sampler's cost per tick with 1, 16 and 128 tracked processes (CPU
# time and callgrind instructions), top's cost per refresh in the same run,
# the ratio, and the tick schedule (samples per second at 0.1 s).
# Part of `make bench`, never of `make check`: figures, not assertions.
set -eu
cd "$(dirname "$0")/.."
mkdir -p build/bench
CFLAGS="-std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -Iinclude $(pkg-config --cflags libproc2)"
OBJS="$(ls src/kernel/sample*.c src/kernel/ptree.c | sed 's|^|build/|; s|\.c$|.o|' | tr '\n' ' ') build/src/model/model.o $(ls src/base/*.c | sed 's|^|build/|; s|\.c$|.o|' | tr '\n' ' ') build/build/gen/builtin_files.o"
make -s $OBJS
cc $CFLAGS -o build/bench/tick bench/tick.c $OBJS $(pkg-config --libs libproc2) -lm
T=build/bench/tick

echo "== sampler tick cost (sleeping children, measure_io on)"
declare -A US
for n in 1 16 128 1000; do
	ticks=2000
	[ "$n" = 1000 ] && ticks=100
	line=$($T cost $n $ticks)
	echo "$line"
	US[$n]=$(echo "$line" | sed -n 's/.*cpu_us_per_tick=\([0-9.]*\).*/\1/p')
done

echo "== callgrind instructions per tick (toggle-collect on sampler_tick)"
if command -v valgrind >/dev/null; then
	for n in 1 16 128; do
		for ticks in 100 200; do
			out=build/bench/callgrind.$n.$ticks
			valgrind --tool=callgrind --toggle-collect=sampler_tick \
				--callgrind-out-file=$out $T callgrind $n $ticks >/dev/null 2>&1
			eval "ir_$ticks=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' $out)"
		done
		# 200 ticks minus 100 ticks: the set-up ticks cancel out
		echo "procs=$n instructions_per_tick=$(( (ir_200 - ir_100) / 100 ))"
	done
else
	echo "valgrind not installed: skipped"
fi

echo "== top -b -d 0.1 -n 50, same run"
line=$($T top 50)
echo "$line"
top_us=$(echo "$line" | sed -n 's/.*cpu_us_per_refresh=\([0-9.]*\).*/\1/p')
awk -v t="${US[16]}" -v top="$top_us" 'BEGIN {
	r = top > 0 ? t / top : 0
	printf "ratio tick(16 procs) / top refresh = %.3f (target <= 0.125: %s)\n", r, r <= 0.125 ? "met" : "NOT met"
}'
awk -v a="${US[16]}" -v b="${US[128]}" 'BEGIN { if (a > 0) printf "growth: tick(128) / tick(16) = %.1fx for 8x the processes\n", b / a }'

echo "== 1000 tracked processes, every one read every tick, against one top -b -n 1 of the same machine"
line=$($T top1 1000)
echo "$line"
awk -v t="${US[1000]}" -v top="$(echo "$line" | sed -n 's/.*cpu_us_top_n1=\([0-9.]*\).*/\1/p')" 'BEGIN {
	printf "tick(1000 procs) = %.0f us, top -b -n 1 = %.0f us: %s\n", t, top, t <= top ? "met (at or under)" : "NOT met"
}'
awk -v a="${US[16]}" -v b="${US[1000]}" 'BEGIN { if (a > 0) printf "growth: tick(1000) / tick(16) = %.1fx for 62.5x the processes\n", b / a }'
echo "== memcpy bandwidth (measured once per boot, after a run's last sample; no sample rate may pass twice it)"
$T membw

echo "== tick schedule: absolute CLOCK_MONOTONIC timerfd at 0.1 s for 10 s"
$T schedule 10

echo "== benchtop's own loop: -i 0.1 for 10 s (samples per second; top, htop, btop reach 8.8-9.6 here)"
if [ -x ./benchtop ]; then
	n=$(./benchtop -b --format json -i 0.1 -t 10 -- sleep 20 2>/dev/null | grep -c '"type":"sample"')
	# the last sample is the one taken after the run stopped
	awk -v n="$n" 'BEGIN { printf "benchtop: %d samples in 10 s = %.1f samples/s\n", n - 1, (n - 1) / 10 }'
fi

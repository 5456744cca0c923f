#!/usr/bin/env bash
# What --metrics and --metrics-listen add to a tick, with 2 CPUs x 16
# processes: the CPU to render and atomically rewrite the metrics file, and
# the CPU the loop spends answering one scrape, next to the sampler's own
# tick with 16 tracked processes measured in the same run.  The target is
# under 10% of the tick's CPU for each.  Part of `make bench`: figures,
# not assertions.
set -eu
cd "$(dirname "$0")/.."
mkdir -p build/bench
CFLAGS="-std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -Iinclude $(pkg-config --cflags libproc2 libmicrohttpd)"
LIBS="$(pkg-config --libs libproc2 libmicrohttpd) -lm"
BASE="$(ls src/base/*.c | sed 's|^|build/|; s|\.c$|.o|' | tr '\n' ' ') build/build/gen/builtin_files.o"
CLI=$(ls src/cli/*.c | sed 's|^|build/|; s|\.c$|.o|' | tr '\n' ' ')
MOBJS="build/src/emit/metrics.o build/src/emit/metrics_http.o build/src/model/model.o build/src/model/event.o $CLI $BASE"
TOBJS="$(ls src/kernel/sample*.c src/kernel/ptree.c | sed 's|^|build/|; s|\.c$|.o|' | tr '\n' ' ') \
	build/src/model/model.o $BASE"
# shellcheck disable=SC2086
make -s $MOBJS $TOBJS
# shellcheck disable=SC2086
cc $CFLAGS -o build/bench/metrics bench/metrics.c $MOBJS $LIBS
# shellcheck disable=SC2086
cc $CFLAGS -o build/bench/tick bench/tick.c $TOBJS $LIBS

# The same file written on tmpfs, where the directory's own cost is small:
# the difference is what the filesystem charges for a create and a rename.
shm=""
[ -d /dev/shm ] && [ -w /dev/shm ] && shm=$(TMPDIR=/dev/shm build/bench/metrics file 2000)
tick=$(build/bench/tick cost 16 2000)
render=$(build/bench/metrics render 5000)
file=$(build/bench/metrics file 2000)
scrape=$(build/bench/metrics scrape 1000)
scrape_new=$(build/bench/metrics scrape-new 500)
# benchtop's own whole tick (sampler, cpufreq, workloads, placement) with
# 16 sleeping processes, as a run reports it in self_tick_us.
whole=""
if [ -x ./benchtop ] && command -v jq >/dev/null; then
	whole=$(TMPDIR=${TMPDIR:-/tmp} ./benchtop -b --format json -t 5 -- \
		sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do sleep 30 & done; wait' 2>/dev/null |
		jq -s '[.[] | select(.type == "sample") | .self_tick_us] | add / length' 2>/dev/null || true)
fi
echo "sampler tick:   $tick"
[ -n "$whole" ] && echo "benchtop tick (self_tick_us, 17 processes): $whole"
echo "$render"
echo "$file"
[ -n "$shm" ] && echo "$shm (on /dev/shm)"
echo "$scrape"
echo "$scrape_new"
fig() { sed -n "s/.*$1=\\([0-9.]*\\).*/\\1/p" <<<"$2"; }
awk -v t="$(fig cpu_us_per_tick "$tick")" -v r="$(fig cpu_us_per_render "$render")" \
	-v f="$(fig cpu_us_per_write "$file")" -v m="$(fig cpu_us_per_write "$shm")" \
	-v s="$(fig cpu_us_per_scrape "$scrape")" -v n="$(fig cpu_us_per_scrape "$scrape_new")" \
	-v w="${whole:-0}" 'BEGIN {
	if (t <= 0) { print "no tick figure"; exit 1 }
	line("rendering the exposition", r)
	line("metrics file per tick (here)", f)
	if (m > 0) line("metrics file per tick on tmpfs", m)
	line("one scrape, kept-alive connection", s)
	line("one scrape, new connection", n)
}
function line(what, v) {
	printf "%-34s / sampler tick = %5.1f%% (target < 10%%: %s)", what, 100 * v / t, v / t < 0.1 ? "met" : "NOT met"
	if (w > 0)
		printf "; / benchtop tick = %4.1f%% (%s)", 100 * v / w, v / w < 0.1 ? "met" : "NOT met"
	printf "\n"
}'

#!/usr/bin/env bash
# --metrics FILE and --metrics-listen against the real Prometheus tools:
# promtool checks the file and the endpoint, node_exporter's textfile
# collector serves the file, a Prometheus server scrapes two benchtops and
# its query API returns their byte counters, increasing and equal to a
# sample of each run's own JSON Lines; replay and the dashboard serve too;
# a port in use, a bad address and an unwritable directory are refused
# with nothing left behind.  All traffic on 127.0.0.1, ports picked free at
# run time, every server this script starts is stopped at the end.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh

for tool in curl jq promtool prometheus prometheus-node-exporter; do
	command -v "$tool" >/dev/null || skip_all "$tool not installed (make check installs it)"
done
need_benchtop
own_dirs
T=$E2E_TMP
mkdir -p "$T/tf"

# (every process started in the background is bg_track'ed: lib.sh ends
# them at exit, whatever happens)

# A command workload that writes about 2 MB/s for a long while:
# slow_writer FILE [N]: N (2000) writes of 100 kB, 0.05 s apart.
slow_writer() { echo "i=0; while [ \$i -lt ${2:-2000} ]; do head -c 100000 /dev/zero; sleep 0.05; i=\$((i+1)); done > $1"; }

# ---- the file and the endpoint, checked by promtool ------------------------

P1=$(free_port)
# (-t far off: the checks below end it with SIGTERM when they are done,
# however slow the machine is)
"$BENCHTOP" -b -t 300 -i 0.2 --metrics "$T/tf/benchtop.prom" --metrics-listen "$P1" \
	-w "cmd:run=$(slow_writer "$T/out1")" >"$T/run1.out" 2>"$T/run1.err" &
B1=$!
bg_track "$B1"
if wait_for 10 test -s "$T/tf/benchtop.prom"; then ok "--metrics writes the file while the run goes on"
else fail "no metrics file: $(cat "$T/run1.err")"; fi
if out=$(promtool check metrics <"$T/tf/benchtop.prom" 2>&1); then ok "promtool check metrics accepts the file"
else fail "promtool on the file: $out"; fi
check "the file has the workload, process, event, self and build families" \
	grep -q -e '^benchtop_workload_bytes_total{workload="1"} [0-9]' "$T/tf/benchtop.prom"
for fam in benchtop_workload_throughput_bytes_per_second benchtop_workload_cpu_seconds_total \
	benchtop_workload_info benchtop_process_cpu_seconds_total benchtop_process_cpu \
	benchtop_process_migrations_total benchtop_events_total benchtop_self_cpu_seconds_total \
	benchtop_build_info; do
	grep -q "^# TYPE $fam " "$T/tf/benchtop.prom" || fail "family $fam missing from the file"
done
# This machine has no frequency source unless a fake tree says so: absent, not zero.
if grep -q '"freq_source":"none"' <("$BENCHTOP" -b -t 0.3 --format json -- sleep 1 2>/dev/null | head -1); then
	check "no frequency families without a frequency source" \
		bash -c "! grep -q 'benchtop_cpu_frequency_hertz\|benchtop_cpu_residency' '$T/tf/benchtop.prom'"
else
	skip "this machine has a frequency source: the absent-family case is in test_metrics"
fi
# (each interval's text is written beside it and renamed over it: one
# look may catch that; a file left behind is in every look)
only_prom() {
	local i
	for i in 1 2 3 4 5; do
		[ "$(ls -A "$T/tf" | wc -l)" = 1 ] && return 0
		sleep 0.03
	done
	return 1
}
check "no temporary file beside it ($(ls -A "$T/tf" | tr '\n' ' '))" only_prom

text=$(curl -s --max-time 5 "http://127.0.0.1:$P1/metrics")
if out=$(promtool check metrics <<<"$text" 2>&1) && grep -q '^benchtop_workload_bytes_total' <<<"$text"; then
	ok "promtool check metrics accepts the endpoint's text format"
else fail "promtool on the endpoint: $out"; fi
ctype=$(curl -s --max-time 5 -o /dev/null -w '%{content_type}' "http://127.0.0.1:$P1/metrics")
check "text format by default (Content-Type $ctype)" grep -q '^text/plain; version=0.0.4' <<<"$ctype"
curl -s --max-time 5 -D "$T/om.headers" -o "$T/om.txt" \
	-H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	"http://127.0.0.1:$P1/metrics"
check "OpenMetrics when the Accept header asks for it" \
	grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$T/om.headers"
check "OpenMetrics ends with # EOF" test "$(tail -1 "$T/om.txt")" = "# EOF"
check "OpenMetrics: counter family without _total, UNIT line, samples with _total" \
	bash -c "grep -q '^# TYPE benchtop_workload_bytes counter' '$T/om.txt' &&
	         grep -q '^# UNIT benchtop_workload_bytes bytes' '$T/om.txt' &&
	         grep -q '^benchtop_workload_bytes_total{workload=\"1\"}' '$T/om.txt'"
check "OpenMetrics: info families" grep -q '^# TYPE benchtop_build info' "$T/om.txt"
code=$(http_code "http://127.0.0.1:$P1/")
check "another path is 404 (got $code)" test "$code" = 404
code=$(http_code -X POST -d x=1 "http://127.0.0.1:$P1/metrics")
check "another method is 405 (got $code)" test "$code" = 405
code=$(http_code -I "http://127.0.0.1:$P1/metrics")
check "HEAD is allowed (got $code)" test "$code" = 200

# Clients that connect and say nothing never hold up the ticks (the run
# prints a line every 0.2 s), nor shut out a scraper from the same
# address: once they have been silent a while, a newcomer takes the place
# of the oldest (scrapers.sh has slow requests and a real Prometheus).
exec 5<>"/dev/tcp/127.0.0.1/$P1" 6<>"/dev/tcp/127.0.0.1/$P1" 7<>"/dev/tcp/127.0.0.1/$P1" \
	8<>"/dev/tcp/127.0.0.1/$P1"
lines0=$(wc -l <"$T/run1.out")
served() { [ "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P1/metrics")" = 200 ]; }
check "a fifth connection is served while 4 idle ones are open" wait_for 5 served
grown() { [ "$(wc -l <"$T/run1.out")" -ge $((lines0 + 5)) ]; }
check "ticks go on while idle clients hold connections (5 more lines after $lines0)" wait_for 20 grown
exec 5>&- 6>&- 7>&- 8>&-
code=$(http_code "http://127.0.0.1:$P1/metrics")
check "served again once they are gone (got $code)" test "$code" = 200

# ---- node_exporter's textfile collector ------------------------------------

NP=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NP" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$T/tf" >"$T/node.log" 2>&1 &
bg_track "$!"
scrape_node() { curl -s --max-time 5 "http://127.0.0.1:$NP/metrics" >"$T/node.txt" 2>/dev/null &&
                grep -q '^benchtop_workload_bytes_total{workload="1"}' "$T/node.txt"; }
if wait_for 15 scrape_node; then ok "node_exporter's textfile collector serves benchtop_workload_bytes_total"
else fail "node_exporter did not serve benchtop's families: $(tail -3 "$T/node.log")"; fi
check "node_exporter serves benchtop's other families" \
	bash -c "grep -q '^benchtop_build_info{version=' '$T/node.txt' && grep -q '^benchtop_process_cpu{' '$T/node.txt'"
check "node_exporter read the file without error" grep -q '^node_textfile_scrape_error 0' "$T/node.txt"

kill -TERM "$B1"
wait "$B1"
rc=$?
check "the run ends well on SIGTERM (exit $rc)" test "$rc" = 0
check "the metrics file is removed at the end" test ! -e "$T/tf/benchtop.prom"
check "the port is closed at the end" bash -c "! curl -s --max-time 2 http://127.0.0.1:$P1/metrics >/dev/null"
"$BENCHTOP" -b -t 0.5 --keep --metrics "$T/kept.prom" -- sleep 2 >/dev/null 2>&1
check "--keep leaves the metrics file" grep -q '^benchtop_build_info' "$T/kept.prom"

# ---- a real Prometheus scrapes two benchtops --------------------------------

# Instance b runs on a fake cpufreq tree under powersave, with a kernel
# playing it: its frequency families are there, at the lowest frequency.
PA=$(free_port) PB=$(free_port) PP=$(free_port)
FS=$T/sysfs
bash tests/fakesys.sh "$FS" --cpus 2 >/dev/null
fake_kernel_start "$FS" 120
bg_track "$FAKE_KERNEL"
# (both run until the checks below are done, however slow the machine:
# then SIGTERM ends them, and their recordings end whole)
RUNS=()
for x in a b; do
	port=$PA extra=()
	[ $x = b ] && port=$PB extra=(--sysfs "$FS" --governor powersave)
	"$BENCHTOP" -b -t 900 -o "$T/rec_$x.jsonl" --metrics-listen "127.0.0.1:$port" "${extra[@]}" \
		-w "cmd:run=$(slow_writer "$T/out_$x" 20000)" >"$T/run_$x.out" 2>"$T/run_$x.err" &
	bg_track "$!"
	RUNS+=("$!")
done
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: benchtop
    static_configs:
      - targets: ['127.0.0.1:$PA', '127.0.0.1:$PB']
EOF
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/promdata" \
	--web.listen-address="127.0.0.1:$PP" --log.level=warn >"$T/prom.log" 2>&1 &
bg_track "$!"
API="http://127.0.0.1:$PP/api/v1"

# query EXPR: "instance value" lines, sorted by instance.
query() {
	curl -s --max-time 5 --data-urlencode "query=$1" "$API/query" |
		jq -r '.data.result[] | "\(.metric.instance) \(.value[1])"' 2>/dev/null | sort
}
both() { [ "$(query 'benchtop_workload_bytes_total{workload="1"}' | wc -l)" = 2 ]; }
if wait_for 40 both; then ok "Prometheus has benchtop_workload_bytes_total for both instances"
else fail "Prometheus did not get both instances: $(query 'up'; tail -3 "$T/prom.log")"; fi
first=$(query 'benchtop_workload_bytes_total{workload="1"}')
grown() {
	now=$(query 'benchtop_workload_bytes_total{workload="1"}')
	[ "$(wc -l <<<"$now")" = 2 ] &&
		join <(echo "$first") <(echo "$now") | awk '$3 > $2 { n++ } END { exit n == 2 ? 0 : 1 }'
}
if wait_for 10 grown; then ok "both instances' counters increase between two queries"
else fail "counters did not increase: first [$first] now [$now]"; fi
# (each below is Prometheus's view at the latest scrape: one late on a
# busy machine marks a target down or a series stale for a moment, so
# each is waited for)
check "both targets are up (OpenMetrics scraped without error)" wait_for 20 bash -c "
	curl -s --max-time 5 '$API/targets' | jq -e '[.data.activeTargets[] | select(.health == \"up\" and .lastError == \"\")] | length == 2' >/dev/null"
# Prometheus asked for OpenMetrics and parsed it: the family's metadata
# carries the UNIT line, which only that format has.
check "Prometheus read OpenMetrics (metadata: counter benchtop_workload_bytes, unit bytes)" wait_for 20 bash -c "
	curl -s --max-time 5 '$API/metadata?metric=benchtop_workload_bytes' |
	jq -e '.data.benchtop_workload_bytes[0] | .type == \"counter\" and .unit == \"bytes\"' >/dev/null"
# The values are the runs' own: each equals the bytes of a sample in that
# run's JSON Lines (the last tick scraped), so they agree within one tick.
match=0
while read -r inst val; do
	x=a; [ "$inst" = "127.0.0.1:$PB" ] && x=b
	if jq -r 'select(.type == "sample") | .workloads[0].bytes' "$T/rec_$x.jsonl" | grep -qx "$val"; then
		match=$((match + 1))
	else
		echo "# $inst: $val not among $(jq -r 'select(.type == "sample") | .workloads[0].bytes' "$T/rec_$x.jsonl" | tail -3 | tr '\n' ' ')"
	fi
done <<<"$now"
check "each instance's value is a sample of its own JSON Lines (within one tick)" test "$match" = 2
fleet() { rate=$(query 'sum(rate(benchtop_workload_bytes_total[10s]))' | awk '{ print $2 }')
	awk -v r="${rate:-0}" 'BEGIN { exit r > 0 ? 0 : 1 }'; }
check "the fleet copy rate query answers" wait_for 20 fleet
slowest() { [ "$(query 'bottomk(1, sum by (instance) (rate(benchtop_workload_bytes_total[10s])))' | wc -l)" = 1 ]; }
check "the slowest host query answers one host" wait_for 20 slowest
check "the fake-tree instance has frequency families in Prometheus" wait_for 20 bash -c "
	[ \"\$(curl -s --max-time 5 --data-urlencode 'query=benchtop_cpu_frequency_hertz{instance=\"127.0.0.1:$PB\"}' '$API/query' |
	     jq '.data.result | length')\" = 2 ]"
# README's third query: time at the lowest frequency per host
lowest='sum by (instance) (
  benchtop_cpu_residency_seconds_total
    and on (instance, cpu, frequency_hertz)
  count_values by (instance, cpu) ("frequency_hertz", min_over_time(benchtop_cpu_frequency_hertz[1d]))
)'
at_lowest() {
	low=$(query "$lowest")
	grep -q "^127.0.0.1:$PB [0-9.]*[1-9]" <<<"$low"
}
if wait_for 15 at_lowest; then ok "the lowest-frequency query answers seconds for the powersave host ($low)"
else fail "lowest-frequency query: [$low]"; fi
check "those seconds are at 800 MHz, the tree's lowest" wait_for 20 bash -c "
	curl -s --max-time 5 --data-urlencode 'query=benchtop_cpu_residency_seconds_total{instance=\"127.0.0.1:$PB\",frequency_hertz=\"800000000\"} > 0' '$API/query' |
	jq -e '.data.result | length == 2' >/dev/null"
kill -TERM "${RUNS[@]}" 2>/dev/null
for p in "${RUNS[@]}"; do wait "$p"; done
bg_stop

# ---- replay serves the recording as it plays --------------------------------

PR=$(free_port)
"$BENCHTOP" --replay "$T/rec_a.jsonl" -b --metrics-listen "$PR" --metrics "$T/replay.prom" \
	>"$T/replay.out" 2>"$T/replay.err" &
bg_track "$!"
rget() { curl -s --max-time 5 "http://127.0.0.1:$PR/metrics" | sed -n 's/^benchtop_workload_bytes_total{workload="1"} //p'; }
r1=""
wait_for 10 bash -c "curl -s --max-time 2 http://127.0.0.1:$PR/metrics | grep -q '^benchtop_workload_bytes_total'" && r1=$(rget)
grows() { r2=$(rget); [ -n "$r2" ] && [ "$r2" -gt "${r1:-0}" ]; }
if [ -n "$r1" ] && wait_for 10 grows; then ok "replay -b serves the recording's bytes as they play ($r1 -> $r2)"
else fail "replay served [$r1] then [$r2]: $(cat "$T/replay.err")"; fi
check "the replayed value is one of the recording's samples" \
	bash -c "jq -r 'select(.type == \"sample\") | .workloads[0].bytes' '$T/rec_a.jsonl' | grep -qx '$r2'"
if out=$(promtool check metrics <"$T/replay.prom" 2>&1); then ok "promtool accepts the replay's metrics file"
else fail "promtool on the replay file: $out"; fi
bg_stop
check "replay removes its metrics file" test ! -e "$T/replay.prom"

# ---- the dashboard serves too (live run, and a replay) ----------------------

PD=$(free_port)
tm_start live 100x30 "cd '$T' && '$BENCHTOP' -t 30 --metrics-listen $PD -w 'cmd:run=$(slow_writer "$T/out_d")' 2>'$T/dash.err'"
if wait_for 15 bash -c "curl -s --max-time 2 http://127.0.0.1:$PD/metrics | grep -q '^benchtop_workload_bytes_total{workload=\"1\"} [1-9]'"; then
	ok "the dashboard serves /metrics while it runs"
else fail "the dashboard did not serve: $(tm_screen live | tail -3; cat "$T/dash.err")"; fi
tm_keys live q
wait_for 10 bash -c "! curl -s --max-time 1 http://127.0.0.1:$PD/metrics >/dev/null" || fail "the dashboard's port stays open after q"
tm_kill live
PD2=$(free_port)
tm_start replay 100x30 "'$BENCHTOP' --replay '$T/rec_a.jsonl' --metrics-listen $PD2 2>'$T/dashr.err'"
if wait_for 15 bash -c "curl -s --max-time 2 http://127.0.0.1:$PD2/metrics | grep -q '^benchtop_workload_bytes_total{workload=\"1\"} [1-9]'"; then
	ok "a replay in the dashboard serves /metrics"
else fail "the replay dashboard did not serve: $(cat "$T/dashr.err")"; fi
tm_keys replay q
tm_kill replay

# ---- refusals: clear errors, exit 2 or 3, nothing left behind ---------------

# refused NAME STATUS WORD ARGS...: benchtop exits STATUS, says WORD, and
# leaves no record, no scratch directory (a write workload makes one), and
# started nothing (the command's output file never appears).
refused() {
	local name=$1 want=$2 word=$3
	shift 3
	rm -rf "$TMPDIR"/* "$T/refused.jsonl"
	timeout 20 "$BENCHTOP" -b -t 10 -o "$T/refused.jsonl" "$@" -w write:size=1M,bs=64k \
		-w "cmd:run=$(slow_writer "$T/out_r")" >/dev/null 2>"$T/refused.err"
	local rc=$?
	local left
	left=$(ls -A "$TMPDIR"; [ -e "$T/refused.jsonl" ] && echo refused.jsonl; [ -e "$T/out_r" ] && echo out_r)
	if [ "$rc" = "$want" ] && grep -qF -- "$word" "$T/refused.err" && [ -z "$left" ]; then
		ok "$name: exit $rc, says \"$word\", nothing left"
	else
		fail "$name: exit $rc (want $want), said: $(cat "$T/refused.err"); left: $left"
	fi
	rm -f "$T/out_r"
}

# a port in use: a listener of our own holds it
PU=$(free_port)
"$BENCHTOP" -b -t 30 --metrics-listen "$PU" -- sleep 60 >/dev/null 2>&1 &
bg_track "$!"
wait_for 10 bash -c "curl -s --max-time 1 http://127.0.0.1:$PU/metrics >/dev/null" || fail "no listener to collide with"
refused "a port in use" 3 "127.0.0.1:$PU" --metrics-listen "$PU" --metrics "$T/tf/x.prom"
check "a port in use leaves no metrics file" test ! -e "$T/tf/x.prom"
bg_stop
refused "a malformed address" 2 "300.1.1.1" --metrics-listen "300.1.1.1:$(free_port)"
refused "a malformed port" 2 "99999" --metrics-listen "99999"
refused "an address not on this machine" 3 "192.0.2.1" --metrics-listen "192.0.2.1:$(free_port)"
refused "a metrics directory that does not exist" 3 "$T/nodir" --metrics "$T/nodir/benchtop.prom"
refused "a metrics directory that is a file" 3 "$T/run1.out" --metrics "$T/run1.out/benchtop.prom"
refused "a metrics directory the kernel refuses" 3 "/proc" --metrics "/proc/benchtop.prom"
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$T/ro" && chmod 555 "$T/ro"
	refused "a read-only metrics directory" 3 "$T/ro" --metrics "$T/ro/benchtop.prom"
	check "nothing written in the read-only directory" test -z "$(ls -A "$T/ro")"
	chmod 755 "$T/ro"
else
	skip "a read-only directory does not stop root (the missing, non-directory and /proc cases run)"
fi
echo mine >"$T/tf/theirs.prom"
refused "an existing metrics file without --force" 3 "--force" --metrics "$T/tf/theirs.prom"
check "the existing file is untouched" test "$(cat "$T/tf/theirs.prom")" = mine
finish

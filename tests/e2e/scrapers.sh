#!/usr/bin/env bash
# scrapers.sh - slow clients cannot shut /metrics off.  Four connections
# from another address and four from the scraper's own send a header line
# every 4 s and reconnect as soon as they are closed; a real Prometheus
# scraping every second still gets its scrapes (its own up series), and
# the slow connections are closed by benchtop (seen by the clients).
# Requests without Host get 400.  Loopback only (127.0.0.1, 127.0.0.2),
# ports picked free at run time, every process started here is stopped.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh
for tool in curl jq prometheus python3; do
	command -v "$tool" >/dev/null || skip_all "$tool not installed (make check installs it)"
done
need_benchtop
own_dirs
T=$E2E_TMP

P=$(free_port)
"$BENCHTOP" -b -t 120 -i 0.2 --metrics-listen "127.0.0.1:$P" -- sleep 200 >"$T/run.out" 2>"$T/run.err" &
B=$!
bg_track $B
wait_for 10 bash -c "curl -s --max-time 1 http://127.0.0.1:$P/metrics >/dev/null" || fail "benchtop does not serve: $(cat "$T/run.err")"

# ---- requests without Host ----
code=$(http_code -H 'Host:' "http://127.0.0.1:$P/metrics")
check "HTTP/1.1 without Host: 400 (got $code)" test "$code" = 400
status=$(python3 - "$P" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
print(s.recv(64).split(b"\r\n")[0].decode())
EOF
)
check "HTTP/1.0 without Host: 400 ($status)" grep -q " 400 " <<<"$status"
code=$(http_code "http://127.0.0.1:$P/metrics")
check "with Host: 200 (got $code)" test "$code" = 200

# ---- slow clients: a header line every 4 s, reconnecting when closed ----
cat >"$T/slow.py" <<'EOF'
import socket, sys, time
port, src, n, log = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
closed = 0
def open_one():
    c = socket.socket()
    c.bind((src, 0))
    c.connect(("127.0.0.1", port))
    c.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    c.setblocking(False)
    return c
conns = []
while True:
    while len(conns) < n:
        try:
            conns.append(open_one())
        except OSError:
            time.sleep(0.05)
            break
    for c in list(conns):
        try:
            c.sendall(b"X-Slow: 1\r\n")
            if c.recv(1) == b"":
                raise OSError
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
            conns.remove(c)
            c.close()
    with open(log, "w") as f:
        f.write("%d\n" % closed)
    time.sleep(4)
EOF
python3 "$T/slow.py" "$P" 127.0.0.2 4 "$T/slow2.log" &
bg_track $!
python3 "$T/slow.py" "$P" 127.0.0.1 4 "$T/slow1.log" &
bg_track $!

PP=$(free_port)
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: benchtop
    static_configs:
      - targets: ['127.0.0.1:$P']
EOF
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/promdata" \
	--web.listen-address="127.0.0.1:$PP" --log.level=warn >"$T/prom.log" 2>&1 &
bg_track $!
API="http://127.0.0.1:$PP/api/v1"
value() { curl -s --max-time 5 --data-urlencode "query=$1" "$API/query" | jq -r '.data.result[0].value[1] // empty' 2>/dev/null; }
# good scrapes counted over the whole run (a late one on a busy machine
# is not a failure; a server held up by slow clients never gets there)
good() { v=$(value 'sum_over_time(up{job="benchtop"}[10m])'); [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit v >= 10 ? 0 : 1 }'; }
if wait_for 90 good; then ok "Prometheus scraped benchtop 10 times while slow clients held on ($v)"
else fail "Prometheus got ${v:-no} good scrapes: $(tail -3 "$T/prom.log")"; fi
# (over the run: an instant query finds nothing when the latest scrape,
# late on a busy machine, marked the series stale)
check "its scrapes carry benchtop's families" bash -c "[ -n \"\$(curl -s --max-time 5 --data-urlencode 'query=last_over_time(benchtop_build_info[10m])' '$API/query' | jq -r '.data.result[0].value[1] // empty')\" ]"
closed=$(( $(cat "$T/slow1.log" 2>/dev/null || echo 0) + $(cat "$T/slow2.log" 2>/dev/null || echo 0) ))
check "benchtop closed the slow connections ($closed closes seen by them)" test "$closed" -ge 4
# (each try bounded by curl's 5 s; on a loaded machine a try may run out
# while the next is answered: slow clients that shut /metrics off fail
# every try)
answered() { code=$(http_code "http://127.0.0.1:$P/metrics"); [ "$code" = 200 ]; }
wait_for 20 answered
check "curl from the slow clients' address is answered too (got $code)" test "$code" = 200
check "benchtop's ticks went on" wait_for 60 bash -c "[ \$(wc -l <'$T/run.out') -ge 50 ]"
bg_stop
finish

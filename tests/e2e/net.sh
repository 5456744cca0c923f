#!/usr/bin/env bash
# net.sh - writes that come from the network, over loopback only: the net
# workload's file is written whole and counted once, its stream is a real
# TCP connection with the segment size asked for (seen by ss from
# outside), its processes are a sender and a receiver, pattern=rewrite is
# two rows of the file's size, align=8192 makes every write 8192 bytes,
# bad keys exit 2 naming them; the netwrite preset ends with one table in
# aligntest's layout, its four sources for 1 and 5 copies, and a note of
# the mean bytes per write call of each row.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"
need_benchtop
own_dirs
cd "$E2E_TMP" || exit 1
MiB=1048576

# 1. One stream into a file the user names: the file is the size sent, and
#    the run counts those bytes once.
"$BENCHTOP" -b --format json -w net:path="$E2E_TMP/one",size=8M >"$E2E_TMP/one.json" 2>"$E2E_TMP/one.err"
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$E2E_TMP/one.err" | tail -5
check "net: exit 0 (rc $rc)" [ $rc = 0 ]
check "net: the file holds the 8 MiB sent (stat)" [ "$(stat -c %s "$E2E_TMP/one" 2>/dev/null)" = $((8 * MiB)) ]
check "net: the bytes are counted once, the file's side" \
	jqe '[.[] | select(.type == "end")][0].summary | length == 1 and .[0].bytes == 8388608' "$E2E_TMP/one.json"
check "net: the start record names the workload kind net" \
	jqe '[.[] | select(.type == "start")][0].workloads[0].kind == "net"' "$E2E_TMP/one.json"

# 2. A looping stream watched from outside: a TCP connection on 127.0.0.1
#    with the segment size asked for, and two roles in the samples.
"$BENCHTOP" -b -i 0.2 -t 60 --loop --format json -w net:path="$E2E_TMP/loop",size=512M,mss=1000 \
	>"$E2E_TMP/loop.json" 2>"$E2E_TMP/loop.err" &
bt=$!
seen_mss() { ss -tni 2>/dev/null | grep -Eq '(^|[[:space:]])mss:(1000|98[0-9]|99[0-9])([[:space:]]|$)'; }
if wait_for 30 seen_mss; then ok "net: ss shows a loopback TCP stream with mss 1000 (less its options)"
else fail "net: no loopback connection with mss near 1000 in ss -tni: $(ss -tni | head -4)"; fi
roles_seen() { jq -se '[.[] | select(.type == "sample") | .procs[]?.role] | (index("sender") != null) and (index("receiver") != null)' "$E2E_TMP/loop.json" >/dev/null 2>&1; }
wait_for 30 roles_seen
kill -TERM $bt 2>/dev/null
wait $bt
check "net: the samples show a sender and a receiver" roles_seen
check "net: no process left behind" bash -c '! pgrep -f "net:path=$1/loop" >/dev/null' _ "$E2E_TMP"

# 3. pattern=rewrite: the write and the rewrite, each of the whole file, in
#    place (the file stays 4 MiB); align=8192: each write is 8192 bytes.
"$BENCHTOP" -b --format json -w net:path="$E2E_TMP/re",size=4M,pattern=rewrite,align=8192 \
	>"$E2E_TMP/re.json" 2>"$E2E_TMP/re.err"
rc=$?
check "net rewrite: exit 0 (rc $rc)" [ $rc = 0 ]
check "net rewrite: two rows, write and rewrite, 4 MiB each" \
	jqe '[.[] | select(.type == "end")][0].summary | length == 2 and all(.bytes == 4194304) and
		(.[0].test | endswith("write")) and (.[1].test | endswith("rewrite"))' "$E2E_TMP/re.json"
check "net rewrite: in place (the file is still 4 MiB)" [ "$(stat -c %s "$E2E_TMP/re" 2>/dev/null)" = $((4 * MiB)) ]
check "net align=8192: the write phase made 512 write calls of 8192 bytes" \
	jqe '[.[] | select(.type == "end")][0].summary[0].calls == 512' "$E2E_TMP/re.json"
"$BENCHTOP" -b --format json -w net:path="$E2E_TMP/raw",size=4M >"$E2E_TMP/raw.json" 2>/dev/null
check "net align=none: the writes follow the stream (not 8192-byte calls)" \
	jqe '[.[] | select(.type == "end")][0].summary[0] | .bytes == 4194304 and .calls != 512' "$E2E_TMP/raw.json"

# 4. Bad keys: exit 2 naming the key and what it takes.
"$BENCHTOP" -b -w net:mss=10 >/dev/null 2>"$E2E_TMP/bad1.err"
rc=$?
check "net mss=10: exit 2 naming mss (rc $rc)" bash -c '[ $1 = 2 ] && grep -q "mss" "$2"' _ $rc "$E2E_TMP/bad1.err"
"$BENCHTOP" -b -w net:align=sideways >/dev/null 2>"$E2E_TMP/bad2.err"
rc=$?
check "net align=sideways: exit 2 saying none or a size (rc $rc)" \
	bash -c '[ $1 = 2 ] && grep -q "align" "$2" && grep -q "none" "$2"' _ $rc "$E2E_TMP/bad2.err"
"$BENCHTOP" -b -w net:bs=4k >/dev/null 2>"$E2E_TMP/bad3.err"
rc=$?
check "net bs=4k: exit 2 listing net's keys (rc $rc)" \
	bash -c '[ $1 = 2 ] && grep -q "mss" "$2" && grep -q "align" "$2"' _ $rc "$E2E_TMP/bad3.err"

# 5. netwrite: one table in aligntest's layout, four sources x 1 and 5 copies.
"$BENCHTOP" --preset netwrite --cell 4M --format json >"$E2E_TMP/nw.json" 2>"$E2E_TMP/nw.err"
rc=$?
check "netwrite: exit 0 (rc $rc)" [ $rc = 0 ]
X='[.[] | select(.type == "end")][0].experiment'
check "netwrite: aligntest's columns with a source first" \
	jqe "$X"' | .columns | map(.key) | .[0] == "source" and (index("copies") != null) and
		(index("write MiB/s") != null) and (index("rewrite MiB/s") != null) and (index("factor") != null)' "$E2E_TMP/nw.json"
check "netwrite: local bs 8192, local bs 5000, network, network aligned, for 1 and 5 copies" \
	jqe "$X"' | .rows | map([.source, .copies]) == [["local bs 8192",1],["local bs 5000",1],["network",1],
		["network aligned",1],["local bs 8192",5],["local bs 5000",5],["network",5],["network aligned",5]]' "$E2E_TMP/nw.json"
check "netwrite: every row has both rates and a factor" \
	jqe "$X"' | .rows | all((."write MiB/s" > 0) and (."rewrite MiB/s" > 0) and (.factor > 0))' "$E2E_TMP/nw.json"
check "netwrite: the note gives the mean bytes per write call of each row" \
	jqe "$X"' | .notes | map(select(test("mean bytes per write call"))) | length == 1 and
		(.[0] | test("local bs 8192 8192 and 8192; local bs 5000 (4999|5000) and (4999|5000); network [0-9]+ and [0-9]+; network aligned 8192 and 8192"))' \
	"$E2E_TMP/nw.json"
check "netwrite: the network rows' writes are not whole pages" \
	bash -c 'n=$(jq -sr '"'"'[.[] | select(.type == "end")][0].experiment.notes[] | capture("network (?<a>[0-9]+) and (?<b>[0-9]+);") | "\(.a) \(.b)"'"'"' "$1"); set -- $n; [ -n "$1" ] && [ $(($1 % 4096)) != 0 ] && [ $(($2 % 4096)) != 0 ]' _ "$E2E_TMP/nw.json"
check "netwrite: the banner and title follow --cell (4 MiB)" \
	jqe "$X"' | .title | test("a 4 MiB file")' "$E2E_TMP/nw.json"
check "netwrite: from disk is never above 100%" \
	jqe "$X"' | .rows | all((."from disk" // 0) <= 1)' "$E2E_TMP/nw.json"
check "netwrite: its scratch directory is gone" bash -c '[ -d "$1" ] && ! ls -d "$1"/benchtop-exp.* 2>/dev/null' _ "$TMPDIR"
finish

#!/usr/bin/env bash
# bonniecsv.sh - --preset bonnie --format bonnie prints bonnie++ 1.98's CSV
# line: the 50 fields of bon_csv2html(1), the figures of the study's own
# table (the JSON end record of the same run, recorded with -o), "+++++"
# where a test was too short; Debian's bon_csv2txt and bon_csv2html (the
# bonnie++ package) read it, alone and beside a line of bonnie++'s own;
# any other preset or mode refuses --format bonnie.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/e2e/lib.sh"
need_benchtop
own_dirs
cd "$E2E_TMP" || exit 1

"$BENCHTOP" --preset bonnie --cell 16M --format bonnie -o rec.jsonl >line.csv 2>err.txt
rc=$?
check "bonnie csv: exit 0 (rc $rc)" [ $rc = 0 ]
check "bonnie csv: one line on standard output, nothing else" [ "$(wc -l <line.csv)" = 1 ]
IFS=, read -r -a f <line.csv
check "bonnie csv: 50 fields" [ "$(awk -F, '{print NF}' line.csv)" = 50 ]
check "bonnie csv: format 1.98, the host, concurrency 1, 16M, 3000 seeks by 3 seekers" \
	bash -c '[ "$1" = 1.98 ] && [ "$2" = "$(hostname | tr , _)" ] && [ "$3" = 1 ] && [ "$4" = 16M ] && [ "$5" = 3000 ] && [ "$6" = 3 ]' \
	_ "${f[0]}" "${f[2]}" "${f[3]}" "${f[5]}" "${f[7]}" "${f[8]}"
# fields 9..20 against the study's table in the recording of the same run
groups=("per-char write" "block write" "rewrite" "per-char read" "block read" "seeks")
ok_all=true
for i in 0 1 2 3 4 5; do
	g=${groups[$i]}
	unit="K/sec"; [ "$g" = seeks ] && unit="/sec"
	want=$(jq -sr --arg r "$g $unit" --arg c "$g %CPU" '[.[] | select(.type == "end")][0].experiment.rows[0] |
		if (.[$r] | type) == "number" then "\(.[$r] | round),\(.[$c] | round)"
		elif .[$r] == "too short" then "+++++,+++" else "," end' rec.jsonl)
	got="${f[$((9 + 2 * i))]},${f[$((10 + 2 * i))]}"
	# rounding half-way cases may differ by one in the last digit
	if [ "$got" != "$want" ]; then
		awk -v a="$got" -v b="$want" 'BEGIN { split(a, x, ","); split(b, y, ",");
			d1 = x[1] - y[1]; d2 = x[2] - y[2]; exit !(d1 <= 1 && d1 >= -1 && d2 <= 1 && d2 >= -1 && x[1] ~ /^[0-9]+$/) }' ||
			{ ok_all=false; echo "# $g: csv $got, table $want"; }
	fi
done
check "bonnie csv: K/sec and %CPU of the six tests are the table's (or +++++ where too short)" $ok_all
check "bonnie csv: the file-creation and latency fields are empty" \
	bash -c '[ "$(cut -d, -f22-50 line.csv | tr -d ,)" = "" ]'
check "bonnie csv: the banner went to standard error" grep -q "preset bonnie" err.txt

if command -v bon_csv2txt >/dev/null && command -v bon_csv2html >/dev/null; then
	bon_csv2txt <line.csv >txt.out 2>txt.err
	rc=$?
	h=$(hostname | tr , _ | cut -c1-7)
	check "bon_csv2txt reads it: a row for this host at 16M (rc $rc)" \
		bash -c '[ $1 = 0 ] && grep -q "^$2.* *16M" txt.out && grep -q "Sequential Output" txt.out' _ $rc "$h"
	bon_csv2html <line.csv >html.out 2>html.err
	rc=$?
	check "bon_csv2html reads it: a table with this host (rc $rc)" \
		bash -c '[ $1 = 0 ] && grep -q "<table" html.out && grep -q "$2" html.out' _ $rc "$(hostname | tr , _)"
	# beside a line in bonnie++'s own format (as bonnie++ 2.00a writes it)
	echo '1.98,2.00a,other,1,1796153157,64M,,8192,5,192,35,+++++,+++,+++++,+++,231,36,+++++,+++,+++++,+++,,,,,,,,,,,,,,,,,,166ms,18450us,20076us,85593us,6062us,78634us,,,,,,' >both.csv
	cat line.csv >>both.csv
	bon_csv2txt <both.csv >both.out 2>/dev/null
	rc=$?
	check "bon_csv2txt reads bonnie++'s line and benchtop's together (rc $rc)" \
		bash -c '[ $1 = 0 ] && grep -q "^other " both.out && grep -q "^$2" both.out' _ $rc "$h"
else
	skip "bon_csv2txt and bon_csv2html: the bonnie++ package is not installed"
	skip "bon_csv2html: the bonnie++ package is not installed"
	skip "bon_csv2txt beside bonnie++'s line: the bonnie++ package is not installed"
fi

"$BENCHTOP" --preset blocksize --cell 64k --format bonnie >/dev/null 2>bad1.err
rc=$?
check "--format bonnie with another study: exit 2 naming bonnie (rc $rc)" bash -c '[ $1 = 2 ] && grep -q "preset bonnie" bad1.err' _ $rc
"$BENCHTOP" -b --format bonnie -w write:size=1M >/dev/null 2>bad2.err
rc=$?
check "--format bonnie without a preset: exit 2 (rc $rc)" bash -c '[ $1 = 2 ] && grep -q "preset bonnie" bad2.err' _ $rc
finish

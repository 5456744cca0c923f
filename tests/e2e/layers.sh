#!/usr/bin/env bash
# layers.sh - src/ folders are layers: no object of a folder uses a symbol
# defined in a folder after it.  The order is README.md's line
# "Layers, each using only those before it: ...".  Uses come from `nm` of
# the objects the build made for every src/ file (the sanitizer build's
# when BENCHTOP is build/san/benchtop, else the plain build's): a symbol an
# object leaves undefined and another object defines is a use of that
# object's folder.  Files directly in src/ (main.c) form the folder "main".
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh

command -v nm >/dev/null || skip_all "no nm on this machine"

OBJ=$(objdir)

order=$(sed -n 's/^Layers, each using only those before it: *//p' README.md | head -1 |
	tr -c 'a-z\n' ' ')
read -ra layers <<< "$order"
check "README names the layers in order" test "${#layers[@]}" -gt 1
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
# folder SRC: the layer of a source path (src/X/... -> X, src/f.c -> main)
folder() { local p=${1#src/}; case "$p" in */*) echo "${p%%/*}" ;; *) echo main ;; esac; }

# Every folder (and main) has a place in the order.
srcs=$(find src -name '*.c' | sort)
missing=$(for d in $srcs; do folder "$d"; done | sort -u | while read -r f; do
	[ "$(rank "$f")" -ge 0 ] || printf ' %s' "$f"; done)
if [ -z "$missing" ]; then ok "every folder of src/ is in the order"; else fail "folders not in the order:$missing"; fi

# One line per symbol: "def RANK FILE SYMBOL" and "use RANK FILE SYMBOL",
# from one nm run over every object (nm -A names the object on each line).
objs=() unbuilt=""
for src in $srcs; do
	o="$OBJ/${src%.c}.o"
	if [ -f "$o" ]; then objs+=("$o"); else unbuilt="$unbuilt $o"; fi
done
# ranker: the awk prologue that maps an object's path to its source and rank
ranker='BEGIN { n = split(names, L, " "); for (i = 1; i <= n; i++) R[L[i]] = i - 1 }
	function src_of(o) { sub(/^.*\/src\//, "src/", o); sub(/\.o$/, ".c", o); return o }
	function rank_of(s,   p) { p = substr(s, 5); p = (p ~ /\//) ? substr(p, 1, index(p, "/") - 1) : "main"; return (p in R) ? R[p] : -1 }'
if [ ${#objs[@]} -gt 0 ]; then
	{
		nm -A -g --defined-only "${objs[@]}" | awk -v names="${layers[*]}" "$ranker"'
			{ o = $1; sub(/:.*/, "", o); s = src_of(o) }
			NF >= 3 { print "def", rank_of(s), s, $3 }'
		nm -A -u "${objs[@]}" | awk -v names="${layers[*]}" "$ranker"'
			{ o = $1; sub(/:.*/, "", o); s = src_of(o); print "use", rank_of(s), s, $NF }'
	} > "$E2E_TMP/syms"
else
	: > "$E2E_TMP/syms"
fi
if [ -z "$unbuilt" ]; then ok "every src/ file has an object in $OBJ/"; else fail "not built:$unbuilt (make first)"; fi

awk -v names="${layers[*]}" '
	BEGIN { n = split(names, L, " ") }
	NR == FNR { if ($1 == "def") { rank[$4] = $2; file[$4] = $3 } next }
	$1 == "use" && ($4 in rank) {
		if (rank[$4] != $2) across++
		if (rank[$4] > $2) { bad[$2] = bad[$2] "\n# " $3 " uses " $4 " of " file[$4]; nbad[$2]++ }
	}
	END {
		print (across > 0 ? "ok" : "not ok") " - nm sees " across + 0 " uses between folders"
		for (i = 1; i <= n; i++) {
			if (nbad[i - 1]) print "not ok - " L[i] " uses " nbad[i - 1] " symbols of later folders" bad[i - 1]
			else print "ok - " L[i] " uses only folders before it"
		}
	}' "$E2E_TMP/syms" "$E2E_TMP/syms" > "$E2E_TMP/result"

# Headers: a header of include/benchtop/ belongs to the latest folder that
# defines a function or variable it declares; a file that includes a
# header of a later folder depends on that folder even where nm sees no
# symbol (a struct's layout, an inline function, a macro).
# shellcheck disable=SC2086 # $srcs: one path a word
awk -v names="${layers[*]}" "$ranker"'
	/^#include "benchtop\// { h = $2; gsub(/"/, "", h); sub(/^benchtop\//, "", h); print "inc", rank_of(FILENAME), FILENAME, h }' $srcs > "$E2E_TMP/incs"
awk -v names="${layers[*]}" '
	BEGIN { n = split(names, L, " ") }
	FILENAME == ARGV[1] { if ($1 == "def") { rank[$4] = $2; file[$4] = $3 } next }
	FILENAME == ARGV[2] { inc[++ni] = $0; next }
	FNR == 1 { h = FILENAME; sub(/.*\//, "", h); incom = 0 }
	{ line = $0 }
	incom { if (line !~ /\*\//) next; sub(/.*\*\//, "", line); incom = 0 }
	{ gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", line) }
	line ~ /\/\*/ { sub(/\/\*.*/, "", line); incom = 1 }
	{
		while (match(line, /[A-Za-z_][A-Za-z0-9_]*/)) {
			w = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
			if ((w in rank) && (!(h in owner) || rank[w] > owner[h])) { owner[h] = rank[w]; by[h] = w " of " file[w] }
		}
	}
	END {
		for (i = 1; i <= ni; i++) {
			split(inc[i], x, " ")
			if ((x[4] in owner) && owner[x[4]] > x[2]) { bad[x[2]] = bad[x[2]] "\n# " x[3] " includes " x[4] " (" by[x[4]] ")"; nbad[x[2]]++ }
		}
		for (i = 1; i <= n; i++) {
			if (nbad[i - 1]) print "not ok - " L[i] " includes " nbad[i - 1] " headers of later folders" bad[i - 1]
			else print "ok - " L[i] " includes only headers of folders before it"
		}
	}' "$E2E_TMP/syms" "$E2E_TMP/incs" include/benchtop/*.h >> "$E2E_TMP/result"

while IFS= read -r line; do
	case "$line" in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) fail "${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done < "$E2E_TMP/result"

finish

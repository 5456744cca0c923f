#!/bin/bash
# bench/measures.sh - the shape of the source as numbers anyone can check:
# .c files over 800 lines, functions over 80 lines, `duplicates` pairs in
# src/, cycles between files of different folders, and public header
# functions without a contract comment.  Targets, not gates: it prints and
# exits 0.  Run it by hand (`bash bench/measures.sh [TREE]`, the tree
# being this checkout unless given) or with `make bench`.
# Needs bash, awk, grep, sed and sort; `duplicates` is optional (the line
# says "n/a" on a machine without it).
set -u
cd "${1:-$(dirname "$0")/..}" || exit 1

FILE_MAX=800
FUNC_MAX=80
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

csrcs=$(find src -name '*.c' | sort)

# ---- .c files over FILE_MAX lines ----------------------------------------
echo "== .c files over $FILE_MAX lines"
n=0
for f in $csrcs; do
	l=$(wc -l < "$f")
	if [ "$l" -gt "$FILE_MAX" ]; then
		printf '  %5d %s\n' "$l" "$f"
		n=$((n + 1))
	fi
done
echo "  total: $n"

# ---- function definitions: file, first line, length, name, static? -------
# A definition is a "{" in column 0 up to the next "}" in column 0 (the
# project's style); its name is the identifier before "(" on the line
# that opened the head.
awk '
	FNR == 1 { infn = 0; head = "" }
	!infn && /^[A-Za-z_]/ && !/;[ \t]*$/ { head = $0 }
	!infn && /^\{/ && head ~ /\(/ {
		infn = 1; start = FNR; name = head
		sub(/\(.*/, "", name); sub(/.*[ *\t]/, "", name)
		st = head ~ /^static/ ? "static" : "extern"
		next
	}
	infn && /^\}/ { infn = 0; print FILENAME, start, FNR - start - 1, name, st }
' $csrcs > "$TMP/defs"

echo "== functions over $FUNC_MAX lines"
awk -v max="$FUNC_MAX" '$3 > max { printf "  %5d %s:%d %s\n", $3, $1, $2, $4; n++ }
	END { printf "  total: %d\n", n }' "$TMP/defs"

# ---- duplicates -----------------------------------------------------------
echo "== duplicates pairs in src/"
if command -v duplicates >/dev/null 2>&1; then
	d=$(cd src && duplicates --most 200 2>/dev/null | head -1 | awk '{ print $1 }')
	echo "  total: ${d:-n/a}"
else
	echo "  total: n/a (no duplicates command on this machine)"
fi

# ---- functions each header declares ----------------------------------------
# Comments and preprocessor lines dropped, the rest split into statements
# at ";" outside braces; a statement "TYPE name(...)" declares name.
# Prints "HEADER NAME" for every header given.
declared() {
	awk '
		function flush(   i, c, depth, stmt, name) {
			depth = 0; stmt = ""
			for (i = 1; i <= length(text); i++) {
				c = substr(text, i, 1)
				if (c == "{") depth++
				else if (c == "}") { depth--; stmt = ""; continue }
				if (depth > 0) continue
				if (c == ";") {
					if (stmt !~ /typedef/ && stmt !~ /\(\*/ &&
					    match(stmt, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
						name = substr(stmt, RSTART, RLENGTH)
						sub(/[ \t]*\($/, "", name)
						print file, name
					}
					stmt = ""
				} else
					stmt = stmt c
			}
			text = ""
		}
		FNR == 1 { if (file != "") flush(); file = FILENAME; incom = 0 }
		{ line = $0 }
		incom { if (line !~ /\*\//) next; sub(/.*\*\//, "", line); incom = 0 }
		{ gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", line) }
		line ~ /\/\*/ { sub(/\/\*.*/, "", line); incom = 1 }
		line ~ /^[ \t]*#/ { next }
		{ text = text " " line }
		END { if (file != "") flush() }' "$@"
}

# ---- the include graph --------------------------------------------------------
# A .c file depends on every .c that defines a function of a header it
# includes (the header belongs to the folders of those files); "uses"
# marks an edge where the file calls one of those functions.
headers=$(find include src -name '*.h' | sort)
declared $headers > "$TMP/decls"
for f in $csrcs; do
	dir=$(dirname "$f")
	sed -n 's/^#include "\(.*\)".*/\1/p' "$f" | while read -r inc; do
		if [ -f "include/$inc" ]; then echo "$f include/$inc"
		elif [ -f "$dir/$inc" ]; then echo "$f $dir/$inc"; fi
	done
done > "$TMP/includes"
awk '
	FILENAME == ARGV[1] { if ($5 == "extern") definer[$4] = definer[$4] " " $1; next }
	FILENAME == ARGV[2] { decl[$1] = decl[$1] " " $2; next }
	FILENAME == ARGV[3] { inc[$1] = inc[$1] " " $2; next }
	{ # a source file: the identifiers it mentions
		line = $0
		while (match(line, /[A-Za-z_][A-Za-z0-9_]*/)) {
			ident[FILENAME, substr(line, RSTART, RLENGTH)] = 1
			line = substr(line, RSTART + RLENGTH)
		}
		src[FILENAME]
	}
	END {
		for (f in src) {
			nh = split(inc[f], hs, " ")
			for (i = 1; i <= nh; i++) {
				nd = split(decl[hs[i]], fns, " ")
				for (j = 1; j <= nd; j++) {
					nf = split(definer[fns[j]], ds, " ")
					for (k = 1; k <= nf; k++) {
						if (ds[k] == f) continue
						edge[f, ds[k]] = edge[f, ds[k]] || ((f, fns[j]) in ident)
					}
				}
			}
		}
		for (x in edge) { split(x, p, SUBSEP); print p[1], p[2], edge[x] ? "uses" : "includes" }
	}' "$TMP/defs" "$TMP/decls" "$TMP/includes" $csrcs | sort > "$TMP/edges"

echo "== cycles between files of different folders"
awk '
	function folder(p,   q) { q = p; sub(/^src\//, "", q)
		if (q !~ /\//) return "main"; sub(/\/.*/, "", q); return q }
	{ to[$1] = to[$1] " " $2; node[$1]; node[$2]; e[++ne] = $0 }
	END {
		for (a in node) {   # reach[a, b]: b is reachable from a
			delete seen; qh = 1; qt = 0
			nn = split(to[a], nx, " ")
			for (i = 1; i <= nn; i++) if (!(nx[i] in seen)) { seen[nx[i]]; q[++qt] = nx[i] }
			while (qh <= qt) {
				x = q[qh++]; reach[a, x] = 1
				nn = split(to[x], nx, " ")
				for (i = 1; i <= nn; i++) if (!(nx[i] in seen)) { seen[nx[i]]; q[++qt] = nx[i] }
			}
		}
		for (k = 1; k <= ne; k++) {
			split(e[k], p, " ")
			if (folder(p[1]) != folder(p[2]) && ((p[2], p[1]) in reach)) {
				printf "  %s -> %s (%s)\n", p[1], p[2], p[3]; n++
				pair[folder(p[1]) " -> " folder(p[2])]
			}
		}
		printf "  total: %d edges between folders on a cycle\n", n
		for (x in pair) printf "  folders: %s\n", x
	}' "$TMP/edges"

layers=$(sed -n 's/^Layers, each using only those before it: *//p' README.md | head -1 | tr -c 'a-z\n' ' ')
echo "== uses of a higher layer (order: $layers)"
awk -v layers="$layers" '
	BEGIN { split(layers, L, " ")
		for (i in L) rank[L[i]] = i + 0 }
	function folder(p,   q) { q = p; sub(/^src\//, "", q)
		if (q !~ /\//) return "main"; sub(/\/.*/, "", q); return q }
	rank[folder($1)] < rank[folder($2)] { printf "  %s -> %s (%s)\n", $1, $2, $3; n++ }
	END { printf "  total: %d\n", n }' "$TMP/edges"

# ---- contract comments -------------------------------------------------------
# A declaration has one when a comment ends on the line before it (or
# before the declarations and forward struct declarations grouped with
# it, no blank line between) or sits on its own line.
echo "== public header functions without a contract comment"
awk '
	FNR == 1 { covered = 0; incom = 0; cont = 0 }
	incom { if (/\*\//) { incom = 0; covered = 1 } next }
	/^[ \t]*\/\*/ && !/\*\// { incom = 1; next }
	/^[ \t]*\/\*.*\*\/[ \t]*$/ { covered = 1; next }
	/^[ \t]*$/ { covered = 0; cont = 0; next }
	/^#/ { next }
	/^(struct|enum|union) [A-Za-z0-9_]+;[ \t]*$/ { next }   # a forward declaration keeps the comment above
	cont { if (/;/) cont = 0; next }
	/^[A-Za-z_].*[A-Za-z0-9_]\(/ && !/typedef/ && !/\(\*/ && !/^(struct|enum|union)[^(]*\{/ {
		if (!covered && !/\/\*/) {
			name = $0; sub(/\(.*/, "", name); sub(/.*[ *\t]/, "", name)
			printf "  %s: %s\n", FILENAME, name; n++
		}
		if (!/;/) cont = 1
		next
	}
	{ covered = 0 }
	END { printf "  total: %d\n", n }' include/benchtop/*.h

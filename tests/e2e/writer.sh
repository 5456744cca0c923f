#!/usr/bin/env bash
# writer.sh - one JSON writer: no source file outside src/base/ spells a
# JSON key in a format string ("\"key\":"), and no object outside base/
# calls the writer's low-level string and number functions (every record,
# table and document goes through the jw_ writer of json_write.c, which
# places commas, escapes and nulls).  Uses come from `nm` of the objects
# the build made (the sanitizer build's when BENCHTOP is
# build/san/benchtop, else the plain build's).
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh

command -v nm >/dev/null || skip_all "no nm on this machine"
OBJ=$(objdir)

keys=$(grep -rn '\\"[a-z_]*\\":' src --include='*.c' --include='*.h' | grep -v '^src/base/')
if [ -z "$keys" ]; then ok "no hand-written JSON key formats in src/"
else fail "hand-written JSON key formats (use the jw_ writer):"; echo "$keys" | sed 's/^/# /'; fi

# the objects of today's sources only (a build folder may keep objects of
# files since moved or removed)
objs=$(cd src && find . -name '*.c' ! -path './base/*' | sed 's|^\./||; s|\.c$|.o|' | sort |
	while read -r o; do [ -f "../$OBJ/src/$o" ] && echo "$OBJ/src/$o"; done)
check "the objects are built ($OBJ/src)" test -n "$objs"
# one nm pass: "OBJECT: U SYMBOL" for every undefined symbol
nm -uA $objs 2>/dev/null > "$E2E_TMP/undef"
low=$(awk '$NF ~ /^json_(string|number|write_value)$/ { print $1, $NF }' "$E2E_TMP/undef")
if [ -z "$low" ]; then ok "only base/ writes JSON strings and numbers itself"
else fail "objects outside base/ writing JSON by hand:"; echo "$low" | sed 's/^/# /'; fi
users=$(awk '$NF == "jw_obj"' "$E2E_TMP/undef" | wc -l)
check "the record, summary, study, compare, machine and cpufreq writers use jw_ ($users objects)" \
	test "$users" -ge 8
finish

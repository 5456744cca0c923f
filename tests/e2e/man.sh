#!/usr/bin/env bash
# The man page renders without a single groff warning, and documents every
# long option that `benchtop --help` prints.
cd "$(dirname "$0")/../.." || exit 1
source tests/e2e/lib.sh

man_warnings=$(MANWIDTH=80 man --warnings -l man/benchtop.1 2>&1 >/dev/null)
if [ -z "$man_warnings" ]; then ok "man page renders without warnings"
else fail "man page warnings: $man_warnings"; fi

check "man page has every section" bash -c '
	text=$(MANWIDTH=80 man -l man/benchtop.1 2>/dev/null)
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS WORKLOADS KEYS "TIMED ACTIONS" OUTPUT \
	         SAFETY FILES ENVIRONMENT "EXIT STATUS" EXAMPLES; do
		grep -q "^$s\$" <<<"$text" || { echo "missing section $s"; exit 1; }
	done'

if [ -x "$BENCHTOP" ]; then
	opts=$("$BENCHTOP" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
	if [ -z "$opts" ]; then
		fail "benchtop --help prints no long options"
	else
		rendered=$(MANWIDTH=200 man -l man/benchtop.1 2>/dev/null)
		missing=
		for o in $opts; do
			grep -q -- "$o\\b" <<<"$rendered" || missing="$missing $o"
		done
		if [ -z "$missing" ]; then ok "man page documents all $(wc -w <<<"$opts") options of --help"
		else fail "man page lacks:$missing"; fi
	fi
else
	skip "$BENCHTOP not built (test_cli checks the option table instead)"
fi
finish

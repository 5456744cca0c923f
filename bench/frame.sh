#!/bin/sh
# Dashboard frame cost: time and bytes per frame (bench/frame.c), callgrind
# instructions per frame, and bytes per refresh of top(1) in a pty of the
# same size for comparison.  Run from the source tree: sh bench/frame.sh
set -u
cd "$(dirname "$0")/.." || exit 1
mkdir -p build/bench
CFLAGS_PKG=$(pkg-config --cflags ncursesw)
LIBS_PKG=$(pkg-config --libs ncursesw)
# shellcheck disable=SC2086
cc -std=c17 -D_GNU_SOURCE -O2 -g -Iinclude $CFLAGS_PKG \
	-DBENCHTOP_SHAREDIR='"/usr/local/share/benchtop"' \
	-o build/bench/frame bench/frame.c src/ui/*.c src/cli/theme.c src/cli/config_dirs.c src/model/model.c src/model/event.c src/base/*.c build/gen/builtin_files.c \
	$LIBS_PKG -lm || exit 1

ROWS=60 COLS=200 FRAMES=300
build/bench/frame $FRAMES $ROWS $COLS | tee build/bench/frame.out

if command -v valgrind >/dev/null; then
	N=50
	valgrind --tool=callgrind --toggle-collect=ui_draw \
		--callgrind-out-file=build/bench/callgrind.frame \
		build/bench/frame $N $ROWS $COLS >/dev/null 2>&1
	ir=$(callgrind_annotate build/bench/callgrind.frame 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
	# N measured frames + 3 warm-up + 10 idle frames ran inside ui_draw
	[ -n "$ir" ] && echo "frame: $((ir / (N + 13))) instructions per frame (callgrind, ui_draw)"
else
	echo "frame: valgrind not installed, no instruction count"
fi

# top(1) in a pty of the same size, refreshing every 0.1 s.
if command -v top >/dev/null && command -v script >/dev/null; then
	n=30
	out=build/bench/top.raw
	TERM=xterm-256color script -q -c "stty rows $ROWS cols $COLS; top -d 0.1 -n $n" "$out" \
		</dev/null >/dev/null 2>&1
	bytes=$(wc -c <"$out")
	echo "top:   $((bytes / n)) bytes to the terminal per refresh at ${COLS}x${ROWS} (top -d 0.1, $n refreshes)"
fi

# The verdict: CPU per frame and bytes per frame against top's, this run.
ms=$(sed -n 's/^frame: \([0-9.]*\) ms CPU per frame.*/\1/p' build/bench/frame.out)
fb=$(sed -n 's/^frame: \([0-9]*\) bytes to the terminal per frame with.*/\1/p' build/bench/frame.out)
if [ -n "$ms" ]; then
	awk -v m="$ms" 'BEGIN { exit !(m <= 1.0) }' && echo "frame: CPU per frame ok ($ms ms <= 1 ms)" ||
		echo "frame: CPU per frame OVER the target ($ms ms > 1 ms)"
fi
if [ -n "${bytes:-}" ] && [ -n "$fb" ]; then
	tb=$((bytes / n))
	[ "$fb" -le "$tb" ] && echo "frame: bytes per frame ok ($fb <= top's $tb)" ||
		echo "frame: bytes per frame OVER top's ($fb > $tb)"
fi

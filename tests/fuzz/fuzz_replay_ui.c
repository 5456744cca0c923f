/* fuzz_replay_ui.c - libFuzzer harness for replay rendering: the input is
 * a recording (a memfd, so a regular file) that, once loaded, is drawn on
 * a virtual terminal (newterm on /dev/null, 120x40 and 60x16) as --replay
 * shows it from its start to its end, every panel included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/cli.h"
#include "benchtop/replay.h"
#include "benchtop/ui.h"
#include "recording_input.h"

static FILE *out, *in;

static void draw(const struct run *r, struct recording *rec, int rows, int cols)
{
	char err[256];
	if (ui_open_term("xterm-256color", out, in, rows, cols, "default", false, err, sizeof err) < 0)
		abort();
	replay_draw_frames(r, rec, 4);
	ui_close();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!out) {
		setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
		out = fopen("/dev/null", "w");
		in = fopen("/dev/null", "r");
	}
	struct recording *rec = load_input(data, size);
	if (!rec)
		return 0;
	struct run r;
	memset(&r, 0, sizeof r);
	r.units = size % 3 == 0 ? UNITS_IEC : size % 3 == 1 ? UNITS_SI : UNITS_BITS;
	draw(&r, rec, 40, 120);
	draw(&r, rec, 16, 60);
	recording_free(rec);
	return 0;
}

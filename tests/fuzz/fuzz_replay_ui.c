/* fuzz_replay_ui.c - libFuzzer harness for replay rendering: the input is
 * a recording (a memfd, so a regular file) that, once loaded, is drawn on
 * a virtual terminal (newterm on /dev/null, 120x40 and 60x16) as --replay
 * shows it from its start to its end, every panel included. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "benchtop/cli.h"
#include "benchtop/replay.h"
#include "benchtop/ui.h"

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
	char path[64], err[512];
	struct recording *rec = NULL;
	int fd = memfd_create("fuzz.jsonl", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (!out) {
		setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
		out = fopen("/dev/null", "w");
		in = fopen("/dev/null", "r");
	}
	if (recording_load(path, &rec, err, sizeof err) == 0) {
		struct run r;
		memset(&r, 0, sizeof r);
		r.units = size % 3 == 0 ? UNITS_IEC : size % 3 == 1 ? UNITS_SI : UNITS_BITS;
		draw(&r, rec, 40, 120);
		draw(&r, rec, 16, 60);
		recording_free(rec);
	}
	close(fd);
	return 0;
}

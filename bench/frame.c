/* frame.c - the dashboard's cost per frame: a synthetic history of
 * NCPU CPUs x NPROC processes x NSAMPLES samples drawn into a 200x60
 * virtual terminal (newterm on a file).  Each frame first adds one sample
 * (the steady state of a live run with the graph full), then draws.
 * Prints the mean time per frame and the bytes curses sent per frame;
 * bench/frame.sh adds callgrind's instructions per frame. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "benchtop/ui.h"
#include "../tests/unit/ui_synth.h"

#define NCPU 64
#define NPROC 32
#define NSAMPLES 600

/* CPU time of this process: what a frame costs, whatever else the machine
 * is doing at the time. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long offset(FILE *f)
{
	fflush(f);
	return (long)lseek(fileno(f), 0, SEEK_CUR);
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 300;
	int rows = argc > 2 ? atoi(argv[2]) : 60, cols = argc > 3 ? atoi(argv[3]) : 200;
	struct snapshot *s;
	struct history *h = synth_history(NCPU, NPROC, NSAMPLES, &s);
	FILE *out = tmpfile(), *in = fopen("/dev/null", "r");
	if (!h || !out || !in) {
		fprintf(stderr, "frame: setup failed: %s\n", strerror(errno));
		return 1;
	}
	struct ui_view v;
	synth_view(&v, h);
	char err[256];
	if (ui_open_term("xterm-256color", out, in, rows, cols, NULL, false, err, sizeof(err)) < 0) {
		fprintf(stderr, "frame: %s\n", err);
		return 1;
	}
	int k = NSAMPLES;
	for (int i = 0; i < 3; i++, k++) {       /* warm up: first full paint */
		synth_push(h, s, NCPU, NPROC, k);
		ui_draw(&v);
	}
	long b0 = offset(out);
	double t0 = now();
	for (int i = 0; i < frames; i++, k++) {
		synth_push(h, s, NCPU, NPROC, k);
		ui_draw(&v);
	}
	double dt = now() - t0;
	long b1 = offset(out);
	for (int i = 0; i < 10; i++)             /* nothing new: what is sent then */
		ui_draw(&v);
	long b2 = offset(out);
	ui_close();
	printf("frame: %dx%d, %d CPUs x %d processes x %d samples, %d frames\n",
	       cols, rows, NCPU, NPROC, NSAMPLES, frames);
	printf("frame: %.3f ms CPU per frame (target <= 1 ms)\n", dt * 1e3 / frames);
	printf("frame: %.0f bytes to the terminal per frame with a new sample\n",
	       (double)(b1 - b0) / frames);
	printf("frame: %.0f bytes per frame when nothing changed\n", (double)(b2 - b1) / 10);
	history_free(h);
	snapshot_free(s);
	fclose(out);
	fclose(in);
	return 0;
}

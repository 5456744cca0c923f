/* engine_drive.c - runs one benchtop engine job from the command line, for
 * bench/engines.sh.  It is linked with the very objects benchtop is built
 * from (build/src/work/engine.o and engine_child.o, the objects of
 * src/work/engines/) and runs the job with
 * engine_prepare + engine_run_job, so the engines are timed exactly as
 * benchtop runs them, in child processes, without the dashboard.
 *
 *   engine_drive copy ENGINE SRC DST BS [SYNC]  ENGINE: rw cfr sendfile splice mmap pipe2 pipe3
 *                                               SYNC: none (default) or end
 *   engine_drive read SRC BS
 *   engine_drive rewrite DIR SIZE BS            prints write and rewrite seconds
 *   engine_drive prefault MIB                   touch MIB of memory, then free it
 *
 * Copies default to sync=none (a copy-only figure, like cp/cat/dd without
 * sync); sync=end fsyncs at the end inside the engine, as benchtop's
 * default does.  An existing DST is replaced.  Prints
 * "bytes calls run_s flush_s" (run_s from the engine's start to its end,
 * flush included; flush_s the fsync alone, 0 without one), and for rewrite
 * "bytes calls write_s rewrite_s", each phase timed with its flush. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchtop/engine.h"

static int engine_of(const char *s, struct wl_spec *w)
{
	static const struct { const char *name; enum copy_engine e; int procs; } t[] = {
		{ "rw", ENG_RW, 0 }, { "cfr", ENG_CFR, 0 }, { "sendfile", ENG_SENDFILE, 0 },
		{ "splice", ENG_SPLICE, 0 }, { "mmap", ENG_MMAP, 0 },
		{ "pipe2", ENG_PIPE, 2 }, { "pipe3", ENG_PIPE, 3 },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(s, t[i].name) == 0) {
			w->engine = t[i].e;
			w->procs = t[i].procs;
			return 0;
		}
	return -1;
}

static int prefault(size_t mib)
{
	char *p = malloc(mib << 20);

	if (!p)
		return 1;
	for (size_t i = 0; i < mib << 20; i += 4096)
		p[i] = 1;
	free(p);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: engine_drive copy ENGINE SRC DST BS [none|end] | read SRC BS | "
	        "rewrite DIR SIZE BS | prefault MIB\n");
	return 2;
}

/* Fill w from argv; 0 or -1 on a bad command line. */
static int parse(int argc, char **argv, struct wl_spec *w)
{
	const char *k = argv[1];

	if (strcmp(k, "copy") == 0 && (argc == 6 || argc == 7) && engine_of(argv[2], w) == 0) {
		w->kind = WL_COPY, w->src = argv[3], w->dst = argv[4];
		w->bs = strtoull(argv[5], NULL, 0);
		if (argc == 7 && strcmp(argv[6], "end") == 0)
			w->sync = SYNC_END;
		else if (argc == 7 && strcmp(argv[6], "none") != 0)
			return -1;
	} else if (strcmp(k, "read") == 0 && argc == 4) {
		w->kind = WL_READ, w->path = argv[2], w->bs = strtoull(argv[3], NULL, 0);
	} else if (strcmp(k, "rewrite") == 0 && argc == 5) {
		w->kind = WL_WRITE, w->path = argv[2], w->rewrite = true;
		w->size = strtoull(argv[3], NULL, 0), w->bs = strtoull(argv[4], NULL, 0);
	} else {
		return -1;
	}
	return w->bs ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct wl_spec w = { .jobs = 1, .sync = SYNC_NONE, .text = "bench", .seekers = 3 };
	struct engine_plan plan;
	struct engine_counters *c;
	char msg[512];
	int rc;

	if (argc == 3 && strcmp(argv[1], "prefault") == 0)
		return prefault(strtoull(argv[2], NULL, 0));
	if (argc < 3 || parse(argc, argv, &w) != 0)
		return usage();
	if (w.kind == WL_WRITE)
		w.sync = SYNC_END;
	rc = engine_prepare(&w, "/var/tmp", true, &plan, msg, sizeof msg);
	if (rc) {
		fprintf(stderr, "engine_drive: %s\n", msg);
		return 3;
	}
	c = engine_counters_new(1);
	rc = engine_run_job(&w, &plan, 0, c);
	if (rc)
		fprintf(stderr, "engine_drive: %s\n", c->msg[0] ? c->msg : strerror(-rc));
	printf("%llu %llu", (unsigned long long)c->bytes, (unsigned long long)c->calls);
	if (w.rewrite)
		printf(" %.6f %.6f\n", c->phase_t[1] - c->phase_t[0], c->phase_t[3] - c->phase_t[1]);
	else
		printf(" %.6f %.6f\n", c->phase_t[3] - c->phase_t[0],
		       c->phase_t[2] > 0 ? c->phase_t[3] - c->phase_t[2] : 0.0);
	engine_cleanup(&w, &plan, rc != 0, false);
	engine_plan_free(&plan);
	engine_counters_free(c, 1);
	return rc ? 1 : 0;
}

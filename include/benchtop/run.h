/* run.h - one run of benchtop from outside src/app/: the whole run the
 * command line asks for (main.c), or one quiet run with its totals (an
 * experiment's step, exp/).  What the run holds inside is app.h's. */
#ifndef BENCHTOP_RUN_H
#define BENCHTOP_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include "benchtop/cli.h"
#include "benchtop/workload.h"

/* Run everything the command line asked for; returns the exit status. */
int app_main(struct run *run);

/* One quiet run (an experiment's step or cell): no batch lines, no
 * summary; each workload's totals come back in *res.  Records (-o) and
 * errors are written as usual.  Returns the exit status. */
#define APP_RESULT_MAX 16
#define APP_RES_CPUS 16
#define APP_RES_FREQS 16
struct app_result {
	/* in: a record stream to append this run's samples and events to
	 * (an experiment's -o FILE), their time offset and cell number */
	FILE *rec;
	double t_offset;
	int cell;
	/* out */
	int quit_signal;             /* the signal that ended the run (SIGINT...), 0 none */
	int nwl;
	struct workload_totals wl[APP_RESULT_MAX];
	bool failed[APP_RESULT_MAX];
	/* a two-phase workload (write pattern=rewrite): its write and
	 * rewrite rows (workload_phase_rows); nphase 0 for the others */
	int nphase[APP_RESULT_MAX];
	struct workload_totals phase[APP_RESULT_MAX][2];
	/* residency over the run, per CPU (the first APP_RES_CPUS): seconds
	 * at each frequency and the mean kHz (-1 unknown); ncpu_res 0 when
	 * the machine shows no frequencies */
	int ncpu_res;
	long mean_khz[APP_RES_CPUS];
	int nfreq[APP_RES_CPUS];
	long khz[APP_RES_CPUS][APP_RES_FREQS];
	double secs[APP_RES_CPUS][APP_RES_FREQS];
	/* where each role ran at the end of the run, busy roles first:
	 * "reader 0, writer 1, idle 0" (the CPUs each was allowed) */
	char placed[200];
};
/* One whole run of run (dashboard or batch) from setup to summary; res
 * (may be NULL) gets its totals.  Returns the exit status (SPEC §5).
 * Re-entrant: each call sets up and tears down everything it uses (the
 * loop and its signalfd, the sampler, cgroups, journal notes, scratch
 * files, governors), so an experiment runs its steps one after another
 * in one process.  The signals a run reads stay blocked after it (one
 * that comes between two runs is read by the next, which ends at once). */
int app_run(struct run *run, struct app_result *res);

#endif

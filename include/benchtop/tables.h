/* tables.h - the summary, phase and policy tables as people publish
 * them: the rows of a run's end (struct run_tables, filled from its end
 * record by summary.c, for a live run and a recording alike) and the one
 * printer of them as text. */
#ifndef BENCHTOP_TABLES_H
#define BENCHTOP_TABLES_H

#include <stdbool.h>
#include <stdio.h>
#include "benchtop/cli.h"

/* One workload (or the attached processes): CPU seconds, wall time and
 * bytes per second over it; test is its name, failed adds " (failed)";
 * paused (seconds, inside elapsed) is printed when show_paused.  A
 * command measured by what it read or wrote says so after its name
 * (counted: "read" or "written", NULL: nothing to say), with its read and
 * written bytes when rw_known. */
struct sum_row {
	const char *test;
	double user, sys, elapsed, bps;
	bool failed;
	double paused;
	bool show_paused;
	const char *counted;
	bool rw_known;
	double read_bytes, write_bytes;
};

/* One phase: the stretch from..to (run seconds), its rate, the CPU share
 * of benchtop's workloads (hog, 1 = one CPU busy), migrations, the mean
 * frequency in MHz (<= 0 unknown), the event that opened it. */
struct phase_row {
	double from, to, bps, hog, migrations, mhz;
	const char *label;
	bool too_short;   /* under two samples long: rate and hog show "-" */
};

/* One cpufreq policy at the end of the run; NULL or "" strings print "-". */
struct policy_row {
	int policy;
	const char *cpus, *driver, *governor;
	long min_khz, max_khz;
	/* what the run ended under, when the row shows what was restored
	 * after it (NULL: the row is the run's end) */
	const char *ran_governor;
	long ran_min_khz, ran_max_khz;
};

/* Everything printed at a run's end: the summary rows, the phase rows,
 * the cpufreq policies (or why there are none), the preparation before
 * t = 0.  Strings point into what the rows were built from. */
struct run_tables {
	struct sum_row *sum;
	size_t nsum;
	struct phase_row *phase;
	size_t nphase;
	struct policy_row *pol;
	size_t npol;
	bool restored;             /* pol shows what was put back at exit */
	const char *no_policies;   /* npol == 0: why ("cpufreq: why") */
	double prep_sync, prep_drop; /* --drop-caches seconds before t = 0, < 0 none */
};

/* The whole end of a run as text: summary, phases, preparation, policies. */
void tables_print(const struct run_tables *t, enum units_mode u, FILE *fp);
/* Free t's row arrays (not the strings they point to). */
void tables_free(struct run_tables *t);
/* A summary row's test as printed: its name, what a command was measured
 * by and its bytes, " (failed)". */
void tables_test_name(const struct sum_row *r, enum units_mode u, char *buf, size_t len);

/* The heading line of the summary (a blank line first), rates in u; a
 * "paused" column when show_paused (any workload was paused). */
void tables_summary_head(FILE *fp, enum units_mode u, bool show_paused);
/* One summary row: user sys elaps hog rate test. */
void tables_summary_row(FILE *fp, enum units_mode u, const struct sum_row *r);
/* The heading line of the phase table (a blank line first). */
void tables_phase_head(FILE *fp, enum units_mode u);
/* One phase row: from to rate hog migr MHz phase. */
void tables_phase_row(FILE *fp, enum units_mode u, const struct phase_row *r);
/* The heading line of the policy table (a blank line first); restored:
 * the rows show what was put back at exit (and what the run ran under
 * where that differed), else the run's end. */
void tables_policy_head(FILE *fp, bool restored);
/* One policy row: policy cpus driver governor min-max MHz. */
void tables_policy_row(FILE *fp, const struct policy_row *r);
/* Instead of the policy table: "cpufreq: why" (a blank line first). */
void tables_no_policies(FILE *fp, const char *why);

#endif

/* exp_priv.h - private to the experiment modules in src/exp/ (sweep.c,
 * step.c, study_*.c): one experiment's state, its steps (each one quiet
 * batch run, app_run, through the one driver in this process), the cache honesty around
 * them, and the one table it ends with. */
#ifndef BENCHTOP_EXP_PRIV_H
#define BENCHTOP_EXP_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "benchtop/json.h"
#include "benchtop/outfile.h"
#include "benchtop/record.h"
#include "benchtop/run.h"
#include "benchtop/cli.h"
#include "benchtop/studytable.h"

#define MIB (1024ULL * 1024)

/* What one step did: its workloads summed, and the disk under it. */
struct step_res {
	char name[160];
	int status;                  /* app_run's */
	double user, sys, elapsed;   /* elapsed: the longest workload's */
	double io_elapsed;           /* the longest workload's time in its calls
	                              * (engines; 0 for commands) */
	uint64_t bytes, calls;
	uint64_t disk_read;          /* device bytes read during the step */
	bool disk_known;
	double from, to;             /* experiment seconds the step ran over (its cell) */
	struct app_result res;       /* the step's own totals and residency */
};

struct exp {
	struct run *r;
	const char *kind;            /* "sweep", "matrix", "preset" or a study */
	FILE *out, *rec;             /* stdout; -o FILE (recs.fp) or NULL */
	struct outstream recs;       /* -o FILE (outfile.h) */
	bool json;                   /* --format json */
	int ncpu;
	double t0;
	int stop;                    /* the signal that ended the experiment */
	char dir[PATH_MAX];          /* the directory under test */
	char *scratch;               /* benchtop's own directory inside dir */
	char disk[64];               /* the device under dir, "" when none */
	char nodisk[96];             /* why there is none (e.g. "tmpfs") */
	bool drop;                   /* sync + drop_caches before reads */
	char cache_how[160];         /* what exp_evict does, for the title */
	struct step_res *steps;      /* every step run, in order */
	size_t nsteps, cap;
};

/* Set up e for run r: the directory under test (dir, else $TMPDIR, else
 * /var/tmp), the device under it, whether caches may be dropped
 * (--drop-caches as root), the -o record (start record written) and the
 * JSON start line.  0, or an exit status with the message printed. */
int exp_begin(struct exp *e, struct run *r, const char *kind, const char *dir);
/* The experiment's scratch directory inside e->dir (made once).  0 or 3. */
int exp_scratch(struct exp *e);
/* A source file of size bytes in the scratch directory (*path malloc'd).
 * 0 or 3 with the message printed. */
int exp_source(struct exp *e, uint64_t size, char **path);
/* Before a read test of path: sync + drop_caches when e->drop, else
 * fsync + posix_fadvise(DONTNEED) of path. */
void exp_evict(struct exp *e, const char *path);
/* A quiet batch run of r with the one workload w (copied), its placement
 * and governor as given; experiment fields cleared. */
void exp_child_run(const struct exp *e, const struct wl_spec *w, struct run *c);
/* Run c as step `name` (app_run, in this process; a signal that ends it
 * sets e->stop), measuring the device's reads around it; appends to e->steps and writes a "step" record (with
 * extra_json members, may be NULL) to the record and JSON output.
 * Returns the step (valid until the next exp_step) or NULL. */
struct step_res *exp_step(struct exp *e, struct run *c, const char *name, const char *extra_json);
/* The share of test_read bytes that came from the disk; NaN when unknown
 * (no device, nothing read). */
double exp_from_disk(const struct exp *e, const struct step_res *s, uint64_t test_read);
/* A from-disk figure into row r column col, marked cached under 50%. */
void exp_disk_cell(struct st_row *r, int col, double share);
/* The end: the table (text or CSV on stdout; JSON in the end record with
 * every step's totals as "summary"), the end record. */
void exp_end(struct exp *e, struct st_table *t);
/* Remove the scratch directory (unless --keep), close the record: 0, or
 * 3 when the record could not all be written (said on stderr). */
int exp_close(struct exp *e);

/* Helpers the tables share. */
double exp_hog(const struct step_res *s);
double exp_rate(const struct step_res *s, uint64_t bytes);   /* bytes/s */
/* Microseconds per call over the calls only (the engine's own marks, not
 * the step's set-up); NaN without calls. */
double exp_us_per_call(const struct step_res *s);
/* bytes over the same time: the rate of the calls. */
double exp_io_rate(const struct step_res *s, uint64_t bytes);
/* The program's full path in $PATH into buf; false when not installed. */
bool exp_which(const char *prog, char *buf, size_t len);

/* The bonnie study's table as bonnie++ 1.98's CSV line (--format bonnie),
 * the fields of bon_csv2html(1), for bon_csv2txt and bon_csv2html. */
void bonnie_csv(const struct exp *e, const struct st_table *t, FILE *fp);

/* A preset's description for its banner: the first size in it ("one 2 GiB
 * file") becomes cell's (--cell SIZE) when cell is not 0. */
void study_banner(const char *desc, uint64_t cell, char *out, size_t len);

/* The studies (study_copy.c, study_fs.c, study_net.c): each runs its
 * steps and fills t. */
int study_run(struct exp *e, const char *study, struct st_table *t);
bool study_known(const char *study);

#endif

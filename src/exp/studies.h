/* studies.h - private to study_copy.c and study_fs.c: the studies and the
 * helpers they share. */
#ifndef BENCHTOP_STUDIES_H
#define BENCHTOP_STUDIES_H

#include <stdarg.h>
#include <stdint.h>

#include "exp_priv.h"

/* The study's file size: --cell SIZE, else def; a time is refused (2). */
int study_size(const struct exp *e, const char *study, uint64_t def, uint64_t *size);
/* Parse a workload spec made from fmt; 0 or 2 with the message printed. */
int study_workload(struct wl_spec *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "2 GiB", "32 MiB", "512 KiB". */
void study_size_text(uint64_t bytes, char *buf, size_t len);

/* aligntest's layout, shared with netwrite: a row per case, with the write
 * and the rewrite of a two-phase workload side by side and their factor. */
struct acols {
	int source, bs, copies, size, wsec, rsec, wrate, rrate, factor, disk, test;
};
struct align_case {
	const char *label;     /* "bs=5000", "network aligned" */
	const char *spec;      /* a write or net workload with pattern=rewrite */
	int bs, jobs;
	uint64_t size;         /* bytes per copy */
};
/* The table: "STUDY: WHAT, in DIR on DISK; ..."; a source column (a word)
 * when source, else a bs column. */
void align_table(struct exp *e, struct st_table *t, struct acols *k, const char *study, const char *what,
                 bool source);
/* Run case c as one step and add its row; *per_call gets the mean bytes
 * per write call of its write phase (NaN when it failed).  0 or the step's
 * exit status above 1. */
int align_row(struct exp *e, struct st_table *t, const struct acols *k, const struct align_case *c,
              double *per_call);

int study_bonnie(struct exp *e, struct st_table *t);
int study_aligntest(struct exp *e, struct st_table *t);
int study_blocksize(struct exp *e, struct st_table *t);
int study_netwrite(struct exp *e, struct st_table *t);

#endif

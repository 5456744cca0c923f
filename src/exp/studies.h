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

int study_bonnie(struct exp *e, struct st_table *t);
int study_aligntest(struct exp *e, struct st_table *t);
int study_blocksize(struct exp *e, struct st_table *t);

#endif

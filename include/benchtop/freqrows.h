/* freqrows.h - time spent at each CPU frequency, kept as two parallel
 * arrays (kHz, seconds) sorted by frequency, as the kernel's
 * time_in_state is. */
#ifndef BENCHTOP_FREQROWS_H
#define BENCHTOP_FREQROWS_H

#include <stddef.h>

/* Adds secs to the row of khz among the *n rows of khzs/secs, or inserts
 * a row for it in its sorted place.  Returns 0, or -1 when a new row is
 * needed and *n is already cap (then nothing changes). */
int freqrows_add(long *khzs, double *secs, size_t *n, size_t cap, long khz, double s);

#endif

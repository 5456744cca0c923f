/* experiment.h - runs that repeat one workload unattended: a block-size
 * sweep (--sweep bs=FROM:TO), a placement x governor matrix (--matrix) and
 * named presets (--preset NAME) that expand to benchtop arguments.
 *
 * Each sweep step or matrix cell is one quiet batch run (app_run); the
 * experiment prints its own table (text, csv, or JSON Lines with
 * --format json) and records the same JSON Lines with -o FILE. */
#ifndef BENCHTOP_EXPERIMENT_H
#define BENCHTOP_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>
#include "benchtop/cli.h"
#include "benchtop/preset.h"

/* Most steps a sweep takes (16 B .. 1 GiB doubling is 27). */
#define EXP_MAX_STEPS 64

/* Block sizes of a sweep: from, doubling, while not above to; to itself is
 * the last step when the doubling does not land on it.  Fills bs[0..n) and
 * returns n (at most max; 0 when from is 0 or above to). */
size_t experiment_steps(uint64_t from, uint64_t to, uint64_t *bs, size_t max);

/* Least-squares line y = a + b x through the finite points of x[], y[]
 * (the blocksize fit: us per call against KiB per call).  0, or -EDOM
 * with fewer than two points or all x equal. */
int experiment_fit(const double *x, const double *y, size_t n, double *a, double *b);

/* Every governor in gov[] must be available on every cpufreq policy under
 * sysfs: 0; 2 (one is not: its name and the available ones printed) or 3
 * (no cpufreq at all: "no governors here", with what in the message). */
int experiment_check_governors(const char *sysfs, int ncpu, const char *what, char **gov, size_t ngov);

/* Run what r asks for when it has --sweep, --matrix or --preset (argv is
 * main's, for presets).  Prints errors and the tables; returns the exit
 * status: 0 every step ran well, 1 a workload failed, 2 bad command line
 * or preset, 3 the machine refused (e.g. "no governors here"). */
int experiment_main(struct run *r, int argc, char **argv);

#endif

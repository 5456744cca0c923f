/* membw.c - memcpy bandwidth, measured at start (see membw.h). */
#include "benchtop/membw.h"

#include "benchtop/clock.h"

#include <stdlib.h>
#include <string.h>

#define MEMBW_BUF (32u << 20)
#define MEMBW_ROUNDS 3

double membw_measure(void)
{
	char *a = malloc(MEMBW_BUF), *b = malloc(MEMBW_BUF);
	double best = 0;

	if (a && b) {
		memset(a, 1, MEMBW_BUF);
		memset(b, 2, MEMBW_BUF);  /* pages faulted in before timing */
		for (int r = 0; r < MEMBW_ROUNDS; r++) {
			double t0 = clock_mono();
			memcpy(r & 1 ? a : b, r & 1 ? b : a, MEMBW_BUF);
			double dt = clock_mono() - t0;
			/* keep the copy from being optimised away */
			__asm__ volatile("" : : "r"(a), "r"(b) : "memory");
			if (dt > 0 && MEMBW_BUF / dt > best)
				best = MEMBW_BUF / dt;
		}
	}
	free(a);
	free(b);
	return best;
}

/* membw.c - memcpy bandwidth, measured once (see membw.h). */
#include "benchtop/membw.h"

#include "benchtop/clock.h"

#include <stdlib.h>
#include <string.h>

/* Buffers past the caches of most desktops, small enough that the probe
 * adds little to benchtop's peak memory; a cache that holds them only
 * raises the ceiling, which stays an upper bound. */
#define MEMBW_BUF (3u << 20)
#define MEMBW_ROUNDS 6

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

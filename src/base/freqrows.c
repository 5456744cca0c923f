/* freqrows.c - sorted rows of time at each frequency (freqrows.h). */
#include "benchtop/freqrows.h"

#include <string.h>

int freqrows_add(long *khzs, double *secs, size_t *n, size_t cap, long khz, double s)
{
	size_t i = 0;

	while (i < *n && khzs[i] < khz)
		i++;
	if (i < *n && khzs[i] == khz) {
		secs[i] += s;
		return 0;
	}
	if (*n == cap)
		return -1;
	memmove(khzs + i + 1, khzs + i, (*n - i) * sizeof *khzs);
	memmove(secs + i + 1, secs + i, (*n - i) * sizeof *secs);
	khzs[i] = khz;
	secs[i] = s;
	(*n)++;
	return 0;
}

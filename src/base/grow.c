/* grow.c - arrays that grow by doubling (grow.h). */
#include "benchtop/grow.h"

#include <stdlib.h>

void *grow_one(void *p, int n, int *cap, int first, size_t elem)
{
	if (n < *cap)
		return p;
	int c = *cap ? *cap * 2 : first;
	void *q = realloc(p, (size_t)c * elem);
	if (q)
		*cap = c;
	return q;
}

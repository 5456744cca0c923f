/* grow.h - arrays that grow by doubling, for the few callers that report
 * running out of memory themselves instead of exiting (xalloc.h). */
#ifndef BENCHTOP_GROW_H
#define BENCHTOP_GROW_H

#include <stddef.h>

/* Room for one more element of elem bytes in the array p, which holds n
 * of *cap: p itself while n < *cap, else p reallocated to twice *cap
 * (first when *cap is 0) with *cap updated.  NULL when memory runs out;
 * p and *cap are then as they were. */
void *grow_one(void *p, int n, int *cap, int first, size_t elem);

#endif

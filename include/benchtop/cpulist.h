/* cpulist.h - CPU lists as users and the kernel write them ("0,2-3").
 * Masks are byte arrays of ncpu entries (1 = CPU in the set), sized from
 * the machine's CPU count, never a fixed 64-bit word. */
#ifndef BENCHTOP_CPULIST_H
#define BENCHTOP_CPULIST_H

#include <stddef.h>

/* Parse s into mask[0..ncpu).  Strict: "", "x", "1-0", "3," , a CPU >=
 * ncpu are errors; err gets a sentence naming the bad word and saying what
 * is accepted (e.g. "CPU 9 is out of range: this machine has CPUs 0-1").
 * Returns 0 or -1. */
int cpulist_parse(const char *s, unsigned char *mask, int ncpu, char *err, size_t errlen);
/* Format mask as a compact list ("0-3,6"); "" for an empty set. */
void cpulist_format(const unsigned char *mask, int ncpu, char *buf, size_t len);
/* The room a list of any set of ncpu CPUs needs, NUL included (every
 * other CPU of 256 is "0,2,...,254": 457 with the NUL). */
size_t cpulist_size(int ncpu);
/* mask as a list in memory of its own (cpulist_size), for the caller to
 * free; NULL when out of memory. */
char *cpulist_text(const unsigned char *mask, int ncpu);
/* Number of CPUs in the mask. */
int cpulist_count(const unsigned char *mask, int ncpu);

#endif

/* affinity.h - pin processes (every thread, /proc/PID/task/*) to CPU sets
 * sized from the CPU count (CPU_ALLOC), read the result back, and compute
 * placements (pack, free, spread) for a list of processes.
 *
 * Functions return 0 or a negative errno and write a sentence for the
 * status line into msg, naming the PID or CPU that failed. */
#ifndef BENCHTOP_AFFINITY_H
#define BENCHTOP_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* CPUs the kernel knows (configured), and whether cpu is online.  proc_root
 * and sys_root let tests point at fixture trees; pass "/proc" and "/sys". */
int affinity_ncpu(void);
bool affinity_cpu_online(const char *sys_root, int cpu);

/* Set mask on every thread of pid, then read each back.  A thread whose
 * mask did not take is reported in msg (-EAGAIN), a vanished pid is -ESRCH,
 * a foreign one -EPERM.  Threads that appear while it runs are caught on
 * the next call (callers re-apply each tick). */
int affinity_set_pid(pid_t pid, const unsigned char *mask, int ncpu, char *msg, size_t len);
/* Read the allowed set of pid's main thread. */
int affinity_get_pid(pid_t pid, unsigned char *mask, int ncpu);
/* True when every thread of pid has exactly mask. */
bool affinity_pid_matches(pid_t pid, const unsigned char *mask, int ncpu);
/* Set mask on the calling process (a child before exec). */
int affinity_set_self(const unsigned char *mask, int ncpu);

/* Placements over n processes.  allowed is the set to place within (all
 * online CPUs for free); anchor is the CPU for pack.  Fills masks[i] (each
 * ncpu bytes) with the set for process i. */
void affinity_pack(int n, int ncpu, int anchor, unsigned char **masks);
void affinity_free(int n, int ncpu, const unsigned char *allowed, unsigned char **masks);
void affinity_spread(int n, int ncpu, const unsigned char *allowed, unsigned char **masks);

#endif

/* affinity.h - pin processes (every thread, /proc/PID/task/TID) to CPU sets
 * sized from the CPU count (CPU_ALLOC) and read the result back.  Which
 * process should have which CPUs is placement.h's business.
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
/* Fills mask[0..ncpu) with the online CPUs under sys_root; returns how many. */
int affinity_online(const char *sys_root, unsigned char *mask, int ncpu);
/* 0 when mask is non-empty and every CPU in it exists and is online under
 * sys_root; else -EINVAL and msg names the CPU ("CPU 9 is out of range:
 * this machine has CPUs 0-1", "CPU 3 is offline: online CPUs are 0-2").
 * affinity_set_pid() runs this against "/sys" itself. */
int affinity_check_cpus(const char *sys_root, const unsigned char *mask, int ncpu,
			char *msg, size_t len);

/* Set mask on every thread of pid, then read each back.  A thread whose
 * mask did not take is reported in msg (-EAGAIN, naming the TID and the
 * CPUs it has), a vanished pid is -ESRCH, a foreign one -EPERM, an empty,
 * out-of-range or offline CPU set -EINVAL (nothing is changed then).
 * Threads that already match are left alone, so calling it every tick is
 * cheap.  Threads that appear while it runs are mostly caught by a second
 * walk, else on the next call (callers re-apply each tick).  On success
 * msg says what was done ("process 42 (3 threads) on CPU 0").  ncpu may
 * exceed the machine's count (CPUs beyond it must not be in the mask). */
int affinity_set_pid(pid_t pid, const unsigned char *mask, int ncpu, char *msg, size_t len);
/* Read the allowed set of pid's main thread (CPUs >= ncpu are dropped). */
int affinity_get_pid(pid_t pid, unsigned char *mask, int ncpu);
/* True when every thread of pid has exactly mask. */
bool affinity_pid_matches(pid_t pid, const unsigned char *mask, int ncpu);
/* Set mask on the calling thread (a child between fork and exec); 0 or
 * -errno, -EINVAL for an empty mask. */
int affinity_set_self(const unsigned char *mask, int ncpu);

#endif

/* proc.h - single look-ups of one process in /proc through procps'
 * libproc2 (the sampler keeps its own contexts for its per-tick reads).
 * Each call reads now; a process that is gone answers as documented. */
#ifndef BENCHTOP_PROC_H
#define BENCHTOP_PROC_H

#include <stdint.h>
#include <sys/types.h>

/* When pid started, in clock ticks after boot (/proc/PID/stat field 22,
 * libproc2's PIDS_TICS_BEGAN); with the boot id it names one process
 * across PID reuse.  0 when pid is gone or unreadable. */
unsigned long long proc_start_ticks(pid_t pid);
/* Bytes pid caused to be written to storage (/proc/PID/io write_bytes,
 * PIDS_IO_WRITE_BYTES); readable for a zombie before it is reaped.
 * 0 or -errno (-ESRCH when gone, -EACCES when not ours to read). */
int proc_write_bytes(pid_t pid, uint64_t *bytes);
/* Bytes pid caused to be read from storage (/proc/PID/io read_bytes,
 * PIDS_IO_READ_BYTES): its threads' and those of the children it reaped,
 * so getpid() around a child's life counts that child's reads.  0 or
 * -errno as proc_write_bytes. */
int proc_read_bytes(pid_t pid, uint64_t *bytes);
/* Calls fn(ctx, tid) for every thread of pid (PIDS_SELECT_PID_THREADS),
 * the main thread included.  0, or -ESRCH when pid is gone. */
int proc_each_thread(pid_t pid, void (*fn)(void *ctx, pid_t tid), void *ctx);

#endif

/* sample.h - one snapshot per tick of everything benchtop watches in
 * /proc: the tracked process trees (through libproc2 where it can, and
 * small parsers for /proc/PID/sched, schedstat, fdinfo), per-CPU load,
 * the block device under the workload's files (diskstats) and Dirty /
 * Writeback (meminfo).  Nothing here draws; nothing else reads /proc.
 *
 * Call order: sampler_new, sampler_add (roots, any time), sampler_tick
 * once per interval, sampler_free. */
#ifndef BENCHTOP_SAMPLE_H
#define BENCHTOP_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "benchtop/model.h"

struct sampler;

/* proc_root is "/proc" (tests may pass a fixture tree for the parsers).
 * nwl is the number of workloads (ids 1..nwl); 0 for attached processes. */
struct sampler *sampler_new(const char *proc_root, int ncpu, int nwl);
void sampler_free(struct sampler *sp);

/* Follow pid and, from the next tick on, all its descendants (found
 * through /proc/PID/task/TID/children, so cost grows with the tracked
 * processes, not with the machine's).  role is shown for pid itself;
 * descendants inherit the root's role unless added explicitly.
 * measure_io: count the bytes this tree moves to and from regular files
 * (sizes and fdinfo positions of the files it holds open, new files in
 * the directories it writes into; see sample_filebytes.c and sample_newfiles.c);
 * false for built-in engines, whose counters the caller supplies. */
int sampler_add(struct sampler *sp, pid_t pid, int workload, const char *role, bool measure_io);
/* sampler_add naming the process's slot in its workload ("writer",
 * "seeker.2", "cmd"; sampler_add uses the role).  Descendants found later
 * get COMM.N, the first N free in their workload.  A measure_io tree's
 * processes (commands, attached ones) get their role from what they do
 * (sample_role_evidence), starting from role. */
int sampler_add_slot(struct sampler *sp, pid_t pid, int workload, const char *role,
                     const char *slot, bool measure_io);
/* A command of workload is about to be started (before its fork): what
 * is on benchtop's standard error by now is not its output, and what it
 * writes there from its first instruction on is (sampler_add counts from
 * this mark instead of its own look, which may come after the command
 * has already written). */
void sampler_will_add(struct sampler *sp, int workload);
/* pid has exited and is not reaped yet (benchtop reaps it next: a root,
 * or an orphan handed to benchtop as its subreaper), in workload wl when
 * it is not tracked (-1: only if tracked): its zombie's io, which holds
 * what its reaped descendants did too, settles what its tree read that
 * the sampler did not see.  Returns its write_bytes (0 when unreadable). */
uint64_t sampler_note_exit(struct sampler *sp, pid_t pid, int wl);
/* The commands' standard output and error go to /dev/null (the
 * dashboard's): what they write there is their messages, as what a
 * batch run's commands write to benchtop's standard error is, so their
 * wchar still measures what they wrote to files. */
void sampler_output_null(struct sampler *sp);
/* benchtop itself wrote bytes to its standard error during the run
 * (where a command's output goes in batch mode): not the command's. */
void sampler_own_output(struct sampler *sp, uint64_t bytes);
/* The workload of tracked pid (zombies too), -1 when not tracked. */
int sampler_owner(const struct sampler *sp, pid_t pid);
/* A file whose block device should be watched (dev from st_dev). */
void sampler_watch_path(struct sampler *sp, const char *path);
/* Nothing named a file: the device under path (the current directory)
 * until the first file the tree writes, whose device is watched then. */
void sampler_guess_path(struct sampler *sp, const char *path);

/* Number of processes currently tracked (alive). */
int sampler_nprocs(const struct sampler *sp);
/* Pids tracked for workload w (w = 0: attached) into pids[max]; returns n. */
int sampler_pids(const struct sampler *sp, int workload, pid_t *pids, int max);

/* Take a snapshot: s->cpus[].user..idle, s->procs (grown as needed),
 * s->disk, and for each workload in s->wls[]: utime/stime (including exited
 * descendants, never going backwards) and, for measure_io trees, bytes
 * (written to regular files, or read from them when it wrote none:
 * counted says which) and read_bps/write_bps.  s->dt is the time between
 * this read of the processes and the previous one, which every rate is
 * over.  now is CLOCK_MONOTONIC seconds.  Returns 0 or -errno. */
int sampler_tick(struct sampler *sp, struct snapshot *s, double now);
/* The first look at a run's new processes (sampler_tick into s): the
 * baseline of CPU shares, not a sample.  What the workloads moved by
 * then stays for the next sample, whose rates and interval run from when
 * the workloads were first tracked (however late this look came). */
int sampler_prime(struct sampler *sp, struct snapshot *s, double now);

/* How long source `name` ("processes", "cpu", "diskstats", "meminfo") took
 * at its last read, in ms (-1 unknown); *every (if given) gets how many
 * ticks apart it is read: always 1, every source is read every tick. */
double sampler_source_ms(const struct sampler *sp, const char *name, int *every);

/* Roles of command processes.  What one interval shows a process did:
 * "writer" (it wrote regular files: positions or sizes grew), else
 * "reader" (it read regular files), else "idle" (under 1% CPU), else
 * "pipe" (it moved data only through pipes or sockets); NULL when nothing
 * tells (busy, no I/O). */
const char *sample_role_evidence(double cpu_pct, uint64_t file_read, uint64_t file_written,
                                 bool chars_moved);
/* A role changes only when this many intervals in a row agree on another. */
#define SAMPLE_ROLE_STABLE 3
struct sample_role_track {
	char cand[MODEL_ROLE_LEN];
	int n;
};
/* Fold one interval's evidence (NULL: none) into role (len bytes). */
void sample_role_settle(char *role, size_t len, struct sample_role_track *t, const char *evidence);

/* Parsers, exposed for tests: each takes file contents, returns 0 or -1. */
/* The fields of /proc/PID/stat the sampler uses. */
struct sample_stat {
	char comm[MODEL_COMM_LEN];     /* truncated to fit */
	char state;
	pid_t ppid;
	uint64_t utime, stime;         /* clock ticks */
	int nthreads;
	uint64_t start;                /* clock ticks after boot */
	int cpu;                       /* where it last ran */
};
int sample_parse_stat(const char *text, struct sample_stat *st);
int sample_parse_sched_migrations(const char *text, uint64_t *migrations);
int sample_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns);
/* A block device's sysfs stat: the sectors (512 bytes) read, the 3rd
 * field, and written, the 7th. */
int sample_parse_disk_stat(const char *text, uint64_t *rsect, uint64_t *wsect);
int sample_parse_io(const char *text, uint64_t *rchar, uint64_t *wchar,
                    uint64_t *read_bytes, uint64_t *write_bytes);
/* fdinfo: "pos:" and "flags:" (octal); returns 0 when both were found. */
int sample_parse_fdinfo(const char *text, uint64_t *pos, unsigned *flags);
/* Rate of a counter across a tick, 0 when it went backwards (a reset). */
double sample_rate(uint64_t before, uint64_t after, double dt);

#endif

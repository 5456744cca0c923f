/* leftovers.h - undoing what a killed benchtop left behind, for
 * `benchtop --restore`: the processes of its run, its scratch files and
 * the attached processes it paused.  Each function returns how many things
 * it undid (0: nothing was left), or -errno; msg gets one sentence saying
 * what it did or why it could not. */
#ifndef BENCHTOP_LEFTOVERS_H
#define BENCHTOP_LEFTOVERS_H

#include <stddef.h>
#include <sys/types.h>

/* SIGKILL to what is left of process group pgid, waiting (up to 2 s) until
 * it is gone.  The group is taken for the run's only if its leader is the
 * process that started at leader_start (clock ticks since boot, 0 unknown)
 * or, the leader gone, every member started at or after run_start. */
int leftover_kill_pgid(pid_t pgid, unsigned long long leader_start,
                       unsigned long long run_start, char *msg, size_t len);
/* Everything in the cgroup v2 directory path killed (cgroup.kill, else
 * each process of cgroup.procs), waited for (up to 2 s), and the directory
 * removed.  A path that is not on a cgroup2 file system is refused. */
int leftover_kill_cgroup(const char *path, char *msg, size_t len);
/* SIGCONT to pid if it is still the process that started at starttime. */
int leftover_resume(pid_t pid, unsigned long long starttime, char *msg, size_t len);
/* Remove a scratch file or directory (with everything in it), never
 * following a symbolic link; only names benchtop makes ("benchtop" at the
 * start of the last component) are removed. */
int leftover_remove(const char *path, char *msg, size_t len);

#endif

/* cgroup.h - cgroup v2 groups that hold a run's workloads, so that no
 * process of a run outlives it whatever it does (setsid, double fork),
 * and so that the CPU of short-lived and orphaned processes is counted.
 *
 * Call order: cgroup_run_open once per run (a group of its own under the
 * group benchtop runs in: the user's systemd scope where systemd runs,
 * else wherever benchtop sits in the cgroup2 file system); cgroup_child
 * for each workload; a child process calls cgroup_join before exec; at the
 * end cgroup_kill and cgroup_remove (children first, then the run's).
 * Where no group can be made (no cgroup2, no permission) cgroup_run_open
 * says why and the caller falls back to killing tracked descendants. */
#ifndef BENCHTOP_CGROUP_H
#define BENCHTOP_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cgroup;

/* Make the run's group "benchtop.PID" under benchtop's own cgroup2 group
 * (found from /proc/self/cgroup and /proc/self/mountinfo).  It is checked
 * by moving a probe process into it.  0 and *out, or -errno and why ("no cgroup2 file
 * system mounted", "cannot make /sys/fs/cgroup/...: Permission denied"). */
int cgroup_run_open(struct cgroup **out, char *why, size_t len);
/* A child group NAME of parent (a workload's).  NULL with errno set. */
struct cgroup *cgroup_child(struct cgroup *parent, const char *name);
/* The group's path in the file system ("/sys/fs/cgroup/.../benchtop.123/w1"). */
const char *cgroup_path(const struct cgroup *g);

/* A descriptor of the group's cgroup.procs, open for writing (close on
 * exec): a forked engine passes it to cgroup_join; a command's child
 * waits, stopped, for benchtop's cgroup_move. */
int cgroup_procs_fd(const struct cgroup *g);
/* In a forked child: move the calling process into the group behind fd.
 * 0 or -errno.  Async-signal-safe. */
int cgroup_join(int procs_fd);
/* Move process pid into the group behind fd (benchtop moving a child
 * that waits, stopped, so that the move is not the child's own write).
 * 0 or -errno. */
int cgroup_move(int procs_fd, pid_t pid);

/* Is pid (a zombie too, until it is reaped) a member of the group itself
 * (/proc/PID/cgroup)? */
bool cgroup_holds(const struct cgroup *g, pid_t pid);
/* 1 while any process is in the group or its children, 0 when none is
 * (cgroup.events "populated"), -errno when it cannot be read. */
int cgroup_populated(const struct cgroup *g);
/* CPU seconds of every process that ever ran in the group (cpu.stat
 * user_usec and system_usec; the file is opened at the first call and
 * kept open until the group is freed).  0 or -errno. */
int cgroup_cpu(struct cgroup *g, double *user, double *sys);
/* Send sig to every process in the group (not its children groups).
 * Returns how many were signalled. */
int cgroup_signal(const struct cgroup *g, int sig);
/* SIGKILL to every process in the group and its children at once
 * (cgroup.kill; where the kernel has none, frozen and killed one by one
 * until it is empty).  0 or -errno. */
int cgroup_kill(const struct cgroup *g);
/* cgroup.kill alone, for a crash handler: async-signal-safe, no
 * fallback for kernels without it.  0 or -errno. */
int cgroup_kill_async(const struct cgroup *g);
/* Remove the group (it must be empty and have no children); the handle is
 * freed whatever the outcome.  0 or -errno (EBUSY while populated). */
int cgroup_remove(struct cgroup *g);

#endif

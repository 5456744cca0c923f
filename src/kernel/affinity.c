/* affinity.c - pin processes thread by thread and read the result back.
 *
 * sched_setaffinity() acts on one thread, so a process is pinned by walking
 * /proc/PID/task.  Every set is read back: a cpuset, or a program that
 * resets its own affinity, can make a pin not take, and the user must be
 * told rather than shown a placement that is not real.  CPU sets come from
 * CPU_ALLOC, sized from the CPU count, so machines with more than 64 (or
 * 1024) CPUs work. */
#include "benchtop/affinity.h"
#include "benchtop/sysfile.h"
#include "benchtop/cpulist.h"
#include "benchtop/proc.h"
#include "benchtop/xalloc.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel refuses sched_getaffinity() into a set smaller than its own
 * CPU mask, which can be larger than the configured CPU count; start here
 * and grow on EINVAL. */
#define GET_MIN_CPUS 1024
#define GET_MAX_CPUS (1 << 20)
#define LIST_MAX 256

int affinity_ncpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

bool affinity_cpu_online(const char *sys_root, int cpu)
{
	char path[4096];
	char c = '0';
	FILE *f;

	if (cpu < 0 || cpu >= affinity_ncpu())
		return false;
	snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d/online", sys_root, cpu);
	int e;
	f = sysfile_fopen_regular(path, &e);
	if (!f)
		return true;    /* no online file (often cpu0): it cannot go offline */
	if (fread(&c, 1, 1, f) != 1)
		c = '0';
	fclose(f);
	return c == '1';
}

int affinity_online(const char *sys_root, unsigned char *mask, int ncpu)
{
	int n = 0, have = affinity_ncpu();

	for (int c = 0; c < ncpu; c++) {
		mask[c] = c < have && affinity_cpu_online(sys_root, c);
		n += mask[c];
	}
	return n;
}

int affinity_check_cpus(const char *sys_root, const unsigned char *mask, int ncpu,
			char *msg, size_t len)
{
	int have = affinity_ncpu();
	char list[LIST_MAX];

	if (cpulist_count(mask, ncpu) == 0) {
		snprintf(msg, len, "empty CPU set: choose at least one CPU, such as 0");
		return -EINVAL;
	}
	for (int c = 0; c < ncpu; c++) {
		if (!mask[c])
			continue;
		if (c >= have) {
			snprintf(msg, len, "CPU %d is out of range: this machine has CPUs 0-%d",
				 c, have - 1);
			return -EINVAL;
		}
		if (!affinity_cpu_online(sys_root, c)) {
			unsigned char *on = xcalloc((size_t)have, 1);

			if (on)
				affinity_online(sys_root, on, have);
			cpulist_format(on ? on : mask, on ? have : 0, list, sizeof list);
			snprintf(msg, len, "CPU %d is offline: online CPUs are %s", c, list);
			free(on);
			return -EINVAL;
		}
	}
	return 0;
}

/* A CPU_ALLOC set holding mask; *size gets its size in bytes. */
static cpu_set_t *set_from_mask(const unsigned char *mask, int ncpu, size_t *size)
{
	cpu_set_t *set = CPU_ALLOC(ncpu > 0 ? ncpu : 1);

	if (!set)
		return NULL;
	*size = CPU_ALLOC_SIZE(ncpu > 0 ? ncpu : 1);
	CPU_ZERO_S(*size, set);
	for (int c = 0; c < ncpu; c++)
		if (mask[c])
			CPU_SET_S(c, *size, set);
	return set;
}

/* Reads tid's allowed set into mask[0..ncpu); *beyond is set when the
 * kernel's set has CPUs at or above ncpu.  Returns 0 or -errno. */
static int get_task(pid_t tid, unsigned char *mask, int ncpu, bool *beyond)
{
	for (int n = ncpu > GET_MIN_CPUS ? ncpu : GET_MIN_CPUS; n <= GET_MAX_CPUS; n *= 2) {
		size_t size = CPU_ALLOC_SIZE(n);
		cpu_set_t *set = CPU_ALLOC(n);
		int rc;

		if (!set)
			return -ENOMEM;
		rc = sched_getaffinity(tid, size, set);
		if (rc == 0) {
			*beyond = false;
			for (int c = 0; c < n; c++) {
				bool in = CPU_ISSET_S(c, size, set);
				if (c < ncpu)
					mask[c] = in;
				else if (in)
					*beyond = true;
			}
		}
		rc = rc == 0 ? 0 : -errno;
		CPU_FREE(set);
		if (rc != -EINVAL)
			return rc;
	}
	return -EINVAL;
}

/* True when tid's allowed set is exactly mask; got receives what it has. */
static int task_matches(pid_t tid, const unsigned char *mask, int ncpu,
			unsigned char *got, bool *match)
{
	bool beyond;
	int rc = get_task(tid, got, ncpu, &beyond);

	if (rc == 0)
		*match = !beyond && memcmp(got, mask, (size_t)ncpu) == 0;
	return rc;
}

/* One affinity_set_pid() call: the set to apply and what happened. */
struct pin {
	pid_t pid;
	const unsigned char *mask;
	int ncpu;
	cpu_set_t *set;
	size_t size;
	unsigned char *got;     /* scratch: a task's set as read back */
	int tasks, gone, changed;
	int rc;                 /* first failure, 0 if none */
	char *msg;
	size_t len;
};

/* Records the first failure only: later ones are usually the same cause. */
static bool pin_failed(struct pin *p)
{
	return p->rc != 0;
}

static void pin_refused(struct pin *p, pid_t tid, int err)
{
	char want[LIST_MAX];

	if (pin_failed(p))
		return;
	p->rc = -err;
	cpulist_format(p->mask, p->ncpu, want, sizeof want);
	if (err == EPERM)
		snprintf(p->msg, p->len, "not permitted to change the affinity of process %d: "
			 "it belongs to another user (run benchtop as its owner or as root)",
			 (int)p->pid);
	else if (err == EINVAL)
		snprintf(p->msg, p->len, "CPUs %s are not allowed for thread %d of process %d "
			 "(its cpuset forbids them)", want, (int)tid, (int)p->pid);
	else
		snprintf(p->msg, p->len, "cannot set the affinity of thread %d of process %d: %s",
			 (int)tid, (int)p->pid, strerror(err));
}

static void pin_did_not_take(struct pin *p, pid_t tid)
{
	char want[LIST_MAX], got[LIST_MAX];

	if (pin_failed(p))
		return;
	p->rc = -EAGAIN;
	cpulist_format(p->mask, p->ncpu, want, sizeof want);
	cpulist_format(p->got, p->ncpu, got, sizeof got);
	snprintf(p->msg, p->len, "thread %d of process %d is on CPUs %s, not %s "
		 "(a cpuset or the program itself restricts it)",
		 (int)tid, (int)p->pid, *got ? got : "beyond the list", want);
}

/* Sets one thread unless it already has the mask, then reads it back. */
static void pin_task(struct pin *p, pid_t tid)
{
	bool match = false;
	int rc = task_matches(tid, p->mask, p->ncpu, p->got, &match);

	p->tasks++;
	if (rc == 0 && match)
		return;
	if (rc == 0 && sched_setaffinity(tid, p->size, p->set) != 0)
		rc = -errno;
	if (rc == 0)
		rc = task_matches(tid, p->mask, p->ncpu, p->got, &match);
	p->changed++;
	if (rc == -ESRCH)
		p->gone++;      /* the thread ended meanwhile: nothing to pin */
	else if (rc < 0)
		pin_refused(p, tid, -rc);
	else if (!match)
		pin_did_not_take(p, tid);
}

struct walk {
	void (*fn)(struct pin *, pid_t);
	struct pin *p;
};

static void walk_one(void *ctx, pid_t tid)
{
	struct walk *w = ctx;

	w->fn(w->p, tid);
}

/* Calls fn on every thread of pid (libproc2 lists them).  Returns 0 or
 * -ESRCH when pid is gone. */
static int each_task(pid_t pid, void (*fn)(struct pin *, pid_t), struct pin *p)
{
	struct walk w = { fn, p };

	return proc_each_thread(pid, walk_one, &w);
}

/* Walks the threads until a walk finds nothing to change, so threads
 * started during the first walk are caught too (bounded: a program that
 * keeps spawning threads is caught on the next call). */
static int pin_all(struct pin *p)
{
	for (int walk = 0; walk < 3 && !pin_failed(p); walk++) {
		int rc;

		p->tasks = p->gone = p->changed = 0;
		rc = each_task(p->pid, pin_task, p);
		if (rc < 0)
			return rc;
		if (p->tasks == p->gone)
			return -ESRCH;
		if (p->changed == 0)
			break;
	}
	return p->rc;
}

static int pin_report(struct pin *p, int rc)
{
	char want[LIST_MAX];

	if (rc == -ESRCH) {
		snprintf(p->msg, p->len, "process %d has exited", (int)p->pid);
	} else if (rc == 0) {
		cpulist_format(p->mask, p->ncpu, want, sizeof want);
		snprintf(p->msg, p->len, "process %d (%d thread%s) on CPU%s %s", (int)p->pid,
			 p->tasks, p->tasks == 1 ? "" : "s",
			 cpulist_count(p->mask, p->ncpu) == 1 ? "" : "s", want);
	} else if (!pin_failed(p)) {
		snprintf(p->msg, p->len, "cannot read the threads of process %d: %s",
			 (int)p->pid, strerror(-rc));
	}
	return rc;
}

int affinity_set_pid(pid_t pid, const unsigned char *mask, int ncpu, char *msg, size_t len)
{
	char scratch[8];
	struct pin p = { .pid = pid, .mask = mask, .ncpu = ncpu,
			 .msg = msg ? msg : scratch, .len = msg ? len : sizeof scratch };
	int rc;

	if (pid <= 0)
		return pin_report(&p, -ESRCH);
	rc = affinity_check_cpus("/sys", mask, ncpu, p.msg, p.len);
	if (rc < 0)
		return rc;
	p.set = set_from_mask(mask, ncpu, &p.size);
	p.got = xcalloc((size_t)ncpu, 1);
	if (!p.set || !p.got) {
		rc = -ENOMEM;
		snprintf(p.msg, p.len, "out of memory pinning process %d", (int)pid);
	} else {
		rc = pin_report(&p, pin_all(&p));
	}
	if (p.set)
		CPU_FREE(p.set);
	free(p.got);
	return rc;
}

int affinity_get_pid(pid_t pid, unsigned char *mask, int ncpu)
{
	bool beyond;

	if (pid <= 0)
		return -ESRCH;
	return get_task(pid, mask, ncpu, &beyond);
}

/* each_task callback for affinity_pid_matches: counts mismatches in gone. */
static void match_task(struct pin *p, pid_t tid)
{
	bool match = false;
	int rc = task_matches(tid, p->mask, p->ncpu, p->got, &match);

	if (rc == -ESRCH)
		return;
	p->tasks++;
	if (rc < 0 || !match)
		p->changed++;
}

bool affinity_pid_matches(pid_t pid, const unsigned char *mask, int ncpu)
{
	struct pin p = { .pid = pid, .mask = mask, .ncpu = ncpu };
	bool ok;

	if (pid <= 0 || ncpu <= 0)
		return false;
	p.got = xcalloc((size_t)ncpu, 1);
	if (!p.got)
		return false;
	ok = each_task(pid, match_task, &p) == 0 && p.tasks > 0 && p.changed == 0;
	free(p.got);
	return ok;
}

int affinity_set_self(const unsigned char *mask, int ncpu)
{
	size_t size;
	cpu_set_t *set;
	int rc;

	if (cpulist_count(mask, ncpu) == 0)
		return -EINVAL;
	set = set_from_mask(mask, ncpu, &size);
	if (!set)
		return -ENOMEM;
	rc = sched_setaffinity(0, size, set) == 0 ? 0 : -errno;
	CPU_FREE(set);
	return rc;
}

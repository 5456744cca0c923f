/* sample_proc.c - the sampler's tracked processes: each tick every
 * tracked thread's schedstat through a /proc file held open, then for the
 * processes that ran their children (tracked as they appear), their stat
 * and io (descriptors held open too), their threads (libproc2), migrations
 * and allowed CPUs, and a scan of their open files when their I/O moved;
 * what processes that ended read is settled in sample_reap.c.  The
 * tracked set itself (find, add, drop) lives here. */
#include "benchtop/sample.h"
#include "benchtop/ptree.h"
#include "sample_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <libproc2/pids.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/cpulist.h"
#include "benchtop/xalloc.h"

/* ---- /proc files held open ---------------------------------------- */

/* Open /proc/PID/task/TID/NAME (tid 0: /proc/PID/NAME, the whole
 * process's) as *fd unless it is open: 0 or -errno. */
static int pf_open(struct sampler *sp, int *fd, pid_t pid, pid_t tid, const char *name)
{
	if (*fd >= 0)
		return 0;
	char path[160];
	if (tid > 0)
		snprintf(path, sizeof path, "%s/%d/task/%d/%s", sp->root, (int)pid, (int)tid, name);
	else
		snprintf(path, sizeof path, "%s/%d/%s", sp->root, (int)pid, name);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	sp->held++;
	return 0;
}

/* Past sp->max_held files held, a file is closed after each read. */
static void pf_release(struct sampler *sp, int *fd)
{
	if (sp->held > sp->max_held) {
		close(*fd);
		*fd = -1;
		sp->held--;
	}
}

/* Read /proc/PID/task/TID/NAME into buf through *fd, opening it on first
 * use and keeping it open while under sp->max_held.  Returns bytes or
 * -errno (-ESRCH once the thread is gone). */
static int pf_read(struct sampler *sp, int *fd, pid_t pid, pid_t tid, const char *name,
                   char *buf, size_t len)
{
	int rc = pf_open(sp, fd, pid, tid, name);
	if (rc < 0)
		return rc;
	ssize_t n = pread(*fd, buf, len - 1, 0);
	int err = errno;
	pf_release(sp, fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return (int)n;
}

/* The same, the whole file into sp->big (grown as needed): a file the
 * kernel hands out a page per read (children: 4096 bytes are about 680
 * PIDs) is read to its end. */
static int pf_read_all(struct sampler *sp, int *fd, pid_t pid, pid_t tid, const char *name)
{
	size_t off = 0;
	int rc = pf_open(sp, fd, pid, tid, name);
	if (rc < 0)
		return rc;
	for (;;) {
		if (sp->big_cap - off < 4097) {
			size_t cap = sp->big_cap ? sp->big_cap * 2 : 16384;
			char *b = realloc(sp->big, cap);
			if (!b)
				break;  /* what was read so far */
			sp->big = b;
			sp->big_cap = cap;
		}
		ssize_t n = pread(*fd, sp->big + off, sp->big_cap - off - 1, (off_t)off);
		if (n < 0 && off == 0)
			rc = -errno;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	pf_release(sp, fd);
	if (sp->big)
		sp->big[off] = '\0';
	return rc < 0 ? rc : (int)off;
}

int sprocs_read_file(struct sampler *sp, int *fd, pid_t pid, pid_t tid, const char *name,
                     char *buf, size_t len)
{
	return pf_read(sp, fd, pid, tid, name, buf, len);
}

static void pf_close(struct sampler *sp, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
		sp->held--;
	}
}

/* ---- threads -------------------------------------------------------- */

static void thr_close(struct sampler *sp, struct sthr *t)
{
	pf_close(sp, &t->fd_schedstat);
	pf_close(sp, &t->fd_sched);
	pf_close(sp, &t->fd_children);
	pf_close(sp, &t->fd_io);
}

static struct sthr *thr_add(struct sproc *p, pid_t tid)
{
	if (sample_grow((void **)&p->thr, &p->capthr, p->nthr + 1, sizeof *p->thr))
		return NULL;
	struct sthr *t = &p->thr[p->nthr++];
	*t = (struct sthr){ .tid = tid, .fd_schedstat = -1, .fd_sched = -1, .fd_children = -1,
	                    .fd_io = -1, .cpu = -1, .migr_cpu = -1 };
	return t;
}

/* Read a thread's schedstat; a new thread gets its baseline (no delta). */
static int thr_poll(struct sampler *sp, struct sproc *p, struct sthr *t, uint64_t *dwait)
{
	uint64_t run, wait;
	bool fresh = t->run_ns == 0 && t->wait_ns == 0;

	int n = pf_read(sp, &t->fd_schedstat, p->pid, t->tid, "schedstat", sp->buf, sizeof sp->buf);
	if (n <= 0 || sample_parse_schedstat(sp->buf, &run, &wait))
		return n < 0 ? n : -EIO;
	t->drun = fresh || run < t->run_ns ? 0 : run - t->run_ns;
	*dwait += fresh || wait < t->wait_ns ? 0 : wait - t->wait_ns;
	if (fresh && run == 0)
		run = 1;  /* never mistake a thread that has not run yet for a new one */
	t->run_ns = run;
	t->wait_ns = wait;
	return 0;
}

#define PREEXEC_TICKS 10
#define PREEXEC_AGE 5.0   /* s: how long a busy machine may hold up an exec */

/* Poll every thread of p: run and wait time, threads gone, p gone. */
static void proc_poll(struct sampler *sp, struct sproc *p, double dt)
{
	uint64_t drun = 0, dwait = 0;
	int k = 0;

	if (p->nthr == 0 && !thr_add(p, p->pid))
		return;
	for (int i = 0; i < p->nthr; i++) {
		struct sthr *t = &p->thr[i];
		if (thr_poll(sp, p, t, &dwait) < 0) {
			p->migr_dead += t->migr;
			sreap_thread_gone(sp, p, t);
			thr_close(sp, t);
			if (t->tid == p->pid)
				p->gone = true;  /* the leader's files vanish only at reap */
			continue;
		}
		drun += t->drun;
		p->thr[k++] = *t;
	}
	p->nthr = k;
	if (p->nthr == 0)
		p->gone = true;
	/* one last seen under its parent's name is read again every tick
	 * until its exec shows: its exec and its forks may be all it does
	 * before it sleeps (a shell that forked its command and waits), and
	 * its run time need not show them (its first look came in between).
	 * Only in its first PREEXEC_TICKS, or while it is younger than
	 * PREEXEC_AGE: a fork that never execs (a server's workers, a
	 * thousand of them) is read when it runs. */
	bool young = sp->ticks - p->first_tick < PREEXEC_TICKS ||
	             (p->start > 0 && sp->boot_now - p->start < PREEXEC_AGE);
	p->ran = p->fresh || drun > 0 || (p->parents_name && young);
	p->named_only = p->ran && !p->fresh && drun == 0;
	p->cpu_pct = dt > 0 ? 100.0 * (double)drun / (dt * 1e9) : 0;
	p->wait_pct = dt > 0 ? 100.0 * (double)dwait / (dt * 1e9) : 0;
}

/* ---- the tracked set ------------------------------------------------ */

/* The tracked process pid, or NULL. */
struct sproc *sprocs_find(struct sampler *sp, pid_t pid)
{
	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].pid == pid)
			return &sp->procs[i];
	return NULL;
}

/* Track pid (appended: may move sp->procs); NULL when out of memory. */
struct sproc *sprocs_new(struct sampler *sp, pid_t pid, int wl, const char *role, bool mio)
{
	if (sample_grow((void **)&sp->procs, &sp->cap, sp->n + 1, sizeof *sp->procs))
		return NULL;
	struct sproc *p = &sp->procs[sp->n++];
	*p = (struct sproc){ .pid = pid, .wl = wl, .measure_io = mio, .infer = mio, .fresh = true,
	                     .state = '?', .cpu = -1, .nthreads = 1, .fd_stat = -1, .fd_io = -1,
	                     .fd_dir = -1, .first_tick = sp->ticks };
	snprintf(p->role, sizeof p->role, "%s", role ? role : "");
	clock_gettime(CLOCK_REALTIME, &p->since);
	return p;
}

/* Track the children of every thread of procs[i] (appended to the array,
 * so a grandchild is found in the same pass). */
static void proc_children(struct sampler *sp, int i)
{
	for (int ti = 0; ti < sp->procs[i].nthr; ti++) {
		struct sproc *p = &sp->procs[i];
		struct sthr *t = &p->thr[ti];
		int n = pf_read_all(sp, &t->fd_children, p->pid, t->tid, "children");
		if (n <= 0)
			continue;
		int wl = p->wl;
		bool mio = p->measure_io;
		struct timespec since = p->since;
		char role[MODEL_ROLE_LEN];
		memcpy(role, p->role, sizeof role);
		for (char *s = sp->big, *end; *s; s = end) {
			long pid = strtol(s, &end, 10);
			if (end == s)
				break;
			struct sproc *c;
			/* a kernel thread is never anyone's workload */
			if (pid > 0 && !sprocs_find(sp, (pid_t)pid) && !ptree_is_kernel_thread((pid_t)pid) &&
			    (c = sprocs_new(sp, (pid_t)pid, wl, role, mio))) {  /* may move sp->procs */
				c->since = since;  /* files the tree made since then are new */
				sp->procs[i].kids_found = true;
			}
		}
	}
}

/* ---- stat and io of the processes that ran ---------------------------- */

/* What /proc/PID/stat and /proc/PID/io show, into p. */
static void proc_apply(struct sampler *sp, struct sproc *p, const struct sample_stat *st,
                       const uint64_t io[4], double dt)
{
	uint64_t rchar = io[0], wchar = io[1];

	/* a new program (a shell's child exec'd its command): what the fork
	 * held before its redirections is not what the command reads */
	if (p->comm[0] && strncmp(p->comm, st->comm, sizeof p->comm - 1) != 0) {
		p->piped = p->piped_w = p->pipe_live = false;
		/* its descriptors are the new program's, however many: the
		 * fork's close-on-exec ones gone, its own files opened */
		p->fd_still = false;
	}
	bool named = p->fresh || p->parents_name || strcmp(p->comm, st->comm) != 0;
	snprintf(p->comm, sizeof p->comm, "%s", st->comm);
	/* under its parent's name: a fork that may not have exec'd yet
	 * (looked up at its first look, at an exec and while it holds;
	 * not for every process on every tick) */
	if (named) {
		const struct sproc *parent = sprocs_find(sp, st->ppid);
		p->parents_name = parent && p->comm[0] && strcmp(parent->comm, p->comm) == 0;
	}
	p->state = st->state;
	p->zombie = p->state == 'Z' || p->state == 'X';
	p->utk = st->utime;
	p->stk = st->stime;
	p->cpu = st->cpu;
	p->nthreads = st->nthreads;
	p->start = (double)st->start / (double)sp->hz;
	p->ppid = st->ppid;
	p->read_bps = p->fresh ? 0 : sample_rate(p->rchar, rchar, dt);
	p->write_bps = p->fresh ? 0 : sample_rate(p->wchar, wchar, dt);
	p->io_moved = !p->io_known || rchar != p->rchar || wchar != p->wchar;
	if (!p->io_known) {
		p->rchar0 = rchar;
		p->wchar0 = wchar;
	}
	if (p->io_moved)
		p->cfr_grow = p->cfr_read = 0;
	p->io_known = true;
	p->rchar = rchar;
	p->wchar = wchar;
	p->rbytes = io[2];
	p->wbytes = io[3];
}

/* Read a process that ran: its stat and io through descriptors held
 * open.  One whose stat cannot be read was reaped in between, unless it
 * is still there (an exec under way); then it is read at the next tick.
 * An io the kernel refuses (a set-uid program) shows nothing moved. */
static void proc_stat_io(struct sampler *sp, struct sproc *p, double dt)
{
	struct sample_stat st;
	uint64_t io[4] = { p->rchar, p->wchar, p->rbytes, p->wbytes };

	if (pf_read(sp, &p->fd_stat, p->pid, 0, "stat", sp->buf, sizeof sp->buf) <= 0 ||
	    sample_parse_stat(sp->buf, &st) != 0) {
		if (!(kill(p->pid, 0) == 0 || errno == EPERM))
			p->gone = true;
		else
			p->read_bps = p->write_bps = 0;
		return;
	}
	if (pf_read(sp, &p->fd_io, p->pid, 0, "io", sp->buf, sizeof sp->buf) <= 0 ||
	    sample_parse_io(sp->buf, &io[0], &io[1], &io[2], &io[3]) != 0) {
		io[0] = p->rchar;
		io[1] = p->wchar;
		io[2] = p->rbytes;
		io[3] = p->wbytes;
	}
	proc_apply(sp, p, &st, io, dt);
}

static void select_ran(struct sampler *sp, double dt)
{
	for (int i = 0; i < sp->n; i++) {
		struct sproc *p = &sp->procs[i];
		if (!p->ran || p->gone) {
			p->read_bps = p->write_bps = 0;  /* did not run: moved nothing */
			continue;
		}
		proc_stat_io(sp, p, dt);
	}
}

/* A process with several threads: learn new threads and where each ran;
 * the process is shown on the CPU of the thread that ran most. */
static void proc_threads(struct sampler *sp, struct sproc *p)
{
	unsigned pid = (unsigned)p->pid;
	struct pids_fetch *f = procps_pids_select(sp->tinfo, &pid, 1, PIDS_SELECT_PID_THREADS);
	uint64_t dummy = 0, best = 0;

	for (int j = 0; f && j < f->counts->total; j++) {
		struct pids_result *h = f->stacks[j]->head;
		pid_t tid = h[TI_TID].result.s_int;
		struct sthr *t = NULL;
		for (int i = 0; i < p->nthr && !t; i++)
			if (p->thr[i].tid == tid)
				t = &p->thr[i];
		if (!t && (t = thr_add(p, tid)))
			thr_poll(sp, p, t, &dummy);
		if (t)
			t->cpu = h[TI_CPU].result.s_int;
	}
	for (int i = 0; i < p->nthr; i++)
		if (p->thr[i].drun > best && p->thr[i].cpu >= 0) {
			best = p->thr[i].drun;
			p->cpu = p->thr[i].cpu;
		}
}

/* se.nr_migrations of the threads that ran, plus those that exited.
 * sched is the dearest file of a tick (40 lines): a thread that ran is
 * read when it shows on another CPU than at its last read, and at least
 * every MIGR_EVERY ticks (a move there and back between two looks). */
#define MIGR_EVERY 10
static void proc_migrations(struct sampler *sp, struct sproc *p)
{
	uint64_t sum = p->migr_dead, m;

	for (int i = 0; i < p->nthr; i++) {
		struct sthr *t = &p->thr[i];
		int cpu = p->nthr > 1 ? t->cpu : p->cpu;
		bool due = p->fresh || t->migr_cpu < 0 || cpu != t->migr_cpu ||
		           sp->ticks - t->migr_tick >= MIGR_EVERY;
		if ((t->drun || p->fresh) && due &&
		    pf_read(sp, &t->fd_sched, p->pid, t->tid, "sched", sp->buf, sizeof sp->buf) > 0 &&
		    sample_parse_sched_migrations(sp->buf, &m) == 0) {
			t->migr = m;
			t->migr_cpu = cpu;
			t->migr_tick = sp->ticks;
		}
		sum += t->migr;
	}
	if (sum > p->migrations)
		p->migrations = sum;
}

/* Allowed CPUs change without the process running (benchtop pins it). */
static void proc_affinity(struct sampler *sp, struct sproc *p)
{
	if (sched_getaffinity(p->pid, sp->csize, sp->cset) != 0)
		return;
	if (!p->allowed)
		p->allowed = xcalloc((size_t)sp->nconf, 1);
	for (int c = 0; p->allowed && c < sp->nconf; c++)
		p->allowed[c] = CPU_ISSET_S(c, sp->csize, sp->cset) ? 1 : 0;
}

/* ---- dropping and reading ------------------------------------------ */

/* Stop tracking procs[i]: its CPU goes to its workload's dead totals, its
 * files and threads are let go; the last process takes its place. */
void sprocs_drop(struct sampler *sp, int i)
{
	struct sproc *p = &sp->procs[i];
	struct swl *w = &sp->wl[p->wl];

	w->dead_ut += (double)p->utk / (double)sp->hz;
	w->dead_st += (double)p->stk / (double)sp->hz;
	sfiles_forget(sp->files, p);
	for (int t = 0; t < p->nthr; t++)
		thr_close(sp, &p->thr[t]);
	pf_close(sp, &p->fd_stat);
	pf_close(sp, &p->fd_io);
	pf_close(sp, &p->fd_dir);
	free(p->thr);
	free(p->of);
	free(p->od);
	free(p->allowed);
	sp->procs[i] = sp->procs[--sp->n];
}

/* Read every tracked process: threads, children, stat and io of those that
 * ran, migrations, affinity, and the files of those that moved bytes. */
void sprocs_read(struct sampler *sp, double dt)
{
	for (int i = 0; i < sp->n; i++) {
		proc_poll(sp, &sp->procs[i], dt);
		/* a command benchtop started has its children read every
		 * tick until one is found: a shell that forked its commands
		 * and went to wait between two looks need not show as having
		 * run (attached processes, maybe a thousand, as they run) */
		struct sproc *p = &sp->procs[i];
		if ((p->ran || (p->root && !p->past && !p->kids_found)) && !p->gone)
			proc_children(sp, i);
	}
	/* a process that ended was reaped by its parent: read the parent's
	 * count now, which holds it (sample_reap.c) */
	for (int i = 0; i < sp->n; i++) {
		struct sproc *q, *p = &sp->procs[i];
		if (p->gone && p->measure_io && (q = sprocs_find(sp, p->ppid)) && !q->gone)
			q->ran = true;
	}
	select_ran(sp, dt);
	/* what ended processes read (sample_reap.c): the last look at
	 * those that ended, the reapers' counts */
	for (int i = 0; i < sp->n; i++) {
		struct sproc *p = &sp->procs[i];
		if (p->gone)
			sreap_gone(sp, p);
		else if (p->ran && p->io_moved)
			sreap_read(sp, p);
	}
	for (int i = 0; i < sp->n; i++) {
		struct sproc *p = &sp->procs[i];
		if (p->gone)
			continue;
		if (p->ran && (p->nthreads > 1 || p->nthr > 1))
			proc_threads(sp, p);
		if (p->ran)
			proc_migrations(sp, p);
		if (!p->zombie)
			proc_affinity(sp, p);
		/* positions move only with the I/O counters, sizes of files
		 * open for writing also with copy_file_range or mmap in flight;
		 * one that ran with neither since its last scan may have opened
		 * a file and be in such a call (every 4th tick, whether or not
		 * it ran in this one: a copy held back by writeback sleeps
		 * through most ticks) */
		p->frd = p->fwr = 0;
		p->prexec = p->fresh && p->parents_name;
		/* (one read only for its parent's name did not run: it
		 * opened nothing; an exec shows in its io and rescans it) */
		p->ran_unscanned |= p->ran && !p->named_only;
		/* one that holds only devices (dd if=/dev/zero of=/dev/null)
		 * and as many descriptors as then: its last scan stands,
		 * but for every 4th tick */
		bool rescan = p->measure_io &&
		              ((p->ran && !p->named_only && (p->io_moved || p->fresh || sfiles_holds_write(p))) ||
		               (p->ran_unscanned && !p->zombie && sp->ticks % 4 == 0));
		if (rescan && !p->fresh && sp->ticks % 4 != 0 && sfiles_unchanged(sp->root, p))
			rescan = false;
		if (rescan) {
			bool had = p->fd_dir >= 0;
			sfiles_scan(sp->files, sp->root, p, &sp->wl[p->wl], sp->buf);
			sp->held += (p->fd_dir >= 0) - had;
			/* held for the next ticks' counts only while it is still */
			if (!p->fd_still || sp->held > sp->max_held)
				pf_close(sp, &p->fd_dir);
			p->ran_unscanned = false;
		}
		sreap_own(sp, p);
	}
}

/* sample.c - the sampler: tracked process trees, one snapshot per tick.
 *
 * Every tick reads every tracked process and thread; nothing is skipped
 * and no figure is repeated.  Cost grows with the tracked processes, never
 * with the machine's: each tick reads /proc/PID/task/TID/schedstat of
 * every tracked thread through a descriptor held open (pread at offset 0
 * regenerates the file).  What else is read follows what the kernel shows
 * can have changed: a process whose run time did not move since the last
 * tick has not run, so its CPU times, I/O counters, children, migrations
 * and file positions are exactly what they were (carried over, rate 0);
 * a process that ran is read again (libproc2 for stat and io, then
 * children and sched), and its descriptors are scanned when its I/O
 * counters moved or it holds a file open for writing.  Each source
 * timestamps its own read, and every rate is what a counter moved between
 * two reads over the time between those two reads. */
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

#include "benchtop/clock.h"
#include "benchtop/cpulist.h"
#include "benchtop/xalloc.h"

#define SELECT_CHUNK 64       /* libproc2 refuses long pid lists */

/* One list makes both the libproc2 item array and the enum indexing it. */
#define PROC_ITEMS(X) \
	X(PI_PID, PIDS_ID_PID) \
	X(PI_PPID, PIDS_ID_PPID) \
	X(PI_CMD, PIDS_CMD) \
	X(PI_STATE, PIDS_STATE) \
	X(PI_UTICS, PIDS_TICS_USER) \
	X(PI_STICS, PIDS_TICS_SYSTEM) \
	X(PI_CPU, PIDS_PROCESSOR) \
	X(PI_NLWP, PIDS_NLWP) \
	X(PI_START, PIDS_TIME_START) \
	X(PI_RCHAR, PIDS_IO_READ_CHARS) \
	X(PI_WCHAR, PIDS_IO_WRITE_CHARS) \
	X(PI_RBYTES, PIDS_IO_READ_BYTES) \
	X(PI_WBYTES, PIDS_IO_WRITE_BYTES)
/* In thread mode libproc2 reports each thread's own id. */
#define THR_ITEMS(X) \
	X(TI_TID, PIDS_ID_TID) \
	X(TI_CPU, PIDS_PROCESSOR)
#define AS_ENUM(e, item) e,
#define AS_ITEM(e, item) item,
enum proc_idx { PROC_ITEMS(AS_ENUM) PI_COUNT };
enum thr_idx { THR_ITEMS(AS_ENUM) TI_COUNT };
static enum pids_item proc_items[] = { PROC_ITEMS(AS_ITEM) };
static enum pids_item thr_items[] = { THR_ITEMS(AS_ITEM) };
_Static_assert(sizeof proc_items / sizeof *proc_items == PI_COUNT, "proc items");
_Static_assert(sizeof thr_items / sizeof *thr_items == TI_COUNT, "thread items");

struct sampler;
typedef int (*source_fn)(struct sampler *sp, double dt);

/* A data source, read every tick, timestamped at its own read. */
struct source {
	const char *name;
	source_fn fn;
	double last_t;        /* monotonic time of its last read, < 0 never */
	double ms;            /* how long its last read took */
};

struct sampler {
	char root[128];
	int ncpu, nwl, nconf;
	long hz;
	struct pids_info *pinfo, *tinfo;
	struct sproc *procs;
	int n, cap;
	struct swl *wl;                /* nwl + 1, index 0 = attached */
	struct sfiles *files;
	struct ssys *sys;
	struct cpu_sample *cpus;       /* last values, copied into each snapshot */
	struct disk_sample disk;
	unsigned sel[SELECT_CHUNK];
	cpu_set_t *cset;
	size_t csize;
	unsigned char *mask;
	uint64_t ticks;
	double last_now, cpu_prev;
	double now;                    /* the current tick's CLOCK_MONOTONIC time */
	double t_procs, dt_procs;      /* when the processes were last read, and since the read before */
	int held;                      /* /proc files held open */
	struct source src[4];
	char buf[SAMPLE_BUF];
};

static int src_procs(struct sampler *sp, double dt);
static void root_reconcile(struct swl *w);
static int src_cpu(struct sampler *sp, double dt);
static int src_disk(struct sampler *sp, double dt);
static int src_mem(struct sampler *sp, double dt);

/* ---- /proc files held open ---------------------------------------- */

/* Read /proc/PID/task/TID/NAME into buf through *fd, opening it on first
 * use and keeping it open while under SAMPLE_MAX_HELD.  Returns bytes or
 * -errno (-ESRCH once the thread is gone). */
static int pf_read(struct sampler *sp, int *fd, pid_t pid, pid_t tid, const char *name,
                   char *buf, size_t len)
{
	if (*fd < 0) {
		char path[160];
		snprintf(path, sizeof path, "%s/%d/task/%d/%s", sp->root, (int)pid, (int)tid, name);
		*fd = open(path, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			return -errno;
		sp->held++;
	}
	ssize_t n = pread(*fd, buf, len - 1, 0);
	int err = errno;
	if (sp->held > SAMPLE_MAX_HELD) {
		close(*fd);
		*fd = -1;
		sp->held--;
	}
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return (int)n;
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
}

static struct sthr *thr_add(struct sproc *p, pid_t tid)
{
	if (sample_grow((void **)&p->thr, &p->capthr, p->nthr + 1, sizeof *p->thr))
		return NULL;
	struct sthr *t = &p->thr[p->nthr++];
	*t = (struct sthr){ .tid = tid, .fd_schedstat = -1, .fd_sched = -1, .fd_children = -1,
	                    .cpu = -1 };
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
	p->ran = p->fresh || drun > 0;
	p->cpu_pct = dt > 0 ? 100.0 * (double)drun / (dt * 1e9) : 0;
	p->wait_pct = dt > 0 ? 100.0 * (double)dwait / (dt * 1e9) : 0;
}

/* ---- the tracked set ------------------------------------------------ */

static struct sproc *proc_find(struct sampler *sp, pid_t pid)
{
	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].pid == pid)
			return &sp->procs[i];
	return NULL;
}

static struct sproc *proc_new(struct sampler *sp, pid_t pid, int wl, const char *role, bool mio)
{
	if (sample_grow((void **)&sp->procs, &sp->cap, sp->n + 1, sizeof *sp->procs))
		return NULL;
	struct sproc *p = &sp->procs[sp->n++];
	*p = (struct sproc){ .pid = pid, .wl = wl, .measure_io = mio, .infer = mio, .fresh = true,
	                     .state = '?', .cpu = -1, .nthreads = 1 };
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
		int n = pf_read(sp, &t->fd_children, p->pid, t->tid, "children", sp->buf, sizeof sp->buf);
		if (n <= 0)
			continue;
		int wl = p->wl;
		bool mio = p->measure_io;
		struct timespec since = p->since;
		char role[MODEL_ROLE_LEN];
		memcpy(role, p->role, sizeof role);
		for (char *s = sp->buf, *end; *s; s = end) {
			long pid = strtol(s, &end, 10);
			if (end == s)
				break;
			struct sproc *c;
			/* a kernel thread is never anyone's workload */
			if (pid > 0 && !proc_find(sp, (pid_t)pid) && !ptree_is_kernel_thread((pid_t)pid) &&
			    (c = proc_new(sp, (pid_t)pid, wl, role, mio)))  /* may move sp->procs */
				c->since = since;  /* files the tree made since then are new */
		}
	}
}

/* ---- reads recovered after the fact --------------------------------- */

/* A process whose reads all came from its regular files (reads_files)
 * and that ended between two ticks read on past its last scan.  The
 * kernel adds a reaped child's I/O to its parent's, so the parent's next
 * rchar shows it: what the parent's rchar moved beyond the child's last
 * seen rchar, at most what the child had left unread in its files. */
static void proc_children_gone(struct sampler *sp, struct sproc *p, uint64_t rchar)
{
	if (!p->pend_cap)
		return;
	uint64_t d = p->io_known && rchar > p->rchar ? rchar - p->rchar : 0;
	if (p->io_known && d < p->pend_seen)
		return;  /* not reaped yet */
	uint64_t rem = d - (p->io_known ? p->pend_seen : d);
	if (rem > p->pend_cap)
		rem = p->pend_cap;
	sp->wl[p->wl].rbytes += rem;
	p->pend_seen = p->pend_cap = 0;
}

/* p is gone: hand what it may have read since its last scan to its parent. */
static void proc_gone_reads(struct sampler *sp, struct sproc *p)
{
	struct sproc *parent = NULL;

	if (!p->reads_files || !p->rd_left || p->exit_noted)
		return;
	for (int i = 0; i < sp->n && !parent; i++)
		if (sp->procs[i].pid == p->ppid && !sp->procs[i].gone)
			parent = &sp->procs[i];
	if (!parent || parent->wl != p->wl)
		return;
	parent->pend_seen += p->rchar;
	parent->pend_cap += p->rd_left;
	p->rd_left = 0;
}

/* ---- libproc2: stat and io of the processes that ran ---------------- */

static void proc_apply(struct sampler *sp, struct sproc *p, struct pids_result *h, double dt)
{
	uint64_t rchar = h[PI_RCHAR].result.ul_int, wchar = h[PI_WCHAR].result.ul_int;

	snprintf(p->comm, sizeof p->comm, "%s", h[PI_CMD].result.str ? h[PI_CMD].result.str : "");
	p->state = (char)h[PI_STATE].result.s_ch;
	p->zombie = p->state == 'Z' || p->state == 'X';
	p->utk = h[PI_UTICS].result.ull_int;
	p->stk = h[PI_STICS].result.ull_int;
	p->cpu = h[PI_CPU].result.s_int;
	p->nthreads = h[PI_NLWP].result.s_int;
	p->start = h[PI_START].result.real;
	p->ppid = h[PI_PPID].result.s_int;
	p->read_bps = p->fresh ? 0 : sample_rate(p->rchar, rchar, dt);
	p->write_bps = p->fresh ? 0 : sample_rate(p->wchar, wchar, dt);
	p->io_moved = !p->io_known || rchar != p->rchar || wchar != p->wchar;
	if (!p->io_known)
		p->rchar0 = rchar;
	p->io_known = true;
	proc_children_gone(sp, p, rchar);
	p->rchar = rchar;
	p->wchar = wchar;
	p->rbytes = h[PI_RBYTES].result.ul_int;
	p->wbytes = h[PI_WBYTES].result.ul_int;
}

/* The processes with an entry in sel[0..n) were asked for; one missing
 * from the answer was reaped in between. */
static void select_chunk(struct sampler *sp, int n, double dt)
{
	struct pids_fetch *f = procps_pids_select(sp->pinfo, sp->sel, n, PIDS_SELECT_PID);
	int got = f ? f->counts->total : 0;

	for (int i = 0; i < n; i++) {
		struct sproc *p = proc_find(sp, (pid_t)sp->sel[i]);
		bool found = false;
		for (int j = 0; j < got && !found; j++) {
			struct pids_result *h = f->stacks[j]->head;
			if ((unsigned)h[PI_PID].result.s_int == sp->sel[i]) {
				proc_apply(sp, p, h, dt);
				found = true;
			}
		}
		if (!found)
			p->gone = true;
	}
}

static void select_ran(struct sampler *sp, double dt)
{
	int n = 0;

	for (int i = 0; i < sp->n; i++) {
		struct sproc *p = &sp->procs[i];
		if (!p->ran || p->gone) {
			p->read_bps = p->write_bps = 0;  /* did not run: moved nothing */
			continue;
		}
		sp->sel[n++] = (unsigned)p->pid;
		if (n == SELECT_CHUNK) {
			select_chunk(sp, n, dt);
			n = 0;
		}
	}
	if (n)
		select_chunk(sp, n, dt);
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

/* se.nr_migrations of the threads that ran, plus those that exited. */
static void proc_migrations(struct sampler *sp, struct sproc *p)
{
	uint64_t sum = p->migr_dead, m;

	for (int i = 0; i < p->nthr; i++) {
		struct sthr *t = &p->thr[i];
		if ((t->drun || p->fresh) &&
		    pf_read(sp, &t->fd_sched, p->pid, t->tid, "sched", sp->buf, sizeof sp->buf) > 0 &&
		    sample_parse_sched_migrations(sp->buf, &m) == 0)
			t->migr = m;
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
	for (int c = 0; c < sp->nconf; c++)
		sp->mask[c] = CPU_ISSET_S(c, sp->csize, sp->cset) ? 1 : 0;
	cpulist_format(sp->mask, sp->nconf, p->allowed, sizeof p->allowed);
}

/* ---- workloads ------------------------------------------------------ */

static void proc_drop(struct sampler *sp, int i)
{
	struct sproc *p = &sp->procs[i];
	struct swl *w = &sp->wl[p->wl];

	w->dead_ut += (double)p->utk / (double)sp->hz;
	w->dead_st += (double)p->stk / (double)sp->hz;
	sfiles_forget(sp->files, p);
	for (int t = 0; t < p->nthr; t++)
		thr_close(sp, &p->thr[t]);
	free(p->thr);
	free(p->of);
	sp->procs[i] = sp->procs[--sp->n];
}

static void wl_sums(struct sampler *sp)
{
	for (int w = 0; w <= sp->nwl; w++) {
		double ut = sp->wl[w].dead_ut, st = sp->wl[w].dead_st;
		for (int i = 0; i < sp->n; i++) {
			if (sp->procs[i].wl != w)
				continue;
			ut += (double)sp->procs[i].utk / (double)sp->hz;
			st += (double)sp->procs[i].stk / (double)sp->hz;
		}
		/* a tick counter read mid-exit must not make totals step back */
		if (ut > sp->wl[w].ut)
			sp->wl[w].ut = ut;
		if (st > sp->wl[w].st)
			sp->wl[w].st = st;
	}
}

/* ---- sources -------------------------------------------------------- */

static void procs_read(struct sampler *sp, double dt)
{
	for (int i = 0; i < sp->n; i++) {
		proc_poll(sp, &sp->procs[i], dt);
		if (sp->procs[i].ran && !sp->procs[i].gone)
			proc_children(sp, i);
	}
	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].gone && sp->procs[i].measure_io)
			proc_gone_reads(sp, &sp->procs[i]);
	select_ran(sp, dt);
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
		 * open for writing also with copy_file_range or mmap in flight */
		p->frd = p->fwr = 0;
		if (p->ran && p->measure_io && (p->io_moved || p->fresh || sfiles_holds_write(p)))
			sfiles_scan(sp->files, sp->root, p, &sp->wl[p->wl], sp->buf);
	}
}

const char *sample_role_evidence(double cpu_pct, uint64_t file_read, uint64_t file_written,
                                 bool chars_moved)
{
	if (file_written > 0)
		return "writer";
	if (file_read > 0)
		return "reader";
	if (cpu_pct < 1.0)
		return "idle";
	return chars_moved ? "pipe" : NULL;
}

void sample_role_settle(char *role, size_t len, struct sample_role_track *t, const char *evidence)
{
	if (!evidence)
		return;
	if (!strcmp(evidence, role)) {
		t->n = 0;
		return;
	}
	if (strcmp(evidence, t->cand)) {
		snprintf(t->cand, sizeof t->cand, "%s", evidence);
		t->n = 0;
	}
	if (++t->n >= SAMPLE_ROLE_STABLE) {
		snprintf(role, len, "%s", evidence);
		t->n = 0;
	}
}

/* A descendant's slot: COMM.N, the first N no other process of its
 * workload has, so a restarted tree's processes take the same slots. */
static void name_slot(struct sampler *sp, struct sproc *p)
{
	const char *base = p->comm[0] ? p->comm : "proc";
	for (int k = 1; k < 1000; k++) {
		bool taken = false;
		snprintf(p->slot, sizeof p->slot, "%s.%d", base, k);
		for (int i = 0; i < sp->n && !taken; i++)
			taken = &sp->procs[i] != p && sp->procs[i].wl == p->wl && !sp->procs[i].gone &&
			        !strcmp(sp->procs[i].slot, p->slot);
		if (!taken)
			return;
	}
}

/* Slots for new descendants, roles of command processes from this tick. */
static void procs_roles(struct sampler *sp)
{
	for (int i = 0; i < sp->n; i++) {
		struct sproc *p = &sp->procs[i];
		if (p->gone)
			continue;
		if (!p->slot[0] && p->comm[0])
			name_slot(sp, p);
		if (!p->infer || p->fresh)
			continue;
		const char *ev = sample_role_evidence(p->cpu_pct, p->frd, p->fwr,
		                                      p->read_bps + p->write_bps > 0);
		sample_role_settle(p->role, sizeof p->role, &p->track, ev);
	}
}

static int src_procs(struct sampler *sp, double dt)
{
	for (int w = 0; w <= sp->nwl; w++) {
		sp->wl[w].wbytes_prev = sp->wl[w].wbytes;
		sp->wl[w].rbytes_prev = sp->wl[w].rbytes;
	}
	procs_read(sp, dt);
	procs_roles(sp);
	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].gone)
			sfiles_forget(sp->files, &sp->procs[i]);
	sfiles_settle(sp->files, sp->procs, sp->n, sp->wl, sp->nwl);
	for (int w = 0; w <= sp->nwl; w++)
		root_reconcile(&sp->wl[w]);
	wl_sums(sp);
	/* Over the time since the _prev values were read: on the first read
	 * that is since the workload was first tracked (its processes from
	 * their spawn, their bytes from 0), so a first interval's bytes have a
	 * rate too. */
	for (int w = 0; w <= sp->nwl; w++) {
		struct swl *l = &sp->wl[w];
		double dtw = l->t_prev > 0 ? sp->t_procs - l->t_prev : dt;
		l->wbps = sample_rate(l->wbytes_prev, l->wbytes, dtw);
		l->rbps = sample_rate(l->rbytes_prev, l->rbytes, dtw);
		l->t_prev = sp->t_procs;
	}
	for (int i = 0; i < sp->n; i++)
		sp->procs[i].fresh = false;
	return 0;
}

static int src_cpu(struct sampler *sp, double dt)
{
	struct snapshot tmp = { .ncpu = sp->ncpu, .cpus = sp->cpus };
	(void)dt;
	return ssys_cpu(sp->sys, &tmp);
}

static int src_disk(struct sampler *sp, double dt)
{
	struct snapshot tmp = { .disk = sp->disk };
	int rc = ssys_disk(sp->sys, &tmp, dt);
	sp->disk = tmp.disk;
	return rc;
}

static int src_mem(struct sampler *sp, double dt)
{
	struct snapshot tmp = { .disk = sp->disk };
	(void)dt;
	int rc = ssys_mem(sp->sys, &tmp);
	sp->disk.dirty = tmp.disk.dirty;
	sp->disk.writeback = tmp.disk.writeback;
	return rc;
}

/* Run a source: its rates are over the time since its own last read. */
static void source_run(struct sampler *sp, struct source *src)
{
	double t0 = (clock_mono() * 1e3);
	double dt = src->last_t < 0 ? 0 : t0 / 1e3 - src->last_t;
	if (src->fn == src_procs) {
		sp->t_procs = t0 / 1e3;
		sp->dt_procs = dt;
	}
	src->fn(sp, dt);
	src->ms = (clock_mono() * 1e3) - t0;
	src->last_t = t0 / 1e3;
}

/* ---- public --------------------------------------------------------- */

static int sampler_init(struct sampler *sp, const char *proc_root, int ncpu, int nwl)
{
	snprintf(sp->root, sizeof sp->root, "%s", proc_root ? proc_root : "/proc");
	sp->ncpu = ncpu;
	sp->nwl = nwl;
	sp->hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	sp->nconf = conf > ncpu ? (int)conf : ncpu;
	sp->last_now = -1;
	struct source src[] = {
		{ "processes", src_procs, -1, 0 }, { "cpu", src_cpu, -1, 0 },
		{ "diskstats", src_disk, -1, 0 }, { "meminfo", src_mem, -1, 0 },
	};
	_Static_assert(sizeof src == sizeof sp->src, "one entry per source");
	memcpy(sp->src, src, sizeof src);
	sp->wl = xcalloc((size_t)nwl + 1, sizeof *sp->wl);
	sp->cpus = xcalloc((size_t)ncpu, sizeof *sp->cpus);
	sp->mask = xcalloc((size_t)sp->nconf, 1);
	sp->cset = CPU_ALLOC(sp->nconf);
	sp->csize = CPU_ALLOC_SIZE(sp->nconf);
	sp->files = sfiles_new();
	sp->sys = ssys_new(ncpu);
	if (!sp->wl || !sp->cpus || !sp->mask || !sp->cset || !sp->files || !sp->sys)
		return -ENOMEM;
	for (int i = 0; i < ncpu; i++)
		sp->cpus[i] = (struct cpu_sample){ .id = i, .user = -1, .system = -1, .iowait = -1,
		                                   .irq = -1, .idle = -1, .khz = -1 };
	if (procps_pids_new(&sp->pinfo, proc_items, PI_COUNT) < 0 ||
	    procps_pids_new(&sp->tinfo, thr_items, TI_COUNT) < 0)
		return -ENOENT;
	return 0;
}

struct sampler *sampler_new(const char *proc_root, int ncpu, int nwl)
{
	if (ncpu <= 0 || nwl < 0)
		return NULL;
	struct sampler *sp = xcalloc(1, sizeof *sp);
	if (!sp)
		return NULL;
	if (sampler_init(sp, proc_root, ncpu, nwl) != 0) {
		sampler_free(sp);
		return NULL;
	}
	return sp;
}

void sampler_free(struct sampler *sp)
{
	if (!sp)
		return;
	while (sp->n > 0)
		proc_drop(sp, sp->n - 1);
	free(sp->procs);
	sfiles_free(sp->files);
	ssys_free(sp->sys);
	if (sp->pinfo)
		procps_pids_unref(&sp->pinfo);
	if (sp->tinfo)
		procps_pids_unref(&sp->tinfo);
	if (sp->cset)
		CPU_FREE(sp->cset);
	free(sp->mask);
	free(sp->cpus);
	free(sp->wl);
	free(sp);
}

int sampler_add(struct sampler *sp, pid_t pid, int workload, const char *role, bool measure_io)
{
	return sampler_add_slot(sp, pid, workload, role, role, measure_io);
}

int sampler_add_slot(struct sampler *sp, pid_t pid, int workload, const char *role,
                     const char *slot, bool measure_io)
{
	if (pid <= 0 || workload < 0 || workload > sp->nwl)
		return -EINVAL;
	struct sproc *p = proc_find(sp, pid);
	if (p && p->wl != workload)
		sfiles_forget(sp->files, p);  /* its files belong to the old workload */
	if (!p && !(p = proc_new(sp, pid, workload, role, measure_io)))
		return -ENOMEM;
	p->wl = workload;
	p->measure_io = measure_io;
	p->infer = measure_io;
	p->root = true;
	snprintf(p->role, sizeof p->role, "%s", role ? role : "");
	snprintf(p->slot, sizeof p->slot, "%s", slot ? slot : "");
	sp->wl[workload].measure_io |= measure_io;
	sp->wl[workload].root_wbytes = sp->wl[workload].wbytes;
	sp->wl[workload].root_nwfiles = sp->wl[workload].nwfiles;
	/* Its bytes count from here: from the last read of the processes when
	 * there was one (before it, the workload had moved nothing), so its
	 * first rate is over the same interval as every other figure of the
	 * sample; else from now. */
	if (sp->wl[workload].t_prev <= 0)
		sp->wl[workload].t_prev = sp->t_procs > 0 ? sp->t_procs : (clock_mono() * 1e3) / 1e3;
	return 0;
}

/* A workload's root has exited: its zombie's io holds the whole tree's
 * (every descendant reaped inside the tree).  What reached files through
 * processes that started and ended between two ticks, never seen, shows
 * there: at most its wchar, at most its write_bytes (page-rounded: a page
 * per file counted, and one for the tree's output, may be rounding).
 * Whatever of that the files counted do not explain is added, after the
 * next look at the files (files closed since the last tick are counted
 * there first). */
static void root_reconcile(struct swl *w)
{
	w->rbytes += w->pend_rbytes;
	w->pend_rbytes = 0;
	if (!w->rec_pending)
		return;
	w->rec_pending = false;
	uint64_t bound = w->rec_wchar < w->rec_wb ? w->rec_wchar : w->rec_wb;
	uint64_t counted = w->wbytes - w->root_wbytes;
	uint64_t slack = 4096 * (w->nwfiles - w->root_nwfiles + 1);
	if (bound > counted + slack)
		w->wbytes += bound - counted - slack;
}

/* The root's zombie rchar holds every read of the tree: beyond what the
 * processes tracked at the last tick had read then (and children already
 * handed to a parent), what readers of regular files read after their
 * last scan, at most what their files had left. */
static void root_reads(struct sampler *sp, struct sproc *root, uint64_t rchar, uint64_t wb)
{
	uint64_t seen = 0, cap = 0;

	for (int i = 0; i < sp->n; i++) {
		struct sproc *c = &sp->procs[i];
		if (c->wl != root->wl || !c->io_known)
			continue;
		seen += c->rchar + c->pend_seen;
		cap += c->pend_cap + (c->reads_files ? c->rd_left : 0);
		c->pend_seen = c->pend_cap = c->rd_left = 0;
	}
	/* a tree never seen reading or writing any file (it started and
	 * ended between two ticks) that wrote no file (write_bytes within
	 * the page its own output may have dirtied) is taken at its rchar */
	struct swl *w = &sp->wl[root->wl];
	if (!cap && !w->wbytes && !w->rbytes && wb <= 4096)
		cap = UINT64_MAX;
	if (rchar > seen)
		w->pend_rbytes += rchar - seen < cap ? rchar - seen : cap;
	root->rchar = rchar;
}

uint64_t sampler_note_exit(struct sampler *sp, pid_t pid)
{
	struct sproc *p = proc_find(sp, pid);
	unsigned id = (unsigned)pid;
	struct pids_fetch *f = procps_pids_select(sp->pinfo, &id, 1, PIDS_SELECT_PID);

	if (!f || f->counts->total < 1)
		return 0;
	struct pids_result *h = f->stacks[0]->head;
	uint64_t rchar = h[PI_RCHAR].result.ul_int, wb = h[PI_WBYTES].result.ul_int;
	uint64_t wchar = h[PI_WCHAR].result.ul_int;
	if (!p || !p->measure_io || p->exit_noted || !p->root)
		return wb;
	root_reads(sp, p, rchar, wb);
	p->exit_noted = true;
	if (p->root) {
		sp->wl[p->wl].rec_pending = true;
		sp->wl[p->wl].rec_wchar = wchar;
		sp->wl[p->wl].rec_wb = wb;
	}
	return wb;
}

void sampler_forget_workload(struct sampler *sp, int workload)
{
	for (int i = sp->n - 1; i >= 0; i--)
		if (sp->procs[i].wl == workload)
			proc_drop(sp, i);
	sfiles_forget_workload(sp->files, workload);
}

void sampler_watch_path(struct sampler *sp, const char *path)
{
	ssys_watch(sp->sys, path);
}

int sampler_nprocs(const struct sampler *sp)
{
	int n = 0;

	for (int i = 0; i < sp->n; i++)
		n += !sp->procs[i].gone && !sp->procs[i].zombie;
	return n;
}

int sampler_pids(const struct sampler *sp, int workload, pid_t *pids, int max)
{
	int n = 0;

	for (int i = 0; i < sp->n && n < max; i++) {
		const struct sproc *p = &sp->procs[i];
		if (p->wl == workload && !p->gone && !p->zombie)
			pids[n++] = p->pid;
	}
	return n;
}

double sampler_source_ms(const struct sampler *sp, const char *name, int *every)
{
	for (size_t i = 0; i < sizeof sp->src / sizeof *sp->src; i++)
		if (strcmp(sp->src[i].name, name) == 0) {
			if (every)
				*every = 1;  /* every source is read every tick */
			return sp->src[i].ms;
		}
	return -1;
}

/* ---- the snapshot --------------------------------------------------- */

/* Seconds since boot, the clock process start times are counted on. */
static double boot_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill_proc(struct proc_sample *o, const struct sproc *p, double hz)
{
	double age = p->start > 0 ? boot_seconds() - p->start : -1;
	*o = (struct proc_sample){
		.age = age,
		.pid = p->pid, .workload = p->wl, .cpu = p->cpu, .state = p->state,
		.nthreads = p->nthreads, .cpu_pct = p->cpu_pct, .wait_pct = p->wait_pct,
		.utime = (double)p->utk / hz, .stime = (double)p->stk / hz,
		.read_bps = p->read_bps, .write_bps = p->write_bps, .bytes = p->bytes,
		.migrations = p->migrations, .alive = !p->zombie,
	};
	memcpy(o->role, p->role, sizeof o->role);
	memcpy(o->slot, p->slot, sizeof o->slot);
	memcpy(o->comm, p->comm, sizeof o->comm);
	memcpy(o->allowed, p->allowed, sizeof o->allowed);
}

/* Zombies stay (alive = false) until reaped; gone processes leave. */
static int fill_procs(struct sampler *sp, struct snapshot *s)
{
	int n = 0;

	for (int i = 0; i < sp->n; i++)
		n += !sp->procs[i].gone;
	if (snapshot_reserve_procs(s, n))
		return -ENOMEM;
	s->nproc = 0;
	for (int i = 0; i < sp->n; i++)
		if (!sp->procs[i].gone)
			fill_proc(&s->procs[s->nproc++], &sp->procs[i], (double)sp->hz);
	return 0;
}

/* Each CPU lists the workload pids that last ran on it. */
static void fill_cpus(struct sampler *sp, struct snapshot *s)
{
	int n = s->ncpu < sp->ncpu ? s->ncpu : sp->ncpu;

	for (int c = 0; c < n; c++) {
		struct cpu_sample *o = &s->cpus[c];
		const struct cpu_sample *in = &sp->cpus[c];
		o->id = c;
		o->user = in->user;
		o->system = in->system;
		o->iowait = in->iowait;
		o->irq = in->irq;
		o->idle = in->idle;
		size_t used = 0;
		o->procs[0] = '\0';
		for (int i = 0; i < s->nproc && used < sizeof o->procs; i++) {
			if (s->procs[i].cpu != c || !s->procs[i].alive)
				continue;
			int w = snprintf(o->procs + used, sizeof o->procs - used, "%s%d",
			                 used ? "," : "", (int)s->procs[i].pid);
			if (w < 0 || (size_t)w >= sizeof o->procs - used) {
				o->procs[used] = '\0';  /* whole pids only */
				break;
			}
			used += (size_t)w;
		}
	}
}

static void fill_wls(struct sampler *sp, struct snapshot *s)
{
	for (int i = 0; i < s->nwl && i < sp->nwl; i++) {
		struct swl *w = &sp->wl[i + 1];
		struct wl_sample *o = &s->wls[i];
		o->utime = w->ut;
		o->stime = w->st;
		if (!w->measure_io)
			continue;  /* engine workloads: the caller has exact counters */
		/* the bytes that reached regular files; a command that wrote
		 * none is measured by what it read from them */
		o->counted = w->wbytes > 0 ? 'w' : w->rbytes > 0 ? 'r' : 0;
		o->bytes = o->counted == 'r' ? w->rbytes : w->wbytes;
		o->wbytes = w->wbytes;
		o->rbytes = w->rbytes;
		o->write_bps = w->wbps;
		o->read_bps = w->rbps;
	}
}

static double cpu_seconds(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sampler_tick(struct sampler *sp, struct snapshot *s, double now)
{
	double t0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
	double dt = sp->last_now < 0 ? 0 : now - sp->last_now;

	sp->ticks++;
	sp->now = now;
	for (size_t i = 0; i < sizeof sp->src / sizeof *sp->src; i++)
		source_run(sp, &sp->src[i]);
	int rc = fill_procs(sp, s);
	for (int i = sp->n - 1; i >= 0; i--)
		if (sp->procs[i].gone)
			proc_drop(sp, i);
	fill_cpus(sp, s);
	fill_wls(sp, s);
	s->disk = sp->disk;
	/* the interval the rates are over: between the two reads of the processes */
	s->dt = sp->dt_procs > 0 ? sp->dt_procs : dt;
	double proc_cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
	s->self_cpu_pct = dt > 0 ? 100.0 * (proc_cpu - sp->cpu_prev) / dt : 0;
	sp->cpu_prev = proc_cpu;
	sp->last_now = now;
	s->self_tick_us = (cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e6;
	return rc;
}

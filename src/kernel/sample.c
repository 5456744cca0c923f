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
 * two reads over the time between those two reads.
 *
 * This file runs the sources each tick (the processes, read in
 * sample_proc.c; CPU, disk and memory in sample_sys.c), keeps the
 * per-workload totals (settling roles and slots, reconciling with a root's
 * exit), and fills the snapshot. */
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/clock.h"
#include "benchtop/fdlimit.h"
#include "benchtop/cpulist.h"
#include "benchtop/xalloc.h"

/* The size of benchtop's standard error when it is a regular file (a
 * command's output lands there in batch mode), else 0.  What it is does
 * not change: a terminal or a pipe is not asked again each tick. */
static uint64_t own_output_size(void)
{
	static bool not_file;
	struct stat st;
	if (not_file)
		return 0;
	if (fstat(STDERR_FILENO, &st) == 0 && S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	not_file = true;
	return 0;
}

/* What is on benchtop's standard error that benchtop did not write
 * itself (its notes on late samples): its commands' output. */
static uint64_t tree_output_size(const struct sampler *sp)
{
	uint64_t o = own_output_size();
	return o > sp->own_out ? o - sp->own_out : 0;
}

#define AS_ITEM(e, item) item,
static enum pids_item thr_items[] = { THR_ITEMS(AS_ITEM) };
_Static_assert(sizeof thr_items / sizeof *thr_items == TI_COUNT, "thread items");

static int src_procs(struct sampler *sp, double dt);
static void root_reconcile(struct sampler *sp, int wl);
static int src_cpu(struct sampler *sp, double dt);
static int src_disk(struct sampler *sp, double dt);
static int src_mem(struct sampler *sp, double dt);

/* ---- workloads ------------------------------------------------------ */

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
 * workload has, so a restarted tree's processes take the same slots.  One
 * pass over the tracked set marks the numbers taken (N above the number
 * of processes cannot be the first free one), so a tree of a thousand
 * new processes is named in a million steps, not a billion. */
static void name_slot(struct sampler *sp, struct sproc *p, unsigned char *used)
{
	const char *base = p->comm[0] ? p->comm : "proc";
	size_t blen = strlen(base);
	int max = sp->n + 1;
	memset(used, 0, (size_t)max + 1);
	for (int i = 0; i < sp->n; i++) {
		const struct sproc *q = &sp->procs[i];
		if (q == p || q->wl != p->wl || q->gone || strncmp(q->slot, base, blen) || q->slot[blen] != '.')
			continue;
		char *end;
		long k = strtol(q->slot + blen + 1, &end, 10);
		if (*end == '\0' && k >= 1 && k <= max)
			used[k] = 1;
	}
	int k = 1;
	while (used[k])
		k++;
	snprintf(p->slot, sizeof p->slot, "%s.%d", base, k);
}

/* Slots for new descendants, roles of command processes from this tick. */
static void procs_roles(struct sampler *sp)
{
	unsigned char *used = NULL;
	for (int i = 0; i < sp->n; i++) {
		struct sproc *p = &sp->procs[i];
		if (p->gone)
			continue;
		if (!p->slot[0] && p->comm[0] && (used || (used = malloc((size_t)sp->n + 2))))
			name_slot(sp, p, used);
		if (!p->infer || p->fresh)
			continue;
		const char *ev = sample_role_evidence(p->cpu_pct, p->frd, p->fwr,
		                                      p->read_bps + p->write_bps > 0);
		sample_role_settle(p->role, sizeof p->role, &p->track, ev);
	}
	free(used);
}

/* Nothing named a device to watch (attached processes): the device
 * under the first regular file a measured tree holds open for writing. */
static void watch_written(struct sampler *sp)
{
	if (ssys_watching(sp->sys))
		return;
	for (int i = 0; i < sp->n; i++) {
		const struct sproc *p = &sp->procs[i];
		for (int k = 0; p->measure_io && !p->gone && k < p->nof; k++)
			if (p->of[k].write) {
				ssys_watch_dev(sp->sys, p->of[k].dev);
				return;
			}
	}
}

static int src_procs(struct sampler *sp, double dt)
{
	for (int w = 0; w <= sp->nwl; w++) {
		if (sp->wl[w].held)
			continue;  /* from before the first look */
		sp->wl[w].wtotal_prev = sp->wl[w].wtotal;
		sp->wl[w].rbytes_prev = sp->wl[w].rbytes;
	}
	sexit_drain(sp->exits);
	sprocs_read(sp, dt);
	procs_roles(sp);
	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].gone)
			sfiles_forget(sp->files, &sp->procs[i]);
	sfiles_settle(sp->files, sp->procs, sp->n, sp->wl, sp->nwl);
	uint64_t out = tree_output_size(sp);
	for (int w = 0; w <= sp->nwl; w++) {
		struct swl *l = &sp->wl[w];
		sreap_settle(sp, w);
		root_reconcile(sp, w);
		sreap_written(sp, w, out > l->out_start ? out - l->out_start : 0);
	}
	wl_sums(sp);
	/* Over the time since the _prev values were read: on the first read
	 * that is since the workload was first tracked (its processes from
	 * their spawn, their bytes from 0), so a first interval's bytes have a
	 * rate too. */
	for (int w = 0; w <= sp->nwl; w++) {
		struct swl *l = &sp->wl[w];
		double dtw = l->t_prev > 0 ? sp->t_procs - l->t_prev : dt;
		l->wbps = sample_rate(l->wtotal_prev, l->wtotal, dtw);
		l->rbps = sample_rate(l->rbytes_prev, l->rbytes, dtw);
		l->t_prev = sp->t_procs;
		l->held = false;
	}
	for (int i = 0; i < sp->n; i++)
		sp->procs[i].fresh = false;
	watch_written(sp);
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
	sp->max_held = fdlimit_hold_budget();
	struct source src[] = {
		{ "processes", src_procs, -1, 0 }, { "cpu", src_cpu, -1, 0 },
		{ "diskstats", src_disk, -1, 0 }, { "meminfo", src_mem, -1, 0 },
	};
	_Static_assert(sizeof src == sizeof sp->src, "one entry per source");
	memcpy(sp->src, src, sizeof src);
	sp->wl = xcalloc((size_t)nwl + 1, sizeof *sp->wl);
	for (int w = 0; sp->wl && w <= nwl; w++)
		sp->wl[w].cwd_fd = -1;
	sp->cpus = xcalloc((size_t)ncpu, sizeof *sp->cpus);
	sp->mask = xcalloc((size_t)sp->nconf, 1);
	sp->cset = CPU_ALLOC(sp->nconf);
	sp->csize = CPU_ALLOC_SIZE(sp->nconf);
	sp->files = sfiles_new();
	sp->sys = ssys_new(ncpu);
	if (strcmp(sp->root, "/proc") == 0)
		sp->exits = sexit_new(sp->nconf);
	if (!sp->wl || !sp->cpus || !sp->mask || !sp->cset || !sp->files || !sp->sys)
		return -ENOMEM;
	for (int i = 0; i < ncpu; i++)
		sp->cpus[i] = (struct cpu_sample){ .id = i, .user = -1, .system = -1, .iowait = -1,
		                                   .irq = -1, .idle = -1, .khz = -1 };
	if (procps_pids_new(&sp->tinfo, thr_items, TI_COUNT) < 0)
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
		sprocs_drop(sp, sp->n - 1);
	free(sp->procs);
	sfiles_free(sp->files);
	sexit_free(sp->exits);
	ssys_free(sp->sys);
	if (sp->tinfo)
		procps_pids_unref(&sp->tinfo);
	if (sp->cset)
		CPU_FREE(sp->cset);
	free(sp->mask);
	free(sp->cpus);
	for (int w = 0; sp->wl && w <= sp->nwl; w++)
		if (sp->wl[w].cwd_fd >= 0)
			close(sp->wl[w].cwd_fd);
	free(sp->wl);
	free(sp->big);
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
	struct sproc *p = sprocs_find(sp, pid);
	if (p && p->wl != workload)
		sfiles_forget(sp->files, p);  /* its files belong to the old workload */
	bool fresh = !p;
	if (!p && !(p = sprocs_new(sp, pid, workload, role, measure_io)))
		return -ENOMEM;
	p->wl = workload;
	p->measure_io = measure_io;
	p->infer = measure_io;
	p->root = true;
	/* an attached process reaped children before benchtop looked */
	p->past = role && strcmp(role, "attached") == 0;
	if (fresh && measure_io && !p->past)
		sreap_base(sp, p);
	if (measure_io)
		sreap_root_dir(sp, workload, pid, &p->since);
	snprintf(p->role, sizeof p->role, "%s", role ? role : "");
	snprintf(p->slot, sizeof p->slot, "%s", slot ? slot : "");
	sp->wl[workload].measure_io |= measure_io;
	/* benchtop's standard error as it was before the fork, when the
	 * caller marked it: the command may have written there already */
	uint64_t o = sp->wl[workload].out_marked ? sp->wl[workload].out_mark : tree_output_size(sp);
	sp->wl[workload].out_marked = false;
	if (!sp->wl[workload].out_started) {
		sp->wl[workload].out_start = o;
		sp->wl[workload].out_started = true;
	}
	/* a --loop command may run again before the last run's exit is
	 * reconciled at the next tick: its base stays the first run's */
	if (!sp->wl[workload].rec_pending) {
		sp->wl[workload].root_wbytes = sp->wl[workload].wbytes;
		sp->wl[workload].root_nwfiles = sp->wl[workload].nwfiles;
		sp->wl[workload].root_out0 = o;
	}
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
 * per file counted may be rounding), less what the tree wrote to
 * benchtop's own standard error when that is a file (its output).
 * Whatever of that the files counted do not explain is added, after the
 * next look at the files (files closed since the last tick are counted
 * there first), unless the tree wrote through pipes or devices and no
 * file shows it writes. */
static void root_reconcile(struct sampler *sp, int wl)
{
	struct swl *w = &sp->wl[wl];
	if (!w->rec_pending)
		return;
	w->rec_pending = false;
	/* the tree's output to benchtop's standard error, in bytes (wchar)
	 * and in the pages it dirtied there (write_bytes) */
	uint64_t out = w->rec_out > w->root_out0 ? w->rec_out - w->root_out0 : 0;
	uint64_t out_pages = out ? 4096 * ((w->root_out0 + out + 4095) / 4096 - w->root_out0 / 4096) : 0;
	uint64_t wchar = w->rec_wchar > out ? w->rec_wchar - out : 0;
	uint64_t wb = w->rec_wb > out_pages ? w->rec_wb - out_pages : 0;
	uint64_t bound = wchar < wb ? wchar : wb;
	uint64_t counted = w->wbytes - w->root_wbytes;
	/* wchar within write_bytes, from a tree that wrote nothing but
	 * regular files (no pipe, socket or device seen): exact, with no
	 * page of rounding to allow for */
	uint64_t slack = !w->wpiped && wchar <= wb ? 0 : 4096 * (w->nwfiles - w->root_nwfiles);
	/* a tree that moved bytes through pipes or devices and shows no file
	 * it writes: its dirtied pages are not taken for bytes written (a
	 * read-only pipeline is not rated by a page of unknown origin) */
	/* a page or two dirtied beside far more wchar is no sign of a file
	 * written (a read can dirty a page of metadata, an access time: a
	 * cat of a file just made, to /dev/null): counted only when a file
	 * shows the tree writes */
	bool stray = wchar > wb && wb <= 8192;
	if (bound > counted + slack && ((!w->wpiped && !stray) || sreap_shows_writes(sp, wl, out, 0)))
		w->wbytes += bound - counted - slack;
	/* A --loop command's next runs count from here, except what a run
	 * still going has already been credited with through its files: its
	 * exit's io will hold that too. */
	uint64_t going = 0;
	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].wl == wl && !sp->procs[i].exit_noted)
			going += sp->procs[i].bytes;
	w->root_wbytes = w->wbytes > going ? w->wbytes - going : 0;
	w->root_nwfiles = w->nwfiles;
	w->root_out0 = w->rec_out;
}

void sampler_will_add(struct sampler *sp, int workload)
{
	if (workload < 0 || workload > sp->nwl)
		return;
	sp->wl[workload].out_mark = tree_output_size(sp);
	sp->wl[workload].out_marked = true;
}

void sampler_output_null(struct sampler *sp)
{
	if (sp->files)
		sfiles_output_null(sp->files);
}

void sampler_own_output(struct sampler *sp, uint64_t bytes)
{
	sp->own_out += bytes;
}

int sampler_owner(const struct sampler *sp, pid_t pid)
{
	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].pid == pid)
			return sp->procs[i].wl;
	return -1;
}

uint64_t sampler_note_exit(struct sampler *sp, pid_t pid, int wl)
{
	struct sproc *p = sprocs_find(sp, pid);
	char path[160];
	uint64_t rchar, wchar, rb, wb;

	snprintf(path, sizeof path, "%s/%d/io", sp->root, (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, sp->buf, sizeof sp->buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	sp->buf[n] = '\0';
	if (sample_parse_io(sp->buf, &rchar, &wchar, &rb, &wb) != 0)
		return 0;
	if (p)
		wl = p->wl;
	if (wl < 0 || wl > sp->nwl || (p && p->exit_noted))
		return wb;
	/* what it read: the part its tree's processes were not seen reading */
	sreap_zombie(sp, p, wl, pid, rchar, wchar, wb);
	if (!p || !p->measure_io)
		return wb;
	p->exit_noted = true;
	if (p->root) {
		/* every run that ended since the last tick adds up */
		struct swl *w = &sp->wl[p->wl];
		w->rec_wchar = (w->rec_pending ? w->rec_wchar : 0) + wchar;
		w->rec_wb = (w->rec_pending ? w->rec_wb : 0) + wb;
		w->rec_pending = true;
		w->rec_out = tree_output_size(sp);
	}
	return wb;
}

void sampler_watch_path(struct sampler *sp, const char *path)
{
	ssys_watch(sp->sys, path);
}

void sampler_guess_path(struct sampler *sp, const char *path)
{
	ssys_watch_guess(sp->sys, path);
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

/* Does the workload count its reads (it read more than twice what it wrote)? */
static bool wl_counts_reads(const struct swl *w)
{
	return w->rbytes > 2 * w->wtotal;
}

/* Process slot i of s from p: its allowed mask is the snapshot's (s->ncpu
 * bytes), the sampler's holds nconf.  boot: seconds since boot at the
 * tick's start (an age is as of the sample, not of the end of a tick
 * that ran long). */
static void fill_proc(struct snapshot *s, int i, const struct sproc *p, const struct swl *w, double hz,
                      int nconf, double boot)
{
	struct proc_sample *o = &s->procs[i];
	double age = p->start > 0 ? boot - p->start : -1;
	if (p->start > 0 && age < 0)
		age = 0;  /* started while the tick read the others */
	*o = (struct proc_sample){
		.age = age,
		.pid = p->pid, .ppid = p->ppid, .workload = p->wl, .cpu = p->cpu, .state = p->state,
		.nthreads = p->nthreads, .cpu_pct = p->cpu_pct, .wait_pct = p->wait_pct,
		.utime = (double)p->utk / hz, .stime = (double)p->stk / hz,
		.read_bps = p->read_bps, .write_bps = p->write_bps,
		/* on its workload's side only, never read and written added */
		.bytes = p->measure_io && wl_counts_reads(w) ? p->bytes_r : p->bytes,
		.migrations = p->migrations, .alive = !p->zombie,
	};
	memcpy(o->role, p->role, sizeof o->role);
	memcpy(o->slot, p->slot, sizeof o->slot);
	memcpy(o->comm, p->comm, sizeof o->comm);
	unsigned char *m = snapshot_allowed(s, i);
	if (m) {
		memset(m, 0, (size_t)s->ncpu);
		if (p->allowed)
			memcpy(m, p->allowed, (size_t)(s->ncpu < nconf ? s->ncpu : nconf));
	}
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
			fill_proc(s, s->nproc++, &sp->procs[i], &sp->wl[sp->procs[i].wl], (double)sp->hz,
			          sp->nconf, sp->boot_now);
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
		/* rated by what it mostly moved: the bytes that reached
		 * regular files, or what it read from them when that is more
		 * than twice as much (md5sum big > sums) */
		o->counted = wl_counts_reads(w) ? 'r' : w->wtotal > 0 ? 'w' : 0;
		o->bytes = o->counted == 'r' ? w->rbytes : w->wtotal;
		o->wbytes = w->wtotal;
		o->rbytes = w->rbytes;
		o->write_bps = w->wbps;
		o->read_bps = w->rbps;
	}
}

int sampler_tick(struct sampler *sp, struct snapshot *s, double now)
{
	double dt = sp->last_now < 0 ? 0 : now - sp->last_now;

	sp->ticks++;
	sp->now = now;
	sp->boot_now = boot_seconds();
	for (size_t i = 0; i < sizeof sp->src / sizeof *sp->src; i++)
		source_run(sp, &sp->src[i]);
	int rc = fill_procs(sp, s);
	for (int i = sp->n - 1; i >= 0; i--)
		if (sp->procs[i].gone)
			sprocs_drop(sp, i);
	fill_cpus(sp, s);
	fill_wls(sp, s);
	s->disk = sp->disk;
	/* the interval the rates are over: between the two reads of the
	 * processes (the first sample's from when its workloads were first
	 * tracked) */
	s->dt = sp->dt_procs > 0 ? sp->dt_procs : dt;
	if (sp->t_first > 0 && sp->t_procs > sp->t_first)
		s->dt = sp->t_procs - sp->t_first;
	sp->t_first = 0;
	sp->last_now = now;
	/* benchtop's own CPU (self_cpu_pct, self_tick_us) is the run's to
	 * measure: a tick is more than this sampler's part of it */
	return rc;
}

int sampler_prime(struct sampler *sp, struct snapshot *s, double now)
{
	for (int w = 0; w <= sp->nwl; w++) {
		struct swl *l = &sp->wl[w];
		l->wtotal_first = l->wtotal;
		l->rbytes_first = l->rbytes;
		l->t_first = l->t_prev;
	}
	int rc = sampler_tick(sp, s, now);
	double first = 0;
	for (int w = 0; w <= sp->nwl; w++) {
		struct swl *l = &sp->wl[w];
		if (l->t_first <= 0)
			continue;  /* not tracked yet: its first look is still to come */
		l->wtotal_prev = l->wtotal_first;
		l->rbytes_prev = l->rbytes_first;
		l->t_prev = l->t_first;
		l->held = true;
		if (first <= 0 || l->t_first < first)
			first = l->t_first;
	}
	sp->t_first = first;
	return rc;
}

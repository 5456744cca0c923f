/* workload_rows.c - the figures benchtop reports for a workload: each
 * tick's rates, bytes, calls and CPU (engine counters, the samples of its
 * processes, its cgroup's cpu.stat), the passes its jobs completed, the
 * bytes of each of its processes, its totals for the summary, and with
 * pattern=rewrite the write and the rewrite as two rows of their own. */
#include "benchtop/workload.h"

#include <stdio.h>
#include <string.h>

#include "benchtop/cgroup.h"
#include "benchtop/clock.h"
#include "benchtop/engine.h"
#include "workload_priv.h"


/* The write and the rewrite of this run, from the marks the engine left in
 * its counters (CLOCK_MONOTONIC times, bytes and its own CPU at each
 * phase).  A job cut before its rewrite counts only in the write row; a
 * rewrite cut short counts up to now. */
void workload_add_rewrite_rows(struct workload *w)
{
	double now = clock_mono(), t0 = 0, t1 = 0, t1first = 0, t3 = 0, u0 = 0, s0 = 0;
	uint64_t b0 = 0, b1 = 0, c0 = 0, c1 = 0;
	bool rewrote = false;
	for (int j = 0; j < w->nctr; j++) {
		const struct engine_counters *c = &w->ctr[j];
		if (c->phase_t[0] <= 0)
			continue;
		bool r = c->phase_t[1] > 0;
		double end0 = r ? c->phase_t[1] : (c->phase_t[3] > 0 ? c->phase_t[3] : now);
		if (t0 == 0 || c->phase_t[0] < t0)
			t0 = c->phase_t[0];
		if (end0 > t1)
			t1 = end0;
		b0 += (r ? c->phase_bytes[1] : c->bytes) - c->phase_bytes[0];
		c0 += (r ? c->phase_calls[1] : c->calls) - c->phase_calls[0];
		if (r) {
			rewrote = true;
			/* the rewrite begins with the first job's own switch */
			if (t1first == 0 || c->phase_t[1] < t1first)
				t1first = c->phase_t[1];
			c1 += c->calls - c->phase_calls[1];
			u0 += c->phase_user[1] - c->phase_user[0];
			s0 += c->phase_sys[1] - c->phase_sys[0];
			double end = c->phase_t[3] > 0 ? c->phase_t[3] : now;
			if (end > t3)
				t3 = end;
			b1 += c->bytes - c->phase_bytes[1];
		}
	}
	double ru_u = w->ru_user - w->run_user0, ru_s = w->ru_sys - w->run_sys0;
	if (!rewrote) {
		u0 = ru_u;
		s0 = ru_s;
	}
	w->rows[0].elapsed += t1 > t0 ? t1 - t0 : 0;
	w->rows[1].elapsed += rewrote && t3 > t1first ? t3 - t1first : 0;
	w->rows[0].calls += c0;
	w->rows[1].calls += c1;
	w->rows[0].bytes += b0;
	w->rows[1].bytes += b1;
	w->rows[0].user += u0;
	w->rows[0].sys += s0;
	w->rows[1].user += ru_u > u0 ? ru_u - u0 : 0;
	w->rows[1].sys += ru_s > s0 ? ru_s - s0 : 0;
	w->rows[0].runs++;
	w->rows[1].runs++;
}

double workload_io_span(const struct workload *w, double now)
{
	double t0 = 0, t1 = 0;
	for (int j = 0; j < w->nctr; j++) {
		const struct engine_counters *c = &w->ctr[j];
		if (c->phase_t[0] <= 0)
			continue;
		double end = c->phase_t[3] > 0 ? c->phase_t[3] : now;
		if (t0 == 0 || c->phase_t[0] < t0)
			t0 = c->phase_t[0];
		if (end > t1)
			t1 = end;
	}
	return t1 > t0 ? t1 - t0 : 0;
}

/* Passes every job of the running instance has completed. */
uint64_t workload_engine_passes(const struct workload *w)
{
	uint64_t least = UINT64_MAX;
	for (int j = 0; j < w->nctr; j++) {
		uint64_t p = __atomic_load_n(&w->ctr[j].passes, __ATOMIC_RELAXED);
		if (p < least)
			least = p;
	}
	return w->nctr > 0 ? least : 0;
}

static void poll_engine(struct workload *w, struct wl_sample *ws, double dt)
{
	uint64_t b = 0, rb = 0, calls = 0;
	for (int j = 0; j < w->nctr; j++) {
		b += __atomic_load_n(&w->ctr[j].bytes, __ATOMIC_RELAXED);
		rb += __atomic_load_n(&w->ctr[j].rbytes, __ATOMIC_RELAXED);
		calls += __atomic_load_n(&w->ctr[j].calls, __ATOMIC_RELAXED);
	}
	bool reads = w->spec->kind == WL_READ || w->spec->kind == WL_SEEK;
	/* Rates from run totals, so a run that ended between two ticks (its
	 * counters folded into the totals) still shows what it moved. */
	b += w->bytes_done_runs;
	rb += w->rbytes_done_runs;
	double rate_b = dt > 0 && b >= w->bytes_last ? (double)(b - w->bytes_last) / dt : 0;
	double rate_rb = dt > 0 && rb >= w->rbytes_last ? (double)(rb - w->rbytes_last) / dt : 0;
	w->bytes_last = b;
	w->rbytes_last = rb;
	ws->write_bps = reads ? 0 : rate_b;
	ws->read_bps = reads ? rate_b : rate_rb;
	ws->bytes = b;
	uint64_t total_calls = w->calls_done_runs + calls;
	/* per-call cost as the engine's processes see it: the interval's wall
	 * time spread over the calls each job made in it */
	ws->us_per_call = total_calls > w->calls_last && dt > 0 ?
		dt * 1e6 * w->nctr / (double)(total_calls - w->calls_last) : -1;
	w->calls_last = total_calls;
	ws->calls = total_calls;
}

/* Both directions of what it moved, never going back: a command's
 * regular-file reads and writes, an engine's source and destination. */
static void workload_note_rw(struct workload *w, struct wl_sample *ws)
{
	uint64_t r = ws->rbytes, wr = ws->wbytes;
	if (w->src_ctr && !w->src_ready)
		return;  /* preparing the source is not the run */
	if (w->ctr) {
		bool reads = w->spec->kind == WL_READ || w->spec->kind == WL_SEEK;
		r = reads ? ws->bytes : w->rbytes_last;
		wr = reads ? 0 : ws->bytes;
	} else if (w->spec->kind != WL_CMD) {
		return;
	}
	/* (an engine's both sides in the sample too: the phases keep them) */
	ws->rbytes = r;
	ws->wbytes = wr;
	if (r > w->rbytes_seen)
		w->rbytes_seen = r;
	if (wr > w->wbytes_seen)
		w->wbytes_seen = wr;
	w->rw_seen = true;
}

/* The CPU of every process its tree ever had, from its cgroup. */
static bool cgroup_cpu_now(const struct workload *w, double *user, double *sys)
{
	double u, y;
	if (!w->cg || cgroup_cpu(w->cg, &u, &y))
		return false;
	*user = u - w->cg_base_user > 0 ? u - w->cg_base_user : 0;
	*sys = y - w->cg_base_sys > 0 ? y - w->cg_base_sys : 0;
	return true;
}

uint64_t workload_passes(const struct workload *w)
{
	return w->passes_done_runs + (w->ctr ? workload_engine_passes(w) : 0);
}

void workload_poll(struct workload *w, struct wl_sample *ws, double now, double dt)
{
	/* (attached processes end by the run's clock: workload_tree_check
	 * after each reaping pass) */
	if (w->spec->kind != WL_ATTACHED)
		workload_tree_check(w, now);
	/* counters read now: their rates are over the time since their own
	 * last read, not the loop's */
	double t_read = clock_mono();
	if (w->t_read > 0)
		dt = t_read - w->t_read;
	w->t_read = t_read;
	ws->id = w->id;
	ws->us_per_call = -1;
	if (w->src_ctr && !w->src_ready) {
		/* filling the source is preparation, not the copy: the
		 * source process shows its own rate, the copy none yet */
		w->src_last = __atomic_load_n(&w->src_ctr->bytes, __ATOMIC_RELAXED);
		ws->write_bps = 0;
		ws->read_bps = 0;
	} else if (w->ctr) {
		poll_engine(w, ws, dt);
	} else if (ws->counted && ws->counted != w->counted) {
		/* a command that read and now writes regular files: its bytes
		 * are the written ones from here on */
		w->counted = ws->counted;
		w->bytes_seen = 0;
	}
	if (!w->ctr && !w->src_ctr)
		w->both |= ws->wbytes > 0 && ws->rbytes > 0;
	workload_note_rw(w, ws);
	if (ws->bytes < w->bytes_seen)
		ws->bytes = w->bytes_seen; /* totals never go backwards */
	w->bytes_seen = ws->bytes;
	if (ws->utime < w->ru_user)
		ws->utime = w->ru_user;
	if (ws->stime < w->ru_sys)
		ws->stime = w->ru_sys;
	/* its cgroup counts short-lived and orphaned processes too */
	if (cgroup_cpu_now(w, &w->cg_user, &w->cg_sys) && (!w->src_ctr || w->src_ready)) {
		ws->utime = w->cg_user;
		ws->stime = w->cg_sys;
	}
	/* Descendants reaped by someone else are only in the samples; the
	 * default workload's source writer is not part of the copy. */
	if ((w->src_ctr && !w->src_ready) || (w->spec->kind == WL_ATTACHED && !w->seen_based)) {
		/* attached processes: their CPU counts from when benchtop found them */
		w->seen_base_user = ws->utime;
		w->seen_base_sys = ws->stime;
		w->seen_based = true;
	} else {
		double u = ws->utime - w->seen_base_user, y = ws->stime - w->seen_base_sys;
		w->seen_user = u > w->seen_user ? u : w->seen_user;
		w->seen_sys = y > w->seen_sys ? y : w->seen_sys;
	}
	ws->state = w->state == WLS_RUNNING && w->paused ? WLS_PAUSED : w->state;
	ws->passes = workload_passes(w);
}

uint64_t workload_bytes_now(const struct workload *w)
{
	if (!w->ctr)
		return w->bytes_seen;
	uint64_t b = w->bytes_done_runs;
	for (int j = 0; j < w->nctr; j++)
		b += __atomic_load_n(&w->ctr[j].bytes, __ATOMIC_RELAXED);
	return b > w->bytes_seen ? b : w->bytes_seen;
}

bool workload_proc_bytes(const struct workload *w, pid_t pid, uint64_t *bytes)
{
	if (!w->ctr && !w->src_ctr)
		return false;
	for (int i = 0; i < w->nch; i++) {
		const struct child *c = &w->ch[i];
		if (c->pid == pid && c->role == ROLE_SOURCE && w->src_ctr) {
			*bytes = __atomic_load_n(&w->src_ctr->bytes, __ATOMIC_RELAXED);
			return true;
		}
		if (c->pid != pid || c->role < 0)
			continue;
		const struct engine_counters *k = &w->ctr[c->job];
		enum engine_role r = w->plan.roles[c->role];
		if (r == ROLE_CONTROL)
			*bytes = 0;
		else if (r == ROLE_READER)
			*bytes = __atomic_load_n(&k->rbytes, __ATOMIC_RELAXED);
		else
			*bytes = __atomic_load_n(&k->bytes, __ATOMIC_RELAXED);
		return true;
	}
	return false;
}

void workload_totals(const struct workload *w, struct workload_totals *t)
{
	memset(t, 0, sizeof *t);
	/* Once every process is reaped, wait4's figures are the whole tree's
	 * (descendants reaped inside it included, orphans added as benchtop,
	 * their subreaper, reaped them), exact to the microsecond and split
	 * into user and system as wait4 splits them.  While processes still
	 * run, a cgroup's cpu.stat counts every process of the tree (its
	 * split is the scheduler's tick sampling, not wait4's), else the
	 * samples' clock-tick figures, which round each process up to a tick. */
	bool reaped = !workload_running(w) && w->ru_user + w->ru_sys > 0;
	t->user = reaped || w->ru_user > w->seen_user ? w->ru_user : w->seen_user;
	t->sys = reaped || w->ru_sys > w->seen_sys ? w->ru_sys : w->seen_sys;
	double u = w->cg_user, y = w->cg_sys;
	if (!reaped && w->cg && (cgroup_cpu_now(w, &u, &y) || u + y > 0)) {
		t->user = u;
		t->sys = y;
	}
	t->elapsed = w->elapsed_done;
	t->io_elapsed = w->io_done;
	t->paused = w->paused_s + (w->paused && w->t_paused > 0 ? clock_mono() - w->t_paused : 0);
	t->bytes = w->bytes_seen;
	t->calls = w->calls_done_runs;
	t->runs = w->runs;
	t->counted = w->spec->kind != WL_CMD && w->spec->kind != WL_ATTACHED ? NULL : w->counted == 'r' ? "read" :
	             w->counted == 'w' && w->both ? "written" : NULL;
	t->side = w->spec->kind == WL_CMD || w->spec->kind == WL_ATTACHED ? w->counted : 0;
	t->read_bytes = w->rbytes_seen;
	t->write_bytes = w->wbytes_seen;
	t->rw_known = w->rw_seen;
}

int workload_phase_rows(const struct workload *w, struct workload_totals rows[2],
                        const char *names[2])
{
	if (!w->spec->rewrite || w->rows[0].runs == 0)
		return 0;
	struct workload *m = (struct workload *)w; /* names are built lazily */
	snprintf(m->row_names[0], sizeof m->row_names[0], "%s: write", w->name);
	snprintf(m->row_names[1], sizeof m->row_names[1], "%s: rewrite", w->name);
	for (int i = 0; i < 2; i++) {
		rows[i] = w->rows[i];
		names[i] = m->row_names[i];
	}
	return 2;
}

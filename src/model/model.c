/* model.c - snapshots and the history ring, events and phases. */
#include "benchtop/model.h"
#include "benchtop/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *model_wl_state_name(enum wl_state s)
{
	static const char *names[] = {
		[WLS_STARTING] = "running", [WLS_RUNNING] = "running",
		[WLS_PAUSED] = "paused", [WLS_DONE] = "done", [WLS_FAILED] = "failed",
	};
	return (unsigned)s < sizeof names / sizeof *names ? names[s] : "unknown";
}

/* A snapshot remembers how many entries its arrays can hold, so copies into
 * ring slots reuse memory instead of allocating every tick. */
struct snapshot_cap {
	struct snapshot s;
	int cap_cpu, cap_proc, cap_wl;
	unsigned char *masks;   /* cap_proc allowed masks of mask_ncpu bytes */
	int mask_ncpu, mask_procs;
};

static struct snapshot_cap *cap_of(struct snapshot *s)
{
	return (struct snapshot_cap *)s;
}

static int grow(void **p, int *cap, int want, size_t elem)
{
	if (want <= *cap)
		return 0;
	int n = *cap ? *cap : 4;
	while (n < want)
		n *= 2;
	void *q = xrealloc(*p, (size_t)n * elem);
	if (!q)
		return -ENOMEM;
	memset((char *)q + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
	*p = q;
	*cap = n;
	return 0;
}

/* Every process slot's allowed mask: ncpu bytes of the snapshot's own,
 * kept (as far as they go) when the room grows. */
static int reserve_masks(struct snapshot *s, int ncpu)
{
	struct snapshot_cap *c = cap_of(s);
	if (ncpu < 1)
		ncpu = 1;
	if (c->masks && c->mask_ncpu == ncpu && c->mask_procs == c->cap_proc)
		return 0;
	unsigned char *m = xcalloc((size_t)c->cap_proc * (size_t)ncpu + 1, 1);
	if (!m)
		return -ENOMEM;
	int keep = c->mask_ncpu < ncpu ? c->mask_ncpu : ncpu;
	for (int i = 0; c->masks && i < c->mask_procs && i < c->cap_proc; i++)
		memcpy(m + (size_t)i * (size_t)ncpu, c->masks + (size_t)i * (size_t)c->mask_ncpu, (size_t)keep);
	free(c->masks);
	c->masks = m;
	c->mask_ncpu = ncpu;
	c->mask_procs = c->cap_proc;
	for (int i = 0; i < c->cap_proc; i++)
		s->procs[i].allowed = m + (size_t)i * (size_t)ncpu;
	return 0;
}

static int snapshot_reserve(struct snapshot *s, int ncpu, int nproc, int nwl)
{
	struct snapshot_cap *c = cap_of(s);
	if (grow((void **)&s->cpus, &c->cap_cpu, ncpu, sizeof *s->cpus) ||
	    grow((void **)&s->procs, &c->cap_proc, nproc, sizeof *s->procs) ||
	    grow((void **)&s->wls, &c->cap_wl, nwl, sizeof *s->wls) || reserve_masks(s, ncpu))
		return -ENOMEM;
	return 0;
}

struct snapshot *snapshot_new(int ncpu, int nproc, int nwl)
{
	struct snapshot_cap *c = xcalloc(1, sizeof *c);
	if (!c)
		return NULL;
	struct snapshot *s = &c->s;
	if (snapshot_reserve(s, ncpu, nproc, nwl)) {
		snapshot_free(s);
		return NULL;
	}
	s->ncpu = ncpu;
	s->nwl = nwl;
	for (int i = 0; i < ncpu; i++) {
		s->cpus[i].id = i;
		s->cpus[i].khz = -1;
	}
	for (int i = 0; i < nwl; i++)
		s->wls[i].id = i + 1;
	return s;
}

int snapshot_reserve_procs(struct snapshot *s, int nproc)
{
	if (grow((void **)&s->procs, &cap_of(s)->cap_proc, nproc, sizeof *s->procs))
		return -ENOMEM;
	return reserve_masks(s, s->ncpu);
}

unsigned char *snapshot_allowed(struct snapshot *s, int i)
{
	struct snapshot_cap *c = cap_of(s);
	if (i < 0 || i >= c->cap_proc || reserve_masks(s, s->ncpu))
		return NULL;
	return s->procs[i].allowed = c->masks + (size_t)i * (size_t)c->mask_ncpu;
}

void snapshot_copy(struct snapshot *dst, const struct snapshot *src)
{
	if (snapshot_reserve(dst, src->ncpu, src->nproc, src->nwl))
		abort(); /* out of memory: the caller cannot go on either */
	struct cpu_sample *cpus = dst->cpus;
	struct proc_sample *procs = dst->procs;
	struct wl_sample *wls = dst->wls;
	*dst = *src;
	dst->cpus = cpus;
	dst->procs = procs;
	dst->wls = wls;
	if (src->ncpu)
		memcpy(cpus, src->cpus, (size_t)src->ncpu * sizeof *cpus);
	if (src->nproc)
		memcpy(procs, src->procs, (size_t)src->nproc * sizeof *procs);
	/* the masks are dst's own, holding src's */
	struct snapshot_cap *c = cap_of(dst);
	size_t n = (size_t)c->mask_ncpu;
	for (int i = 0; i < c->cap_proc; i++) {
		unsigned char *m = c->masks + (size_t)i * n;
		const unsigned char *from = i < src->nproc ? src->procs[i].allowed : NULL;
		if (from != m) {
			if (from && src->ncpu > 0)
				memcpy(m, from, n < (size_t)src->ncpu ? n : (size_t)src->ncpu);
			else if (i < src->nproc)
				memset(m, 0, n);
		}
		procs[i].allowed = m;
	}
	if (src->nwl)
		memcpy(wls, src->wls, (size_t)src->nwl * sizeof *wls);
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	free(s->cpus);
	free(s->procs);
	free(s->wls);
	free(cap_of(s)->masks);
	free(cap_of(s));
}

struct history {
	struct snapshot **ring;
	size_t cap, len, head; /* head: index of the oldest */
	uint64_t total;
	struct event *ev;
	size_t nev, evcap;
	struct phase *ph;
	size_t nph, phcap;
	struct phase_wl *mark; /* per workload: the highest totals counted so far */
	int nmark;
	double work_end;       /* when the last workload ended, < 0 while work goes on */
};

struct history *history_new(size_t cap)
{
	struct history *h = xcalloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->cap = cap ? cap : 1;
	h->ring = xcalloc(h->cap, sizeof *h->ring);
	h->ph = xcalloc(1, sizeof *h->ph);
	if (!h->ring || !h->ph) {
		history_free(h);
		return NULL;
	}
	h->phcap = 1;
	h->nph = 1;
	h->work_end = -1;
	strcpy(h->ph[0].label, "start");
	return h;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->cap; i++)
		snapshot_free(h->ring[i]);
	free(h->ring);
	free(h->ev);
	for (size_t i = 0; h->ph && i < h->nph; i++)
		free(h->ph[i].wl);
	free(h->ph);
	free(h->mark);
	free(h);
}

/* Room for n workloads in a per-workload array of phase figures. */
static void wl_room(struct phase_wl **a, int *len, int n)
{
	if (n <= *len)
		return;
	struct phase_wl *q = xrealloc(*a, (size_t)n * sizeof *q);
	if (!q)
		abort(); /* out of memory: the caller cannot go on either */
	memset(q + *len, 0, (size_t)(n - *len) * sizeof *q);
	*a = q;
	*len = n;
}

/* A figure of workload i reached v: what it rose by over the highest
 * counted so far goes to the current phase. */
static void wl_rise(uint64_t *mark, uint64_t *phase, uint64_t v)
{
	if (v > *mark) {
		*phase += v - *mark;
		*mark = v;
	}
}

static void wl_account(struct history *h, int i, uint64_t bytes, uint64_t rbytes, uint64_t wbytes)
{
	struct phase *p = &h->ph[h->nph - 1];
	wl_room(&h->mark, &h->nmark, i + 1);
	wl_room(&p->wl, &p->nwl, i + 1);
	wl_rise(&h->mark[i].bytes, &p->wl[i].bytes, bytes);
	wl_rise(&h->mark[i].rbytes, &p->wl[i].rbytes, rbytes);
	wl_rise(&h->mark[i].wbytes, &p->wl[i].wbytes, wbytes);
}

static double wl_cpu_total(const struct snapshot *s)
{
	double c = 0;
	for (int i = 0; i < s->nwl; i++)
		c += s->wls[i].utime + s->wls[i].stime;
	return c;
}

/* Fold the new snapshot into the current phase: bytes and CPU as deltas
 * against what was counted before, so a phase only counts what happened
 * in it. */
static void phase_account(struct history *h, const struct snapshot *s)
{
	struct phase *p = &h->ph[h->nph - 1];
	const struct snapshot *prev = history_last(h);
	/* Each figure as a rise over the highest counted before (from zero:
	 * what moved before the first snapshot belongs to the first phase
	 * too), whichever side the workload is rated by now. */
	for (int i = 0; i < s->nwl; i++)
		wl_account(h, i, s->wls[i].bytes, s->wls[i].rbytes, s->wls[i].wbytes);
	double c = wl_cpu_total(s) - (prev ? wl_cpu_total(prev) : 0);
	if (c > 0)
		p->cpu_s += c;
	uint64_t m0 = 0, m1 = 0;
	for (int i = 0; prev && i < prev->nproc; i++)
		m0 += prev->procs[i].migrations;
	for (int i = 0; i < s->nproc; i++)
		m1 += s->procs[i].migrations;
	if (m1 > m0 && prev)
		p->migrations += m1 - m0;
	for (int i = 0; i < s->ncpu; i++) {
		if (s->cpus[i].khz > 0) {
			p->khz_sum += (double)s->cpus[i].khz * s->dt;
			p->khz_time += s->dt;
		}
	}
	p->to = h->work_end >= p->from && h->work_end < s->t ? h->work_end : s->t;
}

int history_push(struct history *h, const struct snapshot *s)
{
	phase_account(h, s);
	size_t slot;
	if (h->len < h->cap) {
		slot = (h->head + h->len) % h->cap;
		h->len++;
	} else {
		slot = h->head;
		h->head = (h->head + 1) % h->cap;
	}
	if (!h->ring[slot]) {
		h->ring[slot] = snapshot_new(s->ncpu, s->nproc, s->nwl);
		if (!h->ring[slot])
			return -ENOMEM;
	}
	snapshot_copy(h->ring[slot], s);
	h->total++;
	return 0;
}

int history_grow(struct history *h, size_t cap)
{
	if (cap <= h->cap)
		return 0;
	struct snapshot **ring = xcalloc(cap, sizeof *ring);
	if (!ring)
		return -ENOMEM;
	/* oldest first from 0; slots never filled stay NULL */
	for (size_t i = 0; i < h->cap; i++)
		ring[i] = h->ring[(h->head + i) % h->cap];
	free(h->ring);
	h->ring = ring;
	h->head = 0;
	h->cap = cap;
	return 0;
}

size_t history_len(const struct history *h) { return h->len; }
size_t history_cap(const struct history *h) { return h->cap; }
uint64_t history_total(const struct history *h) { return h->total; }

const struct snapshot *history_at(const struct history *h, size_t i)
{
	if (i >= h->len)
		return NULL;
	return h->ring[(h->head + i) % h->cap];
}

const struct snapshot *history_last(const struct history *h)
{
	return h->len ? history_at(h, h->len - 1) : NULL;
}

static int add_event(struct history *h, const struct event *e)
{
	xgrow((void **)&h->ev, &h->evcap, h->nev + 1, sizeof *h->ev, 16);
	h->ev[h->nev++] = *e;
	return 0;
}

int history_note_event(struct history *h, const struct event *e)
{
	return add_event(h, e);
}

int history_add_event(struct history *h, const struct event *e)
{
	if (add_event(h, e))
		return -ENOMEM;
	if (h->nph == h->phcap) {
		size_t n = h->phcap * 2;
		struct phase *q = xrealloc(h->ph, n * sizeof *q);
		if (!q)
			return -ENOMEM;
		h->ph = q;
		h->phcap = n;
	}
	struct phase *last = &h->ph[h->nph - 1];
	last->to = h->work_end >= last->from && h->work_end < e->t ? h->work_end : e->t;
	struct phase *p = &h->ph[h->nph++];
	memset(p, 0, sizeof *p);
	p->from = p->to = e->t;
	snprintf(p->label, sizeof p->label, "%s", e->label);
	return 0;
}

void history_close_phase_bytes(struct history *h, int i, uint64_t bytes_now)
{
	if (i >= 0)
		wl_account(h, i, bytes_now, 0, 0);
}

void history_work_ended(struct history *h, double t)
{
	h->work_end = t;
	struct phase *p = &h->ph[h->nph - 1];
	if (t >= p->from && t < p->to)
		p->to = t;
}

size_t history_nevents(const struct history *h) { return h->nev; }

const struct event *history_event(const struct history *h, size_t i)
{
	return i < h->nev ? &h->ev[i] : NULL;
}

size_t history_nphases(const struct history *h) { return h->nph; }

const struct phase *history_phase(const struct history *h, size_t i)
{
	return i < h->nph ? &h->ph[i] : NULL;
}

uint64_t phase_wl_bytes(const struct phase *p, int i, char side)
{
	if (i < 0 || i >= p->nwl)
		return 0;
	const struct phase_wl *w = &p->wl[i];
	return side == 'r' ? w->rbytes : side == 'w' ? w->wbytes : w->bytes;
}

bool phase_moved(const struct phase *p)
{
	for (int i = 0; i < p->nwl; i++)
		if (p->wl[i].bytes || p->wl[i].rbytes || p->wl[i].wbytes)
			return true;
	return false;
}

void history_label_phase(struct history *h, const char *label)
{
	if (h->nph)
		snprintf(h->ph[h->nph - 1].label, sizeof h->ph[0].label, "%s", label);
}


/* placement.c - rules on the roles of workloads: pins, spread, pack, free
 * and whole-workload masks, answered per role (placement.h). */
#include "benchtop/placement.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/cpulist.h"
#include "benchtop/grow.h"

#define SLOT_LEN 32

struct rule {
	int wl;
	char slot[SLOT_LEN];
	unsigned char *mask;
	bool live;
	bool idle;                   /* its process does little (control, idle) */
};

struct placement_rules {
	int ncpu, nwl;
	unsigned char *allowed;
	unsigned char **wl_mask;     /* nwl + 1, NULL: no workload rule */
	struct rule *rules;
	int nrules, caprules;
	bool spread;
	int cursor;                  /* spread: where the next search starts */
};

struct placement_rules *placement_new(int ncpu, int nwl, const unsigned char *allowed)
{
	struct placement_rules *p = calloc(1, sizeof *p);
	if (!p || ncpu <= 0 || nwl < 0) {
		free(p);
		return NULL;
	}
	p->ncpu = ncpu;
	p->nwl = nwl;
	p->allowed = malloc((size_t)ncpu);
	p->wl_mask = calloc((size_t)nwl + 1, sizeof *p->wl_mask);
	if (!p->allowed || !p->wl_mask) {
		placement_free(p);
		return NULL;
	}
	memcpy(p->allowed, allowed, (size_t)ncpu);
	return p;
}

void placement_free(struct placement_rules *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nrules; i++)
		free(p->rules[i].mask);
	for (int w = 0; p->wl_mask && w <= p->nwl; w++)
		free(p->wl_mask[w]);
	free(p->rules);
	free(p->wl_mask);
	free(p->allowed);
	free(p);
}

static struct rule *find(const struct placement_rules *p, int wl, const char *slot)
{
	for (int i = 0; i < p->nrules; i++)
		if (p->rules[i].wl == wl && !strcmp(p->rules[i].slot, slot))
			return &p->rules[i];
	return NULL;
}

static struct rule *add(struct placement_rules *p, int wl, const char *slot)
{
	struct rule *q = grow_one(p->rules, p->nrules, &p->caprules, 16, sizeof *q);
	if (!q)
		return NULL;
	p->rules = q;
	struct rule *r = &p->rules[p->nrules];
	*r = (struct rule){ .wl = wl, .mask = malloc((size_t)p->ncpu) };
	if (!r->mask)
		return NULL;
	snprintf(r->slot, sizeof r->slot, "%s", slot);
	p->nrules++;
	return r;
}

/* Drop the rules of workload wl (-1: all). */
static void drop_rules(struct placement_rules *p, int wl)
{
	int k = 0;
	for (int i = 0; i < p->nrules; i++) {
		if (wl < 0 || p->rules[i].wl == wl)
			free(p->rules[i].mask);
		else
			p->rules[k++] = p->rules[i];
	}
	p->nrules = k;
}

int placement_pin(struct placement_rules *p, int wl, const char *slot, const unsigned char *mask)
{
	if (wl < 0 || wl > p->nwl || cpulist_count(mask, p->ncpu) == 0)
		return -EINVAL;
	struct rule *r = find(p, wl, slot);
	if (!r && !(r = add(p, wl, slot)))
		return -ENOMEM;
	memcpy(r->mask, mask, (size_t)p->ncpu);
	r->live = true;
	return 0;
}

int placement_set_workload(struct placement_rules *p, int wl, const unsigned char *mask)
{
	if (wl > p->nwl || cpulist_count(mask, p->ncpu) == 0)
		return -EINVAL;
	for (int w = 0; w <= p->nwl; w++) {
		if (wl >= 0 && w != wl)
			continue;
		if (!p->wl_mask[w] && !(p->wl_mask[w] = malloc((size_t)p->ncpu)))
			return -ENOMEM;
		memcpy(p->wl_mask[w], mask, (size_t)p->ncpu);
	}
	drop_rules(p, wl);
	p->spread = false;
	return 0;
}

void placement_spread(struct placement_rules *p)
{
	drop_rules(p, -1);
	for (int w = 0; w <= p->nwl; w++) {
		free(p->wl_mask[w]);
		p->wl_mask[w] = NULL;
	}
	p->spread = true;
	p->cursor = 0;
}

bool placement_spreading(const struct placement_rules *p)
{
	return p->spread;
}

/* The CPU of a one-CPU mask, or -1. */
static int single(const unsigned char *m, int ncpu)
{
	int c1 = -1;
	for (int c = 0; c < ncpu; c++)
		if (m[c]) {
			if (c1 >= 0)
				return -1;
			c1 = c;
		}
	return c1;
}

int placement_held(const struct placement_rules *p, int cpu)
{
	int n = 0;
	for (int i = 0; i < p->nrules; i++)
		n += p->rules[i].live && single(p->rules[i].mask, p->ncpu) == cpu;
	return n;
}

/* Spread's choice for a new role: keep when nobody holds it, else the
 * least-held allowed CPU, searching round robin from the cursor so that
 * equally held CPUs take turns.  -1 when no CPU is allowed. */
static int spread_cpu(struct placement_rules *p, int keep)
{
	if (keep >= 0 && keep < p->ncpu && p->allowed[keep] && placement_held(p, keep) == 0)
		return keep;
	int best = -1, best_held = 0;
	for (int k = 0; k < p->ncpu; k++) {
		int c = (p->cursor + k) % p->ncpu;
		if (!p->allowed[c])
			continue;
		int h = placement_held(p, c);
		if (best < 0 || h < best_held) {
			best = c;
			best_held = h;
		}
	}
	if (best >= 0)
		p->cursor = (best + 1) % p->ncpu;
	return best;
}

const unsigned char *placement_want(struct placement_rules *p, int wl, const char *slot, int keep)
{
	if (wl < 0 || wl > p->nwl)
		return NULL;
	struct rule *r = find(p, wl, slot);
	if (r) {
		r->live = true;
		return r->mask;
	}
	if (p->spread) {
		int c = spread_cpu(p, keep);
		if (c < 0 || !(r = add(p, wl, slot)))
			return NULL;
		memset(r->mask, 0, (size_t)p->ncpu);
		r->mask[c] = 1;
		r->live = true;
		return r->mask;
	}
	return p->wl_mask[wl];
}

void placement_live_begin(struct placement_rules *p)
{
	for (int i = 0; i < p->nrules; i++)
		p->rules[i].live = false;
}

void placement_idle(struct placement_rules *p, int wl, const char *slot, bool idle)
{
	struct rule *r = find(p, wl, slot);
	if (r)
		r->idle = idle;
}

/* Live busy roles on CPU cpu alone. */
static int busy_held(const struct placement_rules *p, int cpu)
{
	int n = 0;
	for (int i = 0; i < p->nrules; i++)
		n += p->rules[i].live && !p->rules[i].idle && single(p->rules[i].mask, p->ncpu) == cpu;
	return n;
}

int placement_rebalance(struct placement_rules *p)
{
	int moved = 0;
	if (!p->spread)
		return 0;
	/* a busy role that shares its CPU with an earlier busy one moves to
	 * the allowed CPU with the fewest busy roles (then fewest roles),
	 * when that has none: busy roles get CPUs of their own first */
	for (int i = 0; i < p->nrules; i++) {
		struct rule *r = &p->rules[i];
		int c = single(r->mask, p->ncpu);
		if (!r->live || r->idle || c < 0)
			continue;
		bool shared = false;
		for (int j = 0; j < i && !shared; j++)
			shared = p->rules[j].live && !p->rules[j].idle && single(p->rules[j].mask, p->ncpu) == c;
		if (!shared)
			continue;
		int best = -1;
		for (int k = 0; k < p->ncpu; k++) {
			if (!p->allowed[k] || busy_held(p, k) > 0)
				continue;
			if (best < 0 || placement_held(p, k) < placement_held(p, best))
				best = k;
		}
		if (best < 0)
			continue;
		memset(r->mask, 0, (size_t)p->ncpu);
		r->mask[best] = 1;
		moved++;
	}
	return moved;
}

int placement_spread_cpu(const struct placement_rules *p, int wl, const char *slot)
{
	const struct rule *r = find(p, wl, slot);
	return p->spread && r ? single(r->mask, p->ncpu) : -1;
}

void placement_live(struct placement_rules *p, int wl, const char *slot)
{
	struct rule *r = find(p, wl, slot);
	if (r)
		r->live = true;
}

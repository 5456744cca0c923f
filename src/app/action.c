/* action.c - what keys and --at entries do: placement, governors, markers,
 * pause, stop, restart, view settings, each a function of the one table at
 * the end, over the context of actions.h.  Each change of the machine or
 * the run becomes an event (a marker on the graph, a record, a new phase);
 * the result, or why it could not be done, goes to the status line; what
 * the loop has to do comes back as reaction bits. */
#include "benchtop/actions.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/affinity.h"
#include "benchtop/cpufreq.h"
#include "benchtop/cpulist.h"
#include "benchtop/journal.h"
#include "benchtop/placement.h"
#include "benchtop/workload.h"
#include "benchtop/xalloc.h"

/* ---- the context's calls ---- */

static int set_affinity(struct action_ctx *c, pid_t pid, const unsigned char *m, char *msg, size_t len)
{
	return c->ops && c->ops->set_affinity ? c->ops->set_affinity(pid, m, c->ncpu, msg, len)
	                                      : affinity_set_pid(pid, m, c->ncpu, msg, len);
}

static int get_affinity(struct action_ctx *c, pid_t pid, unsigned char *m)
{
	return c->ops && c->ops->get_affinity ? c->ops->get_affinity(pid, m, c->ncpu)
	                                      : affinity_get_pid(pid, m, c->ncpu);
}

static bool affinity_matches(struct action_ctx *c, pid_t pid, const unsigned char *m)
{
	if (!(c->ops && c->ops->get_affinity))
		return affinity_pid_matches(pid, m, c->ncpu);
	unsigned char *now = xcalloc((size_t)c->ncpu, 1);
	bool same = get_affinity(c, pid, now) == 0 && !memcmp(now, m, (size_t)c->ncpu);
	free(now);
	return same;
}

static void remember(struct action_ctx *c, pid_t pid)
{
	if (c->ops && c->ops->remember)
		c->ops->remember(c->owner, pid);
}

static bool found_stopped(struct action_ctx *c, pid_t pid)
{
	return c->ops && c->ops->found_stopped && c->ops->found_stopped(c->owner, pid);
}

static double now_of(struct action_ctx *c)
{
	return c->ops && c->ops->now ? c->ops->now(c->owner) : 0;
}

unsigned action_event(struct action_ctx *c, struct event *e, bool phase)
{
	e->t = now_of(c);
	if (c->ops && c->ops->event)
		c->ops->event(c->owner, e, phase);
	return REACT_EVENT | REACT_REDRAW;
}

/* The status line says what was done (or why not). */
static unsigned say(struct action_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static unsigned say(struct action_ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->vs->status, sizeof c->vs->status, fmt, ap);
	va_end(ap);
	return REACT_STATUS | REACT_REDRAW;
}

/* A failure: the status line already says why; err is -errno. */
static unsigned fail(struct action_ctx *c, int err)
{
	c->err = err;
	return REACT_FAILED | REACT_STATUS | REACT_REDRAW;
}

/* In batch mode the status line also goes to standard error. */
static void tell(struct action_ctx *c)
{
	if (c->batch)
		fprintf(stderr, "benchtop: %s\n", c->vs->status);
}

/* The sample placements are checked against: the one being taken, else
 * the feed's newest. */
static const struct snapshot *sample_of(struct action_ctx *c)
{
	return c->snap ? c->snap : history_last(c->hist);
}

static const struct proc_sample *selected_proc(struct action_ctx *c)
{
	const struct snapshot *s = history_last(c->hist);
	if (!s || s->nproc == 0)
		return NULL;
	view_clamp(c->vs, s->nproc);
	const struct proc_sample *p = &s->procs[c->vs->selected];
	/* A process that has ended (a command's earlier run under --loop,
	 * kept for its totals) stands for its role: the action is on the
	 * process now in its place. */
	const char *slot = p->slot[0] ? p->slot : p->role;
	for (int i = 0; !p->alive && i < s->nproc; i++) {
		const struct proc_sample *q = &s->procs[i];
		if (q->alive && q->workload == p->workload && !strcmp(q->slot[0] ? q->slot : q->role, slot))
			return q;
	}
	return p;
}

/* The live process pid of the newest sample (the affinity dialog's), else
 * the selected one. */
static const struct proc_sample *proc_of(struct action_ctx *c, pid_t pid)
{
	const struct snapshot *s = history_last(c->hist);
	for (int i = 0; s && i < s->nproc; i++)
		if (s->procs[i].pid == pid && s->procs[i].alive)
			return &s->procs[i];
	return selected_proc(c);
}

/* The slot a process plays in its workload: placement rules are on it. */
static const char *slot_of(const struct proc_sample *p)
{
	return p->slot[0] ? p->slot : p->role;
}

/* The CPU a process is allowed on alone, or -1. */
static int single_cpu_of(struct action_ctx *c, const struct proc_sample *p)
{
	const struct snapshot *s = sample_of(c);
	int n = s && s->ncpu < c->ncpu ? s->ncpu : c->ncpu, cpu = -1;
	if (!p->allowed || cpulist_count(p->allowed, n) != 1)
		return -1;
	for (int k = 0; k < n; k++)
		if (p->allowed[k])
			cpu = k;
	return cpu;
}

/* A process's allowed CPUs as a list (for the caller to free). */
static char *allowed_text(struct action_ctx *c, const struct proc_sample *p)
{
	const struct snapshot *s = sample_of(c);
	int n = s && s->ncpu < c->ncpu ? s->ncpu : c->ncpu;
	return p->allowed ? cpulist_text(p->allowed, n) : strdup("");
}

/* "the writer of workload 1", "cp (writer) of workload 2", "attached
 * PID 42 (rsync)": what a rule on p's role is about, for the status line. */
static void role_words(const struct proc_sample *p, char *buf, size_t len)
{
	if (!strcmp(p->role, "attached") || (p->slot[0] && !strncmp(p->slot, "pid", 3)))
		snprintf(buf, len, "attached PID %d (%s)", (int)p->pid, p->comm);
	else if (!strncmp(p->comm, "bt-", 3) || !p->comm[0])
		snprintf(buf, len, "the %s of workload %d", p->role, p->workload);
	else
		snprintf(buf, len, "%s (%s) of workload %d", p->comm, p->role, p->workload);
}

/* Pids benchtop has placed; 1 in the second slot once a lost placement
 * was reported, so it is said once, not every tick. */
static int placed_index(struct action_ctx *c, pid_t pid, bool add)
{
	for (size_t i = 0; i < c->plog.n; i++)
		if (c->plog.v[i].pid == pid)
			return (int)i;
	if (!add)
		return -1;
	if (c->plog.n == c->plog.cap) {
		size_t n = c->plog.cap ? c->plog.cap * 2 : 32;
		struct placed *q = xrealloc(c->plog.v, n * sizeof *q);
		if (!q)
			return -1;
		c->plog.v = q;
		c->plog.cap = n;
	}
	c->plog.v[c->plog.n] = (struct placed){ .pid = pid };
	return (int)c->plog.n++;
}

/* pid was given the CPUs of mask. */
static void placed_note(struct action_ctx *c, pid_t pid, const unsigned char *mask)
{
	int k = placed_index(c, pid, true);
	if (k < 0)
		return;
	struct placed *pl = &c->plog.v[k];
	if (!pl->mask)
		pl->mask = xcalloc((size_t)c->ncpu, 1);
	if (pl->mask)
		memcpy(pl->mask, mask, (size_t)c->ncpu);
}

/* A process that was placed and no longer has what benchtop gave it
 * reset its own affinity (or something else did): say so once, then
 * place it again.  One that still has what it was given is only under a
 * rule that changed since (pack, then free): placed again, nothing lost. */
static unsigned report_lost(struct action_ctx *c, const struct proc_sample *p, const unsigned char *m)
{
	int k = placed_index(c, p->pid, false);
	if (k < 0 || c->plog.v[k].reported)
		return 0;
	if (c->plog.v[k].mask && affinity_matches(c, p->pid, c->plog.v[k].mask))
		return 0;
	c->plog.v[k].reported = true;
	char *want = cpulist_text(m, c->ncpu), *now = allowed_text(c, p);
	unsigned r = say(c, "PID %d (%s) did not keep CPU %s (now %s): it sets its own affinity; benchtop re-applies it each tick",
	                 (int)p->pid, p->comm, want ? want : "?", now ? now : "?");
	free(want);
	free(now);
	tell(c);
	return r;
}

const unsigned char *action_start_mask(struct action_ctx *c, int w)
{
	return placement_want(c->pl, w, "cmd", -1);
}

const unsigned char *action_placer(void *ctx, int w, const char *slot)
{
	struct action_ctx *c = ctx;
	return placement_want(c->pl, w, slot, -1);
}

/* A role that does little: it may share a CPU under spread. */
static bool idle_role(const struct proc_sample *p)
{
	return !strcmp(p->role, "control") || !strcmp(p->role, "idle");
}

/* The status line under spread: which role went where ("reader 1,
 * writer 0, control 0"), busy roles first. */
static unsigned spread_say(struct action_ctx *c, const char *what)
{
	const struct snapshot *s = sample_of(c);
	char list[200] = "";
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->nproc && k + 40 < sizeof list; i++) {
			const struct proc_sample *p = &s->procs[i];
			if (!p->alive || idle_role(p) != (pass == 1))
				continue;
			int cpu = placement_spread_cpu(c->pl, p->workload, slot_of(p));
			if (cpu >= 0)
				k += (size_t)snprintf(list + k, sizeof list - k, "%s%s %s\xe2\x86\x92%d",
				                      k ? ", " : "", p->role, p->comm, cpu);
		}
	return say(c, "%s: %s%s", what, list[0] ? list : "no process yet",
	           " (busy roles on CPUs of their own first; idle ones share)");
}

/* After each sample: every running process where the rules on its role
 * say (processes that start later get theirs before they run). */
unsigned action_enforce_placement(struct action_ctx *c)
{
	/* At the end attached processes get back what they had, workloads
	 * are stopping: no rule is applied again. */
	const struct snapshot *s = sample_of(c);
	unsigned r = 0;
	if (c->finishing || !s)
		return 0;
	placement_live_begin(c->pl);
	for (int i = 0; i < s->nproc; i++)
		if (s->procs[i].alive) {
			placement_live(c->pl, s->procs[i].workload, slot_of(&s->procs[i]));
			placement_idle(c->pl, s->procs[i].workload, slot_of(&s->procs[i]), idle_role(&s->procs[i]));
		}
	/* under spread, roles found busy since get CPUs of their own */
	if (placement_rebalance(c->pl) > 0)
		r |= spread_say(c, "spread again, as the roles showed what they do");
	for (int i = 0; i < s->nproc; i++) {
		const struct proc_sample *p = &s->procs[i];
		if (!p->alive)
			continue;
		const unsigned char *m = placement_want(c->pl, p->workload, slot_of(p), single_cpu_of(c, p));
		if (!m || affinity_matches(c, p->pid, m))
			continue;
		r |= report_lost(c, p, m);
		char msg[200] = "";
		remember(c, p->pid);
		int rc = set_affinity(c, p->pid, m, msg, sizeof msg);
		if (rc < 0) {
			c->plog.failed++;
			c->plog.err = -rc;
			snprintf(c->plog.error, sizeof c->plog.error, "%s", msg[0] ? msg : strerror(-rc));
			r |= say(c, "%s", c->plog.error);
		} else {
			placed_note(c, p->pid, m);
		}
	}
	return r;
}

/* The tracked processes' allowed CPUs (only pid when > 0), read back
 * from the kernel, into a placement's before or after map. */
static void affinity_map(struct action_ctx *c, pid_t only, struct ev_place *pl, bool after)
{
	unsigned char *m = xcalloc((size_t)c->ncpu, 1);
	const struct snapshot *s = sample_of(c);
	for (int i = 0; m && s && i < s->nproc; i++) {
		const struct proc_sample *p = &s->procs[i];
		if (!p->alive || (only > 0 && p->pid != only) || get_affinity(c, p->pid, m))
			continue;
		char *list = cpulist_text(m, c->ncpu);
		int full = event_map_add(pl, after, (int)p->pid, list);
		free(list);
		if (full)
			break;
	}
	free(m);
}

/* A placement event e (its before map filled) done: target and cpus
 * asked; p: the one process a pin was for (its pid, workload, role and
 * slot go in the detail), or NULL; error: NULL when it was done, else
 * why it was not (for every process, or for some: the event says which
 * and the status line says so).  The after map is read back now. */
static unsigned placement_event(struct action_ctx *c, struct event *e, const char *label,
                                const char *target, const char *cpus, pid_t only,
                                const struct proc_sample *p, const char *error)
{
	struct ev_place *pl = &e->d.place;
	affinity_map(c, only, pl, true);
	snprintf(pl->target, sizeof pl->target, "%s", target);
	snprintf(pl->cpus, sizeof pl->cpus, "%s", cpus);
	if (p) {
		pl->has_proc = true;
		pl->pid = (int)p->pid;
		pl->workload = p->workload;
		snprintf(pl->role, sizeof pl->role, "%s", p->role);
		snprintf(pl->slot, sizeof pl->slot, "%s", slot_of(p));
	}
	pl->ok = !error;
	snprintf(pl->error, sizeof pl->error, "%s", error ? error : "");
	if (error)
		snprintf(e->label, sizeof e->label, "%.55s failed", label);
	else
		snprintf(e->label, sizeof e->label, "%s", label);
	return action_event(c, e, true);
}

/* An event whose detail is one text (a marker, a caption). */
static unsigned text_event(struct action_ctx *c, enum event_kind kind, const char *label,
                           const char *text, bool phase)
{
	struct event e;
	event_init(&e, kind, 0, label);
	snprintf(e.d.text.text, sizeof e.d.text.text, "%s", text);
	return action_event(c, &e, phase);
}

/* After a placement: none of it failed (0), or the status line says what
 * failed and why, also on standard error in batch mode (-errno). */
static unsigned placement_outcome(struct action_ctx *c, const char *what)
{
	if (!c->plog.failed)
		return 0;
	say(c, "%s: %d process%s could not be placed: %s", what, c->plog.failed,
	    c->plog.failed == 1 ? "" : "es", c->plog.error);
	tell(c);
	return fail(c, -(c->plog.err ? c->plog.err : EPERM));
}

/* pin_pid's work: after is mask as a list, e the event with the map
 * from before it. */
static unsigned pin_pid_to(struct action_ctx *c, const struct proc_sample *p, const unsigned char *mask,
                           const char *after, struct event *e)
{
	char msg[200] = "", label[64], target[96], who[96];
	remember(c, p->pid);
	int rc = set_affinity(c, p->pid, mask, msg, sizeof msg);
	snprintf(label, sizeof label, "pin %d:%s", (int)p->pid, after);
	snprintf(target, sizeof target, "%d", (int)p->pid);
	/* A workload's process that ended between the last sample and the
	 * key (a --loop command between two runs): the rule is on its role,
	 * so it still holds for the next process in its place. */
	bool gone = rc == -ESRCH && p->workload > 0;
	if (rc < 0 && !gone) {
		const char *why = msg[0] ? msg : strerror(-rc);
		say(c, "cannot pin %s (PID %d) to CPU %s: %s", p->comm, (int)p->pid, after, why);
		unsigned r = placement_event(c, e, label, target, after, p->pid, NULL, why);
		tell(c);
		return r | fail(c, rc);
	}
	placement_pin(c->pl, p->workload, slot_of(p), mask);
	placed_note(c, p->pid, mask);
	role_words(p, who, sizeof who);
	snprintf(label, sizeof label, "pin %s:%s", p->role, after);
	unsigned r = placement_event(c, e, label, target, after, p->pid, p, NULL);
	if (gone)
		return r | say(c, "pinned %s to CPU %s (PID %d); holds across restarts (that run had just ended)",
		               who, after, (int)p->pid);
	return r | say(c, "pinned %s to CPU %s (PID %d)%s", who, after, (int)p->pid,
	               p->workload > 0 ? "; holds across restarts" : "");
}

/* Pin p's role to mask: p now, and the next process in its place before
 * it runs.  Reports what p became. */
static unsigned pin_pid(struct action_ctx *c, const struct proc_sample *p, const unsigned char *mask)
{
	struct event *e = xcalloc(1, sizeof *e);
	event_init(e, EV_PIN, 0, "");
	affinity_map(c, p->pid, &e->d.place, false);
	char *after = cpulist_text(mask, c->ncpu);
	unsigned r = pin_pid_to(c, p, mask, after ? after : "?", e);
	free(after);
	free(e);
	return r;
}

/* A CPU the user names must exist and be online (the message lists the
 * online ones): 0, or the failure's bits. */
static unsigned check_cpu(struct action_ctx *c, int cpu)
{
	if (cpu >= 0 && cpu < c->ncpu && c->online[cpu])
		return 0;
	char *online = cpulist_text(c->online, c->ncpu);
	if (cpu < 0 || cpu >= c->ncpu)
		say(c, "CPU %d is out of range: this machine has CPUs 0-%d (online: %s)", cpu, c->ncpu - 1,
		    online ? online : "?");
	else
		say(c, "CPU %d is offline: online CPUs are %s", cpu, online ? online : "?");
	free(online);
	return fail(c, -EINVAL);
}

static unsigned act_pin_cpu(struct action_ctx *c, const struct action *act)
{
	const struct proc_sample *p = selected_proc(c);
	if (!p)
		return say(c, "no process to pin") | fail(c, -ESRCH);
	unsigned r = check_cpu(c, act->cpu);
	if (r)
		return r;
	unsigned char *m = xcalloc((size_t)c->ncpu, 1);
	m[act->cpu] = 1;
	r = pin_pid(c, p, m);
	free(m);
	return r;
}

/* Every role of workload w (< 0: all), running or not yet started, to
 * mask; the running processes at once. */
static unsigned apply_to_workloads(struct action_ctx *c, int w, const unsigned char *mask)
{
	placement_set_workload(c->pl, w, mask);
	return action_enforce_placement(c);
}

/* The CPUs of a typed list, each online: 0, or the failure's bits. */
static unsigned parse_cpus(struct action_ctx *c, const char *text, unsigned char *m)
{
	char err[200];
	if (cpulist_parse(text, m, c->ncpu, err, sizeof err))
		return say(c, "%s", err) | fail(c, -EINVAL);
	for (int cpu = 0; cpu < c->ncpu; cpu++)
		if (m[cpu] && check_cpu(c, cpu))
			return REACT_FAILED | REACT_STATUS | REACT_REDRAW;
	return 0;
}

/* Workload w (< 0: every one) to the CPUs of m. */
static unsigned pin_workloads(struct action_ctx *c, int w, const unsigned char *m)
{
	char label[64], target[32];
	struct event *e = xcalloc(1, sizeof *e);
	event_init(e, EV_PIN, 0, "");
	affinity_map(c, 0, &e->d.place, false);
	char *after = cpulist_text(m, c->ncpu);
	c->plog.failed = 0;
	unsigned r = apply_to_workloads(c, w, m);
	if (w < 0)
		snprintf(target, sizeof target, "all");
	else
		snprintf(target, sizeof target, "workload %d", w);
	snprintf(label, sizeof label, "pin %s:%s", w < 0 ? "all" : target, after);
	r |= placement_event(c, e, label, target, after ? after : "?", 0, NULL,
	                     c->plog.failed ? c->plog.error : NULL);
	r |= say(c, "%s pinned to CPU %s; holds for processes that start later",
	         w < 0 ? "every workload" : target, after ? after : "?");
	free(after);
	free(e);
	return r | placement_outcome(c, label);
}

static unsigned act_pin_list(struct action_ctx *c, const struct action *act)
{
	unsigned char *m = xcalloc((size_t)c->ncpu, 1);
	unsigned r = parse_cpus(c, act->text, m);
	const struct proc_sample *p = act->pid ? proc_of(c, act->pid) : selected_proc(c);
	if (r)
		;
	else if (act->whole)
		r = pin_workloads(c, act->whole == 2 || !p ? -1 : p->workload, m);
	else if (!p)
		r = say(c, "no process to pin") | fail(c, -ESRCH);
	else
		r = pin_pid(c, p, m);
	free(m);
	return r;
}

/* Pack's CPU: the selected process's (where it is pinned alone, else where
 * it last ran), else the first online CPU. */
static int pack_cpu(struct action_ctx *c)
{
	const struct proc_sample *p = selected_proc(c);
	int cpu = p ? single_cpu_of(c, p) : -1;
	if (cpu < 0)
		cpu = p && p->cpu >= 0 && p->cpu < c->ncpu && c->online[p->cpu] ? p->cpu : 0;
	while (cpu < c->ncpu && !c->online[cpu])
		cpu++;
	return cpu < c->ncpu ? cpu : 0;
}

/* Which of two processes spread places first: busy roles before idle
 * ones, then the busier. */
static bool spread_before(const struct proc_sample *p, const struct proc_sample *q)
{
	if (idle_role(p) != idle_role(q))
		return !idle_role(p);
	return p->cpu_pct > q->cpu_pct;
}

/* Spread: busy roles get CPUs of their own first, the busiest first;
 * idle roles share. */
static unsigned spread_now(struct action_ctx *c)
{
	placement_spread(c->pl);
	const struct snapshot *s = sample_of(c);
	int order[512], n = 0;
	for (int i = 0; s && i < s->nproc && n < 512; i++)
		if (s->procs[i].alive)
			order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && spread_before(&s->procs[order[j]], &s->procs[order[j - 1]]); j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		const struct proc_sample *p = &s->procs[order[i]];
		placement_want(c->pl, p->workload, slot_of(p), single_cpu_of(c, p));
	}
	return action_enforce_placement(c);
}

/* Spread, pack and free: every workload at once. */
static unsigned act_placement(struct action_ctx *c, const struct action *act)
{
	unsigned char *m = xcalloc((size_t)c->ncpu, 1);
	const char *name = act->id == ACT_PACK ? "pack" : act->id == ACT_FREE ? "free" : "spread";
	char *after = NULL;
	struct event *e = xcalloc(1, sizeof *e);
	event_init(e, EV_PLACEMENT, 0, "");
	affinity_map(c, 0, &e->d.place, false);
	c->plog.failed = 0;
	unsigned r;
	if (act->id == ACT_PACK) {
		m[pack_cpu(c)] = 1;
		r = apply_to_workloads(c, -1, m);
		after = cpulist_text(m, c->ncpu);
		r |= say(c, "pack: every process on CPU %s (the selected process's), also those that start later",
		         after ? after : "?");
	} else if (act->id == ACT_FREE) {
		r = apply_to_workloads(c, -1, c->allowed);
		after = cpulist_text(c->allowed, c->ncpu);
		r |= say(c, "free: every process on CPUs %s, also those that start later", after ? after : "?");
	} else {
		r = spread_now(c);
		after = strdup("round robin");
		r |= spread_say(c, "spread");
	}
	free(m);
	r |= placement_event(c, e, name, name, after ? after : "?", 0, NULL,
	                     c->plog.failed ? c->plog.error : NULL);
	free(after);
	free(e);
	return r | placement_outcome(c, name);
}

/* Governors and limits need cpufreq: 0, or the failure's bits. */
static unsigned need_cpufreq(struct action_ctx *c, const char *what)
{
	if (c->cf && cpufreq_npolicies(c->cf) > 0)
		return 0;
	const char *why = c->cf ? cpufreq_unavailable_reason(c->cf) : NULL;
	return say(c, "no %s to change: %s", what, why ? why : "no cpufreq here") | fail(c, -ENODEV);
}

static unsigned act_governor(struct action_ctx *c, const struct action *act)
{
	unsigned r = need_cpufreq(c, "governors");
	if (r)
		return r;
	const char *gov = act->id == ACT_GOV_NEXT ? cpufreq_next_governor(c->cf) : act->text;
	if (!gov)
		return say(c, "only one governor is available here") | fail(c, -EINVAL);
	char before[MODEL_GOV_LEN], name[MODEL_GOV_LEN];
	snprintf(before, sizeof before, "%s", cpufreq_policy_governor(c->cf, act->policy < 0 ? 0 : act->policy));
	snprintf(name, sizeof name, "%s", gov);
	int rc = cpufreq_set_governor(c->cf, act->policy, name, c->vs->status, sizeof c->vs->status);
	if (rc)
		return fail(c, rc);
	char label[64];
	snprintf(label, sizeof label, "gov %s", name);
	struct event e;
	event_init(&e, EV_GOVERNOR, 0, label);
	e.d.gov.policy = act->policy;
	snprintf(e.d.gov.before, sizeof e.d.gov.before, "%s", before);
	snprintf(e.d.gov.after, sizeof e.d.gov.after, "%s", name);
	return action_event(c, &e, true) | REACT_STATUS;
}

static unsigned act_maxfreq(struct action_ctx *c, const struct action *act)
{
	unsigned r = need_cpufreq(c, "frequency limits");
	if (r)
		return r;
	long before = cpufreq_policy_max(c->cf, act->policy < 0 ? 0 : act->policy);
	int rc = cpufreq_set_maxfreq(c->cf, act->policy, act->khz, c->vs->status, sizeof c->vs->status);
	if (rc)
		return fail(c, rc);
	char label[64];
	long after = cpufreq_policy_max(c->cf, act->policy < 0 ? 0 : act->policy);
	if (act->khz > 0)
		snprintf(label, sizeof label, "max %.1fGHz", act->khz / 1e6);
	else
		snprintf(label, sizeof label, "max lifted");
	struct event e;
	event_init(&e, EV_MAXFREQ, 0, label);
	e.d.maxfreq = (struct ev_maxfreq){ .policy = act->policy, .before = before, .after = after };
	return action_event(c, &e, true) | REACT_STATUS;
}

static unsigned pause_to(struct action_ctx *c, bool pause)
{
	if (pause == c->paused)
		return say(c, pause ? "already paused" : "not paused");
	for (int i = 0; i < c->nwl; i++)
		workload_pause(c->wl[i], pause);
	/* a paused process is in the journal until it runs again, so that
	 * --restore resumes it after a killed benchtop */
	for (size_t i = 0; i < c->nattached; i++) {
		pid_t pid = c->attached[i];
		/* one stopped when benchtop found it stays stopped: not benchtop's to resume */
		bool stopped = found_stopped(c, pid);
		if (pause && !stopped)
			journal_note_paused(pid);
		if (pause || !stopped)
			kill(pid, pause ? SIGSTOP : SIGCONT);
		if (!pause)
			journal_note_resumed(pid);
	}
	c->paused = pause;
	struct event e;
	event_init(&e, pause ? EV_PAUSE : EV_RESUME, 0, pause ? "pause" : "resume");
	unsigned r = action_event(c, &e, true);
	return r | say(c, pause ? "workloads paused (SIGSTOP); space resumes" : "workloads resumed (SIGCONT)");
}

static unsigned act_pause(struct action_ctx *c, const struct action *act)
{
	return pause_to(c, act->id == ACT_PAUSE ? !c->paused : false);
}

static struct workload *selected_workload(struct action_ctx *c)
{
	const struct proc_sample *p = selected_proc(c);
	if (p && p->workload >= 1 && p->workload <= c->nwl)
		return c->wl[p->workload - 1];
	/* No live process selected: the first finished workload. */
	for (int i = 0; i < c->nwl; i++)
		if (!workload_running(c->wl[i]))
			return c->wl[i];
	return c->nwl ? c->wl[0] : NULL;
}

static unsigned act_restart_stop(struct action_ctx *c, const struct action *act)
{
	struct workload *w = selected_workload(c);
	if (!w || !strcmp(workload_kind(w), "attached"))
		return say(c, "no workload here (attached processes are not stopped or restarted)") |
		       fail(c, -ESRCH);
	int i = workload_id(w);
	if (act->id == ACT_STOP) {
		if (!workload_running(w))
			return say(c, "workload %d is not running", i);
		workload_stop(w);
		return say(c, "workload %d stopped", i);
	}
	if (workload_running(w))
		return say(c, "workload %d is still running (x stops it)", i) | fail(c, -EBUSY);
	char msg[256], label[64];
	workload_rearm(w);
	if (workload_start(w, c->sp, action_start_mask(c, i), c->ncpu, now_of(c), msg, sizeof msg))
		return say(c, "%s", msg) | fail(c, -EIO);
	snprintf(label, sizeof label, "w%d restart", i);
	struct event e;
	event_init(&e, EV_MARKER, 0, label);
	e.d.text.workload = i;
	snprintf(e.d.text.text, sizeof e.d.text.text, "%s", label);
	unsigned r = action_event(c, &e, true);
	history_work_ended(c->hist, -1);
	return r | REACT_WORK | say(c, "workload %d restarted", i);
}

static unsigned act_interval(struct action_ctx *c, const struct action *act)
{
	static const double steps[] = { 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10 };
	bool longer = act->id == ACT_SLOWER;
	size_t n = sizeof steps / sizeof *steps, i = 0;
	while (i < n - 1 && steps[i] < c->interval - 1e-9)
		i++;
	if (longer && i < n - 1 && steps[i] <= c->interval + 1e-9)
		i++;
	else if (!longer && i > 0)
		i--;
	c->interval = steps[i];
	return REACT_INTERVAL | say(c, "sample interval %.2f s", steps[i]);
}

static unsigned act_marker(struct action_ctx *c, const struct action *act)
{
	unsigned r = text_event(c, EV_MARKER, act->text[0] ? act->text : "marker", act->text, true);
	return r | say(c, "marker: %s", act->text);
}

/* A lesson's caption: an event (a marker, a new phase) whose detail
 * holds the whole text; the graph shows it as a banner until the next. */
static unsigned act_caption(struct action_ctx *c, const struct action *act)
{
	/* right after an action that opened a phase (the same --at time, no
	 * sample since): the caption names that phase instead of opening an
	 * empty one */
	size_t np = history_nphases(c->hist);
	const struct phase *cur = np > 1 ? history_phase(c->hist, np - 1) : NULL;
	bool same = cur && now_of(c) - cur->from < 0.5 && !phase_moved(cur) && cur->cpu_s == 0 &&
	            cur->khz_time == 0;
	if (same)
		history_label_phase(c->hist, act->text);
	return text_event(c, EV_CAPTION, act->text, act->text, !same) | say(c, "%s", act->text);
}

static unsigned act_quit(struct action_ctx *c, const struct action *act)
{
	(void)c;
	(void)act;
	return REACT_QUIT;
}

/* What changes only the view (units, help, theme, selection, a note):
 * view.c's, the same in a replay. */
static unsigned act_view(struct action_ctx *c, const struct action *act)
{
	const struct snapshot *s = history_last(c->hist);
	unsigned before = c->vs->react;
	if (!view_apply(c->vs, act, s ? s->nproc : 0, c->screen))
		return 0;
	unsigned r = c->vs->react & ~before;
	c->vs->react = before;
	return r | REACT_REDRAW | (act->id == ACT_UNITS || act->id == ACT_NOTE ? REACT_STATUS : 0);
}

typedef unsigned action_fn(struct action_ctx *c, const struct action *act);

/* The actions: what each id does.  Ids not here (prompts, menus, the
 * replay's keys) are the dashboard's or the replay's own. */
static action_fn *const actions[] = {
	[ACT_PIN_CPU] = act_pin_cpu,
	[ACT_PIN_LIST] = act_pin_list,
	[ACT_SPREAD] = act_placement,
	[ACT_PACK] = act_placement,
	[ACT_FREE] = act_placement,
	[ACT_GOV_NEXT] = act_governor,
	[ACT_GOV_SET] = act_governor,
	[ACT_MAXFREQ] = act_maxfreq,
	[ACT_MARKER] = act_marker,
	[ACT_CAPTION] = act_caption,
	[ACT_SIGNAL] = action_signal,
	[ACT_PAUSE] = act_pause,
	[ACT_RESUME] = act_pause,
	[ACT_RESTART] = act_restart_stop,
	[ACT_STOP] = act_restart_stop,
	[ACT_FASTER] = act_interval,
	[ACT_SLOWER] = act_interval,
	[ACT_QUIT] = act_quit,
	[ACT_UNITS] = act_view,
	[ACT_HELP] = act_view,
	[ACT_THEME] = act_view,
	[ACT_SEL_UP] = act_view,
	[ACT_SEL_DOWN] = act_view,
	[ACT_SELECT] = act_view,
	[ACT_NOTE] = act_view,
};

unsigned action_apply(struct action_ctx *c, const struct action *act)
{
	c->err = 0;
	size_t id = (size_t)act->id;
	if (id >= sizeof actions / sizeof *actions || !actions[id])
		return 0;
	return actions[id](c, act);
}

void action_of_at(const struct at_action *at, struct action *act)
{
	static const enum action_id ids[] = {
		[AT_PIN] = ACT_PIN_LIST, [AT_PACK] = ACT_PACK, [AT_FREE] = ACT_FREE,
		[AT_SPREAD] = ACT_SPREAD, [AT_GOVERNOR] = ACT_GOV_SET,
		[AT_MAXFREQ] = ACT_MAXFREQ, [AT_MARKER] = ACT_MARKER,
		[AT_PAUSE] = ACT_PAUSE, [AT_RESUME] = ACT_RESUME, [AT_CAPTION] = ACT_CAPTION,
	};
	*act = (struct action){ .id = ids[at->kind], .policy = -1, .whole = 2, .khz = at->khz };
	if (at->arg)
		snprintf(act->text, sizeof act->text, "%s", at->arg);
}

void action_ctx_free(struct action_ctx *c)
{
	placement_free(c->pl);
	for (size_t i = 0; i < c->plog.n; i++)
		free(c->plog.v[i].mask);
	free(c->plog.v);
	free(c->online);
	free(c->allowed);
	c->pl = NULL;
	c->plog.v = NULL;
	c->online = c->allowed = NULL;
	c->plog.n = c->plog.cap = 0;
}

/* event_json.c - events as records hold them: each kind's details (the
 * member of struct event's union that EVENT_KINDS names) written as the
 * "detail" object, and read back from an event record into the same
 * struct.  Both directions of the format, side by side. */
#include "benchtop/event_json.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/json.h"

/* ---- written: each kind's details, by the member EVENT_KINDS names ---- */

static void map_json(struct jw *w, const char *key, const struct ev_place *p, bool after)
{
	const struct ev_proc_cpus *m = after ? p->after : p->before;
	size_t n = after ? p->nafter : p->nbefore;
	char pid[16];
	jw_obj(w, key);
	for (size_t i = 0; i < n; i++) {
		snprintf(pid, sizeof pid, "%d", m[i].pid);
		jw_str(w, pid, event_map_cpus(p, &m[i]));
	}
	jw_end(w);
}

static void place_json(struct jw *w, const struct event *e)
{
	const struct ev_place *p = &e->d.place;
	jw_str(w, "target", p->target);
	jw_str(w, "cpus", p->cpus);
	if (p->has_proc) {
		jw_int(w, "pid", p->pid);
		jw_int(w, "workload", p->workload);
		jw_str(w, "role", p->role);
		jw_str(w, "slot", p->slot);
	}
	jw_bool(w, "ok", p->ok);
	if (!p->ok)
		jw_str(w, "error", p->error);
	map_json(w, "before", p, false);
	map_json(w, "after", p, true);
}

static void gov_json(struct jw *w, const struct event *e)
{
	jw_int(w, "policy", e->d.gov.policy);
	jw_str(w, "before", e->d.gov.before);
	jw_str(w, "after", e->d.gov.after);
}

static void maxfreq_json(struct jw *w, const struct event *e)
{
	jw_int(w, "policy", e->d.maxfreq.policy);
	jw_int(w, "before", e->d.maxfreq.before);
	jw_int(w, "after", e->d.maxfreq.after);
}

static void text_json(struct jw *w, const struct event *e)
{
	if (e->d.text.workload)
		jw_int(w, "workload", e->d.text.workload);
	jw_str(w, "text", e->d.text.text);
}

static void why_json(struct jw *w, const struct event *e)
{
	if (e->d.why.why[0])
		jw_str(w, "why", e->d.why.why);
}

static void end_json(struct jw *w, const struct event *e)
{
	jw_int(w, "workload", e->d.end.workload);
	jw_str(w, "state", e->d.end.state);
	jw_str(w, "error", e->d.end.error);
}

static void sig_json(struct jw *w, const struct event *e)
{
	jw_int(w, "pid", e->d.sig.pid);
	jw_str(w, "signal", e->d.sig.name);
	jw_int(w, "number", e->d.sig.number);
	jw_int(w, "workload", e->d.sig.workload);
	jw_str(w, "role", e->d.sig.role);
	jw_str(w, "comm", e->d.sig.comm);
}

static void step_json(struct jw *w, const struct event *e)
{
	jw_int(w, "step", e->d.step.step);
}

typedef void write_fn(struct jw *w, const struct event *e);
static write_fn *const detail_json[EV_NKINDS] = {
#define EVENT_DETAIL_FN(id, name, mark, member) [id] = member##_json,
	EVENT_KINDS(EVENT_DETAIL_FN)
#undef EVENT_DETAIL_FN
};

void event_json_write(struct jw *w, const char *key, const struct event *e)
{
	jw_obj(w, key);
	if (e->kind > EV_OTHER && e->kind < EV_NKINDS)
		detail_json[e->kind](w, e);
	jw_end(w);
}

/* ---- read back: each kind's details into its struct ---- */

static void map_of(struct ev_place *p, const struct json *m, bool after)
{
	for (size_t i = 0; i < json_len(m); i++) {
		const char *pid = json_key(m, i);
		long v = pid ? strtol(pid, NULL, 10) : 0;
		if (v > 0 && v <= INT_MAX && event_map_add(p, after, (int)v, json_str(json_at(m, i), "")))
			return;
	}
}

static void place_of(struct event *e, const struct json *d)
{
	struct ev_place *p = &e->d.place;
	json_get_str(d, "target", p->target, sizeof p->target);
	json_get_str(d, "cpus", p->cpus, sizeof p->cpus);
	p->has_proc = json_get(d, "pid") != NULL;
	p->pid = json_get_int(d, "pid", 0);
	p->workload = json_get_int(d, "workload", 0);
	json_get_str(d, "role", p->role, sizeof p->role);
	json_get_str(d, "slot", p->slot, sizeof p->slot);
	p->ok = json_bool(json_get(d, "ok"), true);
	json_get_str(d, "error", p->error, sizeof p->error);
	map_of(p, json_get(d, "before"), false);
	map_of(p, json_get(d, "after"), true);
}

static void gov_of(struct event *e, const struct json *d)
{
	e->d.gov.policy = json_get_int(d, "policy", -1);
	json_get_str(d, "before", e->d.gov.before, sizeof e->d.gov.before);
	json_get_str(d, "after", e->d.gov.after, sizeof e->d.gov.after);
}

static void maxfreq_of(struct event *e, const struct json *d)
{
	e->d.maxfreq.policy = json_get_int(d, "policy", -1);
	e->d.maxfreq.before = json_get_long(d, "before", 0);
	e->d.maxfreq.after = json_get_long(d, "after", 0);
}

static void text_of(struct event *e, const struct json *d)
{
	e->d.text.workload = json_get_int(d, "workload", 0);
	json_get_str(d, "text", e->d.text.text, sizeof e->d.text.text);
}

static void why_of(struct event *e, const struct json *d)
{
	json_get_str(d, "why", e->d.why.why, sizeof e->d.why.why);
}

static void end_of(struct event *e, const struct json *d)
{
	e->d.end.workload = json_get_int(d, "workload", 0);
	json_get_str(d, "state", e->d.end.state, sizeof e->d.end.state);
	json_get_str(d, "error", e->d.end.error, sizeof e->d.end.error);
}

static void sig_of(struct event *e, const struct json *d)
{
	e->d.sig.pid = json_get_int(d, "pid", 0);
	e->d.sig.number = json_get_int(d, "number", 0);
	e->d.sig.workload = json_get_int(d, "workload", 0);
	json_get_str(d, "signal", e->d.sig.name, sizeof e->d.sig.name);
	json_get_str(d, "role", e->d.sig.role, sizeof e->d.sig.role);
	json_get_str(d, "comm", e->d.sig.comm, sizeof e->d.sig.comm);
}

static void step_of(struct event *e, const struct json *d)
{
	e->d.step.step = json_get_int(d, "step", 0);
}

typedef void read_fn(struct event *e, const struct json *d);
static read_fn *const detail_of[EV_NKINDS] = {
#define EVENT_DETAIL_FN(id, name, mark, member) [id] = member##_of,
	EVENT_KINDS(EVENT_DETAIL_FN)
#undef EVENT_DETAIL_FN
};

void event_json_read(const struct json *j, double t_def, struct event *e)
{
	const char *name = json_str(json_get(j, "action"), "");
	event_init(e, event_kind_of(name), json_num(json_get(j, "t"), t_def), json_str(json_get(j, "label"), ""));
	if (e->kind == EV_OTHER)
		snprintf(e->other, sizeof e->other, "%s", name);
	if (!e->label[0])
		snprintf(e->label, sizeof e->label, "%s", name);
	const struct json *d = json_get(j, "detail");
	if (e->kind != EV_OTHER && json_type(d) == JSON_OBJECT)
		detail_of[e->kind](e, d);
}


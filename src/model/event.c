/* event.c - the kinds of event (EVENT_KINDS) by name and mark, and the
 * placement maps' storage inside an event. */
#include "benchtop/event.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	enum event_mark mark;
} kinds[EV_NKINDS] = {
#define EVENT_KIND_ROW(id, name, mark, member) [id] = { name, mark },
	EVENT_KINDS(EVENT_KIND_ROW)
#undef EVENT_KIND_ROW
};

const char *event_kind_name(enum event_kind k)
{
	return k > EV_OTHER && (unsigned)k < EV_NKINDS ? kinds[k].name : NULL;
}

enum event_kind event_kind_of(const char *name)
{
	for (int k = EV_OTHER + 1; name && k < EV_NKINDS; k++)
		if (!strcmp(kinds[k].name, name))
			return (enum event_kind)k;
	return EV_OTHER;
}

enum event_mark event_kind_mark(enum event_kind k)
{
	return k > EV_OTHER && (unsigned)k < EV_NKINDS ? kinds[k].mark : MARK_USER;
}

const char *event_mark_words(enum event_mark m)
{
	static const char *const words[MARK_N] = {
#define EVENT_MARK_WORDS(id, w) [id] = w,
		EVENT_MARKS(EVENT_MARK_WORDS)
#undef EVENT_MARK_WORDS
	};
	return (unsigned)m < MARK_N ? words[m] : "";
}

const char *event_name(const struct event *e)
{
	const char *n = event_kind_name(e->kind);
	return n ? n : e->other;
}

const char *event_shown(const struct event *e)
{
	return e->label[0] ? e->label : event_name(e);
}

void event_init(struct event *e, enum event_kind k, double t, const char *label)
{
	memset(e, 0, sizeof *e);
	e->t = t;
	e->kind = k;
	snprintf(e->label, sizeof e->label, "%s", label ? label : "");
}

int event_map_add(struct ev_place *p, bool after, int pid, const char *cpus)
{
	size_t len = strlen(cpus ? cpus : "") + 1;
	unsigned short *n = after ? &p->nafter : &p->nbefore;
	struct ev_proc_cpus *m = after ? p->after : p->before;
	if (p->maps_cut)
		return -ENOSPC;
	if (*n >= EVENT_MAP_MAX || p->used + len > sizeof p->pool) {
		p->maps_cut = true;
		p->nbefore = p->nafter = p->used = 0;
		return -ENOSPC;
	}
	memcpy(p->pool + p->used, cpus ? cpus : "", len);
	m[*n] = (struct ev_proc_cpus){ .pid = pid, .at = p->used };
	(*n)++;
	p->used = (unsigned short)(p->used + len);
	return 0;
}

const char *event_map_cpus(const struct ev_place *p, const struct ev_proc_cpus *m)
{
	return m->at < sizeof p->pool ? p->pool + m->at : "";
}

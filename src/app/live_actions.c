/* live_actions.c - a live run as the actions see it (actions.h): its
 * parts in the context, its clock, its events and its attach bookkeeping
 * as the context's calls; and what the run does with the reaction bits an
 * action returns. */
#include "benchtop/app.h"

#include <string.h>

static double ops_now(void *owner)
{
	return app_now(owner);
}

static void ops_event(void *owner, const struct event *e, bool phase)
{
	if (phase)
		app_event_at(owner, e->t, e->action, e->label, e->detail);
	else
		app_note_event(owner, e->action, e->label, e->detail);
}

static void ops_remember(void *owner, pid_t pid)
{
	attach_remember(owner, pid);
}

static bool ops_found_stopped(void *owner, pid_t pid)
{
	return attach_found_stopped(owner, pid);
}

static const struct action_ops live_ops = {
	.now = ops_now,
	.event = ops_event,
	.remember = ops_remember,
	.found_stopped = ops_found_stopped,
};

struct action_ctx *app_actions(struct app *a)
{
	struct action_ctx *c = &a->ac;
	c->ops = &live_ops;
	c->owner = a;
	c->hist = a->hist;
	c->snap = a->snap;
	c->vs = &a->vs;
	c->ncpu = a->ncpu;
	c->cf = a->cf;
	c->wl = a->wl;
	c->nwl = a->nwl;
	c->sp = a->sp;
	c->attached = a->attach.pids;
	c->nattached = a->attach.n;
	c->interval = a->interval;
	c->batch = a->run->batch;
	c->screen = a->dashboard;
	return c;
}

int app_action(struct app *a, const struct action *act)
{
	struct action_ctx *c = app_actions(a);
	unsigned r = action_apply(c, act);
	if (r & REACT_QUIT)
		a->quit = true;
	if (r & REACT_INTERVAL)
		app_set_interval(a, c->interval);
	if (r & REACT_WORK)
		a->all_done = false;
	a->vs.react |= r & ~(REACT_QUIT | REACT_INTERVAL | REACT_WORK);
	return c->err;
}

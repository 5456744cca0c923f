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
	app_event(owner, e, phase);
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
	/* the run's parts as they are now; what the actions own stays */
	*c = (struct action_ctx){
		.ops = &live_ops, .owner = a, .hist = a->hist, .snap = a->snap, .vs = &a->vs,
		.ncpu = a->ncpu, .cf = a->cf, .wl = a->wl, .nwl = a->nwl, .sp = a->sp,
		.attached = a->attach.pids, .nattached = a->attach.n, .interval = a->interval,
		.batch = a->run->batch, .screen = a->dashboard,
		.online = c->online, .allowed = c->allowed, .pl = c->pl, .plog = c->plog,
		.finishing = c->finishing, .paused = c->paused, .err = c->err,
	};
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

/* signal.c - F9: a signal for one process of the run (a workload's or an
 * attached one), never for a process benchtop does not track.  What was
 * sent becomes an event (a marker and a new phase), so the phase table
 * shows the run before and after it.  An attached process stopped this
 * way is continued when benchtop ends, as one it paused. */
#include "benchtop/actions.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/journal.h"

#define MAX_HELD 64

/* Attached processes benchtop stopped with F9 (continued at the end). */
static pid_t held[MAX_HELD];
static size_t nheld;

static void hold(pid_t pid, bool stopped)
{
	size_t i = 0;
	while (i < nheld && held[i] != pid)
		i++;
	if (stopped && i == nheld && nheld < MAX_HELD)
		held[nheld++] = pid;
	else if (!stopped && i < nheld)
		held[i] = held[--nheld];
}

void action_signal_release(struct action_ctx *c)
{
	for (size_t i = 0; i < nheld; i++) {
		/* out of the journal either way: a later --restore must not resume it */
		journal_note_resumed(held[i]);
		if (!(c->ops && c->ops->found_stopped && c->ops->found_stopped(c->owner, held[i])))
			kill(held[i], SIGCONT);
	}
	nheld = 0;
}

static const struct proc_sample *tracked(struct action_ctx *c, pid_t pid)
{
	const struct snapshot *s = history_last(c->hist);
	for (int i = 0; s && i < s->nproc; i++)
		if (s->procs[i].pid == pid && s->procs[i].alive)
			return &s->procs[i];
	return NULL;
}

/* The status line says what was done: the reaction bits of that. */
static unsigned say(struct action_ctx *c, int err)
{
	c->err = err;
	return REACT_STATUS | REACT_REDRAW | (err ? REACT_FAILED : 0);
}

unsigned action_signal(struct action_ctx *c, const struct action *act)
{
	const struct proc_sample *p = tracked(c, (pid_t)act->pid);
	const char *name = act->text[0] ? act->text : "signal";
	if (!p) {
		snprintf(c->vs->status, sizeof c->vs->status, "PID %d is not a running process of this run: no %s sent",
		         act->pid, name);
		return say(c, -ESRCH);
	}
	bool attached = p->workload == 0;
	if (attached) {
		if (c->ops && c->ops->remember)
			c->ops->remember(c->owner, p->pid);
		if (act->sig == SIGSTOP)
			journal_note_paused(p->pid);
	}
	char comm[sizeof p->comm], role[sizeof p->role];
	snprintf(comm, sizeof comm, "%s", p->comm);
	snprintf(role, sizeof role, "%s", p->role);
	int wl = p->workload;
	if (kill(p->pid, act->sig) < 0) {
		int e = errno;
		snprintf(c->vs->status, sizeof c->vs->status, "cannot send %s to PID %d (%s): %s", name,
		         (int)act->pid, comm, strerror(e));
		return say(c, -e);
	}
	if (attached && (act->sig == SIGSTOP || act->sig == SIGCONT)) {
		hold(act->pid, act->sig == SIGSTOP);
		if (act->sig == SIGCONT)
			journal_note_resumed(act->pid);
	}
	char label[64];
	snprintf(label, sizeof label, "%s %s %d", name, comm, act->pid);
	struct event e;
	event_init(&e, EV_SIGNAL, 0, label);
	e.d.sig = (struct ev_sig){ .pid = act->pid, .number = act->sig, .workload = wl };
	snprintf(e.d.sig.name, sizeof e.d.sig.name, "%s", name);
	snprintf(e.d.sig.role, sizeof e.d.sig.role, "%s", role);
	snprintf(e.d.sig.comm, sizeof e.d.sig.comm, "%s", comm);
	unsigned r = action_event(c, &e, true);
	if (wl > 0)
		snprintf(c->vs->status, sizeof c->vs->status, "sent %s to PID %d (%s, the %s of workload %d)", name,
		         act->pid, comm, role, wl);
	else
		snprintf(c->vs->status, sizeof c->vs->status, "sent %s to attached PID %d (%s)", name, act->pid, comm);
	return say(c, 0) | r;
}

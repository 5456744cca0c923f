/* actions.h - applying an action (a key, an --at entry) to a run: one
 * table of {action, function} (action.c) over a small context.  The
 * context holds what actions read and change (the feed's newest sample,
 * the placement rules, cpufreq, the workloads, the status line); what they
 * ask of the loop comes back as reaction bits (enum reaction).  The few
 * calls into the run (the clock, recording an event, attach bookkeeping)
 * and the kernel's affinity calls go through struct action_ops, so the
 * actions run against a fake feed in the unit tests, with no terminal. */
#ifndef BENCHTOP_ACTIONS_H
#define BENCHTOP_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "benchtop/action.h"
#include "benchtop/cli.h"
#include "benchtop/model.h"
#include "benchtop/view.h"

struct placement_rules;
struct cpufreq;
struct workload;
struct sampler;

struct action_ops {
	/* seconds since the run started */
	double (*now)(void *owner);
	/* record e (history, record file, batch lines); phase: it opens a
	 * phase (else it is noted, as a workload's end is) */
	void (*event)(void *owner, const struct event *e, bool phase);
	/* before benchtop first changes pid (attach mode keeps how it was
	 * found), and whether it was stopped when found; NULL: nothing, never */
	void (*remember)(void *owner, pid_t pid);
	bool (*found_stopped)(void *owner, pid_t pid);
	/* the kernel's affinity calls (affinity.h); NULL: the real ones */
	int (*set_affinity)(pid_t pid, const unsigned char *mask, int ncpu, char *msg, size_t len);
	int (*get_affinity)(pid_t pid, unsigned char *mask, int ncpu);
};

/* A process benchtop placed: the CPUs it was given (ncpu bytes, NULL
 * unknown), and whether losing that placement was said. */
struct placed {
	pid_t pid;
	bool reported;
	unsigned char *mask;
};

struct action_ctx {
	const struct action_ops *ops;
	void *owner;                 /* passed to every op */
	/* the feed: the run's history (the newest sample, events, phases)
	 * and the sample placements are checked against (the newest, or the
	 * one being taken) */
	struct history *hist;
	const struct snapshot *snap;
	struct view_state *vs;       /* selection and the status line */
	int ncpu;
	unsigned char *online;       /* CPUs that are online */
	unsigned char *allowed;      /* CPUs placements use: --cpus, else online */
	struct placement_rules *pl;  /* rules on the roles of workloads (placement.h) */
	struct cpufreq *cf;          /* NULL: no cpufreq */
	struct workload **wl;        /* the run's workloads (pause, stop, restart) */
	int nwl;
	struct sampler *sp;          /* a restarted workload's sampler */
	const pid_t *attached;       /* --attach PIDs (pause stops them too) */
	size_t nattached;
	double interval;             /* sample interval: + and - set it (REACT_INTERVAL) */
	bool batch;                  /* failures also go to standard error */
	bool screen;                 /* a dashboard is drawn (help, theme) */
	bool finishing;              /* the run is ending: no rule is applied again */
	bool paused;
	int err;                     /* the last action: 0, or -errno why it failed */
	/* the processes benchtop placed, to say a lost placement once; how
	 * many the last placement could not be applied to, and why */
	struct {
		struct placed *v;
		size_t n, cap;
		int failed;
		int err;
		char error[200];
	} plog;
};

/* Apply act: the table's function for act->id.  Returns the reaction
 * bits; c->err is 0 or -errno (REACT_FAILED set then), c->vs->status says
 * what was done or why not. */
unsigned action_apply(struct action_ctx *c, const struct action *act);
/* The action an --at entry asks for (every workload, as the at says). */
void action_of_at(const struct at_action *at, struct action *act);
/* After a sample: re-apply the placement rules to every tracked process
 * that does not match. */
unsigned action_enforce_placement(struct action_ctx *c);
/* The placement workload w's (1..nwl; 0 attached) command root starts with. */
const unsigned char *action_start_mask(struct action_ctx *c, int w);
/* The mask a new process of workload w in slot gets before it runs (a
 * workload_placer; ctx is the struct action_ctx). */
const unsigned char *action_placer(void *ctx, int w, const char *slot);
/* F9 (signal.c): send act->sig to act->pid, a running process of the
 * run; an event and a new phase.  At exit, attached processes it stopped
 * are continued. */
unsigned action_signal(struct action_ctx *c, const struct action *act);
void action_signal_release(struct action_ctx *c);
/* Record e (its kind, label and details filled; event_init) now: its t
 * set from ops->now, then ops->event; phase: it opens a phase.  Returns
 * REACT_EVENT | REACT_REDRAW. */
unsigned action_event(struct action_ctx *c, struct event *e, bool phase);
/* Free what the context holds (the rules, the placed list, the CPU masks). */
void action_ctx_free(struct action_ctx *c);

#endif

/* app.h - one run of benchtop: the state the poll loop and the actions
 * share.  Internal to src/app/ (run.c, run_setup.c, live_view.c,
 * live_metrics.c, action.c, attach.c); exp/ and main.c see only run.h
 * (app_run, app_main) and restore.h.  The run's writers see it through
 * struct run_out (record.h). */
#ifndef BENCHTOP_APP_H
#define BENCHTOP_APP_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "benchtop/action.h"
#include "benchtop/actions.h"
#include "benchtop/cli.h"
#include "benchtop/json.h"
#include "benchtop/model.h"
#include "benchtop/record.h"
#include "benchtop/restore.h"
#include "benchtop/run.h"
#include "benchtop/outfile.h"
#include "benchtop/view.h"
#include "benchtop/workload.h"

struct workload;
struct sampler;
struct cgroup;
struct cpufreq;
struct loop;
struct app_metrics;

struct app {
	struct run *run;
	int ncpu;
	char scratch[4096];
	bool scratch_made;
	struct workload **wl;
	int nwl;
	const char **wl_names;
	enum wl_state *wl_seen;      /* each workload's state at the last tick */
	struct sampler *sp;
	struct cpufreq *cf;
	struct history *hist;
	struct snapshot *snap;
	FILE *rec;                   /* -o FILE (recs.fp or an experiment's), or NULL */
	struct outstream recs;       /* -o FILE of a run of its own (outfile.h) */
	bool rec_borrowed;           /* rec belongs to an experiment: no start/end, not closed */
	double t_offset;             /* added to t in records (an experiment's cells) */
	int cell;                    /* the experiment cell, 0 outside experiments */
	FILE *out;                   /* batch lines (stdout) */
	bool dashboard;
	double t0, last_tick;
	struct loop *loop;           /* ticks, signals, the terminal (loop.h) */
	bool quit;
	int quit_signal;             /* SIGINT/SIGTERM/SIGHUP that asked to quit */
	bool term_lost;              /* the dashboard's terminal went away: no more drawing */
	bool out_lost;               /* standard output was closed (batch): nothing more to it */
	struct view_state vs;        /* selection, units, status, reactions (view.h) */
	double interval;
	size_t next_at;              /* next --at entry to run (sorted by time) */
	/* What actions (keys, --at) read and change: the placement rules,
	 * the processes placed, the CPUs, pause (actions.h; live_actions.c
	 * fills the rest of it from the run before each action). */
	struct action_ctx ac;
	bool all_done;               /* every workload ended (dashboard waits for q) */
	char status_seen[256];       /* the status text as it was last drawn ... */
	double status_t;             /* ... and since when (it expires) */
	bool keyed;                  /* a key came (the first-step hint is gone) */
	/* each policy's governor and limits at the end of the run, kept when
	 * they are restored before the summary (npol_end 0: not restored yet) */
	struct policy_end *pol_end;
	int npol_end;
	bool in_tick;                /* events from inside a tick follow its sample */
	double self_cpu_last;
	double ended;                /* t of the end record */
	double prep_sync, prep_drop; /* --drop-caches: seconds of the sync and the drop before t = 0, -1 none */
	struct {
		int n;               /* samples that came late (run.c: note_late) */
		double worst, said;  /* the latest by; t of the last one said */
	} late;
	double membw;                /* memcpy bytes/s of this boot (ceiling.h), 0 until known */
	struct cgroup *cg;           /* the run's cgroup (its workloads' groups inside), or NULL */
	struct {
		pid_t *pids;         /* --attach PIDs */
		size_t n;
		struct attach_state *st;  /* as found, to leave them so (attach.c) */
	} attach;
	struct wl_spec attach_spec;  /* workload 1 in attach mode: the attached processes */
	bool action_failed;          /* an --at placement the machine refused (exit 3) */
	char *governors[32];         /* for the G menu (NULL-terminated) */
	struct app_metrics *metrics; /* --metrics / --metrics-listen, or NULL */
};

/* Actions (live_actions.c): apply act to the run through the one table
 * (actions.h), do what its reaction bits ask of the run (quit, a new
 * interval, work going on again) and leave the screen's in a->vs.react
 * for the draw pass.  Returns 0 or -errno. */
int app_action(struct app *a, const struct action *act);
/* The run's action context, its parts brought up to date. */
struct action_ctx *app_actions(struct app *a);
/* Add an event now (t from the monotonic clock) and start a new phase. */
void app_event(struct app *a, const char *action, const char *label, const char *detail_json);
void app_event_at(struct app *a, double t, const char *action, const char *label,
                  const char *detail_json);
/* An event that does not start a phase (recorded and drawn all the same). */
void app_note_event(struct app *a, const char *action, const char *label, const char *detail_json);
double app_now(const struct app *a);   /* seconds since start */
void app_set_interval(struct app *a, double seconds);

/* Attach (attach.c). */
/* May benchtop attach to pid?  0; -EINVAL and msg for PID 1 and kernel
 * threads (exit 2); -ESRCH when there is no such process. */
int attach_check(pid_t pid, char *msg, size_t len);
/* Note how pid was when found (affinity, stopped or not), once, before
 * benchtop first changes it.  Only in attach mode. */
void attach_remember(struct app *a, pid_t pid);
bool attach_found_stopped(const struct app *a, pid_t pid);
/* At exit: resume what benchtop paused (not what was found stopped) and,
 * unless --leave-placement, put back each re-pinned process's affinity. */
void attach_restore(struct app *a);
void attach_free(struct app *a);

#endif

/* run.c - one run: set up, the poll loop (tick timer, signals, keys), and
 * an orderly end whatever way it comes (end of work, duration, q, signal).
 *
 * Data flows one way: sampler -> snapshot -> history -> views and records;
 * actions (keys, --at) flow back through action.c. */
#include "benchtop/app.h"
#include "app_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/affinity.h"
#include "benchtop/cgroup.h"
#include "benchtop/clock.h"
#include "benchtop/proc.h"
#include "benchtop/cpufreq.h"
#include "benchtop/priority.h"
#include "benchtop/cpulist.h"
#include "benchtop/drive.h"
#include "benchtop/ceiling.h"
#include "benchtop/loop.h"
#include "benchtop/placement.h"
#include "benchtop/ptree.h"
#include "benchtop/sample.h"
#include "benchtop/theme.h"
#include "benchtop/ui.h"
#include "benchtop/units.h"
#include "benchtop/workload.h"
#include "benchtop/xalloc.h"


#define STATUS_SECONDS 6
#define ALL_DONE_TEXT "all workloads have ended: r restarts the selected one, q quits and prints the summary"
#define FIRST_STEP_TEXT "try: \xe2\x86\x91\xe2\x86\x93 select a process, 0-9 pin it to a CPU, s spread"

double app_mono(void)
{
	return clock_mono();
}

double app_now(const struct app *a)
{
	return app_mono() - a->t0;
}

static double cpu_self(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

void app_event(struct app *a, const struct event *e, bool phase)
{
	if (!a->in_tick && phase) {
		for (int i = 0; i < a->nwl; i++)
			history_close_phase_bytes(a->hist, i, workload_bytes_now(a->wl[i]));
	}
	if (!phase) {
		history_note_event(a->hist, e);
	} else {
		history_add_event(a->hist, e);
		if (a->cf)
			cpufreq_mark(a->cf);
	}
	if (a->rec) {
		struct event *r = xmalloc(sizeof *r);
		*r = *e;
		r->t += a->t_offset;
		record_event(a->rec, r);
		free(r);
	}
	if (a->out && a->run->batch && a->run->format == FMT_JSON)
		record_event(a->out, e);
	else if (a->out && a->run->batch && a->run->format == FMT_TEXT)
		fprintf(a->out, "# %.2f s: %s\n", e->t, e->label);
}

/* Put the governors and limits back now (before the summary), keeping
 * what the run ended under, so the summary's cpufreq table shows what was
 * restored and, where it differed, what the run ran under. */
static void restore_policies_for_summary(struct app *a)
{
	int n = a->cf ? cpufreq_npolicies(a->cf) : 0;
	if (n == 0 || a->npol_end)
		return;
	a->pol_end = xcalloc((size_t)n, sizeof *a->pol_end);
	for (int p = 0; p < n; p++) {
		const char *g = cpufreq_policy_governor(a->cf, p);
		snprintf(a->pol_end[p].governor, sizeof a->pol_end[p].governor, "%s", g ? g : "");
		a->pol_end[p].min_khz = cpufreq_policy_min(a->cf, p);
		a->pol_end[p].max_khz = cpufreq_policy_max(a->cf, p);
	}
	a->npol_end = n;
	cpufreq_restore(a->cf);
}

/* The run as its writers see it (record.h). */
static struct run_out run_out_of(const struct app *a)
{
	return (struct run_out){
		.run = a->run, .ncpu = a->ncpu, .interval = a->interval, .units = a->vs.units,
		.wl = a->wl, .nwl = a->nwl, .hist = a->hist, .cf = a->cf,
		.rec = a->rec, .t_offset = a->t_offset, .cell = a->cell, .membw = a->membw,
		.prep_sync = a->prep_sync, .prep_drop = a->prep_drop, .ended = a->ended,
		.attached = a->attach.pids, .nattached = a->attach.n,
		.scratch = a->scratch_made ? a->scratch : NULL,
		.pol_end = a->pol_end, .npol_end = a->npol_end,
	};
}

/* ---- children ---------------------------------------------------------- */

static struct workload *owner_of(struct app *a, pid_t pid)
{
	for (int i = 0; i < a->nwl; i++)
		if (workload_owns(a->wl[i], pid))
			return a->wl[i];
	return NULL;
}

/* The workload a process benchtop is about to reap belongs to: one it
 * started, one the sampler tracks (an orphan handed to benchtop, its
 * subreaper), or one its cgroup holds (an orphan that lived and ended
 * between two samples); NULL when none. */
static struct workload *reaped_owner(struct app *a, pid_t pid)
{
	struct workload *w = owner_of(a, pid);
	if (w)
		return w;
	int id = sampler_owner(a->sp, pid);
	if (id > 0 && id <= a->nwl)
		return a->wl[id - 1];
	for (int i = 0; i < a->nwl; i++) {
		const struct cgroup *g = workload_cgroup(a->wl[i]);
		if (g && cgroup_holds(g, pid))
			return a->wl[i];
	}
	return NULL;
}

/* Reap pid, a zombie of benchtop's: what its zombie's io says its tree
 * read settles a command's bytes, its CPU (wait4's) goes to its workload. */
static bool reap_one(struct app *a, pid_t pid, int flags)
{
	double t_exit = app_now(a);  /* before the look at its zombie */
	struct workload *w = reaped_owner(a, pid);
	bool root = w && workload_owns(w, pid);
	/* (benchtop's own sync helper is not of the command's tree) */
	if (w && !strcmp(workload_kind(w), "cmd") && !workload_is_helper(w, pid))
		sampler_note_exit(a->sp, pid, workload_id(w));
	int st;
	struct rusage ru;
	if (wait4(pid, &st, flags, &ru) <= 0)
		return false;
	if (root) {
		workload_reap(w, pid, st, &ru, t_exit);
	} else if (w) {
		workload_add_rusage(w, &ru);
		workload_note_reaped(w, t_exit);
	}
	return true;
}

static void reap_children(struct app *a)
{
	for (;;) {
		siginfo_t si = { 0 };
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
			break;
		if (!reap_one(a, si.si_pid, WNOHANG))
			break;
	}
	/* the last process of a tree may have been an orphan, or someone
	 * else's child */
	for (int i = 0; i < a->nwl; i++)
		workload_tree_check(a->wl[i], app_now(a));
}

static bool any_running(struct app *a)
{
	for (int i = 0; i < a->nwl; i++)
		if (workload_running(a->wl[i]))
			return true;
	return false;
}

static bool attached_alive(struct app *a)
{
	for (size_t i = 0; i < a->attach.n; i++)
		if (kill(a->attach.pids[i], 0) == 0 || errno == EPERM)
			return true;
	return false;
}

/* Reap children as they end (woken by SIGCHLD, never sleeping) until no
 * workload runs or the deadline passes. */
static void reap_until(struct app *a, double deadline)
{
	reap_children(a);
	while (any_running(a) && loop_wait_signal(a->loop, SIGCHLD, deadline))
		reap_children(a);
}

/* Has benchtop any child?  Without one it has no descendant either: an
 * orphan is handed to benchtop (the subreaper), any other has a parent
 * below it.  So a run with nothing left skips the scan of every process. */
static bool has_children(void)
{
	siginfo_t si = { 0 };
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

/* Stop every workload: SIGTERM, a short grace, then SIGKILL; reap all,
 * including orphans that were handed to benchtop as their subreaper. */
static void stop_all(struct app *a)
{
	for (int i = 0; i < a->nwl; i++)
		workload_stop(a->wl[i]);
	reap_until(a, app_mono() + 1.5);
	for (int i = 0; i < a->nwl; i++)
		if (workload_running(a->wl[i]))
			workload_kill(a->wl[i]);
	reap_until(a, app_mono() + 3);
	/* Whatever is left of the workloads' trees, wherever it went (setsid,
	 * double fork): the run's cgroup ends it all at once; without one,
	 * every descendant (orphans were handed to benchtop, their
	 * subreaper) is killed, again while any is left. */
	double deadline = app_mono() + 3;
	for (;;) {
		int left = a->cg ? (cgroup_kill(a->cg), cgroup_populated(a->cg) == 1)
		                 : has_children() && ptree_signal_descendants(getpid(), SIGKILL) > 0;
		siginfo_t si;
		pid_t p;
		for (;;) {
			si.si_pid = 0;
			p = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT);
			if (p < 0 || si.si_pid == 0 || !reap_one(a, si.si_pid, WNOHANG))
				break;
		}
		if ((!left && p < 0) || app_mono() >= deadline)
			break;  /* none left (ECHILD), or the deadline passed */
		/* children left: wait for the next to end; none but the group
		 * still populated: look again shortly */
		loop_wait_signal(a->loop, SIGCHLD, p < 0 ? fmin(app_mono() + 0.005, deadline) : deadline);
	}
}

/* ---- ticks ------------------------------------------------------------- */

/* A workload that finished and starts again (--loop, the default
 * workload): a command's next run; an engine only when its files gave
 * nothing to loop over. */
static bool will_restart(struct app *a, int i)
{
	struct workload *w = a->wl[i];
	const struct wl_spec *s = workload_spec(w);
	return (a->run->loop || s->is_default) && workload_state(w) == WLS_DONE &&
	       !workload_stop_requested(w) && !a->quit && !a->ac.finishing;
}

/* Children are reaped whenever SIGCHLD arrives, so an end is noticed by
 * comparing with the state the previous tick saw.  Only an end for good
 * is an event: a loop's next pass is counted, not marked. */
static void note_workload_ends(struct app *a)
{
	for (int i = 0; i < a->nwl; i++) {
		enum wl_state s = workload_state(a->wl[i]);
		enum wl_state before = a->wl_seen[i];
		a->wl_seen[i] = s;
		/* Workloads benchtop itself stops at the end are not events,
		 * nor a looping workload's pass that ends as the run quits:
		 * it would have been restarted, had the run gone on. */
		bool last_pass = s == WLS_DONE && a->quit && !workload_stop_requested(a->wl[i]) &&
		                 (a->run->loop || workload_spec(a->wl[i])->is_default);
		if ((s == WLS_DONE || s == WLS_FAILED) && before != s && !a->ac.finishing &&
		    !last_pass && !will_restart(a, i)) {
			char label[64];
			const char *word = s == WLS_FAILED ? "failed" :
			                   workload_stop_requested(a->wl[i]) ? "stopped" : "done";
			snprintf(label, sizeof label, "w%d %s", i + 1, word);
			/* stamped when it ended, not when the tick noticed */
			double t = workload_ended_at(a->wl[i]);
			const struct phase *cur = history_phase(a->hist, history_nphases(a->hist) - 1);
			if (t < cur->from || t > app_now(a))
				t = app_now(a);
			struct event e;
			event_init(&e, EV_WORKLOAD_END, t, label);
			e.d.end.workload = i + 1;
			snprintf(e.d.end.state, sizeof e.d.end.state, "%s", word);
			snprintf(e.d.end.error, sizeof e.d.end.error, "%s", workload_error(a->wl[i]));
			/* stopped by the user (x): their action, so a phase */
			app_event(a, &e, workload_stop_requested(a->wl[i]));
		}
	}
}

static void restart_finished(struct app *a)
{
	for (int i = 0; i < a->nwl; i++) {
		struct workload *w = a->wl[i];
		if (!will_restart(a, i))
			continue;
		char msg[256];
		if (workload_start(w, a->sp, action_start_mask(&a->ac, i + 1), a->ncpu, app_now(a), msg, sizeof msg))
			snprintf(a->vs.status, sizeof a->vs.status, "%s", msg);
	}
}

/* Batch lines go to standard output; when its reader has gone (EPIPE:
 * `benchtop -b ... | head -1`) the run ends in order, as on q, and what
 * is left to say goes to standard error. */
static void check_output(struct app *a)
{
	if (!a->out || a->out_lost)
		return;
	if (fflush(a->out) == 0 && !ferror(a->out))
		return;
	int e = errno;
	a->out_lost = true;
	a->out = NULL;
	if (!a->quit) {
		a->quit = true;
		fprintf(stderr, "benchtop: standard output: %s: ending the run\n",
		        e == EPIPE ? "closed by its reader (broken pipe)" : strerror(e));
	}
}

/* A sample more than half an interval after its interval ended: the
 * machine did not run benchtop in time.  The sample says by how much;
 * batch runs say so on standard error (the first time, then at most every
 * 10 s, and the count at the end); the dashboard's header shows the
 * interval widened (the status line stays the user's). */
static void note_late(struct app *a, struct snapshot *s)
{
	double over = s->dt - a->interval;
	s->late = over > a->interval / 2 && over > 0.02 && !a->ac.finishing ? over : 0;
	if (!s->late)
		return;
	a->late.n++;
	if (s->late > a->late.worst)
		a->late.worst = s->late;
	if (!a->dashboard && (a->late.n == 1 || s->t - a->late.said >= 10)) {
		int n = fprintf(stderr, "benchtop: the sample at %.2f s came %.2f s late (benchtop was not run in time)\n",
		                s->t, s->late);
		fflush(stderr);
		if (n > 0)  /* benchtop's words, not a command's output */
			sampler_own_output(a->sp, (uint64_t)n);
		a->late.said = s->t;
	}
}

static void tick_body(struct app *a)
{
	double now = app_mono();
	double cpu0 = cpu_self();
	struct snapshot *s = a->snap;
	s->t = now - a->t0;
	s->dt = now - a->last_tick;
	a->last_tick = now;
	note_late(a, s);
	reap_children(a);
	sampler_tick(a->sp, s, now);
	/* s->dt: the measured time between this read of the processes and
	 * the previous one (every rate is over it), wider than the interval
	 * when a tick could not finish in time */
	if (a->cf)
		cpufreq_sample(a->cf, s, s->dt);
	for (int i = 0; i < a->nwl; i++)
		workload_poll(a->wl[i], &s->wls[i], now, s->dt);
	for (int i = 0; i < s->nproc; i++) {
		struct proc_sample *p = &s->procs[i];
		if (p->workload >= 1 && p->workload <= a->nwl)
			workload_proc_bytes(a->wl[p->workload - 1], p->pid, &p->bytes);
	}
	double cpu1 = cpu_self();
	s->self_tick_us = (cpu1 - cpu0) * 1e6;
	s->self_cpu_pct = s->dt > 0 ? (cpu1 - a->self_cpu_last) / s->dt * 100 : 0;
	a->self_cpu_last = cpu1;
	history_push(a->hist, s);
	app_metrics_tick(a);
	struct run_out o = run_out_of(a);
	if (a->rec)
		record_sample(&o, a->rec, s);
	if (a->run->batch && a->out)
		batch_line(&o, a->out, s);
	/* After the sample: what a workload moved up to its end belongs to
	 * the phase before its end event. */
	note_workload_ends(a);
	if (a->rec && a->rec_borrowed)
		fflush(a->rec);  /* the experiment checks its own record */
	else if (a->rec)
		app_check_record(a);
	check_output(a);
	restart_finished(a);
}

static void tick(struct app *a)
{
	a->in_tick = true;
	tick_body(a);
	a->in_tick = false;
	/* An action after the snapshot, not part of sampling: the rules the
	 * sample shows broken are applied again. */
	a->vs.react |= action_enforce_placement(app_actions(a));
}

/* ---- set up and tear down ------------------------------------------------ */

void app_set_interval(struct app *a, double iv)
{
	double next = a->last_tick + iv;
	a->interval = iv;
	if (next < app_mono())
		next = app_mono();
	loop_grid(a->loop, next, iv);
}

/* ---- the loop ------------------------------------------------------------ */

static void handle_signals(struct app *a, const struct loop_wake *w)
{
	for (int i = 0; i < w->nsig; i++) {
		switch (w->sig[i]) {
		case SIGCHLD:
			reap_children(a);
			break;
		case SIGWINCH:
			if (a->dashboard) {
				ui_resize();
				history_grow(a->hist, app_history_need());  /* a wider graph */
			}
			break;
		default:
			a->quit = true;
			a->quit_signal = w->sig[i];
		}
	}
}

static void run_due_at(struct app *a)
{
	double t = app_now(a), nofreq_t = -1;
	while (a->next_at < a->run->nat && a->run->at[a->next_at].t <= t + 1e-6) {
		const struct at_action *at = &a->run->at[a->next_at++];
		struct action act;
		action_of_at(at, &act);
		if (at->kind == AT_PAUSE && a->ac.paused)
			continue;
		/* a lesson's caption right after a governor step that this
		 * machine cannot take says so */
		if (at->kind == AT_CAPTION && nofreq_t == at->t)
			snprintf(act.text, sizeof act.text, "(not here: no cpufreq) %s", at->arg);
		/* a failure, or policies left alone by a change that was made;
		 * a placement the machine refused fails the run (exit 3), a
		 * governor that could not be set is said and the run goes on */
		bool gov = act.id == ACT_GOV_SET || act.id == ACT_MAXFREQ;
		int arc = app_action(a, &act);
		if (arc == -ENODEV && gov)
			nofreq_t = at->t;
		if (arc < 0 && (act.id == ACT_PIN_LIST || act.id == ACT_PACK || act.id == ACT_FREE ||
		                act.id == ACT_SPREAD))
			a->action_failed = true;
		if ((arc < 0 || (gov && a->cf && cpufreq_left_alone(a->cf))) && a->run->batch)
			fprintf(stderr, "benchtop: --at %g: %s\n", at->t, a->vs.status);
	}
}

static int poll_timeout(struct app *a)
{
	double t = app_now(a);
	double next = -1;
	if (a->next_at < a->run->nat)
		next = a->run->at[a->next_at].t - t;
	if (a->run->duration > 0) {
		double d = a->run->duration - t;
		if (next < 0 || d < next)
			next = d;
	}
	if (next < 0)
		return next == -1 ? -1 : 0;
	return (int)ceil(next * 1000);
}

static bool finished(struct app *a)
{
	if (a->quit)
		return true;
	if (a->run->duration > 0 && app_now(a) >= a->run->duration - 1e-4)
		return true;
	if (a->run->mode == MODE_ATTACH)
		return !attached_alive(a);
	/* --loop and the default workload go on while any workload runs or
	 * is about to start again; a failed one is not started again */
	for (int i = 0; i < a->nwl; i++)
		if (workload_running(a->wl[i]) || will_restart(a, i))
			return false;
	/* --loop with nothing left to start: every workload failed (or was
	 * stopped), so the run would only wait for -t or forever */
	if (a->run->loop && a->run->batch && !a->loop_over) {
		a->loop_over = true;
		fprintf(stderr, "benchtop: --loop: no workload is left to run: ending the run\n");
	}
	/* The work is over: the last phase ends with it, however long the
	 * run stays on screen.  In the dashboard the finished run stays on
	 * screen to be read (and restarted with r) until q; batch mode ends
	 * here. */
	if (!a->all_done && a->nwl > 0) {
		double end = 0;
		for (int i = 0; i < a->nwl; i++)
			end = fmax(end, workload_ended_at(a->wl[i]));
		if (end > 0)
			history_work_ended(a->hist, end);
	}
	if (a->dashboard) {
		if (!a->all_done)
			snprintf(a->vs.status, sizeof a->vs.status, "%s", ALL_DONE_TEXT);
		a->all_done = true;
		return false;
	}
	return true;
}

/* The status line says what the last key or action did for a few
 * seconds, then clears; what stays true (the run has ended) stays.
 * Before the first key it suggests the first step. */
static void status_age(struct app *a)
{
	char *st = a->vs.status;
	double now = app_mono();
	if (strcmp(st, a->status_seen) || (a->vs.react & REACT_STATUS)) {
		snprintf(a->status_seen, sizeof a->status_seen, "%s", st);
		a->status_t = now;
	} else if (st[0] && now - a->status_t > STATUS_SECONDS &&
	           !(a->all_done && !strcmp(st, ALL_DONE_TEXT)) && strcmp(st, FIRST_STEP_TEXT)) {
		st[0] = a->status_seen[0] = 0;
	}
	if (!st[0] && !a->keyed && !a->all_done && a->nwl > 0)
		snprintf(st, sizeof a->vs.status, "%s", FIRST_STEP_TEXT);
	else if (a->keyed && !strcmp(st, FIRST_STEP_TEXT))
		st[0] = 0;
}

/* The one draw pass: the reactions the actions since the last one left
 * (the help and the theme are done as their keys come), then the screen. */
static void draw(struct app *a)
{
	status_age(a);
	a->vs.react = 0;
	struct ui_view v;
	app_view_of(a, &v);
	ui_draw(&v);
}

static void key_apply(void *ctx, const struct action *act)
{
	app_action(ctx, act);
}

static void key_view(void *ctx, struct ui_view *v)
{
	app_view_of(ctx, v);
}

/* Returns whether anything was read from the terminal. */
static bool handle_keys(struct app *a)
{
	struct ui_view v;
	bool any = ui_keys_drain(&v, &a->vs, &a->quit, key_apply, key_view, a);
	a->keyed |= any;
	return any;
}

/* The terminal went away (hang-up, end of file, EIO) without a SIGHUP
 * reaching benchtop (under make, the terminal's session leader is make):
 * the run ends as on SIGHUP, and the terminal is never polled again. */
static void terminal_lost(struct app *a)
{
	a->term_lost = true;
	loop_set_term(a->loop, -1);
	a->quit = true;
	if (!a->quit_signal)
		a->quit_signal = SIGHUP;
	fprintf(stderr, "benchtop: the terminal has gone: ending the run\n");
}

/* The metrics listener is served after every wake-up (drive.c). */
static void scrape_ready(void *ctx, int fd, short revents)
{
	(void)ctx;
	(void)fd;
	(void)revents;
}

/* The live feed, as the driver calls it. */
static bool feed_done(void *ctx)
{
	return finished(ctx);
}

static int feed_timeout(void *ctx)
{
	return app_metrics_timeout(ctx, poll_timeout(ctx));
}

static void feed_serve(void *ctx)
{
	app_metrics_serve(ctx);
}

static void feed_wake(void *ctx, const struct loop_wake *w)
{
	struct app *a = ctx;
	handle_signals(a, w);
	/* a --loop command's next run starts as soon as its last is
	 * reaped, not at the next tick: the loop runs back to back */
	restart_finished(a);
	if (w->timer)
		tick(a);
	run_due_at(a);
}

static bool feed_keys(void *ctx)
{
	return handle_keys(ctx);
}

static void feed_lost(void *ctx)
{
	terminal_lost(ctx);
}

static void feed_draw(void *ctx)
{
	struct app *a = ctx;
	if (!a->term_lost)
		draw(a);
}

static void loop(struct app *a)
{
	loop_set_term(a->loop, a->dashboard ? ui_fd() : -1);
	if (app_metrics_fd(a) >= 0)
		loop_add_fd(a->loop, app_metrics_fd(a), POLLIN, scrape_ready, a);
	struct feed f = { a, a->loop, a->dashboard, feed_done, feed_timeout, feed_serve, feed_wake,
	                  feed_keys, feed_lost, feed_draw };
	drive(&f);
}

static void finish(struct app *a)
{
	a->ac.finishing = true;
	/* Attached processes go on after benchtop, as benchtop found them. */
	attach_restore(a);
	stop_all(a);
	/* One last sample after every child is reaped, so totals are final. */
	a->snap->dt = app_mono() - a->last_tick;
	tick(a);
	a->ended = app_now(a);
	/* The ceiling is measured after the last sample, when no phase runs. */
	if (!(a->membw > 0))
		a->membw = ceiling_measure();
	struct run_out o = run_out_of(a);
	if (a->rec && !a->rec_borrowed)
		record_end(&o, a->rec);
	if (a->out && a->run->batch && a->run->format == FMT_JSON)
		record_end(&o, a->out);
	/* Governors are restored in teardown, after the summary has said
	 * what the run ended under. */
}

static int exit_status(struct app *a)
{
	for (int i = 0; i < a->nwl; i++)
		if (workload_state(a->wl[i]) == WLS_FAILED)
			return 1;
	/* an --at placement the machine refused (a pin without permission) */
	return a->action_failed ? 3 : 0;
}

static void print_failures(struct app *a)
{
	for (int i = 0; i < a->nwl; i++) {
		const char *e = workload_error(a->wl[i]);
		if (workload_state(a->wl[i]) == WLS_FAILED && e[0])
			fprintf(stderr, "benchtop: workload %d (%s) failed: %s\n", i + 1,
			        workload_name(a->wl[i]), e);
	}
}

int app_main(struct run *run)
{
	return app_run(run, NULL);
}

/* Each CPU's time at each frequency over the run, for an experiment. */
static void fill_residency(struct app *a, struct app_result *res)
{
	if (!a->cf || cpufreq_source(a->cf) == FREQ_NONE)
		return;
	res->ncpu_res = a->ncpu < APP_RES_CPUS ? a->ncpu : APP_RES_CPUS;
	for (int c = 0; c < res->ncpu_res; c++) {
		const long *khz;
		const double *secs;
		size_t n = cpufreq_residency(a->cf, c, false, &khz, &secs);
		res->mean_khz[c] = cpufreq_mean_khz(a->cf, c, false);
		res->nfreq[c] = n < APP_RES_FREQS ? (int)n : APP_RES_FREQS;
		for (int k = 0; k < res->nfreq[c]; k++) {
			res->khz[c][k] = khz[k];
			res->secs[c][k] = secs[k];
		}
	}
}

/* Totals of each workload, for an experiment's table. */
/* The roles of the last sample with live processes and the CPUs each
 * was allowed, busy roles first ("reader 0, writer 1, idle 0"). */
static void placed_text(const struct app *a, char *buf, size_t len)
{
	const struct snapshot *s = NULL;
	for (size_t i = history_len(a->hist); i-- > 0 && !s;) {
		const struct snapshot *h = history_at(a->hist, i);
		for (int k = 0; k < h->nproc && !s; k++)
			if (h->procs[k].alive && h->procs[k].workload > 0)
				s = h;
	}
	size_t n = 0;
	buf[0] = 0;
	for (int pass = 0; s && pass < 2; pass++)
		for (int k = 0; k < s->nproc && n + 32 < len; k++) {
			const struct proc_sample *p = &s->procs[k];
			bool idle = !strcmp(p->role, "control") || !strcmp(p->role, "idle");
			if (!p->alive || p->workload <= 0 || idle != (pass == 1))
				continue;
			char *cpus = p->allowed ? cpulist_text(p->allowed, s->ncpu) : NULL;
			n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "", p->role, cpus ? cpus : "");
			free(cpus);
		}
}

/* A signal that asks to quit and came while the run was ending (its
 * workloads stopped, the last sample taken) is read before the loop goes,
 * so the experiment this run is a step of ends after it. */
static int quit_signal_at_end(struct app *a)
{
	struct loop_wake w;
	if (!a->quit_signal && loop_wait(a->loop, 0, &w) == 0)
		for (int i = 0; i < w.nsig && !a->quit_signal; i++)
			if (w.sig[i] != SIGCHLD && w.sig[i] != SIGWINCH)
				a->quit_signal = w.sig[i];
	return a->quit_signal;
}

static void fill_result(struct app *a, struct app_result *res)
{
	memset(res, 0, sizeof *res);
	a->rec = NULL; /* borrowed: the experiment closes it */
	res->quit_signal = quit_signal_at_end(a);
	res->nwl = a->nwl < APP_RESULT_MAX ? a->nwl : APP_RESULT_MAX;
	for (int i = 0; i < res->nwl; i++) {
		const char *names[2];
		workload_totals(a->wl[i], &res->wl[i]);
		res->failed[i] = workload_state(a->wl[i]) == WLS_FAILED;
		res->nphase[i] = workload_phase_rows(a->wl[i], res->phase[i], names);
	}
	fill_residency(a, res);
	placed_text(a, res->placed, sizeof res->placed);
}

/* Set up everything that can refuse before anything runs: the machine,
 * the start placement, the record, metrics, the screen.  Returns -1 to go
 * on (*mp: the start mask or NULL), else the exit status. */
static int prepare(struct app *a, unsigned char **mp, char *msg, size_t msglen)
{
	struct run *run = a->run;
	unsigned char *m = NULL;
	for (size_t i = 0; run->mode == MODE_ATTACH && i < run->nattach; i++)
		if (attach_check(run->attach[i], msg, msglen) == -EINVAL) {
			fprintf(stderr, "benchtop: %s\n", msg);
			return 2;
		}
	int rc = app_setup(a, msg, msglen);
	if (rc) {
		/* the files or the machine refused: a destination that exists,
		 * no space, O_DIRECT not supported, no scratch directory */
		fprintf(stderr, "benchtop: %s\n", msg[0] ? msg : strerror(-rc));
		app_teardown(a);
		return rc == -ENOMEM ? 1 : 3;
	}
	rc = app_start_mask(a, &m, msg, msglen);
	if (!rc)
		rc = app_check_start(a, msg, msglen);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", msg[0] ? msg : strerror(-rc));
		free(m);
		app_teardown(a);
		return rc == -ENOMEM ? 1 : rc == -EINVAL ? 2 : 3;
	}
	rc = app_open_record(a, msg, msglen);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", msg);
		free(m);
		app_teardown(a);
		return 3;
	}
	rc = app_metrics_open(a, msg, msglen);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", msg[0] ? msg : strerror(-rc));
		free(m);
		return app_abandon(a, rc == -EINVAL ? 2 : 3);
	}
	/* Without a terminal the dashboard would wait for keys that never
	 * come (cron, nohup, </dev/null): refuse before anything runs. */
	if (a->dashboard && ui_terminal_usable(msg, msglen) &&
	    ui_open(run->theme, run->no_color, msg, msglen) == 0) {
		ui_set_mouse(!run->no_mouse);
		history_grow(a->hist, app_history_need());
	}
	else if (a->dashboard) {
		fprintf(stderr, "benchtop: %s\n", msg);
		free(m);
		return app_abandon(a, 2);
	}
	*mp = m;
	return -1;
}

/* Give up before the run starts, saying why (what: the option, or ""). */
static int refuse(struct app *a, const char *what, const char *msg)
{
	if (a->dashboard)
		ui_close();
	fprintf(stderr, "benchtop: %s%s\n", what, msg);
	return app_abandon(a, 3);
}

/* The steps before t = 0 (--drop-caches), then the run's clock and its
 * residency's start.  Returns -1 to go on, else the exit status. */
static int begin_clock(struct app *a, char *msg, size_t msglen)
{
	if (app_prepare(a, msg, msglen))
		return refuse(a, "", msg);
	if (a->prep_sync >= 0) {
		snprintf(a->vs.status, sizeof a->vs.status,
		         "preparation before the run: sync %.3f s, drop caches %.3f s", a->prep_sync, a->prep_drop);
		if (a->run->batch)
			fprintf(stderr, "benchtop: %s\n", a->vs.status);
	}
	a->t0 = a->last_tick = app_mono();
	a->self_cpu_last = cpu_self();
	if (a->cf)
		cpufreq_start_clock(a->cf);  /* residency counts from t = 0, as phases do */
	return -1;
}

/* The record put in place, the start records and the batch header, then
 * --governor (its event follows the start record).  Returns -1 to go on,
 * else the exit status. */
static int begin_records(struct app *a, char *msg, size_t msglen)
{
	struct run *run = a->run;
	if (app_publish_record(a, msg, msglen))
		return refuse(a, "", msg);
	struct run_out o = run_out_of(a);
	if (a->rec && !a->rec_borrowed)
		record_start(&o, a->rec);
	if (a->out && run->batch && run->format == FMT_JSON)
		record_start(&o, a->out);
	else if (a->out && run->batch)
		batch_header(&o, a->out);
	if (!run->governor)
		return -1;
	struct action act = { .id = ACT_GOV_SET, .policy = -1 };
	char what[160];
	snprintf(act.text, sizeof act.text, "%s", run->governor);
	snprintf(what, sizeof what, "--governor %s: ", run->governor);
	if (app_action(a, &act) < 0)
		return refuse(a, what, a->vs.status);
	if (cpufreq_left_alone(a->cf) && run->batch)
		fprintf(stderr, "benchtop: %s%s\n", what, a->vs.status);
	/* the run's residency is its governor's: the kernel's time before
	 * the switch (the previous governor's) is left out */
	if (a->cf)
		cpufreq_start_clock(a->cf);
	return -1;
}

/* Start the run: the clock, start masks, the first records, governor,
 * the workloads and the start placement (m is freed here).  Returns -1
 * to go on, else the exit status (everything is torn down then). */
static int begin(struct app *a, unsigned char *m, char *msg, size_t msglen)
{
	struct run *run = a->run;
	int rc;
	/* The screen follows the user's locale; numbers in records and batch
	 * lines stay in the C locale ("1.5", never "1,5"). */
	setlocale(LC_NUMERIC, "C");
	app_catch_crashes(a);
	priority_raise();  /* samples keep time on a busy machine; refused: as started */
	a->membw = ceiling_cached();  /* measured after the run when not cached */
	if ((rc = begin_clock(a, msg, msglen)) >= 0) {
		free(m);
		return rc;
	}
	if (m) {
		placement_set_workload(a->ac.pl, -1, m);  /* --cpus, --placement pack */
		free(m);
	}
	if ((rc = begin_records(a, msg, msglen)) >= 0)
		return rc;
	/* --placement spread: each process starts on a CPU of its own */
	if (run->placement == PLACE_SPREAD)
		placement_spread(a->ac.pl);
	rc = app_start_workloads(a, msg, msglen);
	if (rc) {
		if (a->dashboard)
			ui_close();
		fprintf(stderr, "benchtop: %s\n", msg);
		stop_all(a);
		app_teardown(a);
		return 3;
	}
	/* A first look at the new processes: the baseline of every rate and
	 * CPU share the first sample shows (not counted since boot), and what
	 * the start placement needs. */
	sampler_prime(a->sp, a->snap, app_mono());
	if (run->placement == PLACE_FREE) {
		struct action act = { .id = ACT_FREE };
		app_action(a, &act);
	} else if (run->placement == PLACE_SPREAD) {
		/* Every process started on a CPU of its own; descendants that
		 * appeared since get theirs now. */
		action_enforce_placement(app_actions(a));
		struct event *e = xcalloc(1, sizeof *e);
		event_init(e, EV_PLACEMENT, app_now(a), "spread");
		snprintf(e->d.place.target, sizeof e->d.place.target, "spread");
		snprintf(e->d.place.cpus, sizeof e->d.place.cpus, "round robin");
		e->d.place.ok = true;
		app_event(a, e, true);
		free(e);
	}
	return -1;
}

int app_run(struct run *run, struct app_result *res)
{
	struct app app = { .run = run, .prep_sync = -1, .prep_drop = -1 };
	struct app *a = &app;
	char msg[512] = "";
	a->out = res ? NULL : stdout;
	a->dashboard = !run->batch;
	if (res && res->rec) {
		a->rec = res->rec;
		a->rec_borrowed = true;
		a->t_offset = res->t_offset;
		a->cell = res->cell;
	}
	unsigned char *m = NULL;
	int status = prepare(a, &m, msg, sizeof msg);
	if (status < 0)
		status = begin(a, m, msg, sizeof msg);
	if (status >= 0)
		return status;
	loop_grid(a->loop, a->t0 + a->interval, a->interval);
	if (a->dashboard)
		draw(a);
	loop(a);
	finish(a);
	int rec_err = app_close_record(a);
	if (a->dashboard)
		ui_close();
	if (res) {
		fill_result(a, res);
	} else {
		/* A lost terminal or closed output: the summary goes where it
		 * can still be read (a log of standard error). */
		FILE *sum = a->term_lost || a->out_lost ||
		            (run->batch && run->format != FMT_TEXT) ? stderr : stdout;
		restore_policies_for_summary(a);
		struct run_out o = run_out_of(a);
		summary_print(&o, sum);
		if (sum == stdout && !a->out_lost && (fflush(stdout) != 0 || ferror(stdout))) {
			fprintf(stderr, "benchtop: standard output: %s: the summary is lost\n", strerror(errno));
			a->out_lost = true;
		}
	}
	print_failures(a);
	if (a->late.n > 1 && !a->dashboard)
		fprintf(stderr, "benchtop: %d samples came late, by up to %.2f s\n", a->late.n, a->late.worst);
	status = exit_status(a);
	/* a recording cut short or an output that could not be written: the
	 * run went on, but what it was asked to leave is not all there */
	if (status == 0 && (rec_err || a->out_lost))
		status = 3;
	app_teardown(a);
	return status;
}

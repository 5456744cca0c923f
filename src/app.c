/* app.c - one run: set up, the poll loop (tick timer, signals, keys), and
 * an orderly end whatever way it comes (end of work, duration, q, signal).
 *
 * Data flows one way: sampler -> snapshot -> history -> views and records;
 * actions (keys, --at) flow back through action.c. */
#include "benchtop/app.h"

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
#include "benchtop/cpufreq.h"
#include "benchtop/cpulist.h"
#include "benchtop/sample.h"
#include "benchtop/theme.h"
#include "benchtop/ui.h"
#include "benchtop/units.h"
#include "benchtop/workload.h"

#define HISTORY_CAP 3600

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double app_now(const struct app *a)
{
	return mono() - a->t0;
}

static double cpu_self(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

void app_event(struct app *a, const char *action, const char *label, const char *detail)
{
	app_event_at(a, app_now(a), action, label, detail);
}

void app_event_at(struct app *a, double t, const char *action, const char *label,
                  const char *detail)
{
	struct event e = { .t = t };
	snprintf(e.action, sizeof e.action, "%s", action);
	snprintf(e.label, sizeof e.label, "%s", label);
	snprintf(e.detail, sizeof e.detail, "%s", detail && *detail ? detail : "{}");
	history_add_event(a->hist, &e);
	if (a->cf)
		cpufreq_mark(a->cf);
	if (a->rec)
		record_event(a->rec, &e);
	if (a->out && a->run->batch && a->run->format == FMT_JSON)
		record_event(a->out, &e);
	else if (a->out && a->run->batch && a->run->format == FMT_TEXT)
		fprintf(a->out, "# %.2f s: %s\n", e.t, e.label);
}

/* ---- a crash ---------------------------------------------------------
 * A bug must not leave the terminal in curses mode nor workloads running:
 * give the screen back, kill the workloads' process groups, then let the
 * previous handler (the default, or a sanitizer's report) take over.
 * Governors stay in the journal for `benchtop --restore`. */

static struct app *crash_app;
static struct sigaction crash_old[32];

static void crash_handler(int sig)
{
	struct app *a = crash_app;
	crash_app = NULL;
	if (a) {
		if (a->dashboard)
			ui_close();
		for (int i = 0; i < a->nwl; i++) {
			pid_t pids[64];
			int n = workload_pids(a->wl[i], pids, 64);
			for (int k = 0; k < n; k++) {
				kill(-pids[k], SIGKILL);
				kill(pids[k], SIGKILL);
			}
		}
	}
	sigaction(sig, &crash_old[sig], NULL);
	raise(sig);
}

static void catch_crashes(struct app *a)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	struct sigaction sa = { .sa_handler = crash_handler };
	sigemptyset(&sa.sa_mask);
	crash_app = a;
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaction(sigs[i], &sa, &crash_old[sigs[i]]);
}

/* ---- scratch directory ------------------------------------------------ */

static int make_scratch(struct app *a, char *msg, size_t len)
{
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/var/tmp";
	snprintf(a->scratch, sizeof a->scratch, "%s/benchtop.XXXXXX", base);
	if (!mkdtemp(a->scratch)) {
		int e = errno;
		snprintf(msg, len, "cannot make a scratch directory in %s: %s (set TMPDIR to a writable directory)",
		         base, strerror(e));
		return -e;
	}
	a->scratch_made = true;
	return 0;
}

static void remove_scratch(struct app *a)
{
	if (!a->scratch_made || a->run->keep)
		return;
	/* Only benchtop's own files are in it; anything else (a file a
	 * user dropped there) makes rmdir fail, and it stays. */
	if (rmdir(a->scratch) < 0 && errno == ENOTEMPTY) {
		char cmd[4200];
		snprintf(cmd, sizeof cmd, "%s", a->scratch);
		/* Engines remove their own files; a leftover here is a bug
		 * worth seeing rather than silently deleting. */
		fprintf(stderr, "benchtop: scratch directory %s is not empty; left in place\n", cmd);
	}
	a->scratch_made = false;
}

/* ---- children ---------------------------------------------------------- */

static struct workload *owner_of(struct app *a, pid_t pid)
{
	for (int i = 0; i < a->nwl; i++)
		if (workload_owns(a->wl[i], pid))
			return a->wl[i];
	return NULL;
}

static uint64_t zombie_write_bytes(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	uint64_t rc, wc, rb, wb;
	if (sample_parse_io(buf, &rc, &wc, &rb, &wb))
		return 0;
	return wb;
}

static void reap_children(struct app *a)
{
	for (;;) {
		siginfo_t si = { 0 };
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
			return;
		pid_t pid = si.si_pid;
		struct workload *w = owner_of(a, pid);
		if (w && !strcmp(workload_kind(w), "cmd"))
			workload_note_exit_io(w, zombie_write_bytes(pid));
		int st;
		struct rusage ru;
		if (wait4(pid, &st, WNOHANG, &ru) <= 0)
			return;
		if (w)
			workload_reap(w, pid, st, &ru, app_now(a));
	}
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
	for (size_t i = 0; i < a->nattached; i++)
		if (kill(a->attached[i], 0) == 0 || errno == EPERM)
			return true;
	return false;
}

/* Stop every workload: SIGTERM, a short grace, then SIGKILL; reap all,
 * including orphans that were handed to benchtop as their subreaper. */
static void stop_all(struct app *a)
{
	for (int i = 0; i < a->nwl; i++)
		workload_stop(a->wl[i]);
	double deadline = mono() + 1.5;
	while (any_running(a) && mono() < deadline) {
		reap_children(a);
		usleep(10000);
	}
	for (int i = 0; i < a->nwl; i++)
		if (workload_running(a->wl[i]))
			workload_kill(a->wl[i]);
	deadline = mono() + 3;
	while (any_running(a) && mono() < deadline) {
		reap_children(a);
		usleep(5000);
	}
	/* Any descendant that escaped its group was reparented to us (the
	 * subreaper): kill what is left of the tracked trees and reap every
	 * child until none is left. */
	pid_t pids[1024];
	for (int w = 1; w <= a->nwl; w++) {
		int n = sampler_pids(a->sp, w, pids, 1024);
		for (int i = 0; i < n; i++)
			kill(pids[i], SIGKILL);
	}
	deadline = mono() + 2;
	while (mono() < deadline) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p < 0 && errno == ECHILD)
			break;
		if (p == 0)
			usleep(2000);
	}
}

/* ---- placement at start ------------------------------------------------ */

/* The mask every workload starts with (--cpus, --placement pack), or
 * *out = NULL for "leave them as they are".  -EINVAL names a bad CPU. */
static int start_mask(struct app *a, unsigned char **out, char *msg, size_t len)
{
	size_t n = (size_t)(unsigned)a->ncpu;
	*out = NULL;
	if (!a->run->cpus && a->run->placement != PLACE_PACK)
		return 0;
	unsigned char *m = calloc(n, 1);
	if (!m)
		return -ENOMEM;
	if (a->run->cpus) {
		char err[256];
		if (cpulist_parse(a->run->cpus, m, a->ncpu, err, sizeof err)) {
			snprintf(msg, len, "--cpus: %s", err);
			free(m);
			return -EINVAL;
		}
	} else {
		memcpy(m, a->online, n);
	}
	if (a->run->placement == PLACE_PACK) {
		size_t first = 0;
		while (first < n && !m[first])
			first++;
		memset(m, 0, n);
		m[first < n ? first : 0] = 1;
	}
	*out = m;
	return 0;
}

/* A governor named on the command line must exist on this machine. */
static int check_governor(struct app *a, const char *what, const char *gov, char *msg, size_t len)
{
	if (!a->cf || cpufreq_npolicies(a->cf) == 0) {
		const char *why = a->cf ? cpufreq_unavailable_reason(a->cf) : NULL;
		snprintf(msg, len, "%s: no governors to set here: %s", what,
		         why ? why : "no cpufreq policies under --sysfs");
		return -ENODEV;
	}
	for (int i = 0; a->governors[i]; i++)
		if (!strcmp(a->governors[i], gov))
			return 0;
	snprintf(msg, len, "%s: \"%s\" is not an available governor here; use one of: %s", what, gov,
	         cpufreq_policy_governors(a->cf, 0));
	return -EINVAL;
}

/* Everything the command line names on this machine (CPUs, governors, a
 * theme) is checked before anything runs or is written.  -EINVAL: a bad
 * word (exit 2); other errors: the machine refuses (exit 3). */
static int check_start(struct app *a, char *msg, size_t len)
{
	const struct run *r = a->run;
	unsigned char *m = calloc((size_t)a->ncpu, 1);
	int rc = m ? 0 : -ENOMEM;
	char err[256], what[160];
	for (size_t i = 0; !rc && i < r->nat; i++) {
		const struct at_action *at = &r->at[i];
		if (at->kind == AT_PIN && cpulist_parse(at->arg, m, a->ncpu, err, sizeof err)) {
			snprintf(msg, len, "--at %g:pin=%s: %s", at->t, at->arg, err);
			rc = -EINVAL;
		} else if (at->kind == AT_GOVERNOR) {
			snprintf(what, sizeof what, "--at %g:governor=%s", at->t, at->arg);
			rc = check_governor(a, what, at->arg, msg, len);
		} else if (at->kind == AT_MAXFREQ && (!a->cf || cpufreq_npolicies(a->cf) == 0)) {
			snprintf(msg, len, "--at %g:maxfreq: no frequency limits to set here: %s", at->t,
			         a->cf && cpufreq_unavailable_reason(a->cf) ? cpufreq_unavailable_reason(a->cf) :
			         "no cpufreq policies under --sysfs");
			rc = -ENODEV;
		}
	}
	free(m);
	if (!rc && r->governor)
		rc = check_governor(a, "--governor", r->governor, msg, len);
	struct theme t;
	if (!rc && r->batch && r->theme && theme_load(r->theme, &t, msg, len) < 0)
		rc = -EINVAL;
	if (!rc && r->drop_caches && access("/proc/sys/vm/drop_caches", W_OK) != 0) {
		snprintf(msg, len, "--drop-caches: cannot write /proc/sys/vm/drop_caches: %s (run as root)",
		         strerror(errno));
		rc = -EACCES;
	}
	return rc;
}

/* ---- ticks ------------------------------------------------------------- */

/* Children are reaped whenever SIGCHLD arrives, so an end is noticed by
 * comparing with the state the previous tick saw. */
static void note_workload_ends(struct app *a)
{
	for (int i = 0; i < a->nwl; i++) {
		enum wl_state s = workload_state(a->wl[i]);
		enum wl_state before = a->wl_seen[i];
		a->wl_seen[i] = s;
		/* Workloads benchtop itself stops at the end are not events. */
		if ((s == WLS_DONE || s == WLS_FAILED) && before != s && !a->finishing) {
			char label[64], detail[MODEL_DETAIL_LEN];
			snprintf(label, sizeof label, "w%d %s", i + 1, s == WLS_DONE ? "done" : "failed");
			snprintf(detail, sizeof detail, "{\"workload\":%d,\"state\":\"%s\",\"error\":",
			         i + 1, model_wl_state_name(s));
			size_t k = strlen(detail);
			const char *err = workload_error(a->wl[i]);
			/* error text as a JSON string, quotes and controls escaped */
			detail[k++] = '"';
			for (const char *p = err; *p && k < sizeof detail - 8; p++) {
				if (*p == '"' || *p == '\\')
					detail[k++] = '\\';
				detail[k++] = (unsigned char)*p < 0x20 ? ' ' : *p;
			}
			snprintf(detail + k, sizeof detail - k, "\"}");
			/* stamped when it ended, not when the tick noticed */
			double t = workload_ended_at(a->wl[i]);
			const struct phase *cur = history_phase(a->hist, history_nphases(a->hist) - 1);
			if (t < cur->from || t > app_now(a))
				t = app_now(a);
			app_event_at(a, t, "workload_end", label, detail);
		}
	}
}

static void restart_finished(struct app *a)
{
	bool loop = a->run->loop;
	for (int i = 0; i < a->nwl; i++) {
		struct workload *w = a->wl[i];
		const struct wl_spec *s = workload_spec(w);
		if (!(loop || s->is_default) || workload_state(w) != WLS_DONE ||
		    workload_stop_requested(w) || a->quit)
			continue;
		char msg[256];
		if (workload_start(w, a->sp, a->wl_mask[i + 1], a->ncpu, app_now(a), msg, sizeof msg))
			snprintf(a->status, sizeof a->status, "%s", msg);
	}
}

static void tick(struct app *a)
{
	double now = mono();
	double cpu0 = cpu_self();
	struct snapshot *s = a->snap;
	s->t = now - a->t0;
	s->dt = now - a->last_tick;
	a->last_tick = now;
	reap_children(a);
	double dt = s->dt;
	sampler_tick(a->sp, s, now);
	s->dt = dt; /* the loop's interval, also on the first tick */
	if (a->cf)
		cpufreq_sample(a->cf, s, s->dt);
	for (int i = 0; i < a->nwl; i++)
		workload_poll(a->wl[i], &s->wls[i], now, s->dt);
	for (int i = 0; i < s->nproc; i++) {
		struct proc_sample *p = &s->procs[i];
		if (p->workload >= 1 && p->workload <= a->nwl)
			workload_proc_bytes(a->wl[p->workload - 1], p->pid, &p->bytes);
	}
	action_enforce_placement(a);
	double cpu1 = cpu_self();
	s->self_tick_us = (cpu1 - cpu0) * 1e6;
	s->self_cpu_pct = s->dt > 0 ? (cpu1 - a->self_cpu_last) / s->dt * 100 : 0;
	a->self_cpu_last = cpu1;
	history_push(a->hist, s);
	if (a->rec)
		record_sample(a, a->rec, s);
	if (a->run->batch && a->out)
		batch_line(a, a->out, s);
	/* After the sample: what a workload moved up to its end belongs to
	 * the phase before its end event. */
	note_workload_ends(a);
	if (a->rec)
		fflush(a->rec);
	if (a->out)
		fflush(a->out);
	restart_finished(a);
}

/* ---- the dashboard view ------------------------------------------------- */

static size_t residency_rows(void *ctx, int cpu, bool since_event, const long **khz,
                             const double **secs)
{
	return cpufreq_residency(ctx, cpu, since_event, khz, secs);
}

static void view_of(struct app *a, struct ui_view *v)
{
	memset(v, 0, sizeof *v);
	v->hist = a->hist;
	v->run = a->run;
	v->wl_names = a->wl_names;
	v->nwl = a->nwl;
	v->status = a->status;
	v->selected = a->selected;
	v->units = a->units;
	v->elapsed = app_now(a);
	v->paused = a->paused;
	enum freq_source fs = a->cf ? cpufreq_source(a->cf) : FREQ_NONE;
	const char *why = a->cf ? cpufreq_unavailable_reason(a->cf) : NULL;
	v->freq_source = fs == FREQ_NONE ? (why ? why : "not observable here") : cpufreq_source_name(fs);
	const char *rk = a->cf ? cpufreq_residency_kind(a->cf) : "none";
	v->residency_label = !strcmp(rk, "kernel") ? "kernel stats" :
	                     !strcmp(rk, "sampled") ? "sampled" : "no cpufreq here (VM?)";
	if (a->cf && strcmp(rk, "none")) {
		v->residency = residency_rows;
		v->residency_ctx = a->cf;
	}
	v->governors = (const char *const *)a->governors;
	if (a->cf && cpufreq_npolicies(a->cf) > 0)
		v->nfreqs = cpufreq_policy_freqs(a->cf, 0, &v->freqs);
}

static void fill_governors(struct app *a)
{
	if (!a->cf || cpufreq_npolicies(a->cf) < 1)
		return;
	const char *list = cpufreq_policy_governors(a->cf, 0);
	char *copy = strdup(list ? list : "");
	int n = 0;
	for (char *save = NULL, *t = strtok_r(copy, " \n", &save); t && n < 31;
	     t = strtok_r(NULL, " \n", &save))
		a->governors[n++] = strdup(t);
	a->governors[n] = NULL;
	free(copy);
}

/* ---- set up and tear down ------------------------------------------------ */

static int block_signals(struct app *a)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, NULL);
	a->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return a->sfd < 0 ? -errno : 0;
}

static void arm_timer(struct app *a)
{
	double next = a->next_tick;
	struct itimerspec its = { 0 };
	its.it_value.tv_sec = (time_t)next;
	its.it_value.tv_nsec = (long)((next - floor(next)) * 1e9);
	timerfd_settime(a->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

void app_set_interval(struct app *a, double iv)
{
	a->interval = iv;
	a->next_tick = a->last_tick + iv;
	if (a->next_tick < mono())
		a->next_tick = mono();
	arm_timer(a);
}

static int setup_workloads(struct app *a, char *msg, size_t len)
{
	struct run *r = a->run;
	bool need_scratch = false;
	for (size_t i = 0; i < r->nwl; i++)
		need_scratch |= r->wl[i].kind != WL_CMD;
	if (need_scratch) {
		int rc = make_scratch(a, msg, len);
		if (rc)
			return rc;
	}
	for (int i = 0; i < a->nwl; i++) {
		a->wl[i] = workload_new(i + 1, &r->wl[i], r, a->scratch);
		if (!a->wl[i])
			return -ENOMEM;
		a->wl_names[i] = workload_name(a->wl[i]);
		int rc = workload_prepare(a->wl[i], msg, len);
		if (rc)
			return rc;
		for (int k = 0; k < (r->wl[i].kind == WL_COPY && r->wl[i].src ? 1 : 0); k++)
			sampler_watch_path(a->sp, r->wl[i].src);
		if (r->wl[i].dst)
			sampler_watch_path(a->sp, r->wl[i].dst);
		if (r->wl[i].path)
			sampler_watch_path(a->sp, r->wl[i].path);
	}
	if (a->scratch_made)
		sampler_watch_path(a->sp, a->scratch);
	else
		sampler_watch_path(a->sp, ".");
	return 0;
}

static int drop_caches(char *msg, size_t len)
{
	sync();
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3\n", 2) != 2) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		snprintf(msg, len, "--drop-caches: cannot write /proc/sys/vm/drop_caches: %s (run as root)",
		         strerror(e));
		return -e;
	}
	close(fd);
	return 0;
}

static int start_workloads(struct app *a, char *msg, size_t len)
{
	for (int i = 0; i < a->nwl; i++) {
		if (a->run->drop_caches) {
			int rc = drop_caches(msg, len);
			if (rc)
				return rc;
		}
		int rc = workload_start(a->wl[i], a->sp, a->wl_mask[i + 1], a->ncpu, app_now(a), msg, len);
		if (rc)
			snprintf(a->status, sizeof a->status, "%s", msg);
	}
	return 0;
}

static int setup_attach(struct app *a, char *msg, size_t len)
{
	a->attached = a->run->attach;
	a->nattached = a->run->nattach;
	for (size_t i = 0; i < a->nattached; i++) {
		pid_t p = a->attached[i];
		if (kill(p, 0) < 0 && errno == ESRCH) {
			snprintf(msg, len, "--attach: no process %d (give PIDs of running processes)", (int)p);
			return -ESRCH;
		}
		sampler_add(a->sp, p, 0, "attached", true);
	}
	return 0;
}

static int setup(struct app *a, char *msg, size_t len)
{
	struct run *r = a->run;
	a->ncpu = affinity_ncpu();
	if (a->ncpu < 1)
		a->ncpu = 1;
	a->online = calloc((size_t)a->ncpu, 1);
	a->allowed = calloc((size_t)a->ncpu, 1);
	if (!a->online || !a->allowed)
		return -ENOMEM;
	for (int c = 0; c < a->ncpu; c++)
		a->allowed[c] = a->online[c] = affinity_cpu_online("/sys", c);
	if (r->cpus && cpulist_parse(r->cpus, a->allowed, a->ncpu, NULL, 0))
		memcpy(a->allowed, a->online, (size_t)a->ncpu); /* reported by start_mask */
	a->units = r->units;
	a->interval = r->interval;
	a->hist = history_new(HISTORY_CAP);
	a->sp = sampler_new("/proc", a->ncpu, (int)r->nwl);
	a->snap = snapshot_new(a->ncpu, 16, (int)r->nwl);
	if (!a->hist || !a->sp || !a->snap)
		return -ENOMEM;
	a->cf = cpufreq_open(r->sysfs, a->ncpu);
	fill_governors(a);
	a->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int rc = block_signals(a);
	if (rc || a->tfd < 0) {
		snprintf(msg, len, "cannot set up the event loop: %s", strerror(errno));
		return rc ? rc : -errno;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	a->nwl = r->mode == MODE_ATTACH ? 0 : (int)r->nwl;
	a->wl = calloc((size_t)a->nwl + 1, sizeof *a->wl);
	a->wl_names = calloc((size_t)a->nwl + 1, sizeof *a->wl_names);
	a->wl_mask = calloc((size_t)a->nwl + 1, sizeof *a->wl_mask);
	a->wl_seen = calloc((size_t)a->nwl + 1, sizeof *a->wl_seen);
	if (!a->wl || !a->wl_names || !a->wl_mask || !a->wl_seen)
		return -ENOMEM;
	return r->mode == MODE_ATTACH ? setup_attach(a, msg, len) : setup_workloads(a, msg, len);
}

static void teardown(struct app *a)
{
	crash_app = NULL;
	if (a->cf) {
		cpufreq_restore(a->cf);
		cpufreq_close(a->cf);
	}
	for (int i = 0; a->wl && i < a->nwl; i++) {
		if (!a->wl[i])
			continue; /* setup stopped before making it */
		workload_cleanup(a->wl[i]);
		workload_free(a->wl[i]);
	}
	remove_scratch(a);
	free(a->wl);
	free(a->wl_names);
	for (int i = 0; a->wl_mask && i <= a->nwl; i++)
		free(a->wl_mask[i]);
	free(a->wl_mask);
	free(a->wl_seen);
	for (size_t i = 0; i < a->npins; i++)
		free(a->pins[i].mask);
	free(a->pins);
	for (int i = 0; a->governors[i]; i++)
		free(a->governors[i]);
	free(a->online);
	free(a->allowed);
	if (a->sp)
		sampler_free(a->sp);
	snapshot_free(a->snap);
	history_free(a->hist);
	if (a->tfd > 0)
		close(a->tfd);
	if (a->sfd > 0)
		close(a->sfd);
	if (a->rec)
		fclose(a->rec);
}

/* ---- the loop ------------------------------------------------------------ */

static void handle_signals(struct app *a)
{
	struct signalfd_siginfo si;
	while (read(a->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			reap_children(a);
			break;
		case SIGWINCH:
			if (a->dashboard)
				ui_resize();
			break;
		case SIGPIPE:
			break;
		default:
			a->quit = true;
			a->quit_signal = (int)si.ssi_signo;
		}
	}
}

static void run_due_at(struct app *a)
{
	double t = app_now(a);
	while (a->next_at < a->run->nat && a->run->at[a->next_at].t <= t + 1e-6) {
		const struct at_action *at = &a->run->at[a->next_at++];
		struct action act = { .policy = -1 };
		static const enum action_id map[] = {
			[AT_PIN] = ACT_PIN_LIST, [AT_PACK] = ACT_PACK, [AT_FREE] = ACT_FREE,
			[AT_SPREAD] = ACT_SPREAD, [AT_GOVERNOR] = ACT_GOV_SET,
			[AT_MAXFREQ] = ACT_MAXFREQ, [AT_MARKER] = ACT_MARKER,
			[AT_PAUSE] = ACT_PAUSE, [AT_RESUME] = ACT_RESUME,
		};
		act.id = map[at->kind];
		act.whole = 2; /* every workload */
		act.khz = at->khz;
		if (at->arg)
			snprintf(act.text, sizeof act.text, "%s", at->arg);
		if (at->kind == AT_PAUSE && a->paused)
			continue;
		if (action_apply(a, &act) < 0 && a->run->batch)
			fprintf(stderr, "benchtop: --at %g: %s\n", at->t, a->status);
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
	if (a->run->loop)
		return false;
	for (int i = 0; i < a->nwl; i++) {
		if (workload_running(a->wl[i]))
			return false;
		if (workload_spec(a->wl[i])->is_default && !workload_stop_requested(a->wl[i]) &&
		    workload_state(a->wl[i]) == WLS_DONE)
			return false;
	}
	/* In the dashboard the finished run stays on screen to be read (and
	 * restarted with r) until q; batch mode ends here. */
	if (a->dashboard) {
		if (!a->all_done)
			snprintf(a->status, sizeof a->status,
			         "all workloads have ended: r restarts the selected one, q quits and prints the summary");
		a->all_done = true;
		return false;
	}
	return true;
}

static void draw(struct app *a)
{
	struct ui_view v;
	view_of(a, &v);
	ui_draw(&v);
}

static void handle_keys(struct app *a)
{
	struct ui_view v;
	view_of(a, &v);
	struct action act;
	while (ui_key(&v, &act) == 1) {
		action_apply(a, &act);
		view_of(a, &v);
	}
}

static void loop(struct app *a)
{
	while (!finished(a)) {
		struct pollfd pfd[3] = {
			{ .fd = a->tfd, .events = POLLIN },
			{ .fd = a->sfd, .events = POLLIN },
			{ .fd = a->dashboard ? ui_fd() : -1, .events = POLLIN },
		};
		int n = poll(pfd, 3, poll_timeout(a));
		if (n < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			handle_signals(a);
		if (pfd[0].revents) {
			uint64_t exp;
			if (read(a->tfd, &exp, sizeof exp) < 0)
				exp = 0;
			/* Ticks sit on an absolute grid: a late wake-up does not
			 * shift every later sample. */
			double now = mono();
			while (a->next_tick <= now)
				a->next_tick += a->interval;
			arm_timer(a);
			tick(a);
		}
		run_due_at(a);
		if (a->dashboard) {
			if (pfd[2].revents)
				handle_keys(a);
			draw(a);
		}
	}
}

static void finish(struct app *a)
{
	a->finishing = true;
	/* Attached processes go on after benchtop: never leave them stopped. */
	if (a->paused && a->nattached) {
		struct action act = { .id = ACT_RESUME };
		action_apply(a, &act);
	}
	stop_all(a);
	/* One last sample after every child is reaped, so totals are final. */
	a->snap->dt = mono() - a->last_tick;
	tick(a);
	a->ended = app_now(a);
	if (a->rec)
		record_end(a, a->rec);
	if (a->out && a->run->batch && a->run->format == FMT_JSON)
		record_end(a, a->out);
	/* Governors are restored in teardown, after the summary has said
	 * what the run ended under. */
}

static int exit_status(struct app *a)
{
	for (int i = 0; i < a->nwl; i++)
		if (workload_state(a->wl[i]) == WLS_FAILED)
			return 1;
	return 0;
}

static int open_record(struct app *a, char *msg, size_t len)
{
	if (!a->run->record)
		return 0;
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (a->run->force ? O_TRUNC : O_EXCL);
	int fd = open(a->run->record, flags, 0644);
	if (fd < 0) {
		int e = errno;
		snprintf(msg, len, "-o %s: %s%s", a->run->record, strerror(e),
		         e == EEXIST ? " (choose a new file, or add --force to overwrite it)" : "");
		return -e;
	}
	a->rec = fdopen(fd, "w");
	return a->rec ? 0 : -errno;
}

/* Give up before the run started: the record file benchtop just made
 * goes too (it holds nothing yet). */
static int abandon(struct app *a, int status)
{
	if (a->rec) {
		fclose(a->rec);
		a->rec = NULL;
		unlink(a->run->record);
	}
	teardown(a);
	return status;
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

/* Totals of each workload, for an experiment's table. */
static void fill_result(struct app *a, struct app_result *res)
{
	memset(res, 0, sizeof *res);
	res->nwl = a->nwl < APP_RESULT_MAX ? a->nwl : APP_RESULT_MAX;
	for (int i = 0; i < res->nwl; i++) {
		workload_totals(a->wl[i], &res->wl[i]);
		res->failed[i] = workload_state(a->wl[i]) == WLS_FAILED;
	}
}

int app_run(struct run *run, struct app_result *res)
{
	struct app app = { .run = run, .tfd = -1, .sfd = -1, .selected = 0 };
	struct app *a = &app;
	char msg[512] = "";
	a->out = res ? NULL : stdout;
	a->dashboard = !run->batch;
	unsigned char *m = NULL;
	int rc = setup(a, msg, sizeof msg);
	if (rc) {
		/* the files or the machine refused: a destination that exists,
		 * no space, O_DIRECT not supported, no scratch directory */
		fprintf(stderr, "benchtop: %s\n", msg[0] ? msg : strerror(-rc));
		teardown(a);
		return rc == -ENOMEM ? 1 : 3;
	}
	rc = start_mask(a, &m, msg, sizeof msg);
	if (!rc)
		rc = check_start(a, msg, sizeof msg);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", msg[0] ? msg : strerror(-rc));
		free(m);
		teardown(a);
		return rc == -ENOMEM ? 1 : rc == -EINVAL ? 2 : 3;
	}
	rc = open_record(a, msg, sizeof msg);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", msg);
		free(m);
		teardown(a);
		return 3;
	}
	if (a->dashboard && ui_open(run->theme, run->no_color, msg, sizeof msg)) {
		fprintf(stderr, "benchtop: %s\n", msg);
		free(m);
		return abandon(a, 2);
	}
	/* The screen follows the user's locale; numbers in records and batch
	 * lines stay in the C locale ("1.5", never "1,5"). */
	setlocale(LC_NUMERIC, "C");
	catch_crashes(a);
	a->t0 = a->last_tick = mono();
	a->self_cpu_last = cpu_self();
	if (run->governor) {
		struct action act = { .id = ACT_GOV_SET, .policy = -1 };
		snprintf(act.text, sizeof act.text, "%s", run->governor);
		if (action_apply(a, &act) < 0) {
			if (a->dashboard)
				ui_close();
			fprintf(stderr, "benchtop: --governor %s: %s\n", run->governor, a->status);
			free(m);
			return abandon(a, 3);
		}
	}
	if (m) {
		for (int i = 0; i <= a->nwl; i++) {
			a->wl_mask[i] = malloc((size_t)a->ncpu);
			if (a->wl_mask[i])
				memcpy(a->wl_mask[i], m, (size_t)a->ncpu);
		}
		free(m);
	}
	if (a->rec)
		record_start(a, a->rec);
	if (a->out && run->batch && run->format == FMT_JSON)
		record_start(a, a->out);
	else if (a->out && run->batch)
		batch_header(a, a->out);
	rc = start_workloads(a, msg, sizeof msg);
	if (rc) {
		if (a->dashboard)
			ui_close();
		fprintf(stderr, "benchtop: %s\n", msg);
		stop_all(a);
		teardown(a);
		return 3;
	}
	if (run->placement == PLACE_SPREAD || run->placement == PLACE_FREE) {
		struct action act = { .id = run->placement == PLACE_SPREAD ? ACT_SPREAD : ACT_FREE };
		sampler_tick(a->sp, a->snap, mono());
		action_apply(a, &act);
	}
	a->next_tick = a->t0 + a->interval;
	arm_timer(a);
	if (a->dashboard)
		draw(a);
	loop(a);
	finish(a);
	if (a->dashboard)
		ui_close();
	if (res) {
		fill_result(a, res);
	} else {
		FILE *sum = run->batch && run->format != FMT_TEXT ? stderr : stdout;
		summary_print(a, sum);
	}
	print_failures(a);
	int status = exit_status(a);
	teardown(a);
	return status;
}

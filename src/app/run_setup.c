/* run_setup.c - setting a run up and tearing it down: the scratch
 * directory, the checks of the command line against this machine (CPUs,
 * governors, theme, permissions), the workloads' files, the event loop's
 * descriptors, the record file, and what a crash must still undo. */
#include "app_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "benchtop/affinity.h"
#include "benchtop/cgroup.h"
#include "benchtop/cpufreq.h"
#include "benchtop/cpulist.h"
#include "benchtop/journal.h"
#include "benchtop/engine.h"
#include "benchtop/loop.h"
#include "benchtop/placement.h"
#include "benchtop/ptree.h"
#include "benchtop/sample.h"
#include "benchtop/strv.h"
#include "benchtop/theme.h"
#include "benchtop/ui.h"
#include "benchtop/workload.h"
#include "benchtop/xalloc.h"

size_t app_history_need(void)
{
	size_t n = ui_history_need();
	return n < HISTORY_CAP ? n : HISTORY_CAP;
}

/* ---- a crash ---------------------------------------------------------
 * A bug must not leave the terminal in curses mode nor workloads running:
 * give the screen back, kill the workloads' cgroup (every process of
 * their trees) and process groups, then let the
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
		/* the whole tree, wherever it went (setsid, double fork) */
		if (a->cg)
			cgroup_kill_async(a->cg);
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

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGTRAP };

void app_catch_crashes(struct app *a)
{
	struct sigaction sa = { .sa_handler = crash_handler };
	sigemptyset(&sa.sa_mask);
	crash_app = a;
	for (size_t i = 0; i < sizeof crash_sigs / sizeof *crash_sigs; i++)
		sigaction(crash_sigs[i], &sa, &crash_old[crash_sigs[i]]);
}

/* The handlers as they were before the run: the next run (an
 * experiment's next step) saves the real previous ones, not this run's. */
static void release_crashes(void)
{
	if (!crash_app)
		return;
	crash_app = NULL;
	for (size_t i = 0; i < sizeof crash_sigs / sizeof *crash_sigs; i++)
		sigaction(crash_sigs[i], &crash_old[crash_sigs[i]], NULL);
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
	/* a killed run's scratch is removed by --restore (not what --keep keeps) */
	if (!a->run->keep && journal_note_scratch(a->scratch) < 0)
		fprintf(stderr, "benchtop: the journal cannot record %s: a killed run leaves it\n", a->scratch);
	return 0;
}

static void remove_scratch(struct app *a)
{
	if (!a->scratch_made)
		return;
	/* --keep keeps the files, not an empty directory */
	if (a->run->keep) {
		rmdir(a->scratch);
		a->scratch_made = false;
		return;
	}
	/* Only benchtop's own files are in it; anything else (a file a
	 * user dropped there) makes rmdir fail, and it stays. */
	int e = rmdir(a->scratch) < 0 ? errno : 0;
	if ((e && e != ENOENT && e != ENOTEMPTY) || journal_scratch_below(a->scratch)) {
		/* a file of benchtop's could not go (a file system shut down
		 * after EIO): the directory stays for --restore with it */
		fprintf(stderr, "benchtop: cannot remove scratch directory %s: %s; it stays in the journal "
		        "for benchtop --restore\n", a->scratch, strerror(e ? e : EBUSY));
		a->scratch_made = false;
		return;
	}
	if (e == ENOTEMPTY) {
		/* Engines remove their own files; a leftover here is a bug
		 * worth seeing rather than silently deleting. */
		fprintf(stderr, "benchtop: scratch directory %s is not empty; left in place\n", a->scratch);
	}
	/* gone, or left in place with what is not benchtop's: --restore
	 * must not remove it either way */
	journal_forget_scratch(a->scratch);
	a->scratch_made = false;
}

/* ---- placement at start ------------------------------------------------ */

/* A CPU of m that is offline: -1 with a sentence naming it and the
 * online CPUs, else 0. */
static int offline_cpu(struct app *a, const unsigned char *m, char *err, size_t len)
{
	char online[128];
	cpulist_format(a->ac.online, a->ncpu, online, sizeof online);
	for (int c = 0; c < a->ncpu; c++)
		if (m[c] && !a->ac.online[c]) {
			snprintf(err, len, "CPU %d is offline: online CPUs are %s", c, online);
			return -1;
		}
	return 0;
}

/* The mask every workload starts with (--cpus, --placement pack), or
 * *out = NULL for "leave them as they are".  -EINVAL names a bad CPU. */
int app_start_mask(struct app *a, unsigned char **out, char *msg, size_t len)
{
	size_t n = (size_t)(unsigned)a->ncpu;
	*out = NULL;
	if (!a->run->cpus && a->run->placement != PLACE_PACK)
		return 0;
	unsigned char *m = xcalloc(n, 1);
	if (!m)
		return -ENOMEM;
	if (a->run->cpus) {
		char err[256];
		if (cpulist_parse(a->run->cpus, m, a->ncpu, err, sizeof err) ||
		    offline_cpu(a, m, err, sizeof err)) {
			snprintf(msg, len, "--cpus: %s", err);
			free(m);
			return -EINVAL;
		}
	} else {
		memcpy(m, a->ac.online, n);
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

/* A frequency cap must lie within what the CPUs can run at. */
static int check_maxfreq(struct app *a, const struct at_action *at, char *msg, size_t len)
{
	const long *f;
	size_t n = cpufreq_policy_freqs(a->cf, 0, &f);
	long lo = n ? f[0] : cpufreq_policy_min(a->cf, 0), hi = n ? f[n - 1] : cpufreq_policy_max(a->cf, 0);
	if (lo > 0 && hi > 0 && (at->khz < lo || at->khz > hi)) {
		snprintf(msg, len, "--at %g:maxfreq=%ld: out of range: use a frequency from %ld to %ld kHz "
		         "(or 0 to lift the cap)", at->t, at->khz, lo, hi);
		return -EINVAL;
	}
	return 0;
}

/* Everything the command line names on this machine (CPUs, governors, a
 * theme) is checked before anything runs or is written.  -EINVAL: a bad
 * word (exit 2); other errors: the machine refuses (exit 3). */
int app_check_start(struct app *a, char *msg, size_t len)
{
	const struct run *r = a->run;
	unsigned char *m = xcalloc((size_t)a->ncpu, 1);
	int rc = m ? 0 : -ENOMEM;
	char err[256], what[160];
	for (size_t i = 0; !rc && i < r->nat; i++) {
		const struct at_action *at = &r->at[i];
		if (at->kind == AT_PIN && (cpulist_parse(at->arg, m, a->ncpu, err, sizeof err) ||
		                           offline_cpu(a, m, err, sizeof err))) {
			snprintf(msg, len, "--at %g:pin=%s: %s", at->t, at->arg, err);
			rc = -EINVAL;
		} else if (at->optional && (at->kind == AT_GOVERNOR || at->kind == AT_MAXFREQ) &&
		           (!a->cf || cpufreq_npolicies(a->cf) == 0)) {
			continue;   /* "T?:": skipped here, with a note when its time comes */
		} else if (at->kind == AT_GOVERNOR) {
			snprintf(what, sizeof what, "--at %g:governor=%s", at->t, at->arg);
			rc = check_governor(a, what, at->arg, msg, len);
		} else if (at->kind == AT_MAXFREQ && (!a->cf || cpufreq_npolicies(a->cf) == 0)) {
			snprintf(msg, len, "--at %g:maxfreq: no frequency limits to set here: %s", at->t,
			         a->cf && cpufreq_unavailable_reason(a->cf) ? cpufreq_unavailable_reason(a->cf) :
			         "no cpufreq policies under --sysfs");
			rc = -ENODEV;
		} else if (at->kind == AT_MAXFREQ && at->khz > 0) {
			rc = check_maxfreq(a, at, msg, len);
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

static void fill_governors(struct app *a)
{
	if (!a->cf || cpufreq_npolicies(a->cf) < 1)
		return;
	const char *list = cpufreq_policy_governors(a->cf, 0);
	char *copy = xstrdup(list ? list : "");
	int n = 0;
	for (char *save = NULL, *t = strtok_r(copy, " \n", &save); t && n < 31;
	     t = strtok_r(NULL, " \n", &save))
		a->governors[n++] = xstrdup(t);
	a->governors[n] = NULL;
	free(copy);
}

/* Each workload gets a cgroup of its own inside the run's, so that no
 * process of it outlives the run; where the machine allows none, benchtop
 * says once that escapes are possible and tracks descendants instead. */
static void setup_cgroups(struct app *a)
{
	char why[512];
	static bool said;
	if (a->nwl == 0 || cgroup_run_open(&a->cg, why, sizeof why)) {
		if (a->nwl)
			snprintf(a->vs.status, sizeof a->vs.status,
			         "no cgroup for the workloads (%s): a process that leaves its process group "
			         "may outlive the run", why);
		if (a->nwl && a->run->batch && !said)
			fprintf(stderr, "benchtop: %s\n", a->vs.status);
		said = a->nwl > 0;
		return;
	}
	/* a killed benchtop's group is ended by --restore */
	journal_note_cgroup(cgroup_path(a->cg));
	for (int i = 0; i < a->nwl; i++) {
		char name[32];
		snprintf(name, sizeof name, "w%d", i + 1);
		workload_set_cgroup(a->wl[i], cgroup_child(a->cg, name));
	}
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
	engine_space_reset();
	for (int i = 0; i < a->nwl; i++) {
		a->wl[i] = workload_new(i + 1, &r->wl[i], r, a->scratch);
		if (!a->wl[i])
			return -ENOMEM;
		a->wl_names[i] = workload_name(a->wl[i]);
		/* each new process gets its role's placement before it runs */
		workload_set_placer(a->wl[i], action_placer, &a->ac);
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
		sampler_guess_path(a->sp, ".");
	setup_cgroups(a);
	return 0;
}

/* --drop-caches: sync, then drop the page cache, each timed; a step of
 * its own before the run's clock starts, so neither lands in the first
 * sample or phase. */
int app_prepare(struct app *a, char *msg, size_t len)
{
	a->prep_sync = a->prep_drop = -1;
	if (!a->run->drop_caches)
		return 0;
	double t0 = app_mono();
	sync();
	double t1 = app_mono();
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
	a->prep_sync = t1 - t0;
	a->prep_drop = app_mono() - t1;
	return 0;
}

int app_start_workloads(struct app *a, char *msg, size_t len)
{
	for (int i = 0; i < a->nwl; i++) {
		int rc = workload_start(a->wl[i], a->sp, action_start_mask(&a->ac, i + 1), a->ncpu, app_now(a), msg, len);
		if (rc)
			snprintf(a->vs.status, sizeof a->vs.status, "%s", msg);
	}
	return 0;
}

/* The attached processes are workload 1, kind attached: its spec names
 * each by PID and command ("1234: dd if=/dev/zero of=out"), its name by
 * command; it is measured like a command (the sampler follows it from
 * workload_start), and the disk line is the device under the files it
 * writes (no path is watched: the sampler takes the first written one). */
static int setup_attach(struct app *a, char *msg, size_t len)
{
	a->attach.pids = a->run->attach;
	a->attach.n = a->run->nattach;
	struct wl_spec *s = &a->attach_spec;
	*s = (struct wl_spec){ .kind = WL_ATTACHED, .bs = 128 * 1024, .jobs = 1 };
	s->argv = xcalloc(a->attach.n + 1, sizeof *s->argv);
	size_t tl = 64 + a->attach.n * 320, k = 0;
	s->text = xcalloc(tl, 1);
	for (size_t i = 0; i < a->attach.n; i++) {
		pid_t p = a->attach.pids[i];
		if (kill(p, 0) < 0 && errno == ESRCH) {
			snprintf(msg, len, "--attach: no process %d (give PIDs of running processes)", (int)p);
			return -ESRCH;
		}
		attach_remember(a, p);
		char cmd[256];
		ptree_cmdline(p, cmd, sizeof cmd);
		s->argv[i] = xstrdup(cmd[0] ? cmd : "?");
		k += (size_t)snprintf(s->text + k, tl - k, "%s%d: %s", i ? "; " : "", (int)p, s->argv[i]);
	}
	a->wl[0] = workload_new(1, s, a->run, NULL);
	if (!a->wl[0])
		return -ENOMEM;
	a->wl_names[0] = workload_name(a->wl[0]);
	workload_set_placer(a->wl[0], action_placer, &a->ac);
	/* the disk line: the device under the first attached process's
	 * working directory until they write a file (one that writes and
	 * ends between two ticks is never seen holding it) */
	char cwd[64];
	snprintf(cwd, sizeof cwd, "/proc/%d/cwd", (int)a->attach.pids[0]);
	sampler_guess_path(a->sp, cwd);
	return 0;
}

int app_setup(struct app *a, char *msg, size_t len)
{
	struct run *r = a->run;
	/* The signals are blocked first: a quit signal that comes while the
	 * rest is set up waits in the signalfd.  Before it, one that a
	 * script's background job ignores (SIGINT, SIGQUIT) would be dropped
	 * by the kernel, and the run would go on to its -t. */
	int sigs[LOOP_SIG_LIST] = { SIGCHLD, SIGWINCH };
	int nsig = 2 + loop_quit_signals(sigs + 2, LOOP_SIG_LIST - 2);
	a->loop = loop_new(sigs, nsig);
	if (!a->loop) {
		int e = errno;
		snprintf(msg, len, "cannot set up the event loop: %s", strerror(e));
		return -e;
	}
	a->ncpu = affinity_ncpu();
	if (a->ncpu < 1)
		a->ncpu = 1;
	struct action_ctx *ac = &a->ac;
	ac->online = xcalloc((size_t)a->ncpu, 1);
	ac->allowed = xcalloc((size_t)a->ncpu, 1);
	if (!ac->online || !ac->allowed)
		return -ENOMEM;
	/* Online CPUs under the --sysfs root (tests give a tree with one
	 * offline), else /sys. */
	const char *sys = r->sysfs ? r->sysfs : "/sys";
	for (int c = 0; c < a->ncpu; c++)
		ac->allowed[c] = ac->online[c] = affinity_cpu_online(sys, c);
	if (r->cpus && cpulist_parse(r->cpus, ac->allowed, a->ncpu, NULL, 0))
		memcpy(ac->allowed, ac->online, (size_t)a->ncpu); /* reported by start_mask */
	a->vs.units = r->units;
	a->interval = r->interval;
	a->hist = history_new(a->dashboard ? app_history_need() : HISTORY_BATCH);
	/* attached processes are one workload */
	int nwl = r->mode == MODE_ATTACH ? 1 : (int)r->nwl;
	a->sp = sampler_new("/proc", a->ncpu, nwl);
	a->snap = snapshot_new(a->ncpu, 16, nwl);
	if (!a->hist || !a->sp || !a->snap)
		return -ENOMEM;
	/* a dashboard's commands write to /dev/null (workload_spawn.c);
	 * attached processes' output is their own */
	if (!r->batch && r->mode != MODE_ATTACH)
		sampler_output_null(a->sp);
	a->cf = cpufreq_open(r->sysfs, a->ncpu);
	fill_governors(a);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	a->nwl = nwl;
	a->wl = xcalloc((size_t)a->nwl + 1, sizeof *a->wl);
	a->wl_names = xcalloc((size_t)a->nwl + 1, sizeof *a->wl_names);
	a->wl_seen = xcalloc((size_t)a->nwl + 1, sizeof *a->wl_seen);
	ac->pl = placement_new(a->ncpu, a->nwl, ac->allowed);
	if (!a->wl || !a->wl_names || !a->wl_seen || !ac->pl)
		return -ENOMEM;
	return r->mode == MODE_ATTACH ? setup_attach(a, msg, len) : setup_workloads(a, msg, len);
}

void app_teardown(struct app *a)
{
	release_crashes();
	app_metrics_close(a);
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
	if (a->cg) {
		cgroup_kill(a->cg);
		journal_forget_cgroup(cgroup_path(a->cg));
		cgroup_remove(a->cg);
		a->cg = NULL;
	}
	free(a->wl);
	free(a->wl_names);
	free(a->wl_seen);
	action_ctx_free(&a->ac);
	attach_free(a);
	strv_free(a->attach_spec.argv);
	free(a->attach_spec.text);
	a->attach_spec.argv = NULL;
	a->attach_spec.text = NULL;
	free(a->pol_end);
	a->pol_end = NULL;
	for (int i = 0; a->governors[i]; i++)
		free(a->governors[i]);
	if (a->sp)
		sampler_free(a->sp);
	snapshot_free(a->snap);
	history_free(a->hist);
	loop_free(a->loop);
	a->loop = NULL;
	if (!a->rec_borrowed)
		app_close_record(a);
}

int app_open_record(struct app *a, char *msg, size_t len)
{
	if (!a->run->record)
		return 0;
	int rc = outstream_open(&a->recs, "-o", a->run->record,
	                        OUTFILE_STREAM | (a->run->force ? OUTFILE_FORCE : 0), msg, len);
	a->rec = a->recs.fp;
	return rc;
}

int app_publish_record(struct app *a, char *msg, size_t len)
{
	if (!a->rec || a->rec_borrowed)
		return 0;
	return outstream_publish(&a->recs, a->run->force ? OUTFILE_FORCE : 0, msg, len);
}

void app_check_record(struct app *a)
{
	if (a->rec && !a->rec_borrowed && outstream_check(&a->recs))
		a->rec = NULL;
}

int app_close_record(struct app *a)
{
	if (a->rec_borrowed)
		return 0;
	a->rec = NULL;
	return a->recs.of.path ? outstream_close(&a->recs) : a->recs.err;
}

/* Give up before the run started: the record file benchtop just made
 * goes too (it holds nothing of a run). */
int app_abandon(struct app *a, int status)
{
	if (a->rec && !a->rec_borrowed) {
		outstream_discard(&a->recs);
		a->rec = NULL;
	}
	app_teardown(a);
	return status;
}

/* workload.c - one workload's life in benchtop: made from its spec (its
 * name in the summary), its files prepared, its placement and cgroup set,
 * then, once its processes run (workload_spawn.c), their reaping, the end
 * of each run (the closing sync of a command, the totals of finished
 * runs), pause, stop and kill for its whole tree, and the cleanup of the
 * files it made.  The figures it reports are in workload_rows.c. */
#include "benchtop/workload.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/cgroup.h"
#include "benchtop/clock.h"
#include "benchtop/engine.h"
#include "benchtop/journal.h"
#include "benchtop/sample.h"
#include "benchtop/xalloc.h"
#include "workload_priv.h"


static const char *engine_name(enum copy_engine e)
{
	static const char *n[] = { "rw", "cfr", "sendfile", "splice", "mmap", "pipe" };
	return n[e];
}

/* The summary's "test" column: what ran, in the words of the spec. */
static void make_name(struct workload *w)
{
	const struct wl_spec *s = w->spec;
	char *p = w->name;
	size_t n = sizeof w->name;
	int k = 0;
	switch (s->kind) {
	case WL_ATTACHED:
		/* "attached dd if=/dev/zero of=out, sleep 60" */
		k = snprintf(p, n, "attached");
		for (char **a = s->argv; a && *a && k < (int)n; a++)
			k += snprintf(p + k, n - k, "%s %s", a == s->argv ? "" : ",", *a);
		return;
	case WL_CMD:
		k = snprintf(p, n, "cmd");
		for (char **a = s->argv; a && *a && k < (int)n; a++) {
			if (a == s->argv && s->argv[1] && !strcmp(*a, "/bin/sh") && !strcmp(s->argv[1], "-c")) {
				a += 2;
				if (!*a)
					break;
			}
			k += snprintf(p + k, n - k, " %s", *a);
		}
		return;
	case WL_COPY:
		k = snprintf(p, n, "copy engine=%s", engine_name(s->engine));
		if (s->engine == ENG_PIPE && k < (int)n)
			k += snprintf(p + k, n - k, " procs=%d", s->procs);
		break;
	case WL_WRITE:
		k = snprintf(p, n, "write%s%s", s->rewrite ? " pattern=rewrite" : "",
		             s->unit_char ? " unit=char" : "");
		break;
	case WL_READ:
		k = snprintf(p, n, "read%s", s->unit_char ? " unit=char" : "");
		break;
	case WL_SEEK:
		k = snprintf(p, n, "seek seekers=%d", s->seekers);
		break;
	case WL_NET:
		k = snprintf(p, n, "net mss=%d%s", s->mss, s->rewrite ? " pattern=rewrite" : "");
		if (s->align && k < (int)n)
			k += snprintf(p + k, n - k, " align=%llu", (unsigned long long)s->align);
		break;
	}
	if (k < (int)n && s->bs != 128 * 1024 && !s->unit_char)
		k += snprintf(p + k, n - k, " bs=%llu", (unsigned long long)s->bs);
	if (k < (int)n && s->jobs > 1)
		k += snprintf(p + k, n - k, " jobs=%d", s->jobs);
	if (k < (int)n && s->direct)
		snprintf(p + k, n - k, " direct");
}

struct workload *workload_new(int id, const struct wl_spec *spec, const struct run *run,
                              const char *scratch)
{
	struct workload *w = xcalloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->id = id;
	w->own = *spec;
	w->spec = &w->own;
	w->run = run;
	snprintf(w->scratch, sizeof w->scratch, "%s", scratch ? scratch : "");
	w->state = WLS_STARTING;
	w->cg_fd = -1;
	make_name(w);
	return w;
}

void workload_free(struct workload *w)
{
	if (!w)
		return;
	if (w->ctr)
		engine_counters_free(w->ctr, w->nctr);
	if (w->prepared)
		engine_plan_free(&w->plan);
	if (w->src_ctr)
		engine_counters_free(w->src_ctr, 1);
	free(w->src_path);
	free(w->mask);
	if (w->cg_fd >= 0)
		close(w->cg_fd);
	if (w->cg) {
		/* nothing of its tree may stay: kill what is left, then the
		 * group goes once the kernel has emptied it */
		for (int i = 0; i < 500 && cgroup_populated(w->cg) == 1; i++) {
			cgroup_kill(w->cg);
			struct timespec ts = { 0, 2000000 };
			nanosleep(&ts, NULL);
		}
		cgroup_remove(w->cg);
	}
	free(w);
}

void workload_set_cgroup(struct workload *w, struct cgroup *g)
{
	w->cg_fd = g ? cgroup_procs_fd(g) : -1;
	w->cg = w->cg_fd >= 0 ? g : NULL;
	if (g && !w->cg)
		cgroup_remove(g);
}

const struct cgroup *workload_cgroup(const struct workload *w)
{
	return w->cg;
}

bool workload_needs_source(const struct workload *w)
{
	return w->spec->kind == WL_COPY && w->spec->is_default && !w->src_ready;
}

/* Choose the source's size and make it (empty, O_EXCL) in the scratch
 * directory; its child fills it. */
static int plan_source(struct workload *w, char *msg, size_t len)
{
	if (w->src_path)
		return 0;
	int rc = engine_source_size(w->scratch, w->spec->size, &w->src_size, msg, len);
	if (rc)
		return rc;
	if (asprintf(&w->src_path, "%s/benchtop-src.XXXXXX", w->scratch) < 0) {
		w->src_path = NULL;
		return -ENOMEM;
	}
	int fd = mkostemp(w->src_path, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(msg, len, "creating a source file in %s: %s", w->scratch, strerror(e));
		free(w->src_path);
		w->src_path = NULL;
		return -e;
	}
	close(fd);
	w->src_made = true;
	w->src_ctr = engine_counters_new(1);
	return w->src_ctr ? 0 : -ENOMEM;
}

/* An invented file after the cleanup: out of the journal once it is gone;
 * one that could not be removed (a file system shut down after EIO, or
 * gone read-only) is said and stays in the journal for --restore. */
static void forget_file(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0 && errno == ENOENT) {
		journal_forget_scratch(path);
		return;
	}
	int e = unlink(path) == 0 ? 0 : errno;
	if (e == 0 || e == ENOENT) {
		journal_forget_scratch(path);
		return;
	}
	fprintf(stderr, "benchtop: cannot remove scratch file %s: %s; it stays in the journal%s%s "
	        "for benchtop --restore\n", path, strerror(e), journal_path()[0] ? " " : "", journal_path());
}

/* The files benchtop invented for the workload (outside the scratch
 * directory too, in a directory the user named) are in the journal while
 * they exist, unless --keep keeps them. */
static void note_files(struct workload *w, bool note)
{
	for (int j = 0; !w->run->keep && w->plan.job && j < w->plan.jobs; j++) {
		const struct engine_job *jb = &w->plan.job[j];
		const char *f[2] = { jb->src_invented ? jb->src : NULL, jb->dst_invented ? jb->dst : NULL };
		for (int k = 0; k < 2; k++)
			if (f[k] && f[k][0] == '/')
				note ? journal_note_scratch(f[k]) : forget_file(f[k]);
	}
}

int workload_prepare(struct workload *w, char *msg, size_t len)
{
	if (w->spec->kind == WL_CMD || w->spec->kind == WL_ATTACHED || w->prepared)
		return 0;
	if (workload_needs_source(w))
		return plan_source(w, msg, len);
	int rc = engine_prepare(w->spec, w->scratch, w->run->force, &w->plan, msg, len);
	if (rc)
		return rc;
	w->prepared = true;
	note_files(w, true);
	/* --loop and the default workload loop inside their processes */
	w->plan.loop = w->run->loop || w->spec->is_default;
	w->nctr = w->plan.jobs;
	w->ctr = engine_counters_new(w->nctr);
	if (!w->ctr) {
		snprintf(msg, len, "out of memory for the counters of workload %d", w->id);
		return -ENOMEM;
	}
	return 0;
}

void workload_set_placer(struct workload *w, workload_placer fn, void *ctx)
{
	w->placer = fn;
	w->placer_ctx = ctx;
}

/* Its direct children have all ended: see below. */
static void after_children(struct workload *w, double now);

void workload_set_mask(struct workload *w, const unsigned char *mask)
{
	if (!mask || w->ncpu <= 0) {
		free(w->mask);
		w->mask = NULL;
		return;
	}
	if (!w->mask)
		w->mask = xmalloc((size_t)w->ncpu);
	if (w->mask)
		memcpy(w->mask, mask, (size_t)w->ncpu);
}

bool workload_is_helper(const struct workload *w, pid_t pid)
{
	return pid && pid == w->sync_pid;
}

bool workload_owns(const struct workload *w, pid_t pid)
{
	if (pid == w->sync_pid && pid)
		return true;
	for (int i = 0; i < w->nch; i++)
		if (w->ch[i].pid == pid)
			return true;
	return false;
}

static bool any_alive(const struct workload *w)
{
	for (int i = 0; i < w->nch; i++)
		if (w->ch[i].alive)
			return true;
	return false;
}

bool workload_running(const struct workload *w)
{
	if (w->spec->kind == WL_ATTACHED)
		return (w->state == WLS_RUNNING || w->state == WLS_PAUSED) && workload_attached_alive(w);
	return any_alive(w) || w->sync_pid || w->tree_wait;
}

static void describe_status(char *buf, size_t len, const char *what, int st)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "%s exited with status %d", what, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "%s was killed by signal %d (%s)", what, WTERMSIG(st),
		         strsignal(WTERMSIG(st)));
}

static void fail(struct workload *w, const char *why)
{
	if (w->state != WLS_FAILED)
		snprintf(w->err, sizeof w->err, "%s", why);
	w->state = WLS_FAILED;
	w->exit_code = 1;
}

static void finish_run(struct workload *w, double now)
{
	/* a tree found empty at a tick ended after its last child, whose
	 * reaping may come later in the same tick than the tick's clock */
	if (now < w->t_reaped)
		now = w->t_reaped;
	w->t_end = now;
	if (w->spec->rewrite && w->ctr && w->state != WLS_FAILED)
		workload_add_rewrite_rows(w);
	if (!workload_needs_source(w))
		w->elapsed_done += now - w->t_start;
	if (w->ctr)
		w->passes_done_runs += workload_engine_passes(w);
	else if (w->state == WLS_RUNNING || w->state == WLS_PAUSED)
		w->passes_done_runs++;  /* a command that ran to its end: one pass */
	if (w->ctr)
		w->io_done += workload_io_span(w, now);
	if (w->ctr) {
		for (int j = 0; j < w->nctr; j++) {
			w->bytes_done_runs += w->ctr[j].bytes;
			w->rbytes_done_runs += w->ctr[j].rbytes;
			w->calls_done_runs += w->ctr[j].calls;
		}
		memset(w->ctr, 0, sizeof *w->ctr * (size_t)w->nctr);
	}
	if (w->state == WLS_RUNNING || w->state == WLS_PAUSED)
		w->state = WLS_DONE;
	/* every process of the run is reaped: its groups leave the journal
	 * (a restart, --loop or r, makes new ones) */
	workload_forget_groups(w);
	if (w->prepared)
		engine_cleanup(w->spec, &w->plan, w->state == WLS_FAILED, true);
}

static double seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* What ru says, less user and sys seconds that were not the workload's
 * (a command's set-up before its exec), never below 0. */
static void add_rusage_less(struct workload *w, const struct rusage *ru, double user, double sys)
{
	w->ru_user += fmax(seconds(&ru->ru_utime) - user, 0);
	w->ru_sys += fmax(seconds(&ru->ru_stime) - sys, 0);
}

void workload_add_rusage(struct workload *w, const struct rusage *ru)
{
	add_rusage_less(w, ru, 0, 0);
}

void workload_note_reaped(struct workload *w, double now)
{
	if (now > w->t_reaped)
		w->t_reaped = now;
}

void workload_reap(struct workload *w, pid_t pid, int st, const struct rusage *ru, double now)
{
	bool source = false;
	double setup_user = 0, setup_sys = 0;
	for (int i = 0; i < w->nch; i++)
		if (w->ch[i].pid == pid) {
			source |= w->ch[i].role == ROLE_SOURCE;
			setup_user = w->ch[i].setup_user;
			setup_sys = w->ch[i].setup_sys;
		}
	/* a command's CPU is from its exec on: its child's set-up before it
	 * (a copy of benchtop, after the fork) is not its */
	if (ru && !source && pid != w->sync_pid)
		add_rusage_less(w, ru, setup_user, setup_sys);
	if (now > w->t_reaped)
		w->t_reaped = now;
	if (pid == w->sync_pid) {
		w->sync_pid = 0;
		finish_run(w, now);
		return;
	}
	for (int i = 0; i < w->nch; i++) {
		struct child *c = &w->ch[i];
		if (c->pid != pid)
			continue;
		c->alive = false;
		bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		if (!ok && !w->stop_requested) {
			char why[320];
			if (c->role == ROLE_SOURCE && w->src_ctr->msg[0])
				snprintf(why, sizeof why, "%s", w->src_ctr->msg);
			else if (c->role == ROLE_SOURCE)
				describe_status(why, sizeof why, "the source writer", st);
			else if (c->role >= 0 && w->ctr && w->ctr[c->job].msg[0])
				snprintf(why, sizeof why, "%s", w->ctr[c->job].msg);
			else
				describe_status(why, sizeof why, c->role >= 0 ?
				                engine_role_name(w->plan.roles[c->role]) : w->spec->argv[0], st);
			fail(w, why);
			/* A pipe engine whose reader died would leave its writer
			 * waiting; the instance is over. */
			if (c->role >= 0)
				workload_signal(w, SIGTERM);
		}
	}
	if (any_alive(w))
		return;
	w->tail_source = source;
	after_children(w, now);
}

/* True while a process of its tree other than its children still runs
 * (a background job, a daemon that called setsid): they are the
 * workload too, and it ends with the last of them. */
static bool tree_alive(const struct workload *w)
{
	return w->cg && cgroup_populated(w->cg) == 1;
}

/* Its direct children have all ended: once the rest of its tree has too,
 * the source's copy starts, or the closing sync, or the run is over. */
static void after_children(struct workload *w, double now)
{
	if (tree_alive(w)) {
		w->tree_wait = true;
		return;
	}
	w->tree_wait = false;
	if (w->tail_source && w->state == WLS_RUNNING && !w->stop_requested) {
		w->tail_source = false;
		workload_source_done(w, now);
		if (any_alive(w))
			return;
	}
	if (w->spec->kind == WL_CMD && !w->run->no_sync && w->state == WLS_RUNNING &&
	    !w->stop_requested) {
		workload_start_sync(w);
		if (w->sync_pid)
			return;
	}
	finish_run(w, now);
}

void workload_tree_check(struct workload *w, double now)
{
	/* attached processes end on their own: the workload with the last */
	if (w->spec->kind == WL_ATTACHED && (w->state == WLS_RUNNING || w->state == WLS_PAUSED) &&
	    !workload_attached_alive(w)) {
		finish_run(w, now);
		return;
	}
	/* The tree is found empty: it ended when benchtop reaped its last
	 * process (every process of it is reaped by benchtop, its
	 * subreaper, or by a parent in the tree that ends later), not when
	 * its cgroup said so */
	if (w->tree_wait && !any_alive(w) && !w->sync_pid)
		after_children(w, w->t_reaped > 0 && w->t_reaped < now ? w->t_reaped : now);
}

void workload_signal(struct workload *w, int sig)
{
	/* benchtop never signals processes it did not start through their
	 * workload (pause and resume of attached ones are the run's, which
	 * knows which were stopped already) */
	if (w->spec->kind == WL_ATTACHED)
		return;
	for (int i = 0; i < w->nch; i++) {
		if (!w->ch[i].alive)
			continue;
		kill(-w->ch[i].pid, sig); /* its group, when it leads one */
		kill(w->ch[i].pid, sig);
	}
	pid_t pids[512];
	int n = w->sp ? sampler_pids(w->sp, w->id, pids, 512) : 0;
	for (int i = 0; i < n; i++)
		kill(pids[i], sig);
	if (w->sync_pid && sig == SIGKILL)
		kill(w->sync_pid, sig);
	/* and whatever else of its tree, wherever it went (setsid, double fork) */
	if (w->cg && (w->sync_pid == 0 || sig == SIGKILL))
		sig == SIGKILL ? cgroup_kill(w->cg) : cgroup_signal(w->cg, sig);
}

void workload_pause(struct workload *w, bool pause)
{
	if (w->spec->kind == WL_ATTACHED ? !workload_running(w) : !any_alive(w) && !w->tree_wait)
		return;
	if (pause && !w->paused)
		w->t_paused = clock_mono();
	else if (!pause && w->paused && w->t_paused > 0)
		w->paused_s += clock_mono() - w->t_paused;
	workload_signal(w, pause ? SIGSTOP : SIGCONT);
	w->paused = pause;
	w->state = pause ? WLS_PAUSED : WLS_RUNNING;
}

void workload_stop(struct workload *w)
{
	w->stop_requested = true;
	if (!workload_running(w))
		return;
	if (w->spec->kind == WL_ATTACHED) {
		/* the run ends, the attached processes go on: the workload is
		 * over for benchtop now */
		if (w->paused && w->t_paused > 0)
			w->paused_s += clock_mono() - w->t_paused;
		w->paused = false;
		w->state = WLS_RUNNING;
		finish_run(w, w->t_start + (clock_mono() - w->t_called));
		return;
	}
	workload_signal(w, SIGTERM);
	workload_signal(w, SIGCONT);
	if (w->state == WLS_PAUSED)
		w->state = WLS_RUNNING;
	if (w->paused && w->t_paused > 0)
		w->paused_s += clock_mono() - w->t_paused;
	w->paused = false;
}

void workload_kill(struct workload *w)
{
	w->stop_requested = true;
	workload_signal(w, SIGKILL);
}

void workload_rearm(struct workload *w)
{
	w->stop_requested = false;
}

void workload_cleanup(struct workload *w)
{
	workload_forget_groups(w);
	/* a workload that never ran (the run was refused after its files
	 * were made) leaves none of them, not even the result file */
	if (w->prepared) {
		if (w->runs == 0)
			engine_unmake(&w->plan);
		else
			engine_cleanup(w->spec, &w->plan, w->state == WLS_FAILED, w->run->keep);
		note_files(w, false);
	}
	if (w->src_made && !w->run->keep)
		unlink(w->src_path);
}

enum wl_state workload_state(const struct workload *w) { return w->state; }
int workload_id(const struct workload *w) { return w->id; }
const char *workload_name(const struct workload *w) { return w->name; }
const char *workload_error(const struct workload *w) { return w->err; }
bool workload_stop_requested(const struct workload *w) { return w->stop_requested; }
const struct wl_spec *workload_spec(const struct workload *w) { return w->spec; }
const char *workload_kind(const struct workload *w) { return cli_kind_name(w->spec->kind); }

int workload_pids(const struct workload *w, pid_t *pids, int max)
{
	int n = 0;
	for (int i = 0; i < w->nch && n < max; i++)
		if (w->ch[i].alive)
			pids[n++] = w->ch[i].pid;
	return n;
}

double workload_ended_at(const struct workload *w) { return w->t_end; }

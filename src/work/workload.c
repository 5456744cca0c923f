/* workload.c - spawn, watch, pause, stop and reap one workload. */
#include "benchtop/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/affinity.h"
#include "benchtop/clock.h"
#include "benchtop/engine.h"
#include "benchtop/sample.h"
#include "benchtop/xalloc.h"

#define WL_MAX_CHILDREN 256

struct child {
	pid_t pid;
	int job, role;
	bool alive;
};

#define ROLE_CMD (-1)
#define ROLE_SOURCE (-2)

struct workload {
	int id;
	const struct wl_spec *spec;
	struct wl_spec own;          /* the spec, with an invented source filled in */
	/* The default workload's source is written by a child of its own, so
	 * the dashboard moves at once instead of waiting for 1 GiB. */
	char *src_path;
	uint64_t src_size;
	struct engine_counters *src_ctr;
	bool src_made, src_ready;
	uint64_t src_last;           /* source bytes at the last tick */
	const struct run *run;
	char scratch[4096];
	char name[160];
	enum wl_state state;
	char err[320];
	int exit_code;
	struct child ch[WL_MAX_CHILDREN];
	int nch;
	pid_t sync_pid;
	bool prepared, stop_requested, paused;
	struct engine_plan plan;
	struct engine_counters *ctr;
	int nctr;
	struct sampler *sp;
	double t_start, t_end, elapsed_done;
	double ru_user, ru_sys;
	double seen_user, seen_sys;  /* the most the samples ever showed */
	double seen_base_user, seen_base_sys;
	uint64_t bytes_done_runs, rbytes_done_runs, calls_done_runs; /* of finished runs */
	uint64_t passes_done_runs;                  /* passes of finished runs */
	uint64_t bytes_seen;                        /* the latest total shown */
	uint64_t rbytes_last, bytes_last, calls_last;
	uint64_t zombie_io;                         /* write_bytes of exited command roots */
	int runs;
	unsigned char *mask;         /* own copy of the placement for new processes, or NULL */
	int ncpu;
	workload_placer placer;      /* the rule for each new process by its slot, or NULL */
	void *placer_ctx;
	/* pattern=rewrite: the write and the rewrite as two rows */
	struct workload_totals rows[2];
	double run_user0, run_sys0;
	char row_names[2][180];
};

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
	free(w);
}

static bool needs_source(const struct workload *w)
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

int workload_prepare(struct workload *w, char *msg, size_t len)
{
	if (w->spec->kind == WL_CMD || w->prepared)
		return 0;
	if (needs_source(w))
		return plan_source(w, msg, len);
	int rc = engine_prepare(w->spec, w->scratch, w->run->force, &w->plan, msg, len);
	if (rc)
		return rc;
	w->prepared = true;
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

/* The mask a new process in slot gets before it runs: its role's rule
 * when there is a placer, else the workload's. */
static const unsigned char *mask_for(struct workload *w, const char *slot)
{
	return w->placer ? w->placer(w->placer_ctx, w->id, slot) : w->mask;
}

/* An engine process's slot: its role's name, numbered when the workload
 * has several of it (jobs=N, seekers): "writer", "writer.2", "seeker.3". */
static void engine_slot(const struct workload *w, int j, int r, char *buf, size_t len)
{
	enum engine_role role = w->plan.roles[r];
	int per_job = 0, before = 0;
	for (int k = 0; k < w->plan.nroles; k++) {
		per_job += w->plan.roles[k] == role;
		before += k < r && w->plan.roles[k] == role;
	}
	if (per_job * w->plan.jobs == 1)
		snprintf(buf, len, "%s", engine_role_name(role));
	else
		snprintf(buf, len, "%s.%d", engine_role_name(role), j * per_job + before + 1);
}

/* What a child does between fork and its real work: its own process
 * group (so a stop reaches its whole tree), death with benchtop, default
 * signal handling, and the placement chosen before it started. */
static void child_setup(pid_t pgid, const unsigned char *mask, int ncpu)
{
	setpgid(0, pgid);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (mask)
		affinity_set_self(mask, ncpu);
}

/* A command must not write over the dashboard or into batch records:
 * in the dashboard its output goes to /dev/null, in batch mode its
 * standard output joins standard error. */
static void quiet_output(const struct run *run)
{
	if (run->batch) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		return;
	}
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
}

/* Engine processes are named for their role ("bt-writer"), so ps, top
 * and the placement strip tell them apart. */
static void name_child(const char *role)
{
	char name[16];
	snprintf(name, sizeof name, "bt-%s", role);
	prctl(PR_SET_NAME, name);
}

static pid_t group_of(const struct workload *w)
{
	return w->nch ? w->ch[0].pid : 0;
}

static int add_child(struct workload *w, pid_t pid, int job, int role)
{
	if (w->nch == WL_MAX_CHILDREN)
		return -ENOSPC;
	w->ch[w->nch++] = (struct child){ .pid = pid, .job = job, .role = role, .alive = true };
	return 0;
}

static int spawn_cmd(struct workload *w, char *msg, size_t len)
{
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(ep[0]);
		close(ep[1]);
		snprintf(msg, len, "cannot start %s: %s", w->name, strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(ep[0]);
		child_setup(0, mask_for(w, "cmd"), w->ncpu);
		quiet_output(w->run);
		execvp(w->spec->argv[0], w->spec->argv);
		int e = errno;
		if (write(ep[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(ep[1]);
	setpgid(pid, pid);
	int e = 0;
	ssize_t n;
	do
		n = read(ep[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	add_child(w, pid, 0, ROLE_CMD);
	if (n == (ssize_t)sizeof e) {
		snprintf(msg, len, "cannot run \"%s\": %s", w->spec->argv[0], strerror(e));
		snprintf(w->err, sizeof w->err, "%s", msg);
		return -e;
	}
	sampler_add_slot(w->sp, pid, w->id, "cmd", "cmd", true);
	return 0;
}

static int spawn_engine(struct workload *w, char *msg, size_t len)
{
	for (int j = 0; j < w->plan.jobs; j++) {
		int pfd[2] = { -1, -1 };
		if (w->spec->engine == ENG_PIPE && w->spec->kind == WL_COPY && pipe(pfd) < 0) {
			snprintf(msg, len, "cannot make a pipe for %s: %s", w->name, strerror(errno));
			return -errno;
		}
		for (int r = 0; r < w->plan.nroles; r++) {
			char slot[32];
			engine_slot(w, j, r, slot, sizeof slot);
			const unsigned char *mask = mask_for(w, slot);
			pid_t pg = group_of(w);
			pid_t pid = fork();
			if (pid < 0) {
				snprintf(msg, len, "cannot start %s: %s", w->name, strerror(errno));
				return -errno;
			}
			if (pid == 0) {
				child_setup(pg, mask, w->ncpu);
				name_child(engine_role_name(w->plan.roles[r]));
				engine_child(w->spec, &w->plan, j, r, &w->ctr[j], pfd);
			}
			setpgid(pid, pg ? pg : pid);
			add_child(w, pid, j, r);
			sampler_add_slot(w->sp, pid, w->id, engine_role_name(w->plan.roles[r]), slot, false);
		}
		if (pfd[0] >= 0) {
			close(pfd[0]);
			close(pfd[1]);
		}
	}
	return 0;
}

static int spawn_source(struct workload *w, char *msg, size_t len)
{
	memset(w->src_ctr, 0, sizeof *w->src_ctr);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(msg, len, "cannot start %s: %s", w->name, strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		child_setup(0, mask_for(w, "source"), w->ncpu);
		name_child("source");
		engine_fill_child(w->src_path, w->src_size, w->src_ctr);
	}
	setpgid(pid, pid);
	add_child(w, pid, 0, ROLE_SOURCE);
	sampler_add(w->sp, pid, w->id, "source", false);
	return 0;
}

/* The source is written: the copy itself starts now, and its time, bytes
 * and CPU are counted from here. */
static void source_done(struct workload *w, double now)
{
	char msg[320];
	w->src_ready = true;
	w->own.src = w->src_path;
	w->nch = 0;
	w->t_start = now;
	w->run_user0 = w->ru_user;
	w->run_sys0 = w->ru_sys;
	int rc = workload_prepare(w, msg, sizeof msg);
	if (rc == 0)
		rc = spawn_engine(w, msg, sizeof msg);
	if (rc) {
		snprintf(w->err, sizeof w->err, "%s", msg);
		w->state = WLS_FAILED;
		w->exit_code = 1;
		workload_signal(w, SIGKILL);
	}
}

int workload_start(struct workload *w, struct sampler *sp, const unsigned char *mask, int ncpu,
                   double now, char *msg, size_t len)
{
	w->sp = sp;
	w->ncpu = ncpu;
	workload_set_mask(w, mask);
	w->nch = 0;
	w->sync_pid = 0;
	w->err[0] = 0;
	w->t_start = now;
	w->t_end = 0;
	w->runs++;
	w->run_user0 = w->ru_user;
	w->run_sys0 = w->ru_sys;
	w->state = WLS_RUNNING;
	int rc = workload_prepare(w, msg, len);
	if (rc == 0) {
		if (w->ctr)
			memset(w->ctr, 0, sizeof *w->ctr * (size_t)w->nctr);
		rc = w->spec->kind == WL_CMD ? spawn_cmd(w, msg, len) :
		     needs_source(w) ? spawn_source(w, msg, len) : spawn_engine(w, msg, len);
	}
	if (rc) {
		w->state = WLS_FAILED;
		w->exit_code = 1;
		w->t_end = now;
		if (!w->err[0])
			snprintf(w->err, sizeof w->err, "%s", msg);
		workload_signal(w, SIGKILL);
	}
	return rc;
}

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
	return any_alive(w) || w->sync_pid;
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

/* The destination's data is only safe once flushed: a command's run ends
 * with sync(2), timed, in a child so the loop never blocks on it. */
static void start_sync(struct workload *w)
{
	pid_t pid = fork();
	if (pid == 0) {
		child_setup(0, NULL, 0);
		sync();
		_exit(0);
	}
	if (pid > 0)
		w->sync_pid = pid;
}

/* The write and the rewrite of this run, from the marks the engine left in
 * its counters (CLOCK_MONOTONIC times, bytes and its own CPU at each
 * phase).  A job cut before its rewrite counts only in the write row; a
 * rewrite cut short counts up to now. */
static void add_rewrite_rows(struct workload *w)
{
	double now = clock_mono(), t0 = 0, t1 = 0, t3 = 0, u0 = 0, s0 = 0;
	uint64_t b0 = 0, b1 = 0;
	bool rewrote = false;
	for (int j = 0; j < w->nctr; j++) {
		const struct engine_counters *c = &w->ctr[j];
		if (c->phase_t[0] <= 0)
			continue;
		bool r = c->phase_t[1] > 0;
		double end0 = r ? c->phase_t[1] : (c->phase_t[3] > 0 ? c->phase_t[3] : now);
		if (t0 == 0 || c->phase_t[0] < t0)
			t0 = c->phase_t[0];
		if (end0 > t1)
			t1 = end0;
		b0 += (r ? c->phase_bytes[1] : c->bytes) - c->phase_bytes[0];
		if (r) {
			rewrote = true;
			u0 += c->phase_user[1] - c->phase_user[0];
			s0 += c->phase_sys[1] - c->phase_sys[0];
			double end = c->phase_t[3] > 0 ? c->phase_t[3] : now;
			if (end > t3)
				t3 = end;
			b1 += c->bytes - c->phase_bytes[1];
		}
	}
	double ru_u = w->ru_user - w->run_user0, ru_s = w->ru_sys - w->run_sys0;
	if (!rewrote) {
		u0 = ru_u;
		s0 = ru_s;
	}
	w->rows[0].elapsed += t1 > t0 ? t1 - t0 : 0;
	w->rows[1].elapsed += rewrote && t3 > t1 ? t3 - t1 : 0;
	w->rows[0].bytes += b0;
	w->rows[1].bytes += b1;
	w->rows[0].user += u0;
	w->rows[0].sys += s0;
	w->rows[1].user += ru_u > u0 ? ru_u - u0 : 0;
	w->rows[1].sys += ru_s > s0 ? ru_s - s0 : 0;
	w->rows[0].runs++;
	w->rows[1].runs++;
}

/* Passes every job of the running instance has completed. */
static uint64_t engine_passes(const struct workload *w)
{
	uint64_t least = UINT64_MAX;
	for (int j = 0; j < w->nctr; j++) {
		uint64_t p = __atomic_load_n(&w->ctr[j].passes, __ATOMIC_RELAXED);
		if (p < least)
			least = p;
	}
	return w->nctr > 0 ? least : 0;
}

static void finish_run(struct workload *w, double now)
{
	w->t_end = now;
	if (w->spec->rewrite && w->ctr && w->state != WLS_FAILED)
		add_rewrite_rows(w);
	if (!needs_source(w))
		w->elapsed_done += now - w->t_start;
	if (w->ctr)
		w->passes_done_runs += engine_passes(w);
	else if (w->state == WLS_RUNNING || w->state == WLS_PAUSED)
		w->passes_done_runs++;  /* a command that ran to its end: one pass */
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
	if (w->prepared)
		engine_cleanup(w->spec, &w->plan, w->state == WLS_FAILED, true);
}

void workload_add_rusage(struct workload *w, const struct rusage *ru)
{
	w->ru_user += ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
	w->ru_sys += ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

void workload_reap(struct workload *w, pid_t pid, int st, const struct rusage *ru, double now)
{
	bool source = false;
	for (int i = 0; i < w->nch; i++)
		source |= w->ch[i].pid == pid && w->ch[i].role == ROLE_SOURCE;
	if (ru && !source)
		workload_add_rusage(w, ru);
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
	if (source && w->state == WLS_RUNNING && !w->stop_requested) {
		source_done(w, now);
		if (any_alive(w))
			return;
	}
	if (w->spec->kind == WL_CMD && !w->run->no_sync && w->state == WLS_RUNNING &&
	    !w->stop_requested) {
		start_sync(w);
		if (w->sync_pid)
			return;
	}
	finish_run(w, now);
}

/* The zombie of a command's root still holds the I/O of its whole tree
 * (the kernel adds reaped children's counts to their parent), so its
 * write_bytes are read before it is reaped: a copy that ended between two
 * ticks is still counted. */
void workload_note_exit_io(struct workload *w, uint64_t write_bytes)
{
	w->zombie_io += write_bytes;
}

static void poll_engine(struct workload *w, struct wl_sample *ws, double dt)
{
	uint64_t b = 0, rb = 0, calls = 0;
	for (int j = 0; j < w->nctr; j++) {
		b += __atomic_load_n(&w->ctr[j].bytes, __ATOMIC_RELAXED);
		rb += __atomic_load_n(&w->ctr[j].rbytes, __ATOMIC_RELAXED);
		calls += __atomic_load_n(&w->ctr[j].calls, __ATOMIC_RELAXED);
	}
	bool reads = w->spec->kind == WL_READ || w->spec->kind == WL_SEEK;
	/* Rates from run totals, so a run that ended between two ticks (its
	 * counters folded into the totals) still shows what it moved. */
	b += w->bytes_done_runs;
	rb += w->rbytes_done_runs;
	double rate_b = dt > 0 && b >= w->bytes_last ? (double)(b - w->bytes_last) / dt : 0;
	double rate_rb = dt > 0 && rb >= w->rbytes_last ? (double)(rb - w->rbytes_last) / dt : 0;
	w->bytes_last = b;
	w->rbytes_last = rb;
	ws->write_bps = reads ? 0 : rate_b;
	ws->read_bps = reads ? rate_b : rate_rb;
	ws->bytes = b;
	uint64_t total_calls = w->calls_done_runs + calls;
	/* per-call cost as the engine's processes see it: the interval's wall
	 * time spread over the calls each job made in it */
	ws->us_per_call = total_calls > w->calls_last && dt > 0 ?
		dt * 1e6 * w->nctr / (double)(total_calls - w->calls_last) : -1;
	w->calls_last = total_calls;
	ws->calls = total_calls;
}

uint64_t workload_passes(const struct workload *w)
{
	return w->passes_done_runs + (w->ctr ? engine_passes(w) : 0);
}

void workload_poll(struct workload *w, struct wl_sample *ws, double now, double dt)
{
	(void)now;
	ws->id = w->id;
	ws->us_per_call = -1;
	if (w->src_ctr && !w->src_ready) {
		uint64_t b = __atomic_load_n(&w->src_ctr->bytes, __ATOMIC_RELAXED);
		ws->write_bps = dt > 0 && b >= w->src_last ? (double)(b - w->src_last) / dt : 0;
		ws->read_bps = 0;
		w->src_last = b;
	} else if (w->ctr) {
		poll_engine(w, ws, dt);
	} else if (ws->bytes < w->zombie_io) {
		/* a command that ended between two samples: what its tree
		 * wrote since the last sample is this interval's rate too */
		uint64_t seen = ws->bytes > w->bytes_seen ? ws->bytes : w->bytes_seen;
		/* when no progress was ever seen, the bytes were made over the
		 * whole run, not only the last (perhaps short) interval */
		double span = dt;
		if (seen == 0 && w->t_end > w->t_start && w->t_end - w->t_start > span)
			span = w->t_end - w->t_start;
		if (span > 0 && w->zombie_io > seen)
			ws->write_bps += (double)(w->zombie_io - seen) / span;
		ws->bytes = w->zombie_io;
	}
	if (ws->bytes < w->bytes_seen)
		ws->bytes = w->bytes_seen; /* totals never go backwards */
	w->bytes_seen = ws->bytes;
	if (ws->utime < w->ru_user)
		ws->utime = w->ru_user;
	if (ws->stime < w->ru_sys)
		ws->stime = w->ru_sys;
	/* Descendants reaped by someone else are only in the samples; the
	 * default workload's source writer is not part of the copy. */
	if (w->src_ctr && !w->src_ready) {
		w->seen_base_user = ws->utime;
		w->seen_base_sys = ws->stime;
	} else {
		double u = ws->utime - w->seen_base_user, y = ws->stime - w->seen_base_sys;
		w->seen_user = u > w->seen_user ? u : w->seen_user;
		w->seen_sys = y > w->seen_sys ? y : w->seen_sys;
	}
	ws->state = w->state == WLS_RUNNING && w->paused ? WLS_PAUSED : w->state;
	ws->passes = workload_passes(w);
}

void workload_signal(struct workload *w, int sig)
{
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
}

void workload_pause(struct workload *w, bool pause)
{
	if (!any_alive(w))
		return;
	workload_signal(w, pause ? SIGSTOP : SIGCONT);
	w->paused = pause;
	w->state = pause ? WLS_PAUSED : WLS_RUNNING;
}

void workload_stop(struct workload *w)
{
	w->stop_requested = true;
	if (!workload_running(w))
		return;
	workload_signal(w, SIGTERM);
	workload_signal(w, SIGCONT);
	if (w->state == WLS_PAUSED)
		w->state = WLS_RUNNING;
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
	if (w->prepared)
		engine_cleanup(w->spec, &w->plan, w->state == WLS_FAILED, w->run->keep);
	if (w->src_made && !w->run->keep)
		unlink(w->src_path);
}

enum wl_state workload_state(const struct workload *w) { return w->state; }
int workload_id(const struct workload *w) { return w->id; }
const char *workload_name(const struct workload *w) { return w->name; }
const char *workload_error(const struct workload *w) { return w->err; }
int workload_exit_code(const struct workload *w) { return w->exit_code; }
bool workload_stop_requested(const struct workload *w) { return w->stop_requested; }
const struct wl_spec *workload_spec(const struct workload *w) { return w->spec; }
const char *workload_kind(const struct workload *w) { return cli_kind_name(w->spec->kind); }

uint64_t workload_bytes_now(const struct workload *w)
{
	if (!w->ctr)
		return w->bytes_seen;
	uint64_t b = w->bytes_done_runs;
	for (int j = 0; j < w->nctr; j++)
		b += __atomic_load_n(&w->ctr[j].bytes, __ATOMIC_RELAXED);
	return b > w->bytes_seen ? b : w->bytes_seen;
}

bool workload_proc_bytes(const struct workload *w, pid_t pid, uint64_t *bytes)
{
	if (!w->ctr && !w->src_ctr)
		return false;
	for (int i = 0; i < w->nch; i++) {
		const struct child *c = &w->ch[i];
		if (c->pid == pid && c->role == ROLE_SOURCE && w->src_ctr) {
			*bytes = __atomic_load_n(&w->src_ctr->bytes, __ATOMIC_RELAXED);
			return true;
		}
		if (c->pid != pid || c->role < 0)
			continue;
		const struct engine_counters *k = &w->ctr[c->job];
		enum engine_role r = w->plan.roles[c->role];
		if (r == ROLE_CONTROL)
			*bytes = 0;
		else if (r == ROLE_READER)
			*bytes = __atomic_load_n(&k->rbytes, __ATOMIC_RELAXED);
		else
			*bytes = __atomic_load_n(&k->bytes, __ATOMIC_RELAXED);
		return true;
	}
	return false;
}

int workload_pids(const struct workload *w, pid_t *pids, int max)
{
	int n = 0;
	for (int i = 0; i < w->nch && n < max; i++)
		if (w->ch[i].alive)
			pids[n++] = w->ch[i].pid;
	return n;
}

void workload_totals(const struct workload *w, struct workload_totals *t)
{
	memset(t, 0, sizeof *t);
	t->user = w->ru_user > w->seen_user ? w->ru_user : w->seen_user;
	t->sys = w->ru_sys > w->seen_sys ? w->ru_sys : w->seen_sys;
	t->elapsed = w->elapsed_done;
	t->bytes = w->bytes_seen;
	t->calls = w->calls_done_runs;
	t->runs = w->runs;
}

int workload_phase_rows(const struct workload *w, struct workload_totals rows[2],
                        const char *names[2])
{
	if (!w->spec->rewrite || w->rows[0].runs == 0)
		return 0;
	struct workload *m = (struct workload *)w; /* names are built lazily */
	snprintf(m->row_names[0], sizeof m->row_names[0], "%s: write", w->name);
	snprintf(m->row_names[1], sizeof m->row_names[1], "%s: rewrite", w->name);
	for (int i = 0; i < 2; i++) {
		rows[i] = w->rows[i];
		names[i] = m->row_names[i];
	}
	return 2;
}

double workload_ended_at(const struct workload *w) { return w->t_end; }

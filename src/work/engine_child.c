/* engine_child.c - the processes of benchtop's own workloads: the shared
 * counter blocks they report through, the child that writes an invented
 * source, the child that runs one role of a job (its signals, then the I/O
 * loop of src/work/engines/ its workload and role call for), and the
 * parent's side of forking a job's processes, waiting for them and
 * killing them on failure.  What the processes work on is decided
 * beforehand by engine_prepare (engine.c). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchtop/engine.h"
#include "engine_priv.h"
#include "engines/engines.h"

/* ---- counters ---- */

struct engine_counters *engine_counters_new(int n)
{
	void *p = mmap(NULL, sizeof(struct engine_counters) * (size_t)(n > 0 ? n : 1),
	               PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void engine_counters_free(struct engine_counters *c, int n)
{
	if (c)
		munmap(c, sizeof(struct engine_counters) * (size_t)(n > 0 ? n : 1));
}

/* ---- the children ---- */

/* The parent may block signals for its signalfd; an engine must be
 * stoppable with SIGTERM and die with its parent. */
static void child_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* An engine is a fork of benchtop: it lets go of every descriptor it
 * was handed but its standard ones and keep (its pipe's ends, a net
 * listener; -1: none): benchtop's held /proc files (thousands with
 * many tracked processes), its taskstats socket, its records and
 * journal are not the engine's to hold. */
static void child_descriptors(const int keep[2])
{
	int a = keep[0] < keep[1] ? keep[0] : keep[1], b = keep[0] < keep[1] ? keep[1] : keep[0];
	unsigned from = 3;

	for (int k = 0; k < 2; k++) {
		int fd = k == 0 ? a : b;
		if (fd < (int)from)
			continue;
		if ((unsigned)fd > from)
			close_range(from, (unsigned)fd - 1, 0);
		from = (unsigned)fd + 1;
	}
	close_range(from, ~0U, 0);
}

_Noreturn void engine_fill_child(const char *path, uint64_t size, struct engine_counters *c)
{
	int fd, e;

	child_signals();
	child_descriptors((const int[2]){ -1, -1 });
	eng_phase(c, 0);
	fd = eng_open_empty(path, 0);
	e = fd < 0 ? errno : engine_fill_fd(fd, size, c);
	if (fd >= 0 && close(fd) != 0 && !e)
		e = errno;
	if (e) {
		eng_fail(c, e, "writing source file", path);
		_exit(1);
	}
	eng_phase(c, 3);
	_exit(0);
}

static int run_copy(struct eng_ctx *x, enum engine_role role)
{
	static int (*const loops[])(struct eng_ctx *) = {
		[ENG_RW] = eng_copy_rw, [ENG_CFR] = eng_copy_cfr,
		[ENG_SENDFILE] = eng_copy_sendfile, [ENG_SPLICE] = eng_copy_splice,
		[ENG_MMAP] = eng_copy_mmap,
	};

	switch (role) {
	case ROLE_READER:
		return eng_pipe_reader(x);
	case ROLE_WRITER:
		return eng_pipe_writer(x);
	case ROLE_CONTROL:
		return eng_pipe_control(x);
	default:
		if ((unsigned)x->w->engine < sizeof loops / sizeof loops[0] && loops[x->w->engine])
			return loops[x->w->engine](x);
		return eng_fail(x->c, EINVAL, "unknown engine for", x->job->dst);
	}
}

_Noreturn void engine_child(const struct wl_spec *w, const struct engine_plan *plan,
                            int j, int r, struct engine_counters *c, int pipefd[2])
{
	struct eng_ctx x = {
		.w = w, .job = &plan->job[j], .c = c, .bs = engine_spec_bs(w),
		.pipefd = { pipefd ? pipefd[0] : -1, pipefd ? pipefd[1] : -1 },
		.oflags_extra = (w->direct ? O_DIRECT : 0) | (w->sync == SYNC_EACH ? O_DSYNC : 0),
		.solo = plan->nroles == 1, .loop = plan->loop,
		/* one process per job counts its passes: a copier, the first
		 * seeker (writers and readers of their own say so) */
		.counts_passes = plan->roles[r] == ROLE_MAIN || r == 0,
	};
	int rc;

	child_signals();
	child_descriptors(x.pipefd);
	if (r == 0)
		eng_phase(c, 0);
	switch (w->kind) {
	case WL_COPY:
		rc = run_copy(&x, plan->roles[r]);
		break;
	case WL_WRITE:
		rc = eng_write(&x);
		break;
	case WL_READ:
		rc = eng_read(&x);
		break;
	case WL_SEEK:
		rc = eng_seek(&x);
		break;
	case WL_NET:
		rc = eng_net(&x, plan->roles[r]);
		break;
	default:
		rc = eng_fail(c, EINVAL, "running", w->text ? w->text : "a command workload");
	}
	_exit(rc ? 1 : 0);
}

/* ---- spawning, for the parent ---- */

static void kill_all(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

int engine_spawn(const struct wl_spec *w, const struct engine_plan *plan, int j,
                 struct engine_counters *c, pid_t *pids, engine_hook hook, void *arg)
{
	int p[2] = { -1, -1 }, r, e = 0;

	memset(c, 0, sizeof *c);
	if (w->kind == WL_COPY && w->engine == ENG_PIPE && pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	if (w->kind == WL_NET && (p[0] = engine_net_listen(w)) < 0)
		return p[0];
	for (r = 0; r < plan->nroles; r++) {
		pids[r] = fork();
		if (pids[r] < 0) {
			e = errno;
			break;
		}
		if (pids[r] == 0) {
			if (hook)
				hook(arg, plan->roles[r]);
			engine_child(w, plan, j, r, c, p);
		}
	}
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	if (e)
		kill_all(pids, r);
	return -e;
}

int engine_run_job(const struct wl_spec *w, const struct engine_plan *plan, int j,
                   struct engine_counters *c)
{
	pid_t pids[sizeof plan->roles / sizeof plan->roles[0]];
	int rc = engine_spawn(w, plan, j, c, pids, NULL, NULL), st;
	bool bad = false, signalled = false;

	if (rc)
		return rc;
	for (int r = 0; r < plan->nroles; r++) {
		/* Nobody wakes the control process of a writer killed by a signal. */
		if (plan->roles[r] == ROLE_CONTROL && bad)
			kill(pids[r], SIGKILL);
		while (waitpid(pids[r], &st, 0) < 0 && errno == EINTR)
			;
		if (plan->roles[r] == ROLE_CONTROL && bad)
			continue;
		signalled |= WIFSIGNALED(st);
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	if (!bad)
		return 0;
	return c->err ? -c->err : signalled ? -EINTR : -EIO;
}

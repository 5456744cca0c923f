/* workload_spawn.c - starting a workload's processes in benchtop: each
 * child's set-up between fork and its work (its cgroup, process group,
 * death with benchtop, signals, the placement of its slot), a command
 * (exec reported back through a pipe, its output kept off the dashboard),
 * the engine processes of every job named by role and slot, the writer of
 * the default workload's source and the copy that follows it, and the
 * sync(2) that closes a command's run. */
#include "benchtop/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchtop/affinity.h"
#include "benchtop/cgroup.h"
#include "benchtop/clock.h"
#include "benchtop/engine.h"
#include "benchtop/fdlimit.h"
#include "benchtop/journal.h"
#include "benchtop/priority.h"
#include "benchtop/sample.h"
#include "workload_priv.h"


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
 * signal handling, the priority benchtop was started with, and the
 * placement chosen before it started. */
static int child_setup(int cg_fd, pid_t pgid, const unsigned char *mask, int ncpu)
{
	priority_child();
	/* into the workload's cgroup first: nothing it starts can leave it */
	if (cg_fd >= 0) {
		int rc = cgroup_join(cg_fd);
		if (rc)
			return rc;
	}
	setpgid(0, pgid);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (mask)
		affinity_set_self(mask, ncpu);
	return 0;
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
	/* (stdin read-only: a descriptor it could write is not a file's) */
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC), out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (in >= 0)
		dup2(in, STDIN_FILENO);
	if (out >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
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
	/* a group's leader: --restore ends the group after a killed benchtop */
	if (getpgid(pid) == pid)
		journal_note_pgid(pid);
	return 0;
}

/* The children's groups are gone (reaped): out of the journal. */
void workload_forget_groups(struct workload *w)
{
	for (int i = 0; i < w->nch; i++)
		journal_forget_pgid(w->ch[i].pid);
}

/* What the command's child leaves benchtop just before its exec, in
 * memory the two share: its clock, and the CPU its set-up took. */
struct at_exec {
	double t, user, sys;
};

/* In the command's child: it waits, stopped, for benchtop to move it
 * into its cgroup (so the move is not a write of its own, counted in the
 * command's wchar), then its mask and output, then the exec.  What
 * failed goes up efd (an errno); t_exec gets the clock and the child's
 * CPU just before the exec. */
static _Noreturn void exec_cmd(struct workload *w, int efd, struct at_exec *t_exec)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);  /* benchtop gone while it waits */
	if (w->cg_fd >= 0)
		raise(SIGSTOP);
	int e = -child_setup(-1, 0, mask_for(w, "cmd"), w->ncpu);
	if (e) {
		e = -e;
		if (write(efd, &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	quiet_output(w->run);
	/* benchtop's own descriptors (libproc2's /proc files, records) are
	 * not the command's: none is inherited */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	fdlimit_child();
	if (t_exec) {
		struct rusage ru;
		if (getrusage(RUSAGE_SELF, &ru) == 0) {
			t_exec->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
			t_exec->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		}
		t_exec->t = clock_mono();
	}
	execvp(w->spec->argv[0], w->spec->argv);
	e = errno;
	if (write(efd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

static int spawn_cmd(struct workload *w, char *msg, size_t len)
{
	int ep[2];
	if (pipe2(ep, O_CLOEXEC) < 0)
		return -errno;
	/* the child's clock just before its exec, in memory it shares with
	 * benchtop (not through the pipe: what the command's process writes
	 * is its I/O) */
	struct at_exec *t_exec = mmap(NULL, sizeof *t_exec, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t_exec == MAP_FAILED)
		t_exec = NULL;
	else
		*t_exec = (struct at_exec){ 0 };
	sampler_will_add(w->sp, w->id);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(ep[0]);
		close(ep[1]);
		if (t_exec)
			munmap(t_exec, sizeof *t_exec);
		snprintf(msg, len, "cannot start %s: %s", w->name, strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(ep[0]);
		exec_cmd(w, ep[1], t_exec);
	}
	close(ep[1]);
	setpgid(pid, pid);
	int e = 0;
	ssize_t n = 0;
	/* into its cgroup before it runs a thing: nothing it starts can
	 * leave it */
	if (w->cg_fd >= 0) {
		int st = 0;
		pid_t got;
		do
			got = waitpid(pid, &st, WUNTRACED);
		while (got < 0 && errno == EINTR);
		int rc = got == pid && WIFSTOPPED(st) ? cgroup_move(w->cg_fd, pid) : -ECHILD;
		if (rc) {
			kill(pid, SIGKILL);
			e = rc;
			n = (ssize_t)sizeof e;
		} else {
			kill(pid, SIGCONT);
		}
	}
	if (!n)
		do
			n = read(ep[0], &e, sizeof e);
		while (n < 0 && errno == EINTR);
	close(ep[0]);
	/* The command's time starts at its exec: the child's clock just
	 * before it, so nothing the command does is before its start,
	 * however late benchtop runs again (not with benchtop's own set-up
	 * of the child). */
	struct at_exec at = t_exec ? *t_exec : (struct at_exec){ 0 };
	double t = at.t > 0 ? at.t : clock_mono();
	if (t_exec)
		munmap(t_exec, sizeof *t_exec);
	w->t_start += t - w->t_called;
	if (add_child(w, pid, 0, ROLE_CMD) == 0 && at.t > 0) {
		w->ch[w->nch - 1].setup_user = at.user;
		w->ch[w->nch - 1].setup_sys = at.sys;
	}
	if (n == (ssize_t)sizeof e && e < 0) {
		snprintf(msg, len, "cannot move \"%s\" into its cgroup %s: %s", w->spec->argv[0],
		         cgroup_path(w->cg), strerror(-e));
		snprintf(w->err, sizeof w->err, "%s", msg);
		return e;
	}
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
		if (w->spec->kind == WL_NET && (pfd[0] = engine_net_listen(w->spec)) < 0) {
			snprintf(msg, len, "cannot listen on 127.0.0.1 for %s: %s", w->name, strerror(-pfd[0]));
			return pfd[0];
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
				if (child_setup(w->cg_fd, pg, mask, w->ncpu))
					_exit(126);
				name_child(engine_role_name(w->plan.roles[r]));
				engine_child(w->spec, &w->plan, j, r, &w->ctr[j], pfd);
			}
			setpgid(pid, pg ? pg : pid);
			add_child(w, pid, j, r);
			sampler_add_slot(w->sp, pid, w->id, engine_role_name(w->plan.roles[r]), slot, false);
		}
		if (pfd[0] >= 0)
			close(pfd[0]);
		if (pfd[1] >= 0)
			close(pfd[1]);
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
		if (child_setup(w->cg_fd, 0, mask_for(w, "source"), w->ncpu))
			_exit(126);
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
void workload_source_done(struct workload *w, double now)
{
	char msg[320];
	w->src_ready = true;
	w->own.src = w->src_path;
	workload_forget_groups(w);
	/* the source writer's CPU is not the copy's */
	if (w->cg)
		cgroup_cpu(w->cg, &w->cg_base_user, &w->cg_base_sys);
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
	w->t_called = clock_mono();
	w->sp = sp;
	w->ncpu = ncpu;
	workload_set_mask(w, mask);
	workload_forget_groups(w);  /* the last run's, should any be left */
	w->nch = 0;
	w->sync_pid = 0;
	w->err[0] = 0;
	w->t_start = now;
	w->t_end = 0;
	w->t_reaped = 0;
	w->runs++;
	w->run_user0 = w->ru_user;
	w->run_sys0 = w->ru_sys;
	w->state = WLS_RUNNING;
	int rc = workload_prepare(w, msg, len);
	if (rc == 0) {
		if (w->ctr)
			memset(w->ctr, 0, sizeof *w->ctr * (size_t)w->nctr);
		rc = w->spec->kind == WL_ATTACHED ? workload_attach_start(w, msg, len) :
		     w->spec->kind == WL_CMD ? spawn_cmd(w, msg, len) :
		     workload_needs_source(w) ? spawn_source(w, msg, len) : spawn_engine(w, msg, len);
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

/* The destination's data is only safe once flushed: a command's run ends
 * with sync(2), timed, in a child so the loop never blocks on it.  The
 * child is benchtop's, not the command's: outside the workload's cgroup,
 * neither its bytes (its join of the cgroup is a write) nor its CPU are
 * the command's. */
void workload_start_sync(struct workload *w)
{
	pid_t pid = fork();
	if (pid == 0) {
		child_setup(-1, 0, NULL, 0);
		sync();
		_exit(0);
	}
	if (pid > 0)
		w->sync_pid = pid;
}

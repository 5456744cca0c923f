/* attach.c - --attach: which processes benchtop may attach to, what each
 * was like when benchtop found it (affinity, stopped or not), and putting
 * that back at exit. */
#include "benchtop/app.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchtop/affinity.h"
#include "benchtop/cpulist.h"
#include "benchtop/journal.h"
#include "benchtop/ptree.h"
#include "benchtop/xalloc.h"

/* One process as benchtop found it. */
struct found {
	pid_t pid;
	unsigned long long start;   /* its start time: a reused PID is someone else */
	unsigned char *mask;        /* its affinity, NULL when it could not be read */
	bool stopped;               /* stopped (T) when found */
};

struct attach_state {
	struct found *f;
	size_t n, cap;
};

int attach_check(pid_t pid, char *msg, size_t len)
{
	if (pid == 1) {
		snprintf(msg, len, "--attach 1: PID 1 (init) is not attached: every process on the "
		         "machine descends from it, and pinning it would pin everything it starts; "
		         "give the PIDs of the processes to watch");
		return -EINVAL;
	}
	char st = ptree_state(pid);
	if (!st) {
		snprintf(msg, len, "--attach: no process %d (give PIDs of running processes)", (int)pid);
		return -ESRCH;
	}
	/* benchtop itself or a process it runs under: pausing or pinning it
	 * would stop or pin benchtop too (a pause would never be undone) */
	int up = 0;
	for (pid_t p = getpid(); p > 1 && up++ < 4096; p = ptree_parent(p))
		if (p == pid) {
			snprintf(msg, len, "--attach %d: PID %d is %s: benchtop does not steer itself "
			         "or a process it runs under; give the PIDs of other processes", (int)pid,
			         (int)pid, p == getpid() ? "benchtop itself" : "an ancestor of benchtop");
			return -EINVAL;
		}
	if (ptree_is_kernel_thread(pid)) {
		snprintf(msg, len, "--attach %d: PID %d is a kernel thread: its placement is the "
		         "kernel's, and benchtop steers only user processes", (int)pid, (int)pid);
		return -EINVAL;
	}
	return 0;
}

static struct found *find(const struct app *a, pid_t pid)
{
	const struct attach_state *s = a->attach.st;
	for (size_t i = 0; s && i < s->n; i++)
		if (s->f[i].pid == pid)
			return &s->f[i];
	return NULL;
}

void attach_remember(struct app *a, pid_t pid)
{
	if (!a->attach.n || find(a, pid))
		return;
	struct attach_state *s = a->attach.st ? a->attach.st : (a->attach.st = xcalloc(1, sizeof *s));
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->f = xreallocarray(s->f, s->cap, sizeof *s->f);
	}
	struct found *f = &s->f[s->n++];
	*f = (struct found){ .pid = pid, .start = journal_proc_starttime(pid),
	                     .stopped = ptree_state(pid) == 'T' };
	f->mask = xmalloc((size_t)a->ncpu);
	if (affinity_get_pid(pid, f->mask, a->ncpu) < 0) {
		free(f->mask);
		f->mask = NULL;
	}
}

bool attach_found_stopped(const struct app *a, pid_t pid)
{
	const struct found *f = find(a, pid);
	return f && f->stopped;
}

/* Still the process benchtop found, not a new one with its PID. */
static bool same_process(const struct found *f)
{
	unsigned long long now = journal_proc_starttime(f->pid);
	return now && now == f->start;
}

/* Put back the affinity each re-pinned process had; say what could not. */
static void put_back_affinity(struct app *a)
{
	struct attach_state *s = a->attach.st;
	unsigned char *now = xcalloc((size_t)a->ncpu, 1);
	for (size_t i = 0; s && i < s->n; i++) {
		struct found *f = &s->f[i];
		if (!f->mask || !same_process(f))
			continue;
		if (affinity_get_pid(f->pid, now, a->ncpu) == 0 && !memcmp(now, f->mask, (size_t)a->ncpu))
			continue;
		char msg[200] = "";
		if (affinity_set_pid(f->pid, f->mask, a->ncpu, msg, sizeof msg) < 0) {
			char *list = cpulist_text(f->mask, a->ncpu);
			fprintf(stderr, "benchtop: cannot put back the affinity of PID %d (CPUs %s): %s\n",
			        (int)f->pid, list ? list : "?", msg[0] ? msg : "refused");
			free(list);
		}
	}
	free(now);
}

void attach_restore(struct app *a)
{
	if (!a->attach.n)
		return;
	action_signal_release(app_actions(a));
	/* Attached processes go on after benchtop: the ones benchtop paused
	 * run again; one that was stopped when found stays stopped. */
	if (a->ac.paused) {
		for (size_t i = 0; i < a->attach.n; i++)
			if (!attach_found_stopped(a, a->attach.pids[i]))
				kill(a->attach.pids[i], SIGCONT);
		a->ac.paused = false;
		struct event e;
		event_init(&e, EV_RESUME, app_now(a), "resume");
		snprintf(e.d.why.why, sizeof e.d.why.why, "exit");
		app_event(a, &e, true);
	}
	/* none is paused by benchtop now: a later --restore must not resume it */
	for (size_t i = 0; i < a->attach.n; i++)
		journal_note_resumed(a->attach.pids[i]);
	if (!a->run->leave_placement)
		put_back_affinity(a);
}

void attach_free(struct app *a)
{
	struct attach_state *s = a->attach.st;
	for (size_t i = 0; s && i < s->n; i++)
		free(s->f[i].mask);
	if (s)
		free(s->f);
	free(s);
	a->attach.st = NULL;
}

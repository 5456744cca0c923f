/* loop.c - one poll() loop over a timerfd, a signalfd, the terminal and
 * any added descriptors (see loop.h). */
#include "benchtop/loop.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/clock.h"
#include "benchtop/xalloc.h"

struct watched {
	int fd;
	short events;
	loop_fd_fn fn;
	void *ctx;
};

struct loop {
	int tfd, sfd, term;
	double next, interval;          /* the grid; interval 0: one shot or none */
	struct watched fds[LOOP_MAX_FDS];
	int nfds;
	int pending[LOOP_MAX_SIGS];     /* read by loop_wait_signal, not yet reported */
	int npending;
};

int loop_quit_signals(int *sig, int max)
{
	static const int fixed[] = {
		SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGVTALRM,
		SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT,
	};
	int n = 0;
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed && n < max; i++)
		sig[n++] = fixed[i];
	for (int s = SIGRTMIN; s <= SIGRTMAX && n < max; s++)
		sig[n++] = s;
	return n;
}

/* What the kernel raised for benchtop's own write to a closed pipe or past
 * its file size limit: the write failed with EPIPE or EFBIG, which its
 * caller reports. */
static bool own_write_signal(const struct signalfd_siginfo *si)
{
	return (si->ssi_signo == SIGPIPE || si->ssi_signo == SIGXFSZ) &&
	       si->ssi_code == SI_USER && si->ssi_pid == (uint32_t)getpid();
}

struct loop *loop_new(const int *signals, int nsig)
{
	struct loop *l = xcalloc(1, sizeof *l);
	sigset_t set;

	sigemptyset(&set);
	for (int i = 0; i < nsig; i++)
		sigaddset(&set, signals[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	l->term = -1;
	l->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->sfd < 0 || l->tfd < 0) {
		int e = errno;
		loop_free(l);
		errno = e;
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	if (l->tfd >= 0)
		close(l->tfd);
	if (l->sfd >= 0)
		close(l->sfd);
	free(l);
}

void loop_set_term(struct loop *l, int fd)
{
	l->term = fd;
}

/* The timer at t (0: off), then every interval after it when that is
 * above 0: the kernel keeps the grid, so a tick costs no call to set it
 * again. */
static void arm(struct loop *l, double t, double interval)
{
	struct itimerspec its = { 0 };

	if (t > 0) {
		its.it_value.tv_sec = (time_t)t;
		its.it_value.tv_nsec = (long)((t - floor(t)) * 1e9);
		if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
			its.it_value.tv_nsec = 1;
		if (interval > 0) {
			its.it_interval.tv_sec = (time_t)interval;
			its.it_interval.tv_nsec = (long)((interval - floor(interval)) * 1e9);
			if (its.it_interval.tv_sec == 0 && its.it_interval.tv_nsec == 0)
				its.it_interval.tv_nsec = 1;
		}
	}
	timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

void loop_grid(struct loop *l, double next, double interval)
{
	l->next = next;
	l->interval = interval;
	arm(l, next, interval);
}

double loop_grid_next(const struct loop *l)
{
	return l->interval > 0 ? l->next : 0;
}

void loop_timer_at(struct loop *l, double t)
{
	double now = clock_mono();

	l->interval = 0;
	l->next = 0;
	if (t > 0 && t < now + 1e-4)
		t = now + 1e-4;
	arm(l, t, 0);
}

int loop_add_fd(struct loop *l, int fd, short events, loop_fd_fn fn, void *ctx)
{
	for (int i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd)
			return -EEXIST;
	if (l->nfds == LOOP_MAX_FDS)
		return -ENOSPC;
	l->fds[l->nfds++] = (struct watched){ fd, events, fn, ctx };
	return 0;
}

void loop_remove_fd(struct loop *l, int fd)
{
	for (int i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd) {
			l->fds[i] = l->fds[--l->nfds];
			return;
		}
}

/* Each signal once, at its first arrival: a burst of one queued
 * real-time signal takes one slot, so every distinct signal (a quit among
 * them) always finds room. */
_Static_assert(LOOP_MAX_SIGS >= _NSIG - 1, "a slot for every signal number");

static void note_signal(int *sig, int *n, int signo)
{
	for (int i = 0; i < *n; i++)
		if (sig[i] == signo)
			return;
	if (*n < LOOP_MAX_SIGS)
		sig[(*n)++] = signo;
}

/* The timer expired: on the grid, the next tick after now (the kernel's
 * timer goes on by itself, skipping the ticks a late wake missed as this
 * does). */
static void timer_fired(struct loop *l)
{
	uint64_t exp;

	if (read(l->tfd, &exp, sizeof exp) < 0)
		return;
	if (l->interval > 0) {
		double now = clock_mono();
		while (l->next <= now)
			l->next += l->interval;
	}
}

int loop_wait(struct loop *l, int timeout_ms, struct loop_wake *w)
{
	struct pollfd pfd[3 + LOOP_MAX_FDS] = {
		{ .fd = l->tfd, .events = POLLIN },
		{ .fd = l->sfd, .events = POLLIN },
		{ .fd = l->term, .events = POLLIN },
	};
	struct watched fds[LOOP_MAX_FDS];
	int nfds = l->nfds;

	memset(w, 0, sizeof *w);
	for (int i = 0; i < l->npending; i++)
		note_signal(w->sig, &w->nsig, l->pending[i]);
	l->npending = 0;
	memcpy(fds, l->fds, sizeof fds);   /* callbacks may add or remove */
	for (int i = 0; i < nfds; i++)
		pfd[3 + i] = (struct pollfd){ .fd = fds[i].fd, .events = fds[i].events };
	if (poll(pfd, (nfds_t)(3 + nfds), w->nsig ? 0 : timeout_ms) < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd[0].revents) {
		timer_fired(l);
		w->timer = true;
	}
	if (pfd[1].revents) {
		struct signalfd_siginfo si;
		while (read(l->sfd, &si, sizeof si) == (ssize_t)sizeof si)
			if (!own_write_signal(&si))
				note_signal(w->sig, &w->nsig, (int)si.ssi_signo);
	}
	w->term = pfd[2].revents;
	for (int i = 0; i < nfds; i++)
		if (pfd[3 + i].revents) {
			w->nfds++;
			fds[i].fn(fds[i].ctx, fds[i].fd, pfd[3 + i].revents);
		}
	return 0;
}

bool loop_wait_signal(struct loop *l, int signo, double deadline)
{
	for (;;) {
		struct signalfd_siginfo si;
		bool got = false;
		while (read(l->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
			if ((int)si.ssi_signo == signo)
				got = true;
			else if (!own_write_signal(&si))
				note_signal(l->pending, &l->npending, (int)si.ssi_signo);
		}
		if (got)
			return true;
		double left = deadline - clock_mono();
		if (left <= 0)
			return false;
		struct pollfd pfd = { .fd = l->sfd, .events = POLLIN };
		if (poll(&pfd, 1, (int)ceil(left * 1000)) < 0 && errno != EINTR)
			return false;
	}
}

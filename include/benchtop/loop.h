/* loop.h - the one event loop of live runs, replays and experiments: a
 * poll() over a CLOCK_MONOTONIC timerfd (ticks on an absolute grid, or
 * one shot at an absolute time), a signalfd, the terminal, and any other
 * descriptor a feature adds with its own callback.  No sleeping, no
 * signal handlers, no threads.
 *
 * Call order: loop_new (blocks the given signals and reads them from its
 * signalfd), then loop_set_term / loop_grid / loop_timer_at / loop_add_fd
 * as needed, then loop_wait once per iteration (the caller draws after
 * it, once), loop_free. */
#ifndef BENCHTOP_LOOP_H
#define BENCHTOP_LOOP_H

#include <stdbool.h>
#include <stddef.h>

#define LOOP_MAX_FDS 8      /* descriptors added with loop_add_fd */
#define LOOP_MAX_SIGS 64    /* signals one wake-up reports: each number once */

struct loop;

/* What one loop_wait saw. */
struct loop_wake {
	bool timer;             /* the timer expired (a grid tick, or the one shot) */
	short term;             /* the terminal's revents (POLLIN, POLLHUP...), 0 if quiet */
	int nfds;               /* added descriptors that were ready (callbacks ran) */
	int nsig;               /* distinct signals read, in order of first arrival */
	int sig[LOOP_MAX_SIGS];
};

/* Called from loop_wait when fd is ready; revents as poll() gives them. */
typedef void (*loop_fd_fn)(void *ctx, int fd, short revents);

/* The signals that end a run as SIGTERM does (restored governors, no
 * child left, the summary): INT, TERM, HUP, QUIT, USR1, USR2, PIPE and
 * every other signal that ends a process by default and is not a fault
 * (ALRM, VTALRM, PROF, XCPU, XFSZ, IO, PWR, STKFLT, the real-time ones).
 * Up to max of them into sig; returns how many. */
int loop_quit_signals(int *sig, int max);
/* Most signals a caller's list can hold: loop_quit_signals plus a few. */
#define LOOP_SIG_LIST 64

/* A loop whose signalfd reads signals[0..nsig) (blocked from here on).
 * A SIGPIPE or SIGXFSZ the kernel raised for benchtop's own write is not
 * reported (the write's error says it); one sent by another process is.
 * NULL with errno set when the descriptors cannot be made. */
struct loop *loop_new(const int *signals, int nsig);
/* Closes its descriptors (not the terminal's, not added ones); NULL-safe. */
void loop_free(struct loop *l);

/* Watch fd (-1: none) for input as the terminal. */
void loop_set_term(struct loop *l, int fd);
/* Ticks on the grid next, next + interval, ...: a late wake-up does not
 * shift later ticks (missed ones are skipped, not queued). */
void loop_grid(struct loop *l, double next, double interval);
/* The next grid tick (CLOCK_MONOTONIC seconds); 0 when not on a grid. */
double loop_grid_next(const struct loop *l);
/* One shot at CLOCK_MONOTONIC time t (clamped to now); t <= 0 disarms.
 * Leaves the grid. */
void loop_timer_at(struct loop *l, double t);

/* Watch fd for events; fn(ctx, fd, revents) runs inside loop_wait.
 * Returns 0, -EEXIST (already watched) or -ENOSPC (LOOP_MAX_FDS). */
int loop_add_fd(struct loop *l, int fd, short events, loop_fd_fn fn, void *ctx);
/* Stop watching fd (the caller closes it); unknown fds are ignored. */
void loop_remove_fd(struct loop *l, int fd);

/* Wait until something is ready or timeout_ms pass (-1: no limit), then
 * report it in *w: the timer is read (and re-armed on the grid), every
 * pending signal read, added fds' callbacks run.  Returns 0, or -errno
 * when poll fails (EINTR is a wake-up with nothing in it). */
int loop_wait(struct loop *l, int timeout_ms, struct loop_wake *w);
/* Wait for signal signo alone until CLOCK_MONOTONIC time deadline: true
 * when it came (other signals read meanwhile are reported by the next
 * loop_wait), false at the deadline.  For waiting on children (SIGCHLD)
 * without sleeping. */
bool loop_wait_signal(struct loop *l, int signo, double deadline);

#endif

/* test_loop.c - the event loop: grid ticks stay on their grid, a one-shot
 * timer fires once, signals arrive through the signalfd in order, an
 * added descriptor's callback runs, the terminal's readiness is reported,
 * and waiting for SIGCHLD ends when a child exits or at the deadline. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "benchtop/clock.h"
#include "benchtop/loop.h"

static const int sigs[] = { SIGUSR1, SIGUSR2, SIGCHLD };

static struct loop *new_loop(void)
{
	struct loop *l = loop_new(sigs, 3);
	assert_non_null(l);
	return l;
}

static void test_grid(void **state)
{
	(void)state;
	struct loop *l = new_loop();
	double t0 = clock_mono(), iv = 0.02;
	loop_grid(l, t0 + iv, iv);
	int ticks = 0;
	while (ticks < 5) {
		struct loop_wake w;
		double before = clock_mono();
		assert_int_equal(loop_wait(l, 1000, &w), 0);
		assert_true(w.timer);
		ticks++;
		/* the next tick is the first grid point after the wake: after
		 * the wait began, and the one before it already passed (no
		 * bound on how late this thread runs on a busy machine) */
		double next = loop_grid_next(l), k = (next - t0) / iv;
		assert_true(fabs(k - round(k)) < 1e-6);
		assert_true(next > before);
		assert_true(next - iv <= clock_mono() + 1e-9);
	}
	assert_true(clock_mono() - t0 >= 5 * iv - 1e-3);
	loop_free(l);
}

static void test_one_shot(void **state)
{
	(void)state;
	struct loop *l = new_loop();
	struct loop_wake w;
	double t0 = clock_mono();
	loop_timer_at(l, t0 + 0.03);
	assert_int_equal(loop_wait(l, 2000, &w), 0);
	assert_true(w.timer);
	assert_true(clock_mono() - t0 >= 0.029);
	assert_true(loop_grid_next(l) == 0);
	/* fired once: the next wait times out */
	assert_int_equal(loop_wait(l, 50, &w), 0);
	assert_false(w.timer);
	/* disarmed */
	loop_timer_at(l, clock_mono() + 0.01);
	loop_timer_at(l, 0);
	assert_int_equal(loop_wait(l, 50, &w), 0);
	assert_false(w.timer);
	loop_free(l);
}

static void test_signals(void **state)
{
	(void)state;
	struct loop *l = new_loop();
	struct loop_wake w;
	raise(SIGUSR2);
	raise(SIGUSR1);
	assert_int_equal(loop_wait(l, 1000, &w), 0);
	assert_int_equal(w.nsig, 2);
	assert_true((w.sig[0] == SIGUSR1 && w.sig[1] == SIGUSR2) ||
	            (w.sig[0] == SIGUSR2 && w.sig[1] == SIGUSR1));
	assert_false(w.timer);
	loop_free(l);
}

static int calls;
static short last_revents;

static void on_fd(void *ctx, int fd, short revents)
{
	char c;
	assert_ptr_equal(ctx, &calls);
	assert_int_equal(read(fd, &c, 1), 1);
	calls++;
	last_revents = revents;
}

static void test_fds_and_term(void **state)
{
	(void)state;
	struct loop *l = new_loop();
	struct loop_wake w;
	int p[2], t[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(t), 0);
	assert_int_equal(loop_add_fd(l, p[0], POLLIN, on_fd, &calls), 0);
	assert_int_equal(loop_add_fd(l, p[0], POLLIN, on_fd, &calls), -EEXIST);
	loop_set_term(l, t[0]);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(loop_wait(l, 1000, &w), 0);
	assert_int_equal(calls, 1);
	assert_int_equal(w.nfds, 1);
	assert_true(last_revents & POLLIN);
	assert_int_equal(w.term, 0);
	assert_int_equal(write(t[1], "k", 1), 1);
	assert_int_equal(loop_wait(l, 1000, &w), 0);
	assert_true(w.term & POLLIN);
	assert_int_equal(calls, 1);
	/* the terminal going away is reported too */
	char c;
	assert_int_equal(read(t[0], &c, 1), 1);
	close(t[1]);
	assert_int_equal(loop_wait(l, 1000, &w), 0);
	assert_true(w.term & POLLHUP);
	loop_remove_fd(l, p[0]);
	assert_int_equal(write(p[1], "y", 1), 1);
	loop_set_term(l, -1);
	assert_int_equal(loop_wait(l, 30, &w), 0);
	assert_int_equal(calls, 1);
	close(p[0]);
	close(p[1]);
	close(t[0]);
	loop_free(l);
}

static void test_wait_signal(void **state)
{
	(void)state;
	struct loop *l = new_loop();
	double t0 = clock_mono();
	/* nothing comes: false at the deadline, not before */
	assert_false(loop_wait_signal(l, SIGCHLD, t0 + 0.05));
	assert_true(clock_mono() - t0 >= 0.049);
	/* a child's exit wakes it long before the deadline; a signal that
	 * came meanwhile is kept for the next loop_wait */
	raise(SIGUSR1);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	t0 = clock_mono();
	/* true: woken by the signal (at the deadline it says false) */
	assert_true(loop_wait_signal(l, SIGCHLD, t0 + 10));
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	struct loop_wake w;
	assert_int_equal(loop_wait(l, 1000, &w), 0);
	assert_int_equal(w.nsig, 1);
	assert_int_equal(w.sig[0], SIGUSR1);
	loop_free(l);
}

/* A burst of one queued real-time signal, then another signal: each is
 * reported (once), whether loop_wait reads them or loop_wait_signal sets
 * them aside; and every quit signal raised at once is reported. */
static void test_signal_burst(void **state)
{
	(void)state;
	int q[LOOP_SIG_LIST];
	int nq = loop_quit_signals(q, LOOP_SIG_LIST);
	struct loop *l = loop_new(q, nq);
	assert_non_null(l);
	pid_t me = getpid();
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 100; i++)
			assert_int_equal(sigqueue(me, SIGRTMIN, (union sigval){ .sival_int = i }), 0);
		assert_int_equal(sigqueue(me, SIGRTMAX, (union sigval){ 0 }), 0);
		if (pass == 1)  /* read and set aside while waiting for SIGCHLD */
			assert_false(loop_wait_signal(l, SIGCHLD, clock_mono() + 0.01));
		struct loop_wake w;
		assert_int_equal(loop_wait(l, 1000, &w), 0);
		assert_int_equal(w.nsig, 2);
		assert_int_equal(w.sig[0], SIGRTMIN);
		assert_int_equal(w.sig[1], SIGRTMAX);
	}
	for (int i = 0; i < nq; i++)
		assert_int_equal(raise(q[i]), 0);
	struct loop_wake w;
	assert_int_equal(loop_wait(l, 1000, &w), 0);
	assert_int_equal(w.nsig, nq);
	for (int i = 0; i < nq; i++) {
		int seen = 0;
		for (int k = 0; k < w.nsig; k++)
			seen += w.sig[k] == q[i];
		assert_int_equal(seen, 1);
	}
	loop_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid),
		cmocka_unit_test(test_one_shot),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_fds_and_term),
		cmocka_unit_test(test_wait_signal),
		cmocka_unit_test(test_signal_burst),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_proc.c - libproc2 look-ups of one process: the start time agrees
 * with /proc/PID/stat read by hand, every thread is listed (a thread
 * started here is found by its tid), a zombie's write_bytes is readable
 * before it is reaped, and a reaped process answers "gone". */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "benchtop/proc.h"

/* Field 22 of /proc/PID/stat, parsed here independently. */
static unsigned long long stat_start(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	assert_non_null(p);
	unsigned long long v = 0;
	int field = 2;
	for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " "))
		if (++field == 22) {
			v = strtoull(tok, NULL, 10);
			break;
		}
	return v;
}

static void test_start_ticks(void **state)
{
	(void)state;
	unsigned long long t = proc_start_ticks(getpid());
	assert_true(t > 0);
	assert_true(t == stat_start(getpid()));
	assert_true(proc_start_ticks(getppid()) == stat_start(getppid()));
	assert_true(proc_start_ticks(0) == 0);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pid_t thread_tid;
static int release;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	thread_tid = gettid();
	pthread_cond_broadcast(&cv);
	while (!release)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

struct seen { pid_t want[2]; int found[2], n; };

static void note(void *ctx, pid_t tid)
{
	struct seen *s = ctx;
	s->n++;
	for (int i = 0; i < 2; i++)
		if (tid == s->want[i])
			s->found[i]++;
}

static void test_threads(void **state)
{
	(void)state;
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, thread_main, NULL), 0);
	pthread_mutex_lock(&mu);
	while (!thread_tid)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	struct seen s = { { getpid(), thread_tid }, { 0, 0 }, 0 };
	assert_int_equal(proc_each_thread(getpid(), note, &s), 0);
	assert_int_equal(s.found[0], 1);
	assert_int_equal(s.found[1], 1);
	assert_true(s.n >= 2);

	pthread_mutex_lock(&mu);
	release = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
}

static void test_zombie_and_gone(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	/* a zombie until reaped: wait for the state without reaping */
	siginfo_t si;
	memset(&si, 0, sizeof si);
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	uint64_t wb = 12345;
	assert_int_equal(proc_write_bytes(pid, &wb), 0);
	assert_true(wb == 0);   /* it wrote nothing */
	assert_int_equal(waitpid(pid, NULL, 0), pid);

	struct seen s = { { pid, 0 }, { 0, 0 }, 0 };
	assert_int_equal(proc_each_thread(pid, note, &s), -ESRCH);
	assert_int_equal(s.n, 0);
	assert_int_equal(proc_write_bytes(pid, &wb), -ESRCH);
	assert_true(proc_start_ticks(pid) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_ticks),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_zombie_and_gone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_leftovers.c - what --restore does with a killed run's leftovers:
 * process groups ended only when they are still the run's, paused
 * processes resumed only when they are the same process, scratch removed
 * without following symbolic links and only under benchtop's names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/journal.h"
#include "benchtop/leftovers.h"

static char base[128];

static int setup_all(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/benchtop-leftovers-test.XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown_all(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void touch(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void test_remove(void **state)
{
	char dir[PATH_MAX], sub[PATH_MAX + 16], f[PATH_MAX + 32], outside[PATH_MAX + 16],
	     link[PATH_MAX + 32], msg[PATH_MAX + 128];

	(void)state;
	snprintf(outside, sizeof(outside), "%s/keep", base);
	touch(outside, "mine\n");
	snprintf(dir, sizeof(dir), "%s/benchtop.abc", base);
	snprintf(sub, sizeof(sub), "%s/deep", dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(f, sizeof(f), "%s/benchtop-src.x", sub);
	touch(f, "data\n");
	snprintf(link, sizeof(link), "%s/link", sub);
	assert_int_equal(symlink(base, link), 0); /* a link to a directory outside */
	assert_int_equal(leftover_remove(dir, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "removed scratch directory"));
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(access(outside, F_OK), 0); /* never followed */
	/* gone already: nothing to do */
	assert_int_equal(leftover_remove(dir, msg, sizeof(msg)), 0);
	/* a file, and names benchtop does not make */
	snprintf(f, sizeof(f), "%s/benchtop-dst.y", base);
	touch(f, "x");
	assert_int_equal(leftover_remove(f, msg, sizeof(msg)), 1);
	assert_int_equal(access(f, F_OK), -1);
	assert_int_equal(leftover_remove(outside, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "left alone"));
	assert_int_equal(access(outside, F_OK), 0);
	assert_int_equal(leftover_remove("/tmp/../etc/benchtop", msg, sizeof(msg)), -EINVAL);
}

/* A process group of two sleeping processes; returns its leader. */
static pid_t group(pid_t *grandchild)
{
	int fd[2];
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		pid_t g = fork();
		if (g == 0) {
			execlp("sleep", "sleep", "300", (char *)NULL);
			_exit(127);
		}
		if (write(fd[1], &g, sizeof g) != sizeof g)
			_exit(1);
		execlp("sleep", "sleep", "300", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(read(fd[0], grandchild, sizeof *grandchild), (ssize_t)sizeof *grandchild);
	close(fd[0]);
	close(fd[1]);
	setpgid(pid, pid);
	return pid;
}

static bool gone(pid_t pid)
{
	char path[64], st = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(fp = fopen(path, "r")))
		return true;
	int n = fscanf(fp, "%*d (%*[^)]) %c", &st);
	fclose(fp);
	return n == 1 && st == 'Z';
}

static void test_kill_pgid(void **state)
{
	char msg[256];
	pid_t g, pid = group(&g);
	unsigned long long st;

	(void)state;
	/* wait until the leader runs sleep (its start time is then fixed) */
	for (int i = 0; i < 100 && !(st = journal_proc_starttime(pid)); i++)
		usleep(10000);
	/* a leader with another start time: a reused PID, left alone */
	assert_int_equal(leftover_kill_pgid(pid, st + 1, 0, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "no longer the run's"));
	assert_false(gone(pid));
	/* a run that started after these processes: not its, left alone */
	assert_int_equal(leftover_kill_pgid(pid, st, st + 1000, msg, sizeof(msg)), 0);
	assert_false(gone(g));
	/* the run's: ended */
	assert_true(leftover_kill_pgid(pid, st, st, msg, sizeof(msg)) >= 2);
	assert_non_null(strstr(msg, "ended"));
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	for (int i = 0; i < 200 && !gone(g); i++)
		usleep(10000);
	assert_true(gone(g));
	/* nothing left: nothing to do */
	assert_int_equal(leftover_kill_pgid(pid, st, st, msg, sizeof(msg)), 0);
}

static char state_of(pid_t pid)
{
	char path[64], st = '?';
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fp = fopen(path, "r"))) {
		if (fscanf(fp, "%*d (%*[^)]) %c", &st) != 1)
			st = '?';
		fclose(fp);
	}
	return st;
}

static void test_resume(void **state)
{
	char msg[256];
	pid_t pid = fork();

	(void)state;
	if (pid == 0) {
		execlp("sleep", "sleep", "300", (char *)NULL);
		_exit(127);
	}
	usleep(100000);
	unsigned long long st = journal_proc_starttime(pid);
	kill(pid, SIGSTOP);
	for (int i = 0; i < 100 && state_of(pid) != 'T'; i++)
		usleep(10000);
	assert_int_equal(state_of(pid), 'T');
	assert_int_equal(leftover_resume(pid, st + 1, msg, sizeof(msg)), 0); /* not the same process */
	assert_int_equal(state_of(pid), 'T');
	assert_int_equal(leftover_resume(pid, st, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "resumed"));
	for (int i = 0; i < 100 && state_of(pid) == 'T'; i++)
		usleep(10000);
	assert_int_not_equal(state_of(pid), 'T');
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_cgroup_refused(void **state)
{
	char msg[PATH_MAX + 64];

	(void)state;
	/* not on a cgroup file system: never treated as one */
	assert_int_equal(leftover_kill_cgroup(base, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "not a cgroup"));
	assert_int_equal(access(base, F_OK), 0);
	assert_int_equal(leftover_kill_cgroup("/nonexistent/benchtop-1", msg, sizeof(msg)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remove),
		cmocka_unit_test(test_kill_pgid),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_cgroup_refused),
	};
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}

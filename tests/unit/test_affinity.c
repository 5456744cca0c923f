/* test_affinity.c - pinning real child processes (one with 3 threads) and
 * reading the kernel's answer from /proc/PID/task/TID/status, plus the
 * placement arithmetic and CPU checks against a fixture sysfs tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchtop/affinity.h"
#include "benchtop/cpulist.h"

#define BIG 128         /* a mask wider than 64 CPUs, as on big machines */

static int machine_ncpu(void)
{
	return (int)sysconf(_SC_NPROCESSORS_CONF);
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Forks a child with nthreads threads that sleep; returns once all exist
 * (the child says so through a pipe, so no guessed sleep). */
static pid_t spawn(int nthreads)
{
	int fd[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* a failed assertion in the parent must not leave children behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (int i = 1; i < nthreads; i++) {
			pthread_t t;
			if (pthread_create(&t, NULL, sleeper, NULL) != 0)
				_exit(1);
		}
		if (write(fd[1], "r", 1) != 1)
			_exit(1);
		sleeper(NULL);
	}
	close(fd[1]);
	assert_int_equal(read(fd[0], &c, 1), 1);
	close(fd[0]);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Cpus_allowed_list of one task, from the kernel's status file. */
static void task_allowed(pid_t pid, const char *tid, char *out, size_t len)
{
	char path[128], line[512];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%s/status", (int)pid, tid);
	assert_true(len >= 256);  /* the %255s below */
	f = fopen(path, "r");
	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Cpus_allowed_list: %255s", out) == 1)
			break;
	fclose(f);
}

/* Asserts every task of pid has Cpus_allowed_list == want; returns how
 * many tasks were checked. */
static int assert_all_tasks(pid_t pid, const char *want)
{
	char path[64], got[256];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	dir = opendir(path);
	assert_non_null(dir);
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		task_allowed(pid, d->d_name, got, sizeof got);
		if (strcmp(got, want) != 0)
			fail_msg("task %s of %d has Cpus_allowed_list %s, want %s",
				 d->d_name, (int)pid, got, want);
		n++;
	}
	closedir(dir);
	return n;
}

static void all_cpus_list(char *buf, size_t len)
{
	snprintf(buf, len, machine_ncpu() == 1 ? "0" : "0-%d", machine_ncpu() - 1);
}

static void test_pin_every_thread_to_cpu0(void **state)
{
	int ncpu = affinity_ncpu();
	unsigned char *mask = calloc((size_t)ncpu, 1);
	char msg[256] = "";
	pid_t pid = spawn(3);

	(void)state;
	mask[0] = 1;
	assert_int_equal(affinity_set_pid(pid, mask, ncpu, msg, sizeof msg), 0);
	assert_int_equal(assert_all_tasks(pid, "0"), 3);
	assert_true(affinity_pid_matches(pid, mask, ncpu));
	assert_non_null(strstr(msg, "3 threads"));
	reap(pid);
	free(mask);
}

/* Pinning, then freeing, through a 128-CPU mask: sizes above 64 work. */
static void test_free_gives_all_cpus(void **state)
{
	unsigned char pin[BIG] = { 0 }, all[BIG] = { 0 }, got[BIG];
	char msg[256], want[256];
	pid_t pid = spawn(3);

	(void)state;
	pin[0] = 1;
	assert_int_equal(affinity_set_pid(pid, pin, BIG, msg, sizeof msg), 0);
	assert_int_equal(assert_all_tasks(pid, "0"), 3);
	assert_int_equal(affinity_online("/sys", all, BIG), machine_ncpu());
	memcpy(got, all, BIG);
	assert_int_equal(affinity_set_pid(pid, got, BIG, msg, sizeof msg), 0);
	all_cpus_list(want, sizeof want);
	assert_int_equal(assert_all_tasks(pid, want), 3);
	assert_int_equal(affinity_get_pid(pid, got, BIG), 0);
	assert_memory_equal(got, all, BIG);
	reap(pid);
}

static void test_spread_two_processes(void **state)
{
	int ncpu = affinity_ncpu();
	unsigned char *all = calloc((size_t)ncpu, 1), *m0 = calloc((size_t)ncpu, 1),
		      *m1 = calloc((size_t)ncpu, 1);
	char msg[256], l0[64], l1[64], t0[256], t1[64];
	pid_t p0, p1;

	(void)state;
	if (ncpu < 2) {
		free(all); free(m0); free(m1);
		skip();
	}
	p0 = spawn(1);
	p1 = spawn(2);
	affinity_online("/sys", all, ncpu);
	/* two different online CPUs, one each */
	for (int c = 0, k = 0; c < ncpu && k < 2; c++)
		if (all[c])
			(k++ ? m1 : m0)[c] = 1;
	assert_int_equal(affinity_set_pid(p0, m0, ncpu, msg, sizeof msg), 0);
	assert_int_equal(affinity_set_pid(p1, m1, ncpu, msg, sizeof msg), 0);
	cpulist_format(m0, ncpu, l0, sizeof l0);
	cpulist_format(m1, ncpu, l1, sizeof l1);
	assert_int_equal(cpulist_count(m0, ncpu), 1);
	assert_int_equal(cpulist_count(m1, ncpu), 1);
	assert_string_not_equal(l0, l1);
	assert_int_equal(assert_all_tasks(p0, l0), 1);
	assert_int_equal(assert_all_tasks(p1, l1), 2);
	snprintf(t1, sizeof t1, "%d", (int)p1);
	task_allowed(p1, t1, t0, sizeof t0);
	assert_string_equal(t0, l1);
	reap(p0);
	reap(p1);
	free(all); free(m0); free(m1);
}

/* CPU 9 does not exist on a 2-CPU machine: refused, nothing changed. */
static void test_bad_cpu_changes_nothing(void **state)
{
	unsigned char mask[BIG] = { 0 };
	char msg[256] = "", want[256], expect[32];
	int bad = machine_ncpu() + 7;
	pid_t pid = spawn(3);

	char main_tid[32];

	(void)state;
	snprintf(main_tid, sizeof main_tid, "%d", (int)pid);
	task_allowed(pid, main_tid, want, sizeof want);
	assert_int_equal(assert_all_tasks(pid, want), 3);
	mask[0] = 1;
	mask[bad] = 1;
	assert_int_equal(affinity_set_pid(pid, mask, BIG, msg, sizeof msg), -EINVAL);
	snprintf(expect, sizeof expect, "CPU %d is out of range", bad);
	assert_non_null(strstr(msg, expect));
	assert_int_equal(assert_all_tasks(pid, want), 3);
	memset(mask, 0, sizeof mask);
	assert_int_equal(affinity_set_pid(pid, mask, BIG, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "empty"));
	assert_int_equal(assert_all_tasks(pid, want), 3);
	reap(pid);
}

static void test_exited_pid_is_esrch(void **state)
{
	unsigned char mask[BIG] = { 1 };
	char msg[256] = "", pidtext[32];
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(affinity_set_pid(pid, mask, BIG, msg, sizeof msg), -ESRCH);
	snprintf(pidtext, sizeof pidtext, "process %d ", (int)pid);
	assert_non_null(strstr(msg, pidtext));
	assert_false(affinity_pid_matches(pid, mask, BIG));
	assert_int_equal(affinity_get_pid(pid, mask, BIG), -ESRCH);
}

/* A non-root child may not pin its root parent: -EPERM naming the PID. */
static void test_foreign_pid_is_eperm(void **state)
{
	int fd[2], status;
	char msg[256] = "", want[32];
	pid_t pid;
	ssize_t n;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned char mask[BIG] = { 1 };
		char m[256] = "";
		int rc;

		close(fd[0]);
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(3);
		rc = affinity_set_pid(getppid(), mask, BIG, m, sizeof m);
		if (write(fd[1], m, strlen(m) + 1) < 0)
			_exit(4);
		_exit(rc == -EPERM ? 0 : 1);
	}
	close(fd[1]);
	n = read(fd[0], msg, sizeof msg - 1);
	close(fd[0]);
	assert_true(n > 0);
	msg[n] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	snprintf(want, sizeof want, "process %d", (int)getpid());
	assert_non_null(strstr(msg, want));
}

/* affinity_set_self in a child before exec: the child sees its new set. */
static void test_set_self_in_child(void **state)
{
	int status;
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned char mask[BIG] = { 1 }, got[BIG];
		unsigned char empty[BIG] = { 0 };

		if (affinity_set_self(mask, BIG) != 0)
			_exit(1);
		if (affinity_get_pid(getpid(), got, BIG) != 0 || memcmp(got, mask, BIG) != 0)
			_exit(2);
		_exit(affinity_set_self(empty, BIG) == -EINVAL ? 0 : 3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A fixture sysfs: cpu0 without an online file, cpu1 offline. */
static void make_sys(char *root, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(root, len, "/tmp/bt-affinity-XXXXXX");
	assert_non_null(mkdtemp(root));
	const char *dirs[] = { "devices", "devices/system", "devices/system/cpu",
			       "devices/system/cpu/cpu0", "devices/system/cpu/cpu1" };
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof path, "%s/devices/system/cpu/cpu1/online", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("0\n", f);
	fclose(f);
}

static void test_offline_cpu_from_fixture(void **state)
{
	unsigned char mask[BIG] = { 0 };
	char root[64], msg[256] = "", cmd[128];

	(void)state;
	if (machine_ncpu() < 2)
		skip();
	make_sys(root, sizeof root);
	assert_true(affinity_cpu_online(root, 0));
	assert_false(affinity_cpu_online(root, 1));
	assert_false(affinity_cpu_online(root, machine_ncpu()));
	assert_int_equal(affinity_online(root, mask, BIG), 1);
	assert_int_equal(mask[0], 1);
	mask[1] = 1;
	assert_int_equal(affinity_check_cpus(root, mask, BIG, msg, sizeof msg), -EINVAL);
	assert_string_equal(msg, "CPU 1 is offline: online CPUs are 0");
	mask[1] = 0;
	assert_int_equal(affinity_check_cpus(root, mask, BIG, msg, sizeof msg), 0);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_every_thread_to_cpu0),
		cmocka_unit_test(test_free_gives_all_cpus),
		cmocka_unit_test(test_spread_two_processes),
		cmocka_unit_test(test_bad_cpu_changes_nothing),
		cmocka_unit_test(test_exited_pid_is_esrch),
		cmocka_unit_test(test_foreign_pid_is_eperm),
		cmocka_unit_test(test_set_self_in_child),
		cmocka_unit_test(test_offline_cpu_from_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

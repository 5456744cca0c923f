/* test_journal.c - the run journal: format and parsing, the checks of
 * directories and files before a journal is read, the notes of this
 * process, locks, and refusing a policy another benchtop holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchtop/journal.h"

static char base[128];
static int seq;

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *fp = fopen(path, "r");
	size_t n;

	buf[0] = '\0';
	if (!fp)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void spit(const char *path, const char *text, size_t len)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	fclose(fp);
}

/* A fresh directory (mode 0700) for one test. */
static void fresh(char *dir)
{
	snprintf(dir, PATH_MAX, "%s/d%d", base, seq++);
	assert_int_equal(mkdir(dir, 0700), 0);
}

/* A pid that is certainly dead: a child we reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static int setup_all(void **state)
{
	char run[200];

	(void)state;
	snprintf(base, sizeof(base), "/tmp/benchtop-journal-test.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	snprintf(run, sizeof(run), "%s/run", base);
	mkdir(run, 0700);
	setenv("XDG_RUNTIME_DIR", run, 1); /* this process's journal stays here */
	return 0;
}

static int teardown_all(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

static const char full_text[] =
	"benchtop-journal 2\n"
	"pid 4321\n"
	"starttime 777\n"
	"boot_id 0f3c-aa\n"
	"sysfs /some%20root/with%25percent\n"
	"policy devices/system/cpu/cpufreq/policy0 ondemand 800000 2600000\n"
	"policy devices/system/cpu/cpufreq/policy1 - -1 -1\n"
	"sysfs /sys\n"
	"policy devices/system/cpu/cpu3/cpufreq schedutil 400000 3000000\n"
	"scratch /var/tmp/benchtop.a%20b\n"
	"pgid 5000 123\n"
	"cgroup /sys/fs/cgroup/benchtop-4321\n"
	"paused 6000 456\n";

static void test_parse_and_format(void **state)
{
	struct journal j, back;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(journal_parse(full_text, strlen(full_text), &j), 0);
	assert_int_equal(j.pid, 4321);
	assert_int_equal(j.starttime, 777);
	assert_string_equal(j.boot_id, "0f3c-aa");
	assert_int_equal(j.nroots, 2);
	assert_string_equal(j.roots[0], "/some root/with%percent");
	assert_int_equal(j.n, 3);
	assert_int_equal(j.pol[1].root, 0);
	assert_string_equal(j.pol[1].governor, "");
	assert_int_equal(j.pol[1].max_khz, -1);
	assert_int_equal(j.pol[2].root, 1);
	assert_string_equal(j.pol[2].governor, "schedutil");
	assert_int_equal(j.nscratch, 1);
	assert_string_equal(j.scratch[0], "/var/tmp/benchtop.a b");
	assert_int_equal(j.npgid, 1);
	assert_int_equal(j.pgid[0].pid, 5000);
	assert_int_equal(j.pgid[0].starttime, 123);
	assert_string_equal(j.cgroup[0], "/sys/fs/cgroup/benchtop-4321");
	assert_int_equal(j.paused[0].pid, 6000);
	char path[PATH_MAX + 64];
	journal_policy_path(&j, 2, path, sizeof(path));
	assert_string_equal(path, "/sys/devices/system/cpu/cpu3/cpufreq");
	/* format gives the same text back */
	assert_int_equal(journal_format(&j, &text, &len), 0);
	assert_string_equal(text, full_text);
	assert_int_equal(journal_parse(text, len, &back), 0);
	assert_int_equal(back.n, 3);
	free(text);
	journal_free(&back);
	journal_free(&j);
}

static void test_parse_version1(void **state)
{
	const char *v1 = "benchtop-journal 1\npid 99\nstarttime 5\nboot_id -\n"
	                 "sysfs /a root/x\npolicy devices/system/cpu/cpufreq/policy0 ondemand 800000 2600000\n";
	struct journal j;

	(void)state;
	assert_int_equal(journal_parse(v1, strlen(v1), &j), 0);
	assert_string_equal(j.roots[0], "/a root/x");
	assert_int_equal(j.n, 1);
	journal_free(&j);
	/* a version 1 root must be a clean path too (or "/"): what is read
	 * is written back as version 2 and must read again */
	const char *slash = "benchtop-journal 1\npid 99\nsysfs /x y/\n";
	assert_int_equal(journal_parse(slash, strlen(slash), &j), -EINVAL);
	const char *root = "benchtop-journal 2\npid 99\nsysfs /\npolicy devices/x ondemand 1 2\n";
	assert_int_equal(journal_parse(root, strlen(root), &j), 0);
	assert_string_equal(j.roots[0], "/");
	char path[PATH_MAX];
	journal_policy_path(&j, 0, path, sizeof(path));
	assert_string_equal(path, "/devices/x");
	journal_free(&j);
	/* version 1 has no scratch lines */
	const char *bad = "benchtop-journal 1\npid 99\nscratch /tmp/benchtop.x\n";
	assert_int_equal(journal_parse(bad, strlen(bad), &j), -EINVAL);
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"not a journal\npid 4\n",
		"benchtop-journal 3\npid 4\n",
		"benchtop-journal 2\n",                                   /* no pid */
		"benchtop-journal 2\npid 1\n",                            /* never PID 1 */
		"benchtop-journal 2\npid 0\n",
		"benchtop-journal 2\npid -5\n",
		"benchtop-journal 2\npid 99999999999\n",
		"benchtop-journal 2\npid 4\npolicy a ondemand 1 2\n",     /* no sysfs before */
		"benchtop-journal 2\npid 4\nsysfs /x\npolicy ../../etc ondemand 1 2\n",
		"benchtop-journal 2\npid 4\nsysfs /x\npolicy a/../../b ondemand 1 2\n",
		"benchtop-journal 2\npid 4\nsysfs /x\npolicy /etc ondemand 1 2\n",
		"benchtop-journal 2\npid 4\nsysfs /x\npolicy a on/demand 1 2\n",
		"benchtop-journal 2\npid 4\nsysfs /x\npolicy a ondemand 0 2\n",
		"benchtop-journal 2\npid 4\nsysfs /x\npolicy a ondemand 1 200000000\n",
		"benchtop-journal 2\npid 4\nsysfs /x\npolicy a ondemand 1 2 3\n",
		"benchtop-journal 2\npid 4\nsysfs /x\npolicy a ondemand 1\n",
		"benchtop-journal 2\npid 4\nsysfs relative\n",
		"benchtop-journal 2\npid 4\nscratch tmp/benchtop.x\n",
		"benchtop-journal 2\npid 4\nscratch /\n",
		"benchtop-journal 2\npid 4\nscratch /tmp/../etc\n",
		"benchtop-journal 2\npid 4\nscratch /tmp/a%00b\n",
		"benchtop-journal 2\npid 4\nscratch /tmp/a%zz\n",
		"benchtop-journal 2\npid 4\npgid 1 5\n",
		"benchtop-journal 2\npid 4\npaused 7\n",
		"benchtop-journal 2\npid 4\ncgroup sys/fs\n",
		"benchtop-journal 2\npid 4\nboot_id ../x\n",
		"benchtop-journal 2\npid 4\nsomething else\n",
	};
	struct journal j;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		int rc = journal_parse(bad[i], strlen(bad[i]), &j);
		if (rc != -EINVAL)
			fail_msg("accepted or wrong error (%d) for: %s", rc, bad[i]);
	}
	/* a NUL byte anywhere */
	static const char nul[] = "benchtop-journal 2\npid 4\0\n";
	assert_int_equal(journal_parse(nul, sizeof(nul) - 1, &j), -EINVAL);
}

static void test_dir_path(void **state)
{
	char dir[PATH_MAX], saved[PATH_MAX];

	(void)state;
	snprintf(saved, sizeof(saved), "%s", getenv("XDG_RUNTIME_DIR"));
	setenv("XDG_RUNTIME_DIR", "/run/user/1234", 1);
	assert_int_equal(journal_dir_path(dir, sizeof(dir)), 0);
	assert_string_equal(dir, "/run/user/1234/benchtop");
	unsetenv("XDG_RUNTIME_DIR");
	setenv("TMPDIR", "/tmp", 1);
	assert_int_equal(journal_dir_path(dir, sizeof(dir)), 0);
	if (geteuid() == 0)
		assert_string_equal(dir, "/run/benchtop");
	else
		assert_non_null(strstr(dir, "/.local/state/benchtop"));
	assert_null(strstr(dir, "/tmp")); /* never a shared temporary directory */
	setenv("XDG_RUNTIME_DIR", saved, 1);
}

static void test_dir_checks(void **state)
{
	char dir[PATH_MAX], sub[PATH_MAX + 16], link[PATH_MAX + 16], why[PATH_MAX + 200];
	int fd;

	(void)state;
	fresh(dir);
	assert_int_equal(journal_open_dir(dir, false, &fd, why, sizeof(why)), 0);
	close(fd);
	/* missing: made on request, 0700 */
	snprintf(sub, sizeof(sub), "%s/a/benchtop", dir);
	assert_int_equal(journal_open_dir(sub, false, &fd, why, sizeof(why)), -ENOENT);
	assert_int_equal(journal_open_dir(sub, true, &fd, why, sizeof(why)), 0);
	close(fd);
	struct stat st;
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* writable by others */
	chmod(sub, 0777);
	assert_int_equal(journal_open_dir(sub, false, &fd, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, sub));
	assert_non_null(strstr(why, "writable by others"));
	chmod(sub, 0700);
	/* a parent others may change (not sticky) */
	snprintf(link, sizeof(link), "%s/a", dir);
	chmod(link, 0777);
	assert_int_equal(journal_open_dir(sub, false, &fd, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "parent"));
	chmod(link, 01777); /* sticky, like /tmp: fine */
	assert_int_equal(journal_open_dir(sub, false, &fd, why, sizeof(why)), 0);
	close(fd);
	/* a symbolic link */
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(sub, link), 0);
	assert_int_equal(journal_open_dir(link, false, &fd, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "symbolic link"));
	/* owned by another user */
	if (geteuid() != 0)
		return;
	assert_int_equal(chown(sub, 4242, 4242), 0);
	assert_int_equal(journal_open_dir(sub, false, &fd, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "owned by uid 4242"));
}

static void test_file_checks(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], other[PATH_MAX + 32], why[PATH_MAX + 200];
	const char *text = "benchtop-journal 2\npid 4242\n";
	struct journal j;
	int dfd, fd;

	(void)state;
	fresh(dir);
	snprintf(path, sizeof(path), "%s/journal.4242", dir);
	spit(path, text, strlen(text));
	chmod(path, 0600);
	assert_int_equal(journal_load(path, &j, why, sizeof(why)), 0);
	assert_int_equal(j.pid, 4242);
	journal_free(&j);
	assert_int_equal(journal_open_dir(dir, false, &dfd, why, sizeof(why)), 0);
	chmod(path, 0666);
	assert_int_equal(journal_open_checked(dfd, "journal.4242", path, &fd, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, path));
	chmod(path, 0600);
	/* a second link */
	snprintf(other, sizeof(other), "%s/hard", dir);
	assert_int_equal(link(path, other), 0);
	assert_int_equal(journal_open_checked(dfd, "journal.4242", path, &fd, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "more than one link"));
	unlink(other);
	/* a symbolic link to a journal */
	snprintf(other, sizeof(other), "%s/journal.1", dir);
	assert_int_equal(symlink(path, other), 0);
	assert_int_equal(journal_open_checked(dfd, "journal.1", other, &fd, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "symbolic link"));
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 4242, 4242), 0);
		assert_int_equal(journal_open_checked(dfd, "journal.4242", path, &fd, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "owned by uid 4242"));
	}
	close(dfd);
}

static void test_notes(void **state)
{
	char path[PATH_MAX], *text;

	(void)state;
	assert_string_equal(journal_path(), "");
	assert_int_equal(journal_note_scratch("relative/path"), -EINVAL);
	assert_int_equal(journal_note_pgid(1), -EINVAL);
	assert_int_equal(journal_note_scratch("/var/tmp/benchtop.x y"), 0);
	assert_int_equal(journal_note_scratch("/var/tmp/benchtop.x y"), 0); /* once */
	assert_int_equal(journal_note_pgid(getpid()), 0);
	assert_int_equal(journal_note_paused(getppid()), 0);
	assert_int_equal(journal_note_cgroup("/sys/fs/cgroup/benchtop-1"), 0);
	snprintf(path, sizeof(path), "%s", journal_path());
	assert_non_null(strstr(path, "/run/benchtop/journal."));
	text = slurp(path);
	assert_non_null(strstr(text, "scratch /var/tmp/benchtop.x%20y\n"));
	assert_null(strstr(text + (strstr(text, "scratch") - text) + 8, "scratch"));
	char want[64];
	snprintf(want, sizeof(want), "pgid %d %llu\n", (int)getpid(), journal_proc_starttime(getpid()));
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "paused "));
	assert_non_null(strstr(text, "cgroup /sys/fs/cgroup/benchtop-1\n"));
	/* held locked while this process runs */
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
	close(fd);
	assert_int_equal(journal_forget_scratch("/var/tmp/benchtop.x y"), 0);
	assert_int_equal(journal_forget_pgid(getpid()), 0);
	assert_int_equal(journal_note_resumed(getppid()), 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(journal_forget_cgroup("/sys/fs/cgroup/benchtop-1"), 0);
	/* empty: gone */
	assert_int_equal(access(path, F_OK), -1);
	assert_string_equal(journal_path(), "");
}

/* The temporary file is made with O_EXCL|O_NOFOLLOW: a symbolic link
 * planted under its name never leads the journal text elsewhere. */
static void test_tmp_symlink(void **state)
{
	char dir[PATH_MAX], victim[PATH_MAX + 16], tmp[PATH_MAX + 64];

	(void)state;
	fresh(dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	spit(victim, "precious\n", 9);
	snprintf(tmp, sizeof(tmp), "%s/run/benchtop/.journal.%d.tmp", base, (int)getpid());
	mkdir(tmp, 0700); /* make sure the journal directory exists */
	rmdir(tmp);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(journal_note_scratch("/var/tmp/benchtop.tmp-test"), 0);
	assert_string_equal(slurp(victim), "precious\n");
	assert_non_null(strstr(slurp(journal_path()), "benchtop.tmp-test"));
	assert_int_equal(journal_forget_scratch("/var/tmp/benchtop.tmp-test"), 0);
}

/* A forked child notes into a journal of its own. */
static void test_fork(void **state)
{
	char parent[PATH_MAX];
	int status;

	(void)state;
	assert_int_equal(journal_note_scratch("/var/tmp/benchtop.parent"), 0);
	snprintf(parent, sizeof(parent), "%s", journal_path());
	pid_t pid = fork();
	if (pid == 0) {
		int ok = journal_note_scratch("/var/tmp/benchtop.child") == 0 &&
		         strcmp(journal_path(), parent) != 0 &&
		         strstr(slurp(journal_path()), "benchtop.parent") == NULL &&
		         journal_forget_scratch("/var/tmp/benchtop.child") == 0;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(slurp(parent), "benchtop.parent"));
	assert_int_equal(journal_forget_scratch("/var/tmp/benchtop.parent"), 0);
}

static void test_claim(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct journal j = { 0 };
	int fd, fd2;

	(void)state;
	fresh(dir);
	snprintf(path, sizeof(path), "%s/journal.x", dir);
	j.pid = dead_pid();
	assert_int_equal(journal_save(path, &j), 0);
	fd = open(path, O_RDONLY);
	fd2 = open(path, O_RDONLY);
	/* another holds the lock: in use */
	assert_int_equal(flock(fd2, LOCK_SH), 0);
	assert_false(journal_claim(fd, &j));
	close(fd2);
	assert_true(journal_claim(fd, &j));
	/* claimed: a second --restore does not get it */
	fd2 = open(path, O_RDONLY);
	assert_false(journal_claim(fd2, &j));
	close(fd2);
	close(fd);
	/* a live owner (this process, same start time) */
	j.pid = getpid();
	j.starttime = journal_proc_starttime(getpid());
	fd = open(path, O_RDONLY);
	assert_false(journal_claim(fd, &j));
	close(fd);
}

/* A policy another benchtop's journal holds is refused with its PID. */
static void test_policy_refused(void **state)
{
	char root[PATH_MAX], jpath[PATH_MAX + 64], msg[1024], want[64], cmd[PATH_MAX + 64];
	struct journal_policy p = { .dir = "devices/system/cpu/cpufreq/policy0", .governor = "ondemand",
	                            .min_khz = 800000, .max_khz = 2600000 };
	struct journal j = { 0 };
	static char roots[1][PATH_MAX];

	(void)state;
	fresh(root);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/devices/system/cpu/cpufreq/policy0", root);
	assert_int_equal(system(cmd), 0);
	snprintf(roots[0], PATH_MAX, "%s", root);
	j.pid = getppid(); /* alive */
	j.starttime = journal_proc_starttime(j.pid);
	j.nroots = 1;
	j.roots = roots;
	j.n = 1;
	j.pol = &p;
	snprintf(jpath, sizeof(jpath), "%s/run/benchtop/journal.%d", base, (int)j.pid);
	assert_int_equal(journal_save(jpath, &j), 0);
	assert_int_equal(journal_note_policy(root, &p, msg, sizeof(msg)), -EBUSY);
	snprintf(want, sizeof(want), "benchtop %d, which is running", (int)j.pid);
	assert_non_null(strstr(msg, want));
	assert_string_equal(journal_path(), "");
	/* its owner gone without undoing it: still refused, --restore first */
	j.pid = dead_pid();
	unlink(jpath);
	snprintf(jpath, sizeof(jpath), "%s/run/benchtop/journal.%d", base, (int)j.pid);
	assert_int_equal(journal_save(jpath, &j), 0);
	assert_int_equal(journal_note_policy(root, &p, msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "--restore first"));
	unlink(jpath);
	/* free: noted (and forgotten) */
	if (journal_note_policy(root, &p, msg, sizeof(msg)) != 0)
		fail_msg("refused: %s", msg);
	assert_non_null(strstr(slurp(journal_path()), "policy devices/system/cpu/cpufreq/policy0 ondemand"));
	assert_int_equal(journal_forget_policy(root, p.dir), 0);
	assert_string_equal(journal_path(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test(test_parse_version1),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_dir_path),
		cmocka_unit_test(test_dir_checks),
		cmocka_unit_test(test_file_checks),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_tmp_symlink),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_claim),
		cmocka_unit_test(test_policy_refused),
	};
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}

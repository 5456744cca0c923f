/* test_journal.c - the restore journal: format, directories, and which
 * journals `benchtop --restore` applies, leaves or discards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchtop/journal.h"

static char base[128];
static int seq;

/* A minimal policy directory, as the kernel shows one. */
static void mkpolicy(const char *root, const char *gov, long max)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
	         "d=%s/devices/system/cpu/cpufreq/policy0 && mkdir -p $d && "
	         "echo 'performance powersave ondemand' > $d/scaling_available_governors && "
	         "echo %s > $d/scaling_governor && echo 800000 > $d/scaling_min_freq && "
	         "echo %ld > $d/scaling_max_freq", root, gov, max);
	assert_int_equal(system(cmd), 0);
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");

	buf[0] = '\0';
	assert_non_null(fp);
	if (!fgets(buf, (int)len, fp))
		buf[0] = '\0';
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
}

static void assert_gov(const char *root, const char *want)
{
	char path[PATH_MAX], got[64];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpufreq/policy0/scaling_governor", root);
	slurp(path, got, sizeof(got));
	assert_string_equal(got, want);
}

static struct journal_policy pol0 = {
	.dir = "devices/system/cpu/cpufreq/policy0", .governor = "ondemand",
	.min_khz = 800000, .max_khz = 2600000,
};

/* A fresh scratch root and journal directory for one test. */
static void fresh(char *root, char *dir)
{
	snprintf(root, PATH_MAX, "%s/root%d", base, seq);
	snprintf(dir, PATH_MAX, "%s/jdir%d", base, seq++);
	mkdir(root, 0755);
	mkdir(dir, 0700);
}

static void journal_for(struct journal *j, const char *root, pid_t pid)
{
	memset(j, 0, sizeof(*j));
	j->pid = pid;
	j->starttime = journal_proc_starttime(pid);
	journal_boot_id(j->boot_id, sizeof(j->boot_id));
	snprintf(j->sysfs_root, sizeof(j->sysfs_root), "%s", root);
	j->n = 1;
	j->pol = &pol0;
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

static char *report_text(FILE *rep)
{
	static char out[4096];
	size_t n;

	rewind(rep);
	n = fread(out, 1, sizeof(out) - 1, rep);
	out[n] = '\0';
	return out;
}

static int setup_all(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/var/tmp/benchtop-journal-test.XXXXXX");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown_all(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_roundtrip(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32];
	struct journal j, back;
	struct stat st;

	(void)state;
	fresh(root, dir);
	journal_for(&j, "/some root/with spaces", 4321);
	snprintf(path, sizeof(path), "%s/journal.4321", dir);
	assert_int_equal(journal_save(path, &j), 0);
	assert_int_equal(journal_load(path, &back), 0);
	assert_int_equal(back.pid, 4321);
	assert_string_equal(back.sysfs_root, "/some root/with spaces");
	assert_string_equal(back.boot_id, j.boot_id);
	assert_int_equal(back.n, 1);
	assert_string_equal(back.pol[0].dir, pol0.dir);
	assert_string_equal(back.pol[0].governor, "ondemand");
	assert_int_equal(back.pol[0].min_khz, 800000);
	assert_int_equal(back.pol[0].max_khz, 2600000);
	journal_free(&back);
	/* no temporary file is left beside it */
	snprintf(path, sizeof(path), "%s/.journal.4321.tmp", dir);
	assert_int_equal(stat(path, &st), -1);
}

static void test_load_rejects_junk(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32];
	struct journal j;
	FILE *fp;

	(void)state;
	fresh(root, dir);
	snprintf(path, sizeof(path), "%s/journal.1", dir);
	fp = fopen(path, "w");
	fputs("hello\n", fp);
	fclose(fp);
	assert_int_equal(journal_load(path, &j), -EINVAL);
	fp = fopen(path, "w");
	fputs("benchtop-journal 1\npid 5\nsysfs /x\npolicy ../../etc gov 1 2\n", fp);
	fclose(fp);
	assert_int_equal(journal_load(path, &j), -EINVAL); /* never outside the root */
	assert_int_equal(journal_load("/nonexistent/journal.1", &j), -ENOENT);
}

static void test_dir_prefers_xdg(void **state)
{
	char dir[PATH_MAX], xdg[PATH_MAX], want[PATH_MAX + 16];
	struct stat st;

	(void)state;
	snprintf(xdg, sizeof(xdg), "%s/xdg", base);
	mkdir(xdg, 0700);
	setenv("XDG_RUNTIME_DIR", xdg, 1);
	assert_int_equal(journal_dir("/nonexistent-fallback", dir, sizeof(dir)), 0);
	snprintf(want, sizeof(want), "%s/benchtop", xdg);
	assert_string_equal(dir, want);
	assert_int_equal(stat(want, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	unsetenv("XDG_RUNTIME_DIR");
}

static void test_dead_owner_applied(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32];
	struct journal j;
	struct stat st;
	FILE *rep = tmpfile();

	(void)state;
	fresh(root, dir);
	mkpolicy(root, "performance", 1600000);
	journal_for(&j, root, dead_pid());
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	assert_int_equal(journal_restore_dir(dir, NULL, rep), 0);
	assert_non_null(strstr(report_text(rep), "restored 1 cpufreq policy"));
	assert_gov(root, "ondemand");
	char max[PATH_MAX + 300], got[32];
	snprintf(max, sizeof(max), "%s/%s/scaling_max_freq", root, pol0.dir);
	slurp(max, got, sizeof(got));
	assert_string_equal(got, "2600000");
	assert_int_equal(stat(path, &st), -1);
	fclose(rep);
}

static void test_live_owner_left(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32];
	struct journal j;
	struct stat st;
	FILE *rep = tmpfile();

	(void)state;
	fresh(root, dir);
	mkpolicy(root, "performance", 2600000);
	journal_for(&j, root, getpid());
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	assert_int_equal(journal_restore_dir(dir, NULL, rep), 0);
	assert_non_null(strstr(report_text(rep), "is still running"));
	assert_gov(root, "performance");
	assert_int_equal(stat(path, &st), 0);

	/* the same pid with another start time is a reused pid: its owner died */
	j.starttime += 12345;
	assert_int_equal(journal_save(path, &j), 0);
	assert_int_equal(journal_restore_dir(dir, NULL, rep), 0);
	assert_gov(root, "ondemand");
	assert_int_equal(stat(path, &st), -1);
	fclose(rep);
}

static void test_other_boot_discarded(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32];
	struct journal j;
	struct stat st;
	FILE *rep = tmpfile();

	(void)state;
	fresh(root, dir);
	mkpolicy(root, "performance", 2600000);
	journal_for(&j, root, dead_pid());
	snprintf(j.boot_id, sizeof(j.boot_id), "00000000-0000-0000-0000-000000000000");
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	assert_int_equal(journal_restore_dir(dir, NULL, rep), 0);
	assert_non_null(strstr(report_text(rep), "from another boot"));
	assert_gov(root, "performance"); /* untouched */
	assert_int_equal(stat(path, &st), -1);
	fclose(rep);
}

static void test_other_root_left(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX], other[PATH_MAX], d2[PATH_MAX], path[PATH_MAX + 32];
	struct journal j;
	struct stat st;

	(void)state;
	fresh(root, dir);
	fresh(other, d2);
	mkpolicy(root, "performance", 2600000);
	journal_for(&j, root, dead_pid());
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	assert_int_equal(journal_restore_dir(dir, other, NULL), 0);
	assert_gov(root, "performance");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(journal_restore_dir(dir, root, NULL), 0);
	assert_gov(root, "ondemand");
}

/* Two dead benchtops, each with its own journal: both are applied. */
static void test_two_journals(void **state)
{
	char r1[PATH_MAX], r2[PATH_MAX], dir[PATH_MAX], dummy[PATH_MAX], path[PATH_MAX + 32];
	struct journal j;

	(void)state;
	fresh(r1, dir);
	fresh(r2, dummy);
	mkpolicy(r1, "performance", 2600000);
	mkpolicy(r2, "powersave", 2600000);
	journal_for(&j, r1, dead_pid());
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	journal_for(&j, r2, dead_pid());
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	assert_int_equal(journal_restore_dir(dir, NULL, NULL), 0);
	assert_gov(r1, "ondemand");
	assert_gov(r2, "ondemand");
}

/* A governor that is no longer available is not written; the journal stays. */
static void test_unavailable_governor_kept(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 32];
	struct journal_policy p = pol0;
	struct journal j;
	struct stat st;
	FILE *rep = tmpfile();

	(void)state;
	fresh(root, dir);
	mkpolicy(root, "performance", 2600000);
	journal_for(&j, root, dead_pid());
	snprintf(p.governor, sizeof(p.governor), "conservative");
	j.pol = &p;
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	assert_int_equal(journal_restore_dir(dir, NULL, rep), -EINVAL);
	assert_non_null(strstr(report_text(rep), "cannot restore governor conservative"));
	assert_gov(root, "performance");
	assert_int_equal(stat(path, &st), 0);
	fclose(rep);
}

/* A second benchtop takes the originals from a live first one's journal,
 * not from the files the first one has changed. */
static void test_live_originals(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX], other[PATH_MAX], d2[PATH_MAX], path[PATH_MAX + 32];
	struct journal_policy dead = pol0, read[2] = {
		{ .dir = "devices/system/cpu/cpufreq/policy0", .governor = "performance",
		  .min_khz = 800000, .max_khz = 1600000 },
		{ .dir = "devices/system/cpu/cpufreq/policy1", .governor = "performance",
		  .min_khz = 800000, .max_khz = 1600000 },
	}, got[2];
	struct journal j;

	(void)state;
	fresh(root, dir);
	fresh(other, d2);
	mkpolicy(root, "performance", 1600000);
	/* nothing in the directory: the values read stand */
	memcpy(got, read, sizeof(got));
	assert_int_equal(journal_live_originals_dir(dir, root, got, 2), 0);
	assert_string_equal(got[0].governor, "performance");

	/* a dead benchtop's and another tree's journals are not asked */
	journal_for(&j, root, dead_pid());
	snprintf(dead.governor, sizeof(dead.governor), "powersave");
	j.pol = &dead;
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	journal_for(&j, other, getpid());
	snprintf(path, sizeof(path), "%s/journal.%d.1", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	memcpy(got, read, sizeof(got));
	assert_int_equal(journal_live_originals_dir(dir, root, got, 2), 0);
	assert_string_equal(got[0].governor, "performance");
	assert_int_equal(got[0].max_khz, 1600000);

	/* a live one on this tree: its originals for the policy it holds */
	journal_for(&j, root, getpid());
	snprintf(path, sizeof(path), "%s/journal.%d", dir, (int)j.pid);
	assert_int_equal(journal_save(path, &j), 0);
	memcpy(got, read, sizeof(got));
	assert_int_equal(journal_live_originals_dir(dir, root, got, 2), 1);
	assert_string_equal(got[0].governor, "ondemand");
	assert_int_equal(got[0].min_khz, 800000);
	assert_int_equal(got[0].max_khz, 2600000);
	assert_string_equal(got[1].governor, "performance"); /* not in that journal */
	assert_int_equal(got[1].max_khz, 1600000);

	/* the same pid with another start time is not that benchtop */
	j.starttime += 12345;
	assert_int_equal(journal_save(path, &j), 0);
	memcpy(got, read, sizeof(got));
	assert_int_equal(journal_live_originals_dir(dir, root, got, 2), 0);
	assert_string_equal(got[0].governor, "performance");

	/* nor is a journal from another boot */
	journal_for(&j, root, getpid());
	snprintf(j.boot_id, sizeof(j.boot_id), "00000000-0000-0000-0000-000000000000");
	assert_int_equal(journal_save(path, &j), 0);
	memcpy(got, read, sizeof(got));
	assert_int_equal(journal_live_originals_dir(dir, root, got, 2), 0);
	assert_string_equal(got[0].governor, "performance");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_load_rejects_junk),
		cmocka_unit_test(test_dir_prefers_xdg),
		cmocka_unit_test(test_dead_owner_applied),
		cmocka_unit_test(test_live_owner_left),
		cmocka_unit_test(test_other_boot_discarded),
		cmocka_unit_test(test_other_root_left),
		cmocka_unit_test(test_two_journals),
		cmocka_unit_test(test_unavailable_governor_kept),
		cmocka_unit_test(test_live_originals),
	};
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}

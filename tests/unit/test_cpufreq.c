/* test_cpufreq.c - cpufreq against fake sysfs trees shaped as
 * tests/fakesys.sh makes them (fakesys.h; by hand for the odd cases). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchtop/cpufreq.h"
#include "benchtop/journal.h"
#include "fakesys.h"
#include "benchtop/restore.h"
#include "benchtop/model.h"

static char base[128];
static int ntree;

/* Build a tree with tests/fakesys.sh's ARGS (in process, fakesys.h);
 * returns its root (malloc'd, per call). */
static char *tree(const char *args)
{
	char *root = malloc(PATH_MAX);

	snprintf(root, PATH_MAX, "%s/t%d", base, ntree++);
	assert_int_equal(fakesys_build(root, args), 0);
	return root;
}

static void slurp(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX * 2];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	buf[0] = '\0';
	fp = fopen(path, "r");
	assert_non_null(fp);
	if (!fgets(buf, (int)len, fp))
		buf[0] = '\0';
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
}

static void spit(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

#define POL(n, f) "devices/system/cpu/cpufreq/policy" #n "/" f

static void assert_file(const char *root, const char *rel, const char *want)
{
	char got[256];

	slurp(root, rel, got, sizeof(got));
	assert_string_equal(got, want);
}

static int setup_all(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/var/tmp/benchtop-cpufreq-test.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	char run[PATH_MAX + 8];
	snprintf(run, sizeof(run), "%s/run", base);
	mkdir(run, 0700);
	setenv("XDG_RUNTIME_DIR", run, 1); /* journals stay inside the test */
	return 0;
}

static int teardown_all(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_policy_layout(void **state)
{
	char *root = tree("--cpus 4 --per-policy 2");
	struct cpufreq *cf = cpufreq_open(root, 4);
	struct snapshot *s = snapshot_new(4, 0, 0);
	const long *khz;

	(void)state;
	assert_int_equal(cpufreq_npolicies(cf), 2);
	assert_string_equal(cpufreq_policy_cpus(cf, 0), "0-1");
	assert_string_equal(cpufreq_policy_cpus(cf, 1), "2-3");
	assert_int_equal(cpufreq_policy_of_cpu(cf, 3), 1);
	assert_string_equal(cpufreq_policy_governors(cf, 0), "performance powersave ondemand schedutil");
	assert_string_equal(cpufreq_policy_governor(cf, 1), "ondemand");
	assert_string_equal(cpufreq_policy_driver(cf, 0), "acpi-cpufreq");
	assert_int_equal(cpufreq_policy_min(cf, 0), 800000);
	assert_int_equal(cpufreq_policy_max(cf, 0), 2600000);
	assert_int_equal(cpufreq_policy_freqs(cf, 1, &khz), 3);
	assert_int_equal(khz[0], 800000);
	assert_int_equal(khz[2], 2600000);
	assert_int_equal(cpufreq_source(cf), FREQ_SCALING_CUR);
	assert_string_equal(cpufreq_source_name(cpufreq_source(cf)), "scaling_cur_freq");
	assert_string_equal(cpufreq_residency_kind(cf), "kernel");
	assert_null(cpufreq_unavailable_reason(cf));
	cpufreq_sample(cf, s, 0.5);
	for (int c = 0; c < 4; c++) {
		assert_int_equal(s->cpus[c].khz, 1600000);
		assert_string_equal(s->cpus[c].governor, "ondemand");
	}
	snapshot_free(s);
	cpufreq_close(cf);
	free(root);
}

static void test_percpu_layout(void **state)
{
	char *root = tree("--layout percpu --cpus 4 --per-policy 2 --governor powersave");
	struct cpufreq *cf = cpufreq_open(root, 4);
	char msg[512];

	(void)state;
	assert_int_equal(cpufreq_npolicies(cf), 2);
	assert_string_equal(cpufreq_policy_cpus(cf, 1), "2-3");
	assert_string_equal(cpufreq_policy_governor(cf, 0), "powersave");
	assert_int_equal(cpufreq_set_governor(cf, -1, "performance", msg, sizeof(msg)), 0);
	/* the write goes to the policy's own directory (the first CPU's) */
	assert_file(root, "devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance");
	assert_file(root, "devices/system/cpu/cpu2/cpufreq/scaling_governor", "performance");
	assert_file(root, "devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave");
	cpufreq_restore(cf);
	assert_file(root, "devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave");
	cpufreq_close(cf);
	free(root);
}

static void test_no_stats_sampled(void **state)
{
	char *root = tree("--cpus 2 --no-stats");
	struct cpufreq *cf = cpufreq_open(root, 2);
	const long *khz;
	const double *secs;

	(void)state;
	assert_string_equal(cpufreq_residency_kind(cf), "sampled");
	cpufreq_sample(cf, NULL, 1.0);
	spit(root, POL(0, "scaling_cur_freq"), "2600000\n");
	cpufreq_sample(cf, NULL, 2.0);
	assert_int_equal(cpufreq_residency(cf, 0, false, &khz, &secs), 2);
	assert_int_equal(khz[0], 1600000);
	assert_true(secs[0] > 0.99 && secs[0] < 1.01);
	assert_int_equal(khz[1], 2600000);
	assert_true(secs[1] > 1.99 && secs[1] < 2.01);
	/* CPU 1 stayed at the middle frequency */
	assert_int_equal(cpufreq_residency(cf, 1, false, &khz, &secs), 1);
	assert_true(labs(cpufreq_mean_khz(cf, 0, false) - (1600000 + 2 * 2600000) / 3) <= 1);
	cpufreq_close(cf);
	free(root);
}

static void test_junk_everywhere(void **state)
{
	const char *layouts[] = { "--cpus 3 --junk", "--cpus 3 --junk --layout percpu",
	                          "--cpus 2 --junk --per-policy 2" };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char *root = tree(layouts[i]), msg[512];
		struct cpufreq *cf = cpufreq_open(root, 3);
		struct snapshot *s = snapshot_new(3, 0, 0);
		const long *khz;
		const double *secs;
		FILE *fp = fopen("/dev/null", "w");
		assert_non_null(cf);
		cpufreq_sample(cf, s, 0.5);
		cpufreq_sample(cf, s, 0.5);
		for (int c = 0; c < 3; c++) {
			assert_true(s->cpus[c].khz == -1 || s->cpus[c].khz > 0);
			assert_null(strchr(s->cpus[c].governor, ' '));
			cpufreq_residency(cf, c, true, &khz, &secs);
		}
		/* no real governor is listed: refused before writing */
		assert_int_not_equal(cpufreq_set_governor(cf, -1, "performance", msg, sizeof(msg)), 0);
		assert_true(strlen(msg) > 0);
		cpufreq_next_governor(cf);
		cpufreq_set_maxfreq(cf, -1, 1600000, msg, sizeof(msg));
		cpufreq_policies_json(cf, fp);
		cpufreq_phase_residency_json(cf, 0, fp);
		cpufreq_restore(cf);
		fclose(fp);
		snapshot_free(s);
		cpufreq_close(cf);
		free(root);
	}
}

static void test_64_cpus(void **state)
{
	char *root = tree("--cpus 64"), msg[512], rel[128];
	struct cpufreq *cf = cpufreq_open(root, 64);
	struct snapshot *s = snapshot_new(64, 0, 0);

	(void)state;
	assert_int_equal(cpufreq_npolicies(cf), 64);
	assert_string_equal(cpufreq_policy_cpus(cf, 63), "63");
	assert_int_equal(cpufreq_set_governor(cf, -1, "performance", msg, sizeof(msg)), 0);
	cpufreq_sample(cf, s, 0.5);
	for (int c = 0; c < 64; c++)
		assert_string_equal(s->cpus[c].governor, "performance");
	cpufreq_restore(cf);
	for (int p = 0; p < 64; p += 9) {
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpufreq/policy%d/scaling_governor", p);
		assert_file(root, rel, "ondemand");
	}
	snapshot_free(s);
	cpufreq_close(cf);
	free(root);
}

static void test_single_cpu_single_governor(void **state)
{
	char *root = tree("--cpus 1 --governors performance"), msg[512];
	struct cpufreq *cf = cpufreq_open(root, 1);

	(void)state;
	assert_int_equal(cpufreq_npolicies(cf), 1);
	assert_string_equal(cpufreq_policy_governor(cf, 0), "performance");
	assert_string_equal(cpufreq_next_governor(cf), "performance");
	assert_int_equal(cpufreq_set_governor(cf, -1, "powersave", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "choose from performance"));
	assert_file(root, POL(0, "scaling_governor"), "performance");
	/* setting the governor it already has writes nothing and succeeds */
	assert_int_equal(cpufreq_set_governor(cf, 0, "performance", msg, sizeof(msg)), 0);
	cpufreq_close(cf);
	free(root);
}

static void test_governor_cycling(void **state)
{
	char *root = tree("--cpus 2"), msg[512];
	struct cpufreq *cf = cpufreq_open(root, 2);
	const char *want[] = { "schedutil", "performance", "powersave", "ondemand" };

	(void)state;
	for (int i = 0; i < 4; i++) {
		char gov[MODEL_GOV_LEN];
		snprintf(gov, sizeof(gov), "%s", cpufreq_next_governor(cf));
		assert_string_equal(gov, want[i]);
		assert_int_equal(cpufreq_set_governor(cf, -1, gov, msg, sizeof(msg)), 0);
		assert_non_null(strstr(msg, gov));
		assert_file(root, POL(0, "scaling_governor"), gov);
		assert_file(root, POL(1, "scaling_governor"), gov);
		assert_string_equal(cpufreq_policy_governor(cf, 1), gov);
	}
	cpufreq_restore(cf);
	cpufreq_close(cf);
	free(root);
}

static void test_refuse_unknown(void **state)
{
	char *root = tree("--cpus 2"), msg[512];
	struct cpufreq *cf = cpufreq_open(root, 2);

	(void)state;
	assert_int_equal(cpufreq_set_governor(cf, -1, "turbo", msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "'turbo' is not available"));
	assert_file(root, POL(0, "scaling_governor"), "ondemand");
	assert_string_equal(cpufreq_journal_path(cf), ""); /* nothing written at all */
	assert_int_equal(cpufreq_set_governor(cf, 7, "performance", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cpufreq_set_maxfreq(cf, -1, 100, msg, sizeof(msg)), -EINVAL);
	assert_file(root, POL(0, "scaling_max_freq"), "2600000");
	cpufreq_close(cf);
	free(root);
}

static void test_set_then_restore(void **state)
{
	char *root = tree("--cpus 2"), msg[512];
	struct cpufreq *cf = cpufreq_open(root, 2);
	struct stat st;

	(void)state;
	assert_int_equal(cpufreq_set_governor(cf, 1, "performance", msg, sizeof(msg)), 0);
	assert_int_equal(cpufreq_set_maxfreq(cf, -1, 1600000, msg, sizeof(msg)), 0);
	assert_file(root, POL(0, "scaling_governor"), "ondemand");
	assert_file(root, POL(1, "scaling_governor"), "performance");
	assert_file(root, POL(0, "scaling_max_freq"), "1600000");
	assert_int_equal(cpufreq_policy_max(cf, 1), 1600000);
	assert_int_equal(stat(cpufreq_journal_path(cf), &st), 0);
	/* lift the cap: back to the original, the governor stays */
	assert_int_equal(cpufreq_set_maxfreq(cf, -1, 0, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "frequency cap lifted");
	assert_file(root, POL(1, "scaling_max_freq"), "2600000");
	assert_int_equal(cpufreq_set_maxfreq(cf, 0, 800000, msg, sizeof(msg)), 0);

	char jpath[PATH_MAX];
	snprintf(jpath, sizeof(jpath), "%s", cpufreq_journal_path(cf));
	cpufreq_restore(cf);
	assert_file(root, POL(0, "scaling_governor"), "ondemand");
	assert_file(root, POL(1, "scaling_governor"), "ondemand");
	assert_file(root, POL(0, "scaling_max_freq"), "2600000");
	assert_file(root, POL(0, "scaling_min_freq"), "800000");
	/* the run journal holds nothing of this tree any more */
	assert_string_equal(cpufreq_journal_path(cf), "");
	if (stat(jpath, &st) == 0) {
		char text[8192] = "";
		FILE *fp = fopen(jpath, "r");
		assert_non_null(fp);
		text[fread(text, 1, sizeof(text) - 1, fp)] = '\0';
		fclose(fp);
		assert_null(strstr(text, root));
	}
	cpufreq_restore(cf); /* twice is harmless */
	cpufreq_close(cf);
	free(root);
}

/* The original governor is no longer offered (a driver change): restore
 * says so instead of writing a name the kernel would refuse. */
static void test_restore_checks_available(void **state)
{
	char *root = tree("--cpus 1"), msg[512];
	struct cpufreq *cf = cpufreq_open(root, 1);
	FILE *rep = tmpfile();
	char line[512] = "";

	(void)state;
	assert_int_equal(cpufreq_set_governor(cf, -1, "performance", msg, sizeof(msg)), 0);
	spit(root, POL(0, "scaling_available_governors"), "performance powersave\n");
	assert_int_equal(cpufreq_restore_report(cf, rep), -EINVAL);
	rewind(rep);
	assert_non_null(fgets(line, sizeof(line), rep));
	assert_non_null(strstr(line, "cannot restore governor ondemand"));
	assert_file(root, POL(0, "scaling_governor"), "performance");
	assert_string_not_equal(cpufreq_journal_path(cf), ""); /* kept for --restore */
	journal_forget_policy(root, "devices/system/cpu/cpufreq/policy0");
	fclose(rep);
	cpufreq_close(cf);
	free(root);
}

static void bump(const char *root, int pol, const char *tis)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpufreq/policy%d/stats/time_in_state", pol);
	spit(root, rel, tis);
}

static void test_residency_kernel(void **state)
{
	char *root = tree("--cpus 2");
	struct cpufreq *cf = cpufreq_open(root, 2);
	const long *khz;
	const double *secs;
	char *json = NULL;
	size_t jlen = 0;
	FILE *fp;

	(void)state;
	bump(root, 0, "800000 0\n1600000 0\n2600000 300\n");
	cpufreq_sample(cf, NULL, 3.0);
	assert_int_equal(cpufreq_residency(cf, 0, false, &khz, &secs), 1);
	assert_int_equal(khz[0], 2600000);
	assert_true(secs[0] > 2.99 && secs[0] < 3.01);
	assert_int_equal(cpufreq_residency(cf, 1, false, &khz, &secs), 0);
	cpufreq_mark(cf);
	bump(root, 0, "800000 100\n1600000 0\n2600000 300\n");
	cpufreq_sample(cf, NULL, 1.0);
	assert_int_equal(cpufreq_residency(cf, 0, true, &khz, &secs), 1);
	assert_int_equal(khz[0], 800000);
	assert_true(secs[0] > 0.99 && secs[0] < 1.01);
	assert_int_equal(cpufreq_residency(cf, 0, false, &khz, &secs), 2);
	assert_true(labs(cpufreq_mean_khz(cf, 0, false) - (800000 + 3 * 2600000) / 4) <= 1);
	assert_int_equal(cpufreq_nphases(cf), 1);
	fp = open_memstream(&json, &jlen);
	cpufreq_phase_residency_json(cf, 0, fp);
	fputc('|', fp);
	cpufreq_phase_residency_json(cf, 1, fp);
	fclose(fp);
	assert_string_equal(json, "{\"0\":{\"2600000\":3.00},\"1\":{}}|{\"0\":{\"800000\":1.00},\"1\":{}}");
	free(json);
	cpufreq_close(cf);
	free(root);
}

/* A stats reset or a new table mid-run starts afresh: no negative time. */
static void test_residency_reset(void **state)
{
	char *root = tree("--cpus 1");
	struct cpufreq *cf = cpufreq_open(root, 1);
	const long *khz;
	const double *secs;

	(void)state;
	bump(root, 0, "800000 500\n1600000 0\n2600000 0\n");
	cpufreq_sample(cf, NULL, 5.0);
	bump(root, 0, "800000 0\n1600000 0\n2600000 0\n"); /* reset */
	cpufreq_sample(cf, NULL, 1.0);
	bump(root, 0, "800000 0\n1600000 0\n2600000 100\n");
	cpufreq_sample(cf, NULL, 1.0);
	bump(root, 0, "900000 50\n2600000 100\n"); /* the table changed */
	cpufreq_sample(cf, NULL, 1.0);
	bump(root, 0, "900000 150\n2600000 100\n");
	cpufreq_sample(cf, NULL, 1.0);
	assert_int_equal(cpufreq_residency(cf, 0, false, &khz, &secs), 3);
	assert_int_equal(khz[0], 800000);
	assert_true(secs[0] > 4.99 && secs[0] < 5.01);
	assert_int_equal(khz[1], 900000);
	assert_true(secs[1] > 0.99 && secs[1] < 1.01);
	assert_int_equal(khz[2], 2600000);
	assert_true(secs[2] > 0.99 && secs[2] < 1.01);
	cpufreq_close(cf);
	free(root);
}

/* A benchtop killed after a change leaves its journal; --restore applies it. */
static void test_journal_left_behind(void **state)
{
	char *root = tree("--cpus 2"), msg[512];
	FILE *rep = tmpfile();
	char out[4096] = "";
	pid_t pid = fork();
	int status;

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0) {
		struct cpufreq *cf = cpufreq_open(root, 2);
		int rc = cpufreq_set_governor(cf, -1, "powersave", msg, sizeof(msg));
		rc |= cpufreq_set_maxfreq(cf, -1, 1600000, msg, sizeof(msg));
		_exit(rc == 0 ? 0 : 1); /* "killed": no restore */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_file(root, POL(1, "scaling_governor"), "powersave");
	assert_int_equal(app_restore(root, rep), 0);
	rewind(rep);
	assert_true(fread(out, 1, sizeof(out) - 1, rep) > 0);
	assert_non_null(strstr(out, "restored 2 cpufreq policies"));
	assert_file(root, POL(0, "scaling_governor"), "ondemand");
	assert_file(root, POL(1, "scaling_governor"), "ondemand");
	assert_file(root, POL(1, "scaling_max_freq"), "2600000");
	/* the journal is gone: a second run has nothing to do */
	rewind(rep);
	assert_int_equal(app_restore(root, rep), 0);
	fclose(rep);
	free(root);
}

/* Two benchtops on one tree (the second a child process: journals are
 * per process): the second is refused with the first's PID and changes
 * nothing, so the tree ends at its originals when the first exits. */
static void test_two_benchtops(void **state)
{
	char *root = tree("--cpus 2"), msg[512], c, want[32];
	int ready[2], go[2], status;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* benchtop A: changes first */
		/* only the parent holds go's write end: when it fails, A sees EOF */
		close(go[1]);
		close(ready[0]);
		struct cpufreq *cf = cpufreq_open(root, 2);
		int rc = cpufreq_set_governor(cf, -1, "performance", msg, sizeof(msg));
		rc |= cpufreq_set_maxfreq(cf, -1, 1600000, msg, sizeof(msg));
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			rc = 1;
		rc |= cpufreq_restore_report(cf, NULL);
		cpufreq_close(cf);
		_exit(rc == 0 ? 0 : 1);
	}
	close(go[0]);
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_file(root, POL(0, "scaling_governor"), "performance");

	/* benchtop B, while A runs: refused, naming A */
	struct cpufreq *cf = cpufreq_open(root, 2);
	snprintf(want, sizeof(want), "benchtop %d", (int)pid);
	assert_int_equal(cpufreq_set_governor(cf, -1, "powersave", msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, "running"));
	assert_int_equal(cpufreq_set_maxfreq(cf, 1, 1200000, msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, want));
	assert_int_equal(cpufreq_left_alone(cf), 1);
	assert_file(root, POL(0, "scaling_governor"), "performance");
	assert_file(root, POL(1, "scaling_max_freq"), "1600000");
	assert_string_equal(cpufreq_journal_path(cf), "");
	assert_int_equal(cpufreq_restore_report(cf, NULL), 0);
	cpufreq_close(cf);

	/* A exits: the originals */
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	for (int p = 0; p < 2; p++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpufreq/policy%d/scaling_governor", p);
		assert_file(root, rel, "ondemand");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpufreq/policy%d/scaling_min_freq", p);
		assert_file(root, rel, "800000");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpufreq/policy%d/scaling_max_freq", p);
		assert_file(root, rel, "2600000");
	}
	close(ready[0]);
	close(go[1]);
	free(root);
}

/* A governor file benchtop could not put back exactly (10 KB, a NUL
 * byte) is left alone and said so; the other policy changes. */
static void test_odd_governor_left_alone(void **state)
{
	char *root = tree("--cpus 2"), msg[512], big[10240 + 1], path[PATH_MAX + 128];
	struct cpufreq *cf;
	FILE *fp;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	spit(root, POL(0, "scaling_governor"), big);
	cf = cpufreq_open(root, 2);
	assert_int_equal(cpufreq_set_governor(cf, -1, "performance", msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "left alone"));
	assert_non_null(strstr(msg, "too long"));
	assert_int_equal(cpufreq_left_alone(cf), 1);
	assert_file(root, POL(1, "scaling_governor"), "performance");
	slurp(root, POL(0, "scaling_governor"), path, sizeof(path));
	assert_int_equal(strlen(path), sizeof(path) - 1); /* still the 10 KB (its start) */
	/* policy 0 only: nothing changes at all */
	assert_int_equal(cpufreq_set_governor(cf, 0, "powersave", msg, sizeof(msg)), -EFBIG);
	assert_non_null(strstr(msg, "left alone"));
	assert_int_equal(cpufreq_restore_report(cf, NULL), 0);
	assert_file(root, POL(1, "scaling_governor"), "ondemand");
	cpufreq_close(cf);

	/* a NUL byte in the middle */
	snprintf(path, sizeof(path), "%s/%s", root, POL(1, "scaling_governor"));
	fp = fopen(path, "w");
	assert_non_null(fp);
	fwrite("ond\0emand\n", 1, 10, fp);
	fclose(fp);
	cf = cpufreq_open(root, 2);
	/* a policy whose governor cannot be recorded keeps its limits too */
	assert_int_equal(cpufreq_set_maxfreq(cf, 1, 1600000, msg, sizeof(msg)), -EILSEQ);
	assert_non_null(strstr(msg, "NUL byte"));
	assert_file(root, POL(1, "scaling_max_freq"), "2600000");
	assert_int_equal(cpufreq_set_governor(cf, 1, "performance", msg, sizeof(msg)), -EILSEQ);
	assert_non_null(strstr(msg, "NUL byte"));
	cpufreq_restore(cf);
	cpufreq_close(cf);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 10); /* untouched */
	free(root);
}

/* Restoring never writes through a symbolic link out of the tree; links
 * inside it (cpuN/cpufreq -> ../cpufreq/policyN) still work. */
static void test_restore_beneath(void **state)
{
	char *root = tree("--cpus 2"), msg[512], victim[PATH_MAX + 16], link[PATH_MAX + 128];
	FILE *fp;

	(void)state;
	snprintf(victim, sizeof(victim), "%s.victim", root);
	fp = fopen(victim, "w");
	assert_non_null(fp);
	fputs("secret\n", fp);
	fclose(fp);
	snprintf(link, sizeof(link), "%s/%s", root, POL(0, "scaling_governor"));
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink(victim, link), 0);
	assert_true(cpufreq_restore_policy(root, "devices/system/cpu/cpufreq/policy0", "performance",
	                                   -1, -1, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "symbolic link"));
	/* a relative link climbing out: refused too */
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("../../../../../../x.victim", link), 0);
	assert_true(cpufreq_restore_policy(root, "devices/system/cpu/cpufreq/policy0", "performance",
	                                   -1, -1, msg, sizeof(msg)) < 0);
	slurp("/", victim + 1, msg, sizeof(msg));
	assert_string_equal(msg, "secret");
	/* through the per-CPU link inside the tree: written */
	assert_int_equal(cpufreq_restore_policy(root, "devices/system/cpu/cpu1/cpufreq", "performance",
	                                        800000, 1600000, msg, sizeof(msg)), 0);
	assert_file(root, POL(1, "scaling_governor"), "performance");
	assert_file(root, POL(1, "scaling_max_freq"), "1600000");
	/* values outside the policy's governors and range: refused */
	assert_int_equal(cpufreq_restore_policy(root, "devices/system/cpu/cpufreq/policy1", "userspace",
	                                        -1, -1, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cpufreq_restore_policy(root, "devices/system/cpu/cpufreq/policy1", "",
	                                        -1, 9000000, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "outside the policy's range"));
	assert_file(root, POL(1, "scaling_max_freq"), "1600000");
	assert_int_equal(cpufreq_restore_policy(root, "devices/system/cpu/cpufreq/../../../..", "performance",
	                                        -1, -1, msg, sizeof(msg)), -EINVAL);
	unlink(victim);
	free(root);
}

/* A read-only tree: the write fails with a sentence, nothing crashes. */
static void test_read_only_tree(void **state)
{
	char *root = tree("--cpus 2"), ro[PATH_MAX + 8], msg[512];
	struct cpufreq *cf;

	(void)state;
	snprintf(ro, sizeof(ro), "%s.ro", root);
	mkdir(ro, 0755);
	if (mount(root, ro, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0) {
		umount(ro);
		free(root);
		skip(); /* no right to mount here */
	}
	cf = cpufreq_open(ro, 2);
	assert_int_equal(cpufreq_set_governor(cf, -1, "performance", msg, sizeof(msg)), -EROFS);
	assert_non_null(strstr(msg, "read-only here (Read-only file system)"));
	assert_non_null(strstr(msg, "scaling_governor"));
	assert_int_equal(cpufreq_set_maxfreq(cf, 0, 1600000, msg, sizeof(msg)), -EROFS);
	assert_non_null(strstr(msg, "read-only here"));
	assert_string_equal(cpufreq_policy_governor(cf, 0), "ondemand");
	assert_int_equal(cpufreq_restore_report(cf, NULL), 0);
	assert_string_equal(cpufreq_journal_path(cf), "");
	cpufreq_close(cf);
	assert_int_equal(umount(ro), 0);
	free(root);
}

/* A VM: no cpufreq directory, the hypervisor flag, a nominal MHz. */
static void test_vm_and_cpuinfo(void **state)
{
	char sys[PATH_MAX + 8], proc[PATH_MAX + 8], msg[512];
	struct snapshot *s = snapshot_new(2, 0, 0);
	struct cpufreq *cf;

	(void)state;
	snprintf(sys, sizeof(sys), "%s/vmsys", base);
	snprintf(proc, sizeof(proc), "%s/vmproc", base);
	mkdir(sys, 0755);
	mkdir(proc, 0755);
	spit(proc, "cpuinfo", "processor\t: 0\ncpu MHz\t\t: 2400.000\nflags\t\t: fpu vme hypervisor lahf_lm\n\n"
	                      "processor\t: 1\ncpu MHz\t\t: 2400.000\nflags\t\t: fpu vme hypervisor lahf_lm\n");
	cf = cpufreq_open_at(sys, proc, 2);
	assert_int_equal(cpufreq_source(cf), FREQ_NONE);
	assert_string_equal(cpufreq_unavailable_reason(cf), "frequency not observable here (nominal 2400 MHz)");
	assert_string_equal(cpufreq_residency_kind(cf), "none");
	assert_int_equal(cpufreq_set_governor(cf, -1, "performance", msg, sizeof(msg)), -ENODEV);
	assert_non_null(strstr(msg, "nominal 2400 MHz"));
	cpufreq_sample(cf, s, 0.5);
	assert_int_equal(s->cpus[1].khz, -1);
	cpufreq_close(cf);

	/* bare metal without cpufreq: /proc/cpuinfo, sampled */
	spit(proc, "cpuinfo", "processor\t: 0\ncpu MHz\t\t: 1200.500\nflags\t\t: fpu\n\n"
	                      "processor\t: 1\ncpu MHz\t\t: 3000.000\nflags\t\t: fpu\n");
	cf = cpufreq_open_at(sys, proc, 2);
	assert_int_equal(cpufreq_source(cf), FREQ_CPUINFO);
	assert_string_equal(cpufreq_residency_kind(cf), "sampled");
	cpufreq_sample(cf, s, 0.5);
	assert_int_equal(s->cpus[0].khz, 1200500);
	assert_int_equal(s->cpus[1].khz, 3000000);
	cpufreq_close(cf);

	/* a fake tree never reads the real machine's /proc */
	cf = cpufreq_open(sys, 2);
	assert_int_equal(cpufreq_source(cf), FREQ_NONE);
	assert_non_null(strstr(cpufreq_unavailable_reason(cf), "no cpufreq in"));
	cpufreq_close(cf);
	snapshot_free(s);
}

static void test_avg_freq_and_json(void **state)
{
	char *root = tree("--cpus 2 --driver intel_cpufreq");
	struct snapshot *s = snapshot_new(2, 0, 0);
	struct cpufreq *cf;
	char *json = NULL;
	size_t jlen = 0;
	FILE *fp;

	(void)state;
	spit(root, POL(0, "cpuinfo_avg_freq"), "2345678\n");
	spit(root, POL(1, "cpuinfo_avg_freq"), "1234567\n");
	cf = cpufreq_open(root, 2);
	assert_int_equal(cpufreq_source(cf), FREQ_AVG);
	cpufreq_sample(cf, s, 0.5);
	assert_int_equal(s->cpus[0].khz, 2345678);
	assert_int_equal(s->cpus[1].khz, 1234567);
	fp = open_memstream(&json, &jlen);
	cpufreq_policies_json(cf, fp);
	fclose(fp);
	assert_non_null(strstr(json, "{\"policy\":0,\"cpus\":\"0\",\"driver\":\"intel_cpufreq\","
	                             "\"governor\":\"ondemand\",\"min\":800000,\"max\":2600000"));
	free(json);
	snapshot_free(s);
	cpufreq_close(cf);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_layout),
		cmocka_unit_test(test_percpu_layout),
		cmocka_unit_test(test_no_stats_sampled),
		cmocka_unit_test(test_junk_everywhere),
		cmocka_unit_test(test_64_cpus),
		cmocka_unit_test(test_single_cpu_single_governor),
		cmocka_unit_test(test_governor_cycling),
		cmocka_unit_test(test_refuse_unknown),
		cmocka_unit_test(test_set_then_restore),
		cmocka_unit_test(test_restore_checks_available),
		cmocka_unit_test(test_residency_kernel),
		cmocka_unit_test(test_residency_reset),
		cmocka_unit_test(test_journal_left_behind),
		cmocka_unit_test(test_two_benchtops),
		cmocka_unit_test(test_read_only_tree),
		cmocka_unit_test(test_odd_governor_left_alone),
		cmocka_unit_test(test_restore_beneath),
		cmocka_unit_test(test_vm_and_cpuinfo),
		cmocka_unit_test(test_avg_freq_and_json),
	};
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}

/* test_cpufreq_aperf.c - the APERF/MPERF source: its arithmetic, reading a
 * PMU's description from fake trees, the rule that a fake sysfs root never
 * uses this machine's counters, and the probe on the machine at hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/kernel/cpufreq_impl.h"
#include "benchtop/model.h"

static char base[128];

static void spit(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* A PMU directory under base: type, format/event and the events given as
 * "name=content" pairs (NULL-terminated). */
static char *fake_pmu(const char *name, const char *type, const char *const *events)
{
	static char dir[PATH_MAX];
	char sub[PATH_MAX + 16];

	snprintf(dir, sizeof(dir), "%s/%s", base, name);
	mkdir(dir, 0755);
	snprintf(sub, sizeof(sub), "%s/events", dir);
	mkdir(sub, 0755);
	for (int i = 0; events[i]; i++) {
		char ev[64];
		const char *eq = strchr(events[i], '=');
		snprintf(ev, sizeof(ev), "%.*s", (int)(eq - events[i]), events[i]);
		spit(sub, ev, eq + 1);
	}
	snprintf(sub, sizeof(sub), "%s/format", dir);
	mkdir(sub, 0755);
	spit(sub, "event", "config:0-63\n");
	if (type)
		spit(dir, "type", type);
	return dir;
}

/* Open file descriptors of this process, to see that close gives all back. */
static int nfds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* ---- arithmetic ---- */

static void test_khz_normal(void **state)
{
	(void)state;
	/* 2 GHz TSC over 0.5 s, busy at the nominal clock */
	assert_int_equal(cpufreq_aperf_khz(700000000LL, 700000000LL, 1000000000LL, 0.5), 2000000);
	/* half speed: aperf ran half as fast as mperf */
	assert_int_equal(cpufreq_aperf_khz(350000000LL, 700000000LL, 1000000000LL, 0.5), 1000000);
	/* mostly idle: the figure is the clock while busy, not an average */
	assert_int_equal(cpufreq_aperf_khz(1000000LL, 1000000LL, 2400000000LL, 1.0), 2400000);
}

static void test_khz_turbo(void **state)
{
	(void)state;
	/* nominal 2.0 GHz, running 1.6x: above every scaling frequency */
	assert_int_equal(cpufreq_aperf_khz(1600000LL, 1000000LL, 2000000000LL, 1.0), 3200000);
	assert_true(cpufreq_aperf_khz(3LL, 2LL, 3000000000LL, 1.0) > 3000000);
}

static void test_khz_zero_deltas(void **state)
{
	(void)state;
	/* idle the whole interval: unknown, never a made-up figure */
	assert_int_equal(cpufreq_aperf_khz(0, 0, 2000000000LL, 1.0), -1);
	assert_int_equal(cpufreq_aperf_khz(5, 0, 2000000000LL, 1.0), -1);
	assert_int_equal(cpufreq_aperf_khz(0, 5, 2000000000LL, 1.0), -1);
	assert_int_equal(cpufreq_aperf_khz(5, 5, 0, 1.0), -1);
	assert_int_equal(cpufreq_aperf_khz(5, 5, 2000000000LL, 0.0), -1);
	assert_int_equal(cpufreq_aperf_khz(5, 5, 2000000000LL, -1.0), -1);
}

static void test_khz_wrap_and_reset(void **state)
{
	unsigned long long top = ~0ULL;

	(void)state;
	/* a 64-bit wrap is an ordinary step */
	assert_int_equal(cpufreq_aperf_delta(top - 99, 100), 200);
	assert_int_equal(cpufreq_aperf_delta(1000, 1000), 0);
	assert_int_equal(cpufreq_aperf_khz(cpufreq_aperf_delta(top - 999999, 1000000),
	                                   cpufreq_aperf_delta(top - 999999, 1000000),
	                                   cpufreq_aperf_delta(top - 999999999, 1000000000), 1.0), 2000000);
	/* a counter that started again goes backwards: unknown */
	assert_true(cpufreq_aperf_delta(5000000000ULL, 1000) < 0);
	assert_int_equal(cpufreq_aperf_khz(cpufreq_aperf_delta(5000000000ULL, 1000), 1000000,
	                                   2000000000LL, 1.0), -1);
	assert_int_equal(cpufreq_aperf_khz(1000000, 1000000,
	                                   cpufreq_aperf_delta(9000000000ULL, 10), 1.0), -1);
	/* only one counter reset: the ratio is absurd, not shown */
	assert_int_equal(cpufreq_aperf_khz(4000000000LL, 1000, 2000000000LL, 1.0), -1);
}

/* ---- the PMU's description ---- */

static void test_pmu_parse(void **state)
{
	static const char *const full[] = { "aperf=event=0x01\n", "mperf=event=0x02\n", "tsc=event=0x00\n", NULL };
	static const char *const tsc_only[] = { "tsc=event=0x00\n", NULL };
	static const char *const junk[] = { "aperf=umask=0x01\n", "mperf=event=0x02\n", "tsc=event=0x00\n", NULL };
	unsigned long long cfg[APERF_NEV];
	unsigned type = 0;
	char why[160];

	(void)state;
	assert_int_equal(cpufreq_aperf_pmu(fake_pmu("full", "9\n", full), &type, cfg, why, sizeof(why)), 0);
	assert_int_equal(type, 9);
	assert_int_equal(cfg[APERF_EV], 1);
	assert_int_equal(cfg[MPERF_EV], 2);
	assert_int_equal(cfg[TSC_EV], 0);
	assert_string_equal(why, "");

	/* this VM's shape: msr with only tsc */
	assert_int_equal(cpufreq_aperf_pmu(fake_pmu("tsconly", "9\n", tsc_only), &type, cfg, why, sizeof(why)),
	                 -ENOENT);
	assert_string_equal(why, "perf msr PMU has no aperf event");

	assert_int_equal(cpufreq_aperf_pmu(fake_pmu("junk", "9\n", junk), &type, cfg, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "aperf unreadable"));

	assert_int_equal(cpufreq_aperf_pmu(fake_pmu("notype", NULL, full), &type, cfg, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no perf msr PMU"));
}

/* A fake tree shaped like a machine with aperf never reads the counters. */
static void test_fake_root_never_aperf(void **state)
{
	char sys[PATH_MAX + 16];
	struct cpufreq *cf;

	static const char *const full[] = { "aperf=event=0x01\n", "mperf=event=0x02\n", "tsc=event=0x00\n", NULL };

	(void)state;
	snprintf(sys, sizeof(sys), "%s/sys", base);
	mkdir(sys, 0755);
	/* even with a complete msr PMU in the tree */
	assert_int_equal(system("mkdir -p \"$(printf %s \"$APERF_BASE\")/sys/bus/event_source/devices\""), 0);
	fake_pmu("sys/bus/event_source/devices/msr", "9\n", full);
	cf = cpufreq_open(sys, 2);
	assert_non_null(cf);
	assert_int_not_equal(cpufreq_source(cf), FREQ_APERF);
	assert_string_equal(cpufreq_aperf_reason(cf), "not read under a fake sysfs root");
	cpufreq_close(cf);
}

/* ---- the machine at hand (results depend on it) ---- */

/* The real /sys: APERF when this machine has it and lets us read it,
 * otherwise a reason and the next source, and no crash either way. */
static void test_real_probe(void **state)
{
	struct snapshot *s;
	struct cpufreq *cf;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	(void)state;
	if (ncpu < 1)
		ncpu = 1;
	s = snapshot_new((int)ncpu, 0, 0);
	cf = cpufreq_open("/sys", (int)ncpu);
	assert_non_null(cf);
	if (cpufreq_source(cf) == FREQ_APERF) {
		assert_string_equal(cpufreq_aperf_reason(cf), "");
		usleep(100000);
		cpufreq_sample(cf, s, 0.1);
		for (long c = 0; c < ncpu; c++)
			assert_true(s->cpus[c].khz == -1 || (s->cpus[c].khz > 0 && s->cpus[c].khz <= APERF_MAX_KHZ));
	} else if (cpufreq_source(cf) != FREQ_AVG) { /* with AVG, APERF was never asked */
		print_message("# APERF/MPERF not here: %s\n", cpufreq_aperf_reason(cf));
		assert_true(cpufreq_aperf_reason(cf)[0] != '\0');
		cpufreq_sample(cf, s, 0.1);
	}
	cpufreq_close(cf);
	snapshot_free(s);
}

/* The counting and reading path on whatever msr events this machine has:
 * tsc in all three places reads as the TSC rate itself. */
static void test_real_counters_tsc(void **state)
{
	unsigned long long cfg[APERF_NEV];
	char buf[64], why[160];
	struct aperf *a;
	unsigned type;
	FILE *fp;
	int before;

	(void)state;
	if (!(fp = fopen("/sys/bus/event_source/devices/msr/type", "r")) || !fgets(buf, sizeof(buf), fp)) {
		if (fp)
			fclose(fp);
		skip();
	}
	fclose(fp);
	type = (unsigned)atoi(buf);
	cfg[APERF_EV] = cfg[MPERF_EV] = cfg[TSC_EV] = 0; /* msr's tsc event */
	before = nfds();
	a = cpufreq_aperf_open(type, cfg, 2, why, sizeof(why));
	if (!a) {
		print_message("# msr tsc not readable here: %s\n", why);
		assert_true(why[0] != '\0');
		skip();
	}
	assert_int_equal(nfds(), before + 2 * APERF_NEV);
	assert_int_equal(cpufreq_aperf_cpu_khz(a, 0), -1); /* only a baseline so far */
	usleep(50000);
	cpufreq_aperf_read(a);
	for (int c = 0; c < 2; c++) {
		long khz = cpufreq_aperf_cpu_khz(a, c);
		print_message("# cpu%d TSC rate %ld kHz\n", c, khz);
		assert_true(khz > 100000 && khz < 10000000);
	}
	assert_int_equal(cpufreq_aperf_cpu_khz(a, 2), -1);
	cpufreq_aperf_close(a);
	assert_int_equal(nfds(), before);
}

static void test_open_refused(void **state)
{
	unsigned long long cfg[APERF_NEV] = { 0, 0, 0 };
	char why[160];
	int before = nfds();

	(void)state;
	/* a PMU type no kernel has: refused with a reason, nothing leaked */
	assert_null(cpufreq_aperf_open(0x7ffffff0u, cfg, 2, why, sizeof(why)));
	assert_int_equal(nfds(), before);
	assert_non_null(strstr(why, "perf_event_open(msr aperf, cpu 0)"));
}

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "/tmp/test_aperf.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	return setenv("APERF_BASE", base, 1);
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_khz_normal),
		cmocka_unit_test(test_khz_turbo),
		cmocka_unit_test(test_khz_zero_deltas),
		cmocka_unit_test(test_khz_wrap_and_reset),
		cmocka_unit_test(test_pmu_parse),
		cmocka_unit_test(test_fake_root_never_aperf),
		cmocka_unit_test(test_real_probe),
		cmocka_unit_test(test_real_counters_tsc),
		cmocka_unit_test(test_open_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

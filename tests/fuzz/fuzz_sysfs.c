/* fuzz_sysfs.c - libFuzzer harness for the sysfs and /proc readers on a
 * fixture tree: the input, cut at every 0x01 byte, becomes the contents of
 * the files of a fake two-CPU cpufreq tree (policy0 and policy1 with their
 * stats, cpu0/cpu1 online) and of a fake /proc (cpuinfo), one piece per
 * file in turn.  The tree is opened and sampled as a run would
 * (cpufreq_open_at, cpufreq_sample twice, every policy query, residency),
 * and each piece also goes through the /proc/PID parsers (sched, schedstat,
 * io, fdinfo). */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchtop/cpufreq.h"
#include "benchtop/model.h"
#include "benchtop/sample.h"

static char root[64], sys[96], proc[96];

static const char *const files[] = {
	"S/devices/system/cpu/present",
	"S/devices/system/cpu/online",
	"S/devices/system/cpu/cpu1/online",
	"S/devices/system/cpu/cpufreq/policy0/scaling_cur_freq",
	"S/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies",
	"S/devices/system/cpu/cpufreq/policy0/scaling_governor",
	"S/devices/system/cpu/cpufreq/policy0/scaling_available_governors",
	"S/devices/system/cpu/cpufreq/policy0/stats/time_in_state",
	"S/devices/system/cpu/cpufreq/policy0/related_cpus",
	"S/devices/system/cpu/cpufreq/policy0/affected_cpus",
	"S/devices/system/cpu/cpufreq/policy0/scaling_min_freq",
	"S/devices/system/cpu/cpufreq/policy0/scaling_max_freq",
	"S/devices/system/cpu/cpufreq/policy0/cpuinfo_min_freq",
	"S/devices/system/cpu/cpufreq/policy0/cpuinfo_max_freq",
	"S/devices/system/cpu/cpufreq/policy0/scaling_driver",
	"S/devices/system/cpu/cpufreq/policy0/stats/total_trans",
	"S/devices/system/cpu/cpufreq/policy1/scaling_cur_freq",
	"S/devices/system/cpu/cpufreq/policy1/stats/time_in_state",
	"S/devices/system/cpu/cpufreq/policy1/related_cpus",
	"S/devices/system/cpu/cpufreq/policy1/scaling_governor",
	"S/devices/system/cpu/cpufreq/policy1/scaling_available_frequencies",
	"S/devices/system/cpu/cpufreq/policy1/scaling_max_freq",
	"P/cpuinfo",
};
#define NFILES (sizeof files / sizeof files[0])

static void path_of(size_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", files[i][0] == 'S' ? sys : proc, files[i] + 2);
}

static void mkdirs(const char *path)
{
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0755);
			*p = '/';
		}
}

static void put(const char *path, const uint8_t *d, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		abort();
	if (n && write(fd, d, n) != (ssize_t)n)
		abort();
	close(fd);
}

static void make_tree(void)
{
	snprintf(root, sizeof root, "/tmp/fuzz_sysfs.XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(sys, sizeof sys, "%s/sys", root);
	snprintf(proc, sizeof proc, "%s/proc", root);
	char p[256], t[256];
	for (size_t i = 0; i < NFILES; i++) {
		path_of(i, p, sizeof p);
		mkdirs(p);
	}
	for (int c = 0; c < 2; c++) {
		snprintf(p, sizeof p, "%s/devices/system/cpu/cpu%d", sys, c);
		mkdir(p, 0755);
		snprintf(p, sizeof p, "%s/devices/system/cpu/cpu%d/cpufreq", sys, c);
		snprintf(t, sizeof t, "../cpufreq/policy%d", c);
		if (symlink(t, p) != 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char p[256];
	if (!root[0])
		make_tree();
	size_t at = 0;
	for (size_t i = 0; i < NFILES; i++) {
		const uint8_t *end = at < size ? memchr(data + at, 1, size - at) : NULL;
		size_t n = at < size ? (end ? (size_t)(end - (data + at)) : size - at) : 0;
		path_of(i, p, sizeof p);
		put(p, data + at, n);
		/* the same piece through the /proc/PID parsers */
		char *text = strndup((const char *)data + at, n);
		uint64_t a, b, c2, d;
		unsigned fl;
		sample_parse_sched_migrations(text, &a);
		sample_parse_schedstat(text, &a, &b);
		sample_parse_io(text, &a, &b, &c2, &d);
		sample_parse_fdinfo(text, &a, &fl);
		free(text);
		at += n + (end ? 1 : 0);
	}
	struct cpufreq *cf = cpufreq_open_at(sys, proc, 2);
	if (cf) {
		struct snapshot *s = snapshot_new(2, 0, 0);
		cpufreq_start_clock(cf);
		cpufreq_sample(cf, s, 0.5);
		cpufreq_mark(cf);
		cpufreq_sample(cf, s, 0.5);
		for (int k = 0; k < cpufreq_npolicies(cf); k++) {
			const long *khz;
			cpufreq_policy_cpus(cf, k);
			cpufreq_policy_governors(cf, k);
			cpufreq_policy_governor(cf, k);
			cpufreq_policy_driver(cf, k);
			cpufreq_policy_min(cf, k);
			cpufreq_policy_max(cf, k);
			cpufreq_policy_freqs(cf, k, &khz);
		}
		for (int c = 0; c < 2; c++) {
			const long *khz;
			const double *secs;
			cpufreq_policy_of_cpu(cf, c);
			cpufreq_residency(cf, c, false, &khz, &secs);
			cpufreq_residency(cf, c, true, &khz, &secs);
			cpufreq_mean_khz(cf, c, false);
		}
		cpufreq_source_name(cpufreq_source(cf));
		cpufreq_residency_kind(cf);
		cpufreq_unavailable_reason(cf);
		snapshot_free(s);
		cpufreq_close(cf);
	}
	return 0;
}

/* cpufreq_aperf.c - the APERF/MPERF frequency source: per-CPU counter
 * groups {aperf, mperf, tsc} on the perf `msr` PMU, read once a tick.
 * Only cpufreq.c decides whether to use it (the real /sys only); this file
 * finds the PMU's events, opens and reads the counters and does the
 * arithmetic. */
#include "cpufreq_impl.h"

#include "benchtop/sysfile.h"
#include "benchtop/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const ev_name[APERF_NEV] = { "aperf", "mperf", "tsc" };

struct aperf_cpu {
	int fd[APERF_NEV];           /* fd[APERF_EV] leads the group */
	bool have_prev;
	unsigned long long prev[APERF_NEV], prev_ns;
	long khz;                    /* last figure, -1 unknown */
};

struct aperf {
	int ncpu;
	struct aperf_cpu *cpu;
};

/* ---- arithmetic ---- */

long long cpufreq_aperf_delta(unsigned long long prev, unsigned long long cur)
{
	/* Unsigned subtraction carries a 64-bit wrap through; a counter that
	 * started again from zero shows as a negative step. */
	return (long long)(cur - prev);
}

long cpufreq_aperf_khz(long long d_aperf, long long d_mperf, long long d_tsc, double dt)
{
	double khz;

	/* mperf still: the CPU slept through the interval, nothing to say */
	if (d_aperf <= 0 || d_mperf <= 0 || d_tsc <= 0 || !(dt > 0))
		return -1;
	khz = (double)d_tsc / dt / 1000.0 * ((double)d_aperf / (double)d_mperf);
	/* a counter reset between two reads gives absurd ratios */
	if (khz < 1000.0 || khz > (double)APERF_MAX_KHZ)
		return -1;
	return (long)(khz + 0.5);
}

/* ---- the PMU's description in sysfs ---- */

/* "event=0x01" (terms split by ','; only `event` is set by msr's events)
 * shifted into config by the format's "config:LO-HI".  0 or -EINVAL. */
static int parse_event(const char *ev, const char *format, unsigned long long *config)
{
	unsigned lo = 0, hi = 0;
	const char *p = strstr(ev, "event=");
	char *end;
	unsigned long long v;

	if (!p || (p != ev && p[-1] != ','))
		return -EINVAL;
	p += 6;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 0);
	if (errno || (*end && *end != ','))
		return -EINVAL;
	switch (sscanf(format, "config:%u-%u", &lo, &hi)) {
	case 1: hi = lo; break;         /* a one-bit field: "config:5" */
	case 2: break;
	default: return -EINVAL;
	}
	if (hi < lo || hi > 63 || (hi - lo < 63 && v >> (hi - lo + 1)))
		return -EINVAL;
	*config = v << lo;
	return 0;
}

int cpufreq_aperf_pmu(const char *pmu_dir, unsigned *type, unsigned long long config[APERF_NEV],
                      char *why, size_t len)
{
	char buf[128], format[64], dir[PATH_MAX + 16];
	long t;

	if (sysfile_read(pmu_dir, "type", buf, sizeof(buf)) <= 0 || (t = atol(buf)) <= 0) {
		snprintf(why, len, "no perf msr PMU (%.80s/type unreadable)", pmu_dir);
		return -ENOENT;
	}
	snprintf(dir, sizeof(dir), "%s/format", pmu_dir);
	if (sysfile_read(dir, "event", format, sizeof(format)) <= 0)
		snprintf(format, sizeof(format), "config:0-63"); /* msr's own layout */
	snprintf(dir, sizeof(dir), "%s/events", pmu_dir);
	for (int i = 0; i < APERF_NEV; i++) {
		if (sysfile_read(dir, ev_name[i], buf, sizeof(buf)) <= 0) {
			snprintf(why, len, "perf msr PMU has no %s event", ev_name[i]);
			return -ENOENT;
		}
		if (parse_event(buf, format, &config[i]) < 0) {
			snprintf(why, len, "perf msr PMU event %s unreadable (\"%.40s\")", ev_name[i], buf);
			return -EINVAL;
		}
	}
	*type = (unsigned)t;
	why[0] = '\0';
	return 0;
}

/* ---- counters ---- */

static int perf_open(unsigned type, unsigned long long config, int cpu, int group)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	/* counting (no sample period), CPU-wide, not inherited; the msr PMU
	 * refuses exclude_* bits, so none are set */
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED;
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static void explain(int err, int ev, int cpu, char *why, size_t len)
{
	const char *hint = err == EACCES || err == EPERM ? " (needs root or CAP_PERFMON)"
	                 : err == EMFILE || err == ENFILE ? " (too many open files)"
	                 : err == ENODEV ? " (CPU offline?)" : "";

	snprintf(why, len, "perf_event_open(msr %s, cpu %d): %s%s", ev_name[ev], cpu, strerror(err), hint);
}

struct aperf *cpufreq_aperf_open(unsigned type, const unsigned long long config[APERF_NEV], int ncpu,
                                 char *why, size_t len)
{
	struct aperf *a = xcalloc(1, sizeof(*a));

	if (!a || ncpu <= 0 || !(a->cpu = xcalloc((size_t)ncpu, sizeof(*a->cpu)))) {
		snprintf(why, len, "out of memory");
		free(a);
		return NULL;
	}
	a->ncpu = ncpu;
	for (int c = 0; c < ncpu; c++) {
		for (int i = 0; i < APERF_NEV; i++)
			a->cpu[c].fd[i] = -1;
		a->cpu[c].khz = -1;
	}
	for (int c = 0; c < ncpu; c++)
		for (int i = 0; i < APERF_NEV; i++) {
			int fd = perf_open(type, config[i], c, i == APERF_EV ? -1 : a->cpu[c].fd[APERF_EV]);
			if (fd < 0) {
				explain(errno, i, c, why, len);
				cpufreq_aperf_close(a);
				return NULL;
			}
			a->cpu[c].fd[i] = fd;
		}
	why[0] = '\0';
	cpufreq_aperf_read(a); /* the baseline: the first tick measures from here */
	return a;
}

/* One read of cpu c's group: new figure when there is a baseline. */
static void read_cpu(struct aperf_cpu *pc)
{
	/* PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED: nr, time_enabled, values */
	uint64_t buf[2 + APERF_NEV];
	long long d[APERF_NEV];
	ssize_t n = read(pc->fd[APERF_EV], buf, sizeof(buf));

	if (n != (ssize_t)sizeof(buf) || buf[0] != APERF_NEV) {
		pc->khz = -1;
		pc->have_prev = false;
		return;
	}
	if (pc->have_prev) {
		for (int i = 0; i < APERF_NEV; i++)
			d[i] = cpufreq_aperf_delta(pc->prev[i], buf[2 + i]);
		/* the kernel's own clock for the interval the counts cover */
		pc->khz = cpufreq_aperf_khz(d[APERF_EV], d[MPERF_EV], d[TSC_EV],
		                            (double)cpufreq_aperf_delta(pc->prev_ns, buf[1]) / 1e9);
	}
	for (int i = 0; i < APERF_NEV; i++)
		pc->prev[i] = buf[2 + i];
	pc->prev_ns = buf[1];
	pc->have_prev = true;
}

void cpufreq_aperf_read(struct aperf *a)
{
	for (int c = 0; a && c < a->ncpu; c++)
		read_cpu(&a->cpu[c]);
}

long cpufreq_aperf_cpu_khz(const struct aperf *a, int cpu)
{
	return a && cpu >= 0 && cpu < a->ncpu ? a->cpu[cpu].khz : -1;
}

void cpufreq_aperf_close(struct aperf *a)
{
	if (!a)
		return;
	for (int c = 0; a->cpu && c < a->ncpu; c++)
		for (int i = APERF_NEV - 1; i >= 0; i--) /* siblings before their leader */
			if (a->cpu[c].fd[i] >= 0)
				close(a->cpu[c].fd[i]);
	free(a->cpu);
	free(a);
}

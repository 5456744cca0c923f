/* cpufreq_impl.h - what src/cpufreq*.c share and nothing else sees: the
 * model behind struct cpufreq and the small readers the three files use.
 * cpufreq.c: discovery, source, sampling; cpufreq_write.c: governor and
 * limit writes, journal, restore; cpufreq_residency.c: time_in_state and
 * residency rows, phases, JSON; cpufreq_aperf.c: the APERF/MPERF source. */
#ifndef BENCHTOP_CPUFREQ_IMPL_H
#define BENCHTOP_CPUFREQ_IMPL_H

#include <limits.h>
#include <stdbool.h>
#include "benchtop/cpufreq.h"

#define GOVS_LEN 256
#define MAX_FREQS 64
#define MAX_ROWS 128

/* Seconds at each frequency, ascending by kHz. */
struct rows {
	size_t n;
	long khz[MAX_ROWS];
	double secs[MAX_ROWS];
};

struct policy {
	char dir[PATH_MAX];
	char *cpus;                   /* its CPUs as a list, sized from the CPU count */
	char governors[GOVS_LEN];
	char governor[MODEL_GOV_LEN];
	char driver[MODEL_GOV_LEN];
	long min, max, cpuinfo_min, cpuinfo_max, cur;
	long freqs[MAX_FREQS];
	size_t nfreqs;
	/* time_in_state as last read: the baseline for the next delta */
	bool has_stats, tis_valid;
	size_t ntis;
	long tis_khz[MAX_ROWS];
	unsigned long long tis_val[MAX_ROWS];
	/* the values before benchtop's first change, once journaled */
	bool saved, changed;
	char orig_gov[MODEL_GOV_LEN];
	long orig_min, orig_max;
};

struct aperf;

struct cpufreq {
	char root[PATH_MAX];
	char procfs[PATH_MAX];       /* "" when /proc/cpuinfo is not to be read */
	int ncpu;
	int npol;
	struct policy *pol;
	int *cpu_pol;                /* policy index of each CPU, -1 none */
	enum freq_source source;
	char reason[128];
	struct aperf *aperf;         /* counters when source is FREQ_APERF */
	char aperf_why[160];         /* why APERF/MPERF is not used, "" if it is */
	long *cpuinfo_khz;           /* per CPU, from /proc/cpuinfo */
	struct rows *since_start, *since_mark;  /* per CPU */
	struct rows **phases;        /* completed phases: ncpu rows each */
	size_t nphases;
	int left_alone;              /* policies the last change skipped */
	/* Budget for slow trees: after a pass that took too long, the next
	 * `skip` ticks reuse the values read and carry their time over. */
	int skip;
	double pending_dt;
};

/* Small readers (cpufreq.c; whole files through sysfile.h).  Missing or
 * junk content reads as -1 / "". */
long cpufreq_read_khz(const char *dir, const char *name);
void cpufreq_read_name(const char *dir, const char *file, char *out, size_t len);
void cpufreq_read_governors(const char *dir, char *out, size_t len);
bool cpufreq_in_list(const char *list, const char *word);
/* Re-read governor, limits and current frequency of p. */
void cpufreq_read_state(struct cpufreq *cf, struct policy *p);

/* Residency (cpufreq_residency.c). */
int cpufreq_read_tis(const struct policy *p, long *khz, unsigned long long *val);
void cpufreq_accrue(struct cpufreq *cf, int cpu, long khz, double secs);
void cpufreq_accrue_tis(struct cpufreq *cf, int pi);
long cpufreq_bin_khz(const struct cpufreq *cf, int cpu, long khz);
/* Free the residency rows: since start, since the last mark, and every
 * completed phase. */
void cpufreq_residency_free(struct cpufreq *cf);

/* APERF/MPERF through the perf msr PMU (cpufreq_aperf.c).  Only cpufreq.c
 * calls these, and only for the real /sys. */
enum { APERF_EV, MPERF_EV, TSC_EV, APERF_NEV };
#define APERF_MAX_KHZ 20000000L  /* above 20 GHz is a counter glitch */
/* cur - prev of a 64-bit counter: a wrap comes out right, a counter that
 * started again shows as a negative step. */
long long cpufreq_aperf_delta(unsigned long long prev, unsigned long long cur);
/* Effective kHz over an interval of dt seconds: TSC rate x aperf/mperf;
 * -1 when a delta is not positive (idle, reset) or the result absurd. */
long cpufreq_aperf_khz(long long d_aperf, long long d_mperf, long long d_tsc, double dt);
/* The PMU at pmu_dir (type, events/{aperf,mperf,tsc} in format/event's
 * bits): 0, or -errno with a sentence in why. */
int cpufreq_aperf_pmu(const char *pmu_dir, unsigned *type, unsigned long long config[APERF_NEV],
                      char *why, size_t len);
/* Open a counting group {config[0..2]} on each of ncpu CPUs and take the
 * baseline reading; NULL with a sentence in why if any open fails. */
struct aperf *cpufreq_aperf_open(unsigned type, const unsigned long long config[APERF_NEV], int ncpu,
                                 char *why, size_t len);
/* Read every CPU's group; each figure then covers the time since the last
 * read (-1 where the counters did not move or went backwards). */
void cpufreq_aperf_read(struct aperf *a);
long cpufreq_aperf_cpu_khz(const struct aperf *a, int cpu);
void cpufreq_aperf_close(struct aperf *a);
/* Why cf does not use APERF/MPERF ("" when it does, or was not asked). */
const char *cpufreq_aperf_reason(const struct cpufreq *cf);

#endif

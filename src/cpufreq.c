/* cpufreq.c - cpufreq policies under a sysfs root: discovery (policyN dirs
 * or per-CPU cpuN/cpufreq dirs), the frequency source, governor and
 * max-frequency writes recorded in the restore journal first, and
 * residency per CPU (time_in_state deltas, or sampled). */
#include "benchtop/cpufreq.h"
#include "benchtop/cpulist.h"
#include "benchtop/journal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	char cpus[MODEL_CPUS_LEN];
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

struct cpufreq {
	char root[PATH_MAX];
	char procfs[PATH_MAX];       /* "" when /proc/cpuinfo is not to be read */
	int ncpu;
	int npol;
	struct policy *pol;
	int *cpu_pol;                /* policy index of each CPU, -1 none */
	enum freq_source source;
	char reason[128];
	long *cpuinfo_khz;           /* per CPU, from /proc/cpuinfo */
	struct rows *since_start, *since_mark;  /* per CPU */
	struct rows **phases;        /* completed phases: ncpu rows each */
	size_t nphases;
	char journal_fallback[PATH_MAX];
	char journal_path[PATH_MAX];
	bool journaled;
	/* Budget for slow trees: after a pass that took too long, the next
	 * `skip` ticks reuse the values read and carry their time over. */
	int skip;
	double pending_dt;
};

/* ---- small file helpers ---- */

/* Read a small file into buf, NUL-terminated at the first NUL or the end,
 * trailing whitespace cut.  Returns the length or -errno. */
static int read_text(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX + 64];
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = (int)read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	n = (int)strlen(buf);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n;
}

/* A positive kHz figure, or -1 for missing or junk content. */
static long parse_khz(const char *s)
{
	char *end;
	long v;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end || v <= 0 || v > 100000000L)
		return -1;
	return v;
}

static long read_khz(const char *dir, const char *name)
{
	char buf[64];

	return read_text(dir, name, buf, sizeof(buf)) > 0 ? parse_khz(buf) : -1;
}

/* A governor or driver name: short, printable, no spaces. */
static bool sane_name(const char *s, size_t n)
{
	if (n == 0 || n >= MODEL_GOV_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

static void read_name(const char *dir, const char *file, char *out, size_t len)
{
	char buf[128];
	int n = read_text(dir, file, buf, sizeof(buf));

	out[0] = '\0';
	if (n > 0 && (size_t)n < len && sane_name(buf, (size_t)n))
		memcpy(out, buf, (size_t)n + 1);
}

/* Available governors, junk words dropped, as "a b c". */
static void read_governors(const char *dir, char *out, size_t len)
{
	char buf[1024], *save = NULL;
	size_t used = 0;

	out[0] = '\0';
	if (read_text(dir, "scaling_available_governors", buf, sizeof(buf)) <= 0)
		return;
	for (char *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		size_t n = strlen(w);
		if (!sane_name(w, n) || used + n + 2 > len)
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", w);
	}
}

static bool in_list(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; n && (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Parse "0 1 2" or "0-3,5" into mask; returns how many CPUs were set. */
static int parse_cpus(const char *s, unsigned char *mask, int ncpu)
{
	int count = 0;

	while (*s) {
		char *end;
		long a, b;
		if (!isdigit((unsigned char)*s)) {
			s++;
			continue;
		}
		a = b = strtol(s, &end, 10);
		if (*end == '-' && isdigit((unsigned char)end[1]))
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && c < ncpu; c++)
			if (!mask[c]) {
				mask[c] = 1;
				count++;
			}
		s = end;
	}
	return count;
}

/* ---- time_in_state ---- */

/* Parse "KHZ TIME" lines; returns rows or -1 for junk. */
static int parse_tis(const char *text, long *khz, unsigned long long *val, size_t max)
{
	size_t n = 0;

	for (const char *line = text; *line && n < max;) {
		char *end;
		long f = strtol(line, &end, 10);
		if (end == line || f <= 0 || (*end != ' ' && *end != '\t'))
			return -1;
		const char *t = end;
		while (*t == ' ' || *t == '\t')
			t++;
		if (!isdigit((unsigned char)*t))
			return -1;
		khz[n] = f;
		val[n++] = strtoull(t, &end, 10);
		line = end;
		while (*line == '\n' || *line == ' ' || *line == '\r')
			line++;
	}
	return (int)n;
}

static int read_tis(const struct policy *p, long *khz, unsigned long long *val)
{
	char buf[8192];

	if (read_text(p->dir, "stats/time_in_state", buf, sizeof(buf)) <= 0)
		return -1;
	return parse_tis(buf, khz, val, MAX_ROWS);
}

/* ---- residency rows ---- */

static void rows_add(struct rows *r, long khz, double secs)
{
	size_t i = 0;

	while (i < r->n && r->khz[i] < khz)
		i++;
	if (i < r->n && r->khz[i] == khz) {
		r->secs[i] += secs;
		return;
	}
	if (r->n == MAX_ROWS)
		return; /* more distinct frequencies than any table has: drop */
	memmove(&r->khz[i + 1], &r->khz[i], (r->n - i) * sizeof(long));
	memmove(&r->secs[i + 1], &r->secs[i], (r->n - i) * sizeof(double));
	r->khz[i] = khz;
	r->secs[i] = secs;
	r->n++;
}

static void accrue(struct cpufreq *cf, int cpu, long khz, double secs)
{
	if (secs <= 0 || khz <= 0)
		return;
	rows_add(&cf->since_start[cpu], khz, secs);
	rows_add(&cf->since_mark[cpu], khz, secs);
}

/* Kernel residency: add the growth of time_in_state to each CPU of p.  A
 * row going backwards or the table changing (stats reset, driver reload)
 * only re-baselines: no negative time, nothing invented. */
static void accrue_tis(struct cpufreq *cf, int pi)
{
	struct policy *p = &cf->pol[pi];
	long khz[MAX_ROWS];
	unsigned long long val[MAX_ROWS];
	int n = read_tis(p, khz, val);
	bool same = p->tis_valid && n == (int)p->ntis;

	if (n <= 0) {
		p->tis_valid = false;
		return;
	}
	for (int i = 0; same && i < n; i++)
		same = khz[i] == p->tis_khz[i] && val[i] >= p->tis_val[i];
	for (int i = 0; same && i < n; i++) {
		double secs = (double)(val[i] - p->tis_val[i]) / 100.0; /* 10 ms units */
		for (int c = 0; c < cf->ncpu; c++)
			if (cf->cpu_pol[c] == pi)
				accrue(cf, c, khz[i], secs);
	}
	memcpy(p->tis_khz, khz, (size_t)n * sizeof(long));
	memcpy(p->tis_val, val, (size_t)n * sizeof(unsigned long long));
	p->ntis = (size_t)n;
	p->tis_valid = true;
}

/* A sampled frequency goes to the nearest row of the policy's table, or to
 * the nearest 100 MHz, so that a continuously varying clock still gives a
 * readable bar chart. */
static long bin_khz(const struct cpufreq *cf, int cpu, long khz)
{
	int pi = cf->cpu_pol[cpu];
	const struct policy *p = pi >= 0 ? &cf->pol[pi] : NULL;
	long best = -1;

	if (!p || p->nfreqs == 0)
		return (khz + 50000) / 100000 * 100000;
	for (size_t i = 0; i < p->nfreqs; i++)
		if (best < 0 || labs(p->freqs[i] - khz) < labs(best - khz))
			best = p->freqs[i];
	return best;
}

/* ---- discovery ---- */

/* Available frequencies from the list, else from time_in_state's rows. */
static void read_freqs(struct policy *p)
{
	char buf[2048];
	unsigned long long val[MAX_ROWS];
	long khz[MAX_ROWS];
	int n;

	p->nfreqs = 0;
	if (read_text(p->dir, "scaling_available_frequencies", buf, sizeof(buf)) > 0) {
		char *save = NULL;
		for (char *w = strtok_r(buf, " \t\n", &save); w && p->nfreqs < MAX_FREQS;
		     w = strtok_r(NULL, " \t\n", &save)) {
			long f = parse_khz(w);
			if (f > 0)
				p->freqs[p->nfreqs++] = f;
		}
	}
	if (p->nfreqs == 0 && (n = read_tis(p, khz, val)) > 0)
		for (int i = 0; i < n && p->nfreqs < MAX_FREQS; i++)
			p->freqs[p->nfreqs++] = khz[i];
	qsort(p->freqs, p->nfreqs, sizeof(long), cmp_long);
	/* duplicates in junk lists would show as twin menu entries */
	size_t k = 0;
	for (size_t i = 0; i < p->nfreqs; i++)
		if (k == 0 || p->freqs[k - 1] != p->freqs[i])
			p->freqs[k++] = p->freqs[i];
	p->nfreqs = k;
}

/* The values that may change under us: re-read every tick. */
static void read_state(struct cpufreq *cf, struct policy *p)
{
	read_name(p->dir, "scaling_governor", p->governor, sizeof(p->governor));
	p->min = read_khz(p->dir, "scaling_min_freq");
	p->max = read_khz(p->dir, "scaling_max_freq");
	p->cur = -1;
	if (cf->source == FREQ_AVG)
		p->cur = read_khz(p->dir, "cpuinfo_avg_freq");
	if (p->cur < 0)
		p->cur = read_khz(p->dir, "scaling_cur_freq");
}

static void load_policy(struct cpufreq *cf, struct policy *p)
{
	struct stat st;
	char path[PATH_MAX + 32];

	read_governors(p->dir, p->governors, sizeof(p->governors));
	read_name(p->dir, "scaling_driver", p->driver, sizeof(p->driver));
	p->cpuinfo_min = read_khz(p->dir, "cpuinfo_min_freq");
	p->cpuinfo_max = read_khz(p->dir, "cpuinfo_max_freq");
	read_freqs(p);
	snprintf(path, sizeof(path), "%s/stats/time_in_state", p->dir);
	p->has_stats = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	read_state(cf, p);
}

/* Add a policy at dir covering the CPUs in mask (those not yet taken). */
static int add_policy(struct cpufreq *cf, const char *dir, unsigned char *mask)
{
	struct policy *np = realloc(cf->pol, (size_t)(cf->npol + 1) * sizeof(*np));
	int taken = 0;

	if (!np)
		return -ENOMEM;
	cf->pol = np;
	for (int c = 0; c < cf->ncpu; c++) {
		if (mask[c] && cf->cpu_pol[c] < 0) {
			cf->cpu_pol[c] = cf->npol;
			taken++;
		} else {
			mask[c] = 0;
		}
	}
	if (taken == 0)
		return 0; /* every CPU it names is already covered: a duplicate */
	struct policy *p = &cf->pol[cf->npol++];
	memset(p, 0, sizeof(*p));
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	cpulist_format(mask, cf->ncpu, p->cpus, sizeof(p->cpus));
	load_policy(cf, p);
	return 0;
}

/* The CPUs a policy dir covers: affected_cpus, else related_cpus, else
 * the fallback CPU (from the directory's name). */
static void policy_cpus(const struct cpufreq *cf, const char *dir, int fallback, unsigned char *mask)
{
	char buf[4096];

	memset(mask, 0, (size_t)cf->ncpu);
	if (read_text(dir, "affected_cpus", buf, sizeof(buf)) > 0 && parse_cpus(buf, mask, cf->ncpu) > 0)
		return;
	if (read_text(dir, "related_cpus", buf, sizeof(buf)) > 0 && parse_cpus(buf, mask, cf->ncpu) > 0)
		return;
	if (fallback >= 0 && fallback < cf->ncpu)
		mask[fallback] = 1;
}

static int cmp_policy_name(const void *a, const void *b)
{
	return atoi(*(char *const *)a + 6) - atoi(*(char *const *)b + 6);
}

static void scan_policy_dirs(struct cpufreq *cf, unsigned char *mask)
{
	char base[PATH_MAX + 32], dir[PATH_MAX + 300];
	char *names[1024];
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	snprintf(base, sizeof(base), "%s/devices/system/cpu/cpufreq", cf->root);
	if (!(d = opendir(base)))
		return;
	while ((de = readdir(d)) && n < 1024)
		if (strncmp(de->d_name, "policy", 6) == 0 && isdigit((unsigned char)de->d_name[6]))
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(char *), cmp_policy_name);
	for (size_t i = 0; i < n; i++) {
		if (names[i]) {
			snprintf(dir, sizeof(dir), "%s/%s", base, names[i]);
			policy_cpus(cf, dir, atoi(names[i] + 6), mask);
			add_policy(cf, dir, mask);
		}
		free(names[i]);
	}
}

/* Older kernels: a real cpuN/cpufreq directory per CPU; CPUs sharing a
 * policy are grouped by affected_cpus so that a write goes once. */
static void scan_percpu_dirs(struct cpufreq *cf, unsigned char *mask)
{
	char dir[PATH_MAX + 64];
	struct stat st;

	for (int c = 0; c < cf->ncpu; c++) {
		if (cf->cpu_pol[c] >= 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d/cpufreq", cf->root, c);
		if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		policy_cpus(cf, dir, c, mask);
		mask[c] = 1;
		add_policy(cf, dir, mask);
	}
}

/* ---- /proc/cpuinfo and the frequency source ---- */

/* Per-CPU "cpu MHz" into cf->cpuinfo_khz; sets *hypervisor.  Returns the
 * number of CPUs with a figure. */
static int read_cpuinfo(struct cpufreq *cf, bool *hypervisor)
{
	char path[PATH_MAX + 16], line[4096];
	int cpu = -1, found = 0;
	FILE *fp;

	if (!cf->procfs[0])
		return 0;
	snprintf(path, sizeof(path), "%s/cpuinfo", cf->procfs);
	if (!(fp = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		double mhz;
		int n;
		if (sscanf(line, "processor : %d", &n) == 1)
			cpu = n;
		else if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && cpu >= 0 && cpu < cf->ncpu && mhz > 0) {
			cf->cpuinfo_khz[cpu] = (long)(mhz * 1000.0 + 0.5);
			found++;
		} else if (hypervisor && strncmp(line, "flags", 5) == 0 && strstr(line, " hypervisor"))
			*hypervisor = true;
	}
	fclose(fp);
	return found;
}

/* APERF/MPERF needs the perf msr PMU on the real /sys and the right to
 * open it; benchtop does not read it yet, so it is reported unavailable
 * and the next source is used. */
static bool aperf_available(const struct cpufreq *cf)
{
	(void)cf;
	return false;
}

static bool any_policy_has(const struct cpufreq *cf, const char *file)
{
	for (int i = 0; i < cf->npol; i++)
		if (read_khz(cf->pol[i].dir, file) > 0)
			return true;
	return false;
}

static void probe_source(struct cpufreq *cf)
{
	bool hv = false;
	int ncpuinfo = read_cpuinfo(cf, &hv);

	cf->reason[0] = '\0';
	if (any_policy_has(cf, "cpuinfo_avg_freq"))
		cf->source = FREQ_AVG;
	else if (aperf_available(cf))
		cf->source = FREQ_APERF;
	else if (any_policy_has(cf, "scaling_cur_freq"))
		cf->source = FREQ_SCALING_CUR;
	else if (ncpuinfo > 0 && !(hv && cf->npol == 0))
		cf->source = FREQ_CPUINFO;
	else
		cf->source = FREQ_NONE;
	if (cf->source != FREQ_NONE)
		return;
	/* A VM's cpuinfo MHz is the host's nominal clock, not a measurement. */
	if (cf->npol > 0)
		snprintf(cf->reason, sizeof(cf->reason),
		         "frequency not observable here (cpufreq gives no current frequency)");
	else if (ncpuinfo > 0)
		snprintf(cf->reason, sizeof(cf->reason), "frequency not observable here (nominal %ld MHz)",
		         (cf->cpuinfo_khz[0] > 0 ? cf->cpuinfo_khz[0] : 0) / 1000);
	else
		snprintf(cf->reason, sizeof(cf->reason), "frequency not observable here (no cpufreq in %.60s)",
		         cf->root[0] ? cf->root : "/");
}

static int alloc_cpus(struct cpufreq *cf)
{
	size_t n = (size_t)cf->ncpu;

	cf->cpu_pol = malloc(n * sizeof(int));
	cf->cpuinfo_khz = malloc(n * sizeof(long));
	cf->since_start = calloc(n, sizeof(struct rows));
	cf->since_mark = calloc(n, sizeof(struct rows));
	if (!cf->cpu_pol || !cf->cpuinfo_khz || !cf->since_start || !cf->since_mark)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		cf->cpu_pol[i] = -1;
		cf->cpuinfo_khz[i] = -1;
	}
	return 0;
}

struct cpufreq *cpufreq_open_at(const char *sysfs_root, const char *procfs_root, int ncpu)
{
	struct cpufreq *cf = calloc(1, sizeof(*cf));
	unsigned char *mask;
	size_t len;

	if (!cf)
		return NULL;
	cf->ncpu = ncpu > 0 ? ncpu : 1;
	snprintf(cf->root, sizeof(cf->root), "%s", sysfs_root ? sysfs_root : "/sys");
	len = strlen(cf->root);
	while (len > 0 && cf->root[len - 1] == '/')
		cf->root[--len] = '\0'; /* "/" becomes "": paths start with "/devices" */
	snprintf(cf->procfs, sizeof(cf->procfs), "%s", procfs_root ? procfs_root : "");
	mask = calloc((size_t)cf->ncpu, 1);
	if (!mask || alloc_cpus(cf) < 0) {
		free(mask);
		cpufreq_close(cf);
		return NULL;
	}
	scan_policy_dirs(cf, mask);
	scan_percpu_dirs(cf, mask);
	free(mask);
	probe_source(cf);
	for (int i = 0; i < cf->npol; i++)
		read_state(cf, &cf->pol[i]); /* cur from the source just chosen */
	for (int i = 0; i < cf->npol; i++)
		if (cf->pol[i].has_stats)
			accrue_tis(cf, i); /* the baseline: residency starts now */
	return cf;
}

struct cpufreq *cpufreq_open(const char *sysfs_root, int ncpu)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";

	return cpufreq_open_at(root, strcmp(root, "/sys") == 0 ? "/proc" : NULL, ncpu);
}

void cpufreq_close(struct cpufreq *cf)
{
	if (!cf)
		return;
	for (size_t i = 0; i < cf->nphases; i++)
		free(cf->phases[i]);
	free(cf->phases);
	free(cf->pol);
	free(cf->cpu_pol);
	free(cf->cpuinfo_khz);
	free(cf->since_start);
	free(cf->since_mark);
	free(cf);
}

void cpufreq_set_journal_fallback(struct cpufreq *cf, const char *dir)
{
	snprintf(cf->journal_fallback, sizeof(cf->journal_fallback), "%s", dir ? dir : "");
}

const char *cpufreq_journal_path(const struct cpufreq *cf)
{
	return cf->journaled ? cf->journal_path : "";
}

enum freq_source cpufreq_source(const struct cpufreq *cf)
{
	return cf->source;
}

const char *cpufreq_source_name(enum freq_source s)
{
	switch (s) {
	case FREQ_AVG: return "cpuinfo_avg_freq";
	case FREQ_APERF: return "APERF/MPERF";
	case FREQ_SCALING_CUR: return "scaling_cur_freq";
	case FREQ_CPUINFO: return "/proc/cpuinfo";
	case FREQ_NONE: break;
	}
	return "not observable here";
}

const char *cpufreq_residency_kind(const struct cpufreq *cf)
{
	for (int i = 0; i < cf->npol; i++)
		if (cf->pol[i].has_stats)
			return "kernel";
	return cf->source == FREQ_NONE ? "none" : "sampled";
}

const char *cpufreq_unavailable_reason(const struct cpufreq *cf)
{
	return cf->reason[0] ? cf->reason : NULL;
}

/* ---- sampling ---- */

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long cpu_khz(const struct cpufreq *cf, int cpu)
{
	int pi = cf->cpu_pol[cpu];

	if (cf->source == FREQ_CPUINFO)
		return cf->cpuinfo_khz[cpu];
	if (cf->source == FREQ_NONE || pi < 0)
		return -1;
	return cf->pol[pi].cur;
}

/* Read the tree and advance residency by dt. */
static void read_pass(struct cpufreq *cf, double dt)
{
	if (cf->source == FREQ_CPUINFO)
		read_cpuinfo(cf, NULL);
	for (int i = 0; i < cf->npol; i++) {
		read_state(cf, &cf->pol[i]);
		if (cf->pol[i].has_stats)
			accrue_tis(cf, i);
	}
	for (int c = 0; c < cf->ncpu; c++) {
		int pi = cf->cpu_pol[c];
		long khz = cpu_khz(cf, c);
		if ((pi < 0 || !cf->pol[pi].has_stats) && khz > 0)
			accrue(cf, c, bin_khz(cf, c, khz), dt);
	}
}

void cpufreq_sample(struct cpufreq *cf, struct snapshot *s, double dt)
{
	if (dt < 0)
		dt = 0;
	cf->pending_dt += dt;
	if (cf->skip > 0) {
		cf->skip--;
	} else {
		double t0 = mono_now(), spent;
		read_pass(cf, cf->pending_dt);
		cf->pending_dt = 0;
		spent = mono_now() - t0;
		/* a pass over 20 ms would hold up keys and drawing */
		cf->skip = spent > 0.02 ? (int)(spent / 0.02) : 0;
		if (cf->skip > 10)
			cf->skip = 10;
	}
	for (int c = 0; s && c < s->ncpu && c < cf->ncpu; c++) {
		int pi = cf->cpu_pol[c];
		s->cpus[c].khz = cpu_khz(cf, c);
		snprintf(s->cpus[c].governor, sizeof(s->cpus[c].governor), "%s",
		         pi >= 0 ? cf->pol[pi].governor : "");
	}
}

/* ---- policies ---- */

static const struct policy *pol_at(const struct cpufreq *cf, int p)
{
	return p >= 0 && p < cf->npol ? &cf->pol[p] : NULL;
}

int cpufreq_npolicies(const struct cpufreq *cf)
{
	return cf->npol;
}

int cpufreq_policy_of_cpu(const struct cpufreq *cf, int cpu)
{
	return cpu >= 0 && cpu < cf->ncpu ? cf->cpu_pol[cpu] : -1;
}

const char *cpufreq_policy_cpus(const struct cpufreq *cf, int p)
{
	return pol_at(cf, p) ? cf->pol[p].cpus : "";
}

const char *cpufreq_policy_governors(const struct cpufreq *cf, int p)
{
	return pol_at(cf, p) ? cf->pol[p].governors : "";
}

const char *cpufreq_policy_governor(const struct cpufreq *cf, int p)
{
	return pol_at(cf, p) ? cf->pol[p].governor : "";
}

const char *cpufreq_policy_driver(const struct cpufreq *cf, int p)
{
	return pol_at(cf, p) ? cf->pol[p].driver : "";
}

long cpufreq_policy_min(const struct cpufreq *cf, int p)
{
	return pol_at(cf, p) ? cf->pol[p].min : -1;
}

long cpufreq_policy_max(const struct cpufreq *cf, int p)
{
	return pol_at(cf, p) ? cf->pol[p].max : -1;
}

size_t cpufreq_policy_freqs(const struct cpufreq *cf, int p, const long **khz)
{
	static const long none[1];

	*khz = pol_at(cf, p) ? cf->pol[p].freqs : none;
	return pol_at(cf, p) ? cf->pol[p].nfreqs : 0;
}

const char *cpufreq_next_governor(const struct cpufreq *cf)
{
	static char next[MODEL_GOV_LEN];
	const struct policy *p = pol_at(cf, 0);
	char list[GOVS_LEN], *save = NULL, *first = NULL, *w;
	bool take = false;

	if (!p || !p->governors[0])
		return NULL;
	snprintf(list, sizeof(list), "%s", p->governors);
	for (w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (!first)
			first = w;
		if (take)
			break;
		take = strcmp(w, p->governor) == 0;
	}
	snprintf(next, sizeof(next), "%s", w ? w : first);
	return next;
}

/* ---- writes ---- */

static int write_text(const char *dir, const char *name, const char *value)
{
	char path[PATH_MAX + 64], buf[64];
	int fd, rc = 0, n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* O_TRUNC is ignored by sysfs and replaces a fake tree's content. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%s\n", value);
	if (write(fd, buf, (size_t)n) != n)
		rc = errno ? -errno : -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

static int write_khz(const char *dir, const char *name, long khz)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", khz);
	return write_text(dir, name, buf);
}

/* The status-line sentence for a refused write. */
static void write_msg(char *msg, size_t len, int rc, const char *what, const char *dir,
                      const char *file)
{
	if (rc == -EACCES || rc == -EPERM)
		snprintf(msg, len, "%s are read-only here: run as root (cannot write %s/%s: %s)", what,
		         dir, file, strerror(-rc));
	else if (rc == -EINVAL)
		snprintf(msg, len, "the kernel refused the %s value (%s/%s: %s)", file, dir, file,
		         strerror(-rc));
	else
		snprintf(msg, len, "cannot write %s/%s: %s", dir, file, strerror(-rc));
}

int cpufreq_restore_policy(const char *dir, const char *gov, long min_khz, long max_khz,
                           char *msg, size_t len)
{
	char govs[GOVS_LEN], cur[MODEL_GOV_LEN];
	long cur_min = read_khz(dir, "scaling_min_freq");
	long cur_max = read_khz(dir, "scaling_max_freq");
	int rc = 0;

	snprintf(msg, len, "restored %s", dir);
	if (gov && gov[0]) {
		read_name(dir, "scaling_governor", cur, sizeof(cur));
		read_governors(dir, govs, sizeof(govs));
		if (strcmp(cur, gov) != 0 && !in_list(govs, gov)) {
			snprintf(msg, len, "cannot restore governor %s in %s: it is not among the "
			         "available governors (%s)", gov, dir, govs[0] ? govs : "none");
			return -EINVAL;
		}
		if (strcmp(cur, gov) != 0 && (rc = write_text(dir, "scaling_governor", gov)) < 0) {
			write_msg(msg, len, rc, "governors", dir, "scaling_governor");
			return rc;
		}
	}
	/* Raise the max before the min (and lower the min before the max), so
	 * that min <= max holds after each write. */
	bool min_first = max_khz > 0 && cur_min > 0 && max_khz < cur_min;
	for (int step = 0; step < 2; step++) {
		bool do_min = (step == 0) == min_first;
		long want = do_min ? min_khz : max_khz, have = do_min ? cur_min : cur_max;
		const char *file = do_min ? "scaling_min_freq" : "scaling_max_freq";
		if (want <= 0 || want == have)
			continue;
		if ((rc = write_khz(dir, file, want)) < 0) {
			write_msg(msg, len, rc, "frequency limits", dir, file);
			return rc;
		}
	}
	return 0;
}

/* Before the first change: every policy's original governor and limits
 * go to the journal, so a killed benchtop can still be undone. */
static int ensure_journal(struct cpufreq *cf, char *msg, size_t len)
{
	struct journal j = { .pid = getpid() };
	char dir[PATH_MAX];
	size_t rlen = strlen(cf->root);
	static int seq;
	int rc;

	if (cf->journaled)
		return 0;
	rc = journal_dir(cf->journal_fallback[0] ? cf->journal_fallback : NULL, dir, sizeof(dir));
	if (rc == 0) {
		j.starttime = journal_proc_starttime(j.pid);
		journal_boot_id(j.boot_id, sizeof(j.boot_id));
		if (!realpath(cf->root[0] ? cf->root : "/", j.sysfs_root))
			snprintf(j.sysfs_root, sizeof(j.sysfs_root), "%s", cf->root[0] ? cf->root : "/");
		j.pol = calloc((size_t)cf->npol + 1, sizeof(*j.pol));
		rc = j.pol ? 0 : -ENOMEM;
	}
	for (int i = 0; rc == 0 && i < cf->npol; i++) {
		struct policy *p = &cf->pol[i];
		read_state(cf, p);
		snprintf(p->orig_gov, sizeof(p->orig_gov), "%s", p->governor);
		p->orig_min = p->min;
		p->orig_max = p->max;
		p->saved = true;
		struct journal_policy *jp = &j.pol[j.n++];
		snprintf(jp->dir, sizeof(jp->dir), "%s", p->dir + rlen + 1);
		snprintf(jp->governor, sizeof(jp->governor), "%s", p->governor);
		jp->min_khz = p->min;
		jp->max_khz = p->max;
	}
	if (rc == 0) {
		snprintf(cf->journal_path, sizeof(cf->journal_path), seq ? "%s/journal.%d.%d" : "%s/journal.%d",
		         dir, (int)j.pid, seq);
		rc = journal_save(cf->journal_path, &j);
	}
	free(j.pol);
	if (rc < 0) {
		snprintf(msg, len, "nothing changed: the restore journal cannot be written (%s: %s)",
		         rc == -ENOMEM ? "memory" : cf->journal_path[0] ? cf->journal_path : dir, strerror(-rc));
		return rc;
	}
	seq++;
	cf->journaled = true;
	return 0;
}

/* Why a frequency key can do nothing here, or 0. */
static int check_policies(const struct cpufreq *cf, int p, char *msg, size_t len)
{
	if (cf->npol == 0) {
		snprintf(msg, len, "no cpufreq policies to change: %s",
		         cf->reason[0] ? cf->reason : "this tree has no cpufreq directory");
		return -ENODEV;
	}
	if (p >= cf->npol) {
		snprintf(msg, len, "there is no policy %d: this machine has policies 0-%d", p, cf->npol - 1);
		return -EINVAL;
	}
	return 0;
}

static void targets_name(const struct cpufreq *cf, int p, char *buf, size_t len)
{
	if (p < 0 || cf->npol == 1)
		snprintf(buf, len, "all CPUs");
	else
		snprintf(buf, len, "CPUs %s", cf->pol[p].cpus);
}

static int gov_refused(const struct cpufreq *cf, int p, const char *gov, char *msg, size_t len)
{
	for (int i = p < 0 ? 0 : p; i < (p < 0 ? cf->npol : p + 1); i++) {
		if (gov && in_list(cf->pol[i].governors, gov))
			continue;
		snprintf(msg, len, "governor '%s' is not available on CPUs %s: choose from %s",
		         gov ? gov : "", cf->pol[i].cpus,
		         cf->pol[i].governors[0] ? cf->pol[i].governors : "(none listed)");
		return -EINVAL;
	}
	return 0;
}

int cpufreq_set_governor(struct cpufreq *cf, int p, const char *gov, char *msg, size_t len)
{
	char who[MODEL_CPUS_LEN + 16];
	int rc = check_policies(cf, p, msg, len);

	if (rc == 0)
		rc = gov_refused(cf, p, gov, msg, len);
	if (rc == 0)
		rc = ensure_journal(cf, msg, len);
	for (int i = p < 0 ? 0 : p; rc == 0 && i < (p < 0 ? cf->npol : p + 1); i++) {
		struct policy *pol = &cf->pol[i];
		read_name(pol->dir, "scaling_governor", pol->governor, sizeof(pol->governor));
		if (strcmp(pol->governor, gov) == 0)
			continue;
		pol->changed = true; /* even a failed write may have half-happened */
		rc = write_text(pol->dir, "scaling_governor", gov);
		if (rc < 0)
			write_msg(msg, len, rc, "governors", pol->dir, "scaling_governor");
		read_name(pol->dir, "scaling_governor", pol->governor, sizeof(pol->governor));
	}
	if (rc == 0) {
		targets_name(cf, p, who, sizeof(who));
		snprintf(msg, len, "governor %s on %s", gov, who);
	}
	return rc;
}

static int cap_refused(const struct cpufreq *cf, int p, long khz, char *msg, size_t len)
{
	for (int i = p < 0 ? 0 : p; i < (p < 0 ? cf->npol : p + 1); i++) {
		const struct policy *pol = &cf->pol[i];
		long lo = pol->min > 0 ? pol->min : pol->cpuinfo_min;
		if ((lo > 0 && khz < lo) || (pol->cpuinfo_max > 0 && khz > pol->cpuinfo_max)) {
			snprintf(msg, len, "cannot cap CPUs %s at %ld kHz: choose from %ld to %ld kHz",
			         pol->cpus, khz, lo, pol->cpuinfo_max);
			return -EINVAL;
		}
	}
	return 0;
}

/* Lift the cap: back to the saved originals. */
static int lift_cap(struct cpufreq *cf, int p, char *msg, size_t len)
{
	int rc = 0, lifted = 0;

	for (int i = p < 0 ? 0 : p; rc == 0 && i < (p < 0 ? cf->npol : p + 1); i++) {
		struct policy *pol = &cf->pol[i];
		pol->max = read_khz(pol->dir, "scaling_max_freq");
		if (!pol->saved || pol->orig_max <= 0 || pol->max == pol->orig_max)
			continue;
		rc = write_khz(pol->dir, "scaling_max_freq", pol->orig_max);
		if (rc < 0)
			write_msg(msg, len, rc, "frequency limits", pol->dir, "scaling_max_freq");
		else
			lifted++;
		pol->max = read_khz(pol->dir, "scaling_max_freq");
	}
	if (rc == 0)
		snprintf(msg, len, lifted ? "frequency cap lifted" : "no frequency cap to lift");
	return rc;
}

int cpufreq_set_maxfreq(struct cpufreq *cf, int p, long khz, char *msg, size_t len)
{
	char who[MODEL_CPUS_LEN + 16];
	int rc = check_policies(cf, p, msg, len);

	if (rc == 0 && khz <= 0)
		return lift_cap(cf, p, msg, len);
	if (rc == 0)
		rc = cap_refused(cf, p, khz, msg, len);
	if (rc == 0)
		rc = ensure_journal(cf, msg, len);
	for (int i = p < 0 ? 0 : p; rc == 0 && i < (p < 0 ? cf->npol : p + 1); i++) {
		struct policy *pol = &cf->pol[i];
		pol->changed = true;
		rc = write_khz(pol->dir, "scaling_max_freq", khz);
		if (rc < 0)
			write_msg(msg, len, rc, "frequency limits", pol->dir, "scaling_max_freq");
		pol->max = read_khz(pol->dir, "scaling_max_freq");
	}
	if (rc == 0) {
		targets_name(cf, p, who, sizeof(who));
		snprintf(msg, len, "max frequency %.2f GHz on %s", (double)khz / 1e6, who);
	}
	return rc;
}

/* ---- residency ---- */

size_t cpufreq_residency(const struct cpufreq *cf, int cpu, bool since_event,
                         const long **khz, const double **secs)
{
	static const long nokhz[1];
	static const double nosecs[1];
	const struct rows *r;

	if (cpu < 0 || cpu >= cf->ncpu) {
		*khz = nokhz;
		*secs = nosecs;
		return 0;
	}
	r = since_event ? &cf->since_mark[cpu] : &cf->since_start[cpu];
	*khz = r->khz;
	*secs = r->secs;
	return r->n;
}

long cpufreq_mean_khz(const struct cpufreq *cf, int cpu, bool since_event)
{
	const long *khz;
	const double *secs;
	size_t n = cpufreq_residency(cf, cpu, since_event, &khz, &secs);
	double sum = 0, t = 0;

	for (size_t i = 0; i < n; i++) {
		sum += (double)khz[i] * secs[i];
		t += secs[i];
	}
	return t > 0 ? (long)(sum / t + 0.5) : -1;
}

void cpufreq_mark(struct cpufreq *cf)
{
	struct rows **np = realloc(cf->phases, (cf->nphases + 1) * sizeof(*np));

	if (!np)
		return; /* the phase merges into the next one: no record lost */
	cf->phases = np;
	cf->phases[cf->nphases++] = cf->since_mark;
	cf->since_mark = calloc((size_t)cf->ncpu, sizeof(struct rows));
	if (!cf->since_mark)
		cf->since_mark = cf->phases[--cf->nphases];
}

size_t cpufreq_nphases(const struct cpufreq *cf)
{
	return cf->nphases;
}

static void rows_json(const struct rows *r, FILE *fp)
{
	fputc('{', fp);
	for (size_t i = 0; i < r->n; i++)
		fprintf(fp, "%s\"%ld\":%.2f", i ? "," : "", r->khz[i], r->secs[i]);
	fputc('}', fp);
}

void cpufreq_phase_residency_json(const struct cpufreq *cf, size_t phase, FILE *fp)
{
	const struct rows *rows = phase < cf->nphases ? cf->phases[phase]
	                          : phase == cf->nphases ? cf->since_mark : NULL;

	fputc('{', fp);
	for (int c = 0; rows && c < cf->ncpu; c++) {
		fprintf(fp, "%s\"%d\":", c ? "," : "", c);
		rows_json(&rows[c], fp);
	}
	fputc('}', fp);
}

static void json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(fp, "\\u%04x", *s);
		else
			fputc(*s, fp);
	fputc('"', fp);
}

static void json_khz(FILE *fp, const char *key, long v)
{
	if (v > 0)
		fprintf(fp, ",\"%s\":%ld", key, v);
	else
		fprintf(fp, ",\"%s\":null", key);
}

void cpufreq_policies_json(const struct cpufreq *cf, FILE *fp)
{
	fputc('[', fp);
	for (int i = 0; i < cf->npol; i++) {
		const struct policy *p = &cf->pol[i];
		fprintf(fp, "%s{\"policy\":%d,\"cpus\":", i ? "," : "", i);
		json_str(fp, p->cpus);
		fputs(",\"driver\":", fp);
		json_str(fp, p->driver);
		fputs(",\"governor\":", fp);
		json_str(fp, p->governor);
		json_khz(fp, "min", p->min);
		json_khz(fp, "max", p->max);
		json_khz(fp, "cpuinfo_min", p->cpuinfo_min);
		json_khz(fp, "cpuinfo_max", p->cpuinfo_max);
		fputc('}', fp);
	}
	fputc(']', fp);
}

/* ---- restore ---- */

int cpufreq_restore_report(struct cpufreq *cf, FILE *report)
{
	int first = 0;

	for (int i = 0; i < cf->npol; i++) {
		struct policy *p = &cf->pol[i];
		char msg[PATH_MAX + 256];
		int rc;
		if (!p->changed || !p->saved)
			continue;
		rc = cpufreq_restore_policy(p->dir, p->orig_gov, p->orig_min, p->orig_max, msg, sizeof(msg));
		if (rc < 0) {
			if (report)
				fprintf(report, "benchtop: %s\n", msg);
			if (first == 0)
				first = rc;
			continue;
		}
		p->changed = false;
		read_state(cf, p);
	}
	if (first == 0 && cf->journaled) {
		unlink(cf->journal_path);
		cf->journaled = false;
	} else if (first < 0 && report && cf->journaled) {
		fprintf(report, "benchtop: the journal %s is kept: `benchtop --restore` tries again\n",
		        cf->journal_path);
	}
	return first;
}

void cpufreq_restore(struct cpufreq *cf)
{
	if (cf)
		cpufreq_restore_report(cf, NULL);
}

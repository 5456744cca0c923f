/* cpufreq.c - cpufreq policies under a sysfs root: discovery (policyN dirs
 * or per-CPU cpuN/cpufreq dirs), the frequency source and sampling.
 * Writes are in cpufreq_write.c, residency in cpufreq_residency.c. */
#include "cpufreq_impl.h"
#include "benchtop/cpulist.h"
#include "benchtop/clock.h"
#include "benchtop/journal.h"
#include "benchtop/sysfile.h"
#include "benchtop/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- small file helpers ---- */

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

long cpufreq_read_khz(const char *dir, const char *name)
{
	char buf[64];

	return sysfile_read(dir, name, buf, sizeof(buf)) > 0 ? parse_khz(buf) : -1;
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

void cpufreq_read_name(const char *dir, const char *file, char *out, size_t len)
{
	char buf[128];
	int n = sysfile_read(dir, file, buf, sizeof(buf));

	out[0] = '\0';
	if (n > 0 && (size_t)n < len && sane_name(buf, (size_t)n))
		memcpy(out, buf, (size_t)n + 1);
}

/* Available governors, junk words dropped, as "a b c". */
void cpufreq_read_governors(const char *dir, char *out, size_t len)
{
	char buf[1024], *save = NULL;
	size_t used = 0;

	out[0] = '\0';
	if (sysfile_read(dir, "scaling_available_governors", buf, sizeof(buf)) <= 0)
		return;
	for (char *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		size_t n = strlen(w);
		if (!sane_name(w, n) || used + n + 2 > len)
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", w);
	}
}

bool cpufreq_in_list(const char *list, const char *word)
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

/* ---- discovery ---- */

/* Available frequencies from the list, else from time_in_state's rows. */
static void read_freqs(struct policy *p)
{
	char buf[2048];
	unsigned long long val[MAX_ROWS];
	long khz[MAX_ROWS];
	int n;

	p->nfreqs = 0;
	if (sysfile_read(p->dir, "scaling_available_frequencies", buf, sizeof(buf)) > 0) {
		char *save = NULL;
		for (char *w = strtok_r(buf, " \t\n", &save); w && p->nfreqs < MAX_FREQS;
		     w = strtok_r(NULL, " \t\n", &save)) {
			long f = parse_khz(w);
			if (f > 0)
				p->freqs[p->nfreqs++] = f;
		}
	}
	if (p->nfreqs == 0 && (n = cpufreq_read_tis(p, khz, val)) > 0)
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
void cpufreq_read_state(struct cpufreq *cf, struct policy *p)
{
	cpufreq_read_name(p->dir, "scaling_governor", p->governor, sizeof(p->governor));
	p->min = cpufreq_read_khz(p->dir, "scaling_min_freq");
	p->max = cpufreq_read_khz(p->dir, "scaling_max_freq");
	p->cur = -1;
	if (cf->source == FREQ_AVG)
		p->cur = cpufreq_read_khz(p->dir, "cpuinfo_avg_freq");
	if (p->cur < 0)
		p->cur = cpufreq_read_khz(p->dir, "scaling_cur_freq");
}

static void load_policy(struct cpufreq *cf, struct policy *p)
{
	struct stat st;
	char path[PATH_MAX + 32];

	cpufreq_read_governors(p->dir, p->governors, sizeof(p->governors));
	cpufreq_read_name(p->dir, "scaling_driver", p->driver, sizeof(p->driver));
	p->cpuinfo_min = cpufreq_read_khz(p->dir, "cpuinfo_min_freq");
	p->cpuinfo_max = cpufreq_read_khz(p->dir, "cpuinfo_max_freq");
	read_freqs(p);
	snprintf(path, sizeof(path), "%s/stats/time_in_state", p->dir);
	p->has_stats = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	cpufreq_read_state(cf, p);
}

/* Add a policy at dir covering the CPUs in mask (those not yet taken). */
static int add_policy(struct cpufreq *cf, const char *dir, unsigned char *mask)
{
	struct policy *np = xrealloc(cf->pol, (size_t)(cf->npol + 1) * sizeof(*np));
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
	p->cpus = cpulist_text(mask, cf->ncpu);
	if (!p->cpus)
		return -ENOMEM;
	load_policy(cf, p);
	return 0;
}

/* The CPUs a policy dir covers: affected_cpus, else related_cpus, else
 * the fallback CPU (from the directory's name). */
static void policy_cpus(const struct cpufreq *cf, const char *dir, int fallback, unsigned char *mask)
{
	char buf[4096];

	memset(mask, 0, (size_t)cf->ncpu);
	if (sysfile_read(dir, "affected_cpus", buf, sizeof(buf)) > 0 && parse_cpus(buf, mask, cf->ncpu) > 0)
		return;
	if (sysfile_read(dir, "related_cpus", buf, sizeof(buf)) > 0 && parse_cpus(buf, mask, cf->ncpu) > 0)
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
			names[n++] = xstrdup(de->d_name);
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
	int e;
	if (!(fp = sysfile_fopen_regular(path, &e)))
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

/* APERF/MPERF from the perf msr PMU: only on the real /sys (a fake tree's
 * figures must not mix with this machine's counters), and only when every
 * CPU's counters open.  Otherwise the reason is kept and the probe goes on. */
static bool aperf_available(struct cpufreq *cf)
{
	unsigned type;
	unsigned long long config[APERF_NEV];

	if (strcmp(cf->root, "/sys") != 0) {
		snprintf(cf->aperf_why, sizeof(cf->aperf_why), "not read under a fake sysfs root");
		return false;
	}
	if (cpufreq_aperf_pmu("/sys/bus/event_source/devices/msr", &type, config, cf->aperf_why,
	                      sizeof(cf->aperf_why)) < 0)
		return false;
	cf->aperf = cpufreq_aperf_open(type, config, cf->ncpu, cf->aperf_why, sizeof(cf->aperf_why));
	return cf->aperf != NULL;
}

const char *cpufreq_aperf_reason(const struct cpufreq *cf)
{
	return cf->aperf_why;
}

static bool any_policy_has(const struct cpufreq *cf, const char *file)
{
	for (int i = 0; i < cf->npol; i++)
		if (cpufreq_read_khz(cf->pol[i].dir, file) > 0)
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

	cf->cpu_pol = xmalloc(n * sizeof(int));
	cf->cpuinfo_khz = xmalloc(n * sizeof(long));
	cf->since_start = xcalloc(n, sizeof(struct rows));
	cf->since_mark = xcalloc(n, sizeof(struct rows));
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
	struct cpufreq *cf = xcalloc(1, sizeof(*cf));
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
	mask = xcalloc((size_t)cf->ncpu, 1);
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
		cpufreq_read_state(cf, &cf->pol[i]); /* cur from the source just chosen */
	for (int i = 0; i < cf->npol; i++)
		if (cf->pol[i].has_stats)
			cpufreq_accrue_tis(cf, i); /* the baseline: residency starts now */
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
	cpufreq_aperf_close(cf->aperf);
	cpufreq_residency_free(cf);
	for (int i = 0; cf->pol && i < cf->npol; i++)
		free(cf->pol[i].cpus);
	free(cf->pol);
	free(cf->cpu_pol);
	free(cf->cpuinfo_khz);
	free(cf);
}

const char *cpufreq_journal_path(const struct cpufreq *cf)
{
	for (int i = 0; i < cf->npol; i++)
		if (cf->pol[i].saved)
			return journal_path();
	return "";
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

static long cpu_khz(const struct cpufreq *cf, int cpu)
{
	int pi = cf->cpu_pol[cpu];

	if (cf->source == FREQ_CPUINFO)
		return cf->cpuinfo_khz[cpu];
	if (cf->source == FREQ_APERF)
		return cpufreq_aperf_cpu_khz(cf->aperf, cpu);
	if (cf->source == FREQ_NONE || pi < 0)
		return -1;
	return cf->pol[pi].cur;
}

/* Read the tree and advance residency by dt. */
static void read_pass(struct cpufreq *cf, double dt)
{
	if (cf->source == FREQ_CPUINFO)
		read_cpuinfo(cf, NULL);
	if (cf->source == FREQ_APERF)
		cpufreq_aperf_read(cf->aperf);
	for (int i = 0; i < cf->npol; i++) {
		cpufreq_read_state(cf, &cf->pol[i]);
		if (cf->pol[i].has_stats)
			cpufreq_accrue_tis(cf, i);
	}
	for (int c = 0; c < cf->ncpu; c++) {
		int pi = cf->cpu_pol[c];
		long khz = cpu_khz(cf, c);
		if ((pi < 0 || !cf->pol[pi].has_stats) && khz > 0)
			cpufreq_accrue(cf, c, cpufreq_bin_khz(cf, c, khz), dt);
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
		double t0 = clock_mono(), spent;
		read_pass(cf, cf->pending_dt);
		cf->pending_dt = 0;
		spent = clock_mono() - t0;
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

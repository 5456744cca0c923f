/* cpufreq_residency.c - time at each frequency per CPU: time_in_state
 * deltas where the kernel keeps them, else the sampled frequency weighted by
 * the tick; since start, since the last event, and per completed phase. */
#include "cpufreq_impl.h"

#include "benchtop/freqrows.h"
#include "benchtop/sysfile.h"

#include "benchtop/json.h"
#include "benchtop/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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

int cpufreq_read_tis(const struct policy *p, long *khz, unsigned long long *val)
{
	char buf[8192];

	if (sysfile_read(p->dir, "stats/time_in_state", buf, sizeof(buf)) <= 0)
		return -1;
	return parse_tis(buf, khz, val, MAX_ROWS);
}

/* ---- residency rows ---- */

/* More distinct frequencies than any table has are dropped. */
static void rows_add(struct rows *r, long khz, double secs)
{
	freqrows_add(r->khz, r->secs, &r->n, MAX_ROWS, khz, secs);
}

void cpufreq_accrue(struct cpufreq *cf, int cpu, long khz, double secs)
{
	if (secs <= 0 || khz <= 0)
		return;
	rows_add(&cf->since_start[cpu], khz, secs);
	rows_add(&cf->since_mark[cpu], khz, secs);
}

/* Kernel residency: add the growth of time_in_state to each CPU of p.  A
 * row going backwards or the table changing (stats reset, driver reload)
 * only re-baselines: no negative time, nothing invented. */
void cpufreq_accrue_tis(struct cpufreq *cf, int pi)
{
	struct policy *p = &cf->pol[pi];
	long khz[MAX_ROWS];
	unsigned long long val[MAX_ROWS];
	int n = cpufreq_read_tis(p, khz, val);
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
				cpufreq_accrue(cf, c, khz[i], secs);
	}
	memcpy(p->tis_khz, khz, (size_t)n * sizeof(long));
	memcpy(p->tis_val, val, (size_t)n * sizeof(unsigned long long));
	p->ntis = (size_t)n;
	p->tis_valid = true;
}

/* A sampled frequency goes to the nearest row of the policy's table, or to
 * the nearest 100 MHz, so that a continuously varying clock still gives a
 * readable bar chart. */
long cpufreq_bin_khz(const struct cpufreq *cf, int cpu, long khz)
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
	struct rows **np = xrealloc(cf->phases, (cf->nphases + 1) * sizeof(*np));

	if (!np)
		return; /* the phase merges into the next one: no record lost */
	cf->phases = np;
	cf->phases[cf->nphases++] = cf->since_mark;
	cf->since_mark = xcalloc((size_t)cf->ncpu, sizeof(struct rows));
	if (!cf->since_mark)
		cf->since_mark = cf->phases[--cf->nphases];
}

void cpufreq_start_clock(struct cpufreq *cf)
{
	for (int i = 0; i < cf->npol; i++) {
		cf->pol[i].tis_valid = false;
		if (cf->pol[i].has_stats)
			cpufreq_accrue_tis(cf, i); /* a new baseline, nothing added */
	}
	for (int c = 0; c < cf->ncpu; c++)
		cf->since_start[c].n = cf->since_mark[c].n = 0;
	cf->pending_dt = 0;
}

void cpufreq_residency_free(struct cpufreq *cf)
{
	for (size_t i = 0; i < cf->nphases; i++)
		free(cf->phases[i]);
	free(cf->phases);
	free(cf->since_start);
	free(cf->since_mark);
}

size_t cpufreq_nphases(const struct cpufreq *cf)
{
	return cf->nphases;
}

static void rows_json(struct jw *w, const char *key, const struct rows *r)
{
	char khz[24];
	jw_obj(w, key);
	for (size_t i = 0; i < r->n; i++) {
		snprintf(khz, sizeof khz, "%ld", r->khz[i]);
		jw_fix(w, khz, r->secs[i], 2);
	}
	jw_end(w);
}

void cpufreq_phase_residency_json(const struct cpufreq *cf, size_t phase, struct jw *w, const char *key)
{
	const struct rows *rows = phase < cf->nphases ? cf->phases[phase]
	                          : phase == cf->nphases ? cf->since_mark : NULL;
	char cpu[16];
	jw_obj(w, key);
	for (int c = 0; rows && c < cf->ncpu; c++) {
		snprintf(cpu, sizeof cpu, "%d", c);
		rows_json(w, cpu, &rows[c]);
	}
	jw_end(w);
}

/* A limit in kHz, null when not known. */
static void khz_json(struct jw *w, const char *key, long v)
{
	if (v > 0)
		jw_int(w, key, v);
	else
		jw_null(w, key);
}

void cpufreq_policies_json(const struct cpufreq *cf, struct jw *w, const char *key)
{
	jw_arr(w, key);
	for (int i = 0; i < cf->npol; i++) {
		const struct policy *p = &cf->pol[i];
		jw_obj(w, NULL);
		jw_int(w, "policy", i);
		jw_str(w, "cpus", p->cpus);
		jw_str(w, "driver", p->driver);
		jw_str(w, "governor", p->governor);
		khz_json(w, "min", p->min);
		khz_json(w, "max", p->max);
		khz_json(w, "cpuinfo_min", p->cpuinfo_min);
		khz_json(w, "cpuinfo_max", p->cpuinfo_max);
		jw_end(w);
	}
	jw_end(w);
}

/* summary.c - the end of a run in the form people publish: one row per
 * workload (user sys elaps hog rate test), then one row per phase (the
 * stretches between events), as text and as the end record's JSON. */
#include "benchtop/app.h"

#include <string.h>

#include "benchtop/cpufreq.h"
#include "benchtop/num.h"
#include "benchtop/units.h"
#include "benchtop/workload.h"

/* CPU and bytes of attached processes live only in the samples. */
static void attached_totals(struct app *a, struct workload_totals *t)
{
	memset(t, 0, sizeof *t);
	const struct snapshot *s = history_last(a->hist);
	for (int i = 0; s && i < s->nproc; i++) {
		t->user += s->procs[i].utime;
		t->sys += s->procs[i].stime;
		t->bytes += s->procs[i].bytes;
	}
	t->elapsed = a->ended;
}

static void row(FILE *fp, enum units_mode u, const struct workload_totals *t, const char *name)
{
	double hog = num_div(t->user + t->sys, t->elapsed) * 100;
	double rate = units_rate_value(u, num_div((double)t->bytes, t->elapsed));
	fprintf(fp, "%6.2f  %6.2f  %6.2f  %3.0f%%  %7.*f  %s\n", t->user, t->sys, t->elapsed, hog,
	        rate < 100 ? 1 : 0, rate, name);
}

static double phase_mean_mhz(const struct phase *p)
{
	return p->khz_time > 0 ? p->khz_sum / p->khz_time / 1000 : -1;
}

/* What the run ran under, so a published result says it. */
/* A phase shorter than two samples has no rate or hog worth a number
 * (bytes and CPU time over a sliver of time): they are shown as "-" and
 * recorded as null. */
static bool phase_too_short(const struct app *a, const struct phase *p)
{
	return p->to - p->from < 2 * a->interval - 1e-9;
}

static void print_policies(struct app *a, FILE *fp)
{
	int n = a->cf ? cpufreq_npolicies(a->cf) : 0;
	if (n == 0) {
		const char *why = a->cf ? cpufreq_unavailable_reason(a->cf) : NULL;
		fprintf(fp, "\ncpufreq: %s\n", why ? why : "no cpufreq policies here");
		return;
	}
	fprintf(fp, "\n%-8s  %-8s  %-14s  %-12s  %s\n", "policy", "cpus", "driver", "governor", "limits MHz (at the end of the run)");
	for (int p = 0; p < n; p++) {
		const char *drv = cpufreq_policy_driver(a->cf, p), *gov = cpufreq_policy_governor(a->cf, p);
		fprintf(fp, "%-8d  %-8s  %-14s  %-12s  %ld-%ld\n", p, cpufreq_policy_cpus(a->cf, p),
		        drv && *drv ? drv : "-", gov && *gov ? gov : "-",
		        cpufreq_policy_min(a->cf, p) / 1000, cpufreq_policy_max(a->cf, p) / 1000);
	}
}

void summary_print(struct app *a, FILE *fp)
{
	enum units_mode u = a->units;
	fprintf(fp, "\n%6s  %6s  %6s  %4s  %7s  %s\n", "user", "sys", "elaps", "hog",
	        units_rate_label(u), "test");
	struct workload_totals t;
	for (int i = 0; i < a->nwl; i++) {
		struct workload_totals rows[2];
		const char *names[2];
		int nr = workload_phase_rows(a->wl[i], rows, names);
		for (int k = 0; k < nr; k++)
			row(fp, u, &rows[k], names[k]);
		if (nr)
			continue;
		workload_totals(a->wl[i], &t);
		char name[256];
		const char *err = workload_state(a->wl[i]) == WLS_FAILED ? " (failed)" : "";
		snprintf(name, sizeof name, "%s%s", workload_name(a->wl[i]), err);
		row(fp, u, &t, name);
	}
	if (a->nattached) {
		attached_totals(a, &t);
		row(fp, u, &t, "attached");
	}
	size_t n = history_nphases(a->hist);
	fprintf(fp, "\n%8s  %8s  %7s  %4s  %5s  %6s  %s\n", "from", "to", units_rate_label(u), "hog",
	        "migr", "MHz", "phase");
	for (size_t i = 0; i < n; i++) {
		const struct phase *p = history_phase(a->hist, i);
		double len = p->to - p->from;
		double rate = units_rate_value(u, num_div((double)p->bytes, len));
		double mhz = phase_mean_mhz(p);
		char mhzs[16] = "-";
		if (mhz > 0)
			snprintf(mhzs, sizeof mhzs, "%.0f", mhz);
		char rates[24] = "-", hogs[16] = "-";
		if (!phase_too_short(a, p)) {
			snprintf(rates, sizeof rates, "%.*f", rate < 100 ? 1 : 0, rate);
			snprintf(hogs, sizeof hogs, "%.0f%%", num_div(p->cpu_s, len) * 100);
		}
		fprintf(fp, "%8.2f  %8.2f  %7s  %4s  %5llu  %6s  %s\n", p->from, p->to, rates, hogs,
		        (unsigned long long)p->migrations, mhzs, p->label);
	}
	print_policies(a, fp);
	fflush(fp);
}

static void json_totals(FILE *fp, const struct workload_totals *t, const char *name, int id)
{
	fprintf(fp, "{\"test\":");
	json_string(fp, name);
	fprintf(fp, ",\"workload\":%d,\"user\":%.3f,\"sys\":%.3f,\"elapsed\":%.3f,\"hog\":%.4f,"
	        "\"bytes\":%llu,\"bps\":%.1f,\"calls\":%llu,\"runs\":%d}",
	        id, t->user, t->sys, t->elapsed, num_div(t->user + t->sys, t->elapsed),
	        (unsigned long long)t->bytes, num_div((double)t->bytes, t->elapsed),
	        (unsigned long long)t->calls, t->runs);
}

void summary_json(struct app *a, FILE *fp)
{
	struct workload_totals t;
	fprintf(fp, "\"summary\":[");
	for (int i = 0; i < a->nwl; i++) {
		struct workload_totals rows[2];
		const char *names[2];
		int nr = workload_phase_rows(a->wl[i], rows, names);
		for (int k = 0; k < nr; k++) {
			if (i || k)
				fputc(',', fp);
			json_totals(fp, &rows[k], names[k], i + 1);
		}
		if (nr)
			continue;
		workload_totals(a->wl[i], &t);
		if (i)
			fputc(',', fp);
		json_totals(fp, &t, workload_name(a->wl[i]), i + 1);
	}
	if (a->nattached) {
		attached_totals(a, &t);
		if (a->nwl)
			fputc(',', fp);
		json_totals(fp, &t, "attached", 0);
	}
	fprintf(fp, "],\"workloads\":[");
	for (int i = 0; i < a->nwl; i++) {
		fprintf(fp, "%s{\"id\":%d,\"state\":\"%s\",\"error\":", i ? "," : "", i + 1,
		        model_wl_state_name(workload_state(a->wl[i])));
		json_string(fp, workload_error(a->wl[i]));
		fputc('}', fp);
	}
	fprintf(fp, "],\"policies\":");
	if (a->cf)
		cpufreq_policies_json(a->cf, fp);
	else
		fputs("[]", fp);
	fprintf(fp, ",\"phases\":[");
	size_t n = history_nphases(a->hist);
	for (size_t i = 0; i < n; i++) {
		const struct phase *p = history_phase(a->hist, i);
		double len = p->to - p->from;
		fprintf(fp, "%s{\"from\":%.3f,\"to\":%.3f,\"label\":", i ? "," : "", p->from, p->to);
		json_string(fp, p->label);
		if (phase_too_short(a, p))
			fprintf(fp, ",\"bytes\":%llu,\"bps\":null,\"hog\":null",
			        (unsigned long long)p->bytes);
		else
			fprintf(fp, ",\"bytes\":%llu,\"bps\":%.1f,\"hog\":%.4f",
			        (unsigned long long)p->bytes, num_div((double)p->bytes, len),
			        num_div(p->cpu_s, len));
		fprintf(fp, ",\"migrations\":%llu", (unsigned long long)p->migrations);
		double mhz = phase_mean_mhz(p);
		if (mhz > 0)
			fprintf(fp, ",\"mean_khz\":%.0f", mhz * 1000);
		else
			fprintf(fp, ",\"mean_khz\":null");
		fprintf(fp, ",\"residency\":");
		if (a->cf)
			cpufreq_phase_residency_json(a->cf, i, fp);
		else
			fputs("{}", fp);
		fputc('}', fp);
	}
	fputc(']', fp);
}

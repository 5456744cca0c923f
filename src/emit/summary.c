/* summary.c - the end of a run in the form people publish: one row per
 * workload (user sys elaps hog rate test), then one row per phase (the
 * stretches between events), as text and as the end record's JSON. */
#include "benchtop/record.h"

#include <string.h>

#include "benchtop/cpufreq.h"
#include "benchtop/json.h"
#include "benchtop/num.h"
#include "benchtop/tables.h"
#include "benchtop/units.h"
#include "benchtop/workload.h"

/* One summary row; paused time (inside elapsed) is its own column when
 * any workload was paused. */
static void row(FILE *fp, enum units_mode u, const struct workload_totals *t, const char *name,
                bool failed, bool show_paused)
{
	struct sum_row r = { name, t->user, t->sys, t->elapsed,
	                     num_div((double)t->bytes, t->elapsed), failed, t->paused, show_paused };
	tables_summary_row(fp, u, &r);
}

/* The bytes of phase p, each workload's on the side its summary row
 * counts (a command rated by its reads or its writes over the whole run,
 * whichever it was rated by while the phase went on), so the phases add
 * up to the summary. */
static uint64_t phase_counted(const struct run_out *o, const struct phase *p)
{
	uint64_t b = 0;
	struct workload_totals t;
	for (int i = 0; i < o->nwl; i++) {
		workload_totals(o->wl[i], &t);
		b += phase_wl_bytes(p, i, t.side);
	}
	return b;
}

/* Both directions of phase p, as the summary's read_bytes and write_bytes
 * (null there, and here, when a workload's could not be read). */
static void phase_rw_json(FILE *fp, const struct run_out *o, const struct phase *p)
{
	uint64_t r = 0, w = 0;
	struct workload_totals t;
	for (int i = 0; i < o->nwl; i++) {
		workload_totals(o->wl[i], &t);
		if (!t.rw_known) {
			fprintf(fp, ",\"read_bytes\":null,\"write_bytes\":null");
			return;
		}
		r += phase_wl_bytes(p, i, 'r');
		w += phase_wl_bytes(p, i, 'w');
	}
	fprintf(fp, ",\"read_bytes\":%llu,\"write_bytes\":%llu", (unsigned long long)r,
	        (unsigned long long)w);
}

static double phase_mean_mhz(const struct phase *p)
{
	return p->khz_time > 0 ? p->khz_sum / p->khz_time / 1000 : -1;
}

/* What the run ran under, so a published result says it. */
/* A phase shorter than two samples has no rate or hog worth a number
 * (bytes and CPU time over a sliver of time): they are shown as "-" and
 * recorded as null. */
static bool phase_too_short(const struct run_out *o, const struct phase *p)
{
	return p->to - p->from < 2 * o->interval - 1e-9;
}

static void print_policies(const struct run_out *o, FILE *fp)
{
	int n = o->cf ? cpufreq_npolicies(o->cf) : 0;
	if (n == 0) {
		const char *why = o->cf ? cpufreq_unavailable_reason(o->cf) : NULL;
		tables_no_policies(fp, why ? why : "no cpufreq policies here");
		return;
	}
	tables_policy_head(fp, o->npol_end > 0);
	for (int p = 0; p < n; p++) {
		struct policy_row r = { p, cpufreq_policy_cpus(o->cf, p), cpufreq_policy_driver(o->cf, p),
		                        cpufreq_policy_governor(o->cf, p), cpufreq_policy_min(o->cf, p),
		                        cpufreq_policy_max(o->cf, p), NULL, 0, 0 };
		if (p < o->npol_end) {
			const struct policy_end *e = &o->pol_end[p];
			r.ran_governor = e->governor;
			r.ran_min_khz = e->min_khz;
			r.ran_max_khz = e->max_khz;
		}
		tables_policy_row(fp, &r);
	}
}

void summary_print(const struct run_out *o, FILE *fp)
{
	enum units_mode u = o->units;
	bool show_paused = false;
	for (int i = 0; i < o->nwl; i++) {
		struct workload_totals pt;
		workload_totals(o->wl[i], &pt);
		show_paused |= pt.paused > 0;
	}
	tables_summary_head(fp, u, show_paused);
	struct workload_totals t;
	for (int i = 0; i < o->nwl; i++) {
		struct workload_totals rows[2];
		const char *names[2];
		int nr = workload_phase_rows(o->wl[i], rows, names);
		for (int k = 0; k < nr; k++)
			row(fp, u, &rows[k], names[k], false, show_paused);
		if (nr)
			continue;
		workload_totals(o->wl[i], &t);
		char name[320], rd[32], wr[32], both[96] = "";
		if (t.counted && t.rw_known) {
			units_fmt_bytes(u, t.read_bytes, rd, sizeof rd);
			units_fmt_bytes(u, t.write_bytes, wr, sizeof wr);
			snprintf(both, sizeof both, ": read %s, written %s", rd, wr);
		}
		snprintf(name, sizeof name, "%s%s%s%s%s", workload_name(o->wl[i]),
		         t.counted ? " (" : "", t.counted ? t.counted : "", both, t.counted ? ")" : "");
		row(fp, u, &t, name, workload_state(o->wl[i]) == WLS_FAILED, show_paused);
	}
	size_t n = history_nphases(o->hist);
	tables_phase_head(fp, u);
	for (size_t i = 0; i < n; i++) {
		const struct phase *p = history_phase(o->hist, i);
		double len = p->to - p->from;
		struct phase_row r = { p->from, p->to, num_div((double)phase_counted(o, p), len),
		                       num_div(p->cpu_s, len), (double)p->migrations,
		                       phase_mean_mhz(p), p->label, phase_too_short(o, p) };
		tables_phase_row(fp, u, &r);
	}
	if (o->prep_sync >= 0)
		fprintf(fp, "\npreparation before the run (not in any row): sync %.3f s, drop caches %.3f s\n",
		        o->prep_sync, o->prep_drop);
	print_policies(o, fp);
	fflush(fp);
}

static void json_totals(FILE *fp, const struct workload_totals *t, const char *name, int id)
{
	fprintf(fp, "{\"test\":");
	json_string(fp, name);
	fprintf(fp, ",\"workload\":%d,\"user\":%.3f,\"sys\":%.3f,\"elapsed\":%.3f,\"hog\":%.4f,"
	        "\"bytes\":%llu,\"bps\":%.1f,\"calls\":%llu,\"runs\":%d,\"paused\":%.3f",
	        id, t->user, t->sys, t->elapsed, num_div(t->user + t->sys, t->elapsed),
	        (unsigned long long)t->bytes, num_div((double)t->bytes, t->elapsed),
	        (unsigned long long)t->calls, t->runs, t->paused);
	if (t->counted)
		fprintf(fp, ",\"counted\":\"%s\"", t->counted);
	if (t->rw_known)
		fprintf(fp, ",\"read_bytes\":%llu,\"write_bytes\":%llu",
		        (unsigned long long)t->read_bytes, (unsigned long long)t->write_bytes);
	else
		fprintf(fp, ",\"read_bytes\":null,\"write_bytes\":null");
	fputc('}', fp);
}

void summary_json(const struct run_out *o, FILE *fp)
{
	struct workload_totals t;
	fprintf(fp, "\"summary\":[");
	for (int i = 0; i < o->nwl; i++) {
		struct workload_totals rows[2];
		const char *names[2];
		int nr = workload_phase_rows(o->wl[i], rows, names);
		for (int k = 0; k < nr; k++) {
			if (i || k)
				fputc(',', fp);
			json_totals(fp, &rows[k], names[k], i + 1);
		}
		if (nr)
			continue;
		workload_totals(o->wl[i], &t);
		if (i)
			fputc(',', fp);
		json_totals(fp, &t, workload_name(o->wl[i]), i + 1);
	}
	fprintf(fp, "],\"workloads\":[");
	for (int i = 0; i < o->nwl; i++) {
		fprintf(fp, "%s{\"id\":%d,\"state\":\"%s\",\"error\":", i ? "," : "", i + 1,
		        model_wl_state_name(workload_state(o->wl[i])));
		json_string(fp, workload_error(o->wl[i]));
		fputc('}', fp);
	}
	fprintf(fp, "],\"policies\":");
	if (o->cf)
		cpufreq_policies_json(o->cf, fp);
	else
		fputs("[]", fp);
	fprintf(fp, ",\"phases\":[");
	size_t n = history_nphases(o->hist);
	for (size_t i = 0; i < n; i++) {
		const struct phase *p = history_phase(o->hist, i);
		double len = p->to - p->from;
		fprintf(fp, "%s{\"from\":%.3f,\"to\":%.3f,\"label\":", i ? "," : "", p->from, p->to);
		json_string(fp, p->label);
		uint64_t b = phase_counted(o, p);
		if (phase_too_short(o, p))
			fprintf(fp, ",\"bytes\":%llu,\"bps\":null,\"hog\":null", (unsigned long long)b);
		else
			fprintf(fp, ",\"bytes\":%llu,\"bps\":%.1f,\"hog\":%.4f", (unsigned long long)b,
			        num_div((double)b, len), num_div(p->cpu_s, len));
		phase_rw_json(fp, o, p);
		fprintf(fp, ",\"migrations\":%llu", (unsigned long long)p->migrations);
		double mhz = phase_mean_mhz(p);
		if (mhz > 0)
			fprintf(fp, ",\"mean_khz\":%.0f", mhz * 1000);
		else
			fprintf(fp, ",\"mean_khz\":null");
		fprintf(fp, ",\"residency\":");
		if (o->cf)
			cpufreq_phase_residency_json(o->cf, i, fp);
		else
			fputs("{}", fp);
		fputc('}', fp);
	}
	fputc(']', fp);
}

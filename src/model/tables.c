/* tables.c - the summary, phase and policy tables (see tables.h). */
#include "benchtop/tables.h"

#include <stdlib.h>
#include <string.h>

#include "benchtop/num.h"
#include "benchtop/units.h"

void tables_summary_head(FILE *fp, enum units_mode u, bool show_paused)
{
	fprintf(fp, "\n%6s  %6s  %6s  ", "user", "sys", "elaps");
	if (show_paused)
		fprintf(fp, "%6s  ", "paused");
	fprintf(fp, "%4s  %7s  %s\n", "hog", units_rate_label(u), "test");
}

void tables_test_name(const struct sum_row *r, enum units_mode u, char *buf, size_t len)
{
	char rd[32], wr[32], both[96] = "";
	if (r->counted && r->rw_known) {
		units_fmt_bytes(u, (uint64_t)r->read_bytes, rd, sizeof rd);
		units_fmt_bytes(u, (uint64_t)r->write_bytes, wr, sizeof wr);
		snprintf(both, sizeof both, ": read %s, written %s", rd, wr);
	}
	snprintf(buf, len, "%s%s%s%s%s%s", r->test ? r->test : "?", r->counted ? " (" : "",
	         r->counted ? r->counted : "", both, r->counted ? ")" : "", r->failed ? " (failed)" : "");
}

void tables_summary_row(FILE *fp, enum units_mode u, const struct sum_row *r)
{
	double hog = num_div(r->user + r->sys, r->elapsed) * 100;
	double rate = units_rate_value(u, r->bps);
	char name[512];

	tables_test_name(r, u, name, sizeof name);
	fprintf(fp, "%6.2f  %6.2f  %6.2f  ", r->user, r->sys, r->elapsed);
	if (r->show_paused)
		fprintf(fp, "%6.2f  ", r->paused);
	fprintf(fp, "%3.0f%%  %7.*f  %s\n", hog, rate < 100 ? 1 : 0, rate, name);
}

void tables_phase_head(FILE *fp, enum units_mode u)
{
	fprintf(fp, "\n%8s  %8s  %7s  %4s  %5s  %6s  %s\n", "from", "to", units_rate_label(u), "hog",
	        "migr", "MHz", "phase");
}

void tables_phase_row(FILE *fp, enum units_mode u, const struct phase_row *r)
{
	double rate = units_rate_value(u, r->bps);
	char mhz[16] = "-";

	char rates[24] = "-", hogs[16] = "-";

	if (r->mhz > 0)
		snprintf(mhz, sizeof mhz, "%.0f", r->mhz);
	if (!r->too_short) {
		snprintf(rates, sizeof rates, "%.*f", rate < 100 ? 1 : 0, rate);
		snprintf(hogs, sizeof hogs, "%.0f%%", r->hog * 100);
	}
	fprintf(fp, "%8.2f  %8.2f  %7s  %4s  %5.0f  %6s  %s\n", r->from, r->to, rates, hogs,
	        r->migrations, mhz, r->label ? r->label : "");
}

void tables_policy_head(FILE *fp, bool restored)
{
	fprintf(fp, "\n%-8s  %-8s  %-14s  %-12s  %s\n", "policy", "cpus", "driver", "governor",
	        restored ? "limits MHz (as restored at exit)" : "limits MHz (at the end of the run)");
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

void tables_policy_row(FILE *fp, const struct policy_row *r)
{
	fprintf(fp, "%-8d  %-8s  %-14s  %-12s  %ld-%ld", r->policy, or_dash(r->cpus),
	        or_dash(r->driver), or_dash(r->governor), r->min_khz / 1000, r->max_khz / 1000);
	if (r->ran_governor && (strcmp(r->ran_governor, r->governor ? r->governor : "") ||
	                        r->ran_min_khz != r->min_khz || r->ran_max_khz != r->max_khz))
		fprintf(fp, "  (the run ended under %s %ld-%ld)", or_dash(r->ran_governor),
		        r->ran_min_khz / 1000, r->ran_max_khz / 1000);
	fputc('\n', fp);
}

void tables_no_policies(FILE *fp, const char *why)
{
	fprintf(fp, "\ncpufreq: %s\n", why);
}

void tables_print(const struct run_tables *t, enum units_mode u, FILE *fp)
{
	bool show_paused = false;
	for (size_t i = 0; i < t->nsum; i++)
		show_paused |= t->sum[i].paused > 0;
	tables_summary_head(fp, u, show_paused);
	for (size_t i = 0; i < t->nsum; i++) {
		struct sum_row r = t->sum[i];
		r.show_paused = show_paused;
		tables_summary_row(fp, u, &r);
	}
	tables_phase_head(fp, u);
	for (size_t i = 0; i < t->nphase; i++)
		tables_phase_row(fp, u, &t->phase[i]);
	if (t->prep_sync >= 0)
		fprintf(fp, "\npreparation before the run (not in any row): sync %.3f s, drop caches %.3f s\n",
		        t->prep_sync, t->prep_drop);
	if (!t->npol) {
		tables_no_policies(fp, t->no_policies ? t->no_policies : "no cpufreq policies here");
		return;
	}
	tables_policy_head(fp, t->restored);
	for (size_t i = 0; i < t->npol; i++)
		tables_policy_row(fp, &t->pol[i]);
}

void tables_free(struct run_tables *t)
{
	free(t->sum);
	free(t->phase);
	free(t->pol);
	t->sum = NULL;
	t->phase = NULL;
	t->pol = NULL;
	t->nsum = t->nphase = t->npol = 0;
}

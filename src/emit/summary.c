/* summary.c - the end of a run in the form people publish: one row per
 * workload (user sys elaps hog rate test), then one row per phase (the
 * stretches between events), as the end record's JSON and, from that
 * record, as the tables (a live run's and a recording's alike). */
#include "benchtop/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/cpufreq.h"
#include "benchtop/json.h"
#include "benchtop/num.h"
#include "benchtop/tables.h"
#include "benchtop/units.h"
#include "benchtop/workload.h"
#include "benchtop/xalloc.h"

/* ---- the tables, from the end record -------------------------------------- */

static double jnum(const struct json *o, const char *key, double def)
{
	return json_num(json_get(o, key), def);
}

static bool workload_failed(const struct json *end, int id)
{
	const struct json *wls = json_get(end, "workloads");
	for (size_t i = 0; i < json_len(wls); i++) {
		const struct json *w = json_at(wls, i);
		if ((int)jnum(w, "id", 0) == id)
			return !strcmp(json_str(json_get(w, "state"), ""), "failed");
	}
	return false;
}

static void sum_rows(const struct json *end, struct run_tables *t)
{
	const struct json *sum = json_get(end, "summary");
	t->sum = xcalloc(json_len(sum) + 1, sizeof *t->sum);
	for (size_t i = 0; i < json_len(sum); i++) {
		const struct json *s = json_at(sum, i);
		double el = jnum(s, "elapsed", 0);
		struct sum_row *r = &t->sum[t->nsum++];
		r->test = json_str(json_get(s, "test"), "?");
		r->user = jnum(s, "user", 0);
		r->sys = jnum(s, "sys", 0);
		r->elapsed = el;
		r->bps = jnum(s, "bps", num_div(jnum(s, "bytes", 0), el));
		r->failed = workload_failed(end, (int)jnum(s, "workload", 0));
		r->paused = jnum(s, "paused", 0);
		r->counted = json_str(json_get(s, "counted"), NULL);
		r->rw_known = jnum(s, "read_bytes", -1) >= 0 && jnum(s, "write_bytes", -1) >= 0;
		r->read_bytes = jnum(s, "read_bytes", 0);
		r->write_bytes = jnum(s, "write_bytes", 0);
	}
}

static void phase_rows(const struct json *end, struct run_tables *t)
{
	const struct json *ph = json_get(end, "phases");
	t->phase = xcalloc(json_len(ph) + 1, sizeof *t->phase);
	for (size_t i = 0; i < json_len(ph); i++) {
		const struct json *p = json_at(ph, i);
		double khz = jnum(p, "mean_khz", -1);
		/* a phase too short for a rate has null figures: "-" */
		t->phase[t->nphase++] = (struct phase_row){
			jnum(p, "from", 0), jnum(p, "to", 0), jnum(p, "bps", 0), jnum(p, "hog", 0),
			jnum(p, "migrations", 0), khz > 0 ? khz / 1000 : -1, json_str(json_get(p, "label"), ""),
			jnum(p, "bps", -1) < 0 || jnum(p, "hog", -1) < 0 };
	}
}

static void policy_rows(const struct json *end, struct run_tables *t)
{
	const struct json *pol = json_get(end, "policies");
	t->pol = xcalloc(json_len(pol) + 1, sizeof *t->pol);
	for (size_t i = 0; i < json_len(pol); i++) {
		const struct json *p = json_at(pol, i);
		t->pol[t->npol++] = (struct policy_row){
			(int)jnum(p, "policy", (double)i), json_str(json_get(p, "cpus"), "-"),
			json_str(json_get(p, "driver"), ""), json_str(json_get(p, "governor"), ""),
			(long)jnum(p, "min", 0), (long)jnum(p, "max", 0), NULL, 0, 0 };
	}
	if (!t->npol)
		t->no_policies = "no cpufreq policies recorded";
}

void summary_tables(const struct json *start, const struct json *end, struct run_tables *t)
{
	memset(t, 0, sizeof *t);
	sum_rows(end, t);
	phase_rows(end, t);
	policy_rows(end, t);
	const struct json *prep = json_get(start, "preparation");
	t->prep_sync = prep ? jnum(prep, "sync_s", -1) : -1;
	t->prep_drop = prep ? jnum(prep, "drop_caches_s", -1) : -1;
}

/* ---- a live run's end -------------------------------------------------------- */

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
static void phase_rw_json(struct jw *w, const struct run_out *o, const struct phase *p)
{
	uint64_t r = 0, wr = 0;
	struct workload_totals t;
	for (int i = 0; i < o->nwl; i++) {
		workload_totals(o->wl[i], &t);
		if (!t.rw_known) {
			jw_null(w, "read_bytes");
			jw_null(w, "write_bytes");
			return;
		}
		r += phase_wl_bytes(p, i, 'r');
		wr += phase_wl_bytes(p, i, 'w');
	}
	jw_uint(w, "read_bytes", r);
	jw_uint(w, "write_bytes", wr);
}


/* What the run ran under, so a published result says it. */
/* A phase shorter than two sample intervals has no rate or hog worth a
 * number: its bytes are what the samples on each side of its ends split
 * between phases, so they are shown as "-" and recorded as null.  The
 * only phase of a run is the whole run, its bytes the summary's, exact
 * however short the run was. */
static bool phase_too_short(const struct run_out *o, const struct phase *p)
{
	return p->to - p->from < 2 * o->interval - 1e-9 && history_nphases(o->hist) > 1;
}

static double phase_mean_mhz(const struct phase *p)
{
	return p->khz_time > 0 ? p->khz_sum / p->khz_time / 1000 : -1;
}

/* A live run's tables are those of its end record (the one a recording
 * of it ends with), so a replay prints what the run printed; what only
 * the live run knows is added: what was restored, why cpufreq is not
 * here. */
void summary_print(const struct run_out *o, FILE *fp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	struct jw w;
	jw_begin(&w, m);
	jw_obj(&w, NULL);
	summary_json(o, &w);
	jw_end(&w);
	fclose(m);
	struct json_error err;
	struct json *end = json_parse(buf, len, &err);
	free(buf);
	if (!end)
		return;
	struct run_tables t;
	summary_tables(NULL, end, &t);
	t.prep_sync = o->prep_sync;
	t.prep_drop = o->prep_drop;
	if (!t.npol) {
		const char *why = o->cf ? cpufreq_unavailable_reason(o->cf) : NULL;
		t.no_policies = why ? why : "no cpufreq policies here";
	}
	/* the policies as they are now: restored, with what the run ran under */
	t.restored = o->npol_end > 0;
	for (size_t p = 0; p < t.npol && (int)p < o->npol_end; p++) {
		t.pol[p].ran_governor = o->pol_end[p].governor;
		t.pol[p].ran_min_khz = o->pol_end[p].min_khz;
		t.pol[p].ran_max_khz = o->pol_end[p].max_khz;
	}
	tables_print(&t, o->units, fp);
	tables_free(&t);
	json_free(end);
	fflush(fp);
}

static void json_totals(struct jw *w, const struct workload_totals *t, const char *name, int id)
{
	jw_obj(w, NULL);
	jw_str(w, "test", name);
	jw_int(w, "workload", id);
	jw_fix(w, "user", t->user, 6);
	jw_fix(w, "sys", t->sys, 6);
	jw_fix(w, "elapsed", t->elapsed, 6);
	jw_fix(w, "hog", num_div(t->user + t->sys, t->elapsed), 4);
	jw_uint(w, "bytes", t->bytes);
	jw_fix(w, "bps", num_div((double)t->bytes, t->elapsed), 1);
	jw_uint(w, "calls", t->calls);
	jw_int(w, "runs", t->runs);
	jw_fix(w, "paused", t->paused, 3);
	if (t->counted)
		jw_str(w, "counted", t->counted);
	if (t->rw_known) {
		jw_uint(w, "read_bytes", t->read_bytes);
		jw_uint(w, "write_bytes", t->write_bytes);
	} else {
		jw_null(w, "read_bytes");
		jw_null(w, "write_bytes");
	}
	jw_end(w);
}

static void phase_json(struct jw *w, const struct run_out *o, size_t i)
{
	const struct phase *p = history_phase(o->hist, i);
	double len = p->to - p->from;
	uint64_t b = phase_counted(o, p);
	bool cut = phase_too_short(o, p);
	jw_obj(w, NULL);
	jw_fix(w, "from", p->from, 6);
	jw_fix(w, "to", p->to, 6);
	jw_str(w, "label", p->label);
	jw_uint(w, "bytes", b);
	jw_fix(w, "bps", cut ? NAN : num_div((double)b, len), 1);
	jw_fix(w, "hog", cut ? NAN : num_div(p->cpu_s, len), 4);
	phase_rw_json(w, o, p);
	jw_uint(w, "migrations", p->migrations);
	double mhz = phase_mean_mhz(p);
	jw_fix(w, "mean_khz", mhz > 0 ? mhz * 1000 : NAN, 0);
	if (o->cf) {
		cpufreq_phase_residency_json(o->cf, i, w, "residency");
	} else {
		jw_obj(w, "residency");
		jw_end(w);
	}
	jw_end(w);
}

void summary_json(const struct run_out *o, struct jw *w)
{
	struct workload_totals t;
	jw_arr(w, "summary");
	for (int i = 0; i < o->nwl; i++) {
		struct workload_totals rows[2];
		const char *names[2];
		int nr = workload_phase_rows(o->wl[i], rows, names);
		for (int k = 0; k < nr; k++)
			json_totals(w, &rows[k], names[k], i + 1);
		if (nr)
			continue;
		workload_totals(o->wl[i], &t);
		json_totals(w, &t, workload_name(o->wl[i]), i + 1);
	}
	jw_end(w);
	jw_arr(w, "workloads");
	for (int i = 0; i < o->nwl; i++) {
		jw_obj(w, NULL);
		jw_int(w, "id", i + 1);
		jw_str(w, "state", model_wl_state_name(workload_state(o->wl[i])));
		jw_str(w, "error", workload_error(o->wl[i]));
		jw_end(w);
	}
	jw_end(w);
	if (o->cf) {
		cpufreq_policies_json(o->cf, w, "policies");
	} else {
		jw_arr(w, "policies");
		jw_end(w);
	}
	jw_arr(w, "phases");
	for (size_t i = 0; i < history_nphases(o->hist); i++)
		phase_json(w, o, i);
	jw_end(w);
}

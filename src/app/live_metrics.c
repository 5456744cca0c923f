/* live_metrics.c - a live run's figures for --metrics and --metrics-listen:
 * what each workload is, and after every tick a view of the snapshot, the
 * residency, the events and benchtop's own CPU time for metrics.c.
 *
 * The listener is one more descriptor in the run's poll loop (see
 * metrics_http.c for why not a thread); these functions are the whole
 * hook: open before the run, tick after each sample, fd/serve in the
 * loop, close at teardown. */
#include "app_priv.h"

#include <stdlib.h>
#include <string.h>

#include "benchtop/cpufreq.h"
#include "benchtop/metrics.h"
#include "benchtop/version.h"
#include "benchtop/workload.h"
#include "benchtop/xalloc.h"

struct app_metrics {
	struct metrics *m;
	struct metrics_wl *wl;
	char (*engine)[16];
	struct metrics_acc *acc;      /* disk byte totals from the sampled rates */
};

/* "copy engine=pipe procs=3" -> "pipe"; "" for workloads without one. */
static void engine_of(const char *kind, const char *name, char *out, size_t len)
{
	const char *e = strcmp(kind, "copy") ? NULL : strstr(name, "engine=");
	out[0] = 0;
	if (e)
		snprintf(out, len, "%.*s", (int)strcspn(e + 7, " ,"), e + 7);
}

int app_metrics_open(struct app *a, char *msg, size_t len)
{
	const struct run *r = a->run;
	if (!r->metrics && !r->metrics_listen)
		return 0;
	struct app_metrics *am = xcalloc(1, sizeof *am);
	a->metrics = am;
	am->wl = xcalloc((size_t)a->nwl + 1, sizeof *am->wl);
	am->engine = xcalloc((size_t)a->nwl + 1, sizeof *am->engine);
	am->acc = metrics_acc_new();
	for (int i = 0; i < a->nwl; i++) {
		am->wl[i].kind = workload_kind(a->wl[i]);
		am->wl[i].test = workload_name(a->wl[i]);
		engine_of(am->wl[i].kind, am->wl[i].test, am->engine[i], sizeof am->engine[i]);
		am->wl[i].engine = am->engine[i];
	}
	return metrics_open(&am->m, r->metrics, r->metrics_listen, r->force, msg, len);
}

static size_t residency(void *ctx, int cpu, const long **khz, const double **secs)
{
	return cpufreq_residency(ctx, cpu, false, khz, secs);
}

void app_metrics_tick(struct app *a)
{
	struct app_metrics *am = a->metrics;
	if (!am || !am->m)
		return;
	metrics_acc_add(am->acc, a->snap);
	const char *rk = a->cf ? cpufreq_residency_kind(a->cf) : "none";
	struct metrics_view v = {
		.snap = a->snap,
		.wl = am->wl,
		.nwl = a->nwl,
		.have_freq = a->cf && cpufreq_source(a->cf) != FREQ_NONE,
		.residency = strcmp(rk, "none") ? residency : NULL,
		.residency_ctx = a->cf,
		.hist = a->hist,
		.self_cpu_s = a->self_cpu_last,
		.disk_read_bytes = metrics_acc_disk_read(am->acc),
		.disk_written_bytes = metrics_acc_disk_written(am->acc),
		.version = BENCHTOP_VERSION,
	};
	int rc = metrics_update(am->m, &v);
	if (rc && a->run->batch)
		fprintf(stderr, "benchtop: --metrics %s: %s\n", a->run->metrics, strerror(-rc));
	else if (rc)
		snprintf(a->vs.status, sizeof a->vs.status, "--metrics %s: %s", a->run->metrics, strerror(-rc));
}

int app_metrics_fd(const struct app *a)
{
	return a->metrics ? metrics_fd(a->metrics->m) : -1;
}

int app_metrics_timeout(const struct app *a, int loop_ms)
{
	return a->metrics ? metrics_timeout_ms(a->metrics->m, loop_ms) : loop_ms;
}

void app_metrics_serve(struct app *a)
{
	if (a->metrics)
		metrics_serve(a->metrics->m);
}

void app_metrics_close(struct app *a)
{
	struct app_metrics *am = a->metrics;
	if (!am)
		return;
	metrics_close(am->m, a->run->keep);
	metrics_acc_free(am->acc);
	free(am->wl);
	free(am->engine);
	free(am);
	a->metrics = NULL;
}

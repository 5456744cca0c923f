/* live_view.c - what the dashboard of a live run shows, gathered for the
 * draw pass: the view state, the run's workloads and history, and what
 * cpufreq says (frequency source, residency, governors, caps). */
#include "benchtop/app.h"
#include "app_priv.h"

#include <stdlib.h>
#include <string.h>

#include "benchtop/cpufreq.h"
#include "benchtop/cpulist.h"
#include "benchtop/drive.h"
#include "benchtop/ui.h"

static size_t residency_rows(void *ctx, int cpu, bool since_event, const long **khz,
                             const double **secs)
{
	return cpufreq_residency(ctx, cpu, since_event, khz, secs);
}

/* The cap on policy p's maximum frequency: its scaling_max_freq when that
 * is below the highest frequency it has, else 0. */
static long cap_of_policy(const struct cpufreq *cf, int p)
{
	const long *f;
	size_t n = cpufreq_policy_freqs(cf, p, &f);
	long max = cpufreq_policy_max(cf, p);
	return n > 0 && max > 0 && max < f[n - 1] ? max : 0;
}

/* Every CPU's cap, for the CPUs panel. */
static void view_caps(struct app *a, struct ui_view *v)
{
	static long *caps;
	static int ncaps;
	if (a->ncpu > ncaps) {
		long *c = realloc(caps, (size_t)a->ncpu * sizeof *c);
		if (!c)
			return;
		caps = c;
		ncaps = a->ncpu;
	}
	for (int i = 0; i < a->ncpu; i++) {
		int p = cpufreq_policy_of_cpu(a->cf, i);
		caps[i] = p >= 0 ? cap_of_policy(a->cf, p) : 0;
	}
	v->caps = caps;
	v->ncaps = a->ncpu;
}

void app_view_of(struct app *a, struct ui_view *v)
{
	enum freq_source fs = a->cf ? cpufreq_source(a->cf) : FREQ_NONE;
	const char *why = a->cf ? cpufreq_unavailable_reason(a->cf) : NULL;
	const char *rk = a->cf ? cpufreq_residency_kind(a->cf) : "none";
	struct feed_facts f = { a->hist, a->run, (const char *const *)a->wl_names, a->nwl, &a->vs,
	                        a->vs.status, app_now(a), a->interval, a->ac.paused, false,
	                        fs == FREQ_NONE ? why : cpufreq_source_name(fs), rk };
	feed_view(v, &f);
	v->ncpus_online = cpulist_count(a->ac.online, a->ncpu);
	if (a->cf && strcmp(rk, "none")) {
		v->residency = residency_rows;
		v->residency_ctx = a->cf;
	}
	v->governors = (const char *const *)a->governors;
	if (a->cf && cpufreq_npolicies(a->cf) > 0) {
		v->nfreqs = cpufreq_policy_freqs(a->cf, 0, &v->freqs);
		v->cur_governor = cpufreq_policy_governor(a->cf, 0);
		v->cap_khz = cap_of_policy(a->cf, 0);
		view_caps(a, v);
	}
}


/* replay_metrics.c - --metrics and --metrics-listen on a replay: the
 * recording's values as they play.  A recording keeps no kernel residency,
 * disk totals or benchtop's CPU seconds, so those are summed from the
 * samples (frequency over each interval, rates times intervals). */
#include "benchtop/replay.h"

#include <stdlib.h>
#include <string.h>

#include "benchtop/metrics.h"
#include "benchtop/version.h"
#include "benchtop/xalloc.h"

struct replay_metrics {
	struct metrics *m;
	struct metrics_acc *acc;
	struct metrics_wl *wl;
	char (*engine)[16];
	int nwl;
	bool have_freq;
	const char *file;
};

static void describe_workloads(struct replay_metrics *rm, const struct recording *rec)
{
	const struct json *wls = json_get(recording_start(rec), "workloads");
	rm->nwl = recording_nwl(rec);
	rm->wl = xcalloc((size_t)rm->nwl + 1, sizeof *rm->wl);
	rm->engine = xcalloc((size_t)rm->nwl + 1, sizeof *rm->engine);
	for (int i = 0; i < rm->nwl; i++) {
		const struct json *w = json_at(wls, (size_t)i);
		rm->wl[i].kind = json_str(json_get(w, "kind"), "");
		rm->wl[i].test = recording_wl_names(rec)[i];
		const char *e = strcmp(rm->wl[i].kind, "copy") ? NULL : strstr(rm->wl[i].test, "engine=");
		if (e)
			snprintf(rm->engine[i], sizeof rm->engine[i], "%.*s", (int)strcspn(e + 7, " ,"), e + 7);
		rm->wl[i].engine = rm->engine[i];
	}
}

int replay_metrics_open(struct replay_metrics **out, const struct run *r,
                        const struct recording *rec, char *msg, size_t len)
{
	struct replay_metrics *rm = xcalloc(1, sizeof *rm);
	*out = rm;
	rm->acc = metrics_acc_new();
	describe_workloads(rm, rec);
	rm->file = r->metrics;
	const char *fs = json_str(json_get(recording_start(rec), "freq_source"), "none");
	rm->have_freq = strcmp(fs, "none") != 0;
	return metrics_open(&rm->m, r->metrics, r->metrics_listen, r->force, msg, len);
}

void replay_metrics_tick(struct replay_metrics *rm, const struct snapshot *s,
                         const struct history *h, char *msg, size_t len)
{
	if (!rm || !rm->m)
		return;
	metrics_acc_add(rm->acc, s);
	struct metrics_view v = {
		.snap = s, .wl = rm->wl, .nwl = rm->nwl, .have_freq = rm->have_freq,
		.residency = rm->have_freq ? metrics_sampled_residency : NULL, .residency_ctx = rm->acc,
		.hist = h, .self_cpu_s = metrics_acc_self_cpu(rm->acc),
		.disk_read_bytes = metrics_acc_disk_read(rm->acc),
		.disk_written_bytes = metrics_acc_disk_written(rm->acc), .version = BENCHTOP_VERSION,
	};
	int rc = metrics_update(rm->m, &v);
	if (rc)
		snprintf(msg, len, "--metrics %s: %s", rm->file, strerror(-rc));
}

struct metrics *replay_metrics_server(struct replay_metrics *rm)
{
	return rm ? rm->m : NULL;
}

void replay_metrics_close(struct replay_metrics *rm, bool keep)
{
	if (!rm)
		return;
	metrics_close(rm->m, keep);
	metrics_acc_free(rm->acc);
	free(rm->wl);
	free(rm->engine);
	free(rm);
}

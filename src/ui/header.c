/* header.c - the top line (workloads, elapsed, units, frequency source,
 * benchtop's own CPU use) and the status line at the bottom. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>
#include "benchtop/units.h"

static void fmt_elapsed(double s, char *buf, size_t len)
{
	long t = s > 0 ? (long)s : 0;
	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static void fmt_workloads(const struct ui_view *v, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < v->nwl && n + 1 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
		                      v->wl_names && v->wl_names[i] ? v->wl_names[i] : "?");
	if (v->nwl == 0)
		snprintf(buf, len, "(no workload)");
}

void ui_header_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	char wl[256], el[32], right[200];
	fmt_workloads(v, wl, sizeof(wl));
	fmt_elapsed(v->elapsed, el, sizeof(el));
	int n = snprintf(right, sizeof(right), " %s%s%s | %s | freq: %s | self %.1f%% CPU",
	                 v->replay ? "REPLAY " : "", v->paused ? "PAUSED " : "", el,
	                 units_rate_label(v->units),
	                 v->freq_source ? v->freq_source : "not observable here",
	                 s ? s->self_cpu_pct : 0.0);
	if (v->interval > 0 && n > 0 && (size_t)n < sizeof(right))
		snprintf(right + n, sizeof(right) - (size_t)n, " | every %gs ", v->interval);
	ui_textf(r.y, r.x, r.w, ROLE_HEADER, "%-*s", r.w, "");
	int rw = ui_strwidth(right);
	ui_textf(r.y, r.x, r.w - rw, ROLE_HEADER, " benchtop | %s", wl);
	ui_text(r.y, r.x + (r.w > rw ? r.w - rw : 0), r.w, ROLE_HEADER, right);
}

void ui_status_draw(const struct ui_view *v, struct rect r)
{
	const char *prompt = ui_key_prompt();
	const char *hint = "? help  q quit";
	int hw = (int)strlen(hint);
	if (prompt) {
		ui_text(r.y, r.x, r.w, ROLE_KEY, prompt);
		return;
	}
	ui_text(r.y, r.x, r.w - hw - 1, ROLE_STATUS, v->status ? v->status : "");
	ui_text(r.y, r.x + r.w - hw, hw, ROLE_DIM, hint);
}

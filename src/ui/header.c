/* header.c - the top line (workloads, elapsed, units, frequency source,
 * benchtop's own CPU use) and the status line at the bottom. */
#include "uipriv.h"

#include <stdbool.h>
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

/* Each workload's name and, once it has completed one, its pass count. */
static void fmt_workloads(const struct ui_view *v, char *buf, size_t len)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < v->nwl && n + 1 < len; i++) {
		unsigned long long passes = s && i < s->nwl ? (unsigned long long)s->wls[i].passes : 0;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
		                      v->wl_names && v->wl_names[i] ? v->wl_names[i] : "?");
		if (passes && n + 1 < len)
			n += (size_t)snprintf(buf + n, len - n, " (pass %llu)", passes + 1);
	}
	if (v->nwl == 0)
		snprintf(buf, len, "(no workload)");
}

/* The right part of the header at level 0 (full), 1 (a long frequency
 * sentence and the interval shortened) or 2 (no interval), so a narrow
 * terminal keeps the workloads. */
static int fmt_right(const struct ui_view *v, int level, char *buf, size_t len)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	char el[32];
	fmt_elapsed(v->elapsed, el, sizeof(el));
	bool compact = level > 0;
	const char *fs = v->freq_source ? v->freq_source : "not observable here";
	if (compact && strncmp(fs, "frequency not observable", 24) == 0)
		fs = "not observable";
	int n = snprintf(buf, len, " %s%s%s | %s | freq: %s | self %.1f%% CPU",
	                 v->replay ? "REPLAY " : "", v->paused ? "PAUSED " : "", el,
	                 units_rate_label(v->units), fs, s ? s->self_cpu_pct : 0.0);
	if (level < 2 && v->interval > 0 && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, compact ? " | %gs " : " | every %gs ", v->interval);
	return n;
}

void ui_header_draw(const struct ui_view *v, struct rect r)
{
	char wl[256], right[200];
	fmt_workloads(v, wl, sizeof(wl));
	int want = 12 + (ui_strwidth(wl) < 30 ? ui_strwidth(wl) : 30), rw = 0;
	for (int level = 0; level < 3; level++) {
		fmt_right(v, level, right, sizeof(right));
		rw = ui_strwidth(right);
		if (rw + want <= r.w)
			break;
	}
	ui_textf(r.y, r.x, r.w, ROLE_HEADER, "%-*s", r.w, "");
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
	const char *st = v->status ? v->status : "";
	/* a long message (why a key could not act) takes the hint's place */
	if (ui_strwidth(st) > r.w - hw - 1) {
		ui_text(r.y, r.x, r.w, ROLE_STATUS, st);
		return;
	}
	ui_text(r.y, r.x, r.w - hw - 1, ROLE_STATUS, st);
	ui_text(r.y, r.x + r.w - hw, hw, ROLE_DIM, hint);
}

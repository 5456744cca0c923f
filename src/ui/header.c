/* header.c - the top line (workloads, elapsed, units, frequency source in
 * plain words, benchtop's own CPU use, whether the run is done) and the
 * status line at the bottom.  Text that does not fit is shortened at
 * whole words, never in the middle of a word or a number. */
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

/* s cut to at most w columns at a word boundary (a blank or a comma),
 * with ".." when words were left out; "" when not even the first word
 * fits. */
void ui_fit_words(const char *s, int w, char *out, size_t len)
{
	snprintf(out, len, "%s", s);
	if (ui_strwidth(out) <= w)
		return;
	size_t best = 0;
	for (size_t i = 1; out[i]; i++) {
		if (out[i] != ' ' && out[i] != ',')
			continue;
		char save = out[i];
		out[i] = 0;
		bool fits = ui_strwidth(out) + 2 <= w;
		out[i] = save;
		if (fits)
			best = i;
	}
	if (best == 0) {
		out[0] = 0;
		return;
	}
	snprintf(out + best, len - best, "..");
}

/* Each workload's name (brief: its first word, the kind) and, once it
 * has completed one, its pass count. */
static void fmt_workloads(const struct ui_view *v, bool brief, char *buf, size_t len)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < v->nwl && n + 1 < len; i++) {
		unsigned long long passes = s && i < s->nwl ? (unsigned long long)s->wls[i].passes : 0;
		const char *name = v->wl_names && v->wl_names[i] ? v->wl_names[i] : "?";
		int nl = brief ? (int)strcspn(name, " ") : (int)strlen(name);
		n += (size_t)snprintf(buf + n, len - n, "%s%.*s", i ? ", " : "", nl, name);
		/* a running workload is in its next pass; a finished one says
		 * how many it did, when more than one */
		bool ended = s && i < s->nwl && (s->wls[i].state == WLS_DONE || s->wls[i].state == WLS_FAILED);
		if (passes && !ended && n + 1 < len)
			n += (size_t)snprintf(buf + n, len - n, " (pass %llu)", passes + 1);
		else if (passes > 1 && ended && n + 1 < len)
			n += (size_t)snprintf(buf + n, len - n, " (%llu passes)", passes);
	}
	if (v->nwl == 0)
		snprintf(buf, len, "(no workload)");
}

/* Every workload has ended (a finished run shown until q); never under
 * --loop, whose workloads start again. */
bool ui_run_done(const struct ui_view *v)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	if (!s || s->nwl == 0 || v->replay || (v->run && v->run->loop))
		return false;
	for (int i = 0; i < s->nwl; i++)
		if (s->wls[i].state != WLS_DONE && s->wls[i].state != WLS_FAILED)
			return false;
	return true;
}

/* The frequency source in plain words: long, or short for a narrow
 * terminal. */
static const char *freq_words(const char *fs, bool brief)
{
	static const struct { const char *name, *full, *brief; } words[] = {
		{ "cpuinfo_avg_freq", "frequency: the kernel's average over each interval",
		  "freq: kernel average" },
		{ "APERF/MPERF", "frequency: measured from the CPU's APERF/MPERF counters",
		  "freq: APERF/MPERF counters" },
		{ "scaling_cur_freq", "frequency: sampled from the kernel's current-frequency readout",
		  "freq: kernel's current readout" },
		{ "/proc/cpuinfo", "frequency: sampled from /proc/cpuinfo", "freq: /proc/cpuinfo" },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(fs, words[i].name))
			return brief ? words[i].brief : words[i].full;
	if (brief)
		return "freq: not observable";
	return strstr(fs, "frequency") ? fs : "frequency: not observable here";
}

/* The right part of the header at level 0 (full), 1 (the frequency in
 * brief, the interval shortened), 2 (no interval), 3 (no self CPU) or 4
 * (no units: the graph's title names them). */
static int fmt_right(const struct ui_view *v, int level, char *buf, size_t len)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	char el[32];
	fmt_elapsed(v->elapsed, el, sizeof(el));
	bool compact = level > 0, done = ui_run_done(v);
	const char *fs = freq_words(v->freq_source ? v->freq_source : "", compact);
	int n = snprintf(buf, len, " %s%s%s%s%s%s | %s", v->replay ? "REPLAY " : "",
	                 v->paused ? "PAUSED " : "", done ? (compact ? "DONE (q: summary) " :
	                 "DONE, q prints the summary ") : "", el, level < 4 ? " | " : "",
	                 level < 4 ? units_rate_label(v->units) : "", fs);
	if (level < 3 && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " | self %.1f%% CPU", s ? s->self_cpu_pct : 0.0);
	/* a tick that could not finish in time widens the interval: the
	 * measured one is shown next to the asked one */
	bool wide = s && v->interval > 0 && s->dt > v->interval * 1.5;
	if (level < 2 && wide && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, compact ? " | %gs>%.2gs" : " | every %gs, widened to %.2gs",
		              v->interval, s->dt);
	else if (level < 2 && v->interval > 0 && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, compact ? " | %gs" : " | every %gs", v->interval);
	if (n > 0 && (size_t)n + 1 < len)
		buf[n++] = ' ', buf[n] = 0;
	return n;
}

void ui_header_draw(const struct ui_view *v, struct rect r)
{
	char wl[256], right[200], fit[256];
	if (v->title)
		snprintf(wl, sizeof wl, "%s", v->title);
	else
		fmt_workloads(v, false, wl, sizeof(wl));
	/* a title (one step's name) takes more room from the right part */
	int most = v->title ? 52 : 30;
	int want = 12 + (ui_strwidth(wl) < most ? ui_strwidth(wl) : most), rw = 0;
	for (int level = 0; level < 5; level++) {
		fmt_right(v, level, right, sizeof(right));
		rw = ui_strwidth(right);
		if (rw + want <= r.w)
			break;
	}
	ui_textf(r.y, r.x, r.w, ROLE_HEADER, "%-*s", r.w, "");
	/* the workloads at whole words in the room left of the right part */
	bool name = r.w - rw - 12 >= 16;   /* "benchtop | " gives way to the workloads */
	int room = r.w - rw - (name ? 12 : 1);
	/* too long: each workload by its kind, so its pass count stays */
	if (ui_strwidth(wl) > room && !v->title)
		fmt_workloads(v, true, wl, sizeof(wl));
	ui_fit_words(wl, room, fit, sizeof(fit));
	ui_textf(r.y, r.x, r.w - rw, ROLE_HEADER, " %s%s", name ? "benchtop | " : "", fit);
	ui_text(r.y, r.x + (r.w > rw ? r.w - rw : 0), r.w, ROLE_HEADER, right);
}

/* The status line (over the key bar): the prompt or menu in progress,
 * else the last message, cut at whole words when long. */
void ui_status_draw(const struct ui_view *v, struct rect r)
{
	const char *prompt = ui_key_prompt();
	if (prompt) {
		ui_text(r.y, r.x, r.w, ROLE_KEY, prompt);
		return;
	}
	const char *st = v->status ? v->status : "";
	char fit[512];
	ui_fit_words(st, r.w, fit, sizeof fit);
	ui_text(r.y, r.x, r.w, ROLE_STATUS, fit[0] ? fit : st);
}

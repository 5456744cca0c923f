/* cpus.c - per CPU: a load bar (user / system / iowait / irq), the current
 * frequency, the governor and the workload processes on it now. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>

#define MIN_COLW 34

/* One bar segment, one call: colour in colour mode, a letter in mono so
 * the split stays readable without colour. */
static int segment(int y, int x, int n, enum theme_role role, char mono_ch)
{
	char run[256];
	if (n <= 0)
		return x;
	n = n < (int)sizeof(run) ? n : (int)sizeof(run);
	memset(run, ui_mono ? mono_ch : '|', (size_t)n);
	ui_put(y, x, n, ui_attr(role), run, (size_t)n);
	return x + n;
}

/* The pids on a CPU, cut at a whole pid with "+N" for the rest, so a
 * narrow panel never shows a pid it cut in half; "+N" only after at
 * least one pid (where none fits, the placement strip and the process
 * list say where they are). */
static void fit_pids(const char *list, int room, char *out, size_t len)
{
	int total = 0, shown = 0;
	size_t k = 0;
	out[0] = 0;
	for (const char *p = list; *p; ) {
		size_t n = strcspn(p, ",");
		total++;
		if (shown == total - 1 && (int)(k + (k ? 1 : 0) + n) <= room && k + n + 2 < len) {
			k += (size_t)snprintf(out + k, len - k, "%s%.*s", k ? "," : "", (int)n, p);
			shown++;
		}
		p += n + (p[n] == ',');
	}
	if (shown < total && shown > 0) {
		/* room for "+N": drop pids from the end until it fits */
		char more[16];
		while (shown > 0) {
			int m = snprintf(more, sizeof more, " +%d", total - shown);
			if ((int)(k + (size_t)m) <= room)
				break;
			char *c = strrchr(out, ',');
			k = c ? (size_t)(c - out) : 0;
			out[k] = 0;
			shown--;
		}
		if (shown > 0)
			snprintf(out + k, len - k, "%s", more);
	}
}

/* The cap on a CPU's maximum frequency, 0 when none. */
static long cap_of(const struct ui_view *v, int cpu)
{
	return v->caps && cpu >= 0 && cpu < v->ncaps ? v->caps[cpu] : 0;
}

/* cpuN [bar] freq [cap] governor pids.  The governor and the cap are
 * never cut: on a narrow panel the frequencies get short ("1.60G",
 * "cap 1.40G") and the bar gives up room first, down to a few cells. */
static void cpu_row(const struct ui_view *v, const struct cpu_sample *c, int y, int x, int w)
{
	char khz[24], pids[MODEL_PIDS_LEN + 8], cap[32] = "";
	const char *gov = c->governor[0] ? c->governor : "-";
	int govw = ui_strwidth(gov) > 12 ? ui_strwidth(gov) : 12;
	bool narrow = w < 8 + 6 + 10 + govw + 1 + 13;
	if (narrow)
		govw = ui_strwidth(gov);
	long cp = cap_of(v, c->id);
	enum ui_khz_form form = narrow ? UI_KHZ_SHORT : UI_KHZ_FULL;
	ui_fmt_khz(c->khz, khz, sizeof(khz), form);
	if (cp > 0) {
		char f[24];
		ui_fmt_khz(cp, f, sizeof(f), form);
		snprintf(cap, sizeof(cap), "cap %s ", f);
	}
	int capw = ui_strwidth(cap), fw = narrow ? 7 : 10;
	/* cpuN [bar] + freq + cap + governor + pids (two at least) */
	int barw = w - 8 - fw - capw - govw - 1 - 13;
	if (barw < 3)
		barw = w - 8 - fw - capw - govw - 1 < 6 ? 3 : 6;
	if (barw > 40)
		barw = 40;
	ui_textf(y, x, 6, ROLE_NORMAL, "cpu%-3d", c->id);
	mvaddch(y, x + 6, '[' | ui_attr(ROLE_AXIS));
	double parts[4] = { c->user, c->system, c->iowait, c->irq };
	static const enum theme_role roles[4] = { ROLE_USER, ROLE_SYSTEM, ROLE_IOWAIT, ROLE_IRQ };
	static const char letters[4] = { 'u', 's', 'w', 'i' };
	int bx = x + 7, used = 0;
	for (int k = 0; k < 4; k++) {
		/* a recorded share may be anything: at most the whole bar */
		double p = parts[k] > 100 ? 100 : parts[k];
		int n = p > 0 ? (int)(p * barw / 100 + 0.5) : 0;
		if (n > barw - used)
			n = barw - used;
		bx = segment(y, bx, n, roles[k], letters[k]);
		used += n;
	}
	mvaddch(y, x + 7 + barw, ']' | ui_attr(ROLE_AXIS));
	int tx = x + 8 + barw;
	ui_textf(y, tx, x + w - tx, ui_freq_role(v, c->khz), narrow ? " %5s " : " %8s ", khz);
	tx += fw;
	if (capw) {
		ui_text(y, tx, capw, ROLE_WARN, cap);
		tx += capw;
	}
	fit_pids(c->procs, x + w - tx - govw - 1, pids, sizeof pids);
	ui_textf(y, tx, x + w - tx, ROLE_NORMAL, "%-*s %s", govw, gov, pids);
}

void ui_cpus_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	ui_title(r, "CPUs", "load u/s/w/i | freq [cap] governor pids");
	if (!s || r.h < 2)
		return;
	int rows = r.h - 1, ncol = (s->ncpu + rows - 1) / rows;
	if (ncol < 1)
		ncol = 1;
	if (ncol > r.w / MIN_COLW)
		ncol = r.w / MIN_COLW > 0 ? r.w / MIN_COLW : 1;
	int colw = r.w / ncol, shown = rows * ncol;
	if (shown < s->ncpu)
		shown--;   /* leave the last cell for "+N more" */
	for (int i = 0; i < s->ncpu && i < shown; i++)
		cpu_row(v, &s->cpus[i], r.y + 1 + i % rows, r.x + i / rows * colw, colw - 1);
	if (shown < s->ncpu)
		ui_textf(r.y + r.h - 1, r.x + (ncol - 1) * colw, colw, ROLE_DIM,
		         "+%d more CPUs (wider terminal)", s->ncpu - shown);
}

/* residency.c - per CPU, the share of time at each frequency since start,
 * as a stacked bar coloured low -> high with the biggest shares written
 * out; says so when this machine has no frequency information. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>

static enum theme_role level_role(size_t i, size_t n)
{
	if (n < 2)
		return ROLE_FREQ_MID;
	size_t third = i * 3 / n;
	return third == 0 ? ROLE_FREQ_LO : third == 1 ? ROLE_FREQ_MID : ROLE_FREQ_HI;
}

static void top_shares(const long *khz, const double *secs, size_t n, double total,
                       char *buf, size_t len)
{
	bool used[64] = { 0 };
	size_t off = 0;
	buf[0] = 0;
	for (int k = 0; k < 2; k++) {
		size_t best = n;
		for (size_t i = 0; i < n && i < 64; i++)
			if (!used[i] && (best == n || secs[i] > secs[best]))
				best = i;
		if (best == n || secs[best] <= 0)
			break;
		used[best] = true;
		char f[24];
		ui_fmt_khz(khz[best], f, sizeof(f));
		off += (size_t)snprintf(buf + off, len - off, "%s%s %.0f%%", k ? " " : "",
		                        f, 100 * secs[best] / total);
		if (off >= len)
			break;
	}
}

static void cpu_bar(const struct ui_view *v, int cpu, int y, int x, int w)
{
	const long *khz;
	const double *secs;
	size_t n = v->residency(v->residency_ctx, cpu, false, &khz, &secs);
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += secs[i] > 0 ? secs[i] : 0;
	ui_textf(y, x, 6, ROLE_NORMAL, "cpu%-3d", cpu);
	int barw = w - 32 > 8 ? w - 32 : 8, bx = x + 6;
	if (total <= 0) {
		ui_text(y, bx, w - 6, ROLE_DIM, "no time recorded yet");
		return;
	}
	double acc = 0;
	for (size_t i = 0; i < n; i++) {
		int from = (int)(acc / total * barw + 0.5);
		acc += secs[i] > 0 ? secs[i] : 0;
		int to = (int)(acc / total * barw + 0.5);
		attr_t a = ui_attr(level_role(i, n));
		for (int c = from; c < to; c++)
			mvaddch(y, bx + c, (chtype)(ui_mono ? "123456789"[i % 9] : '#') | a);
	}
	char shares[64];
	top_shares(khz, secs, n, total, shares, sizeof(shares));
	ui_text(y, bx + barw + 1, x + w - bx - barw - 1, ROLE_NORMAL, shares);
}

void ui_residency_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	const char *label = v->residency_label ? v->residency_label : "no cpufreq here (VM?)";
	ui_title(r, "Residency", v->residency ? label : NULL);
	if (!v->residency) {
		ui_text(r.y + 1, r.x + 2, r.w - 3, ROLE_DIM,
		        v->residency_label ? v->residency_label : "no cpufreq here (VM?)");
		return;
	}
	int ncpu = s ? s->ncpu : 0, rows = r.h - 1;
	for (int i = 0; i < ncpu && i < rows; i++) {
		bool last = i == rows - 1 && ncpu > rows;
		if (last)
			ui_textf(r.y + 1 + i, r.x, r.w, ROLE_DIM, "+%d more CPUs", ncpu - i);
		else
			cpu_bar(v, s->cpus[i].id, r.y + 1 + i, r.x, r.w - 1);
	}
}

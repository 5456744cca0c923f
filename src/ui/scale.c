/* scale.c - the graph's y scale, tick labels and legend fitting
 * (uiscale.h).  No curses here, so the unit tests check the arithmetic
 * without a terminal. */
#include "benchtop/uiscale.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double ui_scale_round125(double v)
{
	if (!(v > 0) || !isfinite(v))
		return 1;
	double p = pow(10, floor(log10(v)));
	double m = v / p;
	/* log10 may land a hair off: 0.3/0.1 is 2.9999999999999996 */
	double k = m <= 1 + 1e-9 ? 1 : m <= 2 + 1e-9 ? 2 : m <= 5 + 1e-9 ? 5 : 10;
	return k * p;
}

void ui_scale_fit(double max, int maxticks, struct ui_scale *s)
{
	if (maxticks < 1)
		maxticks = 1;
	if (!(max > 0) || !isfinite(max))
		max = 0;
	double want = max > 0 ? max * 1.1 : 1;
	double step = ui_scale_round125(want / maxticks);
	int n = (int)ceil(want / step - 1e-9);
	while (n > maxticks) {           /* rounding pushed it over: next step */
		step = ui_scale_round125(step * 1.0001);
		n = (int)ceil(want / step - 1e-9);
	}
	if (n < 1)
		n = 1;
	s->step = step;
	s->nticks = n;
	s->top = n * step;
}

int ui_scale_tick_row(const struct ui_scale *s, int k, int rows, int vres)
{
	int ndots = rows * vres;
	int dot = (int)lround(k * s->step / s->top * (ndots - 1));
	return rows - 1 - dot / vres;
}

void ui_scale_fit_rows(double max, int rows, int vres, struct ui_scale *s)
{
	if (vres < 1)
		vres = 1;
	/* at most five ticks, and at most one label every second row */
	int most = rows > 2 ? (rows - 1) / 2 : 1;
	if (most > 5)
		most = 5;
	for (int ticks = most; ticks >= 1; ticks--) {
		ui_scale_fit(max, ticks, s);
		int k = 1;
		for (; k <= s->nticks; k++)
			if (ui_scale_tick_row(s, k - 1, rows, vres) - ui_scale_tick_row(s, k, rows, vres) < 2)
				break;
		if (k > s->nticks)
			return;
	}
}

int ui_scale_fmt(double v, double step, char *buf, size_t len)
{
	int dec = 0;
	if (step > 0 && step < 1)
		dec = (int)ceil(-log10(step) - 1e-9);
	if (dec > 9)
		dec = 9;
	if (fabs(v) < step * 1e-6)
		v = 0;
	return snprintf(buf, len, "%.*f", dec, v);
}

int ui_scale_fmt_value(double v, char *buf, size_t len)
{
	if (!(v >= 0) || !isfinite(v))
		return snprintf(buf, len, "-");
	if (v == 0)
		return snprintf(buf, len, "0");
	if (v >= 99.95)
		return snprintf(buf, len, "%.0f", v);
	if (v >= 9.995)
		return snprintf(buf, len, "%.1f", v);
	if (v >= 0.9995)
		return snprintf(buf, len, "%.2f", v);
	if (v >= 0.0095)
		return snprintf(buf, len, "%.2f", v);
	return snprintf(buf, len, "%.1g", v);
}

static int width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

int ui_legend_item_text(const struct ui_legend_item *it, int level, char *buf, size_t len)
{
	const char *name = level >= 2 && it->abbrev ? it->abbrev : it->name;
	const char *gap = level >= 3 ? "" : " ";
	snprintf(buf, len, "%s%s%s%s%s%s", it->glyph, gap, name,
	         it->flag ? it->flag : "",
	         it->value && *it->value ? " " : "", it->value ? it->value : "");
	return width(buf);
}

int ui_legend_sep(int level)
{
	return level == 0 ? 2 : 1;
}

/* Columns of the first k items at a level, with "+N" when k < n. */
static int need(const struct ui_legend_item *it, int n, int k, int level)
{
	char buf[160];
	int w = 0;
	for (int i = 0; i < k; i++)
		w += ui_legend_item_text(&it[i], level, buf, sizeof buf) + (i ? ui_legend_sep(level) : 0);
	if (k < n)
		w += ui_legend_sep(level) + snprintf(buf, sizeof buf, "+%d", n - k);
	return w;
}

int ui_legend_fit(const struct ui_legend_item *it, int n, int width_, int *level)
{
	for (int l = 0; l < 4; l++)
		if (need(it, n, n, l) <= width_) {
			*level = l;
			return n;
		}
	*level = 3;
	int k = n;
	while (k > 0 && need(it, n, k, 3) > width_)
		k--;
	return k;
}

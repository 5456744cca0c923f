/* graph.c - throughput over time: per workload and total, read and write
 * apart, process-level and device-level lines, event markers.
 *
 * Braille cells (2x4 dots) under UTF-8, three ASCII levels per cell
 * otherwise.  Columns are tied to the absolute sample number, so a new
 * sample only shifts the plot every other tick in braille, and the work per
 * frame depends on the width, never on how much history is kept. */
#include "uipriv.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchtop/units.h"
#include "benchtop/xalloc.h"

#define YLAB 8          /* columns for the y-axis labels */
#define MAX_SERIES 12

struct series {
	const char *name;
	enum theme_role role;
	int wl;             /* workload index, -1 total, -2 disk */
	bool read;
};

struct plot {
	int h, w, vres, spc;        /* rows, columns, dots per row, samples per column */
	uint8_t *bits;              /* h*w dot masks */
	uint8_t *owner;             /* h*w role of the last series that drew there */
	double *col_t;              /* w: time of the first sample in the column */
	int ns;                     /* samples that fit, newest first */
	int *col, *sub;             /* ns: column and sub-column of each */
	double *val;                /* nseries*ns: the plotted values (NAN: gap) */
};

static bool known(double b)
{
	return isfinite(b) && b >= 0;
}

/* A rate in bytes/s, NAN when it was not measured (drawn as a gap). */
static double series_value(const struct snapshot *s, const struct series *se)
{
	if (se->wl == -2) {
		double b = se->read ? s->disk.read_bps : s->disk.write_bps;
		return known(b) ? b : NAN;
	}
	double sum = 0;
	bool any = false;
	for (int i = 0; i < s->nwl; i++) {
		if (se->wl >= 0 && i != se->wl)
			continue;
		double b = se->read ? s->wls[i].read_bps : s->wls[i].write_bps;
		if (known(b)) {
			sum += b;
			any = true;
		}
	}
	return any ? sum : NAN;
}

static int make_series(const struct snapshot *s, struct series *out)
{
	static char names[MAX_SERIES][24];
	int n = 0;
	/* Drawn in this order: later lines own the cells they share. */
	out[n++] = (struct series){ "disk r", ROLE_DISK_READ, -2, true };
	out[n++] = (struct series){ "disk w", ROLE_DISK_WRITE, -2, false };
	if (s->nwl > 1)
		for (int i = 0; i < s->nwl && n < MAX_SERIES - 2; i++) {
			snprintf(names[n], sizeof(names[n]), "w%d", s->wls[i].id);
			out[n] = (struct series){ names[n], ROLE_WL1 + i % THEME_NWL_ROLES, i, false };
			n++;
		}
	out[n++] = (struct series){ "read", ROLE_READ, -1, true };
	out[n++] = (struct series){ "write", ROLE_WRITE, -1, false };
	return n;
}

/* 1, 2, 2.5, 5 times a power of ten, at least v. */
static double nice_ceil(double v)
{
	if (!(v > 0))
		return 1;
	double p = pow(10, floor(log10(v))), m = v / p;
	double k = m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10;
	return k * p;
}

/* Visits the samples that fit, newest first; col < 0 ends. */
static int sample_col(const struct history *h, size_t i, int w, int spc, int *sub)
{
	uint64_t total = history_total(h), len = history_len(h);
	uint64_t a = total - len + i, last = total - 1;
	*sub = (int)(a % (uint64_t)spc);
	return w - 1 - (int)(last / (uint64_t)spc - a / (uint64_t)spc);
}

/* Every series' value at every sample that fits, computed once per
 * frame: the scale and the lines both read them. */
static void cache_values(const struct ui_view *v, const struct series *se, int nser,
                         struct plot *p)
{
	int stride = p->ns;
	size_t len = history_len(v->hist);
	int n = 0;
	for (size_t i = len; i-- > 0 && n < stride;) {
		int sub, col = sample_col(v->hist, i, p->w, p->spc, &sub);
		if (col < 0)
			break;
		const struct snapshot *s = history_at(v->hist, i);
		p->col[n] = col;
		p->sub[n] = sub;
		p->col_t[col] = s->t;
		for (int k = 0; k < nser; k++)
			p->val[(size_t)k * (size_t)stride + (size_t)n] =
				units_rate_value(v->units, series_value(s, &se[k]));
		n++;
	}
	p->ns = n;
}

static double window_max(const struct plot *p, int nser, int stride)
{
	double mx = 0;
	for (int k = 0; k < nser; k++)
		for (int i = 0; i < p->ns; i++) {
			double y = p->val[(size_t)k * (size_t)stride + (size_t)i];
			if (known(y) && y > mx)
				mx = y;
		}
	return nice_ceil(mx);
}

static void set_dot(struct plot *p, int col, int sub, int dot, enum theme_role role)
{
	static const uint8_t braille[2][4] = { { 0x01, 0x02, 0x04, 0x40 },
	                                       { 0x08, 0x10, 0x20, 0x80 } };
	int row = p->h - 1 - dot / p->vres, d = p->vres - 1 - dot % p->vres;
	if (row < 0 || row >= p->h)
		return;
	size_t c = (size_t)row * (size_t)p->w + (size_t)col;
	p->bits[c] |= p->spc == 2 ? braille[sub][d] : (uint8_t)(1u << (p->vres - 1 - d));
	p->owner[c] = (uint8_t)role;
}

/* One series: a dot per sample, joined vertically to the previous one. */
static void plot_series(const double *val, enum theme_role role, struct plot *p, double top)
{
	int ndots = p->h * p->vres, prev = -1;
	for (int i = 0; i < p->ns; i++) {
		double y = val[i];
		if (!known(y)) {
			prev = -1;
			continue;
		}
		int dot = (int)lround(y / top * (ndots - 1));
		dot = dot < 0 ? 0 : dot >= ndots ? ndots - 1 : dot;
		int lo = prev < 0 || prev > dot ? dot : prev, hi = prev > dot ? prev : dot;
		for (int d = lo; d <= hi; d++)
			set_dot(p, p->col[i], p->sub[i], d, role);
		prev = dot;
	}
}

/* One run of drawn cells (no empty cell inside) with one call. */
static void paint_run(const struct plot *p, size_t k, int n, int y, int x)
{
	static const char ascii[8] = { ' ', '.', '-', ':', '\'', '|', '+', '|' };
	if (p->spc == 2) {
		cchar_t cells[512];
		for (int i = 0; i < n; i++) {
			attr_t a = ui_cell_attr(ui_attr(p->owner[k + (size_t)i]));
			wchar_t wc[2] = { 0x2800 + p->bits[k + (size_t)i], 0 };
			setcchar(&cells[i], wc, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
		}
		mvadd_wchnstr(y, x, cells, n);
	} else {
		chtype cells[512];
		for (int i = 0; i < n; i++)
			cells[i] = (chtype)ascii[p->bits[k + (size_t)i] & 7] |
			           ui_cell_attr(ui_attr(p->owner[k + (size_t)i]));
		mvaddchnstr(y, x, cells, n);
	}
}

static void paint(const struct plot *p, int y0, int x0)
{
	for (int r = 0; r < p->h; r++) {
		size_t row = (size_t)r * (size_t)p->w;
		for (int c = 0; c < p->w;) {
			if (!p->bits[row + (size_t)c]) {
				c++;
				continue;
			}
			int e = c;
			while (e < p->w && e - c < 512 && p->bits[row + (size_t)e])
				e++;
			paint_run(p, row + (size_t)c, e - c, y0 + r, x0 + c);
			c = e;
		}
	}
}

static void draw_markers(const struct ui_view *v, const struct plot *p, int y0, int x0)
{
	size_t ne = history_nevents(v->hist);
	attr_t a = ui_attr(ROLE_MARKER);
	double first = p->col_t[0];
	for (size_t i = 0; i < ne; i++) {
		const struct event *e = history_event(v->hist, i);
		if (e->t < first)
			continue;
		int c = 0;
		while (c < p->w && !(p->col_t[c] >= e->t))
			c++;
		if (c >= p->w)
			continue;
		for (int r = 0; r < p->h; r++)
			if (!p->bits[(size_t)r * (size_t)p->w + (size_t)c])
				mvaddch(y0 + r, x0 + c, ACS_VLINE | a);
		const char *lab = e->label[0] ? e->label : e->action;
		ui_textf(y0, x0 + c + 1, p->w - c - 1 < 14 ? p->w - c - 1 : 14, ROLE_MARKER, "%s", lab);
	}
}

static void fmt_axis(double v, char *buf, size_t len)
{
	int prec = v >= 100 || v == floor(v) ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : 3;
	snprintf(buf, len, "%7.*f", prec, v);
}

static uint64_t passes_of(const struct snapshot *s)
{
	uint64_t n = 0;
	for (int i = 0; i < s->nwl; i++)
		n += s->wls[i].passes;
	return n;
}

/* A small tick on the time axis under each sample in which a workload
 * completed a pass (engines loop inside their processes: a pass is not an
 * event, so it gets no marker). */
static void pass_ticks(const struct ui_view *v, const struct plot *p, int y, int x0)
{
	size_t len = history_len(v->hist);
	attr_t a = ui_attr(ROLE_AXIS);
	for (size_t i = len; i-- > 1;) {
		int sub, col = sample_col(v->hist, i, p->w, p->spc, &sub);
		if (col < 0)
			break;
		if (passes_of(history_at(v->hist, i)) > passes_of(history_at(v->hist, i - 1)))
			mvaddch(y, x0 + col, ACS_BTEE | a);
	}
}

static void draw_axes(const struct ui_view *v, const struct plot *p, int y0, int x0, double top)
{
	char b[32];
	for (int r = 0; r < p->h; r += (p->h > 8 ? p->h / 4 : p->h - 1)) {
		fmt_axis(top * (p->h - r) / p->h, b, sizeof(b));
		ui_text(y0 + r, x0 - YLAB, YLAB - 1, ROLE_AXIS, b);
		if (p->h < 2)
			break;
	}
	ui_text(y0 + p->h - 1, x0 - YLAB, YLAB - 1, ROLE_AXIS, "      0");
	/* x axis: seconds of the run under every 12th column */
	attr_t a = ui_attr(ROLE_AXIS);
	attron(a);
	mvhline(y0 + p->h, x0, ACS_HLINE, p->w);
	attroff(a);
	pass_ticks(v, p, y0 + p->h, x0);
	for (int c = p->w - 1; c >= 6; c -= 12)
		if (p->col_t[c] >= 0) {
			snprintf(b, sizeof(b), "%.0fs", p->col_t[c]);
			ui_text(y0 + p->h, x0 + c - (int)strlen(b) + 1, (int)strlen(b), ROLE_AXIS, b);
		}
}

/* The legend on the title rule, newest-drawn series first, each name and
 * value in its line's colour (so w1, w2 ... say which line is which). */
static void legend(const struct ui_view *v, const struct snapshot *s,
                   const struct series *se, int ns, int y, int x, int end)
{
	char buf[96], r[32];
	x = x < end ? x : end;
	x += ui_put(y, x, end - x, ui_attr(ROLE_NORMAL), " ", 1);
	for (int k = ns; k-- > 0 && x < end;) {
		units_fmt_rate(v->units, series_value(s, &se[k]), r, sizeof(r));
		int n = snprintf(buf, sizeof(buf), "%s %s", se[k].name, r);
		x += ui_put(y, x, end - x, ui_attr(se[k].role), buf, (size_t)n);
		x += ui_put(y, x, end - x, ui_attr(ROLE_NORMAL), "  ", 2);
	}
	char d[32], wb[32];
	units_fmt_bytes(v->units, s->disk.dirty, d, sizeof(d));
	units_fmt_bytes(v->units, s->disk.writeback, wb, sizeof(wb));
	int n = snprintf(buf, sizeof(buf), "dirty %s  writeback %s ", d, wb);
	if (x < end)
		ui_put(y, x, end - x, ui_attr(ROLE_DIRTY), buf, (size_t)n);
}

/* Buffers kept from frame to frame, grown as the plot grows. */
static bool plot_alloc(struct plot *p)
{
	static uint8_t *bits, *owner;
	static double *col_t, *val;
	static int *col, *sub;
	static size_t cap, scap;
	size_t need = (size_t)p->h * (size_t)p->w, ns = (size_t)p->w * (size_t)p->spc;
	if (need > cap || (size_t)p->w > cap) {
		size_t n = need > (size_t)p->w ? need : (size_t)p->w;
		uint8_t *b = xrealloc(bits, n), *o = xrealloc(owner, n);
		double *t = xrealloc(col_t, n * sizeof(double));
		bits = b ? b : bits;
		owner = o ? o : owner;
		col_t = t ? t : col_t;
		if (!b || !o || !t)
			return false;
		cap = n;
	}
	if (ns > scap) {
		double *vv = xrealloc(val, ns * MAX_SERIES * sizeof(double));
		int *c = xrealloc(col, ns * sizeof(int)), *sb = xrealloc(sub, ns * sizeof(int));
		val = vv ? vv : val;
		col = c ? c : col;
		sub = sb ? sb : sub;
		if (!vv || !c || !sb)
			return false;
		scap = ns;
	}
	memset(bits, 0, need);
	for (int c = 0; c < p->w; c++)
		col_t[c] = -1;
	p->bits = bits, p->owner = owner, p->col_t = col_t;
	p->val = val, p->col = col, p->sub = sub, p->ns = (int)ns;
	return true;
}

void ui_graph_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	char title[48];
	snprintf(title, sizeof(title), "Throughput %s", units_rate_label(v->units));
	if (!s || r.h < 4) {
		ui_title(r, title, "waiting for the first sample");
		return;
	}
	struct series se[MAX_SERIES];
	int ns = make_series(s, se);
	ui_title(r, title, NULL);
	legend(v, s, se, ns, r.y, r.x + 1 + ui_strwidth(title) + 2, r.x + r.w - 1);
	struct plot p = { .h = r.h - 2, .w = r.w - YLAB - 1,
	                  .vres = ui_utf8 ? 4 : 3, .spc = ui_utf8 ? 2 : 1 };
	if (p.w < 4 || !plot_alloc(&p))
		return;
	int stride = p.ns;
	cache_values(v, se, ns, &p);
	double top = window_max(&p, ns, stride);
	for (int k = 0; k < ns; k++)
		plot_series(p.val + (size_t)k * (size_t)stride, se[k].role, &p, top);
	int y0 = r.y + 1, x0 = r.x + YLAB;
	paint(&p, y0, x0);
	draw_markers(v, &p, y0, x0);
	draw_axes(v, &p, y0, x0, top);
}

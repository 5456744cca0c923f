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
#include "benchtop/uiscale.h"
#include "benchtop/xalloc.h"

#define YLAB 8          /* columns for the y-axis labels */
#define MAX_SERIES 12

struct series {
	const char *name, *abbrev;
	enum theme_role role;
	int wl;             /* workload index, -1 total, -2 disk */
	bool read;
	char glyph;         /* its mark in the plot and legend without colour */
};

struct plot {
	int h, w, vres, dpc;        /* rows, columns, dots per row, dot columns per cell */
	int spd;                    /* samples per dot column (live: 1) */
	uint64_t span;              /* replay: samples of the whole recording */
	bool glyphs;                /* one character per series, no dots (mono) */
	bool from_left;             /* a replay: the recording's start at the left edge */
	uint8_t *bits;              /* h*w dot masks */
	uint8_t *owner;             /* h*w series index + 1 of the last line there */
	uint8_t *clip;              /* w: series index + 1 of a clipped line, 0 none */
	double *col_t;              /* w: time of the newest sample in the column */
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
	out[n++] = (struct series){ "disk r", "dr", ROLE_DISK_READ, -2, true, '+' };
	out[n++] = (struct series){ "disk w", "dw", ROLE_DISK_WRITE, -2, false, '#' };
	if (s->nwl > 1)
		for (int i = 0; i < s->nwl && n < MAX_SERIES - 2; i++) {
			snprintf(names[n], sizeof(names[n]), "w%d", s->wls[i].id);
			out[n] = (struct series){ names[n], names[n], ROLE_WL1 + i % THEME_NWL_ROLES, i,
			                          false, (char)('1' + i % 9) };
			n++;
		}
	out[n++] = (struct series){ "read", "rd", ROLE_READ, -1, true, 'o' };
	out[n++] = (struct series){ "write", "wr", ROLE_WRITE, -1, false, '*' };
	return n;
}

/* ---- the one-scale switch (d) ---- */

static bool one_scale;

bool ui_graph_toggle_scale(void)
{
	one_scale = !one_scale;
	return one_scale;
}

/* Series colours that do not tell the lines apart (the mono theme):
 * then each line is drawn with its own character, as without colour. */
static bool colours_alike(const struct series *se, int n)
{
	if (ui_mono)
		return true;
	for (int i = 0; i < n; i++)
		for (int k = i + 1; k < n; k++)
			if ((ui_attr(se[i].role) & (A_COLOR | A_BOLD)) ==
			    (ui_attr(se[k].role) & (A_COLOR | A_BOLD)))
				return true;
	return false;
}

/* ---- the time axis: which samples are drawn where ---- */

/* The newest sample to draw: the run's last one when every workload has
 * ended (the graph stops there), else the newest. */
static size_t last_drawn(const struct ui_view *v)
{
	const struct history *h = v->hist;
	size_t len = history_len(h), i = len;
	if (!ui_run_done(v))
		return len - 1;
	while (i > 0) {
		const struct snapshot *s = history_at(h, i - 1);
		bool ended = s->nwl > 0;
		for (int k = 0; k < s->nwl && ended; k++)
			ended = s->wls[k].state == WLS_DONE || s->wls[k].state == WLS_FAILED;
		if (!ended)
			break;
		i--;
	}
	return i < len ? i : len - 1;   /* the first sample after the end */
}

/* Column and sub-column of history sample i when sample `last` is drawn
 * in the rightmost dot column; col < 0 when it is off the left. */
static int sample_col(const struct history *h, size_t i, size_t last, const struct plot *p,
                      int *sub)
{
	uint64_t base = history_total(h) - history_len(h);
	uint64_t a = (base + i) / (uint64_t)p->spd, l = (base + last) / (uint64_t)p->spd;
	uint64_t dc = (uint64_t)p->dpc;
	*sub = (int)(a % dc);
	if (p->from_left) {   /* the whole recording spread over the width */
		uint64_t dots = (uint64_t)p->w * dc, d = (base + i) * dots / (p->span ? p->span : 1);
		d = d < dots ? d : dots - 1;
		*sub = (int)(d % dc);
		return (int)(d / dc);
	}
	return p->w - 1 - (int)(l / dc - a / dc);
}

/* Samples per dot column: 1 live; in a replay, enough for the whole
 * recording (v->span_samples) to fit the width (a short recording is
 * spread over it instead: sample_col). */
static int samples_per_dot(const struct ui_view *v, int w, int dpc)
{
	size_t n = v->replay && v->span_samples ? v->span_samples : 0;
	size_t dots = (size_t)w * (size_t)dpc;
	return n > dots ? (int)((n + dots - 1) / dots) : 1;
}

/* Every series' value at every sample that fits, computed once per
 * frame: the scale and the lines both read them.  With several samples
 * in one dot column, the newest of them is drawn. */
static void cache_values(const struct ui_view *v, const struct series *se, int nser,
                         struct plot *p)
{
	int stride = p->ns, n = 0, prevc = -1, prevs = -1;
	size_t last = last_drawn(v);
	for (size_t i = last + 1; i-- > 0 && n < stride;) {
		int sub, col = sample_col(v->hist, i, last, p, &sub);
		if (col < 0)
			break;
		if (col == prevc && sub == prevs)
			continue;
		prevc = col, prevs = sub;
		const struct snapshot *s = history_at(v->hist, i);
		p->col[n] = col;
		p->sub[n] = sub;
		if (p->col_t[col] < 0)
			p->col_t[col] = s->t;
		for (int k = 0; k < nser; k++)
			p->val[(size_t)k * (size_t)stride + (size_t)n] =
				units_rate_value(v->units, series_value(s, &se[k]));
		n++;
	}
	p->ns = n;
}

/* The largest value the scale must hold: the workload series only,
 * unless one scale for all was asked for. */
static double window_max(const struct plot *p, const struct series *se, int nser, int stride)
{
	double mx = 0;
	for (int k = 0; k < nser; k++) {
		if (se[k].wl == -2 && !one_scale)
			continue;
		for (int i = 0; i < p->ns; i++) {
			double y = p->val[(size_t)k * (size_t)stride + (size_t)i];
			if (known(y) && y > mx)
				mx = y;
		}
	}
	return mx;
}

static void set_dot(struct plot *p, int col, int sub, int dot, int owner)
{
	static const uint8_t braille[2][4] = { { 0x01, 0x02, 0x04, 0x40 },
	                                       { 0x08, 0x10, 0x20, 0x80 } };
	int row = p->h - 1 - dot / p->vres, d = p->vres - 1 - dot % p->vres;
	if (row < 0 || row >= p->h)
		return;
	size_t c = (size_t)row * (size_t)p->w + (size_t)col;
	p->bits[c] |= p->dpc == 2 ? braille[sub][d] : (uint8_t)(1u << (p->vres - 1 - d));
	p->owner[c] = (uint8_t)owner;
}

/* Dots lo..hi (either order) in dot column x. */
static void dot_span(struct plot *p, int x, int a, int b, int owner)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;
	for (int d = lo; d <= hi; d++)
		set_dot(p, x / p->dpc, x % p->dpc, d, owner);
}

/* One series: a dot per sample, joined to the previous one (vertically
 * in the next dot column; samples spread further apart, as a short
 * recording is over a replay's width, by a line through the columns
 * between); a value over the top is drawn at the top and marked clipped. */
static void plot_series(const double *val, int owner, struct plot *p, double top)
{
	int ndots = p->h * p->vres, prev = -1, prevx = 0;
	for (int i = 0; i < p->ns; i++) {
		double y = val[i];
		if (!known(y)) {
			prev = -1;
			continue;
		}
		if (y > top * 1.0001)
			p->clip[p->col[i]] = (uint8_t)owner;
		int dot = (int)lround(y / top * (ndots - 1));
		dot = dot < 0 ? 0 : dot >= ndots ? ndots - 1 : dot;
		int x = p->col[i] * p->dpc + p->sub[i], gap = abs(x - prevx);
		if (prev >= 0 && gap > 1) {
			int step = x > prevx ? 1 : -1;
			for (int k = 1; k < gap; k++) {
				int y = (int)lround(prev + (double)(dot - prev) * k / gap);
				dot_span(p, prevx + k * step, prev, y, owner);
				prev = y;
			}
		}
		dot_span(p, x, prev < 0 ? dot : prev, dot, owner);
		prev = dot;
		prevx = x;
	}
}

/* One run of drawn cells (no empty cell inside) with one call. */
static void paint_run(const struct plot *p, const struct series *se, size_t k, int n,
                      int y, int x)
{
	static const char ascii[8] = { ' ', '.', '-', ':', '\'', '|', '+', '|' };
	if (p->dpc == 2 && !p->glyphs) {
		cchar_t cells[512];
		for (int i = 0; i < n; i++) {
			attr_t a = ui_cell_attr(ui_attr(se[p->owner[k + (size_t)i] - 1].role));
			wchar_t wc[2] = { 0x2800 + p->bits[k + (size_t)i], 0 };
			setcchar(&cells[i], wc, a & ~A_COLOR, (short)PAIR_NUMBER(a), NULL);
		}
		mvadd_wchnstr(y, x, cells, n);
	} else {
		chtype cells[512];
		for (int i = 0; i < n; i++) {
			const struct series *s = &se[p->owner[k + (size_t)i] - 1];
			chtype ch = p->glyphs ? (chtype)(unsigned char)s->glyph
			                      : (chtype)ascii[p->bits[k + (size_t)i] & 7];
			cells[i] = ch | ui_cell_attr(ui_attr(s->role));
		}
		mvaddchnstr(y, x, cells, n);
	}
}

static void paint(const struct plot *p, const struct series *se, int y0, int x0)
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
			paint_run(p, se, row + (size_t)c, e - c, y0 + r, x0 + c);
			c = e;
		}
	}
	/* clipped lines: an up-arrow in the top row */
	for (int c = 0; c < p->w; c++)
		if (p->clip[c])
			ui_wch(y0, x0 + c, 0x2191, '^', ui_attr(se[p->clip[c] - 1].role));
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
	size_t last = last_drawn(v);
	attr_t a = ui_attr(ROLE_AXIS);
	for (size_t i = last + 1; i-- > 1;) {
		int sub, col = sample_col(v->hist, i, last, p, &sub);
		if (col < 0)
			break;
		if (col >= p->w)
			continue;
		if (passes_of(history_at(v->hist, i)) > passes_of(history_at(v->hist, i - 1)))
			mvaddch(y, x0 + col, ACS_BTEE | a);
	}
}

/* A time label: seconds up to 10 minutes, then minutes (and seconds). */
static int fmt_time(double t, char *b, size_t len)
{
	long s = lround(t);
	if (s < 600)
		return snprintf(b, len, "%lds", s);
	return s % 60 ? snprintf(b, len, "%ldm%02ld", s / 60, s % 60) : snprintf(b, len, "%ldm", s / 60);
}

/* Time labels at round seconds (1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15,
 * 30 min, 1 h ...), about every 10 columns or more, each under the column its
 * time falls in and never over another label. */
static void time_ticks(const struct plot *p, int y, int x0)
{
	static const double steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
	                                7200, 21600, 43200, 86400 };
	int first = 0;
	while (first < p->w && p->col_t[first] < 0)
		first++;
	if (p->w - first < 2)
		return;
	double t0 = p->col_t[first], t1 = p->col_t[p->w - 1];
	double per_col = (t1 - t0) / (p->w - 1 - first);
	if (per_col <= 0)
		return;
	size_t k = 0, ns = sizeof steps / sizeof *steps;
	while (k + 1 < ns && steps[k] < per_col * 10)
		k++;
	/* a window too short for one such time: the next smaller step */
	while (k > 0 && floor(t1 / steps[k]) * steps[k] < t0 - 1e-9)
		k--;
	double step = steps[k];
	int right = p->w;   /* labels are placed right to left */
	char b[32];
	for (double t = floor(t1 / step) * step; t >= t0 - 1e-9; t -= step) {
		int c = first;
		while (c < p->w && p->col_t[c] < t - 1e-9)
			c++;
		if (c >= p->w)
			continue;
		int n = fmt_time(t, b, sizeof b), at = c - n + 1;
		if (at < 0 || at + n > right)
			continue;
		ui_text(y, x0 + at, n, ROLE_AXIS, b);
		right = at - 1;
	}
}

/* Tick labels at round values (1, 2 or 5 times a power of ten), each on
 * the row its value is drawn at (ui_scale_fit_rows leaves each two rows
 * from the next; a row too close would be skipped, never overdrawn). */
static void draw_axes(const struct ui_view *v, const struct plot *p, int y0, int x0,
                      const struct ui_scale *sc)
{
	char b[32];
	int last_row = p->h;
	for (int k = 0; k <= sc->nticks; k++) {
		double v = k * sc->step;
		int row = ui_scale_tick_row(sc, k, p->h, p->vres);
		if (row < 0 || (k > 0 && last_row - row < 2))
			continue;
		int n = ui_scale_fmt(v, sc->step, b, sizeof(b));
		ui_text(y0 + row, x0 - YLAB + (n < YLAB - 1 ? YLAB - 1 - n : 0), YLAB - 1, ROLE_AXIS, b);
		last_row = row;
	}
	/* x axis: seconds of the run under every 12th column */
	attr_t a = ui_attr(ROLE_AXIS);
	attron(a);
	mvhline(y0 + p->h, x0, ACS_HLINE, p->w);
	attroff(a);
	pass_ticks(v, p, y0 + p->h, x0);
	time_ticks(p, y0 + p->h, x0);
}

/* The legend row: every series with its colour (or glyph), its name and
 * its current value in the graph's unit, an up-arrow after a line over the
 * scale, then dirty/writeback memory; shortened as a whole, never cut. */
static void legend(const struct ui_view *v, const struct snapshot *s, const struct series *se,
                   int ns, const struct plot *p, double top, int y, int x, int w)
{
	struct ui_legend_item it[MAX_SERIES + 1];
	char vals[MAX_SERIES + 1][24], glyphs[MAX_SERIES][4];
	enum theme_role roles[MAX_SERIES + 1];
	int n = 0;
	for (int k = ns; k-- > 0;) {
		double val = units_rate_value(v->units, series_value(s, &se[k]));
		ui_scale_fmt_value(val, vals[n], sizeof(vals[n]));
		if (p->glyphs || !ui_utf8)
			snprintf(glyphs[n], sizeof(glyphs[n]), "%c", p->glyphs ? se[k].glyph : '#');
		else
			snprintf(glyphs[n], sizeof(glyphs[n]), "\xe2\x96\xa0");   /* U+25A0 */
		bool over = se[k].wl == -2 && known(val) && val > top * 1.0001;
		it[n] = (struct ui_legend_item){ glyphs[n], se[k].name, se[k].abbrev, vals[n],
		                                 over ? (ui_utf8 ? "\xe2\x86\x91" : "^") : NULL };
		roles[n++] = se[k].role;
	}
	char d[24], wb[24];
	units_fmt_bytes(v->units, s->disk.dirty, d, sizeof(d));
	units_fmt_bytes(v->units, s->disk.writeback, wb, sizeof(wb));
	char dirty[56];
	snprintf(dirty, sizeof(dirty), "%s/%s", d, wb);
	it[n] = (struct ui_legend_item){ "", "dirty/wb", "dty/wb", dirty, NULL };
	roles[n++] = ROLE_DIRTY;
	int level, shown = ui_legend_fit(it, n, w, &level);
	char buf[160];
	int end = x + w;
	for (int i = 0; i < shown && x < end; i++) {
		int len = ui_legend_item_text(&it[i], level, buf, sizeof(buf));
		if (it[i].glyph[0]) {   /* the glyph in the line's colour, the rest plain */
			int gl = (int)strlen(it[i].glyph);
			ui_put(y, x, end - x, ui_attr(roles[i]), buf, (size_t)gl);
			ui_put(y, x + 1, end - x - 1, ui_attr(p->glyphs ? ROLE_NORMAL : roles[i]),
			       buf + gl, strlen(buf + gl));
		} else {
			ui_put(y, x, end - x, ui_attr(roles[i]), buf, strlen(buf));
		}
		x += len + ui_legend_sep(level);
	}
	if (shown < n)
		ui_textf(y, x, end - x, ROLE_DIM, "+%d", n - shown);
}

/* ---- event markers ---- */

struct mark_kind { enum theme_role role; wchar_t line; char ascii_line; const char *head, *ascii_head; };

/* Each mark of event (EVENT_MARKS) has its own colour, line and head glyph. */
static const struct mark_kind marks[MARK_N] = {
	[MARK_USER] = { ROLE_MARKER, 0x2502, '|', "\xe2\x97\x86", "*" },
	[MARK_PLACE] = { ROLE_MARK_PLACE, 0x2506, ':', "\xe2\x96\xb6", ">" },
	[MARK_FREQ] = { ROLE_MARK_FREQ, 0x254e, '!', "~", "~" },
	[MARK_PAUSE] = { ROLE_MARK_PAUSE, 0x250a, '.', "\xe2\x80\x96", "=" },
	[MARK_END] = { ROLE_MARK_END, 0x2503, '#', "\xe2\x96\xa0", "#" },
};

static const struct mark_kind *kind_of(const struct event *e)
{
	return &marks[event_kind_mark(e->kind)];
}

void ui_graph_legend(char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = 0;
	for (int m = 0; m < MARK_N && k < len; m++) {
		const struct mark_kind *g = &marks[m];
		bool same = !strcmp(g->head, g->ascii_head);
		int n = snprintf(buf + k, len - k, "%s%s%s %s", m ? "  " : "", g->head, same ? "" : g->ascii_head,
		                 event_mark_words((enum event_mark)m));
		if (n < 0)
			break;
		k += (size_t)n;
	}
}

/* The column an event falls in, -1 when it is outside the window. */
static int event_col(const struct plot *p, double t)
{
	if (p->ns == 0)
		return -1;
	/* columns without a sample (a window not yet filled) have no time */
	int first = 0;
	while (first < p->w && p->col_t[first] < 0)
		first++;
	if (first == p->w || t < p->col_t[first] - 1e-9)
		return -1;
	for (int c = first; c < p->w; c++)
		if (p->col_t[c] >= t - 1e-9)
			return c;
	return -1;
}

#define LABEL_ROWS 2
#define STRIP_MAX 64

/* Whether columns [at, at + len) hold another marker's line. */
static bool covers_line(const int *cols, int n, int own, int at, int len)
{
	for (int i = 0; i < n; i++)
		if (cols[i] != own && cols[i] >= at && cols[i] < at + len)
			return true;
	return false;
}

/* Markers: a line in the kind's colour and glyph over the empty cells of
 * the event's column; then each label beside its line (right, else left)
 * on one of the top rows where it touches no other label and covers no
 * other marker's line.  The ones that fit nowhere are returned (oldest
 * first) for the event strip. */
static int draw_markers(const struct ui_view *v, const struct plot *p, int y0, int x0,
                        const struct event **cut)
{
	size_t ne = history_nevents(v->hist);
	int rows = p->h >= 6 ? LABEL_ROWS : 1, ncut = 0, n = 0;
	static int *cols;
	static const struct event **evs;
	static size_t cap;
	if (ne > cap) {
		cols = xreallocarray(cols, ne, sizeof *cols);
		evs = xreallocarray(evs, ne, sizeof *evs);
		cap = ne;
	}
	for (size_t i = 0; i < ne; i++) {
		const struct event *e = history_event(v->hist, i);
		int c = event_col(p, e->t);
		if (c < 0)
			continue;
		const struct mark_kind *k = kind_of(e);
		attr_t a = ui_attr(k->role);
		for (int r = 0; r < p->h; r++)
			if (!p->bits[(size_t)r * (size_t)p->w + (size_t)c])
				ui_wch(y0 + r, x0 + c, k->line, k->ascii_line, a);
		cols[n] = c;
		evs[n++] = e;
	}
	/* cells taken by labels, per row: a label keeps a blank column on
	 * each side */
	char taken[LABEL_ROWS][1024] = { { 0 } };
	int w = p->w < 1024 ? p->w : 1024;
	for (int i = 0; i < n; i++) {
		const struct event *e = evs[i];
		const struct mark_kind *k = kind_of(e);
		char lab[MODEL_LABEL_LEN + 8];
		snprintf(lab, sizeof(lab), "%s%s", ui_utf8 ? k->head : k->ascii_head, event_shown(e));
		int len = ui_strwidth(lab), c = cols[i];
		bool placed = false;
		for (int r = 0; r < rows && !placed; r++) {
			for (int side = 0; side < 2 && !placed; side++) {
				int at = side == 0 ? c + 1 : c - len;
				if (at < 0 || at + len > w || covers_line(cols, n, c, at, len))
					continue;
				bool free = true;
				for (int x = at > 0 ? at - 1 : 0; x < at + len + 1 && x < w && free; x++)
					free = !taken[r][x];
				if (!free)
					continue;
				memset(&taken[r][at], 1, (size_t)len);
				ui_text(y0 + r, x0 + at, len, k->role, lab);
				placed = true;
			}
		}
		if (!placed && ncut < STRIP_MAX)
			cut[ncut++] = e;
	}
	return ncut;
}

/* The event strip under the axis: the markers whose label did not fit,
 * newest first, each with its time, whole entries only. */
static void draw_strip(const struct event **cut, int ncut, int y, int x, int w)
{
	int end = x + w;
	for (int i = ncut; i-- > 0;) {
		const struct mark_kind *k = kind_of(cut[i]);
		char buf[MODEL_LABEL_LEN + 32];
		snprintf(buf, sizeof(buf), "%.1fs %s%s", cut[i]->t, ui_utf8 ? k->head : k->ascii_head,
		         event_shown(cut[i]));
		int len = ui_strwidth(buf), more = i > 0 ? 4 : 0;
		if (x + len + more > end) {
			ui_textf(y, x, end - x, ROLE_DIM, "+%d", i + 1);
			return;
		}
		ui_text(y, x, len, k->role, buf);
		x += len + 2;
	}
}

/* Buffers kept from frame to frame, grown as the plot grows. */
static bool plot_alloc(struct plot *p)
{
	static uint8_t *bits, *owner, *clip;
	static double *col_t, *val;
	static int *col, *sub;
	static size_t cap, scap;
	size_t need = (size_t)p->h * (size_t)p->w, ns = (size_t)p->w * (size_t)p->dpc;
	if (need > cap || (size_t)p->w > cap) {
		size_t n = need > (size_t)p->w ? need : (size_t)p->w;
		bits = xrealloc(bits, n);
		owner = xrealloc(owner, n);
		clip = xrealloc(clip, n);
		col_t = xrealloc(col_t, n * sizeof(double));
		cap = n;
	}
	if (ns > scap) {
		val = xrealloc(val, ns * MAX_SERIES * sizeof(double));
		col = xrealloc(col, ns * sizeof(int));
		sub = xrealloc(sub, ns * sizeof(int));
		scap = ns;
	}
	memset(bits, 0, need);
	memset(clip, 0, (size_t)p->w);
	for (int c = 0; c < p->w; c++)
		col_t[c] = -1;
	p->bits = bits, p->owner = owner, p->clip = clip, p->col_t = col_t;
	p->val = val, p->col = col, p->sub = sub, p->ns = (int)ns;
	return true;
}

/* Rows: title rule, legend, the plot, the time axis, the event strip. */
void ui_graph_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	char title[48];
	snprintf(title, sizeof(title), "Throughput %s", units_rate_label(v->units));
	if (!s || r.h < 6) {
		ui_title(r, title, "waiting for the first sample");
		return;
	}
	ui_title(r, title, one_scale ? "one scale for all lines (d: fit the workloads)"
	                             : "scaled to the workloads, disk lines clipped (d: one scale)");
	struct series se[MAX_SERIES];
	int ns = make_series(s, se);
	struct plot p = { .h = r.h - 4, .w = r.w - YLAB - 1, .vres = ui_utf8 ? 4 : 3,
	                  .dpc = ui_utf8 ? 2 : 1, .glyphs = colours_alike(se, ns) };
	if (p.glyphs)
		p.vres = 1, p.dpc = 1;
	p.spd = samples_per_dot(v, p.w, p.dpc);
	p.from_left = v->replay && v->span_samples > 0;
	p.span = v->span_samples;
	if (p.w < 4 || !plot_alloc(&p))
		return;
	int stride = p.ns;
	cache_values(v, se, ns, &p);
	struct ui_scale sc;
	ui_scale_fit_rows(window_max(&p, se, ns, stride), p.h, p.vres, &sc);
	for (int k = 0; k < ns; k++)
		plot_series(p.val + (size_t)k * (size_t)stride, k + 1, &p, sc.top);
	int y0 = r.y + 2, x0 = r.x + YLAB;
	legend(v, s, se, ns, &p, sc.top, r.y + 1, r.x + 1, r.w - 2);
	paint(&p, se, y0, x0);
	const struct event *cut[STRIP_MAX];
	int ncut = draw_markers(v, &p, y0, x0, cut);
	draw_axes(v, &p, y0, x0, &sc);
	draw_strip(cut, ncut, y0 + p.h + 1, r.x + 1, r.w - 2);
}

/* residency.c - per CPU, the share of time at each frequency: since start
 * and, where the panel is wide enough, since the last event beside it.
 * Each is a stacked bar coloured low -> high, the mean effective frequency
 * (sum khz*secs / sum secs) and the biggest shares written out.  Says so
 * when this machine has no frequency information. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>

#define LEFT 6          /* "cpu0  " */
#define MIN_BAR 6
#define BLOCK_MIN 33    /* one period: bar, " avg 2.06 GHz", one share */
#define MAX_LEVELS 64

/* One CPU's rows for one period, with their sum and mean. */
struct period {
	const long *khz;
	const double *secs;
	size_t n;
	double total;
	long mean;      /* kHz, -1 when no time was recorded */
};

/* The machine's lowest and highest frequency: the colour ramp is fixed
 * between them, so one frequency has one colour in every bar. */
static long ramp_lo = -1, ramp_hi = -1;

static void ramp_of(const struct ui_view *v, const struct snapshot *s)
{
	ramp_lo = ramp_hi = -1;
	if (v->nfreqs > 0) {
		ramp_lo = v->freqs[0];
		ramp_hi = v->freqs[v->nfreqs - 1];
		return;
	}
	for (int c = 0; s && c < s->ncpu; c++) {
		const long *khz;
		const double *secs;
		size_t n = v->residency(v->residency_ctx, s->cpus[c].id, false, &khz, &secs);
		for (size_t i = 0; i < n; i++) {
			if (ramp_lo < 0 || khz[i] < ramp_lo)
				ramp_lo = khz[i];
			if (khz[i] > ramp_hi)
				ramp_hi = khz[i];
		}
	}
}

enum theme_role ui_freq_role(const struct ui_view *v, long khz)
{
	if (khz < 0 || v->nfreqs == 0)
		return ROLE_NORMAL;
	long lo = v->freqs[0], hi = v->freqs[v->nfreqs - 1];
	if (hi <= lo)
		return ROLE_FREQ_MID;
	double pos = (double)(khz - lo) / (double)(hi - lo);
	return pos < 1.0 / 3 ? ROLE_FREQ_LO : pos < 2.0 / 3 ? ROLE_FREQ_MID : ROLE_FREQ_HI;
}

/* 0, 1 or 2: the third of the ramp a frequency is in. */
static int band_of(long khz)
{
	if (ramp_hi <= ramp_lo)
		return 1;
	double pos = (double)(khz - ramp_lo) / (double)(ramp_hi - ramp_lo);
	return pos < 1.0 / 3 ? 0 : pos < 2.0 / 3 ? 1 : 2;
}

static enum theme_role level_role(long khz)
{
	static const enum theme_role roles[3] = { ROLE_FREQ_LO, ROLE_FREQ_MID, ROLE_FREQ_HI };
	return roles[band_of(khz)];
}

static void period_of(const struct ui_view *v, int cpu, bool since_event, struct period *p)
{
	p->n = v->residency(v->residency_ctx, cpu, since_event, &p->khz, &p->secs);
	double sum = 0;
	p->total = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->secs[i] > 0) {
			p->total += p->secs[i];
			sum += (double)p->khz[i] * p->secs[i];
		}
	p->mean = p->total > 0 ? (long)(sum / p->total + 0.5) : -1;
}

/* The bar: runs of one level, each written with one call. */
static void bar(const struct period *p, int y, int x, int w)
{
	static char hashes[41], fulls[41 * 3], digits[9][41];
	if (!hashes[0]) {
		memset(hashes, '#', 40);
		for (int i = 0; i < 40; i++)
			memcpy(fulls + 3 * i, "\xe2\x96\x88", 3);   /* U+2588 full block */
		for (int d = 0; d < 9; d++)
			memset(digits[d], '1' + d, 40);
	}
	int cw = !ui_mono && ui_utf8 ? 3 : 1;   /* bytes per cell */
	double acc = 0;
	for (size_t i = 0; i < p->n; i++) {
		int from = (int)(acc / p->total * w + 0.5);
		acc += p->secs[i] > 0 ? p->secs[i] : 0;
		int to = (int)(acc / p->total * w + 0.5);
		if (to <= from)
			continue;
		/* mono: the band's digit, so the split reads without colour */
		const char *run = ui_mono ? digits[band_of(p->khz[i])] : ui_utf8 ? fulls : hashes;
		ui_put(y, x + from, to - from, ui_attr(level_role(p->khz[i])), run,
		       (size_t)((to - from) * cw));
	}
}

/* The biggest shares, "2.60 GHz 48%", each in its level's colour, as many as
 * fit in w columns. */
static void shares(const struct period *p, int y, int x, int w)
{
	bool used[MAX_LEVELS] = { 0 };
	size_t n = p->n < MAX_LEVELS ? p->n : MAX_LEVELS;
	for (;;) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (!used[i] && (best == n || p->secs[i] > p->secs[best]))
				best = i;
		if (best == n || p->secs[best] <= 0)
			return;
		used[best] = true;
		char f[24], s[40];
		ui_fmt_khz(p->khz[best], f, sizeof(f), UI_KHZ_FULL);
		int len = snprintf(s, sizeof(s), " %s %.0f%%", f, 100 * p->secs[best] / p->total);
		if (len > w)
			return;
		ui_text(y, x, len, ui_mono ? ROLE_NORMAL : level_role(p->khz[best]), s);
		x += len, w -= len;
	}
}

/* One period in w columns: bar, mean, shares. */
static void block(const struct period *p, int y, int x, int w, const char *empty)
{
	if (p->total <= 0) {
		ui_text(y, x, w, ROLE_DIM, empty);
		return;
	}
	/* 27 columns for the mean and one share (" avg 1.60 GHz 1.60 GHz
	 * 100%"); a second and a third share when the bar keeps 12. */
	int barw = w - 27;
	for (int k = 1; k <= 2 && w - 27 - 14 * k >= 12; k++)
		barw = w - 27 - 14 * k;
	barw = barw < MIN_BAR ? MIN_BAR : barw > 40 ? 40 : barw;
	bar(p, y, x, barw);
	char m[24];
	ui_fmt_khz(p->mean, m, sizeof(m), UI_KHZ_FULL);
	int tx = x + barw;
	ui_textf(y, tx, x + w - tx, ROLE_NORMAL, " avg %s", m);
	tx += 5 + ui_strwidth(m);
	shares(p, y, tx, x + w - tx);
}

static int nblocks(int w)
{
	return w - LEFT >= 2 * BLOCK_MIN + 1 ? 2 : 1;
}

static void cpu_row(const struct ui_view *v, int cpu, int y, int x, int w)
{
	struct period p;
	ui_textf(y, x, LEFT, ROLE_NORMAL, "cpu%-3d", cpu);
	int nb = nblocks(w), bw = (w - LEFT - (nb - 1)) / nb;
	period_of(v, cpu, false, &p);
	block(&p, y, x + LEFT, bw, "no time recorded yet");
	if (nb < 2)
		return;
	period_of(v, cpu, true, &p);
	/* a replay shows the phase in progress from the end record once the
	 * recording has ended: a phase shorter than the kernel's count of
	 * time (10 ms, or a slow tree's tick) may have none */
	block(&p, y, x + LEFT + bw + 1, bw, v->replay ? "no time recorded since the event" : "no time since the event yet");
}

/* The ramp's legend at the right end of the title: each colour (a digit
 * without colour) with the highest frequency it stands for ("<=" left
 * out when compact).  Returns its width (0 when there is no ramp). */
static int ramp_legend(struct rect r, bool draw, bool compact)
{
	if (ramp_hi <= ramp_lo)
		return 0;
	static const enum theme_role roles[3] = { ROLE_FREQ_LO, ROLE_FREQ_MID, ROLE_FREQ_HI };
	long top[3] = { ramp_lo + (ramp_hi - ramp_lo) / 3, ramp_lo + (ramp_hi - ramp_lo) * 2 / 3, ramp_hi };
	char txt[3][16];
	int w = 1;
	for (int i = 0; i < 3; i++) {
		char f[12];
		ui_fmt_khz(top[i], f, sizeof(f), UI_KHZ_TINY);
		snprintf(txt[i], sizeof(txt[i]), "%s%s ", compact ? "" : ui_utf8 ? "\xe2\x89\xa4" : "<=", f);
		w += 1 + ui_strwidth(txt[i]);
	}
	if (!draw)
		return w;
	int x = r.x + r.w - 1 - w;
	x += ui_put(r.y, x, 1, ui_attr(ROLE_NORMAL), " ", 1);
	for (int i = 0; i < 3; i++) {
		char mark[4] = { (char)('1' + i), 0 };
		if (!ui_mono)
			snprintf(mark, sizeof(mark), "%s", ui_utf8 ? "\xe2\x96\x88" : "#");
		x += ui_put(r.y, x, 1, ui_attr(roles[i]), mark, strlen(mark));
		x += ui_put(r.y, x, ui_strwidth(txt[i]), ui_attr(ROLE_NORMAL), txt[i], strlen(txt[i]));
	}
	return w;
}

/* The second block's heading in form 0 (whole) to 3 (shortest). */
static void since_text(const struct ui_view *v, const struct event *e, int form, char *h, size_t len)
{
	const char *name = e ? event_shown(e) : "";
	if (!e)
		snprintf(h, len, form == 0 ? " since last event (none yet) " : form == 1 ? " since an event (none yet) " :
		         " no event yet ");
	else if (form == 0)
		snprintf(h, len, " since %s %.0fs ago ", name, v->elapsed > e->t ? v->elapsed - e->t : 0.0);
	else
		snprintf(h, len, " since %s ", form == 1 ? name : form == 2 ? "the event" : "event");
}

/* Where the title's parts go: the source's name (label), the legend
 * (compact or not), the first block's heading or not, and the second
 * block's heading (form, at x; -1: none). */
struct title_fit { const char *label; bool compact, start; int lw, form, at; };

/* The first layout, best first, where the second block's heading fits
 * whole beside the legend: the legend compact before the heading loses
 * its time; the source's name to its first words, or the first block's
 * heading left out (the second says since what), before the heading
 * loses the event's name; the source's name left out last.  Else no
 * second heading. */
static struct title_fit fit_title(const struct ui_view *v, struct rect r, const char *label,
                                  char *shortl, size_t slen, const struct event *e, int bx)
{
	snprintf(shortl, slen, "%.*s", (int)strcspn(label, ","), label);
	/* form, label (0 whole, 1 first words, 2 none), compact, start */
	static const struct { int form, label; bool compact, start; } lay[] = {
		{ 0, 0, false, true }, { 0, 0, true, true }, { 1, 0, false, true }, { 1, 0, true, true },
		{ 1, 1, true, true }, { 1, 1, true, false }, { 2, 1, true, true }, { 3, 1, true, true },
		{ 2, 1, true, false }, { 1, 2, true, false }, { 3, 2, true, false },
	};
	const char *labels[3] = { label, shortl, "" };
	char h[160];
	for (size_t k = 0; k < sizeof lay / sizeof *lay; k++) {
		struct title_fit f = { labels[lay[k].label], lay[k].compact, lay[k].start, 0, lay[k].form, 0 };
		since_text(v, e, f.form, h, sizeof h);
		f.lw = ramp_legend(r, false, f.compact);
		int x = r.x + 1 + ui_strwidth("Residency") + (f.label[0] ? 2 + ui_strwidth(f.label) : 0) + 3;
		int xmin = (x < r.x + LEFT ? r.x + LEFT : x) + (f.start ? ui_strwidth(" since start ") : 1);
		int limit = r.x + r.w - 1 - f.lw - 1;
		int w = ui_strwidth(h), at = bx + w <= limit ? bx : limit - w;
		if (at >= xmin) {
			f.at = at;
			return f;
		}
	}
	return (struct title_fit){ label, false, true, ramp_legend(r, false, false), -1, 0 };
}

/* The title: the source, and what each block covers ("since start",
 * "since spread 12s ago") over the blocks where there is room. */
static void title(const struct ui_view *v, struct rect r, const char *label)
{
	int nb = nblocks(r.w - 1), bw = (r.w - 1 - LEFT - (nb - 1)) / nb;
	int lw = ramp_legend(r, false, false);
	/* a narrow panel: the colour legend before the source's name (the
	 * help names it) */
	if (nb < 2 && lw > 0 && 1 + ui_strwidth("Residency") + 2 + ui_strwidth(label) + 3 + lw >= r.w &&
	    1 + ui_strwidth("Residency") + 3 + lw < r.w) {
		ui_title(r, "Residency", "");
		ramp_legend(r, true, false);
		return;
	}
	size_t ne = v->hist ? history_nevents(v->hist) : 0;
	const struct event *e = ne ? history_event(v->hist, ne - 1) : NULL;
	int bx = r.x + LEFT + bw + 1;
	char shortl[64], h[160];
	struct title_fit f = { label, false, true, lw, 0, bx };
	if (nb >= 2 && lw > 0)
		f = fit_title(v, r, label, shortl, sizeof shortl, e, bx);
	ui_title(r, "Residency", f.label);
	int x = r.x + 1 + ui_strwidth("Residency") + (f.label[0] ? 2 + ui_strwidth(f.label) : 0) + 3;
	if (x < r.x + LEFT)
		x = r.x + LEFT;
	int n = snprintf(h, sizeof(h), " since start ");
	if (nb < 2) {
		/* one block: the colour legend before the words "since start"
		 * (the only block is since the start) */
		if (lw == 0 || x + n + lw < r.x + r.w)
			ui_text(r.y, x, r.x + r.w - x, ROLE_DIM, h);
		if (lw > 0 && x + lw < r.x + r.w)
			ramp_legend(r, true, false);
		return;
	}
	if (f.start)
		ui_text(r.y, x, r.x + r.w - x, ROLE_DIM, h);
	else
		n = 0;
	if (f.form >= 0) {
		since_text(v, e, f.form, h, sizeof h);
		/* without a legend to keep room for: over its block, as it fits */
		int at = lw ? f.at : bx > x + n ? bx : x + n;
		ui_text(r.y, at, lw ? ui_strwidth(h) : r.x + r.w - at, ROLE_DIM, h);
	}
	if (f.lw && x + n + 1 + f.lw < r.x + r.w)
		ramp_legend(r, true, f.compact);
}

static uint64_t rows_key(uint64_t h, const struct ui_view *v, int cpu, bool since_event)
{
	const long *khz;
	const double *secs;
	size_t n = v->residency(v->residency_ctx, cpu, since_event, &khz, &secs);
	h = ui_hash(h, &n, sizeof(n));
	h = ui_hash(h, khz, n * sizeof(*khz));
	return ui_hash(h, secs, n * sizeof(*secs));
}

/* Everything the panel shows, hashed: it is drawn again only when this
 * changes (the rows change every tick on a busy machine, never on an
 * idle one or in a paused replay). */
static uint64_t input_key(const struct ui_view *v, struct rect r, const struct snapshot *s,
                          const char *label)
{
	uint64_t h = ui_hash(UI_HASH0, label, strlen(label));
	h = ui_hash(h, v->freqs ? (const void *)v->freqs : "", v->freqs ? v->nfreqs * sizeof(long) : 0);
	int ncpu = s ? s->ncpu : 0, rows = r.h - 1;
	h = ui_hash(h, &ncpu, sizeof(ncpu));
	for (int i = 0; i < ncpu && i < rows; i++) {
		h = ui_hash(h, &s->cpus[i].id, sizeof(int));
		h = rows_key(h, v, s->cpus[i].id, false);
		h = rows_key(h, v, s->cpus[i].id, true);
	}
	size_t ne = v->hist ? history_nevents(v->hist) : 0;
	const struct event *e = ne ? history_event(v->hist, ne - 1) : NULL;
	char ago[32];
	snprintf(ago, sizeof(ago), "%.0f", e && v->elapsed > e->t ? v->elapsed - e->t : 0.0);
	h = ui_hash(h, ago, strlen(ago));
	if (e)
		h = ui_hash(h, e, sizeof(*e));
	return h;
}

void ui_residency_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	const char *label = v->residency_label ? v->residency_label : "no cpufreq here (VM?)";
	if (!v->residency) {
		ui_title(r, "Residency", NULL);
		ui_text(r.y + 1, r.x + 2, r.w - 3, ROLE_DIM, label);
		return;
	}
	static struct ui_cache cache;
	uint64_t key = input_key(v, r, s, label);
	if (ui_cache_restore(&cache, r, key))
		return;
	ramp_of(v, s);
	title(v, r, label);
	int ncpu = s ? s->ncpu : 0, rows = r.h - 1;
	for (int i = 0; i < ncpu && i < rows; i++) {
		bool last = i == rows - 1 && ncpu > rows;
		if (last)
			ui_textf(r.y + 1 + i, r.x, r.w, ROLE_DIM, "+%d more CPUs", ncpu - i);
		else
			cpu_row(v, s->cpus[i].id, r.y + 1 + i, r.x, r.w - 1);
	}
	ui_cache_store(&cache, r, key);
}

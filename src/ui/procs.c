/* procs.c - the processes table.  Columns come from one table with two
 * widths each: the full form ("44.0 MiB/s") when every column fits, else
 * a compact one ("44M/s") and, if still too wide, the least important
 * columns dropped first.  At 80 columns PID, WL, ROLE, CPU, ALLOWED, S,
 * %CPU, WAIT%, HOG, READ, WRITE, BYTES and MIG stay; from about 120
 * columns every column is shown in full. */
#include "uipriv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "benchtop/cpulist.h"
#include "benchtop/units.h"

struct cell_ctx { const struct ui_view *v; const struct proc_sample *p; bool compact; };
/* Writes the cell's text into b (room for l bytes); returns its length. */
typedef int (*cell_fn)(const struct cell_ctx *c, char *b, size_t l);

/* ---- number formatting without printf in the per-cell path ---- */

static int put_u64(char *b, unsigned long long v)
{
	char t[24];
	int n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	for (int i = 0; i < n; i++)
		b[i] = t[n - 1 - i];
	b[n] = 0;
	return n;
}

static int put_int(char *b, long long v)
{
	if (v >= 0)
		return put_u64(b, (unsigned long long)v);
	b[0] = '-';
	return 1 + put_u64(b + 1, (unsigned long long)-v);
}

/* v with dec decimals, as "%.*f" prints it.  Values near a rounding tie
 * (where the binary value decides) and huge or odd ones go to snprintf,
 * so the text is always printf's. */
static int put_fixed(char *b, size_t l, double v, int dec)
{
	static const double scale[] = { 1, 10, 100, 1000 };
	double x = v * scale[dec], fl = floor(x), frac = x - fl;
	if (!isfinite(v) || v < 0 || x > 1e15 || fabs(frac - 0.5) < 1e-6)
		return snprintf(b, l, "%.*f", dec, v);
	unsigned long long r = (unsigned long long)fl + (frac > 0.5), p = 1;
	for (int i = 0; i < dec; i++)
		p *= 10;
	unsigned long long ip = r / p, fp = r % p;
	int n = put_u64(b, ip);
	if (dec > 0) {
		b[n++] = '.';
		for (unsigned long long q = p / 10; q > 0; q /= 10)
			b[n++] = (char)('0' + fp / q % 10);
		b[n] = 0;
	}
	return n;
}

/* Compact: 3 significant figures at most and a prefix letter ("44M",
 * "1.5G", "512K"); the unit is named in the panel's title. */
static int put_compact(char *b, size_t l, double v, double base)
{
	static const char prefix[] = " KMGTPE";
	int i = 0;
	while (v >= 999.5 && i < 6) {
		v /= base;
		i++;
	}
	int n = v < 9.95 && i > 0 ? put_fixed(b, l, v, 1) : put_fixed(b, l, v, 0);
	if (i > 0 && (size_t)n + 1 < l) {
		b[n++] = prefix[i];
		b[n] = 0;
	}
	return n;
}

static int compact_rate(const struct ui_view *v, double bps, char *b, size_t l)
{
	if (!isfinite(bps) || bps < 0)
		return snprintf(b, l, "-");
	bool bits = v->units == UNITS_BITS;
	int n = put_compact(b, l - 4, bits ? bps * 8 : bps, v->units == UNITS_IEC ? 1024 : 1000);
	memcpy(b + n, bits ? "b/s" : "/s", bits ? 4 : 3);
	return n + (bits ? 3 : 2);
}

/* ---- the cells ---- */

static int c_pid(const struct cell_ctx *c, char *b, size_t l) { (void)l; return put_int(b, c->p->pid); }
static int c_wl(const struct cell_ctx *c, char *b, size_t l) { (void)l; return put_int(b, c->p->workload); }
static int c_role(const struct cell_ctx *c, char *b, size_t l) { return snprintf(b, l, "%s", c->p->role); }
static int c_cpu(const struct cell_ctx *c, char *b, size_t l) { (void)l; return put_int(b, c->p->cpu); }
static int c_allowed(const struct cell_ctx *c, char *b, size_t l)
{
	const struct snapshot *s = c->v->hist ? history_last(c->v->hist) : NULL;
	if (!l)
		return 0;
	b[0] = 0;
	if (s && c->p->allowed)
		cpulist_format(c->p->allowed, s->ncpu, b, l);
	return (int)strlen(b);
}
static int c_state(const struct cell_ctx *c, char *b, size_t l)
{
	(void)l;
	b[0] = c->p->state ? c->p->state : '?';
	b[1] = 0;
	return 1;
}
static int c_cpupct(const struct cell_ctx *c, char *b, size_t l) { return put_fixed(b, l, c->p->cpu_pct, 1); }
static int c_wait(const struct cell_ctx *c, char *b, size_t l)
{
	if (c->p->wait_pct < 0)
		return snprintf(b, l, "-");
	return put_fixed(b, l, c->p->wait_pct, 1);
}
static int seconds(const struct cell_ctx *c, double s, char *b, size_t l)
{
	if (c->compact)
		return put_fixed(b, l, s, s < 999.95 ? 1 : 0);
	return put_fixed(b, l, s, 2);
}
static int c_user(const struct cell_ctx *c, char *b, size_t l) { return seconds(c, c->p->utime, b, l); }
static int c_sys(const struct cell_ctx *c, char *b, size_t l) { return seconds(c, c->p->stime, b, l); }
static int c_hog(const struct cell_ctx *c, char *b, size_t l)
{
	/* hog = (user+sys) / the process's own lifetime (the run's when the
	 * lifetime is unknown, e.g. in a replay) */
	double el = c->p->age > 0 ? c->p->age : c->v->elapsed;
	if (!(el > 0))
		return snprintf(b, l, "-");
	int n = put_fixed(b, l - 1, 100 * (c->p->utime + c->p->stime) / el, 0);
	b[n++] = '%';
	b[n] = 0;
	return n;
}
static int rate(const struct cell_ctx *c, double bps, char *b, size_t l)
{
	if (c->compact)
		return compact_rate(c->v, bps, b, l);
	units_fmt_rate(c->v->units, bps, b, l);
	return (int)strlen(b);
}
static int c_read(const struct cell_ctx *c, char *b, size_t l) { return rate(c, c->p->read_bps, b, l); }
static int c_write(const struct cell_ctx *c, char *b, size_t l) { return rate(c, c->p->write_bps, b, l); }
static int c_bytes(const struct cell_ctx *c, char *b, size_t l)
{
	if (c->compact)
		return put_compact(b, l, (double)c->p->bytes, c->v->units == UNITS_IEC ? 1024 : 1000);
	units_fmt_bytes(c->v->units, c->p->bytes, b, l);
	return (int)strlen(b);
}
static int c_mig(const struct cell_ctx *c, char *b, size_t l) { (void)l; return put_u64(b, c->p->migrations); }
static int c_comm(const struct cell_ctx *c, char *b, size_t l)
{
	return snprintf(b, l, "%s%s", ui_procs_tree_prefix(c->p), c->p->comm);
}

static const struct column {
	const char *head;
	int width, cwidth;   /* full and compact */
	int prio;            /* 0 always shown; higher numbers are dropped first */
	bool right;
	cell_fn fn;
} cols[] = {
	{ "PID", 7, 7, 0, true, c_pid }, { "WL", 2, 2, 0, true, c_wl },
	{ "ROLE", 7, 7, 0, false, c_role }, { "CPU", 3, 3, 0, true, c_cpu },
	{ "ALLOWED", 7, 7, 0, false, c_allowed }, { "S", 1, 1, 0, false, c_state },
	{ "%CPU", 5, 5, 0, true, c_cpupct }, { "WAIT%", 5, 5, 0, true, c_wait },
	{ "USER", 7, 6, 2, true, c_user }, { "SYS", 7, 6, 2, true, c_sys },
	{ "HOG", 4, 4, 0, true, c_hog }, { "READ", 10, 7, 1, true, c_read },
	{ "WRITE", 10, 7, 0, true, c_write }, { "BYTES", 8, 5, 1, true, c_bytes },
	{ "MIG", 5, 5, 0, true, c_mig }, { "COMMAND", 15, 15, 3, false, c_comm },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* rate_w: READ and WRITE in full ("9.99 Gbit/s" is one wider than
 * "9.99 MiB/s"); comm_w: COMMAND, the last, gives up room first. */
struct table { bool show[NCOLS]; bool compact; int rate_w, comm_w; };

static int colw(const struct table *t, size_t i)
{
	if (t->compact)
		return cols[i].cwidth;
	if (cols[i].fn == c_read || cols[i].fn == c_write)
		return t->rate_w;
	return cols[i].fn == c_comm ? t->comm_w : cols[i].width;
}

static int need(const struct table *t)
{
	int n = 0;
	for (size_t i = 0; i < NCOLS; i++)
		n += t->show[i] ? colw(t, i) + 1 : 0;
	return n;
}

/* Everything in full if it fits; else compact, dropping the least
 * important columns until the row fits. */
static void choose(int width, enum units_mode u, struct table *t)
{
	for (size_t i = 0; i < NCOLS; i++)
		t->show[i] = true;
	t->compact = false;
	t->rate_w = u == UNITS_BITS ? 11 : 10;
	t->comm_w = 15;
	while (need(t) > width && t->comm_w > 9)
		t->comm_w--;
	if (need(t) <= width)
		return;
	t->compact = true;
	/* the tree view keeps COMMAND (its glyphs are there) */
	for (int prio = 3; prio > 0 && need(t) > width; prio--)
		for (size_t i = 0; i < NCOLS; i++)
			if (cols[i].prio == prio && !(cols[i].fn == c_comm && ui_procs_tree()))
				t->show[i] = false;
	for (size_t i = NCOLS; need(t) > width && i-- > 0;)
		if (cols[i].prio > 0 && cols[i].fn != c_comm)
			t->show[i] = false;
}

/* One row assembled in memory (cells padded or cut to their width) and
 * written with one call. */
static void row(const struct table *t, int y, int x, int w, enum theme_role role,
                const struct cell_ctx *c)
{
	char line[512], cell[64];
	int n = 0;
	for (size_t i = 0; i < NCOLS; i++) {
		if (!t->show[i])
			continue;
		int cw = colw(t, i), len;
		if (n + cw + 1 > (int)sizeof(line) - 1)
			break;
		if (c) {
			len = cols[i].fn(c, cell, sizeof(cell));
			len = len < 0 ? 0 : len >= (int)sizeof(cell) ? (int)sizeof(cell) - 1 : len;
		} else {
			len = (int)strlen(cols[i].head);
			memcpy(cell, cols[i].head, (size_t)len + 1);
		}
		int shown = ui_strwidth(cell), cut = len;
		if (shown > cw) {        /* cut to cw columns, whole UTF-8 sequences */
			int k = 0;
			for (cut = 0; cut < len; cut++)
				if (((unsigned char)cell[cut] & 0xC0) != 0x80 && k++ == cw)
					break;
			shown = cw;
		}
		int pad = cw - shown;
		if (cols[i].right) {
			memset(line + n, ' ', (size_t)pad);
			n += pad;
		}
		memcpy(line + n, cell, (size_t)cut);
		n += cut;
		if (!cols[i].right) {
			memset(line + n, ' ', (size_t)pad);
			n += pad;
		}
		line[n++] = ' ';
	}
	int cols_used = ui_strwidth((line[n] = 0, line));
	while (cols_used < w && n < (int)sizeof(line) - 1) {
		line[n++] = ' ';
		cols_used++;
	}
	ui_put(y, x, w, ui_attr(role), line, (size_t)n);
}

static const char *unit_note(enum units_mode m)
{
	return m == UNITS_IEC ? ", K/M/G = KiB/MiB/GiB" : m == UNITS_SI ? ", K/M/G = kB/MB/GB"
	                                                                : ", rates in bit/s";
}

#define MAX_ROWS 512

/* Where the last heading put each column (for a click on it). */
struct drawn_head { int x, w; const char *head; };
static struct drawn_head drawn_heads[NCOLS];
static size_t ndrawn;

const char *ui_procs_head_at(int x)
{
	for (size_t i = 0; i < ndrawn; i++)
		if (x >= drawn_heads[i].x && x <= drawn_heads[i].x + drawn_heads[i].w)
			return drawn_heads[i].head;
	return NULL;
}

/* The heading row: the sort column (o, F6, a click) in the key colour
 * with an arrow: down when largest first, up when inverted (PID: the
 * other way round, as it sorts smallest first). */
static void heading(const struct table *t, int y, int x, int w)
{
	row(t, y, x, w, ROLE_TITLE, NULL);
	const char *h = ui_procs_sort_head();
	int cx = x;
	ndrawn = 0;
	for (size_t i = 0; i < NCOLS; i++) {
		if (!t->show[i])
			continue;
		int cw = colw(t, i);
		drawn_heads[ndrawn++] = (struct drawn_head){ cx - x, cw, cols[i].head };
		if (h[0] && !strcmp(cols[i].head, h)) {
			int hw = (int)strlen(h), at = cols[i].right ? cx + cw - hw : cx;
			bool up = ui_procs_sort_inverted() != !strcmp(h, "PID");
			if (cols[i].right && at > cx - 1 + 1)
				at--;
			ui_text(y, at, hw, ROLE_KEY, h);
			ui_wch(y, at + hw, up ? L'\u25b2' : L'\u25bc', up ? '^' : 'v', ui_attr(ROLE_KEY));
		}
		cx += cw + 1;
	}
}

void ui_procs_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	struct table t;
	choose(r.w, v->units, &t);
	static const struct proc_sample *list[MAX_ROWS];
	int n = ui_procs_list(v, list, MAX_ROWS), live = 0;
	for (int i = 0; i < n; i++)
		live += list[i]->alive && s && list[i] >= s->procs && list[i] < s->procs + s->nproc;
	char extra[160], filt[80] = "", sorted[40] = "";
	if (ui_proc_filter()[0])
		snprintf(filt, sizeof(filt), ", name ~ \"%s\"", ui_proc_filter());
	if (ui_procs_sort_head()[0])
		snprintf(sorted, sizeof(sorted), ", by %s", ui_procs_sort_head());
	snprintf(extra, sizeof(extra), "%d running%s%s%s, %d ended%s", live, filt, sorted,
	         "", n - live, t.compact ? unit_note(v->units) : "");
	ui_title(r, "Processes", extra);
	heading(&t, r.y + 1, r.x, r.w);
	int rows = r.h - 2, first = 0, sel = -1;
	/* (no pointer into procs unless the selection is one of them: a
	 * sample may have none) */
	for (int i = 0; i < n; i++)
		if (s && v->selected >= 0 && v->selected < s->nproc && list[i] == &s->procs[v->selected])
			sel = i;
	/* Keep the selection on screen. */
	if (sel >= rows)
		first = sel - rows + 1;
	ui_procs_where(r, first);
	for (int i = first; i < n && i - first < rows; i++) {
		struct cell_ctx c = { v, list[i], t.compact };
		enum theme_role role = i == sel ? ROLE_SELECT : list[i]->alive ? ROLE_NORMAL : ROLE_DIM;
		row(&t, r.y + 2 + i - first, r.x, r.w, role, &c);
	}
}

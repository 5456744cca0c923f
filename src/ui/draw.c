/* draw.c - what every panel draws with: the attributes of each colour
 * role under the current theme, text cut to a width (UTF-8 aware, whole
 * cells in one call), titles, and the cache that copies a panel whose
 * input did not change. */
#include "uipriv.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "benchtop/xalloc.h"

static attr_t role_attr[ROLE_COUNT];
static attr_t bkgd_attr;   /* the background's attributes (role normal) */
static uint64_t generation; /* bumped when every cached panel is stale */

/* Attributes of each role without colour: enough to tell them apart. */
static attr_t mono_attr(enum theme_role r)
{
	switch (r) {
	case ROLE_TITLE: case ROLE_MARKER: case ROLE_WARN: case ROLE_KEY:
	case ROLE_WRITE: case ROLE_FREQ_HI:
		return A_BOLD;
	case ROLE_HEADER: case ROLE_SELECT:
	case ROLE_CPU0: case ROLE_CPU2: case ROLE_CPU4: case ROLE_CPU6:
		return A_REVERSE;
	case ROLE_DIM: case ROLE_AXIS:
		return A_DIM;
	default:
		return A_NORMAL;
	}
}

static short fit_colour(short c)
{
	if (c < 0 || c < COLORS)
		return c;
	return theme_fallback8(c);
}

void ui_theme_apply(const struct theme *t)
{
	for (int r = 0; r < ROLE_COUNT; r++) {
		if (ui_mono) {
			role_attr[r] = mono_attr(r);
			continue;
		}
		init_pair((short)(r + 1), fit_colour(t->fg[r]), fit_colour(t->bg[r]));
		role_attr[r] = COLOR_PAIR(r + 1) | (t->bold[r] ? A_BOLD : 0);
	}
	bkgd_attr = role_attr[ROLE_NORMAL];
	generation++;
	bkgdset(' ' | bkgd_attr);
}

attr_t ui_attr(enum theme_role r)
{
	return (r >= 0 && r < ROLE_COUNT) ? role_attr[r] : A_NORMAL;
}

void ui_cache_invalidate(void)
{
	generation++;
}

/* ---- text helpers shared by the panels ---- */

int ui_strwidth(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

attr_t ui_cell_attr(attr_t a)
{
	attr_t pair = (a & A_COLOR) ? (a & A_COLOR) : (bkgd_attr & A_COLOR);
	return ((a | bkgd_attr) & ~A_COLOR) | pair;
}

chtype ui_blank(void)
{
	return ' ' | ui_cell_attr(A_NORMAL);
}

/* The slow path: curses converts the bytes itself (text that is not
 * ASCII in a locale that is not UTF-8, or wider than a column). */
static void put_curses(int y, int x, attr_t a, const char *s, size_t n)
{
	attron(a);
	mvaddnstr(y, x, s, (int)n);
	attroff(a);
}

/* One UTF-8 sequence at s (n bytes left): its code point and length, or
 * 0 when it is not valid UTF-8. */
static int utf8_dec(const unsigned char *s, size_t n, wchar_t *wc)
{
	int len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
	if (len == 0 || (size_t)len > n)
		return 0;
	wchar_t c = s[0] & (0x3F >> (len - 1));
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	*wc = c;
	return len;
}

/* Non-ASCII UTF-8 as cells of one column each; false when some
 * character is not one column wide (the caller falls back). */
static bool put_wide(int y, int x, int w, attr_t ca, const char *s, size_t n)
{
	cchar_t cells[256];
	int c = 0;
	short pair = (short)PAIR_NUMBER(ca);
	attr_t at = ca & ~A_COLOR;
	for (size_t i = 0; i < n && c < w && c < 256;) {
		wchar_t wc[2] = { (unsigned char)s[i], 0 };
		int len = 1;
		if ((unsigned char)s[i] >= 0x80) {
			len = utf8_dec((const unsigned char *)s + i, n - i, &wc[0]);
			if (len == 0 || wcwidth(wc[0]) != 1)
				return false;
		} else if (wc[0] < 0x20 || wc[0] == 0x7F) {
			wc[0] = '?';
		}
		setcchar(&cells[c++], wc, at, pair, NULL);
		i += (size_t)len;
	}
	mvadd_wchnstr(y, x, cells, c);
	return true;
}

int ui_put(int y, int x, int w, attr_t a, const char *s, size_t n)
{
	if (w <= 0 || y < 0 || y >= LINES || x < 0 || x >= COLS)
		return 0;
	if (w > COLS - x)
		w = COLS - x;
	chtype cells[256];
	attr_t ca = ui_cell_attr(a);
	int c = 0, done = 0;
	size_t from = 0;   /* the first byte not yet written */
	for (size_t i = 0; i < n && c < w; i++) {
		unsigned char b = (unsigned char)s[i];
		if (b >= 0x80) {
			if (!(ui_utf8 && put_wide(y, x, w, ca, s + from, n - from)))
				put_curses(y, x, a, s + from, n - from);
			int sw = ui_strwidth(s + from);
			return done + (sw < w ? sw : w);
		}
		if (c == 256) {   /* wider than the buffer: flush a chunk */
			mvaddchnstr(y, x, cells, c);
			x += c, w -= c, done += c, c = 0, from = i;
		}
		cells[c++] = (b < 0x20 || b == 0x7F ? '?' : b) | ca;
	}
	mvaddchnstr(y, x, cells, c);
	return done + c;
}

void ui_text(int y, int x, int w, enum theme_role r, const char *s)
{
	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return;
	ui_put(y, x, w, ui_attr(r), s, strlen(s));
}

void ui_textf(int y, int x, int w, enum theme_role r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ui_text(y, x, w, r, buf);
}

void ui_wch(int y, int x, wchar_t wc, char ascii, attr_t a)
{
	if (!ui_utf8) {
		mvaddch(y, x, (chtype)(unsigned char)ascii | a);
		return;
	}
	wchar_t s[2] = { wc, 0 };
	cchar_t cc;
	setcchar(&cc, s, a, PAIR_NUMBER(a), NULL);
	mvadd_wch(y, x, &cc);
}

void ui_title(struct rect r, const char *title, const char *extra)
{
	attr_t a = ui_attr(ROLE_AXIS);
	attron(a);
	mvhline(r.y, r.x, ACS_HLINE, r.w);
	attroff(a);
	int tw = ui_strwidth(title) + 2;
	ui_textf(r.y, r.x + 1, r.w - 2, ROLE_TITLE, " %s ", title);
	if (extra && *extra) {   /* cut at whole words, never mid-word */
		char fit[256];
		ui_fit_words(extra, r.w - 4 - tw, fit, sizeof(fit));
		if (fit[0])
			ui_textf(r.y, r.x + 1 + tw, r.w - 2 - tw, ROLE_NORMAL, " %s ", fit);
	}
}

/* A frequency as "2.60 GHz" / "800 MHz", or in at most 5 columns as
 * "2.60G" / "800M" (UI_KHZ_SHORT) or "2.6G" (UI_KHZ_TINY); unknown
 * (negative) as a dash. */
void ui_fmt_khz(long khz, char *buf, size_t len, enum ui_khz_form form)
{
	static const char *const ghz[] = { "%.2f GHz", "%.2fG", "%.1fG" };
	static const char *const mhz[] = { "%ld MHz", "%ldM", "%ldM" };
	if (khz < 0)
		snprintf(buf, len, "%s", ui_utf8 ? "\xe2\x80\x94" : "n/a");
	else if (khz >= 1000000)
		snprintf(buf, len, ghz[form], khz / 1e6);
	else
		snprintf(buf, len, mhz[form], khz / 1000);
}

/* ---- panels drawn again only when their input changed ---- */

uint64_t ui_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t cache_key(struct rect r, uint64_t key)
{
	int k[6] = { r.y, r.x, r.h, r.w, ui_utf8, ui_mono };
	key = ui_hash(key, k, sizeof(k));
	return ui_hash(key, &generation, sizeof(generation));
}

bool ui_cache_restore(struct ui_cache *c, struct rect r, uint64_t key)
{
	if (!c->cells || c->key != cache_key(r, key) || r.w > COLS || r.y + r.h > LINES)
		return false;
	for (int y = 0; y < r.h; y++)
		mvadd_wchnstr(r.y + y, r.x, c->cells + (size_t)y * (size_t)r.w, r.w);
	return true;
}

void ui_cache_store(struct ui_cache *c, struct rect r, uint64_t key)
{
	size_t n = (size_t)r.h * (size_t)r.w;
	if (n > c->cap) {
		cchar_t *p = xrealloc(c->cells, n * sizeof(*p));
		if (!p) {
			c->key = 0;
			return;
		}
		c->cells = p;
		c->cap = n;
	}
	for (int y = 0; y < r.h; y++)
		for (int x = 0; x < r.w; x++)
			mvin_wch(r.y + y, r.x + x, &c->cells[(size_t)y * (size_t)r.w + (size_t)x]);
	c->key = cache_key(r, key);
}

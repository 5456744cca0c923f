/* uipriv.h - what the dashboard's files share among themselves (panels,
 * keys, screen).  Not part of the public contract: the app uses ui.h. */
#ifndef BENCHTOP_UIPRIV_H
#define BENCHTOP_UIPRIV_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>
#include "benchtop/theme.h"
#include "benchtop/ui.h"

struct rect { int y, x, h, w; };

extern bool ui_utf8;     /* the locale's codeset is UTF-8 */
extern bool ui_mono;     /* --no-color, NO_COLOR or no colours */

/* ---- draw.c: what the panels draw with ---- */

/* Colours by role from theme t (or attributes alone under mono): sets
 * every role's attributes and the background, and makes every cached
 * panel stale.  Call after the curses colours are started. */
void ui_theme_apply(const struct theme *t);
/* Every cached panel is drawn again (after a resize). */
void ui_cache_invalidate(void);
/* The attributes of a role under the current theme (or mono). */
attr_t ui_attr(enum theme_role r);
/* The attributes a cell gets when text in attributes a is added over the
 * background (curses' own rendering rule); the bulk writes below store
 * cells as they are, so they apply it first. */
attr_t ui_cell_attr(attr_t a);
/* A blank cell as erase() leaves it. */
chtype ui_blank(void);
/* n bytes of s at (y, x), at most w columns (and never past the right
 * edge), in attributes a, written as whole cells in one call (no per
 * character rendering); returns the columns written. */
int ui_put(int y, int x, int w, attr_t a, const char *s, size_t n);
/* Text at (y, x) cut to w columns (UTF-8 aware) in a role's attributes. */
void ui_text(int y, int x, int w, enum theme_role r, const char *s);
void ui_textf(int y, int x, int w, enum theme_role r, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A panel's title rule: "── Title  extra ─────" over row r.y. */
void ui_title(struct rect r, const char *title, const char *extra);
/* One wide character (falls back to ascii when not UTF-8). */
void ui_wch(int y, int x, wchar_t wc, char ascii, attr_t a);
/* Display columns of a UTF-8 string. */
int ui_strwidth(const char *s);
/* Frequency as text: "2.60 GHz", "—" when unknown. */
void ui_fmt_khz(long khz, char *buf, size_t len);

/* A panel whose input did not change is copied from its last drawing:
 * hash the input with ui_hash (FNV-1a; start from UI_HASH0), try
 * ui_cache_restore, and if it says false draw and ui_cache_store.  The
 * rectangle, locale, colour mode and theme are part of the key. */
#define UI_HASH0 0xcbf29ce484222325ULL
struct ui_cache { uint64_t key; cchar_t *cells; size_t cap; };
uint64_t ui_hash(uint64_t h, const void *p, size_t n);
bool ui_cache_restore(struct ui_cache *c, struct rect r, uint64_t key);
void ui_cache_store(struct ui_cache *c, struct rect r, uint64_t key);

/* Panels: each draws v into r and nothing outside it. */
void ui_header_draw(const struct ui_view *v, struct rect r);
void ui_status_draw(const struct ui_view *v, struct rect r);
void ui_graph_draw(const struct ui_view *v, struct rect r);
/* d: one scale for every line, or the workloads' scale; returns the new
 * setting (true: one scale). */
bool ui_graph_toggle_scale(void);
void ui_cpus_draw(const struct ui_view *v, struct rect r);
void ui_placement_draw(const struct ui_view *v, struct rect r);
void ui_residency_draw(const struct ui_view *v, struct rect r);
void ui_procs_draw(const struct ui_view *v, struct rect r);
void ui_help_draw(const struct ui_view *v, struct rect r);
/* The colour of a frequency on the machine's fixed ramp (residency and
 * CPUs panels alike); ROLE_NORMAL when unknown. */
enum theme_role ui_freq_role(const struct ui_view *v, long khz);
/* The terminal is below the minimum size (only q, ? and resizes act). */
bool ui_too_small(void);
/* A line under "terminal too small" (why a key did nothing). */
void ui_note_small(const char *msg);
/* Help pages: +1 next, -1 previous, 0 back to the first. */
void ui_help_page(int d);
/* Every workload has ended. */
bool ui_run_done(const struct ui_view *v);
/* s cut at whole words to w columns, ".." when words were left out. */
void ui_fit_words(const char *s, int w, char *out, size_t len);

/* The Processes / Placement rows (proclist.c): the live processes
 * (filtered, sorted), then those that ended, newest first; up to max
 * pointers into the newest snapshot or a list kept for ended ones. */
int ui_procs_list(const struct ui_view *v, const struct proc_sample **out, int max);
/* The name filter typed at / ("" none; keys.c). */
const char *ui_proc_filter(void);
/* o: the next sort column; returns its name.  The sorted column's
 * heading ("" when in tracking order). */
const char *ui_procs_next_sort(void);
const char *ui_procs_sort_head(void);
/* A filter or a sort is in force (Up/Down then follow the shown order). */
bool ui_procs_ordered(void);
/* Up/Down (d = -1/+1) in the shown order: *out is ACT_SEL_UP/DOWN, or
 * ACT_SELECT with the index to select; 1 when there is an action. */
int ui_procs_step(const struct ui_view *v, int d, struct action *out);
/* Where the process rows were drawn (for mouse clicks). */
void ui_procs_where(struct rect r, int first);
/* KEY_MOUSE: a click on a process row selects it, the wheel moves the
 * selection; 1 and *out when that makes an action. */
int ui_mouse_key(const struct ui_view *v, struct action *out);

/* The G/F menu when one is open (keys.c). */
void ui_menu_draw(const struct ui_view *v, struct rect r);
bool ui_help_shown(void);
/* Whether ui_key read anything from the terminal since the last call. */
bool ui_input_seen(void);

#endif

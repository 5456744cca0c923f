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
enum ui_khz_form { UI_KHZ_FULL, UI_KHZ_SHORT, UI_KHZ_TINY };
void ui_fmt_khz(long khz, char *buf, size_t len, enum ui_khz_form form);

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
/* The markers' legend for the help: each mark's glyphs (UTF-8, then
 * ASCII when it differs) and words, from the graph's own table. */
void ui_graph_legend(char *buf, size_t len);
void ui_cpus_draw(const struct ui_view *v, struct rect r);
void ui_placement_draw(const struct ui_view *v, struct rect r);
void ui_residency_draw(const struct ui_view *v, struct rect r);
void ui_procs_draw(const struct ui_view *v, struct rect r);
/* An experiment's table (v->study) in procs, and in place too when it
 * needs the rows: 0 when there is none (nothing drawn), 1 drawn in
 * procs, 2 in both. */
int ui_study_draw(const struct ui_view *v, struct rect place, struct rect procs);
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
/* The sort menu: the sort keys by index (0 is the tracking order), the
 * one in force, and picking one (invert: smallest first). */
int ui_procs_nsorts(void);
const char *ui_procs_sort_name(int i);
int ui_procs_sort_index(void);
bool ui_procs_sort_inverted(void);
void ui_procs_set_sort(int i, bool invert);
/* A click on a heading: sort by that column (again: inverted); NULL
 * when the column does not sort, else its name. */
const char *ui_procs_sort_by_head(const char *head);
/* The heading under column x of the last drawn table, NULL none. */
const char *ui_procs_head_at(int x);
/* F5: processes under their parents; returns the new setting.  The
 * tree prefix ("├─ ") of a listed process, "" in a flat list. */
bool ui_procs_toggle_tree(void);
bool ui_procs_tree(void);
const char *ui_procs_tree_prefix(const struct proc_sample *p);
/* The rows a page of the process list holds (PgUp/PgDn). */
int ui_procs_page(void);
/* Search: the next shown process whose name, role or PID holds text,
 * from the selection (next: after it); 1 and ACT_SELECT in *out. */
int ui_procs_find(const struct ui_view *v, const char *text, bool next, struct action *out);
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

/* ---- keys.c and menus.c: the prompt or menu in progress ---- */

#define KEY_ESC 27
#define KEY_TAB '\t'
#define UI_MENU_MAX 64   /* rows of a menu; CPUs of the affinity dialog */

enum ui_mode { M_NONE, M_PIN, M_PIN_WHOLE, M_MARKER, M_FILTER, M_SEARCH,
               M_GOV, M_FREQ, M_SORT, M_SIGNAL, M_AFFINITY };
struct ui_keystate {
	enum ui_mode mode;
	char text[128];
	size_t len;
	int sel;         /* menu row */
	int scope;       /* G/F: -1 all CPUs, else that CPU; affinity: 1 whole workload */
	bool invert;     /* sort menu: smallest first */
	pid_t pid;       /* signal and affinity: the process the menu is for */
	char who[64];    /* ... as the title names it */
	unsigned char cpus[UI_MENU_MAX];   /* affinity: the boxes */
	int ncpus;
	char line[256];  /* what the status line shows */
};
extern struct ui_keystate ui_ks;
void ui_close_prompt(void);
void ui_open_mode(enum ui_mode m);
/* *out cleared to action id (policy -1). */
void ui_fill(struct action *out, enum action_id id);

/* One entry of the key bar: the key as shown and one word. */
struct ui_bar_item { const char *key, *label; };
/* The open prompt's or menu's keys (NULL-ended), NULL when none is open. */
const struct ui_bar_item *ui_key_bar(void);
const struct ui_bar_item *ui_menu_bar(void);
/* The key bar: the table's steering keys, or the open prompt's. */
void ui_keybar_draw(const struct ui_view *v, struct rect r);

/* menus.c: G, F, F6, F9 and a.  Open one for action id: 1 and *out when
 * there is nothing to choose from (the app then says why), else 0. */
int ui_menu_open(const struct ui_view *v, enum action_id id, struct action *out);
bool ui_menu_shown(void);
int ui_menu_key(const struct ui_view *v, int key, struct action *out);
const char *ui_menu_prompt(void);
void ui_menu_draw(const struct ui_view *v, struct rect r);
/* The CPUs the menus offer (online, else the snapshot's). */
int ui_ncpus_of(const struct ui_view *v);
/* The selected process of the newest snapshot, NULL when none. */
const struct proc_sample *ui_selected_proc(const struct ui_view *v);

bool ui_help_shown(void);
/* z: the graph on the whole screen; returns the new setting. */
bool ui_toggle_zoom(void);
/* v: the frequency line under the graph; returns what the status says. */
const char *ui_freqline_toggle(const struct ui_view *v);
bool ui_freqline_on(void);
void ui_freqline_draw(const struct ui_view *v, struct rect r);
/* Did the last layout leave the graph room for the frequency line? */
bool ui_freqline_room(void);
/* The newest caption as a banner across the graph's rectangle g. */
void ui_caption_draw(const struct ui_view *v, struct rect g);
/* Whether ui_key read anything from the terminal since the last call. */
bool ui_input_seen(void);

#endif

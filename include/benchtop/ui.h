/* ui.h - the ncurses dashboard.  It draws a struct ui_view (built by the
 * app from the history; the same for live runs and replays) and turns keys
 * into struct action through the key table.  It never reads /proc or /sys.
 *
 * Call order: ui_open, then per loop iteration ui_key for each key and
 * ui_draw once; ui_close on every exit path (also from a fatal error). */
#ifndef BENCHTOP_UI_H
#define BENCHTOP_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "benchtop/action.h"
#include "benchtop/cli.h"
#include "benchtop/model.h"

/* Residency rows of one CPU, from the live cpufreq model or a replay. */
typedef size_t (*ui_residency_fn)(void *ctx, int cpu, bool since_event,
                                  const long **khz, const double **secs);

struct ui_view {
	const struct history *hist;      /* samples and events */
	const struct run *run;
	const char *const *wl_names;     /* nwl short names ("copy engine=pipe procs=3") */
	int nwl;
	const char *title;               /* NULL, or what the header names instead of the
	                                    workloads (a replayed experiment's step) */
	const char *status;              /* last action's result */
	int selected;                    /* index into the newest snapshot's procs */
	enum units_mode units;
	const char *freq_source;         /* "scaling_cur_freq", "not observable here", ... */
	const char *residency_label;     /* "kernel stats", "sampled", "no cpufreq here (VM?)" */
	ui_residency_fn residency;       /* NULL when there is none */
	void *residency_ctx;
	bool paused;
	bool replay;
	size_t span_samples;             /* replay: samples in the whole recording (the
	                                  * graph fits them to its width); 0 live */
	double elapsed;
	const char *const *governors;    /* for the G menu; NULL-terminated */
	const long *freqs;               /* for the F menu, ascending, nfreqs */
	size_t nfreqs;
	double interval;                 /* sample interval in seconds (0: not shown) */
	int ncpus_online;                /* CPUs for the G/F menus' "one CPU" choice; 0: from the snapshot */
	const char *cur_governor;        /* the governor in force (G opens on it), NULL unknown */
	long cap_khz;                    /* the max-frequency cap in force (F opens on it), 0 none */
	const long *caps;                /* per CPU id: its cap in kHz, 0 none (CPUs panel) */
	int ncaps;
	const char *study;               /* NULL, or an experiment's table as text, shown
	                                  * instead of the Processes panel (a replay at its end) */
};

/* Start curses.  theme: NULL, a name or a file (theme.h); no_color forces
 * monochrome (also NO_COLOR).  Returns 0 or -1 with err naming file, line
 * and word of a bad theme (the caller exits 2). */
int ui_open(const char *theme, bool no_color, char *err, size_t errlen);
/* The same on a given terminal (tests and the frame benchmark: newterm on
 * /dev/null or a pipe): termtype such as "xterm-256color", a fixed size. */
int ui_open_term(const char *termtype, FILE *out, FILE *in, int rows, int cols,
                 const char *theme, bool no_color, char *err, size_t errlen);
void ui_close(void);
/* The terminal's fd for poll(). */
int ui_fd(void);
/* Whether the dashboard can run here: standard input and output must both
 * be terminals.  False with msg saying so and pointing to -b (exit 2). */
bool ui_terminal_usable(char *msg, size_t len);
/* After poll() reported revents on ui_fd() and ui_key() was called: true
 * only when the terminal has gone (hang-up or error from poll, EIO, or an
 * end of file).  got_input: ui_key read anything at all this time (a key
 * that does nothing and a mouse report count).  The caller ends the run
 * as on SIGHUP and never polls the descriptor again. */
bool ui_terminal_lost(short revents, bool got_input);
/* Read pending keys (never blocks); for each completed action fill *out
 * and return 1, return 0 when no key is left.  Prompts (p, m) and menus
 * (G, F) are handled inside: the action comes when the user confirms.
 * `?` returns ACT_HELP and `t` ACT_THEME: the app calls ui_toggle_help()
 * and ui_next_theme().  While the help is shown every key returns
 * ACT_HELP, so any key closes it.
 * KEY_RESIZE comes back as ACT_NONE with 1 after ui_resize was done. */
int ui_key(const struct ui_view *v, struct action *out);
/* The key state machine without a terminal: feed one key code; 1 and *out
 * when an action is complete, else 0 (ui_key calls this per key). */
int ui_key_feed(const struct ui_view *v, int key, struct action *out);
/* The prompt or menu in progress, for the draw pass: NULL when none. */
const char *ui_key_prompt(void);
/* Draw the view; only what changed reaches the terminal (one doupdate). */
void ui_draw(const struct ui_view *v);
/* SIGWINCH: reads the terminal's new size (resizeterm) and marks
 * everything for redraw; the next ui_draw paints the new size. */
void ui_resize(void);
/* Samples the dashboard can show across the terminal's width (the graph's
 * dot columns; 80 columns before the screen is open). */
size_t ui_history_need(void);
/* Cycle to the next theme; returns its name. */
const char *ui_next_theme(void);
/* Toggle the help screen. */
void ui_toggle_help(void);
/* Do what the reaction bits (enum reaction) ask: toggle the help, switch
 * the theme.  Writes "theme: NAME" into status[0..len) when the theme
 * changed (status untouched otherwise). */
void ui_react(unsigned reactions, char *status, size_t len);

/* Every key waiting on the terminal, until *quit: each action goes to
 * apply(ctx, act), the help and theme reactions it left in vs are done
 * (ui_react; the next key's meaning depends on them) and the other bits
 * stay for the loop's draw pass; the view is gathered again with view(ctx, v) for the next key.  The one
 * key pass of live runs and replay.  Returns whether anything was read
 * from the terminal (bound or not: what ui_terminal_lost wants). */
struct view_state;
bool ui_keys_drain(struct ui_view *v, struct view_state *vs, const bool *quit,
                   void (*apply)(void *ctx, const struct action *act),
                   void (*view)(void *ctx, struct ui_view *v), void *ctx);
/* Mouse reporting on (a click selects a process, the wheel moves the
 * selection) or off (--no-mouse); call after ui_open. */
void ui_set_mouse(bool on);

/* The key table, shared by dispatch, the help screen and the man page test. */
struct ui_key_binding {
	int key;             /* curses key code or character */
	const char *name;    /* as shown: "0-9", "space", "Up/k"; each '/' part is a key name */
	const char *help;
	enum action_id action;
	int alt;             /* a second key for the same row ('k' for KEY_UP), 0 none */
	int last;            /* key..last is a range ('0'..'9'), 0 none */
	bool replay_only;    /* only in --replay */
	bool live_only;      /* only in a live run (a replay key takes it there) */
	bool steers;         /* acts on a live run's machine or workloads: off the key
	                      * bar (and dimmed in the help) in a replay, where it says so */
	const char *bar_key; /* the key bar: the key as shown ("F10"), NULL not on it */
	const char *bar;     /* ... and what it does, one word ("Quit") */
	int bar_prio;        /* 0 always on the bar; higher numbers leave first */
};
extern const struct ui_key_binding ui_keys[];
extern const size_t ui_nkeys;
/* The row a key code dispatches to, NULL when none (the first row of
 * the key; ui_key_find_for: the row that acts in a replay or a live run). */
const struct ui_key_binding *ui_key_find(int key);
const struct ui_key_binding *ui_key_find_for(int key, bool replay);

#endif

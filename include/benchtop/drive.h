/* drive.h - the one driver of a live run and a replay: a feed (the live
 * one: the sampler and the workloads; the recorded one: a recording
 * played at its pace) fills one history, and the same loop serves the
 * dashboard, the keys, batch output, records and metrics from it.
 *
 * Each wake-up of the loop (base/loop.c): metrics served; a wake-up for
 * a scrape alone ends there; else the feed takes what the wake-up
 * brought (signals, the timer: a tick, or the recording's next items),
 * then the keys are read, then the screen is drawn once. */
#ifndef BENCHTOP_DRIVE_H
#define BENCHTOP_DRIVE_H

#include <stdbool.h>

struct loop;
struct loop_wake;

struct feed {
	void *ctx;
	struct loop *loop;
	bool dashboard;                        /* keys and a screen to draw */
	bool (*done)(void *ctx);               /* the run is over: leave the loop */
	int (*timeout_ms)(void *ctx);          /* the longest wait (-1: none); may arm the timer */
	void (*serve)(void *ctx);              /* metrics after every wake-up; may be NULL */
	void (*wake)(void *ctx, const struct loop_wake *w); /* signals, the timer: feed the history */
	bool (*keys)(void *ctx);               /* read the keys; true when the terminal gave anything */
	void (*lost)(void *ctx);               /* the terminal has gone (no longer watched) */
	void (*draw)(void *ctx);               /* the one draw pass */
};

/* Run f until f->done (or the loop fails). */
void drive(const struct feed *f);

/* What the view of every feed holds, live or recorded: the history, the
 * run, the workloads' names, the view state (selection, units), the
 * status line, the clock, the frequency source (NULL: "not observable
 * here") and the residency kind ("kernel", "sampled", "none"; recorded:
 * the residency of the phases that have ended).  feed_view fills v with
 * them (the rest zero); the caller adds what only its feed has. */
struct history;
struct run;
struct view_state;
struct ui_view;
struct feed_facts {
	const struct history *hist;
	const struct run *run;
	const char *const *wl_names;
	int nwl;
	const struct view_state *vs;
	const char *status;
	double elapsed, interval;
	bool paused, recorded;
	const char *freq_source;
	const char *residency_kind;
};
void feed_view(struct ui_view *v, const struct feed_facts *f);

#endif

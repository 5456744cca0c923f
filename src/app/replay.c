/* replay.c - --replay: the live dashboard fed from a recording
 * (record_read.c) at the recorded pace instead of the kernel, through the
 * same loop, view state and view keys as a live run. */
#include "benchtop/replay.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/clock.h"
#include "benchtop/drive.h"
#include "benchtop/loop.h"
#include "benchtop/metrics.h"
#include "benchtop/num.h"
#include "benchtop/studytable.h"
#include "benchtop/tables.h"
#include "benchtop/theme.h"
#include "benchtop/ui.h"
#include "benchtop/view.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"

/* ---- the player ---------------------------------------------------------- */

#define REPLAY_HISTORY 3600
#define SPEED_MIN 0.25
#define SPEED_MAX 16.0
#define REPLAY_FREQS 64

struct player {
	const struct run *run;
	struct recording *rec;
	struct history *hist;
	size_t next;                 /* next item to show */
	double duration;
	double anchor_pos, anchor_wall, speed;
	bool paused, ended, quit;
	struct loop *loop;
	struct view_state vs;        /* selection, units, what the last key did (view.h) */
	char line[384];              /* the status line: the replay's state and vs.status */
	char step[320];              /* an experiment: the step in progress, for the header */
	struct replay_metrics *metrics; /* --metrics / --metrics-listen, or NULL */
	bool headless;               /* -b with metrics: play without a screen */
	char *study;                 /* an experiment's table as text, or NULL */
	long res_khz[2][REPLAY_FREQS];   /* residency rows handed to the panel: */
	double res_secs[2][REPLAY_FREQS]; /* [0] since start, [1] since the last event */
};

/* Recording time on screen now. */
static double position(const struct player *p)
{
	if (p->ended)
		return p->duration;
	if (p->paused)
		return p->anchor_pos;
	double pos = p->anchor_pos + (clock_mono() - p->anchor_wall) * p->speed;
	return pos < p->duration ? pos : p->duration;
}

/* Start counting from here: after a pause or a change of speed. */
static void reanchor(struct player *p)
{
	p->anchor_pos = position(p);
	p->anchor_wall = clock_mono();
}

/* Feed every item that is due into the history. */
static void advance(struct player *p)
{
	double pos = position(p);
	while (p->next < recording_nitems(p->rec)) {
		bool ev;
		size_t idx;
		if (recording_item(p->rec, p->next, &ev, &idx) > pos)
			break;
		if (ev) {
			history_add_event(p->hist, recording_event(p->rec, idx));
		} else {
			history_push(p->hist, recording_sample(p->rec, idx));
			replay_metrics_tick(p->metrics, history_last(p->hist), p->hist, p->vs.status, sizeof p->vs.status);
		}
		p->next++;
	}
	if (p->next == recording_nitems(p->rec) && pos >= p->duration)
		p->ended = true;
}

/* One shot at the wall time the next item (or the end) is due. */
static void arm(struct player *p)
{
	double wall = 0;
	if (!p->paused && !p->ended) {
		double due = p->duration;
		if (p->next < recording_nitems(p->rec)) {
			bool ev;
			size_t idx;
			due = recording_item(p->rec, p->next, &ev, &idx);
		}
		wall = p->anchor_wall + (due - p->anchor_pos) / p->speed;
	}
	loop_timer_at(p->loop, wall);
}

static void make_status(struct player *p)
{
	const char *state = p->ended ? "end of recording (q quits)" : p->paused ? "paused (space resumes)" : "playing";
	snprintf(p->line, sizeof p->line, "replay %s  speed %gx  %.1f/%.1f s%s%s", state, p->speed,
	         position(p), p->duration, p->vs.status[0] ? "  | " : "", p->vs.status);
}

/* The residency panel's rows: the recorded residency (the kernel's
 * time_in_state deltas, or sampled) of the phases that have ended by now;
 * since the last event is the phase in progress, known once it has
 * ended: at the end of the recording. */
static size_t residency_rows(void *ctx, int cpu, bool since_event, const long **khz,
                             const double **secs)
{
	struct player *p = ctx;
	int k = since_event ? 1 : 0;
	*khz = p->res_khz[k];
	*secs = p->res_secs[k];
	if (since_event && !p->ended)
		return 0;
	return recording_residency(p->rec, p->ended ? INFINITY : position(p), since_event, cpu,
	                           p->res_khz[k], p->res_secs[k], REPLAY_FREQS);
}

static void view_of(struct player *p, struct ui_view *v)
{
	make_status(p);
	const struct json *start = recording_start(p->rec);
	const char *fs = json_str(json_get(start, "freq_source"), "none");
	const char *rk = recording_cpufreq(p->rec);
	struct feed_facts f = { p->hist, p->run, recording_wl_names(p->rec), recording_nwl(p->rec), &p->vs,
	                        p->line, position(p), json_num(json_get(start, "interval"), 0), p->paused, true,
	                        strcmp(fs, "none") ? fs : NULL, rk };
	feed_view(v, &f);
	size_t k, n;
	const char *step = recording_step_at(p->rec, position(p), &k, &n);
	if (step) {   /* an experiment: the header names the step it shows */
		snprintf(p->step, sizeof p->step, "%s (%zu/%zu)", step, k, n);
		v->title = p->step;
	}
	if (strcmp(rk, "none") && !recording_end(p->rec)) {
		v->residency_label = "recorded per phase in the end record, which this recording lacks";
	} else if (strcmp(rk, "none")) {
		v->residency = residency_rows;
		v->residency_ctx = p;
	}
	if (p->ended)   /* an experiment ends with its table, as it did when it ran */
		v->study = p->study;
	size_t ns = recording_nsamples(p->rec);
	v->span_samples = ns < history_cap(p->hist) ? ns : history_cap(p->hist);
}

/* An experiment's table from the end record, as the experiment printed
 * it; NULL for other recordings. */
static char *study_text(const struct recording *rec)
{
	const struct json *x = json_get(recording_end(rec), "experiment");
	char *buf = NULL;
	size_t len = 0;
	struct st_table t;
	if (json_type(x) != JSON_OBJECT)
		return NULL;
	if (st_from_json(x, &t) == 0) {
		FILE *m = open_memstream(&buf, &len);
		if (m) {
			st_print_text(&t, m);
			fclose(m);
		}
	}
	st_free(&t);
	return buf;
}

/* Show the recording from its start up to t (Left/Right, Home/End): the
 * history is filled again from the start, so every panel shows time t. */
static void seek(struct player *p, double t)
{
	struct history *h = history_new(REPLAY_HISTORY);
	if (!h) {
		snprintf(p->vs.status, sizeof p->vs.status, "cannot seek: out of memory");
		return;
	}
	t = t < 0 ? 0 : t > p->duration ? p->duration : t;
	history_free(p->hist);
	p->hist = h;
	p->next = 0;
	p->ended = false;
	p->anchor_pos = t;
	p->anchor_wall = clock_mono();
	advance(p);
	snprintf(p->vs.status, sizeof p->vs.status, "at %.1f s", t);
}

static void set_speed(struct player *p, double factor)
{
	double s = p->speed * factor;
	if (s < SPEED_MIN || s > SPEED_MAX) {
		snprintf(p->vs.status, sizeof p->vs.status, "speed stays %gx (%gx to %gx)", p->speed, SPEED_MIN, SPEED_MAX);
		return;
	}
	reanchor(p);
	p->speed = s;   /* the status line shows the speed */
}

static void apply(struct player *p, const struct action *act)
{
	const struct snapshot *s = history_last(p->hist);
	p->vs.status[0] = 0;
	if (view_apply(&p->vs, act, s ? s->nproc : 0, !p->headless))
		return;
	switch (act->id) {
	case ACT_NONE: break;
	case ACT_QUIT: p->quit = true; break;
	case ACT_SEEK_BACK: seek(p, position(p) - 10); break;
	case ACT_SEEK_FWD: seek(p, position(p) + 10); break;
	case ACT_SEEK_START: seek(p, 0); break;
	case ACT_SEEK_END: seek(p, p->duration); break;
	case ACT_REPLAY_SLOWER: set_speed(p, 0.5); break;
	case ACT_REPLAY_FASTER: set_speed(p, 2.0); break;
	case ACT_PAUSE: case ACT_RESUME:
		if (p->ended)
			break;
		reanchor(p);
		p->paused = act->id == ACT_RESUME ? false : !p->paused;
		break;
	default:
		snprintf(p->vs.status, sizeof p->vs.status, "a recording cannot be steered: that key acts on a live run only");
	}
}

static void key_apply(void *ctx, const struct action *act)
{
	apply(ctx, act);
}

static void key_view(void *ctx, struct ui_view *v)
{
	view_of(ctx, v);
}

static void on_signals(struct player *p, const struct loop_wake *w)
{
	for (int i = 0; i < w->nsig; i++) {
		if (w->sig[i] == SIGWINCH)
			ui_resize();
		else
			p->quit = true;
	}
}

/* The metrics listener is served after every wake-up (drive.c). */
static void scrape_ready(void *ctx, int fd, short revents)
{
	(void)ctx;
	(void)fd;
	(void)revents;
}

/* The recorded feed, as the driver calls it. */
static bool feed_done(void *ctx)
{
	struct player *p = ctx;
	return p->quit || (p->headless && p->ended);
}

static int feed_timeout(void *ctx)
{
	struct player *p = ctx;
	arm(p);
	/* Wake at least every half second so the clock on screen moves. */
	return metrics_timeout_ms(replay_metrics_server(p->metrics), p->paused || p->ended ? -1 : 500);
}

static void feed_serve(void *ctx)
{
	struct player *p = ctx;
	metrics_serve(replay_metrics_server(p->metrics));
}

static void feed_wake(void *ctx, const struct loop_wake *w)
{
	struct player *p = ctx;
	on_signals(p, w);
	advance(p);
}

static bool feed_keys(void *ctx)
{
	struct player *p = ctx;
	struct ui_view v;
	view_of(p, &v);
	bool got = ui_keys_drain(&v, &p->vs, &p->quit, key_apply, key_view, p);
	/* a seek or a change of speed: the history and the clock move now */
	advance(p);
	return got;
}

static void feed_lost(void *ctx)
{
	struct player *p = ctx;
	p->quit = true;
}

static void feed_draw(void *ctx)
{
	struct player *p = ctx;
	struct ui_view v;
	if (history_last(p->hist))
		view_clamp(&p->vs, history_last(p->hist)->nproc);
	view_of(p, &v);
	ui_draw(&v);
}

static void play(struct player *p)
{
	struct metrics *m = replay_metrics_server(p->metrics);
	p->anchor_wall = clock_mono();
	loop_set_term(p->loop, p->headless ? -1 : ui_fd());
	if (metrics_fd(m) >= 0)
		loop_add_fd(p->loop, metrics_fd(m), POLLIN, scrape_ready, p);
	advance(p);
	if (!p->headless)
		feed_draw(p);
	struct feed f = { p, p->loop, !p->headless, feed_done, feed_timeout, feed_serve, feed_wake,
	                  feed_keys, feed_lost, feed_draw };
	drive(&f);
}

void replay_draw_frames(const struct run *r, struct recording *rec, int n)
{
	struct player p = { .run = r, .rec = rec, .speed = 1, .paused = true, .vs = { .units = r->units } };
	struct ui_view v;
	p.duration = recording_duration(rec);
	p.study = study_text(rec);
	p.hist = history_new(REPLAY_HISTORY);
	for (int k = 0; p.hist && k <= n; k++) {
		seek(&p, n ? p.duration * k / n : p.duration);
		if (history_last(p.hist))
			view_clamp(&p.vs, history_last(p.hist)->nproc);
		view_of(&p, &v);
		ui_draw(&v);
	}
	free(p.study);
	history_free(p.hist);
}

int replay_main(const struct run *r)
{
	char err[512];
	struct recording *rec;
	int rc = recording_load(r->replay, &rec, err, sizeof err);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", err);
		return rc == -EINVAL ? 2 : 3;
	}
	struct player p = { .run = r, .rec = rec, .speed = 1, .vs = { .units = r->units } };
	int sigs[LOOP_SIG_LIST] = { SIGWINCH };
	int nsig = 1 + loop_quit_signals(sigs + 1, LOOP_SIG_LIST - 1);
	p.duration = recording_duration(rec);
	p.hist = history_new(REPLAY_HISTORY);
	p.study = study_text(rec);
	int status = 0;
	if (!p.hist || !(p.loop = loop_new(sigs, nsig))) {
		fprintf(stderr, "benchtop: cannot set up the replay: %s\n", strerror(p.hist ? errno : ENOMEM));
		status = 3;
	} else if ((r->metrics || r->metrics_listen) &&
	           (rc = replay_metrics_open(&p.metrics, r, rec, err, sizeof err))) {
		fprintf(stderr, "benchtop: %s\n", rc == -ENOMEM ? strerror(ENOMEM) : err);
		status = rc == -EINVAL ? 2 : 3;
	} else if (r->batch && p.metrics) {
		/* No screen, but something to feed: play at the recorded pace. */
		p.headless = true;
		play(&p);
	} else if (!r->batch) {
		struct theme probe;
		if (!ui_terminal_usable(err, sizeof err)) {
			fprintf(stderr, "benchtop: %s\n", err);
			status = 2;
		} else if (theme_load(r->theme, &probe, err, sizeof err) < 0) {
			fprintf(stderr, "benchtop: %s\n", err);
			status = 2;
		} else if (ui_open(r->theme, r->no_color, err, sizeof err) < 0) {
			fprintf(stderr, "benchtop: %s\n", err);
			status = 3;
		} else {
			ui_set_mouse(!r->no_mouse);
			play(&p);
			ui_close();
		}
	}
	if (!status) {
		printf("replay of %s (%.1f s, %zu samples, %zu events)\n", r->replay, p.duration,
		       recording_nsamples(rec), recording_nevents(rec));
		recording_print_summary(rec, p.vs.units, stdout);
	}
	replay_metrics_close(p.metrics, r->keep);
	loop_free(p.loop);
	history_free(p.hist);
	free(p.study);
	recording_free(rec);
	return status;
}

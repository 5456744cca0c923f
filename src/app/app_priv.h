/* app_priv.h - what run.c (the loop) and run_setup.c (setting a run up,
 * checking the command line against the machine, tearing it down) share.
 * Private to those two files. */
#ifndef BENCHTOP_APP_PRIV_H
#define BENCHTOP_APP_PRIV_H

#include "benchtop/app.h"

/* Samples the history keeps at most (30 min at 0.5 s); the dashboard keeps
 * what its terminal's width can show (ui_history_need), batch runs the
 * last few (phases and rates need two; an experiment's table looks back
 * for the last sample with live processes). */
#define HISTORY_CAP 3600
#define HISTORY_BATCH 16
/* The dashboard's history size now: ui_history_need, at most HISTORY_CAP. */
size_t app_history_need(void);

double app_mono(void);

/* Make the model, sampler, cpufreq, signalfd, timerfd and workloads (files
 * prepared, nothing started).  0 or -errno with a message (exit 3). */
int app_setup(struct app *a, char *msg, size_t len);
/* Undo everything app_setup and the run did: governors restored, files
 * removed (unless --keep), memory freed.  Safe after a partial setup. */
void app_teardown(struct app *a);
/* The placement workloads start with (--cpus, --placement pack). */
int app_start_mask(struct app *a, unsigned char **out, char *msg, size_t len);
/* CPUs, governors, theme and permissions the command line names, checked
 * on this machine before anything runs: -EINVAL exit 2, else exit 3. */
int app_check_start(struct app *a, char *msg, size_t len);
int app_start_workloads(struct app *a, char *msg, size_t len);
/* Steps before the run's clock starts (--drop-caches), timed. */
int app_prepare(struct app *a, char *msg, size_t len);
int app_open_record(struct app *a, char *msg, size_t len);
/* Put the record file at its name, just before its first line. */
int app_publish_record(struct app *a, char *msg, size_t len);
/* After writing to the record: the first failure is said once (naming the
 * file) and the recording stops; the run goes on. */
void app_check_record(struct app *a);
/* Flush and close the record: 0, or the error that cut it short. */
int app_close_record(struct app *a);
/* Give up before the run started: remove the new record file, tear down,
 * return status. */
int app_abandon(struct app *a, int status);
/* Give the terminal back and kill the workloads if benchtop crashes. */
void app_catch_crashes(struct app *a);

/* --metrics and --metrics-listen (live_metrics.c): open before the run
 * starts (0, -EINVAL for a bad address: exit 2, else -errno: exit 3, with
 * msg); after every tick's sample; the listener's descriptor for the poll
 * loop (-1 when none), the poll timeout it needs, answering scrapes after
 * each wake-up; close at teardown (the file removed unless --keep). */
int app_metrics_open(struct app *a, char *msg, size_t len);
void app_metrics_tick(struct app *a);
int app_metrics_fd(const struct app *a);
int app_metrics_timeout(const struct app *a, int loop_ms);
void app_metrics_serve(struct app *a);
void app_metrics_close(struct app *a);

/* What the dashboard shows of run a now, for ui_draw and ui_key
 * (live_view.c): the view state, history, workloads and cpufreq's figures.
 * v points into a until the next call. */
struct ui_view;
void app_view_of(struct app *a, struct ui_view *v);

#endif

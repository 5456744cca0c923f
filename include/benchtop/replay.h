/* replay.h - --replay: the dashboard, batch lines and metrics fed from a
 * recording (recording.h) at the recorded pace (replay.c,
 * replay_metrics.c). */
#ifndef BENCHTOP_REPLAY_H
#define BENCHTOP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include "benchtop/cli.h"
#include "benchtop/model.h"
#include "benchtop/recording.h"

/* --metrics and --metrics-listen on a replay (replay_metrics.c): the
 * recording's values as they play.  Open before playing (0, or -EINVAL
 * for a bad address: exit 2, another -errno: exit 3, with msg); after
 * each sample is fed to h, tick with it (a failed file write goes to
 * msg); the server to poll and serve (NULL when none); close at the end
 * (the file removed unless keep).  NULL is fine everywhere but open. */
struct replay_metrics;
struct metrics;
/* Set up r's --metrics / --metrics-listen for rec; *out is set even on
 * failure (close it). */
int replay_metrics_open(struct replay_metrics **out, const struct run *r,
                        const struct recording *rec, char *msg, size_t len);
/* Sample s was just fed to h: expose it (and the events in h). */
void replay_metrics_tick(struct replay_metrics *rm, const struct snapshot *s,
                         const struct history *h, char *msg, size_t len);
/* The server for metrics_fd / metrics_serve, NULL when none. */
struct metrics *replay_metrics_server(struct replay_metrics *rm);
/* Stop serving, remove the file unless keep, free rm. */
void replay_metrics_close(struct replay_metrics *rm, bool keep);

/* Draw rec on the open screen (ui_open_term) as --replay shows it at n+1
 * evenly spaced times from its start to its end, without waiting (the
 * frames a replay can show: the replay fuzz harness draws them all). */
void replay_draw_frames(const struct run *r, struct recording *rec, int n);
/* --replay FILE: show the recording in the dashboard at its recorded pace
 * (space pauses, < > halve / double the speed, q quits), then print the
 * summary.  Returns the exit status: 0, 2 (not a recording, broken line,
 * bad theme), 3 (cannot read the file or start the terminal). */
int replay_main(const struct run *r);

#endif

/* workload.h - one workload's lifecycle: prepare its files, spawn its
 * processes (a command in its own process group, or the roles of a
 * built-in engine), pause, stop, restart, reap, and remember what it did
 * (bytes, CPU time, elapsed, exit status).
 *
 * Call order: workload_new, workload_start, then for every child that
 * exits workload_reap (via workload_owns), workload_poll each tick;
 * workload_stop / workload_kill at the end; workload_free. */
#ifndef BENCHTOP_WORKLOAD_H
#define BENCHTOP_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include "benchtop/cli.h"
#include "benchtop/model.h"

struct workload;
struct sampler;

/* id is 1-based.  scratch: benchtop's scratch directory. */
struct workload *workload_new(int id, const struct wl_spec *spec, const struct run *run,
                              const char *scratch);
void workload_free(struct workload *w);

/* Check the files (exists, space, O_DIRECT) without starting: 0 or -errno
 * with a message (the caller exits 3). */
int workload_prepare(struct workload *w, char *msg, size_t len);
/* Spawn the processes; each gets mask (ncpu bytes, NULL = leave) before
 * exec or before its engine loop, and is added to the sampler. */
int workload_start(struct workload *w, struct sampler *sp, const unsigned char *mask, int ncpu,
                   double now, char *msg, size_t len);

/* The placement its processes get before they run (copied; NULL: leave
 * them as they are).  Placement actions call it so later processes start
 * where the rule says. */
void workload_set_mask(struct workload *w, const unsigned char *mask);
/* Where each new process goes before it runs, by its slot ("writer",
 * "seeker.2", "cmd" for a command's root, "source"): fn(ctx, id, slot)
 * returns its mask, or NULL to leave it.  With a placer the mask of
 * workload_set_mask is not used. */
typedef const unsigned char *(*workload_placer)(void *ctx, int id, const char *slot);
/* Make fn, called with ctx, choose the mask of each process w starts from
 * now on. */
void workload_set_placer(struct workload *w, workload_placer fn, void *ctx);
/* True when pid is one of this workload's direct children. */
bool workload_owns(const struct workload *w, pid_t pid);
/* Is pid benchtop's own helper of w (the sync(2) at a command's end),
 * not a process of the command's tree? */
bool workload_is_helper(const struct workload *w, pid_t pid);
/* CPU time of a descendant benchtop reaped as its subreaper. */
/* benchtop reaped a process of w's tree (an orphan handed to it) at now
 * (run seconds, taken once the process had ended): the tree ended no
 * earlier. */
void workload_note_reaped(struct workload *w, double now);
void workload_add_rusage(struct workload *w, const struct rusage *ru);
/* A direct child exited with wait status st and resource use ru. */
void workload_reap(struct workload *w, pid_t pid, int st, const struct rusage *ru, double now);
/* Per tick: read engine counters into ws (bytes, rates, calls, state),
 * start the timed sync after a command, notice failures. */
void workload_poll(struct workload *w, struct wl_sample *ws, double now, double dt);

void workload_signal(struct workload *w, int sig);   /* every process of it */
/* SIGSTOP (pause) or SIGCONT every process of it; the state follows. */
void workload_pause(struct workload *w, bool pause);
/* Ask to stop (SIGTERM now; workload_kill later sends SIGKILL). */
void workload_stop(struct workload *w);
void workload_kill(struct workload *w);
/* Remove the files it invented (unless keep) after its processes ended. */
void workload_cleanup(struct workload *w);

/* Its state now; its 1-based number among the run's workloads. */
enum wl_state workload_state(const struct workload *w);
bool workload_running(const struct workload *w);   /* has live children */
int workload_id(const struct workload *w);
const char *workload_name(const struct workload *w); /* "copy engine=pipe procs=3" */
const char *workload_error(const struct workload *w); /* "" when fine */
/* Bytes done so far, read now (engines: their counters; commands: the
 * last sample's figure). */
uint64_t workload_bytes_now(const struct workload *w);
/* Bytes done by one of its engine processes (the writer's written, the
 * reader's read); false for pids that are not its engine processes. */
bool workload_proc_bytes(const struct workload *w, pid_t pid, uint64_t *bytes);
/* Complete passes so far: an engine's passes over its files (it loops
 * inside its processes under --loop and for the default workload; with
 * jobs=N, the passes every job has done), a command's finished runs. */
uint64_t workload_passes(const struct workload *w);
/* Direct children's pids (roots of its process trees). */
int workload_pids(const struct workload *w, pid_t *pids, int max);

/* Totals for the summary: CPU seconds of all its processes (exited ones
 * from wait4's rusage), wall time from start to the end of its flush, and
 * bytes done. */
struct workload_totals {
	double user, sys, elapsed;
	uint64_t bytes, calls;
	int runs;
	/* commands: "read" when its bytes are what it read from regular
	 * files (it read more than twice what it wrote), "written" when it
	 * did both and the bytes are the written ones; NULL otherwise */
	const char *counted;
	/* commands: 'r' or 'w', the side bytes is (the same rule, "read"
	 * only when it read more than twice what it wrote); 0 for engines
	 * and for a command that moved nothing */
	char side;
	/* both directions: bytes read from and written to regular files
	 * (an engine's source and destination side); rw_known false when
	 * they could not be read (shown as null) */
	uint64_t read_bytes, write_bytes;
	bool rw_known;
	double paused;           /* seconds of elapsed it spent paused */
	double io_elapsed;       /* engines: seconds from the first I/O mark of
	                          * its processes to their last (its calls and
	                          * flush, without the set-up around them); 0
	                          * for commands */
};
/* Its totals over every run so far (bytes, calls, CPU, time) into *t. */
void workload_totals(const struct workload *w, struct workload_totals *t);
/* Rows of a two-phase run (rewrite): phase 0 and phase 1 totals. */
int workload_phase_rows(const struct workload *w, struct workload_totals rows[2],
                        const char *names[2]);

/* Give the workload a cgroup of its own (owned from now on; removed by
 * workload_free once empty): its processes join it before they exec, its
 * CPU is the group's, and it ends when the last process of its tree ends.
 * NULL: none here (processes are tracked by group and descent only). */
struct cgroup;
void workload_set_cgroup(struct workload *w, struct cgroup *g);
const struct cgroup *workload_cgroup(const struct workload *w);
/* After children were reaped: a workload whose children ended while other
 * processes of its tree ran on ends once the last of them has ended. */
void workload_tree_check(struct workload *w, double now);
/* Allow a restart after a stop (r key, --loop). */
void workload_rearm(struct workload *w);
bool workload_stop_requested(const struct workload *w);
const struct wl_spec *workload_spec(const struct workload *w);
const char *workload_kind(const struct workload *w);   /* "copy", "cmd", ... */
double workload_ended_at(const struct workload *w);  /* run seconds, 0 while running */

#endif

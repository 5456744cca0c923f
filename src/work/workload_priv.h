/* workload_priv.h - what the source files of benchtop's workload module
 * share: the workload itself and the functions one file calls in another
 * (workload.c: life, reaping, signals, cleanup; workload_spawn.c: starting
 * its processes; workload_rows.c: the figures it reports).  Not part of
 * any other module's contract. */
#ifndef BENCHTOP_WORKLOAD_PRIV_H
#define BENCHTOP_WORKLOAD_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "benchtop/cgroup.h"
#include "benchtop/engine.h"
#include "benchtop/workload.h"

#define WL_MAX_CHILDREN 256

struct child {
	pid_t pid;
	int job, role;
	bool alive;
	double setup_user, setup_sys;  /* a command's CPU in its child before the exec:
	                                * benchtop's set-up, not the command's */
};

#define ROLE_CMD (-1)
#define ROLE_SOURCE (-2)

struct workload {
	int id;
	const struct wl_spec *spec;
	struct wl_spec own;          /* the spec, with an invented source filled in */
	/* The default workload's source is written by a child of its own, so
	 * the dashboard moves at once instead of waiting for 1 GiB. */
	char *src_path;
	uint64_t src_size;
	struct engine_counters *src_ctr;
	bool src_made, src_ready;
	uint64_t src_last;           /* source bytes at the last tick */
	const struct run *run;
	char scratch[4096];
	char name[160];
	enum wl_state state;
	char err[320];
	int exit_code;
	struct child ch[WL_MAX_CHILDREN];
	int nch;
	pid_t sync_pid;
	bool prepared, stop_requested, paused;
	struct engine_plan plan;
	struct engine_counters *ctr;
	int nctr;
	struct sampler *sp;
	double t_start, t_end, elapsed_done;
	double t_reaped;                            /* the run's clock when its last child was reaped */
	double io_done;          /* engines: the runs' io_elapsed (workload_totals) */
	double ru_user, ru_sys;
	double seen_user, seen_sys;  /* the most the samples ever showed */
	double seen_base_user, seen_base_sys;
	bool seen_based;             /* attached: the base above was taken */
	uint64_t bytes_done_runs, rbytes_done_runs, calls_done_runs; /* of finished runs */
	uint64_t passes_done_runs;                  /* passes of finished runs */
	uint64_t bytes_seen;                        /* the latest total shown */
	uint64_t rbytes_seen, wbytes_seen;          /* read and written, never going back */
	bool rw_seen;                               /* they were read at least once */
	uint64_t rbytes_last, bytes_last, calls_last;
	char counted;                               /* commands: 'w' written, 'r' read */
	double t_read;                              /* CLOCK_MONOTONIC of the last poll */
	bool both;                                  /* commands: wrote and read regular files */
	double t_called;                            /* CLOCK_MONOTONIC when workload_start began */
	double t_paused, paused_s;                  /* when the pause began; seconds paused */
	int runs;
	unsigned char *mask;         /* own copy of the placement for new processes, or NULL */
	int ncpu;
	workload_placer placer;      /* the rule for each new process by its slot, or NULL */
	void *placer_ctx;
	/* Its cgroup (NULL where none could be made): every process of its
	 * tree, whatever it does, and their CPU. */
	struct cgroup *cg;
	int cg_fd;                   /* its cgroup.procs, for children to join */
	double cg_base_user, cg_base_sys; /* the default source writer's share */
	double cg_user, cg_sys;      /* the last figures read */
	bool tree_wait;              /* its children ended, other processes of its tree not yet */
	bool tail_source;            /* ...and the one that ended last was the source writer */
	/* pattern=rewrite: the write and the rewrite as two rows */
	struct workload_totals rows[2];
	double run_user0, run_sys0;
	char row_names[2][180];
};

/* A default copy whose source is not written yet (workload.c). */
bool workload_needs_source(const struct workload *w);

/* workload_spawn.c */
/* The children's groups are gone (reaped): out of the journal. */
void workload_forget_groups(struct workload *w);
/* The source is written: the copy itself starts now, and its time, bytes
 * and CPU are counted from here. */
void workload_source_done(struct workload *w, double now);
/* A command's run ends with sync(2), timed, in a child (its pid in
 * w->sync_pid when it could be started). */
void workload_start_sync(struct workload *w);

/* workload_attach.c */
/* Follow the --attach processes as this workload (kind attached). */
int workload_attach_start(struct workload *w, char *msg, size_t len);
/* One of them, or a descendant still tracked, runs. */
bool workload_attached_alive(const struct workload *w);

/* workload_rows.c */
/* Add this run's write and rewrite (pattern=rewrite) to w->rows. */
void workload_add_rewrite_rows(struct workload *w);
/* Seconds from the first phase 0 mark of the instance's jobs to their last
 * done mark (now for a job not done): the time its I/O took. */
double workload_io_span(const struct workload *w, double now);
/* Passes every job of the running instance has completed. */
uint64_t workload_engine_passes(const struct workload *w);

#endif

/* model.h - what one tick sees (struct snapshot) and what the run remembers
 * (struct history: a ring of snapshots, the events, per-workload totals).
 *
 * The sampler fills snapshots; every view (dashboard panels, batch lines,
 * the recorder, the summary) only reads them.  Replay fills the same
 * structures from a recording.  Values that could not be measured are
 * marked missing (negative numbers, or empty strings), never invented. */
#ifndef BENCHTOP_MODEL_H
#define BENCHTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "benchtop/event.h"

#define MODEL_GOV_LEN 32
#define MODEL_ROLE_LEN 12
#define MODEL_COMM_LEN 16
#define MODEL_SLOT_LEN 24
#define MODEL_PIDS_LEN 64
#define MODEL_LABEL_LEN EVENT_LABEL_LEN

enum wl_state { WLS_STARTING, WLS_RUNNING, WLS_PAUSED, WLS_DONE, WLS_FAILED };
/* "starting", "running", ... as records and the dashboard spell them. */
const char *model_wl_state_name(enum wl_state s);

/* How CPU frequency is known on this machine (or in the --sysfs tree). */
enum freq_source { FREQ_NONE, FREQ_AVG, FREQ_APERF, FREQ_SCALING_CUR, FREQ_CPUINFO };

struct cpu_sample {
	int id;
	double user, system, iowait, irq, idle;  /* % of the interval */
	long khz;                                /* current frequency, -1 unknown */
	char governor[MODEL_GOV_LEN];            /* "" when none */
	char procs[MODEL_PIDS_LEN];              /* "123,456": workload pids on it now */
};

struct proc_sample {
	pid_t pid;
	pid_t ppid;                   /* its parent (the tree view), 0 unknown */
	int workload;                 /* 1-based workload id, 0 = attached */
	char role[MODEL_ROLE_LEN];    /* an engine's reader, writer, control, seeker, source;
	                               * a command's process: reader, writer, pipe or idle
	                               * as inferred from what it did ("cmd" until known) */
	char slot[MODEL_SLOT_LEN];    /* its place in the workload, the same for the process
	                               * that takes its place after a restart: "writer",
	                               * "seeker.2", "cmd" (a command's root), COMM.N (a
	                               * command's descendants); placement rules and the
	                               * placement strip's rows are per slot */
	char comm[MODEL_COMM_LEN];
	int cpu;                      /* CPU it last ran on */
	unsigned char *allowed;       /* allowed CPUs: a mask of the snapshot's ncpu bytes
	                               * (1 = allowed; none set: unknown), held by the
	                               * snapshot (snapshot_copy keeps it); NULL: unknown */
	char state;                   /* R S D T Z ... */
	int nthreads;
	double cpu_pct;               /* %CPU over the interval (all threads) */
	double wait_pct;              /* run-queue wait as % of the interval */
	double utime, stime;          /* seconds, cumulative */
	double age;                   /* seconds since it started, -1 unknown */
	double read_bps, write_bps;   /* this process's own I/O rate (rchar/wchar) */
	uint64_t bytes;               /* bytes done by this process (destination side) */
	uint64_t migrations;          /* se.nr_migrations summed over threads */
	bool alive;
};

struct wl_sample {
	int id;
	double read_bps, write_bps;   /* destination-side rates */
	uint64_t bytes;               /* total bytes done (written, or read for read/seek) */
	char counted;                 /* commands: 'w' bytes are written, 'r' read, 0 none yet */
	uint64_t wbytes, rbytes;      /* commands: written to / read from regular files */
	uint64_t calls;               /* engine calls, 0 for commands */
	double us_per_call;           /* wall time per call over the interval, -1 unknown */
	uint64_t passes;              /* complete passes over its files (engines loop inside
	                               * their processes; a command: finished runs) */
	double utime, stime;          /* cumulative, including exited descendants */
	enum wl_state state;
};

struct disk_sample {
	char device[32];              /* "vda", "" when unknown */
	double read_bps, write_bps;
	uint64_t dirty, writeback;    /* bytes, from meminfo */
};

struct snapshot {
	double t;                     /* seconds since start */
	double dt;                    /* seconds since the previous snapshot */
	int ncpu;
	struct cpu_sample *cpus;
	int nproc;
	struct proc_sample *procs;
	int nwl;
	struct wl_sample *wls;
	struct disk_sample disk;
	double self_cpu_pct;          /* benchtop's own CPU use over the interval */
	double self_tick_us;          /* CPU time one tick cost, microseconds */
	double late;                  /* seconds this sample came after its interval
	                               * ended (benchtop was not run in time), 0 on time */
};

/* Allocate / free a snapshot with room for ncpu CPUs, nproc processes and
 * nwl workloads (arrays may later be grown with snapshot_reserve); each
 * process's allowed mask (ncpu bytes) comes with its room. */
struct snapshot *snapshot_new(int ncpu, int nproc, int nwl);
int snapshot_reserve_procs(struct snapshot *s, int nproc);
void snapshot_copy(struct snapshot *dst, const struct snapshot *src);
/* Process slot i's allowed mask (s->ncpu bytes), its pointer put back in
 * s->procs[i] (after the slot was overwritten by a whole proc_sample);
 * NULL out of range or out of memory. */
unsigned char *snapshot_allowed(struct snapshot *s, int i);
void snapshot_free(struct snapshot *s);

/* The history: a ring of the last `cap` snapshots plus every event. */
struct history;
/* An empty history keeping the last cap snapshots; NULL-safe free. */
struct history *history_new(size_t cap);
void history_free(struct history *h);
/* Append a copy of s (the ring drops the oldest when full). */
int history_push(struct history *h, const struct snapshot *s);
size_t history_len(const struct history *h);
size_t history_cap(const struct history *h);
/* Keep up to cap snapshots from now on, the ones held staying (it only
 * grows: a smaller cap is ignored).  Snapshots are allocated as they come,
 * so memory follows the run's length up to cap.  0 or -ENOMEM. */
int history_grow(struct history *h, size_t cap);
/* i = 0 is the oldest kept, history_len()-1 the newest; NULL if out of range. */
const struct snapshot *history_at(const struct history *h, size_t i);
const struct snapshot *history_last(const struct history *h);
/* Total snapshots ever pushed (for sample counters that outlive the ring). */
uint64_t history_total(const struct history *h);

/* Before an event: workload i's (0-based, as in a snapshot's wls) byte
 * total now (exact for engines), so what moved since the last snapshot
 * counts in the phase the event closes rather than the next one. */
void history_close_phase_bytes(struct history *h, int i, uint64_t bytes_now);
int history_add_event(struct history *h, const struct event *e);
/* An event that does not start a phase (a workload that ended for good:
 * the phase table has one row per user action, --at action or marker). */
int history_note_event(struct history *h, const struct event *e);
size_t history_nevents(const struct history *h);
const struct event *history_event(const struct history *h, size_t i);

/* Every workload ended at t (run seconds): the phase going on then ends
 * there, however long the finished run stays on screen; t < 0: work goes
 * on again (a restart), and phases follow the samples once more. */
void history_work_ended(struct history *h, double t);

/* What one workload moved in a phase, each figure on its own: its bytes
 * as its samples counted them (an engine's destination side), and a
 * command's reads from and writes to regular files, so that the side a
 * command is rated by, which may change while it runs, is chosen once, at
 * the end, for the whole run. */
struct phase_wl {
	uint64_t bytes, rbytes, wbytes;
};

/* Running phase accounting: between events.  A phase is [from, to). */
struct phase {
	double from, to;
	char label[MODEL_LABEL_LEN];
	struct phase_wl *wl;          /* per workload, as in a snapshot's wls */
	int nwl;
	double cpu_s;                 /* user+sys CPU seconds of workload processes */
	uint64_t migrations;
	double khz_sum;               /* sum of khz*dt over CPUs (for mean frequency) */
	double khz_time;              /* sum of dt over CPUs with a known khz */
};
/* Phases so far (at least one, the current last); phase i, 0-based. */
size_t history_nphases(const struct history *h);
const struct phase *history_phase(const struct history *h, size_t i);
/* The current phase takes this label (a caption naming the step an
 * action at the same moment opened). */
void history_label_phase(struct history *h, const char *label);
/* The bytes workload i (0-based) moved in phase p, counted by side: 'r'
 * what it read, 'w' what it wrote, anything else its bytes. */
uint64_t phase_wl_bytes(const struct phase *p, int i, char side);
/* Did the workloads move anything in phase p, either way? */
bool phase_moved(const struct phase *p);

#endif

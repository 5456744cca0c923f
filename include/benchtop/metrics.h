/* metrics.h - the run's current figures for Prometheus: written each tick
 * to a file in the text exposition format (for node_exporter's textfile
 * collector), and served on GET /metrics (text format, or OpenMetrics 1.0
 * when the scraper's Accept header asks for it).
 *
 * Call order: metrics_open (checks the file's directory and binds the
 * listener, before anything runs), then once per tick metrics_update with
 * what the tick saw; when metrics_fd() >= 0, poll it for POLLIN in the
 * caller's loop and call metrics_serve when it is readable; metrics_close
 * at the end.  Everything runs on the caller's thread: no threads, no
 * signals, no blocking I/O on the network. */
#ifndef BENCHTOP_METRICS_H
#define BENCHTOP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "benchtop/model.h"

enum metrics_format { METRICS_TEXT, METRICS_OPENMETRICS };

/* What a workload is, for benchtop_workload_info. */
struct metrics_wl {
	const char *kind;             /* "copy", "write", ... */
	const char *engine;           /* "pipe", ... ; "" for none */
	const char *test;             /* "copy engine=pipe procs=3" */
};

/* Per-CPU residency rows: seconds at each frequency (kHz) since start.
 * Returns the number of rows; the arrays belong to ctx. */
typedef size_t (*metrics_residency_fn)(void *ctx, int cpu, const long **khz, const double **secs);

/* Everything one exposition shows.  All pointers are borrowed: they must
 * stay valid and unchanged until the next metrics_update (or close). */
struct metrics_view {
	const struct snapshot *snap;  /* the latest tick; NULL before the first */
	const struct metrics_wl *wl;  /* wl[id - 1] for workload id */
	int nwl;
	bool have_freq;               /* false: no frequency families at all */
	metrics_residency_fn residency; /* NULL: no residency family */
	void *residency_ctx;
	const struct history *hist;   /* events, counted by action; may be NULL */
	double self_cpu_s;            /* benchtop's own CPU seconds; < 0 unknown */
	double disk_read_bytes;       /* since start, device snap->disk.device; < 0 unknown */
	double disk_written_bytes;
	const char *version;
};

/* Write the exposition of v in format f to fp.  Families without a sample
 * are left out (so a machine without a frequency source has no frequency
 * families).  Returns 0, or -EIO when fp reported an error. */
int metrics_render(FILE *fp, const struct metrics_view *v, enum metrics_format f);
/* The same into a new buffer (the caller frees it), *len its length. */
char *metrics_render_mem(const struct metrics_view *v, enum metrics_format f, size_t *len);

/* Which format an Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text with a q at least that of text/plain (as
 * the official client libraries negotiate), else the text format. */
enum metrics_format metrics_negotiate(const char *accept);

/* The counters a recording (or the sampler's rates) leave to be summed:
 * residency sampled from snapshots (khz over dt), disk bytes (rates over
 * dt) and benchtop's CPU seconds (self_cpu_pct over dt).  Feed every
 * snapshot, then read the sums. */
struct metrics_acc;
/* A new accumulator with every sum at 0. */
struct metrics_acc *metrics_acc_new(void);
/* Add one snapshot's interval (s->dt) to every sum; acc NULL is fine. */
void metrics_acc_add(struct metrics_acc *acc, const struct snapshot *s);
/* A metrics_residency_fn over acc (passed as ctx): rows by frequency. */
size_t metrics_sampled_residency(void *acc, int cpu, const long **khz, const double **secs);
/* Bytes read from the device since the first snapshot (-1 for NULL). */
double metrics_acc_disk_read(const struct metrics_acc *acc);
/* Bytes written to the device since the first snapshot (-1 for NULL). */
double metrics_acc_disk_written(const struct metrics_acc *acc);
/* benchtop's CPU seconds, from self_cpu_pct (-1 for NULL). */
double metrics_acc_self_cpu(const struct metrics_acc *acc);
/* Free acc; NULL is fine. */
void metrics_acc_free(struct metrics_acc *acc);

struct metrics;

/* Set up --metrics FILE (may be NULL) and --metrics-listen [ADDR:]PORT
 * (may be NULL).  The file's directory must take a new file (one is made
 * and removed to be sure) and FILE must not exist unless force; the
 * address is bound and listening on return.  Returns 0, or with a
 * sentence in msg naming the file or address: -EINVAL for an address
 * that is not one (exit 2), another -errno when the machine refuses (a
 * port in use, an address not on this host, a directory not writable:
 * exit 3).  Nothing is left behind on failure. */
int metrics_open(struct metrics **out, const char *file, const char *listen, bool force,
                 char *msg, size_t len);
/* Take the tick's figures: store v (borrowed, see struct metrics_view) for
 * scrapes until the next update, and rewrite FILE atomically (a new file
 * in the same directory, made with O_EXCL|O_NOFOLLOW, renamed over FILE).
 * Returns 0 or the -errno of a failed write (the old file then stays). */
int metrics_update(struct metrics *m, const struct metrics_view *v);
/* The descriptor to poll for POLLIN, -1 when not listening (m NULL too). */
int metrics_fd(const struct metrics *m);
/* The poll timeout to use instead of loop_ms (-1 = none) so that slow or
 * idle connections are timed out: the smaller of the two. */
int metrics_timeout_ms(const struct metrics *m, int loop_ms);
/* Answer what is ready on the listener without waiting.  Call it after
 * every poll wake-up while listening (MHD_run's rule for external
 * polling); NULL is fine. */
void metrics_serve(struct metrics *m);
/* What the listener is bound to ("127.0.0.1:9101"), "" when not listening. */
const char *metrics_address(const struct metrics *m);
/* Stop serving; remove FILE unless keep.  NULL is fine. */
void metrics_close(struct metrics *m, bool keep);

#endif

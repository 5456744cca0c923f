/* recording.h - recordings (SPEC §4 JSON Lines) read back: the loader
 * shared by --replay and --report (record_read.c).
 *
 * A recording is a start record, then samples and events in the order they
 * happened, then (when the run ended well) an end record.  Unknown keys
 * are ignored and unknown record types skipped, so newer recordings still
 * load; a line that is not JSON at all is an error naming file and line. */
#ifndef BENCHTOP_RECORDING_H
#define BENCHTOP_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "benchtop/cli.h"
#include "benchtop/json.h"
#include "benchtop/model.h"

struct recording;

/* The longest line a recording may have (a sample of thousands of
 * processes is far shorter). */
#define RECORDING_LINE_MAX (16 << 20)

/* Load a whole recording.  Returns 0 and *out; or, with a message in err
 * that names the file (and line and column for a broken record):
 * -errno when the file cannot be read (the caller exits 3), -EINVAL when
 * it is not a regular file, not a benchtop recording, a line is longer
 * than RECORDING_LINE_MAX or broken (exit 2). */
int recording_load(const char *path, struct recording **out, char *err, size_t errlen);
void recording_free(struct recording *rec);

/* The start record (always there) and the end record (NULL when the run
 * was cut short).  Valid until recording_free. */
const struct json *recording_start(const struct recording *rec);
const struct json *recording_end(const struct recording *rec);

/* Samples rebuilt as snapshots, events as the model holds them. */
size_t recording_nsamples(const struct recording *rec);
const struct snapshot *recording_sample(const struct recording *rec, size_t i);
size_t recording_nevents(const struct recording *rec);
const struct event *recording_event(const struct recording *rec, size_t i);

/* Samples and events merged in file order: item i is an event
 * (*is_event true) or a sample, with its index in the lists above;
 * returns its time t.  i < recording_nitems. */
size_t recording_nitems(const struct recording *rec);
double recording_item(const struct recording *rec, size_t i, bool *is_event, size_t *index);

/* Workload names (start record's "name", else "spec"), 0-based. */
int recording_nwl(const struct recording *rec);
const char *const *recording_wl_names(const struct recording *rec);
/* Seconds the recording covers: the end record's t, else the last item's. */
double recording_duration(const struct recording *rec);
/* The start record's "cpufreq": "kernel", "sampled" or "none". */
const char *recording_cpufreq(const struct recording *rec);

/* Time CPU cpu spent at each frequency (sorted rows of kHz and seconds,
 * at most cap) over the phases of the end record that had ended by t
 * (run seconds; INFINITY: all of them), or with last_only over the last
 * of those alone: the residency the run recorded per phase.  Returns the
 * number of rows; 0 when the recording has none. */
size_t recording_residency(const struct recording *rec, double t, bool last_only, int cpu,
                           long *khz, double *secs, size_t cap);

/* In an experiment's recording, the label of the step (cell) in progress
 * at t (the last that began by then; the first before it), with *k its
 * number from 1 and *n the count of steps; NULL in other recordings. */
const char *recording_step_at(const struct recording *rec, double t, size_t *k, size_t *n);

/* The SPEC §5 tables from the end record (per workload, then per phase,
 * then the cpufreq policies the run ended under), rates in `units`.  Says
 * so in one line when the recording has no end record. */
void recording_print_summary(const struct recording *rec, enum units_mode units, FILE *fp);

#endif

/* record.h - what leaves a live run as it goes: the JSON Lines records
 * (SPEC §4: start, sample, event, end), the batch text / CSV lines and
 * the summary and phase tables at its end.  The writers read a view of
 * the run (struct run_out) that the run fills, so they see the model,
 * the workloads and cpufreq, never the run itself. */
#ifndef BENCHTOP_RECORD_H
#define BENCHTOP_RECORD_H

#include <stdio.h>
#include <sys/types.h>
#include "benchtop/cli.h"
#include "benchtop/model.h"

struct workload;
struct cpufreq;

/* A cpufreq policy's governor and limits at the end of a run, kept when
 * they are restored before the summary. */
struct policy_end {
	char governor[32];
	long min_khz, max_khz;
};

/* A live run as its writers see it. */
struct run_out {
	const struct run *run;       /* the command line (--format) */
	int ncpu;
	double interval;             /* the asked sampling interval, seconds */
	enum units_mode units;
	struct workload **wl;
	int nwl;
	struct history *hist;
	struct cpufreq *cf;          /* NULL: no cpufreq */
	FILE *rec;                   /* the -o stream: t_offset and cell apply to it */
	double t_offset;             /* added to t in records (an experiment's cells) */
	int cell;                    /* the experiment cell, 0 outside experiments */
	double membw;                /* memcpy bytes/s measured at start, <= 0 unknown */
	double prep_sync, prep_drop; /* --drop-caches seconds before t = 0, < 0 none */
	double ended;                /* t of the end record */
	const pid_t *attached;       /* --attach PIDs */
	size_t nattached;
	const char *scratch;         /* the scratch directory (its disk in the start record), or NULL */
	const struct policy_end *pol_end; /* each policy as the run ended, npol_end 0: not restored */
	int npol_end;
};

/* The first fields of a start record ({"type":"start",...,"interval":N,
 * "machine":{...}), its object left open in w for the caller's own
 * fields (jw_end closes it).  The machine's disks are those under r's
 * workload paths and dir (may be NULL). */
struct jw;
void record_start_head(struct jw *w, int ncpu, double interval, const struct run *r, const char *dir);
/* The start record, the samples, the events and the end record. */
void record_start(const struct run_out *o, FILE *fp);
void record_sample(const struct run_out *o, FILE *fp, const struct snapshot *s);
void record_event(FILE *fp, const struct event *e);
void record_end(const struct run_out *o, FILE *fp);
/* Batch output: the heading (text and CSV) and one line per sample (in
 * JSON, the sample record). */
void batch_header(const struct run_out *o, FILE *fp);
void batch_line(const struct run_out *o, FILE *fp, const struct snapshot *s);

/* The summary and phase tables (summary.c) as text, and as the end
 * record's members ("summary":[...],...,"phases":[...]).  The text is
 * printed from that JSON (summary_tables), so a live run's tables and
 * those of its recording are the same. */
void summary_print(const struct run_out *o, FILE *fp);
void summary_json(const struct run_out *o, struct jw *w);
/* The tables of a run from its start record (the preparation; may be
 * NULL) and its end record, for a live run and a recording alike; t's
 * strings point into end (free t with tables_free). */
struct json;
struct run_tables;
void summary_tables(const struct json *start, const struct json *end, struct run_tables *t);

#endif

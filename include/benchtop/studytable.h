/* studytable.h - one experiment's table in its study's own layout: columns
 * named as the study names them (units in the names, optionally under a
 * group heading, as bonnie's "Block read" over "K/sec %CPU"), rows of
 * numbers or words, notes under the table, and a chart hint for reports.
 *
 * The same table prints as aligned text, as CSV, and as the "experiment"
 * object of the end record (JSON): rows are objects keyed by column key
 * ("GROUP NAME", or NAME without a group), plus "note" and "from_cache". */
#ifndef BENCHTOP_STUDYTABLE_H
#define BENCHTOP_STUDYTABLE_H

#include <stdbool.h>
#include <stdio.h>

#define ST_MAX_COLS 24
#define ST_MAX_NOTES 8
#define ST_TEXT 200

enum st_type { ST_NONE, ST_NUM, ST_WORD };

struct st_cell {
	enum st_type type;   /* ST_NONE prints "-" and null */
	double v;
	char text[ST_TEXT];
	bool cached;         /* a read figure mostly from the page cache */
};

struct st_col {
	char group[32];      /* "" or a heading over several columns */
	char name[32];       /* as in the study, with its unit: "MiB/s", "%CPU" */
	int prec;            /* decimals in text and CSV */
	bool share;          /* a 0..1 fraction printed as a percentage */
	bool left;           /* words: left-aligned */
	bool ratio;          /* a ratio: text prints it as "0.52x" */
};

#define ST_RES_CPUS 16
#define ST_RES_FREQS 16

/* The residency a row's text shows as words, as numbers for its JSON
 * ("residency":{"CPU":{"kHz":seconds,...},...}, "mean_khz":{"CPU":kHz or
 * null,...}): per CPU, seconds at each frequency and the mean (-1 unknown). */
struct st_residency {
	int ncpu;
	long mean_khz[ST_RES_CPUS];
	int nfreq[ST_RES_CPUS];
	long khz[ST_RES_CPUS][ST_RES_FREQS];
	double secs[ST_RES_CPUS][ST_RES_FREQS];
};

struct st_row {
	struct st_cell cell[ST_MAX_COLS];
	char note[ST_TEXT];  /* "" or what the reader must know about the row */
	struct st_residency *res;  /* NULL, or the row's residency (malloc'd,
	                            * st_free frees) */
};

/* Chart hint: "bars" (x: a label column, y: up to 4 value columns),
 * "heatmap" (x and y label columns, z the value column) or "logx" (x a
 * numeric column on a log axis, y a value column). */
struct st_chart {
	char kind[16];
	int x, z;
	int y[4], ny;
};

struct st_table {
	char study[32];
	char title[320];
	char notes[ST_MAX_NOTES][400];
	int nnotes;
	int ncols;
	struct st_col col[ST_MAX_COLS];
	int nrows, cap;
	struct st_row *rows;
	struct st_chart chart;
};

/* Make t an empty table named by study and title, no chart axes chosen. */
void st_init(struct st_table *t, const char *study, const char *title);
/* Free t's rows and leave it with none (columns and notes stay). */
void st_free(struct st_table *t);
/* Add a column; returns its index (or -1 when full). */
int st_col(struct st_table *t, const char *group, const char *name, int prec);
/* A note printed under the table (and kept in the JSON). */
void st_note(struct st_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new empty row (every cell ST_NONE); NULL when out of memory. */
struct st_row *st_row(struct st_table *t);
void st_num(struct st_row *r, int col, double v);
void st_word(struct st_row *r, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The column's key: "GROUP NAME" or NAME. */
void st_key(const struct st_table *t, int col, char *buf, size_t len);
/* The key as an identifier: lower case, runs of other characters one '_'
 * ("throughput MiB/s" -> "throughput_mib_s", "#CPUs" -> "cpus"). */
void st_id(const struct st_table *t, int col, char *buf, size_t len);
/* True when any cell of row r is marked cached. */
bool st_row_cached(const struct st_row *r);

struct json;
/* The table again from its JSON (an end record's "experiment" object, as
 * st_json wrote it): 0, -EINVAL when it is not one (t then holds what was
 * read), -ENOMEM.  st_free it after. */
int st_from_json(const struct json *x, struct st_table *t);

/* Outputs: aligned text with the title, group headings, a "note" column
 * when any row has one, cached figures followed by '*', and the notes;
 * CSV with a header row of keys and a final "note" column; the JSON
 * object as the member key of where w is (NULL: in an array, or alone). */
void st_print_text(const struct st_table *t, FILE *fp);
void st_print_csv(const struct st_table *t, FILE *fp);
struct jw;
void st_json(const struct st_table *t, struct jw *w, const char *key);

#endif

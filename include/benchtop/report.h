/* report.h - a recording rendered for people who were not there:
 * --report FILE -o OUT.svg (one self-contained picture) or -o OUT.html (the
 * same picture inline, plus the summary and phase tables as HTML tables).
 *
 * The picture: throughput over time (each workload's write and read, the
 * disk's write) with a marker and label at every event; a placement strip
 * (per process, the CPU it ran on at each sample); residency bars per CPU
 * from the end record's phases; the summary and phase tables. */
#ifndef BENCHTOP_REPORT_H
#define BENCHTOP_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "benchtop/cli.h"
#include "benchtop/replay.h"

enum report_format { REPORT_SVG, REPORT_HTML };

/* The format an output name asks for: 0 and *f, or -EINVAL when the name
 * ends neither in .svg nor in .html (nor .htm). */
int report_format_of(const char *name, enum report_format *f);

/* Write the report of rec to fp in format f, rates in units. */
void report_write(const struct recording *rec, enum report_format f, enum units_mode units,
                  const char *source, FILE *fp);

/* Text for XML and HTML: markup escaped, control characters dropped, at
 * most max bytes of s ("..." when cut; 0: no limit). */
void report_escape(FILE *fp, const char *s, size_t max);

/* An experiment's table (the end record's "experiment" object,
 * studytable.h): report_study_html writes a heading, its chart as inline
 * SVG, the table and its notes; report_study_chart draws the chart alone
 * into an SVG being written, from y = top, and returns the y below it.
 * Charts: "bars" (horizontal bars per row and value column), "heatmap"
 * (x by y cells shaded by z) and "logx" (y against x on a log axis). */
void report_study_html(FILE *fp, const struct json *exp);
int report_study_chart(FILE *fp, const struct json *exp, int top);

/* Write out whole or not at all: fn(fp, arg) into a temporary file beside
 * out, then put it at out (without force only when out does not exist,
 * atomically).  0 or -errno (-EEXIST when out exists). */
int report_publish(const char *out, bool force, void (*fn)(FILE *fp, void *arg), void *arg);

/* --report FILE -o OUT: returns the exit status: 0; 2 for an output name
 * of another kind or a file that is not a recording; 3 when OUT exists
 * (without --force) or a file cannot be read or written.  OUT appears
 * whole or not at all. */
int report_main(const struct run *r);

#endif

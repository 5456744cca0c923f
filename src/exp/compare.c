/* compare.c - --compare FILE...: recordings made anywhere compiled into
 * tables people can read side by side.  First the machines' facts (a row
 * per fact, a column per recording), then one table per kind of result:
 * the study's own table when recordings share a study, else the run
 * summary; a row per recording (and per row of its result), its file name
 * and host, the figures, and the ratio of its rate to the first row's.
 * Differences that change the reading (machines, studies, units) are said
 * in the notes.  Text, CSV or JSON on stdout; -o OUT.html a page with the
 * tables and bars. */
#include "benchtop/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchtop/json.h"
#include "benchtop/replay.h"
#include "benchtop/report.h"
#include "benchtop/studytable.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"

#define CMP_MAX_TABLES 8

struct cmp_rec {
	const char *path, *name;      /* as given; its last component */
	struct recording *rec;
	const struct json *start, *end, *exp;
	const char *host, *units, *kind; /* kind: the study, or "summary" */
};

struct cmp {
	const struct run *r;
	struct cmp_rec *in;
	size_t n;
	struct st_table machines;
	struct st_table tables[CMP_MAX_TABLES];
	int ntables;
};

/* ---- the machines ---- */

static void caches_text(const struct json *c, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < json_len(c) && used < len; i++) {
		const struct json *x = json_at(c, i);
		double sz = json_num(json_get(x, "size"), 0);
		char s[32];
		if (sz >= 1 << 20 && fmod(sz, 1 << 20) == 0)
			snprintf(s, sizeof s, "%.0f MiB", sz / (1 << 20));
		else
			snprintf(s, sizeof s, "%.0f KiB", sz / 1024);
		used += (size_t)snprintf(buf + used, len - used, "%sL%.0f %s %s", i ? ", " : "",
		                         json_num(json_get(x, "level"), 0), json_str(json_get(x, "type"), "?"), s);
	}
}

static void disks_text(const struct json *d, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < json_len(d) && used < len; i++) {
		const struct json *x = json_at(d, i), *rot = json_get(x, "rotational");
		/* the path is left out: each run has a scratch directory of its own */
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s%s, %s, %s, %s (%s)", i ? "; " : "",
		                         json_str(json_get(x, "device"), "no device"),
		                         json_str(json_get(x, "model"), NULL) ? " " : "",
		                         json_str(json_get(x, "model"), ""), "",
		                         json_type(rot) == JSON_BOOL ? (json_bool(rot, false) ? "rotational" : "solid state")
		                                                     : "rotational unknown",
		                         json_str(json_get(x, "scheduler"), "scheduler unknown"),
		                         json_str(json_get(x, "fstype"), "?"), json_str(json_get(x, "mount_options"), "?"));
	}
}

/* Fact f of recording x as text ("" when the recording has none). */
static void fact(const struct cmp_rec *x, int f, char *buf, size_t len)
{
	const struct json *m = json_get(x->start, "machine");
	double v;
	buf[0] = 0;
	switch (f) {
	case 0: snprintf(buf, len, "%s", x->host); break;
	case 1: snprintf(buf, len, "%s", json_str(json_get(m, "cpu_model"), "")); break;
	case 2:
		if ((v = json_num(json_get(m, "cpus"), json_num(json_get(x->start, "ncpu"), -1))) > 0)
			snprintf(buf, len, "%.0f", v);
		break;
	case 3: caches_text(json_get(m, "caches"), buf, len); break;
	case 4:
		if ((v = json_num(json_get(m, "memory"), -1)) > 0)
			snprintf(buf, len, "%.1f GiB", v / (1 << 30));
		break;
	case 5: snprintf(buf, len, "%s", json_str(json_get(m, "kernel"), "")); break;
	case 6: snprintf(buf, len, "%s", json_str(json_get(m, "os"), "")); break;
	case 7: disks_text(json_get(m, "disks"), buf, len); break;
	case 8: snprintf(buf, len, "%s", json_str(json_get(x->start, "cpufreq"), "")); break;
	default: snprintf(buf, len, "%s", x->units); break;
	}
}

static const char *const fact_names[] = { "host", "cpu_model", "cpus", "caches", "memory", "kernel", "os",
                                          "disks", "cpufreq", "units" };
#define NFACTS (sizeof fact_names / sizeof *fact_names)

static void machines_table(struct cmp *c)
{
	struct st_table *t = &c->machines;
	char buf[ST_TEXT], first[ST_TEXT], differ[200] = "";
	st_init(t, "machines", "the machines the recordings were made on");
	int kf = st_col(t, NULL, "fact", 0);
	t->col[kf].left = true;
	for (size_t i = 0; i < c->n && t->ncols < ST_MAX_COLS; i++)
		t->col[st_col(t, NULL, c->in[i].name, 0)].left = true;
	for (size_t f = 0; f < NFACTS; f++) {
		struct st_row *row = st_row(t);
		bool same = true;
		st_word(row, kf, "%s", fact_names[f]);
		for (size_t i = 0; i + 1 < (size_t)t->ncols; i++) {
			fact(&c->in[i], (int)f, buf, sizeof buf);
			if (buf[0])
				st_word(row, (int)i + 1, "%s", buf);
			if (i == 0)
				snprintf(first, sizeof first, "%s", buf);
			else
				same = same && !strcmp(first, buf);
		}
		if (!same && f != 0 && f != NFACTS - 1)
			snprintf(differ + strlen(differ), sizeof differ - strlen(differ), "%s%s", differ[0] ? ", " : "",
			         fact_names[f]);
	}
	if (c->n < 2)
		st_note(t, "one recording: nothing to set it beside");
	else if (differ[0])
		st_note(t, "the machines differ in: %s", differ);
	else
		st_note(t, "the machines agree in every fact shown");
	if ((size_t)t->ncols - 1 < c->n)
		st_note(t, "only the first %d recordings fit side by side", t->ncols - 1);
}

/* ---- the results ---- */

static void ratio_cell(struct st_row *row, int col, double v, double base)
{
	if (isfinite(v) && isfinite(base) && base > 0)
		st_num(row, col, v / base);
}

/* The summary kind: a row per recording and summary row. */
static void summary_table(struct cmp *c, struct st_table *t, const char *kind)
{
	enum units_mode u = c->r->units;
	char title[320];
	snprintf(title, sizeof title, "%s: each recording's summary, rates in %s, ratio to the first row", kind,
	         units_rate_label(u));
	st_init(t, kind, title);
	int kfile = st_col(t, NULL, "file", 0), khost = st_col(t, NULL, "host", 0), ktest = st_col(t, NULL, "test", 0);
	int krate = st_col(t, NULL, units_rate_label(u), 1), kel = st_col(t, NULL, "elaps", 2);
	int kratio = st_col(t, NULL, "ratio", 2);
	t->col[kfile].left = t->col[khost].left = t->col[ktest].left = true;
	t->col[kratio].ratio = true;
	for (size_t i = 0; i < c->n; i++) {
		const struct cmp_rec *x = &c->in[i];
		if (strcmp(x->kind, kind))
			continue;
		const struct json *sum = json_get(x->end, "summary");
		if (!x->end) {
			struct st_row *row = st_row(t);
			st_word(row, kfile, "%s", x->name);
			st_word(row, khost, "%s", x->host);
			snprintf(row->note, sizeof row->note, "no end record (the run did not finish)");
			continue;
		}
		for (size_t k = 0; k < json_len(sum); k++) {
			const struct json *s = json_at(sum, k);
			struct st_row *row = st_row(t);
			const char *test = json_str(json_get(s, "test"), "?");
			double bps = json_num(json_get(s, "bps"), NAN);
			st_word(row, kfile, "%s", x->name);
			st_word(row, khost, "%s", x->host);
			st_word(row, ktest, "%s", test);
			if (isfinite(bps))
				st_num(row, krate, units_rate_value(u, bps));
			st_num(row, kel, json_num(json_get(s, "elapsed"), NAN));
			ratio_cell(row, kratio, row->cell[krate].v, t->rows[0].cell[krate].v);
		}
	}
	for (int b = 1; b < t->nrows; b++)
		if (t->rows[b].cell[ktest].type == ST_WORD && strcmp(t->rows[b].cell[ktest].text, t->rows[0].cell[ktest].text)) {
			st_note(t, "the tests differ (\"%s\" and \"%s\"): the ratio sets different work side by side",
			        t->rows[0].cell[ktest].text, t->rows[b].cell[ktest].text);
			break;
		}
	snprintf(t->chart.kind, sizeof t->chart.kind, "bars");
	t->chart.x = kfile, t->chart.y[0] = krate, t->chart.ny = 1;
}

/* Whole numbers print without decimals. */
static void fit_precision(struct st_table *t)
{
	for (int c = 0; c < t->ncols; c++) {
		bool whole = true;
		for (int i = 0; i < t->nrows && whole; i++)
			if (t->rows[i].cell[c].type == ST_NUM)
				whole = fabs(t->rows[i].cell[c].v - round(t->rows[i].cell[c].v)) < 1e-9;
		if (whole && !t->col[c].ratio)
			t->col[c].prec = 0;
	}
}

/* A study's column is a rate: its name holds "/s" or "/sec". */
static bool rate_name(const char *name)
{
	return strstr(name, "/s") != NULL;
}

/* A recorded row's cells into row, columns first..last-1 by their keys,
 * and its note. */
static void copy_cells(const struct st_table *t, struct st_row *row, const struct json *src, int first, int last)
{
	for (int col = first; col < last; col++) {
		char key[80];
		st_key(t, col, key, sizeof key);
		const struct json *v = json_get(src, key);
		if (json_type(v) == JSON_NUMBER)
			st_num(row, col, json_num(v, NAN));
		else if (json_type(v) == JSON_STRING)
			st_word(row, col, "%s", json_str(v, ""));
	}
	if (json_str(json_get(src, "note"), NULL))
		snprintf(row->note, sizeof row->note, "%s", json_str(json_get(src, "note"), ""));
}

/* The study kind: the first recording's columns, a row per recording and
 * study row; the ratio of the first rate column to the same row of the
 * first recording. */
static void study_table(struct cmp *c, struct st_table *t, const char *kind)
{
	const struct cmp_rec *base = NULL;
	char title[320];
	for (size_t i = 0; i < c->n && !base; i++)
		if (!strcmp(c->in[i].kind, kind))
			base = &c->in[i];
	const struct json *cols = json_get(base->exp, "columns");
	snprintf(title, sizeof title, "%s: each recording's table, ratio of its first rate to the first "
	         "recording's same row", kind);
	st_init(t, kind, title);
	int kfile = st_col(t, NULL, "file", 0), khost = st_col(t, NULL, "host", 0), krate = -1;
	t->col[kfile].left = t->col[khost].left = true;
	int first = t->ncols;
	for (size_t k = 0; k < json_len(cols) && t->ncols < ST_MAX_COLS - 1; k++) {
		const struct json *col = json_at(cols, k);
		const char *g = json_str(json_get(col, "group"), "");
		int n = st_col(t, *g ? g : NULL, json_str(json_get(col, "name"), "?"), 2);
		t->col[n].share = json_bool(json_get(col, "share"), false);
		if (krate < 0 && rate_name(t->col[n].name))
			krate = n;
	}
	int kratio = st_col(t, NULL, "ratio", 2);
	t->col[kratio].ratio = true;
	size_t nbase = json_len(json_get(base->exp, "rows"));
	for (size_t i = 0; i < c->n; i++) {
		const struct cmp_rec *x = &c->in[i];
		if (strcmp(x->kind, kind))
			continue;
		const struct json *rows = json_get(x->exp, "rows");
		for (size_t k = 0; k < json_len(rows); k++) {
			const struct json *src = json_at(rows, k);
			struct st_row *row = st_row(t);
			st_word(row, kfile, "%s", x->name);
			st_word(row, khost, "%s", x->host);
			copy_cells(t, row, src, first, kratio);
			if (krate >= 0 && k < nbase && x != base)
				ratio_cell(row, kratio, row->cell[krate].v, t->rows[k].cell[krate].v);
			else if (krate >= 0 && x == base)
				ratio_cell(row, kratio, row->cell[krate].v, row->cell[krate].v);
		}
	}
	snprintf(t->chart.kind, sizeof t->chart.kind, "bars");
	t->chart.x = kfile, t->chart.ny = 0;
	if (krate >= 0)
		t->chart.y[t->chart.ny++] = krate;
	fit_precision(t);
	st_note(t, "%s", json_str(json_get(base->exp, "title"), kind));
	if (krate >= 0)
		st_note(t, "ratio: %s over the first recording's same row", t->col[krate].name);
	else
		st_note(t, "the study's table has no rate column: no ratio");
}

/* ---- input ---- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

static int load(struct cmp_rec *x, const char *path)
{
	char err[512];
	memset(x, 0, sizeof *x);
	x->path = path;
	x->name = base_name(path);
	int rc = recording_load(path, &x->rec, err, sizeof err);
	if (rc) {
		fprintf(stderr, "benchtop: --compare: %s\n", err);
		return rc == -EINVAL ? 2 : 3;
	}
	x->start = recording_start(x->rec);
	x->end = recording_end(x->rec);
	x->exp = json_get(x->end, "experiment");
	if (json_type(x->exp) != JSON_OBJECT)
		x->exp = NULL;
	x->host = json_str(json_get(x->start, "host"), "?");
	x->units = json_str(json_get(x->start, "units"), "iec");
	x->kind = x->exp ? json_str(json_get(x->exp, "study"), "experiment") : "summary";
	return 0;
}

/* One table per kind, in the order the kinds first appear. */
static void build(struct cmp *c)
{
	machines_table(c);
	for (size_t i = 0; i < c->n && c->ntables < CMP_MAX_TABLES; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(c->in[k].kind, c->in[i].kind);
		if (seen)
			continue;
		struct st_table *t = &c->tables[c->ntables++];
		if (c->in[i].exp)
			study_table(c, t, c->in[i].kind);
		else
			summary_table(c, t, c->in[i].kind);
	}
	if (c->ntables > 1) {
		char kinds[300] = "";
		for (int k = 0; k < c->ntables; k++)
			snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", k ? ", " : "", c->tables[k].study);
		for (int k = 0; k < c->ntables; k++)
			st_note(&c->tables[k], "the recordings are of different kinds (%s): one table each, no ratio across them",
			        kinds);
	}
	for (size_t i = 1; i < c->n; i++)
		if (strcmp(c->in[i].units, c->in[0].units) && c->in[i].exp) {
			for (int k = 0; k < c->ntables; k++)
				st_note(&c->tables[k], "units differ: %s was recorded in %s, %s in %s; a study's figures are as "
				        "recorded, the summary's in %s", c->in[0].name, c->in[0].units, c->in[i].name,
				        c->in[i].units, units_name(c->r->units));
			break;
		}
}

/* ---- output ---- */

static void print_json(struct cmp *c, FILE *fp)
{
	fprintf(fp, "{\"type\":\"compare\",\"files\":[");
	for (size_t i = 0; i < c->n; i++) {
		fprintf(fp, "%s{\"file\":", i ? "," : "");
		json_string(fp, c->in[i].path);
		fprintf(fp, ",\"host\":");
		json_string(fp, c->in[i].host);
		fprintf(fp, ",\"kind\":");
		json_string(fp, c->in[i].kind);
		fprintf(fp, ",\"machine\":");
		const struct json *m = json_get(c->in[i].start, "machine");
		/* the facts as recorded: re-serialised from the table's text
		 * would turn numbers into strings */
		if (m) {
			char *text = NULL;
			size_t len = 0;
			FILE *mem = open_memstream(&text, &len);
			if (mem) {
				json_write_value(mem, m);
				fclose(mem);
				fputs(text, fp);
			}
			free(text);
		} else {
			fputs("null", fp);
		}
		fputc('}', fp);
	}
	fprintf(fp, "],\"machines\":");
	st_json(&c->machines, fp);
	fprintf(fp, ",\"tables\":[");
	for (int k = 0; k < c->ntables; k++) {
		fputs(k ? "," : "", fp);
		st_json(&c->tables[k], fp);
	}
	fprintf(fp, "]}\n");
}

static void print_tables(struct cmp *c, FILE *fp, bool csv)
{
	(csv ? st_print_csv : st_print_text)(&c->machines, fp);
	for (int k = 0; k < c->ntables; k++) {
		fputc('\n', fp);
		(csv ? st_print_csv : st_print_text)(&c->tables[k], fp);
	}
}

static void html_table(FILE *fp, const struct st_table *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return;
	st_json(t, m);
	fclose(m);
	struct json_error err;
	struct json *v = json_parse(text, len, &err);
	if (v)
		report_study_html(fp, v);
	json_free(v);
	free(text);
}

static void write_html(FILE *fp, void *arg)
{
	struct cmp *c = arg;
	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	        "<title>benchtop compare</title>\n<style>body{font-family:sans-serif;margin:1em 2em;color:#222}"
	        "table{border-collapse:collapse;margin:0.5em 0 1.5em}th,td{padding:2px 10px;border-bottom:1px solid #ddd;"
	        "text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}svg{max-width:100%%;height:auto}"
	        "</style>\n</head>\n<body>\n<h1>benchtop compare: %zu recording%s</h1>\n", c->n, c->n == 1 ? "" : "s");
	html_table(fp, &c->machines);
	for (int k = 0; k < c->ntables; k++)
		html_table(fp, &c->tables[k]);
	fprintf(fp, "</body>\n</html>\n");
}

int compare_main(const struct run *r)
{
	struct cmp c = { .r = r, .n = r->ncompare };
	int status = 0;
	if (r->record && !r->force && access(r->record, F_OK) == 0) {
		fprintf(stderr, "benchtop: %s exists; benchtop does not overwrite it without --force\n", r->record);
		return 3;
	}
	c.in = xcalloc(c.n, sizeof *c.in);
	for (size_t i = 0; i < c.n && !status; i++)
		status = load(&c.in[i], r->compare[i]);
	if (!status) {
		build(&c);
		if (r->record) {
			int rc = report_publish(r->record, r->force, write_html, &c);
			if (rc) {
				fprintf(stderr, "benchtop: cannot write %s: %s\n", r->record, strerror(-rc));
				status = 3;
			} else {
				fprintf(stderr, "wrote %s\n", r->record);
			}
		} else if (r->format == FMT_JSON) {
			print_json(&c, stdout);
		} else {
			print_tables(&c, stdout, r->format == FMT_CSV);
		}
	}
	st_free(&c.machines);
	for (int k = 0; k < c.ntables; k++)
		st_free(&c.tables[k]);
	for (size_t i = 0; i < c.n; i++)
		if (c.in[i].rec)
			recording_free(c.in[i].rec);
	free(c.in);
	return status;
}

/* study_table.c - a study's table as text, CSV and JSON (studytable.h). */
#include "benchtop/studytable.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/grow.h"
#include "benchtop/json.h"

void st_init(struct st_table *t, const char *study, const char *title)
{
	memset(t, 0, sizeof *t);
	snprintf(t->study, sizeof t->study, "%s", study);
	snprintf(t->title, sizeof t->title, "%s", title);
	t->chart.x = t->chart.z = -1;
}

void st_free(struct st_table *t)
{
	for (int i = 0; i < t->nrows; i++)
		free(t->rows[i].res);
	free(t->rows);
	t->rows = NULL;
	t->nrows = t->cap = 0;
}

int st_col(struct st_table *t, const char *group, const char *name, int prec)
{
	if (t->ncols == ST_MAX_COLS)
		return -1;
	struct st_col *c = &t->col[t->ncols];
	memset(c, 0, sizeof *c);
	snprintf(c->group, sizeof c->group, "%s", group ? group : "");
	snprintf(c->name, sizeof c->name, "%s", name);
	c->prec = prec;
	return t->ncols++;
}

void st_note(struct st_table *t, const char *fmt, ...)
{
	va_list ap;
	if (t->nnotes == ST_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nnotes++], sizeof t->notes[0], fmt, ap);
	va_end(ap);
}

struct st_row *st_row(struct st_table *t)
{
	struct st_row *rows = grow_one(t->rows, t->nrows, &t->cap, 16, sizeof *rows);
	if (!rows)
		return NULL;
	t->rows = rows;
	struct st_row *r = &t->rows[t->nrows++];
	memset(r, 0, sizeof *r);
	return r;
}

void st_num(struct st_row *r, int col, double v)
{
	if (col < 0 || col >= ST_MAX_COLS)
		return;
	r->cell[col].type = isfinite(v) ? ST_NUM : ST_NONE;
	r->cell[col].v = v;
}

void st_word(struct st_row *r, int col, const char *fmt, ...)
{
	va_list ap;
	if (col < 0 || col >= ST_MAX_COLS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->cell[col].text, sizeof r->cell[col].text, fmt, ap);
	va_end(ap);
	r->cell[col].type = ST_WORD;
}

void st_key(const struct st_table *t, int col, char *buf, size_t len)
{
	const struct st_col *c = &t->col[col];
	snprintf(buf, len, "%s%s%s", c->group, c->group[0] ? " " : "", c->name);
}

void st_id(const struct st_table *t, int col, char *buf, size_t len)
{
	char key[80];
	size_t n = 0;
	bool gap = false;
	st_key(t, col, key, sizeof key);
	for (const char *p = key; *p && n + 2 < len; p++) {
		unsigned char ch = (unsigned char)*p;
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')) {
			if (gap && n)
				buf[n++] = '_';
			buf[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
			gap = false;
		} else {
			gap = true;
		}
	}
	if (n && buf[0] >= '0' && buf[0] <= '9' && n + 2 < len) {   /* an identifier starts with a letter */
		memmove(buf + 1, buf, n);
		buf[0] = '_';
		n++;
	}
	buf[n] = 0;
}

bool st_row_cached(const struct st_row *r)
{
	for (int i = 0; i < ST_MAX_COLS; i++)
		if (r->cell[i].cached)
			return true;
	return false;
}

/* A cell as text (no '*'): numbers with the column's decimals, shares as
 * percentages, nothing as "-". */
static void cell_text(const struct st_col *c, const struct st_cell *x, char *buf, size_t len)
{
	if (x->type == ST_WORD)
		snprintf(buf, len, "%s", x->text);
	else if (x->type == ST_NONE)
		snprintf(buf, len, "-");
	else if (c->share)
		snprintf(buf, len, "%.0f%%", x->v * 100);
	else if (c->ratio)
		snprintf(buf, len, "%.*fx", c->prec, x->v);
	else
		snprintf(buf, len, "%.*f", c->prec, x->v);
}

static bool any_note(const struct st_table *t)
{
	for (int i = 0; i < t->nrows; i++)
		if (t->rows[i].note[0])
			return true;
	return false;
}

static void widths(const struct st_table *t, int *w)
{
	char buf[ST_TEXT + 8];
	for (int c = 0; c < t->ncols; c++) {
		w[c] = (int)strlen(t->col[c].name);
		for (int i = 0; i < t->nrows; i++) {
			cell_text(&t->col[c], &t->rows[i].cell[c], buf, sizeof buf);
			int n = (int)strlen(buf) + (t->rows[i].cell[c].cached ? 1 : 0);
			if (n > w[c])
				w[c] = n;
		}
	}
	/* a group heading as wide as the columns under it */
	for (int c = 0; c < t->ncols;) {
		int e = c, span = -2;
		while (e < t->ncols && t->col[c].group[0] && !strcmp(t->col[e].group, t->col[c].group))
			span += w[e++] + 2;
		int need = (int)strlen(t->col[c].group) + 2;
		if (e > c && span < need)
			w[e - 1] += need - span;
		c = e > c ? e : c + 1;
	}
}

static void group_line(const struct st_table *t, const int *w, FILE *fp)
{
	bool any = false;
	for (int c = 0; c < t->ncols; c++)
		any = any || t->col[c].group[0];
	if (!any)
		return;
	for (int c = 0; c < t->ncols;) {
		int e = c, span = -2;
		while (e < t->ncols && t->col[c].group[0] && !strcmp(t->col[e].group, t->col[c].group))
			span += w[e++] + 2;
		if (e == c) {
			fprintf(fp, "%s%*s", c ? "  " : "", w[c], "");
			c++;
			continue;
		}
		int g = (int)strlen(t->col[c].group), left = (span - g) / 2;
		fprintf(fp, "%s", c ? "  " : "");
		for (int i = 0; i < span; i++)
			fputc(i >= left && i < left + g ? t->col[c].group[i - left] : '-', fp);
		c = e;
	}
	fputc('\n', fp);
}

void st_print_text(const struct st_table *t, FILE *fp)
{
	int w[ST_MAX_COLS];
	char buf[ST_TEXT + 8];
	bool notes = any_note(t), cached = false;
	widths(t, w);
	fprintf(fp, "%s\n\n", t->title);
	group_line(t, w, fp);
	for (int c = 0; c < t->ncols; c++)
		fprintf(fp, "%s%*s", c ? "  " : "", t->col[c].left ? -w[c] : w[c], t->col[c].name);
	fprintf(fp, "%s\n", notes ? "  note" : "");
	for (int i = 0; i < t->nrows; i++) {
		const struct st_row *r = &t->rows[i];
		for (int c = 0; c < t->ncols; c++) {
			cell_text(&t->col[c], &r->cell[c], buf, sizeof buf);
			if (r->cell[c].cached) {
				strcat(buf, "*");
				cached = true;
			}
			fprintf(fp, "%s%*s", c ? "  " : "", t->col[c].left ? -w[c] : w[c], buf);
		}
		if (notes && r->note[0])
			fprintf(fp, "  %s", r->note);
		fputc('\n', fp);
	}
	if (cached || t->nnotes)
		fputc('\n', fp);
	if (cached)
		fprintf(fp, "* mostly from the page cache (from disk under 50%%), not from the disk\n");
	for (int i = 0; i < t->nnotes; i++)
		fprintf(fp, "%s\n", t->notes[i]);
	fflush(fp);
}

static void csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

void st_print_csv(const struct st_table *t, FILE *fp)
{
	char buf[ST_TEXT + 72];
	for (int c = 0; c < t->ncols; c++) {
		st_key(t, c, buf, sizeof buf);
		fputs(c ? "," : "", fp);
		csv_field(fp, buf);
	}
	fprintf(fp, ",note\n");
	for (int i = 0; i < t->nrows; i++) {
		const struct st_row *r = &t->rows[i];
		for (int c = 0; c < t->ncols; c++) {
			const struct st_cell *x = &r->cell[c];
			fputs(c ? "," : "", fp);
			if (x->type == ST_NUM)
				fprintf(fp, "%.*f", t->col[c].share ? 3 : t->col[c].prec, x->v);
			else if (x->type == ST_WORD)
				csv_field(fp, x->text);
		}
		fputc(',', fp);
		snprintf(buf, sizeof buf, "%s%s%s", r->note, r->note[0] && st_row_cached(r) ? "; " : "",
		         st_row_cached(r) && !strstr(r->note, "cache") ? "mostly from the page cache" : "");
		csv_field(fp, buf);
		fputc('\n', fp);
	}
	fflush(fp);
}

static void chart_json(const struct st_table *t, struct jw *w)
{
	char key[80];
	const struct st_chart *ch = &t->chart;
	jw_obj(w, "chart");
	jw_str(w, "kind", ch->kind[0] ? ch->kind : "none");
	if (ch->x >= 0) {
		st_key(t, ch->x, key, sizeof key);
		jw_str(w, "x", key);
	}
	if (ch->z >= 0) {
		st_key(t, ch->z, key, sizeof key);
		jw_str(w, "z", key);
	}
	jw_arr(w, "y");
	for (int i = 0; i < ch->ny; i++) {
		st_key(t, ch->y[i], key, sizeof key);
		jw_str(w, NULL, key);
	}
	jw_end(w);
	jw_end(w);
}

static void cell_json(struct jw *w, const char *key, const struct st_cell *x)
{
	if (x->type == ST_NUM)
		jw_num(w, key, x->v);
	else if (x->type == ST_WORD)
		jw_str(w, key, x->text);
	else
		jw_null(w, key);
}

static void residency_json(struct jw *w, const struct st_residency *r)
{
	char key[24];
	jw_obj(w, "residency");
	for (int c = 0; c < r->ncpu; c++) {
		snprintf(key, sizeof key, "%d", c);
		jw_obj(w, key);
		for (int f = 0; f < r->nfreq[c]; f++) {
			snprintf(key, sizeof key, "%ld", r->khz[c][f]);
			jw_num(w, key, r->secs[c][f]);
		}
		jw_end(w);
	}
	jw_end(w);
	jw_obj(w, "mean_khz");
	for (int c = 0; c < r->ncpu; c++) {
		snprintf(key, sizeof key, "%d", c);
		if (r->mean_khz[c] > 0)
			jw_int(w, key, r->mean_khz[c]);
		else
			jw_null(w, key);
	}
	jw_end(w);
}

static void row_json(const struct st_table *t, const struct st_row *r, struct jw *w)
{
	char key[80];
	jw_obj(w, NULL);
	for (int c = 0; c < t->ncols; c++) {
		st_key(t, c, key, sizeof key);
		cell_json(w, key, &r->cell[c]);
	}
	/* the same cells keyed by identifiers, numbers as numbers */
	jw_obj(w, "values");
	for (int c = 0; c < t->ncols; c++) {
		st_id(t, c, key, sizeof key);
		cell_json(w, key, &r->cell[c]);
	}
	jw_end(w);
	if (r->res)
		residency_json(w, r->res);
	jw_nstr(w, "note", r->note[0] ? r->note : NULL);
	jw_arr(w, "from_cache");
	for (int c = 0; c < t->ncols; c++)
		if (r->cell[c].cached) {
			st_key(t, c, key, sizeof key);
			jw_str(w, NULL, key);
		}
	jw_end(w);
	jw_end(w);
}

void st_json(const struct st_table *t, struct jw *w, const char *key)
{
	char id[80];
	jw_obj(w, key);
	jw_str(w, "study", t->study);
	jw_str(w, "title", t->title);
	jw_arr(w, "columns");
	for (int c = 0; c < t->ncols; c++) {
		jw_obj(w, NULL);
		st_key(t, c, id, sizeof id);
		jw_str(w, "key", id);
		jw_str(w, "group", t->col[c].group);
		jw_str(w, "name", t->col[c].name);
		st_id(t, c, id, sizeof id);
		jw_str(w, "id", id);
		jw_bool(w, "share", t->col[c].share);
		jw_int(w, "prec", t->col[c].prec);
		jw_bool(w, "left", t->col[c].left);
		jw_bool(w, "ratio", t->col[c].ratio);
		jw_end(w);
	}
	jw_end(w);
	jw_arr(w, "rows");
	for (int i = 0; i < t->nrows; i++)
		row_json(t, &t->rows[i], w);
	jw_end(w);
	jw_arr(w, "notes");
	for (int i = 0; i < t->nnotes; i++)
		jw_str(w, NULL, t->notes[i]);
	jw_end(w);
	chart_json(t, w);
	jw_end(w);
}

int st_from_json(const struct json *x, struct st_table *t)
{
	const struct json *cols = json_get(x, "columns"), *rows = json_get(x, "rows");
	st_init(t, json_str(json_get(x, "study"), ""), json_str(json_get(x, "title"), ""));
	if (json_type(cols) != JSON_ARRAY || json_type(rows) != JSON_ARRAY)
		return -EINVAL;
	for (size_t c = 0; c < json_len(cols); c++) {
		const struct json *col = json_at(cols, c);
		double prec = json_num(json_get(col, "prec"), 2);
		int i = st_col(t, json_str(json_get(col, "group"), ""), json_str(json_get(col, "name"), "?"),
		               prec >= 0 && prec <= 9 ? (int)prec : 2);
		if (i < 0)
			break;
		t->col[i].share = json_bool(json_get(col, "share"), false);
		t->col[i].left = json_bool(json_get(col, "left"), false);
		t->col[i].ratio = json_bool(json_get(col, "ratio"), false);
	}
	char key[80];
	for (size_t i = 0; i < json_len(rows); i++) {
		const struct json *row = json_at(rows, i);
		struct st_row *r = st_row(t);
		if (!r)
			return -ENOMEM;
		for (int c = 0; c < t->ncols; c++) {
			st_key(t, c, key, sizeof key);
			const struct json *v = json_get(row, key);
			if (json_type(v) == JSON_NUMBER)
				st_num(r, c, json_num(v, 0));
			else if (json_type(v) == JSON_STRING)
				st_word(r, c, "%s", json_str(v, ""));
		}
		const struct json *cached = json_get(row, "from_cache");
		for (size_t k = 0; k < json_len(cached); k++)
			for (int c = 0; c < t->ncols; c++) {
				st_key(t, c, key, sizeof key);
				if (!strcmp(key, json_str(json_at(cached, k), "")))
					r->cell[c].cached = true;
			}
		snprintf(r->note, sizeof r->note, "%s", json_str(json_get(row, "note"), ""));
	}
	const struct json *notes = json_get(x, "notes");
	for (size_t i = 0; i < json_len(notes); i++)
		st_note(t, "%s", json_str(json_at(notes, i), ""));
	return 0;
}

/* study_table.c - a study's table as text, CSV and JSON (studytable.h). */
#include "benchtop/studytable.h"

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
		free(t->rows[i].json);
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

static void chart_json(const struct st_table *t, FILE *fp)
{
	char key[80];
	const struct st_chart *ch = &t->chart;
	fprintf(fp, "{\"kind\":");
	json_string(fp, ch->kind[0] ? ch->kind : "none");
	if (ch->x >= 0) {
		st_key(t, ch->x, key, sizeof key);
		fprintf(fp, ",\"x\":");
		json_string(fp, key);
	}
	if (ch->z >= 0) {
		st_key(t, ch->z, key, sizeof key);
		fprintf(fp, ",\"z\":");
		json_string(fp, key);
	}
	fprintf(fp, ",\"y\":[");
	for (int i = 0; i < ch->ny; i++) {
		st_key(t, ch->y[i], key, sizeof key);
		fputs(i ? "," : "", fp);
		json_string(fp, key);
	}
	fprintf(fp, "]}");
}

static void row_json(const struct st_table *t, const struct st_row *r, FILE *fp)
{
	char key[80];
	fputc('{', fp);
	for (int c = 0; c < t->ncols; c++) {
		const struct st_cell *x = &r->cell[c];
		st_key(t, c, key, sizeof key);
		json_string(fp, key);
		fputc(':', fp);
		if (x->type == ST_NUM)
			json_number(fp, x->v);
		else if (x->type == ST_WORD)
			json_string(fp, x->text);
		else
			fputs("null", fp);
		fputc(',', fp);
	}
	/* the same cells keyed by identifiers, numbers as numbers */
	fprintf(fp, "\"values\":{");
	for (int c = 0; c < t->ncols; c++) {
		const struct st_cell *x = &r->cell[c];
		st_id(t, c, key, sizeof key);
		fprintf(fp, "%s", c ? "," : "");
		json_string(fp, key);
		fputc(':', fp);
		if (x->type == ST_NUM)
			json_number(fp, x->v);
		else if (x->type == ST_WORD)
			json_string(fp, x->text);
		else
			fputs("null", fp);
	}
	fprintf(fp, "},");
	if (r->json)
		fprintf(fp, "%s,", r->json);
	fprintf(fp, "\"note\":");
	if (r->note[0])
		json_string(fp, r->note);
	else
		fputs("null", fp);
	fprintf(fp, ",\"from_cache\":[");
	bool first = true;
	for (int c = 0; c < t->ncols; c++)
		if (r->cell[c].cached) {
			st_key(t, c, key, sizeof key);
			fputs(first ? "" : ",", fp);
			json_string(fp, key);
			first = false;
		}
	fprintf(fp, "]}");
}

void st_json(const struct st_table *t, FILE *fp)
{
	char key[80];
	fprintf(fp, "{\"study\":");
	json_string(fp, t->study);
	fprintf(fp, ",\"title\":");
	json_string(fp, t->title);
	fprintf(fp, ",\"columns\":[");
	for (int c = 0; c < t->ncols; c++) {
		st_key(t, c, key, sizeof key);
		fprintf(fp, "%s{\"key\":", c ? "," : "");
		json_string(fp, key);
		fprintf(fp, ",\"group\":");
		json_string(fp, t->col[c].group);
		fprintf(fp, ",\"name\":");
		json_string(fp, t->col[c].name);
		st_id(t, c, key, sizeof key);
		fprintf(fp, ",\"id\":");
		json_string(fp, key);
		fprintf(fp, ",\"share\":%s}", t->col[c].share ? "true" : "false");
	}
	fprintf(fp, "],\"rows\":[");
	for (int i = 0; i < t->nrows; i++) {
		fputs(i ? "," : "", fp);
		row_json(t, &t->rows[i], fp);
	}
	fprintf(fp, "],\"notes\":[");
	for (int i = 0; i < t->nnotes; i++) {
		fputs(i ? "," : "", fp);
		json_string(fp, t->notes[i]);
	}
	fprintf(fp, "],\"chart\":");
	chart_json(t, fp);
	fputc('}', fp);
}

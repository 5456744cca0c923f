/* json_write.c - JSON text out: strings, numbers, and the streaming
 * writer (jw_) every record and document is written with.  The reader is json.c;
 * both sides agree on RFC 8259. */
#include "benchtop/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The escape for byte c in out[] (NUL-terminated), or "" when c stands
 * for itself. */
static void escape(unsigned char c, char out[8])
{
	out[0] = '\0';
	if (c == '"' || c == '\\')
		snprintf(out, 8, "\\%c", c);
	else if (c == '\n')
		strcpy(out, "\\n");
	else if (c == '\t')
		strcpy(out, "\\t");
	else if (c < 0x20)
		snprintf(out, 8, "\\u%04x", c);
}

void json_string(FILE *fp, const char *s)
{
	char esc[8];

	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		escape(*p, esc);
		if (esc[0])
			fputs(esc, fp);
		else
			fputc(*p, fp);
	}
	fputc('"', fp);
}

void json_number(FILE *fp, double v)
{
	if (isfinite(v))
		fprintf(fp, "%.9g", v);
	else
		fputs("null", fp);
}

void json_write_value(FILE *fp, const struct json *v)
{
	size_t n = json_len(v);
	switch (json_type(v)) {
	case JSON_NULL:
		fputs("null", fp);
		return;
	case JSON_BOOL:
		fputs(json_bool(v, false) ? "true" : "false", fp);
		return;
	case JSON_NUMBER:
		json_number(fp, json_num(v, NAN));
		return;
	case JSON_STRING:
		json_string(fp, json_str(v, ""));
		return;
	case JSON_ARRAY:
	case JSON_OBJECT:
		fputc(json_type(v) == JSON_ARRAY ? '[' : '{', fp);
		for (size_t i = 0; i < n; i++) {
			if (i)
				fputc(',', fp);
			if (json_type(v) == JSON_OBJECT) {
				json_string(fp, json_key(v, i));
				fputc(':', fp);
			}
			json_write_value(fp, json_at(v, i));
		}
		fputc(json_type(v) == JSON_ARRAY ? ']' : '}', fp);
		return;
	}
}

/* ---- the streaming writer ---- */

void jw_begin(struct jw *w, FILE *fp)
{
	*w = (struct jw){ .fp = fp };
}

/* The comma and key before the next value at the current depth. */
static void next(struct jw *w, const char *key)
{
	if (w->some[w->depth] && w->depth > 0)
		fputc(',', w->fp);
	w->some[w->depth] = true;
	if (key && w->depth > 0 && w->close[w->depth] == '}') {
		json_string(w->fp, key);
		fputc(':', w->fp);
	}
}

static void open_one(struct jw *w, const char *key, char c, char close)
{
	if (w->depth >= JSON_MAX_DEPTH)
		return;
	next(w, key);
	fputc(c, w->fp);
	w->depth++;
	w->some[w->depth] = false;
	w->close[w->depth] = close;
}

void jw_obj(struct jw *w, const char *key)
{
	open_one(w, key, '{', '}');
}

void jw_arr(struct jw *w, const char *key)
{
	open_one(w, key, '[', ']');
}

void jw_end(struct jw *w)
{
	if (w->depth <= 0)
		return;
	fputc(w->close[w->depth], w->fp);
	w->depth--;
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	next(w, key);
	json_string(w->fp, s);
}

void jw_nstr(struct jw *w, const char *key, const char *s)
{
	if (s)
		jw_str(w, key, s);
	else
		jw_null(w, key);
}

void jw_num(struct jw *w, const char *key, double v)
{
	next(w, key);
	json_number(w->fp, v);
}

void jw_fix(struct jw *w, const char *key, double v, int prec)
{
	next(w, key);
	if (isfinite(v))
		fprintf(w->fp, "%.*f", prec, v);
	else
		fputs("null", w->fp);
}

void jw_int(struct jw *w, const char *key, long long v)
{
	next(w, key);
	fprintf(w->fp, "%lld", v);
}

void jw_uint(struct jw *w, const char *key, unsigned long long v)
{
	next(w, key);
	fprintf(w->fp, "%llu", v);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	next(w, key);
	fputs(v ? "true" : "false", w->fp);
}

void jw_null(struct jw *w, const char *key)
{
	next(w, key);
	fputs("null", w->fp);
}

void jw_value(struct jw *w, const char *key, const struct json *v)
{
	next(w, key);
	json_write_value(w->fp, v);
}

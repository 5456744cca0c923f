/* json_write.c - JSON text out: strings, numbers.  The reader is json.c;
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

void json_member_number(FILE *fp, const char *key, double v)
{
	fprintf(fp, ",\"%s\":", key);
	json_number(fp, v);
}

void json_member_string(FILE *fp, const char *key, const char *s)
{
	fprintf(fp, ",\"%s\":", key);
	json_string(fp, s);
}

/* Length of the UTF-8 sequence lead byte c starts (1 for anything else). */
static size_t seq_len(unsigned char c)
{
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

size_t json_quote(char *buf, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t k = 0;
	char esc[8];

	if (size < 3) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	buf[k++] = '"';
	while (*p) {
		escape(*p, esc);
		size_t n = esc[0] ? strlen(esc) : seq_len(*p);
		if (!esc[0] && strnlen((const char *)p, n) < n)
			break;                       /* a cut sequence at the end */
		if (k + n + 2 > size)                /* room for the '"' and NUL */
			break;
		if (esc[0])
			memcpy(buf + k, esc, n);
		else
			memcpy(buf + k, p, n);
		k += n;
		p += esc[0] ? 1 : n;
	}
	buf[k++] = '"';
	buf[k] = '\0';
	return k;
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

/* ---- objects in memory ---- */

void json_obj_begin(struct json_obj *o)
{
	*o = (struct json_obj){ 0 };
	o->fp = open_memstream(&o->text, &o->len);
	if (o->fp)
		fputc('{', o->fp);
}

/* The next member's key (and its comma); false when the object failed. */
static bool obj_key(struct json_obj *o, const char *key)
{
	if (!o->fp)
		return false;
	if (o->n++)
		fputc(',', o->fp);
	json_string(o->fp, key);
	fputc(':', o->fp);
	return true;
}

void json_obj_str(struct json_obj *o, const char *key, const char *s)
{
	if (obj_key(o, key))
		json_string(o->fp, s);
}

void json_obj_num(struct json_obj *o, const char *key, double v)
{
	if (obj_key(o, key))
		json_number(o->fp, v);
}

void json_obj_bool(struct json_obj *o, const char *key, bool v)
{
	if (obj_key(o, key))
		fputs(v ? "true" : "false", o->fp);
}

void json_obj_raw(struct json_obj *o, const char *key, const char *json)
{
	if (obj_key(o, key))
		fputs(json && *json ? json : "null", o->fp);
}

size_t json_obj_len(struct json_obj *o)
{
	if (o->fp)
		fflush(o->fp);
	return o->len;
}

char *json_obj_end(struct json_obj *o, size_t max)
{
	if (!o->fp) {
		free(o->text);
		return NULL;
	}
	fputc('}', o->fp);
	bool ok = fclose(o->fp) == 0;
	o->fp = NULL;
	if (ok && max && o->len >= max)
		snprintf(o->text, o->len + 1, "{}");
	if (!ok) {
		free(o->text);
		o->text = NULL;
	}
	return o->text;
}

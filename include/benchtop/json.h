/* json.h - a small strict JSON reader for recordings (RFC 8259: objects,
 * arrays, strings with every escape including \uXXXX surrogate pairs,
 * numbers, true, false, null) into a tree, with lookup helpers.
 *
 * Strict means: one value and nothing but white space after it, no
 * trailing commas, no leading zeros, no control characters or invalid
 * UTF-8 inside strings, nesting at most JSON_MAX_DEPTH deep.  Numbers are
 * read in the C locale whatever LC_NUMERIC says.
 *
 * Call order: json_parse, look values up (pointers stay valid until
 * json_free of the root), json_free.  Lookups accept NULL and answer NULL
 * or the given default, so chains like
 * json_num(json_get(json_at(json_get(root, "cpus"), 0), "user"), -1)
 * need no checks in between. */
#ifndef BENCHTOP_JSON_H
#define BENCHTOP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 64

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json;

/* Where and why a document was refused: line and column are 1-based
 * (the column counts bytes), msg says what was expected. */
struct json_error {
	int line, column;
	char msg[128];
};

/* Parse text[0..len) into a tree.  Returns the root, or NULL with *err
 * filled (also for out of memory: msg "out of memory"). */
struct json *json_parse(const char *text, size_t len, struct json_error *err);
void json_free(struct json *v);

enum json_type json_type(const struct json *v);   /* JSON_NULL for NULL */
/* The member `key` of an object (the last one if repeated); NULL when v
 * is not an object or has no such member. */
const struct json *json_get(const struct json *v, const char *key);
/* Element or member count of an array or object; 0 for anything else. */
size_t json_len(const struct json *v);
/* Element i of an array, or the value of member i of an object; NULL out
 * of range. */
const struct json *json_at(const struct json *v, size_t i);
/* The key of member i of an object; NULL out of range or not an object. */
const char *json_key(const struct json *v, size_t i);

/* Scalars: the value when v has that type, else def.  json_str's string
 * is NUL-terminated (a \u0000 inside ends it early for C; json_strlen
 * gives the full length). */
double json_num(const struct json *v, double def);
const char *json_str(const struct json *v, const char *def);
size_t json_strlen(const struct json *v);
bool json_bool(const struct json *v, bool def);
/* True for an explicit null; false for a missing value (v NULL). */
bool json_is_null(const struct json *v);

/* Member key of obj read into a C type, as a recording (outside input)
 * is read: an int or a long, def when missing, not a number or out of
 * the type's range; a string copied into dst[0..len) (cut to fit), ""
 * when missing or not a string. */
int json_get_int(const struct json *obj, const char *key, int def);
long json_get_long(const struct json *obj, const char *key, long def);
void json_get_str(const struct json *obj, const char *key, char *dst, size_t len);

/* ---- the writer (json_write.c): the one place JSON text is made ---- */

/* s (NULL as "") as a JSON string, quotes included: '"' and '\\'
 * escaped, \n and \t by name, other control characters as \u00XX;
 * bytes from 0x80 up are copied as they are (the caller's UTF-8). */
void json_string(FILE *fp, const char *s);
/* A number ("%.9g"), or null for NaN and infinities (JSON has neither). */
void json_number(FILE *fp, double v);
/* ---- the streaming writer: every record and document benchtop writes ----
 *
 * A writer tracks where it is (object or array, first member or not), so
 * callers name members and never write a comma, a colon or a quote:
 *
 *	struct jw w;
 *	jw_begin(&w, fp);
 *	jw_obj(&w, NULL);             // {
 *	jw_str(&w, "type", "end");    //  "type":"end"
 *	jw_arr(&w, "cpus");           //  ,"cpus":[
 *	jw_int(&w, NULL, 3);          //  3
 *	jw_end(&w);                   //  ]
 *	jw_end(&w);                   // }
 *
 * key is the member's name inside an object and NULL inside an array or
 * at the top.  Keys and strings are escaped as json_string does; numbers
 * that are not finite (NaN: unknown) are written as null. */
struct jw {
	FILE *fp;
	int depth;
	bool some[JSON_MAX_DEPTH + 1];          /* a value written at this depth yet */
	char close[JSON_MAX_DEPTH + 1];         /* '}' or ']' */
};
void jw_begin(struct jw *w, FILE *fp);
/* Open an object or an array as the next value; jw_end closes the
 * innermost one.  Deeper than JSON_MAX_DEPTH is a bug: ignored. */
void jw_obj(struct jw *w, const char *key);
void jw_arr(struct jw *w, const char *key);
void jw_end(struct jw *w);
/* A string (NULL as ""), or with jw_nstr NULL as null. */
void jw_str(struct jw *w, const char *key, const char *s);
void jw_nstr(struct jw *w, const char *key, const char *s);
/* Numbers: %.9g; %.*f with prec places; exact integers. */
void jw_num(struct jw *w, const char *key, double v);
void jw_fix(struct jw *w, const char *key, double v, int prec);
void jw_int(struct jw *w, const char *key, long long v);
void jw_uint(struct jw *w, const char *key, unsigned long long v);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);
/* A parsed value written back (numbers as json_number does); NULL: null. */
void jw_value(struct jw *w, const char *key, const struct json *v);

/* A parsed value written back as JSON text (numbers as json_number does). */
void json_write_value(FILE *fp, const struct json *v);

#endif

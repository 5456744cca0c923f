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

/* ---- the writer (json_write.c): the one place JSON text is made ---- */

/* s (NULL as "") as a JSON string, quotes included: '"' and '\\'
 * escaped, \n and \t by name, other control characters as \u00XX;
 * bytes from 0x80 up are copied as they are (the caller's UTF-8). */
void json_string(FILE *fp, const char *s);
/* A number ("%.9g"), or null for NaN and infinities (JSON has neither). */
void json_number(FILE *fp, double v);
/* s escaped as json_string does, quotes included, into buf[0..size):
 * always NUL-terminated and always a complete JSON string; text that
 * does not fit is cut at a character boundary (never inside an escape
 * or a UTF-8 sequence).  Returns the length written. */
size_t json_quote(char *buf, size_t size, const char *s);
/* An object member after the first: ,"key":v (a number, null when not
 * finite) and ,"key":"s" (s escaped as json_string does). */
void json_member_number(FILE *fp, const char *key, double v);
void json_member_string(FILE *fp, const char *key, const char *s);
/* An object built member by member in memory of its own: the one writer
 * of event details (every key escaped, numbers as json_number does).
 * json_obj_end returns the text ("{...}", for the caller to free; "{}"
 * when it does not fit in max bytes, max 0: no limit), NULL when out of
 * memory.  Members added after a failure are dropped. */
struct json_obj {
	FILE *fp;
	char *text;
	size_t len;
	int n;
};
void json_obj_begin(struct json_obj *o);
void json_obj_str(struct json_obj *o, const char *key, const char *s);
void json_obj_num(struct json_obj *o, const char *key, double v);
void json_obj_bool(struct json_obj *o, const char *key, bool v);
/* A member whose value is JSON text already (a nested object). */
void json_obj_raw(struct json_obj *o, const char *key, const char *json);
char *json_obj_end(struct json_obj *o, size_t max);
/* The length of the text so far (to cut back to with json_obj_end). */
size_t json_obj_len(struct json_obj *o);

/* A parsed value written back as JSON text (numbers as json_number does). */
void json_write_value(FILE *fp, const struct json *v);

#endif

/* json.c - strict recursive-descent JSON reader into a small tree. */
#include "benchtop/json.h"

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json {
	enum json_type type;
	bool b;
	double num;
	char *str;              /* string value, NUL-terminated */
	size_t slen;
	struct json **items;    /* array elements or member values */
	char **keys;            /* object member names (NULL for arrays) */
	size_t n, cap;
};

struct parser {
	const char *p, *end, *line_start;
	int line, depth;
	struct json_error *err;
	bool failed;
};

static void fail_at(struct parser *ps, const char *at, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	if (!ps->err)
		return;
	ps->err->line = ps->line;
	ps->err->column = (int)(at - ps->line_start) + 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err->msg, sizeof ps->err->msg, fmt, ap);
	va_end(ap);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;
		if (c == '\n') {
			ps->line++;
			ps->line_start = ps->p + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		ps->p++;
	}
}

static struct json *node(struct parser *ps, enum json_type t)
{
	struct json *v = calloc(1, sizeof *v);
	if (!v)
		fail_at(ps, ps->p, "out of memory");
	else
		v->type = t;
	return v;
}

/* Describe the byte at p for a message: 'x', or "end of input". */
static const char *what(const struct parser *ps, char *buf, size_t len)
{
	if (ps->p >= ps->end)
		return "end of input";
	unsigned char c = (unsigned char)*ps->p;
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) {
		fail_at(ps, ps->p, "expected %s", word);
		return false;
	}
	ps->p += n;
	return true;
}

static bool is_digit(const struct parser *ps, const char *q)
{
	return q < ps->end && *q >= '0' && *q <= '9';
}

static locale_t c_locale(void)
{
	static locale_t loc;
	if (!loc)
		loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	return loc;
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static struct json *parse_number(struct parser *ps)
{
	const char *q = ps->p;
	if (q < ps->end && *q == '-')
		q++;
	if (!is_digit(ps, q)) {
		fail_at(ps, q, "expected a digit in a number");
		return NULL;
	}
	if (*q == '0' && is_digit(ps, q + 1)) {
		fail_at(ps, q, "leading zero in a number");
		return NULL;
	}
	while (is_digit(ps, q))
		q++;
	if (q < ps->end && *q == '.') {
		if (!is_digit(ps, ++q)) {
			fail_at(ps, q, "expected a digit after '.'");
			return NULL;
		}
		while (is_digit(ps, q))
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (!is_digit(ps, q)) {
			fail_at(ps, q, "expected a digit in the exponent");
			return NULL;
		}
		while (is_digit(ps, q))
			q++;
	}
	char buf[64];
	size_t n = (size_t)(q - ps->p);
	if (n >= sizeof buf) {
		fail_at(ps, ps->p, "number too long (%zu characters)", n);
		return NULL;
	}
	memcpy(buf, ps->p, n);
	buf[n] = 0;
	locale_t loc = c_locale();
	double num = loc ? strtod_l(buf, NULL, loc) : strtod(buf, NULL);
	if (!isfinite(num)) {
		/* 1e999: no JSON number is infinite, as none is NaN */
		fail_at(ps, ps->p, "number out of range (%s): at most about 1.8e308", buf);
		return NULL;
	}
	struct json *v = node(ps, JSON_NUMBER);
	if (!v)
		return NULL;
	v->num = num;
	ps->p = q;
	return v;
}

static int hex4(const char *q)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = q[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Length of the valid UTF-8 sequence at q (no overlongs, no surrogates,
 * at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *q, const unsigned char *end)
{
	unsigned c = q[0];
	size_t n;
	uint32_t cp, min;
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0)
		n = 2, cp = c & 0x1F, min = 0x80;
	else if ((c & 0xF0) == 0xE0)
		n = 3, cp = c & 0x0F, min = 0x800;
	else if ((c & 0xF8) == 0xF0)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	if ((size_t)(end - q) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((q[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (q[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* One \uXXXX escape (q after the 'u'), joining a surrogate pair. */
static bool unicode_escape(struct parser *ps, const char **qp, uint32_t *cp)
{
	const char *q = *qp;
	int hi = ps->end - q >= 4 ? hex4(q) : -1;
	if (hi < 0) {
		fail_at(ps, q, "expected 4 hex digits after \\u");
		return false;
	}
	q += 4;
	*cp = (uint32_t)hi;
	if (hi >= 0xDC00 && hi <= 0xDFFF) {
		fail_at(ps, q - 6, "lone low surrogate \\u%04x", hi);
		return false;
	}
	if (hi >= 0xD800 && hi <= 0xDBFF) {
		int lo = ps->end - q >= 6 && q[0] == '\\' && q[1] == 'u' ? hex4(q + 2) : -1;
		if (lo < 0xDC00 || lo > 0xDFFF) {
			fail_at(ps, q - 6, "high surrogate \\u%04x without a low one", hi);
			return false;
		}
		*cp = 0x10000 + (((uint32_t)hi - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
		q += 6;
	}
	*qp = q;
	return true;
}

/* The string at ps->p (on the opening quote) into a malloc'd buffer. */
static char *parse_chars(struct parser *ps, size_t *lenp)
{
	const char *q = ps->p + 1;
	/* Decoded text is never longer than its source. */
	const char *close = q;
	while (close < ps->end && *close != '"')
		close += *close == '\\' && close + 1 < ps->end ? 2 : 1;
	char *out = malloc((size_t)(close - q) + 1);
	if (!out) {
		fail_at(ps, ps->p, "out of memory");
		return NULL;
	}
	size_t n = 0;
	for (;;) {
		if (q >= ps->end) {
			fail_at(ps, q, "unterminated string");
			break;
		}
		unsigned char c = (unsigned char)*q;
		if (c == '"') {
			out[n] = 0;
			*lenp = n;
			ps->p = q + 1;
			return out;
		}
		if (c < 0x20) {
			fail_at(ps, q, "control character 0x%02x in a string (escape it)", c);
			break;
		}
		if (c != '\\') {
			size_t k = utf8_len((const unsigned char *)q, (const unsigned char *)ps->end);
			if (!k) {
				fail_at(ps, q, "invalid UTF-8 in a string");
				break;
			}
			memcpy(out + n, q, k);
			n += k;
			q += k;
			continue;
		}
		if (++q >= ps->end) {
			fail_at(ps, q, "unterminated string");
			break;
		}
		const char *esc = strchr("\"\\/bfnrt", *q);
		if (*q && esc) {
			out[n++] = "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
			q++;
		} else if (*q == 'u') {
			q++;
			uint32_t cp;
			if (!unicode_escape(ps, &q, &cp))
				break;
			n += put_utf8(out + n, cp);
		} else {
			fail_at(ps, q - 1, "unknown escape '\\%c'", *q);
			break;
		}
	}
	free(out);
	return NULL;
}

static struct json *parse_value(struct parser *ps);

static bool push(struct parser *ps, struct json *c, char *key, struct json *item)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct json **it = realloc(c->items, cap * sizeof *it);
		if (it)
			c->items = it;
		char **ks = c->type == JSON_OBJECT && it ? realloc(c->keys, cap * sizeof *ks) : NULL;
		if (ks)
			c->keys = ks;
		if (!it || (c->type == JSON_OBJECT && !ks)) {
			fail_at(ps, ps->p, "out of memory");
			return false;
		}
		c->cap = cap;
	}
	if (c->keys)
		c->keys[c->n] = key;
	c->items[c->n++] = item;
	return true;
}

/* Array or object: ps->p is on '[' or '{'. */
static struct json *parse_container(struct parser *ps, bool object)
{
	char close = object ? '}' : ']', buf[24];
	struct json *c = node(ps, object ? JSON_OBJECT : JSON_ARRAY);
	if (!c)
		return NULL;
	if (++ps->depth > JSON_MAX_DEPTH) {
		fail_at(ps, ps->p, "nested deeper than %d levels", JSON_MAX_DEPTH);
		return c;
	}
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return c;
	}
	while (!ps->failed) {
		skip_ws(ps);
		char *key = NULL;
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"') {
				fail_at(ps, ps->p, "expected a member name in quotes, found %s",
				        what(ps, buf, sizeof buf));
				break;
			}
			size_t klen;
			key = parse_chars(ps, &klen);
			if (!key)
				break;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				fail_at(ps, ps->p, "expected ':' after a member name, found %s",
				        what(ps, buf, sizeof buf));
				free(key);
				break;
			}
			ps->p++;
		}
		struct json *item = parse_value(ps);
		if (!item || !push(ps, c, key, item)) {
			free(key);
			json_free(item);
			break;
		}
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			break;
		}
		fail_at(ps, ps->p, "expected ',' or '%c', found %s", close, what(ps, buf, sizeof buf));
	}
	ps->depth--;
	return c;
}

static struct json *parse_value(struct parser *ps)
{
	char buf[24];
	skip_ws(ps);
	if (ps->p >= ps->end) {
		fail_at(ps, ps->p, "expected a value, found end of input");
		return NULL;
	}
	struct json *v = NULL;
	switch (*ps->p) {
	case '{': v = parse_container(ps, true); break;
	case '[': v = parse_container(ps, false); break;
	case '"':
		v = node(ps, JSON_STRING);
		if (v && !(v->str = parse_chars(ps, &v->slen))) {
			free(v);
			v = NULL;
		}
		break;
	case 't':
		if (literal(ps, "true") && (v = node(ps, JSON_BOOL)))
			v->b = true;
		break;
	case 'f':
		if (literal(ps, "false"))
			v = node(ps, JSON_BOOL);
		break;
	case 'n':
		if (literal(ps, "null"))
			v = node(ps, JSON_NULL);
		break;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			v = parse_number(ps);
		else
			fail_at(ps, ps->p, "expected a value, found %s", what(ps, buf, sizeof buf));
	}
	if (ps->failed) {
		json_free(v);
		return NULL;
	}
	return v;
}

struct json *json_parse(const char *text, size_t len, struct json_error *err)
{
	struct parser ps = { .p = text, .end = text + len, .line_start = text, .line = 1, .err = err };
	if (err)
		memset(err, 0, sizeof *err);
	struct json *v = parse_value(&ps);
	if (v) {
		skip_ws(&ps);
		if (ps.p < ps.end) {
			char buf[24];
			fail_at(&ps, ps.p, "unexpected %s after the value", what(&ps, buf, sizeof buf));
			json_free(v);
			v = NULL;
		}
	}
	return v;
}

void json_free(struct json *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		json_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

enum json_type json_type(const struct json *v)
{
	return v ? v->type : JSON_NULL;
}

const struct json *json_get(const struct json *v, const char *key)
{
	if (!v || v->type != JSON_OBJECT || !key)
		return NULL;
	for (size_t i = v->n; i-- > 0;)
		if (!strcmp(v->keys[i], key))
			return v->items[i];
	return NULL;
}

size_t json_len(const struct json *v)
{
	return v && (v->type == JSON_ARRAY || v->type == JSON_OBJECT) ? v->n : 0;
}

const struct json *json_at(const struct json *v, size_t i)
{
	return i < json_len(v) ? v->items[i] : NULL;
}

const char *json_key(const struct json *v, size_t i)
{
	return v && v->type == JSON_OBJECT && i < v->n ? v->keys[i] : NULL;
}

double json_num(const struct json *v, double def)
{
	return v && v->type == JSON_NUMBER ? v->num : def;
}

const char *json_str(const struct json *v, const char *def)
{
	return v && v->type == JSON_STRING ? v->str : def;
}

size_t json_strlen(const struct json *v)
{
	return v && v->type == JSON_STRING ? v->slen : 0;
}

bool json_bool(const struct json *v, bool def)
{
	return v && v->type == JSON_BOOL ? v->b : def;
}

bool json_is_null(const struct json *v)
{
	return v && v->type == JSON_NULL;
}

int json_get_int(const struct json *obj, const char *key, int def)
{
	double v = json_num(json_get(obj, key), def);
	return isfinite(v) && v >= INT_MIN && v <= INT_MAX ? (int)v : def;
}

long json_get_long(const struct json *obj, const char *key, long def)
{
	double v = json_num(json_get(obj, key), (double)def);
	return isfinite(v) && v >= -1e15 && v <= 1e15 ? (long)v : def;
}

void json_get_str(const struct json *obj, const char *key, char *dst, size_t len)
{
	snprintf(dst, len, "%s", json_str(json_get(obj, key), ""));
}

/* scalar.c - the words of a command line that are values: sizes, times,
 * frequencies, whole numbers, CPU lists, names, words from a list.  Each
 * parser takes the text and what it is for, and gives a value or one
 * sentence naming the bad word and saying what is accepted. */
#include "cli_priv.h"
#include "benchtop/cpulist.h"
#include "benchtop/xalloc.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_HINT "use a number with an optional unit k, M, G, KiB, MiB, GiB, TiB, kB, MB, GB, TB or B"
#define CPULIST_NCPU 4096        /* syntax check only; the machine's count is checked at run time */
#define MAX_TIME_S 1e9           /* about 31 years: anything longer is a typo */
#define MAX_TIME_HINT "use at most 1000000000s (about 31 years)"
#define MAX_SIZE_HINT "use at most 18446744073709551615 bytes (16 EiB less one byte)"
#define MAX_FRAC 18              /* digits after the point */
#define FRAC_HINT "use at most 18 digits after the point and 19 in all"

/* ---- scalars ---------------------------------------------------------- */

struct number {
	uint64_t mant;   /* all digits, the decimal point removed */
	int frac;        /* digits after the point */
	const char *end; /* first character after the number */
};

/* Digits with an optional fraction (".5", "1", "2.25").  No sign, no
 * exponent, no hex, no locale: strtod accepts too much.  Returns 0, -1 if
 * no number starts at s, -2 if its whole part exceeds UINT64_MAX, -3 if it
 * has too many digits after the point (more than MAX_FRAC, or all its
 * digits together exceed UINT64_MAX). */
static int parse_number(const char *s, struct number *n)
{
	int digits = 0;
	bool point = false;
	n->mant = 0;
	n->frac = 0;
	for (; *s; s++) {
		if (*s == '.' && !point) {
			point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		if (point && n->frac >= MAX_FRAC)
			return -3;
		if (__builtin_mul_overflow(n->mant, 10, &n->mant) ||
		    __builtin_add_overflow(n->mant, (uint64_t)(*s - '0'), &n->mant))
			return point ? -3 : -2;
		n->frac += point;
		digits++;
	}
	n->end = s;
	if (digits == 0 || (point && n->frac == 0))
		return -1;
	return 0;
}

static uint64_t pow10u(int e)
{
	uint64_t p = 1;
	while (e-- > 0)
		p *= 10;
	return p;
}

struct unit { const char *name; uint64_t mult; };

static const struct unit size_units[] = {
	{ "", 1 }, { "B", 1 },
	{ "k", 1ull << 10 }, { "K", 1ull << 10 }, { "m", 1ull << 20 }, { "M", 1ull << 20 },
	{ "g", 1ull << 30 }, { "G", 1ull << 30 },
	{ "KiB", 1ull << 10 }, { "MiB", 1ull << 20 }, { "GiB", 1ull << 30 }, { "TiB", 1ull << 40 },
	{ "kB", 1000ull }, { "MB", 1000000ull }, { "GB", 1000000000ull }, { "TB", 1000000000000ull },
};

static const struct unit *find_unit(const struct unit *u, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(u[i].name, name) == 0)
			return &u[i];
	return NULL;
}

/* A number with a unit to a whole count: mant * mult / 10^frac, exactly;
 * -2 when that is above UINT64_MAX, -1 when it is not whole. */
static int scale_exact(const struct number *n, uint64_t mult, uint64_t *out)
{
	unsigned __int128 v = (unsigned __int128)n->mant * mult;
	uint64_t p = pow10u(n->frac);
	if (v / p > UINT64_MAX)
		return -2;
	if (v % p)
		return -1;
	*out = (uint64_t)(v / p);
	return 0;
}

/* How sizes and times are named in their messages. */
struct quantity {
	const char *noun;        /* "size", "time" */
	const char *hint;        /* how to write one */
	const char *too_big;     /* "too large", "too long" */
	const char *max_hint;    /* the largest there is */
};

static const struct quantity size_q = { "size", SIZE_HINT, "too large", MAX_SIZE_HINT };
static const struct quantity time_q = { "time", TIME_HINT, "too long", MAX_TIME_HINT };

static int bad_quantity(const struct quantity *q, const char *s, const char *what,
                        char *err, size_t errlen)
{
	return fail(err, errlen, "bad %s \"%s\" for %s: %s", q->noun, s, what, q->hint);
}

static int too_big(const struct quantity *q, const char *s, const char *what,
                   char *err, size_t errlen)
{
	return fail(err, errlen, "%s \"%s\" for %s is %s: %s", q->noun, s, what, q->too_big,
	            q->max_hint);
}

/* The checks sizes and times share: s given, not negative, a number whose
 * value and digits fit, into *n (its unit still at n->end).  0, or -1 with
 * err saying what is wrong and what would be accepted. */
static int parse_quantity(const char *s, struct number *n, const struct quantity *q,
                          const char *what, char *err, size_t errlen)
{
	int rc;

	if (!s || !*s)
		return fail(err, errlen, "empty %s for %s: %s", q->noun, what, q->hint);
	if (*s == '-')
		return fail(err, errlen, "bad %s \"%s\" for %s: must not be negative; %s", q->noun, s,
		            what, q->hint);
	rc = parse_number(s, n);
	if (rc == -2)
		return too_big(q, s, what, err, errlen);
	if (rc == -3)
		return fail(err, errlen, "%s \"%s\" for %s has too many digits: %s", q->noun, s, what,
		            FRAC_HINT);
	if (rc)
		return bad_quantity(q, s, what, err, errlen);
	return 0;
}

int cli_parse_size(const char *s, uint64_t *out, const char *what, char *err, size_t errlen)
{
	struct number n;
	const struct unit *u;
	int rc;

	if (parse_quantity(s, &n, &size_q, what, err, errlen))
		return -1;
	u = find_unit(size_units, sizeof size_units / sizeof size_units[0], n.end);
	if (!u)
		return bad_quantity(&size_q, s, what, err, errlen);
	rc = scale_exact(&n, u->mult, out);
	if (rc == -2)
		return too_big(&size_q, s, what, err, errlen);
	if (rc)
		return fail(err, errlen, "size \"%s\" for %s is not a whole number of bytes", s, what);
	return 0;
}

int cli_parse_time(const char *s, double *out, const char *what, char *err, size_t errlen)
{
	static const struct { const char *name; double mult; } tu[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 0.001 }, { "min", 60 },
	};
	struct number n;

	if (parse_quantity(s, &n, &time_q, what, err, errlen))
		return -1;
	for (size_t i = 0; i < sizeof tu / sizeof tu[0]; i++) {
		if (strcmp(n.end, tu[i].name) != 0)
			continue;
		double v = (double)n.mant / (double)pow10u(n.frac) * tu[i].mult;
		if (v > MAX_TIME_S)
			return too_big(&time_q, s, what, err, errlen);
		*out = v;
		return 0;
	}
	return bad_quantity(&time_q, s, what, err, errlen);
}

/* A whole number in [lo, hi]. */
int cli_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
                      const char *what, char *err, size_t errlen)
{
	struct number n;
	if (!s || !*s)
		return fail(err, errlen, "empty value for %s: use a whole number from %llu to %llu",
		            what, (unsigned long long)lo, (unsigned long long)hi);
	if (parse_number(s, &n) != 0 || n.frac || *n.end || n.mant < lo || n.mant > hi)
		return fail(err, errlen, "bad value \"%s\" for %s: use a whole number from %llu to %llu",
		            s, what, (unsigned long long)lo, (unsigned long long)hi);
	*out = n.mant;
	return 0;
}

int cli_parse_cpulist(const char *s, unsigned char *mask, int ncpu, char *err, size_t errlen)
{
	if (!s || !*s)
		return fail(err, errlen, "empty CPU list: use CPU numbers and ranges, e.g. 0 or 0,2-3");
	return cpulist_parse(s, mask, ncpu, err, errlen);
}

/* Syntax check of a CPU list against a generous CPU count. */
int cli_check_cpulist(const char *s, const char *what, char *err, size_t errlen)
{
	unsigned char *mask = xcalloc(CPULIST_NCPU, 1);
	int rc;
	char why[CLI_ERR_MAX];
	rc = cli_parse_cpulist(s, mask, CPULIST_NCPU, why, sizeof why);
	free(mask);
	if (rc)
		return fail(err, errlen, "bad CPU list \"%s\" for %s: %s", s ? s : "", what, why);
	return 0;
}

/* Governor and preset names: what a sysfs file name can hold, no paths. */
int cli_check_name(const char *s, const char *what, char *err, size_t errlen)
{
	size_t n = strlen(s);
	if (n == 0 || n > 31 || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != n
	    || s[0] == '.' || s[0] == '-')
		return fail(err, errlen, "bad %s \"%s\": use up to 31 letters, digits, '_', '-' or '.', "
		            "e.g. ondemand, performance, schedutil", what, s);
	return 0;
}

/* "2600000", "2600000kHz", "2600MHz", "2.6GHz" -> kHz. */
int cli_parse_khz(const char *s, long *out, char *err, size_t errlen)
{
	static const struct unit fu[] = { { "", 1 }, { "kHz", 1 }, { "MHz", 1000 }, { "GHz", 1000000 } };
	struct number n;
	const struct unit *u = NULL;
	uint64_t v = 0;

	if (parse_number(s, &n) == 0)
		u = find_unit(fu, sizeof fu / sizeof fu[0], n.end);
	if (!u || scale_exact(&n, u->mult, &v) || v == 0 || v > 1000000000)
		return fail(err, errlen, "bad frequency \"%s\" for maxfreq: use kHz (2600000) or a unit kHz, MHz, GHz (2.6GHz)", s);
	*out = (long)v;
	return 0;
}

/* ---- words ---------------------------------------------------------------- */

/* "a, b or c" from a NULL-terminated word list. */
void cli_join_words(const char *const *w, char *buf, size_t len)
{
	size_t n = 0, used = 0;
	while (w[n])
		n++;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		int k = snprintf(buf + used, len - used, "%s%s", sep, w[i]);
		if (k < 0 || (size_t)k >= len - used)
			return;
		used += (size_t)k;
	}
}

int cli_word_index(const char *const *w, const char *s)
{
	for (int i = 0; w[i]; i++)
		if (strcmp(w[i], s) == 0)
			return i;
	return -1;
}

/* Prints text word-wrapped to 80 columns, continuation lines indented. */
void cli_wrap(FILE *fp, const char *text, int col)
{
	int x = col;
	while (*text) {
		int n = (int)strcspn(text, " ");
		if (x > col && x + 1 + n > 79) {
			fprintf(fp, "\n%*s", col, "");
			x = col;
		} else if (x > col) {
			fputc(' ', fp);
			x++;
		}
		fprintf(fp, "%.*s", n, text);
		x += n;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', fp);
}

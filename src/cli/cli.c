/* cli.c - command line and workload specs: strings in, a struct run or one
 * error sentence out.  Pure: no I/O (except cli_print_help), no exit(),
 * and no other benchtop module but cpulist (the fuzz harness links only
 * cli.c, units.c and cpulist.c).
 *
 * Two tables drive everything: cli_options[] (options, --help, the man
 * page test) and wl_keys[] (workload keys, their checks and their help).
 * Every error names the offending word and says what would be accepted. */
#include "benchtop/cli.h"
#include "benchtop/cpulist.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_HINT "use a number with an optional unit k, M, G, KiB, MiB, GiB, TiB, kB, MB, GB, TB or B"
#define TIME_HINT "use a number of seconds with an optional unit ms, s or min (e.g. 500ms, 2min)"
#define CPULIST_NCPU 4096        /* syntax check only; the machine's count is checked at run time */
#define MAX_TIME_S 1e9           /* about 31 years: anything longer is a typo */
#define MAX_TIME_HINT "use at most 1000000000s (about 31 years)"
#define MAX_SIZE_HINT "use at most 18446744073709551615 bytes (16 EiB less one byte)"
#define MAX_FRAC 18              /* digits after the point */
#define FRAC_HINT "use at most 18 digits after the point and 19 in all"
#define MAX_BS (1ull << 30)      /* a bigger buffer per call only tests malloc */
#define MAX_JOBS 1024
#define MAX_PID 4194304          /* PID_MAX_LIMIT on 64-bit Linux */
#define DEFAULT_BS (128u * 1024u)

/* Writes the message and returns -1, so error paths are one line. */
__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

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

int cli_parse_size(const char *s, uint64_t *out, const char *what, char *err, size_t errlen)
{
	struct number n;
	const struct unit *u;
	int rc;

	if (!s || !*s)
		return fail(err, errlen, "empty size for %s: %s", what, SIZE_HINT);
	if (*s == '-')
		return fail(err, errlen, "bad size \"%s\" for %s: must not be negative; %s", s, what, SIZE_HINT);
	rc = parse_number(s, &n);
	if (rc == -2)
		return fail(err, errlen, "size \"%s\" for %s is too large: %s", s, what, MAX_SIZE_HINT);
	if (rc == -3)
		return fail(err, errlen, "size \"%s\" for %s has too many digits: %s", s, what, FRAC_HINT);
	u = rc ? NULL : find_unit(size_units, sizeof size_units / sizeof size_units[0], n.end);
	if (!u)
		return fail(err, errlen, "bad size \"%s\" for %s: %s", s, what, SIZE_HINT);
	rc = scale_exact(&n, u->mult, out);
	if (rc == -2)
		return fail(err, errlen, "size \"%s\" for %s is too large: %s", s, what, MAX_SIZE_HINT);
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
	int rc;

	if (!s || !*s)
		return fail(err, errlen, "empty time for %s: %s", what, TIME_HINT);
	if (*s == '-')
		return fail(err, errlen, "bad time \"%s\" for %s: must not be negative; %s", s, what, TIME_HINT);
	rc = parse_number(s, &n);
	if (rc == -2)
		return fail(err, errlen, "time \"%s\" for %s is too long: %s", s, what, MAX_TIME_HINT);
	if (rc == -3)
		return fail(err, errlen, "time \"%s\" for %s has too many digits: %s", s, what, FRAC_HINT);
	for (size_t i = 0; rc == 0 && i < sizeof tu / sizeof tu[0]; i++) {
		if (strcmp(n.end, tu[i].name) != 0)
			continue;
		double v = (double)n.mant / (double)pow10u(n.frac) * tu[i].mult;
		if (v > MAX_TIME_S)
			return fail(err, errlen, "time \"%s\" for %s is too long: %s", s, what, MAX_TIME_HINT);
		*out = v;
		return 0;
	}
	return fail(err, errlen, "bad time \"%s\" for %s: %s", s, what, TIME_HINT);
}

/* A whole number in [lo, hi]. */
static int parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
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
static int check_cpulist(const char *s, const char *what, char *err, size_t errlen)
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
static int check_name(const char *s, const char *what, char *err, size_t errlen)
{
	size_t n = strlen(s);
	if (n == 0 || n > 31 || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != n
	    || s[0] == '.' || s[0] == '-')
		return fail(err, errlen, "bad %s \"%s\": use up to 31 letters, digits, '_', '-' or '.', "
		            "e.g. ondemand, performance, schedutil", what, s);
	return 0;
}

/* ---- workload specs ---------------------------------------------------- */

enum key_type { KT_STR, KT_SIZE, KT_INT, KT_U64, KT_ENUM, KT_BOOLWORD, KT_DIRECT, KT_RUN };

#define K(k) (1u << (k))
static const char *const engine_words[] = { "rw", "cfr", "sendfile", "splice", "mmap", "pipe", NULL };
static const char *const sync_words[] = { "end", "none", "each", NULL };
static const char *const pattern_words[] = { "seq", "rewrite", NULL };
static const char *const unit_words[] = { "block", "char", NULL };

struct wl_key {
	const char *name;
	unsigned kinds;              /* bit per enum wl_kind */
	enum key_type type;
	size_t off;                  /* field in struct wl_spec */
	uint64_t lo, hi;             /* KT_SIZE, KT_INT, KT_U64 range */
	const char *const *words;    /* KT_ENUM, KT_BOOLWORD (second word = true) */
	const char *meta;            /* shown as key=META */
	const char *help;
};

#define F(f) offsetof(struct wl_spec, f)
static const struct wl_key wl_keys[] = {
	{ "src", K(WL_COPY), KT_STR, F(src), 0, 0, NULL, "FILE", "file to copy (required)" },
	{ "dst", K(WL_COPY), KT_STR, F(dst), 0, 0, NULL, "FILE", "destination (default: a new file in the scratch directory)" },
	{ "path", K(WL_WRITE) | K(WL_READ) | K(WL_SEEK), KT_STR, F(path), 0, 0, NULL, "PATH",
	  "file (read, seek: required) or, for write, file or directory (default: scratch directory)" },
	{ "bs", K(WL_COPY) | K(WL_WRITE) | K(WL_READ), KT_SIZE, F(bs), 1, MAX_BS, NULL, "SIZE", "bytes per call (default 128k)" },
	{ "size", K(WL_WRITE), KT_SIZE, F(size), 1, UINT64_MAX, NULL, "SIZE", "bytes to write (default: the engine's)" },
	{ "engine", K(WL_COPY), KT_ENUM, F(engine), 0, 0, engine_words, "ENGINE", "rw, cfr, sendfile, splice, mmap or pipe (default rw)" },
	{ "procs", K(WL_COPY), KT_INT, F(procs), 2, 3, NULL, "N", "engine=pipe: 2 or 3 processes (default 3)" },
	{ "sync", K(WL_COPY) | K(WL_WRITE), KT_ENUM, F(sync), 0, 0, sync_words, "MODE", "end, none or each (default end)" },
	{ "direct", K(WL_COPY) | K(WL_WRITE), KT_DIRECT, F(direct), 0, 0, NULL, "BOOL", "O_DIRECT (direct alone means yes)" },
	{ "jobs", K(WL_COPY) | K(WL_WRITE) | K(WL_READ), KT_INT, F(jobs), 1, MAX_JOBS, NULL, "N", "copies at once, each on its own file (default 1)" },
	{ "pattern", K(WL_WRITE), KT_BOOLWORD, F(rewrite), 0, 0, pattern_words, "PATTERN", "seq or rewrite (default seq)" },
	{ "unit", K(WL_WRITE) | K(WL_READ), KT_BOOLWORD, F(unit_char), 0, 0, unit_words, "UNIT", "block or char (default block)" },
	{ "seekers", K(WL_SEEK), KT_INT, F(seekers), 1, 64, NULL, "N", "seeking processes (default 3)" },
	{ "count", K(WL_SEEK), KT_U64, F(count), 0, UINT64_MAX, NULL, "N", "reads per seeker (default 0: until stopped)" },
	{ "run", K(WL_CMD), KT_RUN, F(argv), 0, 0, NULL, "TEXT", "shell command, to the end of the spec (commas allowed)" },
};
#undef F
#define NKEYS (sizeof wl_keys / sizeof wl_keys[0])

static const struct { const char *name; enum wl_kind kind; const char *required; } wl_kinds[] = {
	{ "copy", WL_COPY, "src" }, { "write", WL_WRITE, NULL }, { "read", WL_READ, "path" },
	{ "seek", WL_SEEK, "path" }, { "cmd", WL_CMD, "run" },
};
#define NKINDS (sizeof wl_kinds / sizeof wl_kinds[0])

const char *cli_kind_name(enum wl_kind k)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (wl_kinds[i].kind == k)
			return wl_kinds[i].name;
	return "?";
}

/* "a, b or c" from a NULL-terminated word list. */
static void join_words(const char *const *w, char *buf, size_t len)
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

static int word_index(const char *const *w, const char *s)
{
	for (int i = 0; w[i]; i++)
		if (strcmp(w[i], s) == 0)
			return i;
	return -1;
}

/* The accepted keys of a kind, "src, dst, bs, ...". */
static void kind_keys(enum wl_kind kind, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < NKEYS; i++) {
		if (!(wl_keys[i].kinds & K(kind)))
			continue;
		int k = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", wl_keys[i].name);
		if (k < 0 || (size_t)k >= len - used)
			return;
		used += (size_t)k;
	}
}

static int set_direct(bool *out, const char *val, char *err, size_t errlen)
{
	static const char *const yes[] = { "1", "yes", "true", NULL };
	static const char *const no[] = { "0", "no", "false", NULL };
	if (!val || word_index(yes, val) >= 0)
		*out = true;
	else if (word_index(no, val) >= 0)
		*out = false;
	else
		return fail(err, errlen, "bad value \"%s\" for direct: use direct, direct=1|0|yes|no|true|false", val);
	return 0;
}

static int set_cmd_argv(struct wl_spec *w, const char *text)
{
	w->argv = xrealloc(NULL, 4 * sizeof *w->argv);
	w->argv[0] = xstrdup("/bin/sh");
	w->argv[1] = xstrdup("-c");
	w->argv[2] = xstrdup(text);
	w->argv[3] = NULL;
	return 0;
}

/* Stores one key's value; the key table says where and how. */
static int set_key(struct wl_spec *w, const struct wl_key *k, const char *val, char *err, size_t errlen)
{
	char *field = (char *)w + k->off;
	char words[128];
	uint64_t u;
	int i;

	switch (k->type) {
	case KT_STR:
		*(char **)field = xstrdup(val);
		return 0;
	case KT_RUN:
		return set_cmd_argv(w, val);
	case KT_DIRECT:
		return set_direct((bool *)field, val, err, errlen);
	case KT_SIZE:
		if (cli_parse_size(val, &u, k->name, err, errlen))
			return -1;
		if (u < k->lo || u > k->hi)
			return fail(err, errlen, "bad size \"%s\" for %s: use at least 1 byte%s", val, k->name,
			            k->hi == MAX_BS ? " and at most 1GiB" : "");
		*(uint64_t *)field = u;
		return 0;
	case KT_INT:
	case KT_U64:
		if (parse_uint(val, k->lo, k->hi, &u, k->name, err, errlen))
			return -1;
		if (k->type == KT_INT)
			*(int *)field = (int)u;
		else
			*(uint64_t *)field = u;
		return 0;
	case KT_ENUM:
	case KT_BOOLWORD:
		i = word_index(k->words, val);
		join_words(k->words, words, sizeof words);
		if (i < 0)
			return fail(err, errlen, "bad %s \"%s\": use %s", k->name, val, words);
		if (k->type == KT_BOOLWORD)
			*(bool *)field = i == 1;
		else
			*(unsigned *)field = (unsigned)i;
		return 0;
	}
	return fail(err, errlen, "internal: key %s has no type", k->name);
}

static void wl_defaults(struct wl_spec *w, enum wl_kind kind, const char *text)
{
	memset(w, 0, sizeof *w);
	w->kind = kind;
	w->text = xstrdup(text);
	w->bs = DEFAULT_BS;
	w->engine = ENG_RW;
	w->procs = 3;
	w->sync = SYNC_END;
	w->jobs = 1;
	w->seekers = 3;
}

static const struct wl_key *find_key(const char *name, size_t n)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strlen(wl_keys[i].name) == n && strncmp(wl_keys[i].name, name, n) == 0)
			return &wl_keys[i];
	return NULL;
}

/* One "key=value" (or bare "key") item of a spec; *next is where the
 * following item starts.  `seen` is a bit per wl_keys[] row. */
static int spec_item(struct wl_spec *w, const char *kind, const char *item, const char **next,
                     unsigned *seen, char *err, size_t errlen)
{
	size_t n = strcspn(item, "=,");
	const struct wl_key *k = find_key(item, n);
	char keys[160], *val;
	const char *v, *end;
	int rc;

	if (n == 0)
		return fail(err, errlen, "empty key in workload \"%s\": use %s:key=value,key=value", w->text, kind);
	if (!k || !(k->kinds & K(w->kind))) {
		kind_keys(w->kind, keys, sizeof keys);
		return fail(err, errlen, "unknown key \"%.*s\" for %s: accepted keys are %s", (int)n, item, kind, keys);
	}
	if (*seen & (1u << (k - wl_keys)))
		return fail(err, errlen, "key \"%s\" given twice in workload \"%s\"", k->name, w->text);
	*seen |= 1u << (k - wl_keys);
	if (item[n] != '=') {
		*next = item + n;
		if (k->type == KT_DIRECT)
			return set_key(w, k, NULL, err, errlen);
		return fail(err, errlen, "key \"%s\" needs a value: %s=%s", k->name, k->name, k->meta);
	}
	v = item + n + 1;
	end = k->type == KT_RUN ? v + strlen(v) : v + strcspn(v, ",");
	*next = end;
	if (end == v)
		return fail(err, errlen, "empty value for key \"%s\" in workload \"%s\": use %s=%s",
		            k->name, w->text, k->name, k->meta);
	val = xstrndup(v, (size_t)(end - v));
	rc = set_key(w, k, val, err, errlen);
	free(val);
	return rc;
}

/* Rules between keys, checked once all keys are in. */
static int spec_check(struct wl_spec *w, const char *kind, const char *required, unsigned seen,
                      char *err, size_t errlen)
{
	const struct wl_key *procs = find_key("procs", 5);
	if (required) {
		const struct wl_key *k = find_key(required, strlen(required));
		if (!(seen & (1u << (k - wl_keys))))
			return fail(err, errlen, "workload \"%s\": %s needs %s=%s, e.g. %s:%s=%s",
			            w->text, kind, k->name, k->meta, kind, k->name,
			            w->kind == WL_CMD ? "'sleep 5'" : "/path/to/file");
	}
	if ((seen & (1u << (procs - wl_keys))) && w->engine != ENG_PIPE)
		return fail(err, errlen, "workload \"%s\": procs=%d needs engine=pipe "
		            "(the other engines run one process per job)", w->text, w->procs);
	if (w->src && w->dst && strcmp(w->src, w->dst) == 0)
		return fail(err, errlen, "workload \"%s\": src and dst are the same file \"%s\"", w->text, w->src);
	return 0;
}

static int parse_spec(const char *text, struct wl_spec *w, char *err, size_t errlen)
{
	size_t n = strcspn(text, ":");
	const char *p;
	unsigned seen = 0;
	size_t i;

	for (i = 0; i < NKINDS; i++)
		if (strlen(wl_kinds[i].name) == n && strncmp(wl_kinds[i].name, text, n) == 0)
			break;
	if (i == NKINDS)
		return fail(err, errlen, "unknown workload kind \"%.*s\" in \"%s\": use copy, write, read, seek or cmd",
		            (int)n, text, text);
	wl_defaults(w, wl_kinds[i].kind, text);
	if (text[n] == ':' && text[n + 1] == 0)
		return fail(err, errlen, "nothing after ':' in workload \"%s\": use %s:key=value,...", text, wl_kinds[i].name);
	for (p = text[n] ? text + n + 1 : text + n; *p; ) {
		if (spec_item(w, wl_kinds[i].name, p, &p, &seen, err, errlen))
			return -1;
		if (*p == ',' && p[1] == 0)
			return fail(err, errlen, "trailing ',' in workload \"%s\"", text);
		if (*p == ',')
			p++;
	}
	return spec_check(w, wl_kinds[i].name, wl_kinds[i].required, seen, err, errlen);
}

void cli_free_workload(struct wl_spec *w)
{
	if (!w)
		return;
	free(w->text);
	free(w->src);
	free(w->dst);
	free(w->path);
	for (size_t i = 0; w->argv && w->argv[i]; i++)
		free(w->argv[i]);
	free(w->argv);
	memset(w, 0, sizeof *w);
}

int cli_parse_workload(const char *text, struct wl_spec *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof *w);
	if (!text || !*text)
		return fail(err, errlen, "empty workload: use KIND[:key=value,...] with KIND copy, write, read, seek or cmd");
	if (parse_spec(text, w, err, errlen)) {
		cli_free_workload(w);
		return -1;
	}
	return 0;
}

/* ---- --at T:ACTION ------------------------------------------------------ */

enum at_arg { AA_NONE, AA_CPULIST, AA_NAME, AA_KHZ, AA_TEXT };
static const struct { const char *name; enum at_kind kind; enum at_arg arg; const char *meta; } at_actions[] = {
	{ "pin", AT_PIN, AA_CPULIST, "LIST" }, { "pack", AT_PACK, AA_NONE, NULL },
	{ "free", AT_FREE, AA_NONE, NULL }, { "spread", AT_SPREAD, AA_NONE, NULL },
	{ "governor", AT_GOVERNOR, AA_NAME, "NAME" }, { "maxfreq", AT_MAXFREQ, AA_KHZ, "KHZ" },
	{ "marker", AT_MARKER, AA_TEXT, "TEXT" }, { "pause", AT_PAUSE, AA_NONE, NULL },
	{ "resume", AT_RESUME, AA_NONE, NULL },
};
#define AT_HINT "use pin=LIST, pack, free, spread, governor=NAME, maxfreq=KHZ, marker=TEXT, pause or resume"

/* "2600000", "2600000kHz", "2600MHz", "2.6GHz" -> kHz. */
static int parse_khz(const char *s, long *out, char *err, size_t errlen)
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

static int at_arg(struct at_action *a, enum at_arg kind, const char *v, char *err, size_t errlen)
{
	switch (kind) {
	case AA_CPULIST:
		if (check_cpulist(v, "pin", err, errlen))
			return -1;
		break;
	case AA_NAME:
		if (check_name(v, "governor", err, errlen))
			return -1;
		break;
	case AA_KHZ:
		return parse_khz(v, &a->khz, err, errlen);
	case AA_NONE:
	case AA_TEXT:
		break;
	}
	a->arg = xstrdup(v);
	return 0;
}

static int parse_at(const char *s, struct at_action *a, char *err, size_t errlen)
{
	const char *colon = strchr(s, ':'), *act, *eq;
	char *t;
	size_t n;
	int rc;

	if (!colon)
		return fail(err, errlen, "bad --at \"%s\": use T:ACTION, e.g. 10s:spread or 20:pin=0", s);
	t = xstrndup(s, (size_t)(colon - s));
	rc = cli_parse_time(t, &a->t, "--at", err, errlen);
	free(t);
	if (rc)
		return -1;
	act = colon + 1;
	eq = strchr(act, '=');
	n = eq ? (size_t)(eq - act) : strlen(act);
	for (size_t i = 0; i < sizeof at_actions / sizeof at_actions[0]; i++) {
		if (strlen(at_actions[i].name) != n || strncmp(at_actions[i].name, act, n) != 0)
			continue;
		a->kind = at_actions[i].kind;
		if (at_actions[i].arg == AA_NONE && eq)
			return fail(err, errlen, "action \"%s\" in --at \"%s\" takes no value", at_actions[i].name, s);
		if (at_actions[i].arg != AA_NONE && (!eq || !eq[1]))
			return fail(err, errlen, "action \"%s\" in --at \"%s\" needs a value: %s=%s",
			            at_actions[i].name, s, at_actions[i].name, at_actions[i].meta);
		return at_actions[i].arg == AA_NONE ? 0 : at_arg(a, at_actions[i].arg, eq + 1, err, errlen);
	}
	return fail(err, errlen, "unknown action \"%.*s\" in --at \"%s\": " AT_HINT, (int)n, act, s);
}

int cli_parse_at(const char *s, struct at_action *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof *a);
	if (!s || !*s)
		return fail(err, errlen, "empty --at: use T:ACTION, e.g. 10s:spread");
	if (parse_at(s, a, err, errlen)) {
		free(a->arg);
		memset(a, 0, sizeof *a);
		return -1;
	}
	return 0;
}

/* ---- option handlers ------------------------------------------------------ */

static int o_workload(struct run *r, const char *v, char *err, size_t errlen)
{
	struct wl_spec w;
	if (cli_parse_workload(v, &w, err, errlen))
		return -1;
	r->wl = xrealloc(r->wl, (r->nwl + 1) * sizeof *r->wl);
	r->wl[r->nwl++] = w;
	return 0;
}

static int o_interval(struct run *r, const char *v, char *err, size_t errlen)
{
	double t;
	if (cli_parse_time(v, &t, "--interval", err, errlen))
		return -1;
	if (t < 0.05 || t > 10)
		return fail(err, errlen, "interval \"%s\" is out of range: use 0.05 to 10 seconds (50ms to 10s)", v);
	r->interval = t;
	return 0;
}

static int o_duration(struct run *r, const char *v, char *err, size_t errlen)
{
	if (cli_parse_time(v, &r->duration, "--duration", err, errlen))
		return -1;
	if (r->duration <= 0)
		return fail(err, errlen, "duration \"%s\" must be more than 0: %s", v, TIME_HINT);
	return 0;
}

static int o_at(struct run *r, const char *v, char *err, size_t errlen)
{
	struct at_action a;
	size_t i;
	if (cli_parse_at(v, &a, err, errlen))
		return -1;
	r->at = xrealloc(r->at, (r->nat + 1) * sizeof *r->at);
	for (i = r->nat; i > 0 && r->at[i - 1].t > a.t; i--)  /* stable insert by time */
		r->at[i] = r->at[i - 1];
	r->at[i] = a;
	r->nat++;
	return 0;
}

/* A word from a fixed list into an enum-valued field. */
static int pick(const char *const *words, const char *opt, const char *v, unsigned *out,
                char *err, size_t errlen)
{
	char list[96];
	int i = word_index(words, v);
	join_words(words, list, sizeof list);
	if (i < 0)
		return fail(err, errlen, "bad value \"%s\" for %s: use %s", v, opt, list);
	*out = (unsigned)i;
	return 0;
}

static int o_format(struct run *r, const char *v, char *err, size_t errlen)
{
	static const char *const w[] = { "text", "csv", "json", NULL };
	unsigned i = 0;
	if (pick(w, "--format", v, &i, err, errlen))
		return -1;
	r->format = i == 0 ? FMT_TEXT : i == 1 ? FMT_CSV : FMT_JSON;
	return 0;
}

static int o_units(struct run *r, const char *v, char *err, size_t errlen)
{
	if (units_parse(v, &r->units))
		return fail(err, errlen, "bad value \"%s\" for --units: use iec, si or bits", v);
	return 0;
}

static const char *const placement_words[] = { "pack", "free", "spread", NULL };

static int o_placement(struct run *r, const char *v, char *err, size_t errlen)
{
	unsigned i = 0;
	if (pick(placement_words, "--placement", v, &i, err, errlen))
		return -1;
	r->placement = i == 0 ? PLACE_PACK : i == 1 ? PLACE_FREE : PLACE_SPREAD;
	return 0;
}

/* String-valued options share one setter per field. */
#define STR_OPT(fn, field) \
	static int fn(struct run *r, const char *v, char *err, size_t errlen) \
	{ (void)err; (void)errlen; free(r->field); r->field = xstrdup(v); return 0; }
STR_OPT(o_record, record)
STR_OPT(o_replay, replay)
STR_OPT(o_report, report)
STR_OPT(o_theme, theme)
STR_OPT(o_sysfs, sysfs)

static int o_preset(struct run *r, const char *v, char *err, size_t errlen)
{
	if (!strchr(v, '/') && check_name(v, "preset name", err, errlen))
		return -1;
	free(r->preset);
	r->preset = xstrdup(v);
	return 0;
}

static int o_governor(struct run *r, const char *v, char *err, size_t errlen)
{
	if (check_name(v, "governor", err, errlen))
		return -1;
	r->governor = xstrdup(v);
	return 0;
}

static int o_cpus(struct run *r, const char *v, char *err, size_t errlen)
{
	if (check_cpulist(v, "--cpus", err, errlen))
		return -1;
	r->cpus = xstrdup(v);
	return 0;
}

static int o_attach(struct run *r, const char *v, char *err, size_t errlen)
{
	char buf[32];
	uint64_t pid;
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ",");
		if (n == 0 || n >= sizeof buf)
			return fail(err, errlen, "bad PID list \"%s\" for --attach: use PID[,PID...], e.g. 1234,1240", v);
		memcpy(buf, p, n);
		buf[n] = 0;
		if (parse_uint(buf, 1, MAX_PID, &pid, "--attach", err, errlen))
			return -1;
		r->attach = xrealloc(r->attach, (r->nattach + 1) * sizeof *r->attach);
		r->attach[r->nattach++] = (int)pid;
		p += n;
		if (!*p)
			return 0;
	}
}

static int o_sweep(struct run *r, const char *v, char *err, size_t errlen)
{
	const char *colon = strchr(v, ':');
	char *from;
	int rc;
	if (strncmp(v, "bs=", 3) != 0 || !colon)
		return fail(err, errlen, "bad --sweep \"%s\": use bs=FROM:TO, e.g. bs=4k:1M", v);
	from = xstrndup(v + 3, (size_t)(colon - v - 3));
	rc = cli_parse_size(from, &r->sweep_from, "--sweep", err, errlen);
	free(from);
	if (rc || cli_parse_size(colon + 1, &r->sweep_to, "--sweep", err, errlen))
		return -1;
	if (r->sweep_from == 0 || r->sweep_to < r->sweep_from || r->sweep_to > MAX_BS)
		return fail(err, errlen, "bad --sweep \"%s\": FROM must be at least 1 and at most TO, TO at most 1GiB", v);
	r->sweep = xstrdup(v);
	return 0;
}

/* One "placement=a,b" or "governor=x,y" word of --matrix. */
static int matrix_word(struct run *r, const char *wd, char *err, size_t errlen)
{
	bool place = strncmp(wd, "placement=", 10) == 0, gov = strncmp(wd, "governor=", 9) == 0;
	const char *list = wd + (place ? 10 : 9);
	char **field = place ? &r->matrix_placement : &r->matrix_governor;
	char item[64];

	if (!place && !gov)
		return fail(err, errlen, "bad --matrix word \"%s\": use placement=a,b,... and/or governor=x,y,...", wd);
	if (*field)
		return fail(err, errlen, "--matrix %.*s given twice", place ? 9 : 8, wd);
	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ",");
		if (n == 0 || n >= sizeof item)
			return fail(err, errlen, "bad --matrix list \"%s\": use comma-separated names, e.g. %s", wd,
			            place ? "placement=pack,spread" : "governor=powersave,performance");
		memcpy(item, p, n);
		item[n] = 0;
		if (place && word_index(placement_words, item) < 0)
			return fail(err, errlen, "bad placement \"%s\" in --matrix: use pack, free or spread", item);
		if (!place && check_name(item, "governor", err, errlen))
			return -1;
		p += n;
		if (!*p)
			break;
	}
	*field = xstrdup(list);
	return 0;
}

/* One --matrix argument: words separated by blanks. */
static int matrix_words(struct run *r, const char *v, char *err, size_t errlen)
{
	char *copy = xstrdup(v), *save = NULL, *wd;
	int rc = 0, n = 0;
	for (wd = strtok_r(copy, " \t", &save); wd && rc == 0; wd = strtok_r(NULL, " \t", &save), n++)
		rc = matrix_word(r, wd, err, errlen);
	free(copy);
	if (rc == 0 && n == 0)
		return fail(err, errlen, "empty --matrix: use placement=a,b,... and/or governor=x,y,...");
	return rc;
}

static int o_matrix(struct run *r, const char *v, char *err, size_t errlen)
{
	r->matrix = true;
	return v ? matrix_words(r, v, err, errlen) : 0;
}

/* --cell: a size when it carries a size unit, else a time ("5m" is 5 MiB,
 * as everywhere in sizes; minutes are "min"). */
static int o_cell(struct run *r, const char *v, char *err, size_t errlen)
{
	char why[CLI_ERR_MAX];
	if (cli_parse_time(v, &r->cell_sec, "--cell", why, sizeof why) == 0) {
		if (r->cell_sec <= 0)
			return fail(err, errlen, "--cell \"%s\" must be more than 0", v);
	} else if (cli_parse_size(v, &r->cell_bytes, "--cell", why, sizeof why) == 0) {
		if (r->cell_bytes == 0)
			return fail(err, errlen, "--cell \"%s\" must be more than 0", v);
	} else {
		return fail(err, errlen, "bad --cell \"%s\": use a time (30s, 2min) or a size (256M, 1GiB)", v);
	}
	r->cell = xstrdup(v);
	return 0;
}

#define FLAG_OPT(fn, field) \
	static int fn(struct run *r, const char *v, char *err, size_t errlen) \
	{ (void)v; (void)err; (void)errlen; r->field = true; return 0; }
FLAG_OPT(o_loop, loop)
FLAG_OPT(o_no_sync, no_sync)
FLAG_OPT(o_batch, batch)
FLAG_OPT(o_drop_caches, drop_caches)
FLAG_OPT(o_no_color, no_color)
FLAG_OPT(o_no_mouse, no_mouse)
FLAG_OPT(o_keep, keep)
FLAG_OPT(o_force, force)

/* Mode flags are collected first and turned into r->mode at the end. */
static int o_restore(struct run *r, const char *v, char *err, size_t errlen)
{
	(void)v; (void)err; (void)errlen;
	r->mode = MODE_RESTORE;
	return 0;
}

static int o_help(struct run *r, const char *v, char *err, size_t errlen)
{
	(void)v; (void)err; (void)errlen;
	r->mode = MODE_HELP;
	return 0;
}

static int o_version(struct run *r, const char *v, char *err, size_t errlen)
{
	(void)v; (void)err; (void)errlen;
	r->mode = MODE_VERSION;
	return 0;
}

enum opt_id {
	O_WORKLOAD = 1, O_INTERVAL, O_DURATION, O_LOOP, O_NO_SYNC, O_AT, O_BATCH, O_FORMAT,
	O_RECORD, O_REPLAY, O_REPORT, O_ATTACH, O_CPUS, O_PLACEMENT, O_GOVERNOR, O_DROP_CACHES,
	O_SWEEP, O_MATRIX, O_CELL, O_PRESET, O_UNITS, O_THEME, O_NO_COLOR, O_SYSFS, O_KEEP,
	O_FORCE, O_RESTORE, O_HELP, O_VERSION, O_NO_MOUSE,
};

const struct cli_option cli_options[] = {
	{ 'w', "workload", "SPEC", "a workload KIND[:key=value,...] (repeatable; see WORKLOADS)", O_WORKLOAD, true, o_workload },
	{ 'i', "interval", "SEC", "sample interval, 0.05 to 10 (default 0.5)", O_INTERVAL, false, o_interval },
	{ 't', "duration", "SEC", "stop everything after SEC", O_DURATION, false, o_duration },
	{ 0, "loop", NULL, "loop until quit: engines start each pass again in the same processes, commands re-run", O_LOOP, false, o_loop },
	{ 0, "no-sync", NULL, "no sync(2) after a command workload, flush not counted", O_NO_SYNC, false, o_no_sync },
	{ 0, "at", "T:ACTION", "at time T: pin=LIST pack free spread governor=NAME maxfreq=KHZ marker=TEXT pause resume (repeatable)", O_AT, true, o_at },
	{ 'b', "batch", NULL, "no screen: one line per interval to stdout, then the summary", O_BATCH, false, o_batch },
	{ 0, "format", "FMT", "batch output: text, csv or json (JSON Lines)", O_FORMAT, false, o_format },
	{ 'o', "record", "FILE", "record samples and events to FILE (JSON Lines); with --report: the output", O_RECORD, false, o_record },
	{ 0, "replay", "FILE", "show a recording in the dashboard", O_REPLAY, false, o_replay },
	{ 0, "report", "FILE", "render a recording to the -o file (.svg or .html)", O_REPORT, false, o_report },
	{ 0, "attach", "PID,...", "monitor and steer running processes and their descendants", O_ATTACH, true, o_attach },
	{ 0, "cpus", "LIST", "initial affinity of all workloads, e.g. 0 or 0,2-3", O_CPUS, false, o_cpus },
	{ 0, "placement", "PLACE", "initial placement: pack, free or spread", O_PLACEMENT, false, o_placement },
	{ 0, "governor", "NAME", "set this governor on all CPUs at start (restored at exit)", O_GOVERNOR, false, o_governor },
	{ 0, "drop-caches", NULL, "sync and drop the page cache before each workload (root)", O_DROP_CACHES, false, o_drop_caches },
	{ 0, "sweep", "bs=FROM:TO", "run the workload once per block size, doubling from FROM to TO", O_SWEEP, false, o_sweep },
	{ 0, "matrix", "[placement=a,b] [governor=x,y]", "run the workload once per placement x governor cell (repeatable)", O_MATRIX, true, o_matrix },
	{ 0, "cell", "SEC|SIZE", "length of one sweep step or matrix cell", O_CELL, false, o_cell },
	{ 0, "preset", "NAME", "run a named experiment from the presets directory", O_PRESET, false, o_preset },
	{ 0, "units", "UNITS", "iec (MiB/s, default), si (MB/s) or bits (Mbit/s)", O_UNITS, false, o_units },
	{ 0, "theme", "NAME|FILE", "colour theme", O_THEME, false, o_theme },
	{ 0, "no-color", NULL, "monochrome (as does NO_COLOR in the environment)", O_NO_COLOR, false, o_no_color },
	{ 0, "no-mouse", NULL, "the dashboard does not take the mouse (clicks select processes, the wheel scrolls)", O_NO_MOUSE, false, o_no_mouse },
	{ 0, "sysfs", "DIR", "root of the sysfs tree for cpufreq (default /sys)", O_SYSFS, false, o_sysfs },
	{ 0, "keep", NULL, "keep the files benchtop created", O_KEEP, false, o_keep },
	{ 0, "force", NULL, "allow an existing dst or path to be overwritten", O_FORCE, false, o_force },
	{ 0, "restore", NULL, "undo governor and limit changes left by a killed benchtop", O_RESTORE, false, o_restore },
	{ 'h', "help", NULL, "show this help", O_HELP, false, o_help },
	{ 'V', "version", NULL, "show the version", O_VERSION, false, o_version },
};
const size_t cli_noptions = sizeof cli_options / sizeof cli_options[0];
_Static_assert(sizeof cli_options / sizeof cli_options[0] <= 64, "seen[] below holds 64 options");
_Static_assert(NKEYS <= 32, "spec_item's seen mask holds 32 keys");

/* ---- the parser ------------------------------------------------------------ */

static const struct cli_option *find_long(const char *name, size_t n)
{
	for (size_t i = 0; i < cli_noptions; i++)
		if (strlen(cli_options[i].long_name) == n && strncmp(cli_options[i].long_name, name, n) == 0)
			return &cli_options[i];
	return NULL;
}

static const struct cli_option *find_short(char c)
{
	for (size_t i = 0; i < cli_noptions; i++)
		if (c && cli_options[i].short_name == c)
			return &cli_options[i];
	return NULL;
}

/* Edit distance, capped: enough to catch "--intervall" or "--fromat". */
static size_t distance(const char *a, size_t na, const char *b)
{
	size_t nb = strlen(b), row[64], prev, tmp;
	if (na >= 63 || nb >= 63)
		return 99;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			tmp = row[j];
			size_t best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[nb];
}

static int unknown_long(const char *word, size_t n, char *err, size_t errlen)
{
	const struct cli_option *best = NULL;
	size_t bd = 3;
	for (size_t i = 0; i < cli_noptions; i++) {
		size_t d = distance(word + 2, n, cli_options[i].long_name);
		if (d < bd) {
			bd = d;
			best = &cli_options[i];
		}
	}
	if (best)
		return fail(err, errlen, "unknown option \"%.*s\": did you mean --%s? (see benchtop --help)",
		            (int)n + 2, word, best->long_name);
	return fail(err, errlen, "unknown option \"%.*s\": see benchtop --help for the options", (int)n + 2, word);
}

struct parse_state {
	int argc;
	char **argv;
	int i;                   /* index of the word being parsed */
	bool seen[64];           /* per cli_options[] row */
	char *err;
	size_t errlen;
};

static const char *opt_name(const struct cli_option *o, char *buf, size_t len)
{
	snprintf(buf, len, "--%s", o->long_name);
	return buf;
}

/* The value of option o: attached (v != NULL) or the next word. */
static int take_value(struct parse_state *ps, const struct cli_option *o, const char *attached,
                      const char **out)
{
	char nm[40];
	const char *next;
	if (attached) {
		*out = attached;
	} else {
		if (ps->i + 1 >= ps->argc)
			return fail(ps->err, ps->errlen, "%s needs a value: %s %s",
			            opt_name(o, nm, sizeof nm), nm, o->arg);
		next = ps->argv[++ps->i];
		/* "-o -b" is a forgotten file name, not a file called "-b"; a
		 * negative number goes on to the value parser, which says why. */
		if (next[0] == '-' && next[1] && (next[1] < '0' || next[1] > '9') && next[1] != '.')
			return fail(ps->err, ps->errlen, "%s needs a value %s, but got the option \"%s\" "
			            "(for a file name starting with '-', write ./%s)",
			            opt_name(o, nm, sizeof nm), o->arg, next, next);
		*out = next;
	}
	if (!**out)
		return fail(ps->err, ps->errlen, "empty value for %s: %s %s", opt_name(o, nm, sizeof nm), nm, o->arg);
	return 0;
}

/* Extra words after a bare --matrix ("--matrix placement=a,b governor=x"). */
static int matrix_tail(struct parse_state *ps, struct run *r)
{
	while (ps->i + 1 < ps->argc) {
		const char *w = ps->argv[ps->i + 1];
		if (strncmp(w, "placement=", 10) != 0 && strncmp(w, "governor=", 9) != 0)
			break;
		if (matrix_words(r, w, ps->err, ps->errlen))
			return -1;
		ps->i++;
	}
	return 0;
}

static int apply(struct parse_state *ps, struct run *r, const struct cli_option *o, const char *val)
{
	size_t idx = (size_t)(o - cli_options);
	char nm[40];
	if (ps->seen[idx] && o->arg && !o->repeatable)
		return fail(ps->err, ps->errlen, "option %s given twice: give it once", opt_name(o, nm, sizeof nm));
	ps->seen[idx] = true;
	if (o->apply(r, val, ps->err, ps->errlen))
		return -1;
	return o->id == O_MATRIX && !val ? matrix_tail(ps, r) : 0;
}

static int parse_long(struct parse_state *ps, struct run *r, const char *word)
{
	size_t n = strcspn(word + 2, "=");
	const struct cli_option *o = find_long(word + 2, n);
	const char *attached = word[2 + n] == '=' ? word + 3 + n : NULL, *val = NULL;

	if (!o)
		return unknown_long(word, n, ps->err, ps->errlen);
	if (!o->arg && attached)
		return fail(ps->err, ps->errlen, "option --%s takes no value (got \"%s\")", o->long_name, word);
	if (o->id == O_MATRIX && !attached)
		return apply(ps, r, o, NULL);
	if (o->arg && take_value(ps, o, attached, &val))
		return -1;
	return apply(ps, r, o, val);
}

/* "-b", "-bi0.5", "-i 0.5", "-wcopy:src=a". */
static int parse_short(struct parse_state *ps, struct run *r, const char *word)
{
	for (const char *p = word + 1; *p; p++) {
		const struct cli_option *o = find_short(*p);
		const char *val = NULL;
		if (!o)
			return fail(ps->err, ps->errlen, "unknown option \"-%c\"%s%s%s: see benchtop --help for the options",
			            *p, strlen(word) > 2 ? " in \"" : "", strlen(word) > 2 ? word : "",
			            strlen(word) > 2 ? "\"" : "");
		if (o->arg && take_value(ps, o, p[1] ? p + 1 : NULL, &val))
			return -1;
		if (apply(ps, r, o, val))
			return -1;
		if (o->arg || r->mode == MODE_HELP || r->mode == MODE_VERSION)
			return 0;
	}
	return 0;
}

/* Everything after "--" is one command workload. */
static int parse_command(struct run *r, int argc, char **argv, char *err, size_t errlen)
{
	struct wl_spec w;
	size_t len = 1;
	char *text;

	if (argc == 0)
		return fail(err, errlen, "nothing after \"--\": give a command, e.g. -- cp a b");
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	text = xrealloc(NULL, len);
	text[0] = 0;
	for (int i = 0; i < argc; i++) {
		strcat(text, argv[i]);
		if (i + 1 < argc)
			strcat(text, " ");
	}
	wl_defaults(&w, WL_CMD, text);
	free(text);
	w.argv = xrealloc(NULL, ((size_t)argc + 1) * sizeof *w.argv);
	for (int i = 0; i < argc; i++)
		w.argv[i] = xstrdup(argv[i]);
	w.argv[argc] = NULL;
	r->wl = xrealloc(r->wl, (r->nwl + 1) * sizeof *r->wl);
	r->wl[r->nwl++] = w;
	return 0;
}

static int parse_words(struct parse_state *ps, struct run *r)
{
	for (ps->i = 1; ps->i < ps->argc; ps->i++) {
		const char *w = ps->argv[ps->i];
		int rc;
		if (strcmp(w, "--") == 0)
			return parse_command(r, ps->argc - ps->i - 1, ps->argv + ps->i + 1, ps->err, ps->errlen);
		if (w[0] == '-' && w[1] == '-')
			rc = parse_long(ps, r, w);
		else if (w[0] == '-' && w[1])
			rc = parse_short(ps, r, w);
		else
			rc = fail(ps->err, ps->errlen, "unexpected argument \"%s\": workloads go after -w, "
			          "a command after --", w);
		if (rc)
			return -1;
		if (r->mode == MODE_HELP || r->mode == MODE_VERSION)
			return 0;
	}
	return 0;
}

/* ---- whole-run rules --------------------------------------------------------- */

/* Which of the exclusive modes were asked for, in a fixed order. */
static int pick_mode(struct run *r, char *err, size_t errlen)
{
	const char *names[4];
	enum run_mode modes[4];
	int n = 0;
	if (r->mode == MODE_RESTORE)
		names[n] = "--restore", modes[n++] = MODE_RESTORE;
	if (r->report)
		names[n] = "--report", modes[n++] = MODE_REPORT;
	if (r->replay)
		names[n] = "--replay", modes[n++] = MODE_REPLAY;
	if (r->nattach)
		names[n] = "--attach", modes[n++] = MODE_ATTACH;
	if (n > 1)
		return fail(err, errlen, "%s and %s cannot be combined: choose one", names[0], names[1]);
	r->mode = n ? modes[0] : MODE_RUN;
	if (n == 0)
		return 0;
	if (r->nwl)
		return fail(err, errlen, "%s cannot run workloads: drop the -w and -- parts, or drop %s", names[0], names[0]);
	if (r->sweep || r->matrix || r->preset)
		return fail(err, errlen, "%s cannot be combined with %s", names[0],
		            r->sweep ? "--sweep" : r->matrix ? "--matrix" : "--preset");
	if (r->loop && r->mode == MODE_ATTACH)
		return fail(err, errlen, "--loop cannot be used with --attach: attached processes are "
		            "not benchtop's to restart (drop --loop, or run the work as a workload)");
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && strcasecmp(s + n - m, suffix) == 0;
}

static int check_experiment(struct run *r, char *err, size_t errlen)
{
	if (r->sweep && r->matrix)
		return fail(err, errlen, "--sweep and --matrix cannot be combined: run them one after the other");
	if (r->cell && !r->sweep && !r->matrix && !r->preset)
		return fail(err, errlen, "--cell \"%s\" sets the length of a sweep step or matrix cell: "
		            "use it with --sweep or --matrix", r->cell);
	if (!r->sweep)
		return 0;
	if (r->nwl > 1)
		return fail(err, errlen, "--sweep runs one workload, but %zu are given", r->nwl);
	if (r->nwl == 1 && r->wl[0].kind != WL_COPY && r->wl[0].kind != WL_WRITE && r->wl[0].kind != WL_READ)
		return fail(err, errlen, "--sweep varies bs, which workload \"%s\" has not: use copy, write or read",
		            r->wl[0].text);
	return 0;
}

static int check_run(struct run *r, char *err, size_t errlen)
{
	if (pick_mode(r, err, errlen) || check_experiment(r, err, errlen))
		return -1;
	if (r->mode == MODE_REPORT) {
		if (!r->record)
			return fail(err, errlen, "--report \"%s\" needs an output: -o OUT.svg or -o OUT.html", r->report);
		if (!ends_with(r->record, ".svg") && !ends_with(r->record, ".html"))
			return fail(err, errlen, "bad report output \"%s\": use a name ending in .svg or .html", r->record);
	}
	return 0;
}

/* SPEC §2: with nothing to run, benchtop copies a file of its own with the
 * 3-process pipe engine until the user quits. */
static void add_default(struct run *r)
{
	struct wl_spec w;
	wl_defaults(&w, WL_COPY, "copy:engine=pipe,procs=3");
	w.engine = ENG_PIPE;
	w.is_default = true;
	r->wl = xrealloc(r->wl, sizeof *r->wl);
	r->wl[0] = w;
	r->nwl = 1;
}

static void run_defaults(struct run *r)
{
	memset(r, 0, sizeof *r);
	r->mode = MODE_RUN;
	r->interval = 0.5;
	r->format = FMT_TEXT;
	r->units = UNITS_IEC;
	r->placement = PLACE_NONE;
	r->sysfs = xstrdup("/sys");
}

int cli_parse(int argc, char **argv, struct run *r, char *err, size_t errlen)
{
	struct parse_state ps = { .argc = argc, .argv = argv, .err = err, .errlen = errlen };

	run_defaults(r);
	if (err && errlen)
		err[0] = 0;
	if (parse_words(&ps, r) == 0) {
		if (r->mode == MODE_HELP || r->mode == MODE_VERSION)
			return 0;
		if (check_run(r, err, errlen) == 0) {
			if (r->mode == MODE_RUN && r->nwl == 0 && !r->preset)
				add_default(r);
			if (r->matrix && !r->matrix_placement && !r->matrix_governor)
				r->matrix_placement = xstrdup("pack,free,spread");
			return 0;
		}
	}
	cli_free(r);
	return -1;
}

void cli_free(struct run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nwl; i++)
		cli_free_workload(&r->wl[i]);
	free(r->wl);
	for (size_t i = 0; i < r->nat; i++)
		free(r->at[i].arg);
	free(r->at);
	free(r->attach);
	char **strs[] = { &r->record, &r->replay, &r->report, &r->cpus, &r->governor, &r->sweep,
	                  &r->matrix_placement, &r->matrix_governor, &r->cell, &r->preset,
	                  &r->theme, &r->sysfs };
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		free(*strs[i]);
	memset(r, 0, sizeof *r);
}

/* ---- --help ------------------------------------------------------------------- */

/* Prints text word-wrapped to 80 columns, continuation lines indented. */
static void wrap(FILE *fp, const char *text, int col)
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

static void help_options(FILE *fp)
{
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];
		char left[64];
		snprintf(left, sizeof left, "%c%c%c --%s%s%s", o->short_name ? '-' : ' ',
		         o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ',
		         o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
		if (strlen(left) > 24)
			fprintf(fp, "  %s\n%28s", left, "");
		else
			fprintf(fp, "  %-24s  ", left);
		wrap(fp, o->help, 28);
	}
}

static void help_workloads(FILE *fp)
{
	fputs("\nWorkloads (-w KIND[:key=value,...]):\n", fp);
	for (size_t i = 0; i < NKINDS; i++) {
		char keys[160];
		kind_keys(wl_kinds[i].kind, keys, sizeof keys);
		fprintf(fp, "  %-6s %s\n", wl_kinds[i].name, keys);
	}
	fputs("Keys:\n", fp);
	for (size_t i = 0; i < NKEYS; i++) {
		char left[32];
		snprintf(left, sizeof left, "%s=%s", wl_keys[i].name, wl_keys[i].meta);
		fprintf(fp, "  %-16s ", left);
		wrap(fp, wl_keys[i].help, 19);
	}
}

void cli_print_help(void *out)
{
	FILE *fp = out;
	fputs("Usage: benchtop [OPTIONS] [-w WORKLOAD]... [-- COMMAND [ARG]...]\n"
	      "       benchtop --attach PID[,PID...] [OPTIONS]\n"
	      "       benchtop --replay FILE [OPTIONS]\n"
	      "       benchtop --report FILE -o OUT.svg|OUT.html\n"
	      "       benchtop --restore\n\n"
	      "Runs copy and write workloads, plots their throughput live next to CPU\n"
	      "placement and frequency, and lets you re-pin processes and switch\n"
	      "governors while they run.  Without a workload it copies a scratch file\n"
	      "with the 3-process pipe engine until you quit.\n\nOptions:\n", fp);
	help_options(fp);
	help_workloads(fp);
	fputs("\nSizes: 4k = 4096 (k M G = KiB MiB GiB), 1MB = 1000000; also B, KiB..TiB,\n"
	      "kB..TB.  "
	      "Times: 500ms, 2s, 2min; a bare number is seconds.\n"
	      "Exit status: 0 done or quit, 1 a workload failed, 2 bad command line,\n"
	      "3 the environment refused.  See benchtop(1).\n", fp);
}

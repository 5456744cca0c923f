/* spec.c - workload specs (-w KIND:key=value,...) and --at T:ACTION: one
 * table, wl_keys[], drives the parser, the checks and the workload part
 * of --help. */
#include "cli_priv.h"
#include "benchtop/strv.h"
#include "benchtop/xalloc.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JOBS 1024
#define DEFAULT_BS (128u * 1024u)

/* ---- workload specs ---------------------------------------------------- */

enum key_type { KT_STR, KT_SIZE, KT_INT, KT_U64, KT_ENUM, KT_BOOLWORD, KT_DIRECT, KT_RUN, KT_ALIGN };

#define K(k) (1u << (k))
static const char *const engine_words[] = { "rw", "cfr", "sendfile", "splice", "mmap", "pipe", NULL };
static const char *const sync_words[] = { "end", "none", "each", NULL };
/* "write" is seq in the words of the net workload */
static const char *const pattern_words[] = { "seq", "rewrite", "write", NULL };
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
	{ "path", K(WL_WRITE) | K(WL_READ) | K(WL_SEEK) | K(WL_NET), KT_STR, F(path), 0, 0, NULL, "PATH",
	  "file (read, seek: required) or, for write and net, file or directory (default: scratch directory)" },
	{ "bs", K(WL_COPY) | K(WL_WRITE) | K(WL_READ) | K(WL_SEEK), KT_SIZE, F(bs), 1, MAX_BS, NULL, "SIZE", "bytes per call (default 128k)" },
	{ "size", K(WL_WRITE) | K(WL_NET) | K(WL_READ), KT_SIZE, F(size), 1, UINT64_MAX, NULL, "SIZE",
	  "bytes to write (default: the engine's); read: at most this many a pass (default: to the end)" },
	{ "engine", K(WL_COPY), KT_ENUM, F(engine), 0, 0, engine_words, "ENGINE", "rw, cfr, sendfile, splice, mmap or pipe (default rw)" },
	{ "procs", K(WL_COPY), KT_INT, F(procs), 2, 3, NULL, "N", "engine=pipe: 2 or 3 processes (default 3)" },
	{ "sync", K(WL_COPY) | K(WL_WRITE) | K(WL_NET), KT_ENUM, F(sync), 0, 0, sync_words, "MODE", "end, none or each (default end)" },
	{ "direct", K(WL_COPY) | K(WL_WRITE), KT_DIRECT, F(direct), 0, 0, NULL, "BOOL", "O_DIRECT (direct alone means yes)" },
	{ "jobs", K(WL_COPY) | K(WL_WRITE) | K(WL_READ) | K(WL_NET), KT_INT, F(jobs), 1, MAX_JOBS, NULL, "N", "copies at once, each on its own file (default 1)" },
	{ "pattern", K(WL_WRITE) | K(WL_NET), KT_BOOLWORD, F(rewrite), 0, 0, pattern_words, "PATTERN",
	  "seq (net: write) or rewrite: write, evict, then overwrite in place (default seq)" },
	{ "mss", K(WL_NET), KT_INT, F(mss), 88, 32767, NULL, "BYTES",
	  "TCP_MAXSEG of the loopback stream, 88 to 32767 (default 1448, Ethernet's payload; TCP options such as timestamps take a few bytes of each segment)" },
	{ "align", K(WL_NET), KT_ALIGN, F(align), 1, MAX_BS, NULL, "BYTES|none",
	  "the receiver gathers what arrives into writes of BYTES (default none: each recv is written as it came)" },
	{ "unit", K(WL_WRITE) | K(WL_READ), KT_BOOLWORD, F(unit_char), 0, 0, unit_words, "UNIT", "block or char (default block)" },
	{ "seekers", K(WL_SEEK), KT_INT, F(seekers), 1, 64, NULL, "N", "seeking processes (default 3)" },
	{ "count", K(WL_SEEK), KT_U64, F(count), 0, UINT64_MAX, NULL, "N", "reads per seeker (default 0: until stopped)" },
	{ "update", K(WL_READ) | K(WL_SEEK), KT_INT, F(update), 0, 100, NULL, "PCT",
	  "percent of the blocks read that are dirtied and written back (bonnie's rewrite 100, its seeks 10; needs --force on a file benchtop did not make)" },
	{ "run", K(WL_CMD), KT_RUN, F(argv), 0, 0, NULL, "TEXT", "shell command, to the end of the spec (commas allowed)" },
};
#undef F
#define NKEYS (sizeof wl_keys / sizeof wl_keys[0])
_Static_assert(NKEYS <= 32, "spec_item's seen mask holds 32 keys");

static const struct { const char *name; enum wl_kind kind; const char *required; } wl_kinds[] = {
	{ "copy", WL_COPY, "src" }, { "write", WL_WRITE, NULL }, { "read", WL_READ, "path" },
	{ "seek", WL_SEEK, "path" }, { "cmd", WL_CMD, "run" }, { "net", WL_NET, NULL },
};
#define NKINDS (sizeof wl_kinds / sizeof wl_kinds[0])

const char *cli_kind_name(enum wl_kind k)
{
	if (k == WL_ATTACHED)
		return "attached";
	for (size_t i = 0; i < NKINDS; i++)
		if (wl_kinds[i].kind == k)
			return wl_kinds[i].name;
	return "?";
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
	if (!val || cli_word_index(yes, val) >= 0)
		*out = true;
	else if (cli_word_index(no, val) >= 0)
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
	case KT_ALIGN:
		if (!strcmp(val, "none")) {
			*(uint64_t *)field = 0;
			return 0;
		}
		if (cli_parse_size(val, &u, k->name, err, errlen) || u < k->lo || u > k->hi)
			return fail(err, errlen, "bad align \"%s\": use none or a size from 1 byte to 1GiB, e.g. align=8k", val);
		*(uint64_t *)field = u;
		return 0;
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
		if (cli_uint(val, k->lo, k->hi, &u, k->name, err, errlen))
			return -1;
		if (k->type == KT_INT)
			*(int *)field = (int)u;
		else
			*(uint64_t *)field = u;
		return 0;
	case KT_ENUM:
	case KT_BOOLWORD:
		i = cli_word_index(k->words, val);
		cli_join_words(k->words, words, sizeof words);
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

void cli_spec_defaults(struct wl_spec *w, enum wl_kind kind, const char *text)
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
	w->mss = 1448;
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
		return fail(err, errlen, "unknown workload kind \"%.*s\" in \"%s\": use copy, write, read, seek, cmd or net",
		            (int)n, text, text);
	cli_spec_defaults(w, wl_kinds[i].kind, text);
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
	strv_free(w->argv);
	memset(w, 0, sizeof *w);
}

int cli_parse_workload(const char *text, struct wl_spec *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof *w);
	if (!text || !*text)
		return fail(err, errlen, "empty workload: use KIND[:key=value,...] with KIND copy, write, read, seek, cmd or net");
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
	{ "resume", AT_RESUME, AA_NONE, NULL }, { "caption", AT_CAPTION, AA_TEXT, "TEXT" },
};
#define AT_HINT "use pin=LIST, pack, free, spread, governor=NAME, maxfreq=KHZ, marker=TEXT, caption=TEXT, pause or resume"

static int at_arg(struct at_action *a, enum at_arg kind, const char *v, char *err, size_t errlen)
{
	switch (kind) {
	case AA_CPULIST:
		if (cli_check_cpulist(v, "pin", err, errlen))
			return -1;
		break;
	case AA_NAME:
		if (cli_check_name(v, "governor", err, errlen))
			return -1;
		break;
	case AA_KHZ:
		return cli_parse_khz(v, &a->khz, err, errlen);
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
	size_t tl = strlen(t);
	if (tl > 1 && t[tl - 1] == '?') {   /* only where the machine can */
		t[tl - 1] = 0;
		a->optional = true;
	}
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

void cli_help_workloads(FILE *fp)
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
		cli_wrap(fp, wl_keys[i].help, 19);
	}
}

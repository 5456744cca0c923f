/* cli.c - the command line: the option table, the parser and --help;
 * strings in, a struct run or one error sentence out.  Workload specs and
 * --at are spec.c's, value words scalar.c's.  Pure: no I/O (except
 * cli_print_help), no exit(), and no other benchtop module but cpulist,
 * units and xalloc (the fuzz harness links only src/cli/{cli,spec,scalar}.c,
 * units.c, cpulist.c and xalloc.c).
 *
 * Two tables drive everything: cli_options[] (options, --help, the man
 * page test) and wl_keys[] (workload keys, their checks and their help).
 * Every error names the offending word and says what would be accepted. */
#include "cli_priv.h"
#include "benchtop/cpulist.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PID 4194304          /* PID_MAX_LIMIT on 64-bit Linux */

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
	int i = cli_word_index(words, v);
	cli_join_words(words, list, sizeof list);
	if (i < 0)
		return fail(err, errlen, "bad value \"%s\" for %s: use %s", v, opt, list);
	*out = (unsigned)i;
	return 0;
}

static int o_format(struct run *r, const char *v, char *err, size_t errlen)
{
	static const char *const w[] = { "text", "csv", "json", "bonnie", NULL };
	static const enum out_format f[] = { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_BONNIE };
	unsigned i = 0;
	if (pick(w, "--format", v, &i, err, errlen))
		return -1;
	r->format = f[i];
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
STR_OPT(o_metrics, metrics)

static int o_metrics_listen(struct run *r, const char *v, char *err, size_t errlen)
{
	char addr[64];
	unsigned port;
	if (cli_parse_listen(v, addr, sizeof addr, &port, err, errlen))
		return -1;
	free(r->metrics_listen);
	r->metrics_listen = xstrdup(v);
	return 0;
}

static int o_preset(struct run *r, const char *v, char *err, size_t errlen)
{
	if (!strchr(v, '/') && cli_check_name(v, "preset name", err, errlen))
		return -1;
	free(r->preset);
	r->preset = xstrdup(v);
	return 0;
}

static int o_governor(struct run *r, const char *v, char *err, size_t errlen)
{
	if (cli_check_name(v, "governor", err, errlen))
		return -1;
	r->governor = xstrdup(v);
	return 0;
}

static int o_cpus(struct run *r, const char *v, char *err, size_t errlen)
{
	if (cli_check_cpulist(v, "--cpus", err, errlen))
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
		if (cli_uint(buf, 1, MAX_PID, &pid, "--attach", err, errlen))
			return -1;
		r->attach = xrealloc(r->attach, (r->nattach + 1) * sizeof *r->attach);
		r->attach[r->nattach++] = (int)pid;
		p += n;
		if (!*p)
			return 0;
	}
}

static int o_compare(struct run *r, const char *v, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	r->compare = xrealloc(r->compare, (r->ncompare + 1) * sizeof *r->compare);
	r->compare[r->ncompare++] = xstrdup(v);
	return 0;
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
		if (place && cli_word_index(placement_words, item) < 0)
			return fail(err, errlen, "bad placement \"%s\" in --matrix: use pack, free or spread", item);
		if (!place && cli_check_name(item, "governor", err, errlen))
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
FLAG_OPT(o_leave_placement, leave_placement)
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
	O_FORCE, O_RESTORE, O_HELP, O_VERSION, O_METRICS, O_METRICS_LISTEN, O_LEAVE_PLACEMENT,
	O_NO_MOUSE, O_COMPARE,
};

const struct cli_option cli_options[] = {
	{ 'w', "workload", "SPEC", "a workload KIND[:key=value,...] (repeatable; see WORKLOADS)", O_WORKLOAD, true, o_workload },
	{ 'i', "interval", "SEC", "sample interval, 0.05 to 10 (default 0.5)", O_INTERVAL, false, o_interval },
	{ 't', "duration", "SEC", "stop everything after SEC", O_DURATION, false, o_duration },
	{ 0, "loop", NULL, "loop until quit: engines start each pass again in the same processes, commands re-run; a failed one is not, and with none left the run ends (exit 1)", O_LOOP, false, o_loop },
	{ 0, "no-sync", NULL, "no sync(2) after a command workload, flush not counted", O_NO_SYNC, false, o_no_sync },
	{ 0, "at", "T:ACTION", "at time T: pin=LIST pack free spread governor=NAME maxfreq=KHZ marker=TEXT caption=TEXT pause resume (repeatable)", O_AT, true, o_at },
	{ 'b', "batch", NULL, "no screen: one line per interval to stdout, then the summary", O_BATCH, false, o_batch },
	{ 0, "format", "FMT", "batch output: text, csv or json (JSON Lines); bonnie: bonnie++ 1.98's CSV line (--preset bonnie)", O_FORMAT, false, o_format },
	{ 'o', "record", "FILE", "record samples and events to FILE (JSON Lines); with --report: the output", O_RECORD, false, o_record },
	{ 0, "replay", "FILE", "show a recording in the dashboard", O_REPLAY, false, o_replay },
	{ 0, "report", "FILE", "render a recording to the -o file (.svg or .html)", O_REPORT, false, o_report },
	{ 0, "compare", "FILE...", "compile recordings (from any machines) into one table per kind of result, with each machine's facts and ratios to the first row; --format csv|json, -o OUT.html", O_COMPARE, true, o_compare },
	{ 0, "attach", "PID,...", "monitor and steer running processes and their descendants", O_ATTACH, true, o_attach },
	{ 0, "leave-placement", NULL, "with --attach: at exit keep benchtop's placement (default: put back each process's affinity)", O_LEAVE_PLACEMENT, false, o_leave_placement },
	{ 0, "cpus", "LIST", "initial affinity of all workloads, e.g. 0 or 0,2-3", O_CPUS, false, o_cpus },
	{ 0, "placement", "PLACE", "initial placement: pack, free or spread", O_PLACEMENT, false, o_placement },
	{ 0, "governor", "NAME", "set this governor on all CPUs at start (restored at exit)", O_GOVERNOR, false, o_governor },
	{ 0, "drop-caches", NULL, "sync and drop the page cache before the run, a timed step of its own (root)", O_DROP_CACHES, false, o_drop_caches },
	{ 0, "sweep", "bs=FROM:TO", "run the workload once per block size, doubling from FROM to TO", O_SWEEP, false, o_sweep },
	{ 0, "matrix", "[placement=a,b] [governor=x,y]", "run the workload once per placement x governor cell (repeatable)", O_MATRIX, true, o_matrix },
	{ 0, "cell", "SEC|SIZE", "length of one sweep step or matrix cell", O_CELL, false, o_cell },
	{ 0, "preset", "NAME", "run a named experiment (built in or a NAME.preset file); list: print them all", O_PRESET, false, o_preset },
	{ 0, "units", "UNITS", "iec (MiB/s, default), si (MB/s) or bits (Mbit/s)", O_UNITS, false, o_units },
	{ 0, "theme", "NAME|FILE", "colour theme", O_THEME, false, o_theme },
	{ 0, "no-color", NULL, "monochrome (as does NO_COLOR in the environment)", O_NO_COLOR, false, o_no_color },
	{ 0, "no-mouse", NULL, "the dashboard does not take the mouse (clicks select processes, the wheel scrolls)", O_NO_MOUSE, false, o_no_mouse },
	{ 0, "sysfs", "DIR", "root of the sysfs tree for cpufreq (default /sys)", O_SYSFS, false, o_sysfs },
	{ 0, "metrics", "FILE", "write the current metrics to FILE each interval, Prometheus text format (for node_exporter's textfile collector)", O_METRICS, false, o_metrics },
	{ 0, "metrics-listen", "[ADDR:]PORT", "serve GET /metrics over HTTP on PORT (loopback unless ADDR is given)", O_METRICS_LISTEN, false, o_metrics_listen },
	{ 0, "keep", NULL, "keep the files benchtop created", O_KEEP, false, o_keep },
	{ 0, "force", NULL, "allow an existing dst or path to be overwritten", O_FORCE, false, o_force },
	{ 0, "restore", NULL, "undo what a killed benchtop left: processes, governors, scratch files", O_RESTORE, false, o_restore },
	{ 'h', "help", NULL, "show this help", O_HELP, false, o_help },
	{ 'V', "version", NULL, "show the version", O_VERSION, false, o_version },
};
const size_t cli_noptions = sizeof cli_options / sizeof cli_options[0];
_Static_assert(sizeof cli_options / sizeof cli_options[0] <= 64, "seen[] below holds 64 options");

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

/* The files after --compare's first ("--compare a.jsonl b.jsonl c.jsonl"). */
static int compare_tail(struct parse_state *ps, struct run *r)
{
	while (ps->i + 1 < ps->argc && ps->argv[ps->i + 1][0] != '-') {
		if (o_compare(r, ps->argv[ps->i + 1], ps->err, ps->errlen))
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
	if (o->id == O_COMPARE)
		return compare_tail(ps, r);
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
	cli_spec_defaults(&w, WL_CMD, text);
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
	const char *names[5];
	enum run_mode modes[5];
	int n = 0;
	if (r->mode == MODE_RESTORE)
		names[n] = "--restore", modes[n++] = MODE_RESTORE;
	if (r->report)
		names[n] = "--report", modes[n++] = MODE_REPORT;
	if (r->replay)
		names[n] = "--replay", modes[n++] = MODE_REPLAY;
	if (r->nattach)
		names[n] = "--attach", modes[n++] = MODE_ATTACH;
	if (r->ncompare)
		names[n] = "--compare", modes[n++] = MODE_COMPARE;
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
	for (size_t i = 0; r->nwl > 1 && i < r->nwl; i++)
		if (r->wl[i].kind != WL_READ)
			return fail(err, errlen, "--sweep over %zu workloads compares read sources, but \"%s\" is not a read: "
			            "use one workload, or -w read:path=A -w read:path=B", r->nwl, r->wl[i].text);
	if (r->nwl == 1 && r->wl[0].kind != WL_COPY && r->wl[0].kind != WL_WRITE && r->wl[0].kind != WL_READ)
		return fail(err, errlen, "--sweep varies bs, which workload \"%s\" has not: use copy, write or read",
		            r->wl[0].text);
	return 0;
}

/* Metrics come from a live run or a replay, one exposition at a time. */
static int check_metrics(struct run *r, char *err, size_t errlen)
{
	const char *opt = r->metrics ? "--metrics" : "--metrics-listen";
	if (!r->metrics && !r->metrics_listen)
		return 0;
	if (r->mode == MODE_REPORT || r->mode == MODE_RESTORE)
		return fail(err, errlen, "%s serves a live run or a --replay, not %s: drop %s", opt,
		            r->mode == MODE_REPORT ? "--report" : "--restore", opt);
	if (r->sweep || r->matrix || r->preset)
		return fail(err, errlen, "%s serves one run or a --replay, not an experiment (%s): drop one of them",
		            opt, r->sweep ? "--sweep" : r->matrix ? "--matrix" : "--preset");
	if (r->metrics && r->record && !strcmp(r->metrics, r->record))
		return fail(err, errlen, "--metrics \"%s\" is also the -o record: give them different files", r->metrics);
	return 0;
}

static int check_run(struct run *r, char *err, size_t errlen)
{
	if (pick_mode(r, err, errlen) || check_experiment(r, err, errlen) || check_metrics(r, err, errlen))
		return -1;
	if (r->leave_placement && r->mode != MODE_ATTACH)
		return fail(err, errlen, "--leave-placement keeps the placement of attached processes: "
		            "use it with --attach (workloads benchtop starts end with the run)");
	if (r->format == FMT_BONNIE && (r->mode != MODE_RUN || !r->preset))
		return fail(err, errlen, "--format bonnie prints bonnie++'s CSV line of the bonnie study: use it with "
		            "--preset bonnie (else text, csv or json)");
	if (r->mode == MODE_COMPARE && r->record && !ends_with(r->record, ".html") && !ends_with(r->record, ".htm"))
		return fail(err, errlen, "bad compare output \"%s\": use a name ending in .html (the tables print "
		            "to standard output without -o)", r->record);
	if (r->mode == MODE_REPORT) {
		if (!r->record)
			return fail(err, errlen, "--report \"%s\" needs an output: -o OUT.svg or -o OUT.html", r->report);
		if (!ends_with(r->record, ".svg") && !ends_with(r->record, ".html"))
			return fail(err, errlen, "bad report output \"%s\": use a name ending in .svg or .html", r->record);
	}
	return 0;
}

/* SPEC §2: with nothing to run, benchtop copies a file of its own with the
 * 3-process pipe engine until the user quits.  Without a flush per pass
 * (sync=none): an fsync at every pass of a cached copy draws a comb from 0
 * to the memory's speed, where a first-time user should read one steady
 * rate that pins and governors then move. */
static void add_default(struct run *r)
{
	struct wl_spec w;
	cli_spec_defaults(&w, WL_COPY, "copy:engine=pipe,procs=3,sync=none");
	w.engine = ENG_PIPE;
	w.sync = SYNC_NONE;
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
	for (size_t i = 0; i < r->ncompare; i++)
		free(r->compare[i]);
	free(r->compare);
	free(r->attach);
	char **strs[] = { &r->record, &r->replay, &r->report, &r->cpus, &r->governor, &r->sweep,
	                  &r->matrix_placement, &r->matrix_governor, &r->cell, &r->preset,
	                  &r->theme, &r->sysfs, &r->metrics, &r->metrics_listen };
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		free(*strs[i]);
	memset(r, 0, sizeof *r);
}

/* ---- --help ------------------------------------------------------------------- */

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
		cli_wrap(fp, o->help, 28);
	}
}

void cli_print_help(void *out)
{
	FILE *fp = out;
	fputs("Usage: benchtop [OPTIONS] [-w WORKLOAD]... [-- COMMAND [ARG]...]\n"
	      "       benchtop --attach PID[,PID...] [OPTIONS]\n"
	      "       benchtop --replay FILE [OPTIONS]\n"
	      "       benchtop --report FILE -o OUT.svg|OUT.html\n"
	      "       benchtop --compare FILE... [--format csv|json] [-o OUT.html]\n"
	      "       benchtop --restore\n\n"
	      "Runs copy and write workloads, plots their throughput live next to CPU\n"
	      "placement and frequency, and lets you re-pin processes and switch\n"
	      "governors while they run.  Without a workload it copies a scratch file\n"
	      "with the 3-process pipe engine until you quit.\n\nOptions:\n", fp);
	help_options(fp);
	cli_help_workloads(fp);
	fputs("\nSizes: 4k = 4096 (k M G = KiB MiB GiB), 1MB = 1000000; also B, KiB..TiB,\n"
	      "kB..TB.  "
	      "Times: 500ms, 2s, 2min; a bare number is seconds.\n"
	      "Exit status: 0 done or quit, 1 a workload failed, 2 bad command line,\n"
	      "3 the environment refused.  See benchtop(1).\n", fp);
}

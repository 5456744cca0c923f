/* config.c - defaults for long options from a file, one `option = value`
 * per line (config.h).  The words it makes go through the same option
 * table as the command line, so the two can never disagree. */
#include "benchtop/config.h"
#include "benchtop/sysfile.h"
#include "benchtop/strv.h"
#include "benchtop/cli.h"
#include "benchtop/shown.h"
#include "benchtop/xalloc.h"
#include "cli_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCHTOP_SHAREDIR
#define BENCHTOP_SHAREDIR "/usr/local/share/benchtop"
#endif

#define LINE_MAX_LEN 4096

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* [s, e) without blanks at either end. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && is_space(**s))
		(*s)++;
	while (*e > *s && is_space((*e)[-1]))
		(*e)--;
}

static int find_option(const char *name, size_t n)
{
	for (size_t i = 0; i < cli_noptions; i++)
		if (strlen(cli_options[i].long_name) == n &&
		    strncmp(cli_options[i].long_name, name, n) == 0)
			return (int)i;
	return -1;
}

/* true/false words for flags: 1, 0, or -1 when it is neither. */
static int flag_value(const char *v)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -1;
}

static int add_word(struct config *c, int opt, const char *name, const char *val)
{
	size_t n = strlen(name) + (val ? strlen(val) + 1 : 0) + 3;
	char *w = xmalloc(n);
	char **words = xrealloc(c->words, (size_t)(c->nwords + 1) * sizeof *words);
	if (words)
		c->words = words;
	int *o = xrealloc(c->opt, (size_t)(c->nwords + 1) * sizeof *o);
	if (o)
		c->opt = o;
	if (!w || !words || !o) {
		free(w);
		return -ENOMEM;
	}
	snprintf(w, n, val ? "--%s=%s" : "--%s", name, val ? val : "");
	c->words[c->nwords] = w;
	c->opt[c->nwords++] = opt;
	return 0;
}

/* The value checked by the option's own parser, on a scratch run: the
 * message then names the word as on the command line. */
static int check_value(const struct cli_option *o, const char *word, char *err, size_t errlen)
{
	char *argv[3] = { "benchtop", (char *)word, NULL };
	struct run r;
	int rc = cli_parse(2, argv, &r, err, errlen);
	if (rc == 0)
		cli_free(&r);
	else if (strstr(err, "cannot be combined") || strstr(err, "needs an output") ||
	         strstr(err, "use it with"))
		rc = 0;   /* rules between options: checked with the whole command line */
	(void)o;
	return rc;
}

/* One line [s, e), number lineno: a word added, nothing, or -1. */
static int parse_line(struct config *c, const char *s, const char *e, const char *file,
                      int lineno, char *err, size_t errlen)
{
	char msg[512];
	trim(&s, &e);
	if (s == e || *s == '#')
		return 0;
	if (e - s >= LINE_MAX_LEN)
		return fail(err, errlen, "%s:%d: line too long (at most %d characters)", file, lineno,
		            LINE_MAX_LEN - 1);
	const char *eq = memchr(s, '=', (size_t)(e - s));
	const char *ne = eq ? eq : e, *ns = s;
	trim(&ns, &ne);
	if (ns < ne && *ns == '-')
		return fail(err, errlen, "%s:%d: \"%.*s\": write the option without dashes, "
		            "e.g. interval = 1", file, lineno, (int)(ne - ns), ns);
	int opt = find_option(ns, (size_t)(ne - ns));
	if (opt < 0)
		return fail(err, errlen, "%s:%d: unknown option \"%.*s\": use a long option of "
		            "benchtop --help, as in \"interval = 1\"", file, lineno, (int)(ne - ns), ns);
	const struct cli_option *o = &cli_options[opt];
	if (!strcmp(o->long_name, "help") || !strcmp(o->long_name, "version") ||
	    !strcmp(o->long_name, "restore"))
		return fail(err, errlen, "%s:%d: \"%s\" cannot be a default: give it on the command line",
		            file, lineno, o->long_name);
	/* overwriting files is asked for run by run, never by default */
	if (!strcmp(o->long_name, "force"))
		return fail(err, errlen, "%s:%d: \"force\" cannot be a default: overwriting files is "
		            "asked for on the command line, run by run (--force)", file, lineno);
	for (int i = 0; i < c->nwords && !o->repeatable; i++)
		if (c->opt[i] == opt)
			return fail(err, errlen, "%s:%d: \"%s\" given twice: give it once", file,
			            lineno, o->long_name);
	char val[LINE_MAX_LEN];
	const char *vs = eq ? eq + 1 : e, *ve = e;
	trim(&vs, &ve);
	if (!eq || vs == ve)
		return fail(err, errlen, "%s:%d: \"%s\" needs a value: %s = %s", file, lineno,
		            o->long_name, o->long_name, o->arg ? o->arg : "true|false");
	memcpy(val, vs, (size_t)(ve - vs));
	val[ve - vs] = 0;
	if (!o->arg) {
		int f = flag_value(val);
		if (f < 0)
			return fail(err, errlen, "%s:%d: bad value \"%s\" for %s: use true or false",
			            file, lineno, val, o->long_name);
		return f ? add_word(c, opt, o->long_name, NULL) : 0;
	}
	char word[LINE_MAX_LEN + 64];
	snprintf(word, sizeof word, "--%s=%s", o->long_name, val);
	if (check_value(o, word, msg, sizeof msg) < 0)
		return fail(err, errlen, "%s:%d: %s", file, lineno, msg);
	return add_word(c, opt, o->long_name, val);
}

int config_parse_text(const char *text, size_t len, const char *file,
                      struct config *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (!file)
		file = "config";
	if (err && errlen)
		err[0] = 0;
	int lineno = 0;
	for (size_t i = 0; i < len;) {
		const char *s = text + i, *nl = memchr(s, '\n', len - i);
		const char *e = nl ? nl : text + len;
		lineno++;
		if (memchr(s, 0, (size_t)(e - s))) {
			config_free(out);
			return fail(err, errlen, "%s:%d: a NUL byte: the file must be text", file, lineno);
		}
		int rc = parse_line(out, s, e, file, lineno, err, errlen);
		if (rc < 0) {
			if (rc == -ENOMEM)
				fail(err, errlen, "%s:%d: out of memory", file, lineno);
			config_free(out);
			if (err && errlen)
				shown_escape(err, errlen);  /* the file's words, never raw */
			return -1;
		}
		i = (size_t)(e - text) + 1;
	}
	return 0;
}

void config_free(struct config *c)
{
	strv_free_n(c->words, (size_t)c->nwords);
	free(c->opt);
	memset(c, 0, sizeof *c);
}

int config_path(char *buf, size_t len)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	if (x && *x)
		snprintf(buf, len, "%s/benchtop/config", x);
	else if (h && *h)
		snprintf(buf, len, "%s/.config/benchtop/config", h);
	else
		return -1;
	return 0;
}

int config_load(const char *path, struct config *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	int e;
	FILE *f = sysfile_fopen_regular(path, &e);
	if (!f) {
		if (e == -ENOENT || e == -ENOTDIR)
			return 0;
		return fail(err, errlen, "cannot read the config file %s: %s", path,
		            e == -EINVAL ? "not a regular file (a FIFO or device is never read)" : strerror(-e));
	}
	char *text = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n + 4096 > cap) {
			char *t = xrealloc(text, cap = cap ? cap * 2 : 8192);
			if (!t || cap > (1u << 20)) {
				free(t ? t : text);
				fclose(f);
				return fail(err, errlen, "config file %s: too big (at most 1 MiB)", path);
			}
			text = t;
		}
		got = fread(text + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	bool bad = ferror(f);
	fclose(f);
	int rc = bad ? fail(err, errlen, "cannot read the config file %s", path)
	             : config_parse_text(text, n, path, out, err, errlen);
	free(text);
	if (rc < 0 && err && errlen)
		shown_escape(err, errlen);
	return rc;
}

/* The rows of cli_options[] the command line gives (words before "--"). */
static void given(int argc, char **argv, bool *seen)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (!strcmp(w, "--"))
			return;
		if (w[0] == '-' && w[1] == '-') {
			int o = find_option(w + 2, strcspn(w + 2, "="));
			if (o >= 0)
				seen[o] = true;
			continue;
		}
		if (w[0] != '-' || !w[1] || (w[1] >= '0' && w[1] <= '9'))
			continue;
		for (const char *p = w + 1; *p; p++) {
			size_t k = 0;
			while (k < cli_noptions && cli_options[k].short_name != *p)
				k++;
			if (k == cli_noptions)
				break;
			seen[k] = true;
			if (cli_options[k].arg)
				break;
		}
	}
}

int config_merge_argv(const struct config *c, int argc, char **argv,
                      int *nargc, char ***nargv)
{
	bool seen[128] = { false };
	if (cli_noptions > 128)
		return -EINVAL;
	given(argc, argv, seen);
	char **v = xmalloc(((size_t)argc + (size_t)c->nwords + 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	int n = 0;
	v[n++] = argc > 0 ? argv[0] : "benchtop";
	for (int i = 0; i < c->nwords; i++)
		if (!seen[c->opt[i]])
			v[n++] = c->words[i];
	for (int i = 1; i < argc; i++)
		v[n++] = argv[i];
	v[n] = NULL;
	*nargc = n;
	*nargv = v;
	return 0;
}

/* preset.c - named experiments: preset files (presets/NAME.preset), where
 * they are found, and how a preset's arguments merge with the user's. */
#include "benchtop/preset.h"
#include "benchtop/sysfile.h"
#include "benchtop/xalloc.h"

#include "benchtop/builtin.h"
#include "benchtop/config.h"
#include "benchtop/strv.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef BENCHTOP_SHAREDIR
#define BENCHTOP_SHAREDIR "/usr/local/share/benchtop"
#endif

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ---- preset files ------------------------------------------------------ */

void preset_free_words(char **argv)
{
	strv_free(argv);
}

/* Appends c to the word being built (buf holds at most strlen(s)+1). */
static int add_word(char ***argv, int *argc, char *buf, size_t n)
{
	char **v = xrealloc(*argv, ((size_t)*argc + 2) * sizeof *v);
	if (!v)
		return -ENOMEM;
	*argv = v;
	v[*argc] = xstrndup(buf, n);
	if (!v[*argc])
		return -ENOMEM;
	v[++*argc] = NULL;
	return 0;
}

int preset_split(const char *s, int *argc, char ***argv, char *err, size_t errlen)
{
	char *buf = xmalloc(strlen(s) + 1);
	size_t n = 0;
	bool in_word = false;
	int rc = buf ? 0 : -ENOMEM;
	*argc = 0;
	*argv = xcalloc(1, sizeof **argv);
	if (!*argv)
		rc = -ENOMEM;
	for (const char *p = s; !rc && *p; p++) {
		if (*p == ' ' || *p == '\t') {
			if (in_word)
				rc = add_word(argv, argc, buf, n);
			in_word = false, n = 0;
			continue;
		}
		in_word = true;
		if (*p == '\\') {
			if (!p[1])
				rc = fail(err, errlen, "a backslash at the end of \"%s\": escape a character after it", s);
			else
				buf[n++] = *++p;
		} else if (*p == '\'' || *p == '"') {
			char q = *p;
			const char *start = p;
			for (p++; *p && *p != q; p++)
				buf[n++] = q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\') ? *++p : *p;
			if (!*p)
				rc = fail(err, errlen, "unterminated %c in \"%s\": close the quote it opens", q, start);
		} else {
			buf[n++] = *p;
		}
	}
	if (!rc && in_word)
		rc = add_word(argv, argc, buf, n);
	free(buf);
	if (rc) {
		preset_free_words(*argv);
		*argv = NULL;
		*argc = 0;
		if (rc == -ENOMEM)
			fail(err, errlen, "out of memory");
	}
	return rc;
}

void preset_free(struct preset *p)
{
	if (!p)
		return;
	free(p->description);
	free(p->study);
	for (int i = 0; i < p->nruns; i++)
		preset_free_words(p->argv[i]);
	memset(p, 0, sizeof *p);
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

/* One "key = value" line of a preset. */
static int preset_line(struct preset *p, char *line, const char *where, int ln, char *err, size_t errlen)
{
	char *eq = strchr(line, '='), why[384];
	if (!eq)
		return fail(err, errlen, "%s:%d: \"%s\" is not a setting: use description = TEXT, study = NAME "
		            "or args = ARGUMENTS",
		            where, ln, line);
	*eq = 0;
	char *key = trim(line), *val = trim(eq + 1);
	if (!strcmp(key, "description")) {
		if (p->description)
			return fail(err, errlen, "%s:%d: a second description: give one", where, ln);
		p->description = xstrdup(val);
		return p->description ? 0 : fail(err, errlen, "out of memory");
	}
	if (!strcmp(key, "study")) {
		if (p->study)
			return fail(err, errlen, "%s:%d: a second study: give one", where, ln);
		if (!*val || strspn(val, "abcdefghijklmnopqrstuvwxyz-") != strlen(val))
			return fail(err, errlen, "%s:%d: study \"%s\": give a study's name, e.g. study = bonnie",
			            where, ln, val);
		p->study = xstrdup(val);
		return p->study ? 0 : fail(err, errlen, "out of memory");
	}
	if (strcmp(key, "args") != 0)
		return fail(err, errlen, "%s:%d: unknown key \"%s\": use description, study or args", where, ln, key);
	if (!*val)
		return fail(err, errlen, "%s:%d: empty args: give benchtop arguments, e.g. args = -w read --sweep bs=4k:1M",
		            where, ln);
	if (p->nruns == PRESET_MAX_RUNS)
		return fail(err, errlen, "%s:%d: more than %d args lines: split the preset", where, ln, PRESET_MAX_RUNS);
	if (preset_split(val, &p->argc[p->nruns], &p->argv[p->nruns], why, sizeof why))
		return fail(err, errlen, "%s:%d: %s", where, ln, why);
	p->nruns++;
	return 0;
}

int preset_parse(const char *text, const char *where, struct preset *p, char *err, size_t errlen)
{
	char *copy = xstrdup(text), *save = NULL;
	int ln = 0, rc = copy ? 0 : fail(err, errlen, "out of memory");
	memset(p, 0, sizeof *p);
	/* strtok_r would merge blank lines and lose line numbers. */
	for (char *line = copy; !rc && line; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = 0;
		ln++;
		char *t = trim(line);
		if (*t && *t != '#')
			rc = preset_line(p, t, where, ln, err, errlen);
	}
	free(copy);
	if (!rc && p->nruns == 0 && !p->study)
		rc = fail(err, errlen, "%s: no args line: add args = benchtop arguments", where);
	if (rc)
		preset_free(p);
	return rc ? -EINVAL : 0;
}

int preset_find(const char *name, char *path, size_t len)
{
	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		return access(path, R_OK) == 0 ? 0 : -ENOENT;
	}
	char dirs[2][PATH_MAX];
	int n = config_search_dirs("presets", dirs);
	for (int i = 0; i < n; i++) {
		snprintf(path, len, "%s/%s.preset", dirs[i], name);
		if (access(path, R_OK) == 0)
			return 0;
	}
	if (builtin_text("preset", name)) {
		snprintf(path, len, "built-in:%s", name);
		return 0;
	}
	return -ENOENT;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_name(char **names, size_t *nn, size_t max, const char *nm)
{
	for (size_t k = 0; k < *nn; k++)
		if (!strcmp(names[k], nm))
			return;
	if (*nn < max)
		names[(*nn)++] = xstrdup(nm);
}

/* Every preset name: the directories' and the built-in ones, sorted. */
static size_t all_names(char **names, size_t max)
{
	char dirs[2][PATH_MAX];
	size_t nn = 0;
	int n = config_search_dirs("presets", dirs);
	for (int i = 0; i < n; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			size_t l = strlen(de->d_name);
			if (l <= 7 || strcmp(de->d_name + l - 7, ".preset") != 0)
				continue;
			de->d_name[l - 7] = 0;
			add_name(names, &nn, max, de->d_name);
		}
		if (d)
			closedir(d);
	}
	for (size_t i = 0; builtin_name("preset", i); i++)
		add_name(names, &nn, max, builtin_name("preset", i));
	qsort(names, nn, sizeof *names, cmp_str);
	return nn;
}

void preset_names(char *buf, size_t len)
{
	char *names[256];
	size_t nn = all_names(names, 256), used = 0;
	if (len)
		buf[0] = 0;
	for (size_t k = 0; k < nn; k++) {
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", k ? ", " : "", names[k]);
		free(names[k]);
	}
	if (nn == 0)
		snprintf(buf, len, "(none found)");
}

int preset_list(FILE *fp)
{
	char *names[256], err[512];
	size_t nn = all_names(names, 256);
	int width = 0;
	for (size_t k = 0; k < nn; k++)
		if ((int)strlen(names[k]) > width)
			width = (int)strlen(names[k]);
	for (size_t k = 0; k < nn; k++) {
		struct preset p;
		if (preset_load(names[k], &p, err, sizeof err))
			fprintf(fp, "%-*s  (cannot be read: %s)\n", width, names[k], err);
		else
			fprintf(fp, "%-*s  %s\n", width, names[k], p.description ? p.description : "(no description)");
		preset_free(&p);
		free(names[k]);
	}
	return (int)nn;
}
/* slurp's *e for a device, pipe or socket (no errno says that) */
#define ENOTREGULAR (-1)

static char *slurp(const char *path, int *e)
{
	int rc;
	FILE *f = sysfile_fopen_regular(path, &rc);
	char *text = NULL;
	size_t n = 0, cap = 0;
	struct stat st;
	*e = 0;
	if (!f) {
		*e = rc == -EINVAL ? ENOTREGULAR : -rc;
		return NULL;
	}
	/* a directory reads as an I/O error: say what it is */
	if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
		*e = S_ISDIR(st.st_mode) ? EISDIR : ENOTREGULAR;
		fclose(f);
		return NULL;
	}
	for (;;) {
		if (cap - n < 4096) {
			char *t = cap > (1 << 20) ? NULL : xrealloc(text, cap + 8192);
			if (!t) {
				*e = cap > (1 << 20) ? EFBIG : ENOMEM;
				break;
			}
			text = t, cap += 8192;
		}
		size_t k = fread(text + n, 1, cap - n - 1, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f) && !*e)
		*e = EIO;
	fclose(f);
	if (*e) {
		free(text);
		return NULL;
	}
	text[n] = 0;
	return text;
}

int preset_load(const char *name, struct preset *p, char *err, size_t errlen)
{
	char path[PATH_MAX], names[1024];
	int e;
	memset(p, 0, sizeof *p);
	if (preset_find(name, path, sizeof path)) {
		preset_names(names, sizeof names);
		fail(err, errlen, "unknown preset \"%s\": use one of: %s (built in, or NAME.preset in "
		     "$XDG_CONFIG_HOME/benchtop/presets or %s/presets; --preset list describes them)",
		     name, names, BENCHTOP_SHAREDIR);
		return -ENOENT;
	}
	const char *built = !strncmp(path, "built-in:", 9) ? builtin_text("preset", path + 9) : NULL;
	char *text = built ? xstrdup(built) : slurp(path, &e);
	if (built && !text)
		e = ENOMEM;
	if (!text) {
		fail(err, errlen, "preset %s: %s", path, e == EISDIR ? "is a directory, not a preset file" :
		     e == ENOTREGULAR ? "is not a regular file" : strerror(e));
		return -e;
	}
	int rc = preset_parse(text, path, p, err, errlen);
	free(text);
	return rc;
}

/* ---- merging a preset with the user's options --------------------------- */

/* One option on a command line: words [at, at+n); the options it holds
 * (a bit per cli_options index; a cluster such as -bi0.5 holds several);
 * tail: "--" and the command after it. */
struct occ {
	int at, n;
	uint64_t opts;
	bool tail;
};

static int opt_index(const char *lname, size_t len, char sname)
{
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *o = &cli_options[i];
		if (sname ? o->short_name == sname
		          : o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, lname, len))
			return (int)i;
	}
	return -1;
}

static uint64_t bit_of(const char *lname)
{
	int i = opt_index(lname, strlen(lname), 0);
	return i < 0 ? 0 : 1ULL << i;
}

static bool matrix_word(const char *w)
{
	return !strncmp(w, "placement=", 10) || !strncmp(w, "governor=", 9);
}

/* The option that starts at argv[i]; unknown words are one-word entries
 * with no option (cli_parse names them). */
static struct occ scan_one(int argc, char **argv, int i)
{
	struct occ o = { .at = i, .n = 1 };
	const char *w = argv[i];
	if (!strcmp(w, "--")) {
		o.n = argc - i, o.tail = true;
	} else if (w[0] == '-' && w[1] == '-') {
		size_t len = strcspn(w + 2, "=");
		int k = opt_index(w + 2, len, 0);
		if (k >= 0) {
			o.opts = 1ULL << k;
			bool attached = w[2 + len] == '=';
			if (!attached && !strcmp(cli_options[k].long_name, "matrix"))
				while (i + o.n < argc && matrix_word(argv[i + o.n]))
					o.n++;
			else if (!attached && cli_options[k].arg && i + 1 < argc)
				o.n = 2;
		}
	} else if (w[0] == '-' && w[1]) {
		for (const char *p = w + 1; *p; p++) {
			int k = opt_index(NULL, 0, *p);
			if (k < 0)
				break;
			o.opts |= 1ULL << k;
			if (cli_options[k].arg) {
				if (!p[1] && i + 1 < argc)
					o.n = 2;
				break;
			}
		}
	}
	return o;
}

static size_t scan(int argc, char **argv, int from, struct occ *occ)
{
	size_t n = 0;
	for (int i = from; i < argc; i += occ[n - 1].n)
		occ[n++] = scan_one(argc, argv, i);
	return n;
}

/* Should the preset's entry po give way to what the user gives (uopts)? */
static bool overridden(const struct occ *po, uint64_t uopts, bool user_cmd)
{
	uint64_t wl = bit_of("workload"), exp = bit_of("sweep") | bit_of("matrix"), at = bit_of("at");
	bool user_wl = user_cmd || (uopts & wl);
	if (po->tail)
		return user_wl;
	if ((po->opts & wl) && user_wl)
		return true;
	if ((po->opts & exp) && (uopts & exp))
		return true;
	return (po->opts & uopts & ~at & ~wl) != 0;
}

static void push(char **out, int *n, char **words, const struct occ *o)
{
	for (int k = 0; k < o->n; k++)
		out[(*n)++] = words[o->at + k];
}

int preset_merge(const struct preset *p, int k, const char *name, int argc, char **argv,
                 struct run *out, char *err, size_t errlen)
{
	int pc = p->argc[k], total = 3 + pc + argc, n = 0;
	char **words = xcalloc((size_t)total + 1, sizeof *words);
	struct occ *uo = xcalloc((size_t)argc + 1, sizeof *uo), *po = xcalloc((size_t)pc + 1, sizeof *po);
	const struct occ *tail = NULL;
	char **tail_words = NULL;
	uint64_t uopts = 0, preset_bit = bit_of("preset");
	bool user_cmd = false;
	int rc = -1;
	memset(out, 0, sizeof *out);
	if (!words || !uo || !po) {
		fail(err, errlen, "out of memory");
		goto done;
	}
	size_t nu = scan(argc, argv, 1, uo), np = scan(pc, p->argv[k], 0, po);
	for (size_t i = 0; i < nu; i++) {
		uopts |= uo[i].opts;
		user_cmd = user_cmd || uo[i].tail;
	}
	words[n++] = "benchtop";
	for (size_t i = 0; i < np; i++) {
		if (po[i].opts & preset_bit) {
			fail(err, errlen, "preset %s: --preset inside a preset: list its arguments instead", name);
			goto done;
		}
		if (overridden(&po[i], uopts, user_cmd))
			continue;
		if (po[i].tail)
			tail = &po[i], tail_words = p->argv[k];
		else
			push(words, &n, p->argv[k], &po[i]);
	}
	for (size_t i = 0; i < nu; i++) {
		if (uo[i].tail)
			tail = &uo[i], tail_words = argv;
		else
			push(words, &n, argv, &uo[i]);  /* holds --preset NAME itself */
	}
	if (tail)
		push(words, &n, tail_words, tail);
	words[n] = NULL;
	if (cli_parse(n, words, out, err, errlen) == 0)
		rc = 0;
done:
	free(words);
	free(uo);
	free(po);
	return rc;
}

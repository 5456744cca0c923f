/* experiment.c - sweeps, matrices and presets: one workload run many
 * times as quiet batch runs (app_run), with a table of their totals. */
#include "benchtop/experiment.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "benchtop/affinity.h"
#include "benchtop/app.h"
#include "benchtop/cpufreq.h"
#include "benchtop/engine.h"
#include "benchtop/units.h"

#ifndef BENCHTOP_SHAREDIR
#define BENCHTOP_SHAREDIR "/usr/local/share/benchtop"
#endif

#define MIB (1024ULL * 1024)
/* Sources a sweep or matrix makes, and writes without a size, are this
 * big unless --cell SIZE (or the workload's size) says otherwise. */
#define EXP_DEFAULT_SIZE (256 * MIB)
/* A matrix cell without --cell (and without -t) lasts this long. */
#define EXP_DEFAULT_CELL_SEC 10.0

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

/* ---- sweep steps ------------------------------------------------------- */

size_t experiment_steps(uint64_t from, uint64_t to, uint64_t *bs, size_t max)
{
	size_t n = 0;
	if (from == 0 || from > to)
		return 0;
	for (uint64_t b = from; b <= to && n < max; b *= 2) {
		bs[n++] = b;
		if (b > UINT64_MAX / 2)
			break;
	}
	if (n < max && n > 0 && bs[n - 1] != to)
		bs[n++] = to;
	return n;
}

/* ---- preset files ------------------------------------------------------ */

void preset_free_words(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Appends c to the word being built (buf holds at most strlen(s)+1). */
static int add_word(char ***argv, int *argc, char *buf, size_t n)
{
	char **v = realloc(*argv, ((size_t)*argc + 2) * sizeof *v);
	if (!v)
		return -ENOMEM;
	*argv = v;
	v[*argc] = strndup(buf, n);
	if (!v[*argc])
		return -ENOMEM;
	v[++*argc] = NULL;
	return 0;
}

int preset_split(const char *s, int *argc, char ***argv, char *err, size_t errlen)
{
	char *buf = malloc(strlen(s) + 1);
	size_t n = 0;
	bool in_word = false;
	int rc = buf ? 0 : -ENOMEM;
	*argc = 0;
	*argv = calloc(1, sizeof **argv);
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
		return fail(err, errlen, "%s:%d: \"%s\" is not a setting: use description = TEXT or args = ARGUMENTS",
		            where, ln, line);
	*eq = 0;
	char *key = trim(line), *val = trim(eq + 1);
	if (!strcmp(key, "description")) {
		if (p->description)
			return fail(err, errlen, "%s:%d: a second description: give one", where, ln);
		p->description = strdup(val);
		return p->description ? 0 : fail(err, errlen, "out of memory");
	}
	if (strcmp(key, "args") != 0)
		return fail(err, errlen, "%s:%d: unknown key \"%s\": use description or args", where, ln, key);
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
	char *copy = strdup(text), *save = NULL;
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
	if (!rc && p->nruns == 0)
		rc = fail(err, errlen, "%s: no args line: add args = benchtop arguments", where);
	if (rc)
		preset_free(p);
	return rc ? -EINVAL : 0;
}

static int search_dirs(char dirs[3][PATH_MAX])
{
	int n = 0;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(dirs[n++], PATH_MAX, "%s/benchtop/presets", xdg);
	else if (home && *home)
		snprintf(dirs[n++], PATH_MAX, "%s/.config/benchtop/presets", home);
	snprintf(dirs[n++], PATH_MAX, "%s/presets", BENCHTOP_SHAREDIR);
	snprintf(dirs[n++], PATH_MAX, "./presets");
	return n;
}

int preset_find(const char *name, char *path, size_t len)
{
	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		return access(path, R_OK) == 0 ? 0 : -ENOENT;
	}
	char dirs[3][PATH_MAX];
	int n = search_dirs(dirs);
	for (int i = 0; i < n; i++) {
		snprintf(path, len, "%s/%s.preset", dirs[i], name);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void preset_names(char *buf, size_t len)
{
	char dirs[3][PATH_MAX], *names[256];
	size_t nn = 0, used = 0;
	int n = search_dirs(dirs);
	for (int i = 0; i < n; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;
		while (d && (de = readdir(d)) && nn < 256) {
			size_t l = strlen(de->d_name);
			if (l <= 7 || strcmp(de->d_name + l - 7, ".preset") != 0)
				continue;
			char *nm = strndup(de->d_name, l - 7);
			bool dup = false;
			for (size_t k = 0; nm && k < nn; k++)
				dup = dup || !strcmp(names[k], nm);
			if (nm && !dup)
				names[nn++] = nm;
			else
				free(nm);
		}
		if (d)
			closedir(d);
	}
	qsort(names, nn, sizeof *names, cmp_str);
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

static char *slurp(const char *path, int *e)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t n = 0, cap = 0;
	*e = 0;
	if (!f) {
		*e = errno;
		return NULL;
	}
	for (;;) {
		if (cap - n < 4096) {
			char *t = cap > (1 << 20) ? NULL : realloc(text, cap + 8192);
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
		fail(err, errlen, "unknown preset \"%s\": use one of: %s (looked in $XDG_CONFIG_HOME/benchtop/presets, "
		     "%s/presets, ./presets)", name, names, BENCHTOP_SHAREDIR);
		return -ENOENT;
	}
	char *text = slurp(path, &e);
	if (!text) {
		fail(err, errlen, "preset %s: %s", path, strerror(e));
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
	char **words = calloc((size_t)total + 1, sizeof *words);
	struct occ *uo = calloc((size_t)argc + 1, sizeof *uo), *po = calloc((size_t)pc + 1, sizeof *po);
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

/* ---- running steps and cells ---------------------------------------------- */

/* What one step or cell did: its workloads summed. */
struct cell_result {
	uint64_t bs;                 /* sweep: the block size */
	enum placement place;        /* matrix axes (PLACE_NONE / NULL: as is) */
	const char *gov;
	double user, sys, elapsed;
	uint64_t bytes, calls;
	int status;                  /* app_run's */
};

struct exp {
	struct run *r;
	bool matrix;
	FILE *out, *rec;             /* stdout; -o FILE or NULL */
	int ncpu;
	char *scratch;               /* made only when a source is needed */
	char *src;                   /* the source every step reads or copies */
	struct wl_spec *wl;          /* per-step copies of r->wl */
	bool *reuse;                 /* wl i's result file is made by step 1: later steps replace it */
	struct cell_result *res;
	char *govbuf;                /* the matrix's governor names, split */
	size_t n;
	double t0;
	int stop;                    /* the signal that ended the experiment */
};

static const char *const place_words[] = { "as-is", "pack", "free", "spread" };
static const char *const kind_words[] = { "copy", "write", "read", "seek", "cmd" };

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double div0(double a, double b)
{
	return b > 1e-9 ? a / b : 0;
}

static void jnum(FILE *fp, double v)
{
	if (isfinite(v))
		fprintf(fp, "%.9g", v);
	else
		fputs("null", fp);
}

static void jstr_or_null(FILE *fp, const char *s)
{
	if (s)
		json_string(fp, s);
	else
		fputs("null", fp);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A copy without src, a read or seek of nothing or of a directory: the
 * experiment makes one source for all its steps. */
static bool needs_source(const struct wl_spec *w)
{
	return (w->kind == WL_COPY && !w->src) ||
	       ((w->kind == WL_READ || w->kind == WL_SEEK) && (!w->path || is_dir(w->path)));
}

/* The file a write or copy names as its result, when it names a file. */
static const char *result_file(const struct wl_spec *w)
{
	const char *p = w->kind == WL_COPY ? w->dst : w->kind == WL_WRITE ? w->path : NULL;
	struct stat st;
	return p && !(stat(p, &st) == 0 && S_ISDIR(st.st_mode)) ? p : NULL;
}

static bool exists_now(const char *p, int jobs)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof buf, jobs > 1 ? "%s.1" : "%s", p);
	return access(buf, F_OK) == 0;
}

/* One source for every step: made once, in a scratch directory of its own,
 * removed at the end unless --keep. */
static int make_source(struct exp *e)
{
	uint64_t want = e->r->cell_bytes;
	char msg[512];
	const char *tmp = getenv("TMPDIR"), *dir = tmp && *tmp ? tmp : "/var/tmp";
	for (size_t i = e->r->nwl; i-- > 0;) {
		const struct wl_spec *w = &e->r->wl[i];
		if (!needs_source(w))
			continue;
		if (!e->r->cell_bytes && w->size)
			want = w->size;
		if (w->kind != WL_COPY && w->path)
			dir = w->path;   /* the directory the user named: the disk under test */
	}
	if (asprintf(&e->scratch, "%s/benchtop-exp.XXXXXX", dir) < 0) {
		e->scratch = NULL;
		return -ENOMEM;
	}
	if (!mkdtemp(e->scratch)) {
		int err = errno;
		fprintf(stderr, "benchtop: making a scratch directory %s: %s (set TMPDIR to a writable directory)\n",
		        e->scratch, strerror(err));
		free(e->scratch);
		e->scratch = NULL;
		return -err;
	}
	int rc = engine_make_source(e->scratch, want ? want : EXP_DEFAULT_SIZE, &e->src, msg, sizeof msg);
	if (rc)
		fprintf(stderr, "benchtop: %s\n", msg);
	return rc;
}

static void remove_source(struct exp *e)
{
	if (!e->scratch)
		return;
	if (e->r->keep) {
		fprintf(stderr, "benchtop: kept the experiment's source %s\n", e->src ? e->src : e->scratch);
	} else {
		if (e->src)
			unlink(e->src);
		rmdir(e->scratch);
	}
	free(e->src);
	free(e->scratch);
}

/* The quiet batch run of step i: a shallow copy of the user's run with the
 * experiment's fields cleared (strings stay the user's). */
static void step_run(struct exp *e, size_t i, struct run *c)
{
	const struct run *r = e->r;
	const struct cell_result *cr = &e->res[i];
	*c = *r;
	c->wl = e->wl;
	c->batch = true;
	c->record = NULL;
	c->sweep = NULL;
	c->matrix = false;
	c->matrix_placement = c->matrix_governor = NULL;
	c->cell = NULL;
	c->cell_sec = 0;
	c->cell_bytes = 0;
	c->preset = NULL;
	if (r->cell_sec > 0)
		c->duration = r->cell_sec;
	else if (e->matrix && !r->cell_bytes && r->duration <= 0)
		c->duration = EXP_DEFAULT_CELL_SEC;
	if (e->matrix) {
		if (cr->place != PLACE_NONE)
			c->placement = cr->place;
		c->governor = (char *)cr->gov;
	}
	for (size_t k = 0; k < r->nwl; k++) {
		struct wl_spec *w = &e->wl[k];
		*w = r->wl[k];
		w->is_default = false;
		if (needs_source(w) && e->src)
			*(w->kind == WL_COPY ? &w->src : &w->path) = e->src;
		if (r->cell_bytes)
			w->size = r->cell_bytes;
		else if (w->kind == WL_WRITE && !w->size)
			w->size = EXP_DEFAULT_SIZE;
		if (!e->matrix && w->kind != WL_CMD && w->kind != WL_SEEK)
			w->bs = cr->bs;
		if (e->reuse[k] && i > 0)
			c->force = true;
	}
}

/* What a step's process hands back through its pipe. */
struct step_msg {
	int status;
	struct app_result res;
};

/* Waits for the step's process; SIGINT, SIGTERM and SIGHUP are passed on
 * to it (it stops its workloads and restores governors) and end the
 * experiment after it.  Returns the wait status. */
static int wait_step(struct exp *e, pid_t pid)
{
	sigset_t set;
	siginfo_t si;
	struct timespec tick = { 0, 200 * 1000 * 1000 };
	int ws = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	while (waitpid(pid, &ws, WNOHANG) == 0) {
		int sig = sigtimedwait(&set, &si, &tick);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			e->stop = sig;
			kill(pid, sig);
		}
	}
	return ws;
}

/* Each step runs in a process of its own, so a stop signal ends the whole
 * experiment, not only the step that was running. */
static int step_process(struct exp *e, struct run *c, struct app_result *res)
{
	struct step_msg msg = { .status = 1 };
	sigset_t set, old;
	int fd[2];
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (pipe2(fd, O_CLOEXEC))
		return app_run(c, res);
	fflush(NULL);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		msg.status = app_run(c, &msg.res);
		fflush(NULL);
		_exit(write(fd[1], &msg, sizeof msg) == (ssize_t)sizeof msg ? msg.status : 1);
	}
	close(fd[1]);
	if (pid < 0) {
		close(fd[0]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return app_run(c, res);
	}
	int ws = wait_step(e, pid);
	if (read(fd[0], &msg, sizeof msg) != (ssize_t)sizeof msg) {
		memset(&msg, 0, sizeof msg);
		msg.status = 1;
		fprintf(stderr, "benchtop: a step ended without its totals (%s %d)\n",
		        WIFSIGNALED(ws) ? "signal" : "exit status", WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
	}
	close(fd[0]);
	sigprocmask(SIG_SETMASK, &old, NULL);
	*res = msg.res;
	return msg.status;
}

static void run_step(struct exp *e, size_t i)
{
	struct cell_result *cr = &e->res[i];
	struct app_result res;
	struct run c;
	step_run(e, i, &c);
	memset(&res, 0, sizeof res);
	cr->status = step_process(e, &c, &res);
	for (int k = 0; k < res.nwl && k < APP_RESULT_MAX; k++) {
		cr->user += res.wl[k].user;
		cr->sys += res.wl[k].sys;
		cr->bytes += res.wl[k].bytes;
		cr->calls += res.wl[k].calls;
		if (res.wl[k].elapsed > cr->elapsed)
			cr->elapsed = res.wl[k].elapsed;
	}
}

/* ---- output ------------------------------------------------------------- */

static void start_record(struct exp *e, FILE *fp)
{
	const struct run *r = e->r;
	char host[256] = "", when[64];
	gethostname(host, sizeof host - 1);
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", &tm);
	struct cpufreq *cf = cpufreq_open(r->sysfs, e->ncpu);
	fprintf(fp, "{\"type\":\"start\",\"version\":1,\"started\":");
	json_string(fp, when);
	fprintf(fp, ",\"host\":");
	json_string(fp, host);
	fprintf(fp, ",\"ncpu\":%d,\"interval\":", e->ncpu);
	jnum(fp, r->interval);
	fprintf(fp, ",\"cpufreq\":");
	json_string(fp, cf ? cpufreq_residency_kind(cf) : "none");
	if (cf)
		cpufreq_close(cf);
	fprintf(fp, ",\"units\":\"%s\",\"workloads\":[", units_name(r->units));
	for (size_t i = 0; i < r->nwl; i++) {
		fprintf(fp, "%s{\"id\":%zu,\"kind\":\"%s\",\"spec\":", i ? "," : "", i + 1, kind_words[r->wl[i].kind]);
		json_string(fp, r->wl[i].text ? r->wl[i].text : kind_words[r->wl[i].kind]);
		fputc('}', fp);
	}
	fprintf(fp, "],\"experiment\":\"%s\",\"%s\":", e->matrix ? "matrix" : "sweep", e->matrix ? "matrix" : "sweep");
	if (e->matrix) {
		fprintf(fp, "{\"placement\":");
		jstr_or_null(fp, r->matrix_placement);
		fprintf(fp, ",\"governor\":");
		jstr_or_null(fp, r->matrix_governor);
		fputc('}', fp);
	} else {
		json_string(fp, r->sweep);
	}
	fprintf(fp, ",\"cell\":");
	jstr_or_null(fp, r->cell);
	fprintf(fp, ",\"preset\":");
	jstr_or_null(fp, r->preset);
	fprintf(fp, ",\"steps\":%zu}\n", e->n);
	fflush(fp);
}

/* The fields every step, cell and summary row share. */
static void totals_json(FILE *fp, const struct cell_result *cr)
{
	fprintf(fp, "\"user\":");
	jnum(fp, cr->user);
	fprintf(fp, ",\"sys\":");
	jnum(fp, cr->sys);
	fprintf(fp, ",\"elapsed\":");
	jnum(fp, cr->elapsed);
	fprintf(fp, ",\"hog\":");
	jnum(fp, div0(cr->user + cr->sys, cr->elapsed));
	fprintf(fp, ",\"bytes\":%llu,\"bps\":", (unsigned long long)cr->bytes);
	jnum(fp, div0((double)cr->bytes, cr->elapsed));
}

static void item_json(struct exp *e, FILE *fp, size_t i, bool record)
{
	const struct cell_result *cr = &e->res[i];
	fputc('{', fp);
	if (record) {
		fprintf(fp, "\"type\":\"%s\",\"t\":", e->matrix ? "cell" : "step");
		jnum(fp, now_mono() - e->t0);
		fprintf(fp, ",\"%s\":%zu,", e->matrix ? "cell" : "step", i + 1);
	}
	if (e->matrix) {
		fprintf(fp, "\"placement\":");
		jstr_or_null(fp, cr->place != PLACE_NONE ? place_words[cr->place] : NULL);
		fprintf(fp, ",\"governor\":");
		jstr_or_null(fp, cr->gov);
		fputc(',', fp);
	} else {
		fprintf(fp, "\"bs\":%llu,", (unsigned long long)cr->bs);
	}
	fprintf(fp, "\"calls\":%llu,\"us_per_call\":", (unsigned long long)cr->calls);
	jnum(fp, cr->calls ? cr->elapsed * 1e6 / (double)cr->calls : NAN);
	fputc(',', fp);
	totals_json(fp, cr);
	fprintf(fp, ",\"status\":%d}", cr->status);
	if (record)
		fputc('\n', fp);
	fflush(fp);
}

static void item_name(const struct exp *e, size_t i, char *buf, size_t len)
{
	const struct cell_result *cr = &e->res[i];
	const char *kind = e->r->nwl ? kind_words[e->r->wl[0].kind] : "run";
	if (e->matrix)
		snprintf(buf, len, "%s placement=%s governor=%s", kind, place_words[cr->place],
		         cr->gov ? cr->gov : "as-is");
	else
		snprintf(buf, len, "%s bs=%llu", kind, (unsigned long long)cr->bs);
}

static void end_record(struct exp *e, FILE *fp)
{
	char name[160];
	fprintf(fp, "{\"type\":\"end\",\"t\":");
	jnum(fp, now_mono() - e->t0);
	fprintf(fp, ",\"summary\":[");
	for (size_t i = 0; i < e->n; i++) {
		item_name(e, i, name, sizeof name);
		fprintf(fp, "%s{\"test\":", i ? "," : "");
		json_string(fp, name);
		fputc(',', fp);
		totals_json(fp, &e->res[i]);
		fputc('}', fp);
	}
	fprintf(fp, "],\"phases\":[],\"%s\":[", e->matrix ? "matrix" : "sweep");
	for (size_t i = 0; i < e->n; i++) {
		if (i)
			fputc(',', fp);
		item_json(e, fp, i, false);
	}
	fprintf(fp, "]}\n");
	fflush(fp);
}

static void text_header(struct exp *e)
{
	const struct run *r = e->r;
	const char *rate = units_rate_label(r->units);
	FILE *fp = e->out;
	if (r->format == FMT_CSV) {
		fprintf(fp, "%s,calls,%s,us_per_call,user,sys,elapsed,hog,status\n",
		        e->matrix ? "placement,governor" : "bs", rate);
		return;
	}
	if (e->matrix)
		fprintf(fp, "matrix placement=%s governor=%s: %zu cells\n\n%-9s  %-12s",
		        r->matrix_placement ? r->matrix_placement : "as-is",
		        r->matrix_governor ? r->matrix_governor : "as-is", e->n, "placement", "governor");
	else
		fprintf(fp, "sweep %s: %zu steps\n\n%10s", r->sweep, e->n, "bs");
	fprintf(fp, "  %12s  %8s  %9s  %6s  %6s  %6s  %4s\n", "calls", rate, "us/call", "user", "sys", "elaps", "hog");
	fflush(fp);
}

static void text_row(struct exp *e, size_t i)
{
	const struct cell_result *cr = &e->res[i];
	enum units_mode u = e->r->units;
	double rate = units_rate_value(u, div0((double)cr->bytes, cr->elapsed));
	double us = cr->calls ? cr->elapsed * 1e6 / (double)cr->calls : 0;
	double hog = div0(cr->user + cr->sys, cr->elapsed) * 100;
	const char *gov = cr->gov ? cr->gov : "as-is", *place = place_words[cr->place];
	FILE *fp = e->out;
	if (e->r->format == FMT_CSV) {
		if (e->matrix)
			fprintf(fp, "%s,%s,", place, gov);
		else
			fprintf(fp, "%llu,", (unsigned long long)cr->bs);
		fprintf(fp, "%llu,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f,%d\n", (unsigned long long)cr->calls, rate, us,
		        cr->user, cr->sys, cr->elapsed, hog, cr->status);
	} else {
		if (e->matrix)
			fprintf(fp, "%-9s  %-12s", place, gov);
		else
			fprintf(fp, "%10llu", (unsigned long long)cr->bs);
		fprintf(fp, "  %12llu  %8.*f  %9.2f  %6.2f  %6.2f  %6.2f  %3.0f%%%s\n", (unsigned long long)cr->calls,
		        rate < 100 ? 1 : 0, rate, us, cr->user, cr->sys, cr->elapsed, hog,
		        cr->status == 1 ? "  (failed)" : "");
	}
	fflush(fp);
}

/* The matrix as placement rows x governor columns of rates. */
static void pivot(struct exp *e, size_t nplace, size_t ngov)
{
	FILE *fp = e->out;
	enum units_mode u = e->r->units;
	fprintf(fp, "\n%-9s", units_rate_label(u));
	for (size_t g = 0; g < ngov; g++)
		fprintf(fp, "  %12s", e->res[g].gov ? e->res[g].gov : "as-is");
	fputc('\n', fp);
	for (size_t p = 0; p < nplace; p++) {
		fprintf(fp, "%-9s", place_words[e->res[p * ngov].place]);
		for (size_t g = 0; g < ngov; g++) {
			const struct cell_result *cr = &e->res[p * ngov + g];
			double rate = units_rate_value(u, div0((double)cr->bytes, cr->elapsed));
			if (cr->status >= 2)
				fprintf(fp, "  %12s", "-");
			else
				fprintf(fp, "  %12.*f", rate < 100 ? 1 : 0, rate);
		}
		fputc('\n', fp);
	}
	fflush(fp);
}

/* ---- the matrix axes ------------------------------------------------------ */

/* Splits "a,b,c" into words (pointers into a copy kept in *buf). */
static size_t split_list(const char *s, char **buf, char **words, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	*buf = s ? strdup(s) : NULL;
	for (char *w = *buf ? strtok_r(*buf, ",", &save) : NULL; w && n < max; w = strtok_r(NULL, ",", &save))
		words[n++] = w;
	return n;
}

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list ? list : ""; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* Every governor of the matrix must be available on every policy, before
 * anything runs: 0, 2 (a name not available) or 3 (no cpufreq at all). */
static int check_governors(struct exp *e, char **gov, size_t ngov)
{
	struct cpufreq *cf = ngov ? cpufreq_open(e->r->sysfs, e->ncpu) : NULL;
	int np = cf ? cpufreq_npolicies(cf) : 0, status = 0;
	if (ngov && np == 0) {
		const char *why = cf ? cpufreq_unavailable_reason(cf) : NULL;
		fprintf(stderr, "benchtop: --matrix governor=%s: no governors here: no cpufreq policies under %s%s%s%s; "
		        "vary placement only, e.g. --matrix placement=pack,free,spread\n",
		        e->r->matrix_governor, e->r->sysfs, why ? " (" : "", why ? why : "", why ? ")" : "");
		status = 3;
	}
	for (size_t g = 0; !status && g < ngov; g++)
		for (int p = 0; !status && p < np; p++)
			if (!listed(cpufreq_policy_governors(cf, p), gov[g])) {
				fprintf(stderr, "benchtop: --matrix governor \"%s\" is not available here (policy %d); "
				        "use one of: %s\n", gov[g], p, cpufreq_policy_governors(cf, p));
				status = 2;
			}
	if (cf)
		cpufreq_close(cf);
	return status;
}

static enum placement place_of(const char *w)
{
	for (int p = PLACE_PACK; p <= PLACE_SPREAD; p++)
		if (!strcmp(w, place_words[p]))
			return (enum placement)p;
	return PLACE_NONE;
}

/* Fills e->res with the cells (rows: placements; columns: governors). */
static int plan_matrix(struct exp *e, size_t *nplace, size_t *ngov)
{
	char *pbuf, *gbuf, *pw[8], *gw[32];
	size_t np = split_list(e->r->matrix_placement, &pbuf, pw, 8);
	size_t ng = split_list(e->r->matrix_governor, &gbuf, gw, 32);
	int status = check_governors(e, gw, ng);
	*nplace = np ? np : 1;
	*ngov = ng ? ng : 1;
	e->n = *nplace * *ngov;
	e->res = calloc(e->n, sizeof *e->res);
	if (!e->res)
		status = 1;
	for (size_t p = 0; !status && p < *nplace; p++)
		for (size_t g = 0; g < *ngov; g++) {
			struct cell_result *cr = &e->res[p * *ngov + g];
			cr->place = np ? place_of(pw[p]) : e->r->placement;
			cr->gov = ng ? gw[g] : e->r->governor;
		}
	free(pbuf);
	e->govbuf = gbuf;
	return status;
}

static int plan_sweep(struct exp *e)
{
	uint64_t bs[EXP_MAX_STEPS];
	e->n = experiment_steps(e->r->sweep_from, e->r->sweep_to, bs, EXP_MAX_STEPS);
	e->res = calloc(e->n ? e->n : 1, sizeof *e->res);
	if (!e->res)
		return 1;
	for (size_t i = 0; i < e->n; i++)
		e->res[i].bs = bs[i];
	return 0;
}

/* ---- one experiment ------------------------------------------------------- */

static int open_record(struct exp *e)
{
	const char *path = e->r->record;
	if (!path)
		return 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (e->r->force ? O_TRUNC : O_EXCL), 0644);
	if (fd < 0 || !(e->rec = fdopen(fd, "w"))) {
		int err = errno;
		fprintf(stderr, "benchtop: -o %s: %s%s\n", path, strerror(err),
		        err == EEXIST ? " (choose a new file, or add --force to overwrite it)" : "");
		if (fd >= 0)
			close(fd);
		return 3;
	}
	return 0;
}

static int prepare(struct exp *e, size_t *nplace, size_t *ngov)
{
	struct run *r = e->r;
	int status = e->matrix ? plan_matrix(e, nplace, ngov) : plan_sweep(e);
	if (status)
		return status;
	if (r->nwl == 0 || r->nwl > APP_RESULT_MAX) {
		fprintf(stderr, "benchtop: %s needs 1 to %d workloads, not %zu\n", e->matrix ? "--matrix" : "--sweep",
		        APP_RESULT_MAX, r->nwl);
		return 2;
	}
	e->wl = calloc(r->nwl, sizeof *e->wl);
	e->reuse = calloc(r->nwl, sizeof *e->reuse);
	if (!e->wl || !e->reuse)
		return 1;
	bool source = false;
	for (size_t k = 0; k < r->nwl; k++) {
		const char *f = result_file(&r->wl[k]);
		e->reuse[k] = f && !exists_now(f, r->wl[k].jobs);
		source = source || needs_source(&r->wl[k]);
	}
	if ((status = open_record(e)))
		return status;
	if (source && make_source(e)) {
		if (e->rec) {
			fclose(e->rec);
			e->rec = NULL;
			unlink(r->record);
		}
		return 3;
	}
	return 0;
}

static int run_experiment(struct run *r)
{
	struct exp ex = { .r = r, .matrix = r->matrix, .out = stdout };
	struct exp *e = &ex;
	size_t nplace = 0, ngov = 0;
	int status = 0;
	bool json = r->format == FMT_JSON;
	setlocale(LC_NUMERIC, "C");
	e->ncpu = affinity_ncpu();
	if (e->ncpu < 1)
		e->ncpu = 1;
	status = prepare(e, &nplace, &ngov);
	if (!status) {
		e->t0 = now_mono();
		if (e->rec)
			start_record(e, e->rec);
		if (json)
			start_record(e, e->out);
		else
			text_header(e);
		for (size_t i = 0; i < e->n; i++) {
			run_step(e, i);
			if (e->rec)
				item_json(e, e->rec, i, true);
			if (json)
				item_json(e, e->out, i, true);
			else
				text_row(e, i);
			if (e->res[i].status > status)
				status = e->res[i].status;
			if (e->res[i].status >= 2 || e->stop) {
				if (e->stop && i + 1 < e->n)
					fprintf(stderr, "benchtop: stopped by %s after %zu of %zu %s\n", strsignal(e->stop),
					        i + 1, e->n, e->matrix ? "cells" : "steps");
				e->n = i + 1;   /* the machine refused: later steps would too */
				break;
			}
		}
		if (e->matrix && !json && r->format == FMT_TEXT && e->n == nplace * ngov)
			pivot(e, nplace, ngov);
		if (e->rec)
			end_record(e, e->rec);
		if (json)
			end_record(e, e->out);
	}
	if (e->rec)
		fclose(e->rec);
	remove_source(e);
	free(e->wl);
	free(e->reuse);
	free(e->res);
	free(e->govbuf);
	return status;
}

/* ---- presets ------------------------------------------------------------- */

/* A preset run that is neither sweep nor matrix: --cell sets its length. */
static int run_plain(struct run *m)
{
	if (m->cell_sec > 0 && m->duration <= 0)
		m->duration = m->cell_sec;
	for (size_t k = 0; m->cell_bytes && k < m->nwl; k++)
		if (!m->wl[k].size)
			m->wl[k].size = m->cell_bytes;
	return app_main(m);
}

/* A preset with no workload (nor one from the user) runs the default one,
 * the 3-process pipe copy; cli_parse makes it for a bare command line. */
static int default_workload(struct run *m)
{
	char *argv[] = { "benchtop", NULL }, err[CLI_ERR_MAX];
	struct run d;
	if (cli_parse(1, argv, &d, err, sizeof err) || d.nwl != 1) {
		fprintf(stderr, "benchtop: %s\n", err);
		cli_free(&d);
		return -1;
	}
	m->wl = d.wl;
	m->nwl = d.nwl;
	d.wl = NULL;
	d.nwl = 0;
	cli_free(&d);
	return 0;
}

/* With several runs, run k records to FILE.k. */
static int number_record(struct run *m, int k)
{
	char *name;
	if (!m->record)
		return 0;
	if (asprintf(&name, "%s.%d", m->record, k + 1) < 0)
		return -ENOMEM;
	free(m->record);
	m->record = name;
	return 0;
}

static void announce(const struct preset *p, const char *name, int k, const struct run *m)
{
	FILE *fp = m->batch && m->format != FMT_TEXT ? stderr : stdout;
	if (k == 0 && p->description)
		fprintf(fp, "preset %s: %s\n", name, p->description);
	if (p->nruns > 1) {
		fprintf(fp, "%s== preset %s, run %d of %d:", k ? "\n" : "", name, k + 1, p->nruns);
		for (int i = 0; i < p->argc[k]; i++)
			fprintf(fp, " %s", p->argv[k][i]);
		fprintf(fp, "\n");
	}
	fflush(fp);
}

static int run_preset(struct run *r, int argc, char **argv)
{
	struct preset p;
	char err[CLI_ERR_MAX + 1024];
	int rc = preset_load(r->preset, &p, err, sizeof err), status = 0;
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", err);
		return 2;
	}
	for (int k = 0; k < p.nruns && status < 2; k++) {
		struct run m;
		if (preset_merge(&p, k, r->preset, argc, argv, &m, err, sizeof err)) {
			fprintf(stderr, "benchtop: preset %s: %s\n", r->preset, err);
			status = 2;
			break;
		}
		int st;
		if (m.nwl == 0 && default_workload(&m)) {
			st = 1;
		} else if (p.nruns > 1 && number_record(&m, k)) {
			st = 1;
		} else {
			/* a sequence runs unattended: one batch run after another */
			if (p.nruns > 1)
				m.batch = true;
			announce(&p, r->preset, k, &m);
			st = m.sweep || m.matrix ? run_experiment(&m) : run_plain(&m);
		}
		cli_free(&m);
		if (st > status)
			status = st;
	}
	preset_free(&p);
	return status;
}

int experiment_main(struct run *r, int argc, char **argv)
{
	if (r->preset)
		return run_preset(r, argc, argv);
	if (r->sweep || r->matrix)
		return run_experiment(r);
	return app_main(r);
}

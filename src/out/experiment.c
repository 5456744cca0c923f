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
#include "benchtop/clock.h"
#include "benchtop/cpufreq.h"
#include "benchtop/engine.h"
#include "benchtop/num.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"

#ifndef BENCHTOP_SHAREDIR
#define BENCHTOP_SHAREDIR "/usr/local/share/benchtop"
#endif

#define MIB (1024ULL * 1024)
/* Sources a sweep or matrix makes, and writes without a size, are this
 * big unless --cell SIZE (or the workload's size) says otherwise. */
#define EXP_DEFAULT_SIZE (256 * MIB)
/* A matrix cell without --cell (and without -t) lasts this long. */
#define EXP_DEFAULT_CELL_SEC 10.0

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
		msg.res = *res; /* the record stream and offsets go in */
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
	/* the step's samples and events go into the experiment's record */
	res.rec = e->rec;
	res.t_offset = clock_mono() - e->t0;
	res.cell = (int)i + 1;
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
	struct cpufreq *cf = cpufreq_open(r->sysfs, e->ncpu);
	record_start_head(fp, e->ncpu, r->interval);
	fprintf(fp, ",\"cpufreq\":");
	json_string(fp, cf ? cpufreq_residency_kind(cf) : "none");
	if (cf)
		cpufreq_close(cf);
	fprintf(fp, ",\"units\":\"%s\",\"workloads\":[", units_name(r->units));
	for (size_t i = 0; i < r->nwl; i++) {
		fprintf(fp, "%s{\"id\":%zu,\"kind\":\"%s\",\"spec\":", i ? "," : "", i + 1, cli_kind_name(r->wl[i].kind));
		json_string(fp, r->wl[i].text ? r->wl[i].text : cli_kind_name(r->wl[i].kind));
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
	json_number(fp, cr->user);
	fprintf(fp, ",\"sys\":");
	json_number(fp, cr->sys);
	fprintf(fp, ",\"elapsed\":");
	json_number(fp, cr->elapsed);
	fprintf(fp, ",\"hog\":");
	json_number(fp, num_div(cr->user + cr->sys, cr->elapsed));
	fprintf(fp, ",\"bytes\":%llu,\"bps\":", (unsigned long long)cr->bytes);
	json_number(fp, num_div((double)cr->bytes, cr->elapsed));
}

static void item_json(struct exp *e, FILE *fp, size_t i, bool record)
{
	const struct cell_result *cr = &e->res[i];
	fputc('{', fp);
	if (record) {
		fprintf(fp, "\"type\":\"%s\",\"t\":", e->matrix ? "cell" : "step");
		json_number(fp, clock_mono() - e->t0);
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
	json_number(fp, cr->calls ? cr->elapsed * 1e6 / (double)cr->calls : NAN);
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
	const char *kind = e->r->nwl ? cli_kind_name(e->r->wl[0].kind) : "run";
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
	json_number(fp, clock_mono() - e->t0);
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
	double rate = units_rate_value(u, num_div((double)cr->bytes, cr->elapsed));
	double us = cr->calls ? cr->elapsed * 1e6 / (double)cr->calls : 0;
	double hog = num_div(cr->user + cr->sys, cr->elapsed) * 100;
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
			double rate = units_rate_value(u, num_div((double)cr->bytes, cr->elapsed));
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
	*buf = s ? xstrdup(s) : NULL;
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
	e->res = xcalloc(e->n, sizeof *e->res);
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
	e->res = xcalloc(e->n ? e->n : 1, sizeof *e->res);
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
	e->wl = xcalloc(r->nwl, sizeof *e->wl);
	e->reuse = xcalloc(r->nwl, sizeof *e->reuse);
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
		e->t0 = clock_mono();
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

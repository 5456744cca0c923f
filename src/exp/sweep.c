/* sweep.c - sweeps, matrices and presets: one workload (or a preset's
 * runs) repeated as quiet batch runs (step.c), ending with one table
 * (studytable.h); presets that name a study hand over to study_copy.c. */
#include "benchtop/experiment.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchtop/cpufreq.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"
#include "exp_priv.h"

/* Sources a sweep or matrix makes, and writes without a size, are this
 * big unless --cell SIZE (or the workload's size) says otherwise. */
#define EXP_DEFAULT_SIZE (256 * MIB)
/* A matrix cell without --cell (and without -t) lasts this long. */
#define EXP_DEFAULT_CELL_SEC 10.0

static const char *const place_words[] = { "as-is", "pack", "free", "spread" };

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

int experiment_fit(const double *x, const double *y, size_t n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
		m++;
	}
	double d = (double)m * sxx - sx * sx;
	if (m < 2 || fabs(d) < 1e-12)
		return -EDOM;
	*b = ((double)m * sxy - sx * sy) / d;
	*a = (sy - *b * sx) / (double)m;
	return 0;
}

/* ---- the generic experiment ---------------------------------------------- */

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
	return p && !is_dir(p) ? p : NULL;
}

/* The file workload w reads, if any. */
static const char *read_file(const struct wl_spec *w)
{
	const char *p = w->kind == WL_COPY ? w->src : w->kind == WL_READ || w->kind == WL_SEEK ? w->path : NULL;
	return p && !is_dir(p) ? p : NULL;
}

/* One cell of a sweep or matrix. */
struct cell {
	uint64_t bs;
	size_t src;                  /* a sweep over read sources: the workload */
	enum placement place;
	const char *gov;
};

struct generic {
	struct exp e;
	struct wl_spec *wl;          /* per-step copies of r->wl */
	bool *reuse;                 /* wl i's result file is made by step 1 */
	char *src;                   /* the source made for every step, or NULL */
	struct cell *cells;
	size_t ncells;
	size_t nsrc;                 /* read sources compared (each step runs one), else 0 */
	bool evicted;                /* a file was evicted before a step */
	char *govbuf;
};

static void generic_run(struct generic *g, size_t i, struct run *c)
{
	const struct run *r = g->e.r;
	const struct cell *cl = &g->cells[i];
	exp_child_run(&g->e, g->wl, c);
	c->nwl = r->nwl;
	if (r->cell_sec > 0)
		c->duration = r->cell_sec;
	else if (r->matrix && !r->cell_bytes && r->duration <= 0)
		c->duration = EXP_DEFAULT_CELL_SEC;
	if (r->matrix) {
		if (cl->place != PLACE_NONE)
			c->placement = cl->place;
		c->governor = (char *)cl->gov;
	}
	for (size_t k = 0; k < r->nwl; k++) {
		struct wl_spec *w = &g->wl[k];
		*w = r->wl[g->nsrc ? cl->src : k];
		w->is_default = false;
		if (needs_source(w) && g->src)
			*(w->kind == WL_COPY ? &w->src : &w->path) = g->src;
		if (r->cell_bytes)
			w->size = r->cell_bytes;
		else if (w->kind == WL_WRITE && !w->size)
			w->size = EXP_DEFAULT_SIZE;
		if (!r->matrix && w->kind != WL_CMD && w->kind != WL_SEEK)
			w->bs = cl->bs;
		if (g->reuse[k] && i > 0)
			c->force = true;
	}
	if (g->nsrc)
		c->nwl = 1;   /* one source per step: the sources never share the machine */
}

/* Bytes the step's workloads read (writes read nothing). */
static uint64_t step_read(const struct run *r, const struct step_res *s)
{
	uint64_t n = 0;
	for (int k = 0; k < s->res.nwl && k < (int)r->nwl; k++)
		if (r->wl[k].kind != WL_WRITE && r->wl[k].kind != WL_NET)
			n += s->res.wl[k].bytes;
	return n;
}

static void evict_reads(struct generic *g, const struct run *c)
{
	bool any = false;
	for (size_t k = 0; k < c->nwl; k++) {
		const char *f = read_file(&c->wl[k]);
		if (f) {
			exp_evict(&g->e, f);
			any = true;
		}
	}
	g->evicted = g->evicted || any;
}

/* ---- tables of the generic experiment ---------------------------------- */

struct gcols {
	int bs, src, place, gov, calls, rate, us, delta, user, sys, elaps, hog, disk;
};

static void generic_table(struct generic *g, struct st_table *t, struct gcols *k)
{
	const struct run *r = g->e.r;
	char title[320], what[200];
	snprintf(what, sizeof what, "%s", r->wl[0].text ? r->wl[0].text : cli_kind_name(r->wl[0].kind));
	for (size_t i = 1; i < r->nwl && !r->matrix; i++)
		snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", i + 1 < r->nwl ? ", " : " and ",
		         r->wl[i].text ? r->wl[i].text : cli_kind_name(r->wl[i].kind));
	if (r->matrix)
		snprintf(title, sizeof title, "matrix placement=%s governor=%s of %s: %zu cells",
		         r->matrix_placement ? r->matrix_placement : "as-is",
		         r->matrix_governor ? r->matrix_governor : "as-is", what, g->ncells);
	else
		snprintf(title, sizeof title, "sweep %s of %s: %zu steps", r->sweep, what, g->ncells);
	st_init(t, r->matrix ? "matrix" : "sweep", title);
	memset(k, -1, sizeof *k);
	if (r->matrix) {
		k->place = st_col(t, NULL, "placement", 0);
		k->gov = st_col(t, NULL, "governor", 0);
		t->col[k->place].left = t->col[k->gov].left = true;
	} else {
		k->bs = st_col(t, NULL, "bs", 0);
		if (g->nsrc) {
			k->src = st_col(t, NULL, "source", 0);
			t->col[k->src].left = true;
		}
	}
	k->calls = st_col(t, NULL, "calls", 0);
	k->rate = st_col(t, NULL, units_rate_label(r->units), 1);
	k->us = st_col(t, NULL, "us/call", 2);
	if (g->nsrc)
		k->delta = st_col(t, NULL, "delta us/call", 3);
	k->user = st_col(t, NULL, "user", 2);
	k->sys = st_col(t, NULL, "sys", 2);
	k->elaps = st_col(t, NULL, "elaps", 2);
	k->hog = st_col(t, NULL, "hog", 0);
	t->col[k->hog].share = true;
	k->disk = st_col(t, NULL, "from disk", 0);
	t->col[k->disk].share = true;
	if (r->matrix) {
		snprintf(t->chart.kind, sizeof t->chart.kind, "heatmap");
		t->chart.x = k->gov, t->chart.y[0] = k->place, t->chart.z = k->rate, t->chart.ny = 1;
	} else {
		snprintf(t->chart.kind, sizeof t->chart.kind, "logx");
		t->chart.x = k->bs, t->chart.y[0] = k->us, t->chart.ny = 1;
	}
}

/* A workload reads a device (/dev/urandom): from disk does not apply. */
static bool reads_device(const struct run *r)
{
	struct stat st;
	for (size_t k = 0; k < r->nwl; k++) {
		const char *f = read_file(&r->wl[k]);
		if (f && stat(f, &st) == 0 && !S_ISREG(st.st_mode))
			return true;
	}
	return false;
}

/* What a source is called in its rows: the file it reads. */
static const char *source_name(const struct generic *g, size_t src)
{
	const struct wl_spec *w = &g->e.r->wl[src];
	return w->path && !is_dir(w->path) ? w->path : g->src ? g->src : "?";
}

static void generic_row(struct generic *g, struct st_table *t, const struct gcols *k, size_t i,
                        const struct step_res *s)
{
	const struct run *r = g->e.r;
	const struct cell *cl = &g->cells[i];
	struct st_row *row = st_row(t);
	if (!row)
		return;
	if (r->matrix) {
		st_word(row, k->place, "%s", place_words[cl->place]);
		st_word(row, k->gov, "%s", cl->gov ? cl->gov : "as-is");
	} else {
		st_num(row, k->bs, (double)cl->bs);
	}
	if (g->nsrc)
		st_word(row, k->src, "%s", source_name(g, cl->src));
	st_num(row, k->calls, (double)s->calls);
	st_num(row, k->rate, units_rate_value(r->units, r->matrix ? exp_rate(s, s->bytes) : exp_io_rate(s, s->bytes)));
	st_num(row, k->us, exp_us_per_call(s));
	/* the per-block difference from the first source at the same bs:
	 * (t_B - t_A) / N, each over its calls only */
	if (g->nsrc && cl->src > 0 && i >= cl->src) {
		const struct st_row *first = &t->rows[t->nrows - 1 - (int)cl->src];
		if (first->cell[k->us].type == ST_NUM && row->cell[k->us].type == ST_NUM)
			st_num(row, k->delta, row->cell[k->us].v - first->cell[k->us].v);
	}
	st_num(row, k->user, s->user);
	st_num(row, k->sys, s->sys);
	st_num(row, k->elaps, s->elapsed);
	st_num(row, k->hog, exp_hog(s));
	exp_disk_cell(row, k->disk, reads_device(r) ? NAN : exp_from_disk(&g->e, s, step_read(r, s)));
	if (s->status == 1)
		snprintf(row->note, sizeof row->note, "failed");
	else if (s->status >= 2)
		snprintf(row->note, sizeof row->note, "refused (exit %d)", s->status);
}

/* The sweep's fitted cost: us per call = a + b * KiB, per source. */
static void fit_note(const struct generic *g, struct st_table *t, const struct gcols *k)
{
	size_t nsrc = g->nsrc ? g->nsrc : 1;
	for (size_t src = 0; src < nsrc; src++) {
		double x[EXP_MAX_STEPS], y[EXP_MAX_STEPS], a, b;
		size_t n = 0;
		for (int i = (int)src; i < t->nrows && n < EXP_MAX_STEPS; i += (int)nsrc) {
			x[n] = t->rows[i].cell[k->bs].v / 1024;
			y[n++] = t->rows[i].cell[k->us].type == ST_NUM ? t->rows[i].cell[k->us].v : NAN;
		}
		if (experiment_fit(x, y, n, &a, &b) == 0)
			st_note(t, "fit%s%s (least squares over %zu steps, each over its calls only): us/call = %.3f + "
			        "%.4f x KiB: a fixed cost of %.3f us per call and %.4f us per KiB", g->nsrc ? " of " : "",
			        g->nsrc ? source_name(g, src) : "", n, a, b, a, b);
	}
	if (g->nsrc)
		st_note(t, "delta us/call: a source's us/call minus %s's at the same bs, the cost per block between "
		        "the sources ((t_B - t_A) / N); the sources run one after the other, never at once",
		        source_name(g, 0));
}

/* ---- the matrix axes ------------------------------------------------------ */

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

int experiment_check_governors(const char *sysfs, int ncpu, const char *what, char **gov, size_t ngov)
{
	struct cpufreq *cf = ngov ? cpufreq_open(sysfs, ncpu) : NULL;
	int np = cf ? cpufreq_npolicies(cf) : 0, status = 0;
	if (ngov && np == 0) {
		const char *why = cf ? cpufreq_unavailable_reason(cf) : NULL;
		fprintf(stderr, "benchtop: %s: no governors here: no cpufreq policies under %s%s%s%s; "
		        "vary placement only, e.g. --matrix placement=pack,free,spread\n",
		        what, sysfs, why ? " (" : "", why ? why : "", why ? ")" : "");
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

static int plan_matrix(struct generic *g)
{
	const struct run *r = g->e.r;
	char *pbuf, *pw[8], *gw[32];
	size_t np = split_list(r->matrix_placement, &pbuf, pw, 8);
	size_t ng = split_list(r->matrix_governor, &g->govbuf, gw, 32);
	char what[300];
	snprintf(what, sizeof what, "--matrix governor=%s", r->matrix_governor ? r->matrix_governor : "");
	int status = experiment_check_governors(r->sysfs, g->e.ncpu, what, gw, ng);
	size_t nplace = np ? np : 1, ngov = ng ? ng : 1;
	g->ncells = nplace * ngov;
	g->cells = xcalloc(g->ncells, sizeof *g->cells);
	for (size_t p = 0; p < nplace; p++)
		for (size_t k = 0; k < ngov; k++) {
			struct cell *c = &g->cells[p * ngov + k];
			c->place = np ? place_of(pw[p]) : r->placement;
			c->gov = ng ? gw[k] : r->governor;
		}
	free(pbuf);
	return status;
}

static int plan_sweep(struct generic *g)
{
	uint64_t bs[EXP_MAX_STEPS];
	size_t nbs = experiment_steps(g->e.r->sweep_from, g->e.r->sweep_to, bs, EXP_MAX_STEPS);
	size_t per = g->e.r->nwl > 1 ? g->e.r->nwl : 1;
	g->nsrc = per > 1 ? per : 0;
	g->ncells = nbs * per;
	g->cells = xcalloc(g->ncells ? g->ncells : 1, sizeof *g->cells);
	for (size_t i = 0; i < g->ncells; i++) {
		g->cells[i].bs = bs[i / per];
		g->cells[i].src = i % per;
	}
	return 0;
}

/* ---- one sweep or matrix --------------------------------------------------- */

/* The directory a made source goes in: the one a read or seek names. */
static const char *source_dir(const struct run *r)
{
	for (size_t i = 0; i < r->nwl; i++)
		if (needs_source(&r->wl[i]) && r->wl[i].kind != WL_COPY && r->wl[i].path)
			return r->wl[i].path;
	return NULL;
}

static uint64_t source_size(const struct run *r)
{
	if (r->cell_bytes)
		return r->cell_bytes;
	for (size_t i = 0; i < r->nwl; i++)
		if (needs_source(&r->wl[i]) && r->wl[i].size)
			return r->wl[i].size;
	return EXP_DEFAULT_SIZE;
}

static int generic_prepare(struct generic *g, struct run *r)
{
	if (r->nwl == 0 || r->nwl > APP_RESULT_MAX) {
		fprintf(stderr, "benchtop: %s needs 1 to %d workloads, not %zu\n", r->matrix ? "--matrix" : "--sweep",
		        APP_RESULT_MAX, r->nwl);
		return 2;
	}
	int status = exp_begin(&g->e, r, r->matrix ? "matrix" : "sweep", source_dir(r));
	if (status)
		return status;
	status = r->matrix ? plan_matrix(g) : plan_sweep(g);
	if (status)
		return status;
	g->wl = xcalloc(r->nwl, sizeof *g->wl);
	g->reuse = xcalloc(r->nwl, sizeof *g->reuse);
	bool source = false;
	for (size_t k = 0; k < r->nwl; k++) {
		const char *f = result_file(&r->wl[k]);
		g->reuse[k] = f && access(f, F_OK) != 0;
		source = source || needs_source(&r->wl[k]);
	}
	return source ? exp_source(&g->e, source_size(r), &g->src) : 0;
}

static void describe_source(struct generic *g, struct st_table *t)
{
	struct stat st;
	/* only what was done is said: a command or a write reads no file
	 * benchtop knows of, and nothing was evicted for it */
	const char *how = g->evicted ? g->e.cache_how : "nothing evicted: no step reads a file benchtop knows of";
	if (g->src && stat(g->src, &st) == 0)
		st_note(t, "source: %s, %.1f MiB, made once for every step; %s", g->src, (double)st.st_size / MIB, how);
	else
		st_note(t, "%s", how);
}

static int run_generic(struct run *r)
{
	struct generic gen = { 0 };
	struct generic *g = &gen;
	struct st_table t;
	struct gcols k;
	int status = generic_prepare(g, r);
	if (!status) {
		generic_table(g, &t, &k);
		for (size_t i = 0; i < g->ncells; i++) {
			struct run c;
			char name[200];
			struct step_cell cell = { 0 };
			generic_run(g, i, &c);
			evict_reads(g, &c);
			if (r->matrix) {
				snprintf(name, sizeof name, "%s placement=%s governor=%s", cli_kind_name(r->wl[0].kind),
				         place_words[g->cells[i].place], g->cells[i].gov ? g->cells[i].gov : "as-is");
				cell.placement = place_words[g->cells[i].place];
				cell.governor = g->cells[i].gov;
			} else {
				snprintf(name, sizeof name, "%s bs=%llu%s%s", cli_kind_name(r->wl[0].kind),
				         (unsigned long long)g->cells[i].bs, g->nsrc ? " path=" : "",
				         g->nsrc ? source_name(g, g->cells[i].src) : "");
				cell.bs = g->cells[i].bs;
			}
			struct step_res *s = exp_step(&g->e, &c, name, &cell);
			generic_row(g, &t, &k, i, s);
			if (s->status > status)
				status = s->status;
			if (s->status >= 2 || g->e.stop)
				break;   /* the machine refused: later steps would too */
		}
		if (!r->matrix)
			fit_note(g, &t, &k);
		describe_source(g, &t);
		exp_end(&g->e, &t);
		st_free(&t);
	}
	int rc = exp_close(&g->e);
	if (rc > status)
		status = rc;
	free(g->src);
	free(g->wl);
	free(g->reuse);
	free(g->cells);
	free(g->govbuf);
	return status;
}

/* ---- presets ------------------------------------------------------------- */

/* A preset run that is neither sweep nor matrix: --cell sets its length. */
static void apply_cell(struct run *m)
{
	if (m->cell_sec > 0 && m->duration <= 0)
		m->duration = m->cell_sec;
	for (size_t k = 0; m->cell_bytes && k < m->nwl; k++)
		if (!m->wl[k].size)
			m->wl[k].size = m->cell_bytes;
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

static void announce(const struct preset *p, const char *name, const struct run *m)
{
	FILE *fp = m->format != FMT_TEXT ? stderr : stdout;
	char desc[1024];
	if (p->description) {
		/* a study's file is --cell SIZE's, and the banner says so */
		study_banner(p->description, p->study ? m->cell_bytes : 0, desc, sizeof desc);
		fprintf(fp, "preset %s: %s\n\n", name, desc);
	}
	fflush(fp);
}

/* Every run of preset p merged with the user's command line; 0 or 2. */
static int merge_all(const struct preset *p, const char *name, int argc, char **argv, struct run *m)
{
	char err[CLI_ERR_MAX + 1024];
	int n = p->nruns ? p->nruns : 1;
	for (int k = 0; k < n; k++) {
		if (preset_merge(p, k, name, argc, argv, &m[k], err, sizeof err)) {
			fprintf(stderr, "benchtop: preset %s: %s\n", name, err);
			while (k-- > 0)
				cli_free(&m[k]);
			return 2;
		}
		if (p->nruns > 1 && (m[k].sweep || m[k].matrix)) {
			fprintf(stderr, "benchtop: preset %s: run %d has %s: a preset with several args lines runs each "
			        "as one step of its table; give the %s a preset of its own\n", name, k + 1,
			        m[k].sweep ? "--sweep" : "--matrix", m[k].sweep ? "sweep" : "matrix");
			for (; k >= 0; k--)
				cli_free(&m[k]);
			return 2;
		}
	}
	return 0;
}

/* The run's workloads, as the table's test column names them. */
static void run_name(const struct run *m, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < m->nwl && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " + " : "",
		                         m->wl[i].text ? m->wl[i].text : cli_kind_name(m->wl[i].kind));
}

/* Several args lines: each one step, one row of the SPEC section 5 table
 * with from disk. */
static int run_sequence(struct run *user, const char *name, struct run *m, int n)
{
	struct exp ex;
	struct st_table t;
	char title[300], test[160];
	int status = exp_begin(&ex, user, "preset", NULL);
	if (status)
		return status;
	snprintf(title, sizeof title, "preset %s: %d runs", name, n);
	st_init(&t, "preset", title);
	int cu = st_col(&t, NULL, "user", 2), cs = st_col(&t, NULL, "sys", 2), ce = st_col(&t, NULL, "elaps", 2);
	int ch = st_col(&t, NULL, "hog", 0), cr = st_col(&t, NULL, units_rate_label(user->units), 1);
	int cd = st_col(&t, NULL, "from disk", 0), ct = st_col(&t, NULL, "test", 0);
	t.col[ch].share = t.col[cd].share = t.col[ct].left = true;
	snprintf(t.chart.kind, sizeof t.chart.kind, "bars");
	t.chart.x = ct, t.chart.y[0] = cr, t.chart.ny = 1;
	for (int k = 0; k < n && !ex.stop; k++) {
		if (m[k].nwl == 0 && default_workload(&m[k])) {
			status = 1;
			break;
		}
		apply_cell(&m[k]);
		struct run c = m[k];
		c.batch = true;
		c.record = NULL;
		c.preset = NULL;
		run_name(&m[k], test, sizeof test);
		struct step_res *s = exp_step(&ex, &c, test, NULL);
		struct st_row *row = st_row(&t);
		if (row) {
			st_num(row, cu, s->user);
			st_num(row, cs, s->sys);
			st_num(row, ce, s->elapsed);
			st_num(row, ch, exp_hog(s));
			st_num(row, cr, units_rate_value(user->units, exp_rate(s, s->bytes)));
			exp_disk_cell(row, cd, exp_from_disk(&ex, s, step_read(&m[k], s)));
			st_word(row, ct, "%s", test);
			if (s->status)
				snprintf(row->note, sizeof row->note, s->status == 1 ? "failed" : "refused");
		}
		if (s->status > status)
			status = s->status;
	}
	exp_end(&ex, &t);
	st_free(&t);
	int rc = exp_close(&ex);
	return rc > status ? rc : status;
}

static int run_study(struct run *m, const char *name, const char *study)
{
	struct exp ex;
	struct st_table t;
	const char *dir = NULL;
	char buf[PATH_MAX];
	/* -w ...:path=DIR (or a regular file in it, or one to be made) names
	 * the disk under test; a device (/dev/urandom) names none: the
	 * scratch never goes to /dev */
	for (size_t i = 0; i < m->nwl && !dir; i++) {
		const char *p = m->wl[i].path ? m->wl[i].path : m->wl[i].dst;
		struct stat st;
		bool file = p && (stat(p, &st) != 0 || S_ISREG(st.st_mode));
		if (p && is_dir(p))
			dir = p;
		else if (file && strrchr(p, '/')) {
			snprintf(buf, sizeof buf, "%.*s", (int)(strrchr(p, '/') - p), p);
			dir = buf[0] ? buf : "/";
		}
	}
	int status = exp_begin(&ex, m, study, dir);
	if (status)
		return status;
	(void)name;
	memset(&t, 0, sizeof t);
	status = study_run(&ex, study, &t);
	if (status < 2 || t.nrows)
		exp_end(&ex, &t);
	st_free(&t);
	int rc = exp_close(&ex);
	return rc > status ? rc : status;
}

static int run_preset(struct run *r, int argc, char **argv)
{
	struct preset p;
	struct run m[PRESET_MAX_RUNS];
	char err[CLI_ERR_MAX + 1024];
	int status;
	if (preset_load(r->preset, &p, err, sizeof err)) {
		fprintf(stderr, "benchtop: %s\n", err);
		return 2;
	}
	if (p.study && !study_known(p.study)) {
		fprintf(stderr, "benchtop: preset %s: unknown study \"%s\": use copytools, rsync-demo, bonnie, aligntest, "
		        "blocksize or netwrite\n", r->preset, p.study);
		preset_free(&p);
		return 2;
	}
	if (r->format == FMT_BONNIE && (!p.study || strcmp(p.study, "bonnie"))) {
		fprintf(stderr, "benchtop: --format bonnie prints bonnie++'s CSV line of the bonnie study, not of preset %s: "
		        "use --preset bonnie, or --format text, csv or json\n", r->preset);
		preset_free(&p);
		return 2;
	}
	int n = p.nruns ? p.nruns : 1;
	if ((status = merge_all(&p, r->preset, argc, argv, m))) {
		preset_free(&p);
		return status;
	}
	announce(&p, r->preset, &m[0]);
	if (p.study)
		status = run_study(&m[0], r->preset, p.study);
	else if (n > 1)
		status = run_sequence(r, r->preset, m, n);
	else if (m[0].sweep || m[0].matrix)
		status = run_generic(&m[0]);
	else if (m[0].nwl == 0 && default_workload(&m[0]))
		status = 1;
	else {
		apply_cell(&m[0]);
		status = app_main(&m[0]);
	}
	for (int k = 0; k < n; k++)
		cli_free(&m[k]);
	preset_free(&p);
	return status;
}

int experiment_main(struct run *r, int argc, char **argv)
{
	setlocale(LC_NUMERIC, "C");
	if (r->preset && !strcmp(r->preset, "list"))
		return preset_list(stdout) > 0 ? 0 : 3;
	if (r->preset)
		return run_preset(r, argc, argv);
	if (r->sweep || r->matrix)
		return run_generic(r);
	return app_main(r);
}

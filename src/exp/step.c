/* step.c - running an experiment's steps: each a quiet batch run through
 * the one driver, app_run, one after another in this process (a stop
 * signal ends the step, then the whole experiment), with the
 * device's reads measured around it, files evicted from the page cache
 * before reads, and the one table written at the end. */
#include "exp_priv.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/affinity.h"
#include "benchtop/clock.h"
#include "benchtop/cpufreq.h"
#include "benchtop/engine.h"
#include "benchtop/json.h"
#include "benchtop/num.h"
#include "benchtop/pagecache.h"
#include "benchtop/proc.h"
#include "benchtop/units.h"
#include "benchtop/journal.h"
#include "benchtop/xalloc.h"

/* ---- the start ----------------------------------------------------------- */

static int open_record(struct exp *e)
{
	const char *path = e->r->record;
	char msg[512];
	if (!path)
		return 0;
	unsigned fl = OUTFILE_STREAM | (e->r->force ? OUTFILE_FORCE : 0);
	if (outstream_open(&e->recs, "-o", path, fl, msg, sizeof msg) ||
	    outstream_publish(&e->recs, fl, msg, sizeof msg)) {
		fprintf(stderr, "benchtop: %s\n", msg);
		outstream_discard(&e->recs);
		return 3;
	}
	e->rec = e->recs.fp;
	return 0;
}

/* After each line of the record: a failure is said once and the record
 * ends there; the experiment goes on. */
static void check_record(struct exp *e)
{
	if (e->rec && outstream_check(&e->recs))
		e->rec = NULL;
}

static void start_record(struct exp *e, FILE *fp)
{
	const struct run *r = e->r;
	struct cpufreq *cf = cpufreq_open(r->sysfs, e->ncpu);
	struct jw w;
	jw_begin(&w, fp);
	record_start_head(&w, e->ncpu, r->interval, r, e->dir);
	jw_str(&w, "cpufreq", cf ? cpufreq_residency_kind(cf) : "none");
	enum freq_source fs = cf ? cpufreq_source(cf) : FREQ_NONE;
	jw_str(&w, "freq_source", fs == FREQ_NONE ? "none" : cpufreq_source_name(fs));
	if (cf)
		cpufreq_close(cf);
	jw_str(&w, "units", units_name(r->units));
	jw_arr(&w, "workloads");
	for (size_t i = 0; i < r->nwl; i++) {
		jw_obj(&w, NULL);
		jw_uint(&w, "id", i + 1);
		jw_str(&w, "kind", cli_kind_name(r->wl[i].kind));
		jw_str(&w, "spec", r->wl[i].text ? r->wl[i].text : cli_kind_name(r->wl[i].kind));
		jw_end(&w);
	}
	jw_end(&w);
	/* the run's labels; one it does not have is null */
	jw_str(&w, "experiment", e->kind ? e->kind : "");
	jw_nstr(&w, "sweep", r->sweep);
	jw_obj(&w, "matrix");
	jw_nstr(&w, "placement", r->matrix_placement);
	jw_nstr(&w, "governor", r->matrix_governor);
	jw_end(&w);
	jw_nstr(&w, "cell", r->cell);
	jw_nstr(&w, "preset", r->preset);
	jw_nstr(&w, "dir", e->dir);
	jw_nstr(&w, "disk", e->disk[0] ? e->disk : NULL);
	jw_nstr(&w, "cache", e->cache_how);
	jw_end(&w);
	fputc('\n', fp);
	fflush(fp);
}

int exp_begin(struct exp *e, struct run *r, const char *kind, const char *dir)
{
	const char *tmp = getenv("TMPDIR");
	memset(e, 0, sizeof *e);
	e->r = r;
	e->kind = kind;
	e->out = stdout;
	e->json = r->format == FMT_JSON;
	e->ncpu = affinity_ncpu();
	if (e->ncpu < 1)
		e->ncpu = 1;
	snprintf(e->dir, sizeof e->dir, "%s", dir && *dir ? dir : tmp && *tmp ? tmp : "/var/tmp");
	int rc = pagecache_disk_of(e->dir, e->disk, sizeof e->disk, e->nodisk, sizeof e->nodisk);
	if (rc) {
		e->disk[0] = 0;
		if (!e->nodisk[0])
			snprintf(e->nodisk, sizeof e->nodisk, "%s", strerror(-rc));
	}
	e->drop = r->drop_caches && pagecache_can_drop();
	if (r->drop_caches && !e->drop) {
		fprintf(stderr, "benchtop: --drop-caches: cannot write /proc/sys/vm/drop_caches (run as root)\n");
		return 3;
	}
	snprintf(e->cache_how, sizeof e->cache_how, "%s",
	         e->drop ? "sync + drop_caches before each read"
	                 : "the file evicted before each read (fsync + posix_fadvise DONTNEED)");
	if ((rc = open_record(e)))
		return rc;
	e->t0 = clock_mono();
	if (e->rec)
		start_record(e, e->rec);
	check_record(e);
	if (e->json)
		start_record(e, e->out);
	return 0;
}

int exp_scratch(struct exp *e)
{
	if (e->scratch)
		return 0;
	e->scratch = xmalloc(strlen(e->dir) + 32);
	sprintf(e->scratch, "%s/benchtop-exp.XXXXXX", e->dir);
	if (!mkdtemp(e->scratch)) {
		fprintf(stderr, "benchtop: making a scratch directory %s: %s (set TMPDIR to a writable directory)\n",
		        e->scratch, strerror(errno));
		free(e->scratch);
		e->scratch = NULL;
		return 3;
	}
	if (!e->r->keep)
		journal_note_scratch(e->scratch);  /* --restore removes a killed run's */
	return 0;
}

int exp_source(struct exp *e, uint64_t size, char **path)
{
	char msg[512];
	*path = NULL;
	if (exp_scratch(e))
		return 3;
	if (engine_make_source(e->scratch, size, path, msg, sizeof msg)) {
		fprintf(stderr, "benchtop: %s\n", msg);
		return 3;
	}
	return 0;
}

void exp_evict(struct exp *e, const char *path)
{
	if (e->drop)
		pagecache_drop_all();
	else if (path)
		pagecache_evict(path);
}

/* ---- one step ------------------------------------------------------------ */

void exp_child_run(const struct exp *e, const struct wl_spec *w, struct run *c)
{
	*c = *e->r;
	c->wl = (struct wl_spec *)w;
	c->nwl = 1;
	c->batch = true;
	c->record = NULL;
	c->sweep = NULL;
	c->matrix = false;
	c->matrix_placement = c->matrix_governor = NULL;
	c->cell = NULL;
	c->cell_sec = 0;
	c->cell_bytes = 0;
	c->preset = NULL;
	c->drop_caches = false;   /* the experiment prepares its reads itself */
	c->loop = false;
}

static void totals_json(struct jw *w, const struct step_res *s)
{
	jw_num(w, "user", s->user);
	jw_num(w, "sys", s->sys);
	jw_num(w, "elapsed", s->elapsed);
	jw_num(w, "hog", exp_hog(s));
	jw_uint(w, "bytes", s->bytes);
	jw_num(w, "bps", exp_rate(s, s->bytes));
}

static void step_json(struct exp *e, FILE *fp, const struct step_res *s, const struct step_cell *cell)
{
	struct jw w;
	jw_begin(&w, fp);
	jw_obj(&w, NULL);
	jw_str(&w, "type", "step");
	jw_num(&w, "t", clock_mono() - e->t0);
	jw_uint(&w, "step", e->nsteps);
	jw_str(&w, "test", s->name);
	totals_json(&w, s);
	jw_uint(&w, "calls", s->calls);
	if (s->disk_known)
		jw_uint(&w, "disk_read", s->disk_read);
	else
		jw_null(&w, "disk_read");
	jw_int(&w, "status", s->status);
	if (cell && cell->placement) {
		jw_str(&w, "placement", cell->placement);
		jw_str(&w, "governor", cell->governor ? cell->governor : "as-is");
	}
	if (cell && cell->bs)
		jw_uint(&w, "bs", cell->bs);
	jw_end(&w);
	fputc('\n', fp);
	fflush(fp);
}

struct step_res *exp_step(struct exp *e, struct run *c, const char *name, const struct step_cell *cell)
{
	if (e->nsteps == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 16;
		e->steps = xrealloc(e->steps, e->cap * sizeof *e->steps);
	}
	struct step_res *s = &e->steps[e->nsteps++];
	uint64_t d0 = 0, d1 = 0;
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	if (isatty(2) && !e->json)
		fprintf(stderr, "benchtop: %s: step %zu: %s\n", e->kind, e->nsteps, name);
	/* the step's own reads: benchtop's, with those of every process it
	 * reaped (the step reaps all of its workloads' before it returns), so
	 * other processes' reads never count */
	bool known = e->disk[0] && proc_read_bytes(getpid(), &d0) == 0;
	/* the step's samples and events go into the experiment's record */
	s->res.rec = e->rec;
	s->res.t_offset = clock_mono() - e->t0;
	s->res.cell = (int)e->nsteps;
	s->from = s->res.t_offset;
	/* one run through the one driver, in this process: a signal that ends
	 * a run ends the step (workloads stopped, governors restored) and,
	 * after it, the experiment */
	s->status = app_run(c, &s->res);
	if (s->res.quit_signal)
		e->stop = s->res.quit_signal;
	s->to = clock_mono() - e->t0;
	check_record(e);
	s->disk_known = known && proc_read_bytes(getpid(), &d1) == 0 && d1 >= d0;
	s->disk_read = s->disk_known ? d1 - d0 : 0;
	for (int k = 0; k < s->res.nwl && k < APP_RESULT_MAX; k++) {
		s->user += s->res.wl[k].user;
		s->sys += s->res.wl[k].sys;
		s->bytes += s->res.wl[k].bytes;
		s->calls += s->res.wl[k].calls;
		if (s->res.wl[k].elapsed > s->elapsed)
			s->elapsed = s->res.wl[k].elapsed;
		if (s->res.wl[k].io_elapsed > s->io_elapsed)
			s->io_elapsed = s->res.wl[k].io_elapsed;
	}
	if (e->rec)
		step_json(e, e->rec, s, cell);
	check_record(e);
	if (e->json)
		step_json(e, e->out, s, cell);
	return s;
}

/* ---- figures ------------------------------------------------------------- */

double exp_hog(const struct step_res *s)
{
	return num_div(s->user + s->sys, s->elapsed);
}

double exp_rate(const struct step_res *s, uint64_t bytes)
{
	return num_div((double)bytes, s->elapsed);
}

double exp_us_per_call(const struct step_res *s)
{
	double t = s->io_elapsed > 0 ? s->io_elapsed : s->elapsed;
	return s->calls ? t * 1e6 / (double)s->calls : NAN;
}

double exp_io_rate(const struct step_res *s, uint64_t bytes)
{
	return num_div((double)bytes, s->io_elapsed > 0 ? s->io_elapsed : s->elapsed);
}

double exp_from_disk(const struct exp *e, const struct step_res *s, uint64_t test_read)
{
	(void)e;
	if (!s->disk_known || test_read == 0)
		return NAN;
	/* the test's own reads; a read-ahead past what it asked for is not
	 * more than all of it */
	double share = (double)s->disk_read / (double)test_read;
	return share > 1 ? 1 : share;
}

void exp_disk_cell(struct st_row *r, int col, double share)
{
	/* the kernel's read_bytes also counts readahead past what the test
	 * asked for: of the bytes the test read, at most all came from disk */
	if (isfinite(share) && share > 1)
		share = 1;
	st_num(r, col, share);
	if (col >= 0 && isfinite(share) && share < 0.5)
		r->cell[col].cached = true;
}

bool exp_which(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path && *path ? path : "/usr/bin:/bin"), *save = NULL;
	bool found = false;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/%s", *d ? d : ".", prog);
		found = access(buf, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* ---- the end ------------------------------------------------------------- */

/* A step as a phase of the end record: its cell's stretch, its figures,
 * its residency per CPU and their mean frequency (as a run's phases). */
static void phase_json(struct jw *w, const struct step_res *s, size_t i)
{
	const struct app_result *r = &s->res;
	double ks = 0, secs = 0;
	char key[24];
	jw_obj(w, NULL);
	jw_num(w, "from", s->from);
	jw_num(w, "to", s->to);
	jw_str(w, "label", s->name);
	jw_uint(w, "cell", i + 1);
	totals_json(w, s);
	jw_obj(w, "residency");
	for (int c = 0; c < r->ncpu_res; c++) {
		snprintf(key, sizeof key, "%d", c);
		jw_obj(w, key);
		for (int k = 0; k < r->nfreq[c]; k++) {
			snprintf(key, sizeof key, "%ld", r->khz[c][k]);
			jw_num(w, key, r->secs[c][k]);
			ks += (double)r->khz[c][k] * r->secs[c][k];
			secs += r->secs[c][k];
		}
		jw_end(w);
	}
	jw_end(w);
	jw_fix(w, "mean_khz", secs > 0 ? ks / secs : NAN, 0);
	jw_end(w);
}

static void end_record(struct exp *e, FILE *fp, const struct st_table *t)
{
	struct jw w;
	jw_begin(&w, fp);
	jw_obj(&w, NULL);
	jw_str(&w, "type", "end");
	jw_num(&w, "t", clock_mono() - e->t0);
	jw_arr(&w, "summary");
	for (size_t i = 0; i < e->nsteps; i++) {
		jw_obj(&w, NULL);
		jw_str(&w, "test", e->steps[i].name);
		totals_json(&w, &e->steps[i]);
		jw_end(&w);
	}
	jw_end(&w);
	/* the policies as the experiment leaves them (each step restores
	 * what it changed), as a run's end record has them */
	struct cpufreq *cf = cpufreq_open(e->r->sysfs, e->ncpu);
	if (cf) {
		cpufreq_policies_json(cf, &w, "policies");
		cpufreq_close(cf);
	} else {
		jw_arr(&w, "policies");
		jw_end(&w);
	}
	jw_arr(&w, "phases");
	for (size_t i = 0; i < e->nsteps; i++)
		phase_json(&w, &e->steps[i], i);
	jw_end(&w);
	st_json(t, &w, "experiment");
	jw_end(&w);
	fputc('\n', fp);
	fflush(fp);
}

/* Has the study said what its "from disk" column means already? */
static bool says_from_disk(const struct st_table *t)
{
	for (int i = 0; i < t->nnotes; i++)
		if (!strncmp(t->notes[i], "from disk:", 10))
			return true;
	return false;
}

void exp_end(struct exp *e, struct st_table *t)
{
	if (!e->disk[0])
		st_note(t, "from disk unknown: no block device under %s (%s)", e->dir, e->nodisk);
	else if (!says_from_disk(t))
		st_note(t, "from disk: what the test's own processes read from %s (read_bytes of /proc/PID/io, theirs "
		        "only) over the bytes the test read", e->disk);
	if (e->stop)
		st_note(t, "stopped by %s after %zu steps", strsignal(e->stop), e->nsteps);
	if (e->rec)
		end_record(e, e->rec, t);
	if (e->json)
		end_record(e, e->out, t);
	else if (e->r->format == FMT_BONNIE)
		bonnie_csv(e, t, e->out);
	else if (e->r->format == FMT_CSV)
		st_print_csv(t, e->out);
	else
		st_print_text(t, e->out);
	if (e->stop)
		fprintf(stderr, "benchtop: stopped by %s after %zu steps\n", strsignal(e->stop), e->nsteps);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

int exp_close(struct exp *e)
{
	e->rec = NULL;
	int rc = e->recs.of.path ? outstream_close(&e->recs) : e->recs.err;
	if (e->scratch) {
		if (e->r->keep)
			fprintf(stderr, "benchtop: kept the experiment's files in %s\n", e->scratch);
		else {  /* only benchtop's own directory, made with mkdtemp */
			nftw(e->scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
			journal_forget_scratch(e->scratch);
		}
		free(e->scratch);
		e->scratch = NULL;
	}
	free(e->steps);
	e->steps = NULL;
	return rc ? 3 : 0;
}

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

static void jstr_or_null(FILE *fp, const char *s)
{
	if (s)
		json_string(fp, s);
	else
		fputs("null", fp);
}

static void start_record(struct exp *e, FILE *fp)
{
	const struct run *r = e->r;
	struct cpufreq *cf = cpufreq_open(r->sysfs, e->ncpu);
	record_start_head(fp, e->ncpu, r->interval, r, e->dir);
	fprintf(fp, ",\"cpufreq\":");
	json_string(fp, cf ? cpufreq_residency_kind(cf) : "none");
	enum freq_source fs = cf ? cpufreq_source(cf) : FREQ_NONE;
	fprintf(fp, ",\"freq_source\":");
	json_string(fp, fs == FREQ_NONE ? "none" : cpufreq_source_name(fs));
	if (cf)
		cpufreq_close(cf);
	fprintf(fp, ",\"units\":\"%s\",\"workloads\":[", units_name(r->units));
	for (size_t i = 0; i < r->nwl; i++) {
		fprintf(fp, "%s{\"id\":%zu,\"kind\":\"%s\",\"spec\":", i ? "," : "", i + 1, cli_kind_name(r->wl[i].kind));
		json_string(fp, r->wl[i].text ? r->wl[i].text : cli_kind_name(r->wl[i].kind));
		fputc('}', fp);
	}
	/* the run's labels; one it does not have is null */
	const struct { const char *pre, *val; } f[] = {
		{ "],\"experiment\":", e->kind ? e->kind : "" },
		{ ",\"sweep\":", r->sweep },
		{ ",\"matrix\":{\"placement\":", r->matrix_placement },
		{ ",\"governor\":", r->matrix_governor },
		{ "},\"cell\":", r->cell },
		{ ",\"preset\":", r->preset },
		{ ",\"dir\":", e->dir },
		{ ",\"disk\":", e->disk[0] ? e->disk : NULL },
		{ ",\"cache\":", e->cache_how },
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		fputs(f[i].pre, fp);
		jstr_or_null(fp, f[i].val);
	}
	fprintf(fp, "}\n");
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

static void totals_json(FILE *fp, const struct step_res *s)
{
	fprintf(fp, "\"user\":");
	json_number(fp, s->user);
	fprintf(fp, ",\"sys\":");
	json_number(fp, s->sys);
	fprintf(fp, ",\"elapsed\":");
	json_number(fp, s->elapsed);
	fprintf(fp, ",\"hog\":");
	json_number(fp, exp_hog(s));
	fprintf(fp, ",\"bytes\":%llu,\"bps\":", (unsigned long long)s->bytes);
	json_number(fp, exp_rate(s, s->bytes));
}

static void step_json(struct exp *e, FILE *fp, const struct step_res *s, const char *extra)
{
	fprintf(fp, "{\"type\":\"step\",\"t\":");
	json_number(fp, clock_mono() - e->t0);
	fprintf(fp, ",\"step\":%zu,\"test\":", e->nsteps);
	json_string(fp, s->name);
	fputc(',', fp);
	totals_json(fp, s);
	fprintf(fp, ",\"calls\":%llu,\"disk_read\":", (unsigned long long)s->calls);
	if (s->disk_known)
		fprintf(fp, "%llu", (unsigned long long)s->disk_read);
	else
		fputs("null", fp);
	fprintf(fp, ",\"status\":%d%s%s}\n", s->status, extra ? "," : "", extra ? extra : "");
	fflush(fp);
}

struct step_res *exp_step(struct exp *e, struct run *c, const char *name, const char *extra_json)
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
		step_json(e, e->rec, s, extra_json);
	check_record(e);
	if (e->json)
		step_json(e, e->out, s, extra_json);
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
static void phase_json(FILE *fp, const struct step_res *s, size_t i)
{
	const struct app_result *r = &s->res;
	double ks = 0, secs = 0;
	fprintf(fp, "%s{\"from\":", i ? "," : "");
	json_number(fp, s->from);
	fprintf(fp, ",\"to\":");
	json_number(fp, s->to);
	fprintf(fp, ",\"label\":");
	json_string(fp, s->name);
	fprintf(fp, ",\"cell\":%zu,", i + 1);
	totals_json(fp, s);
	fprintf(fp, ",\"residency\":{");
	for (int c = 0; c < r->ncpu_res; c++) {
		fprintf(fp, "%s\"%d\":{", c ? "," : "", c);
		for (int k = 0; k < r->nfreq[c]; k++) {
			fprintf(fp, "%s\"%ld\":", k ? "," : "", r->khz[c][k]);
			json_number(fp, r->secs[c][k]);
			ks += (double)r->khz[c][k] * r->secs[c][k];
			secs += r->secs[c][k];
		}
		fputc('}', fp);
	}
	fprintf(fp, "},\"mean_khz\":");
	if (secs > 0)
		fprintf(fp, "%.0f", ks / secs);
	else
		fputs("null", fp);
	fputc('}', fp);
}

static void end_record(struct exp *e, FILE *fp, const struct st_table *t)
{
	fprintf(fp, "{\"type\":\"end\",\"t\":");
	json_number(fp, clock_mono() - e->t0);
	fprintf(fp, ",\"summary\":[");
	for (size_t i = 0; i < e->nsteps; i++) {
		fprintf(fp, "%s{\"test\":", i ? "," : "");
		json_string(fp, e->steps[i].name);
		fputc(',', fp);
		totals_json(fp, &e->steps[i]);
		fputc('}', fp);
	}
	/* the policies as the experiment leaves them (each step restores
	 * what it changed), as a run's end record has them */
	struct cpufreq *cf = cpufreq_open(e->r->sysfs, e->ncpu);
	fprintf(fp, "],\"policies\":");
	if (cf)
		cpufreq_policies_json(cf, fp);
	else
		fputs("[]", fp);
	if (cf)
		cpufreq_close(cf);
	fprintf(fp, ",\"phases\":[");
	for (size_t i = 0; i < e->nsteps; i++)
		phase_json(fp, &e->steps[i], i);
	fprintf(fp, "],\"experiment\":");
	st_json(t, fp);
	fprintf(fp, "}\n");
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

/* study_fs.c - the file-system studies: bonnie's one-line table,
 * aligntest (write, then rewrite in place with aligned and misaligned
 * blocks) and blocksize (the cost of one read(2) per block size). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchtop/experiment.h"
#include "benchtop/pagecache.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"
#include "studies.h"

/* ---- bonnie ------------------------------------------------------------ */

#define BONNIE_BS 8192
#define BONNIE_SEEKERS 3
#define BONNIE_SEEKS 1000          /* per seeker and run */
#define BONNIE_MIN_SEC 1.0         /* bonnie++ does not report shorter tests */
#define BONNIE_MAX_RUNS 16

enum btest { B_PUTC, B_WRITE, B_REWRITE, B_GETC, B_READ, B_SEEK, B_N };

static const struct {
	const char *group;
	bool reads;                 /* read from the source: evicted before, from disk shown */
} btests[B_N] = {
	{ "per-char write", false }, { "block write", false }, { "rewrite", true },
	{ "per-char read", true }, { "block read", true }, { "seeks", true },
};

/* One test's runs added up. */
struct acc {
	double user, sys, elapsed;
	uint64_t bytes, calls, disk;
	bool disk_known;
	int runs, status;
};

static int bonnie_spec(struct exp *e, enum btest b, const char *src, uint64_t size, struct wl_spec *w)
{
	unsigned long long sz = (unsigned long long)size;
	switch (b) {
	case B_PUTC: return study_workload(w, "write:path=%s,size=%llu,unit=char", e->scratch, sz);
	case B_WRITE: return study_workload(w, "write:path=%s,size=%llu,bs=%d", e->scratch, sz, BONNIE_BS);
	case B_REWRITE: return study_workload(w, "read:path=%s,bs=%d,update=100", src, BONNIE_BS);
	case B_GETC: return study_workload(w, "read:path=%s,unit=char", src);
	case B_READ: return study_workload(w, "read:path=%s,bs=%d", src, BONNIE_BS);
	default:
		return study_workload(w, "seek:path=%s,bs=%d,seekers=%d,count=%d,update=10", src, BONNIE_BS,
		                      BONNIE_SEEKERS, BONNIE_SEEKS);
	}
}

/* Runs test b until it has lasted a second in all, or BONNIE_MAX_RUNS
 * times; a read test starts from a cold file each time. */
static int bonnie_test(struct exp *e, enum btest b, const char *src, uint64_t size, struct acc *a)
{
	struct wl_spec w;
	char name[64];
	memset(a, 0, sizeof *a);
	a->disk_known = true;
	if (bonnie_spec(e, b, src, size, &w))
		return 2;
	while (a->elapsed < BONNIE_MIN_SEC && a->runs < BONNIE_MAX_RUNS && !e->stop && a->status == 0) {
		struct run c;
		if (btests[b].reads)
			exp_evict(e, src);
		exp_child_run(e, &w, &c);
		c.force = true;   /* the rewrite and the seekers write into benchtop's own source */
		snprintf(name, sizeof name, "bonnie %s, run %d", btests[b].group, a->runs + 1);
		struct step_res *s = exp_step(e, &c, name, NULL);
		a->user += s->user, a->sys += s->sys, a->elapsed += s->elapsed;
		a->bytes += s->bytes, a->calls += s->calls, a->disk += s->disk_read;
		a->disk_known = a->disk_known && s->disk_known;
		a->status = s->status;
		a->runs++;
	}
	cli_free_workload(&w);
	return a->status > 1 ? a->status : 0;
}

struct bcols {
	int size, rate[B_N], cpu[B_N], disk[B_N];
};

static void bonnie_table(struct exp *e, struct st_table *t, struct bcols *k, uint64_t size)
{
	char sz[32], title[400];
	study_size_text(size, sz, sizeof sz);
	snprintf(title, sizeof title, "bonnie: a %s file in %s%s%s, %d KiB blocks; K/sec = 1024 bytes a second, "
	         "%%CPU = (user + sys) / elapsed", sz, e->dir, e->disk[0] ? " on " : "", e->disk, BONNIE_BS / 1024);
	st_init(t, "bonnie", title);
	k->size = st_col(t, NULL, "MiB", 0);
	for (int b = 0; b < B_N; b++) {
		k->rate[b] = st_col(t, btests[b].group, b == B_SEEK ? "/sec" : "K/sec", 0);
		k->cpu[b] = st_col(t, btests[b].group, "%CPU", 1);
		k->disk[b] = btests[b].reads ? st_col(t, btests[b].group, "from disk", 0) : -1;
		if (k->disk[b] >= 0)
			t->col[k->disk[b]].share = true;
	}
	snprintf(t->chart.kind, sizeof t->chart.kind, "bars");
	t->chart.ny = 0;
	for (int b = 0; b < B_N && b < 4; b++)
		t->chart.y[t->chart.ny++] = k->rate[b == 3 ? B_READ : b];
}

static void bonnie_cells(struct exp *e, struct st_row *row, const struct bcols *k, enum btest b,
                         const struct acc *a, uint64_t size)
{
	if (a->runs == 0)
		return;
	if (a->status) {
		st_word(row, k->rate[b], "failed");
		return;
	}
	if (a->elapsed < BONNIE_MIN_SEC) {
		st_word(row, k->rate[b], "too short");
		return;
	}
	double per = b == B_SEEK ? (double)a->calls / a->elapsed : (double)a->bytes / a->elapsed / 1024;
	st_num(row, k->rate[b], per);
	st_num(row, k->cpu[b], 100 * (a->user + a->sys) / a->elapsed);
	if (k->disk[b] >= 0) {
		uint64_t read = b == B_SEEK ? a->bytes : (uint64_t)a->runs * size;
		exp_disk_cell(row, k->disk[b], a->disk_known && read ? (double)a->disk / (double)read : NAN);
	}
	(void)e;
}

int study_bonnie(struct exp *e, struct st_table *t)
{
	uint64_t size;
	char *src;
	struct bcols k;
	struct acc a[B_N];
	int status = study_size(e, "bonnie", 1ULL << 30, &size);
	if (status || (status = exp_source(e, size, &src)))
		return status;
	bonnie_table(e, t, &k, size);
	struct st_row *row = st_row(t);
	st_num(row, k.size, (double)size / MIB);
	char shortlist[160] = "";
	for (int b = 0; b < B_N && !status && !e->stop; b++) {
		status = bonnie_test(e, (enum btest)b, src, size, &a[b]);
		bonnie_cells(e, row, &k, (enum btest)b, &a[b], size);
		if (a[b].runs > 1)
			snprintf(shortlist + strlen(shortlist), sizeof shortlist - strlen(shortlist), "%s%s x%d",
			         shortlist[0] ? ", " : "", btests[b].group, a[b].runs);
	}
	if (st_row_cached(row))
		snprintf(row->note, sizeof row->note, "mostly from cache");
	st_note(t, "per-char tests call stdio's locking putc and getc once per byte, as the original bonnie did; "
	        "bonnie++ does its byte I/O its own way (its getc_putc tool shows how far locking putc/getc, the "
	        "unlocked ones and 1-byte read/write differ), so compare per-char figures only with bonnie's");
	st_note(t, "rewrite reads each block, dirties it and writes it back; seeks: %d seekers, %d random %d KiB "
	        "reads each per run, 10%% of the blocks dirtied and written back", BONNIE_SEEKERS, BONNIE_SEEKS,
	        BONNIE_BS / 1024);
	st_note(t, "%s; a test under %.0f s is run again (up to %d runs, figures over all runs) or shown as "
	        "too short%s%s", e->cache_how, BONNIE_MIN_SEC, BONNIE_MAX_RUNS, shortlist[0] ? "; repeated: " : "",
	        shortlist);
	free(src);
	return status;
}

/* ---- bonnie++'s CSV line ------------------------------------------------ */

/* The cell of group g named name in the one row, or NULL. */
static const struct st_cell *bonnie_cell(const struct st_table *t, const char *g, const char *name)
{
	for (int c = 0; c < t->ncols && t->nrows; c++)
		if (!strcmp(t->col[c].group, g) && !strcmp(t->col[c].name, name))
			return &t->rows[0].cell[c];
	return NULL;
}

/* A figure and its %CPU as bonnie++ writes them: whole numbers, "+++++"
 * and "+++" for a test too short to time, nothing for one not run. */
static void bonnie_pair(FILE *fp, const struct st_table *t, const char *g, const char *rate)
{
	const struct st_cell *r = bonnie_cell(t, g, rate), *c = bonnie_cell(t, g, "%CPU");
	if (r && r->type == ST_NUM && c && c->type == ST_NUM)
		fprintf(fp, ",%.0f,%.0f", r->v, c->v);
	else if (r && r->type == ST_WORD && !strcmp(r->text, "too short"))
		fputs(",+++++,+++", fp);
	else
		fputs(",,", fp);
}

void bonnie_csv(const struct exp *e, const struct st_table *t, FILE *fp)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	/* a comma would end the name field */
	for (char *p = host; *p; p++)
		if (*p == ',')
			*p = '_';
	const struct st_cell *mib = bonnie_cell(t, "", "MiB");
	unsigned long long m = mib && mib->type == ST_NUM ? (unsigned long long)mib->v : 0;
	/* 0-8: format, version, name, concurrency, seed (none: benchtop's
	 * seekers draw their own), size, chunk size (empty: bonnie++'s 8192),
	 * seeks, seeker processes */
	fprintf(fp, "1.98,1.98,%s,1,,", host);
	if (m && m % 1024 == 0)
		fprintf(fp, "%lluG", m / 1024);
	else
		fprintf(fp, "%lluM", m);
	fprintf(fp, ",,%d,%d", BONNIE_SEEKS * BONNIE_SEEKERS, BONNIE_SEEKERS);
	for (int b = 0; b < B_N; b++)
		bonnie_pair(fp, t, btests[b].group, b == B_SEEK ? "/sec" : "K/sec");
	/* 21-37: the file-creation tests benchtop does not run; 38-49: the
	 * latencies it does not measure */
	for (int i = 21; i <= 49; i++)
		fputc(',', fp);
	fputc('\n', fp);
	fflush(fp);
	(void)e;
}

/* ---- aligntest (and netwrite's table, in the same layout) ----------------- */

void align_table(struct exp *e, struct st_table *t, struct acols *k, const char *study, const char *what,
                 bool source)
{
	char title[400], r[40];
	snprintf(title, sizeof title, "%s: %s, in %s%s%s; one copy and five at once", study, what, e->dir,
	         e->disk[0] ? " on " : "", e->disk);
	st_init(t, study, title);
	k->source = source ? st_col(t, NULL, "source", 0) : -1;
	k->bs = source ? -1 : st_col(t, NULL, "bs", 0);
	k->copies = st_col(t, NULL, "copies", 0);
	k->size = st_col(t, NULL, "MiB each", 0);
	k->wsec = st_col(t, NULL, "write s", 2);
	k->rsec = st_col(t, NULL, "rewrite s", 2);
	snprintf(r, sizeof r, "write %s", units_rate_label(e->r->units));
	k->wrate = st_col(t, NULL, r, 1);
	snprintf(r, sizeof r, "rewrite %s", units_rate_label(e->r->units));
	k->rrate = st_col(t, NULL, r, 1);
	k->factor = st_col(t, NULL, "factor", 2);
	k->disk = st_col(t, NULL, "from disk", 0);
	k->test = st_col(t, NULL, "test", 0);
	t->col[k->disk].share = t->col[k->test].left = true;
	if (source)
		t->col[k->source].left = true;
	snprintf(t->chart.kind, sizeof t->chart.kind, "bars");
	t->chart.x = k->test, t->chart.y[0] = k->factor, t->chart.ny = 1;
}

int align_row(struct exp *e, struct st_table *t, const struct acols *k, const struct align_case *c,
              double *per_call)
{
	struct wl_spec w;
	struct run r;
	char name[96];
	*per_call = NAN;
	if (study_workload(&w, "%s", c->spec))
		return 2;
	exp_child_run(e, &w, &r);
	snprintf(name, sizeof name, "%s %s copies=%d", t->study, c->label, c->jobs);
	struct step_res *s = exp_step(e, &r, name, NULL);
	struct st_row *row = st_row(t);
	cli_free_workload(&w);
	if (!row)
		return 1;
	const struct workload_totals *wr = &s->res.phase[0][0], *rw = &s->res.phase[0][1];
	if (k->source >= 0)
		st_word(row, k->source, "%s", c->label);
	else
		st_num(row, k->bs, c->bs);
	st_num(row, k->copies, c->jobs);
	st_num(row, k->size, (double)c->size / MIB);
	st_word(row, k->test, "%s x%d", c->label, c->jobs);
	if (s->status || s->res.nphase[0] != 2) {
		snprintf(row->note, sizeof row->note, "failed (exit %d)", s->status);
		return s->status > 1 ? s->status : 0;
	}
	st_num(row, k->wsec, wr->elapsed);
	st_num(row, k->rsec, rw->elapsed);
	st_num(row, k->wrate, units_rate_value(e->r->units, wr->elapsed > 0 ? (double)wr->bytes / wr->elapsed : NAN));
	st_num(row, k->rrate, units_rate_value(e->r->units, rw->elapsed > 0 ? (double)rw->bytes / rw->elapsed : NAN));
	st_num(row, k->factor, wr->elapsed > 0 ? rw->elapsed / wr->elapsed : NAN);
	/* what the test read from the disk per byte rewritten (the first
	 * write reads nothing): a read-modify-write shows here */
	exp_disk_cell(row, k->disk, exp_from_disk(e, s, rw->bytes));
	row->cell[k->disk].cached = false;
	*per_call = wr->calls ? (double)wr->bytes / (double)wr->calls : NAN;
	return 0;
}

int study_aligntest(struct exp *e, struct st_table *t)
{
	uint64_t size;
	struct acols k;
	char sz[32], what[160], spec[PATH_MAX + 128], label[32];
	static const int bss[] = { 8192, 5000 }, jobs[] = { 1, 5 };
	double per;
	int status = study_size(e, "aligntest", 128 * MIB, &size);
	if (status || (status = exp_scratch(e)))
		return status;
	study_size_text(size, sz, sizeof sz);
	snprintf(what, sizeof what, "write a %s file, then rewrite it in place", sz);
	align_table(e, t, &k, "aligntest", what, false);
	for (int j = 0; j < 2 && !status && !e->stop; j++)
		for (int b = 0; b < 2 && !status && !e->stop; b++) {
			snprintf(spec, sizeof spec, "write:path=%s,pattern=rewrite,bs=%d,size=%llu,jobs=%d", e->scratch,
			         bss[b], (unsigned long long)size, jobs[j]);
			snprintf(label, sizeof label, "bs=%d", bss[b]);
			struct align_case c = { label, spec, bss[b], jobs[j], size };
			status = align_row(e, t, &k, &c, &per);
		}
	st_note(t, "factor = rewrite s / write s; both include the flush (fdatasync, then fsync at the end); before "
	        "the rewrite each file is flushed and evicted from the cache (fdatasync + posix_fadvise DONTNEED), "
	        "so with a bs that is not a multiple of the page size every rewrite reads its page first");
	st_note(t, "from disk: what the test's own processes read from the disk (read_bytes of /proc/PID/io, "
	        "theirs only) per byte rewritten");
	return status;
}

/* ---- blocksize --------------------------------------------------------- */

/* Read the whole file once, so every step reads it from the page cache. */
static void warm(const char *path)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && read(fd, buf, sizeof buf) > 0)
		;
	if (fd >= 0)
		close(fd);
}

/* -w read:path=FILE names what blocksize reads: a file, or a device such
 * as /dev/urandom (*device set); NULL: a file of its own. */
static const char *named_file(const struct exp *e, bool *device, uint64_t *fsize)
{
	struct stat st;
	for (size_t i = 0; i < e->r->nwl; i++) {
		const char *p = e->r->wl[i].path;
		if (e->r->wl[i].kind == WL_READ && p && stat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
			*device = !S_ISREG(st.st_mode);
			*fsize = (uint64_t)st.st_size;
			return p;
		}
	}
	return NULL;
}

struct bscols {
	int bs, calls, mib, rate, us, disk;
};

/* The table: its title names what is read (a file of size sz, or a
 * device), its columns, the us/call chart on a log axis. */
static void blocksize_table(const struct exp *e, struct st_table *t, struct bscols *k, const char *src,
                            const char *sz, bool device)
{
	char title[400], step[40] = "";
	if (e->r->cell_sec > 0)
		snprintf(step, sizeof step, ", each step for at most %g s", e->r->cell_sec);
	snprintf(title, sizeof title, "blocksize: read(2) of %s%s %s (%s) at each bs from 16 B to 64 KiB, "
	         "doubling%s", device ? "" : "a ", sz, device ? "a step from the device" : "file", src, step);
	st_init(t, "blocksize", title);
	k->bs = st_col(t, NULL, "bs", 0), k->calls = st_col(t, NULL, "calls", 0);
	k->mib = st_col(t, NULL, "MiB read", 1);
	k->rate = st_col(t, NULL, units_rate_label(e->r->units), 1), k->us = st_col(t, NULL, "us/call", 3);
	k->disk = st_col(t, NULL, "from disk", 0);
	t->col[k->disk].share = true;
	snprintf(t->chart.kind, sizeof t->chart.kind, "logx");
	t->chart.x = k->bs, t->chart.y[0] = k->us, t->chart.ny = 1;
}

/* One step's row: its calls, bytes, the rate of its calls, us/call. */
static void blocksize_row(const struct exp *e, struct st_table *t, const struct bscols *k, uint64_t bs,
                          const struct step_res *s, bool device)
{
	struct st_row *row = st_row(t);
	if (!row)
		return;
	st_num(row, k->bs, (double)bs);
	st_num(row, k->calls, (double)s->calls);
	st_num(row, k->mib, (double)s->bytes / MIB);
	st_num(row, k->rate, units_rate_value(e->r->units, exp_io_rate(s, s->bytes)));
	st_num(row, k->us, exp_us_per_call(s));
	exp_disk_cell(row, k->disk, device ? NAN : exp_from_disk(e, s, s->bytes));
	if (s->status)
		snprintf(row->note, sizeof row->note, "failed (exit %d)", s->status);
	else if (st_row_cached(row))
		snprintf(row->note, sizeof row->note, "from cache, on purpose");
}

int study_blocksize(struct exp *e, struct st_table *t)
{
	uint64_t size = e->r->cell_bytes ? e->r->cell_bytes : 32 * MIB, bs[EXP_MAX_STEPS], fsize = 0;
	char *src = NULL, sz[32];
	bool device = false;
	const char *named = named_file(e, &device, &fsize);
	int status = 0;
	if (named && !device && !e->r->cell_bytes)
		size = fsize;
	if (named)
		src = xstrdup(named);
	else if ((status = exp_source(e, size, &src)))
		return status;
	size_t n = experiment_steps(16, 64 * 1024, bs, EXP_MAX_STEPS);
	study_size_text(size, sz, sizeof sz);
	struct bscols k;
	blocksize_table(e, t, &k, src, sz, device);
	double x[EXP_MAX_STEPS], y[EXP_MAX_STEPS], a, b;
	size_t nxy = 0;
	for (size_t i = 0; i < n && !status && !e->stop; i++) {
		struct wl_spec w;
		struct run c;
		char name[64];
		if ((status = study_workload(&w, "read:path=%s,bs=%llu,size=%llu", src, (unsigned long long)bs[i],
		                             (unsigned long long)size)))
			break;
		if (!device)
			warm(src);
		exp_child_run(e, &w, &c);
		if (e->r->cell_sec > 0)
			c.duration = e->r->cell_sec;
		snprintf(name, sizeof name, "read bs=%llu", (unsigned long long)bs[i]);
		struct step_res *s = exp_step(e, &c, name, NULL);
		cli_free_workload(&w);
		x[nxy] = (double)bs[i] / 1024, y[nxy++] = exp_us_per_call(s);
		blocksize_row(e, t, &k, bs[i], s, device);
		status = s->status > 1 ? s->status : 0;
	}
	if (experiment_fit(x, y, nxy < (size_t)t->nrows ? nxy : (size_t)t->nrows, &a, &b) == 0)
		st_note(t, "fit (least squares over %d steps, each over its calls only): us/call = %.3f + %.4f x KiB: a "
		        "fixed cost of %.3f us per "
		        "call and %.4f us per KiB", t->nrows, a, b, a, b);
	if (device)
		st_note(t, "%s is a device: each step reads %s from it (--cell SIZE), and from disk does not apply", src, sz);
	else
		st_note(t, "the file is read from the page cache on purpose (read once before each step): us/call is the "
		        "cost of the call and the copy, not of the disk");
	free(src);
	return status;
}

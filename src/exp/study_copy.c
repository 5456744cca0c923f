/* study_copy.c - the classic studies, each in its own table: copytools (one
 * big file copied by rsync, cpio -p, cp and cat) and rsync-demo (rsync
 * under placement x governor).  bonnie, aligntest and blocksize are in
 * study_fs.c, netwrite in study_net.c. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchtop/cpufreq.h"
#include "benchtop/experiment.h"
#include "benchtop/json.h"
#include "benchtop/pagecache.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"
#include "exp_priv.h"
#include "studies.h"

/* ---- shared ---------------------------------------------------------------- */

int study_size(const struct exp *e, const char *study, uint64_t def, uint64_t *size)
{
	if (e->r->cell_sec > 0) {
		fprintf(stderr, "benchtop: --cell %s: the %s study takes a size (the file it uses), e.g. --cell 256M\n",
		        e->r->cell, study);
		return 2;
	}
	*size = e->r->cell_bytes ? e->r->cell_bytes : def;
	return 0;
}

int study_workload(struct wl_spec *w, const char *fmt, ...)
{
	char spec[PATH_MAX * 2 + 256], err[CLI_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(spec, sizeof spec, fmt, ap);
	va_end(ap);
	if (cli_parse_workload(spec, w, err, sizeof err)) {
		fprintf(stderr, "benchtop: %s\n", err);
		return 2;
	}
	return 0;
}

void study_size_text(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1ULL << 30) && bytes % (1ULL << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(bytes >> 30));
	else if (bytes >= MIB)
		snprintf(buf, len, "%.*f MiB", bytes % MIB ? 1 : 0, (double)bytes / MIB);
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes / 1024));
}

void study_banner(const char *desc, uint64_t cell, char *out, size_t len)
{
	static const char *const units[] = { " KiB", " MiB", " GiB" };
	snprintf(out, len, "%s", desc);
	if (!cell)
		return;
	for (const char *p = desc; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > desc && isdigit((unsigned char)p[-1])))
			continue;
		const char *q = p;
		while (isdigit((unsigned char)*q))
			q++;
		for (int u = 0; u < 3; u++)
			if (!strncmp(q, units[u], 4)) {
				char sz[32];
				study_size_text(cell, sz, sizeof sz);
				snprintf(out, len, "%.*s%s%s", (int)(p - desc), desc, sz, q + 4);
				return;
			}
	}
}

/* Remove what a copy made at path (a file, or a directory with files). */
static void remove_copy(const char *path)
{
	char cmd[PATH_MAX + 16];
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(cmd, sizeof cmd, "%s/%s", path, de->d_name);
			unlink(cmd);
		}
	if (d)
		closedir(d);
	rmdir(path);
}

/* ---- copytools --------------------------------------------------------------- */

struct tool {
	const char *name, *prog;
	bool dir;                 /* copies into a directory */
	const char *fmt;          /* shell command: %1$s source dir, %2$s source name, %3$s destination */
};

static const struct tool tools[] = {
	{ "rsync", "rsync", true, "rsync '%1$s/%2$s' '%3$s/'" },
	{ "cpio -p", "cpio", true, "cd '%1$s' && echo '%2$s' | cpio -p --quiet '%3$s'" },
	{ "cp", "cp", false, "cp '%1$s/%2$s' '%3$s'" },
	{ "cat", "cat", false, "cat '%1$s/%2$s' > '%3$s'" },
};

struct ccols {
	int user, sys, elaps, hog, rate, disk, test;
};

static void copy_table(struct exp *e, struct st_table *t, struct ccols *k, uint64_t size, bool cold)
{
	char sz[32], title[320];
	study_size_text(size, sz, sizeof sz);
	snprintf(title, sizeof title, "copytools: one %s file copied in %s%s%s, %s, timed including the final sync", sz,
	         e->dir, e->disk[0] ? " on " : "", e->disk,
	         cold ? "cold cache (sync + drop_caches before each)" : "warm cache (not root: caches not dropped)");
	st_init(t, "copytools", title);
	k->user = st_col(t, NULL, "user", 2);
	k->sys = st_col(t, NULL, "sys", 2);
	k->elaps = st_col(t, NULL, "elaps", 2);
	k->hog = st_col(t, NULL, "hog", 0);
	k->rate = st_col(t, NULL, units_rate_label(e->r->units), 1);
	k->disk = st_col(t, NULL, "from disk", 0);
	k->test = st_col(t, NULL, "test", 0);
	t->col[k->hog].share = t->col[k->disk].share = t->col[k->test].left = true;
	snprintf(t->chart.kind, sizeof t->chart.kind, "bars");
	t->chart.x = k->test, t->chart.y[0] = k->rate, t->chart.ny = 1;
}

static int copy_one(struct exp *e, struct st_table *t, const struct ccols *k, const struct tool *tl,
                    const char *src, uint64_t size, bool cold)
{
	char path[PATH_MAX], dst[PATH_MAX + 16], srcdir[PATH_MAX];
	struct st_row *row = st_row(t);
	if (!row)
		return 1;
	st_word(row, k->test, "%s", tl->name);
	if (!exp_which(tl->prog, path, sizeof path)) {
		snprintf(row->note, sizeof row->note, "not installed");
		return 0;
	}
	const char *base = strrchr(src, '/') + 1;
	snprintf(srcdir, sizeof srcdir, "%.*s", (int)(base - 1 - src), src);
	snprintf(dst, sizeof dst, "%s/copy-%s", e->scratch, tl->prog);
	if (tl->dir && mkdir(dst, 0700) != 0) {
		fprintf(stderr, "benchtop: making %s: %s\n", dst, strerror(errno));
		return 3;
	}
	struct wl_spec w;
	char cmd[PATH_MAX * 3];
	snprintf(cmd, sizeof cmd, tl->fmt, srcdir, base, dst);
	if (study_workload(&w, "cmd:run=%s", cmd))
		return 2;
	if (cold)
		pagecache_drop_all();
	struct run c;
	exp_child_run(e, &w, &c);
	c.no_sync = false;
	struct step_res *s = exp_step(e, &c, tl->name, NULL);
	st_num(row, k->user, s->user);
	st_num(row, k->sys, s->sys);
	st_num(row, k->elaps, s->elapsed);
	st_num(row, k->hog, exp_hog(s));
	st_num(row, k->rate, units_rate_value(e->r->units, exp_rate(s, size)));
	exp_disk_cell(row, k->disk, exp_from_disk(e, s, size));
	if (s->status)
		snprintf(row->note, sizeof row->note, "failed (exit %d)", s->status);
	remove_copy(dst);
	cli_free_workload(&w);
	return s->status > 1 ? s->status : 0;
}

static int study_copytools(struct exp *e, struct st_table *t)
{
	uint64_t size;
	char *src;
	struct ccols k;
	int status = study_size(e, "copytools", 2ULL << 30, &size);
	if (status || (status = exp_source(e, size, &src)))
		return status;
	bool cold = pagecache_can_drop();
	copy_table(e, t, &k, size, cold);
	for (size_t i = 0; i < sizeof tools / sizeof *tools && !status && !e->stop; i++)
		status = copy_one(e, t, &k, &tools[i], src, size, cold);
	st_note(t, "MiB/s is the file's size over the elapsed time, the final sync included; "
	        "hog = (user + sys) / elaps");
	free(src);
	return status;
}

/* ---- rsync-demo ----------------------------------------------------------- */

static const char *const demo_places[] = { "pack", "free", "spread" };

struct rcols {
	int rate, ncpu, freq, place, gov, hog, disk, res, roles;
};

/* The governors of the study that this machine has: powersave, ondemand
 * (schedutil where ondemand is missing), performance.  0, or 3 with
 * *why set when there is no cpufreq at all. */
static size_t demo_governors(struct exp *e, const char **gov, struct st_table *t, char *why, size_t len)
{
	struct cpufreq *cf = cpufreq_open(e->r->sysfs, e->ncpu);
	size_t n = 0;
	why[0] = 0;
	if (!cf || cpufreq_npolicies(cf) == 0) {
		const char *r = cf ? cpufreq_unavailable_reason(cf) : NULL;
		snprintf(why, len, "no cpufreq policies under %s%s%s%s", e->r->sysfs, r ? " (" : "", r ? r : "",
		         r ? ")" : "");
		if (cf)
			cpufreq_close(cf);
		return 0;
	}
	const char *avail = cpufreq_policy_governors(cf, 0);
	static const char *const want[][2] = { { "powersave", NULL }, { "ondemand", "schedutil" },
	                                       { "performance", NULL } };
	for (size_t i = 0; i < 3; i++) {
		const char *g = NULL;
		for (int j = 0; j < 2 && !g; j++)
			if (want[i][j] && strstr(avail, want[i][j]))
				g = want[i][j];
		if (g)
			gov[n++] = g;
		else
			st_note(t, "governor %s is not available here (available: %s): its column is left out", want[i][0],
			        avail);
	}
	cpufreq_close(cf);
	return n;
}

static void demo_table(struct exp *e, struct st_table *t, struct rcols *k, uint64_t size, bool rsync, bool freq)
{
	char sz[32], title[400];
	study_size_text(size, sz, sizeof sz);
	snprintf(title, sizeof title, "rsync-demo: %s copying one %s file in %s under placement x governor, "
	         "sorted by throughput", rsync ? "rsync" : "the built-in 3-process pipe engine (rsync is not installed)",
	         sz, e->dir);
	st_init(t, "rsync-demo", title);
	char rate[48];
	snprintf(rate, sizeof rate, "throughput %s", units_rate_label(e->r->units));
	k->rate = st_col(t, NULL, rate, 1);
	k->ncpu = st_col(t, NULL, "#CPUs", 0);
	k->freq = freq ? st_col(t, NULL, "frequency", 0) : -1;
	k->place = st_col(t, NULL, "placement", 0);
	k->gov = st_col(t, NULL, "governor", 0);
	k->hog = st_col(t, NULL, "hog", 0);
	k->disk = st_col(t, NULL, "from disk", 0);
	k->res = freq ? st_col(t, NULL, "residency per CPU", 0) : -1;
	k->roles = st_col(t, NULL, "roles on CPUs", 0);
	t->col[k->hog].share = t->col[k->disk].share = true;
	t->col[k->place].left = t->col[k->gov].left = t->col[k->roles].left = true;
	if (freq)
		t->col[k->freq].left = t->col[k->res].left = true;
	snprintf(t->chart.kind, sizeof t->chart.kind, "heatmap");
	t->chart.x = k->gov, t->chart.y[0] = k->place, t->chart.ny = 1, t->chart.z = k->rate;
}

static void khz_text(long khz, char *buf, size_t len)
{
	if (khz >= 1000000)
		snprintf(buf, len, "%.2f GHz", (double)khz / 1e6);
	else
		snprintf(buf, len, "%ld MHz", khz / 1000);
}

/* "0: 800 MHz 90%, 2.60 GHz 10%; 1: ..." from the step's residency. */
static void residency_text(const struct app_result *r, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int c = 0; c < r->ncpu_res && used < len; c++) {
		double tot = 0;
		for (int f = 0; f < r->nfreq[c]; f++)
			tot += r->secs[c][f];
		used += (size_t)snprintf(buf + used, len - used, "%s%d:", c ? "; " : "", c);
		for (int f = 0; f < r->nfreq[c] && used < len; f++) {
			char k[24];
			if (tot <= 0 || r->secs[c][f] / tot < 0.005)
				continue;
			khz_text(r->khz[c][f], k, sizeof k);
			used += (size_t)snprintf(buf + used, len - used, " %s %.0f%%", k, 100 * r->secs[c][f] / tot);
		}
		if (tot <= 0 && used < len)
			used += (size_t)snprintf(buf + used, len - used, " -");
	}
}

/* The residency as numbers for the row's JSON (malloc'd). */
static struct st_residency *residency_of(const struct app_result *r)
{
	_Static_assert(ST_RES_CPUS == APP_RES_CPUS && ST_RES_FREQS == APP_RES_FREQS,
	               "a row's residency holds a run's");
	struct st_residency *x = xcalloc(1, sizeof *x);
	x->ncpu = r->ncpu_res;
	memcpy(x->mean_khz, r->mean_khz, sizeof x->mean_khz);
	memcpy(x->nfreq, r->nfreq, sizeof x->nfreq);
	memcpy(x->khz, r->khz, sizeof x->khz);
	memcpy(x->secs, r->secs, sizeof x->secs);
	return x;
}

static void demo_freq(const struct app_result *r, const char *gov, char *buf, size_t len)
{
	double sum = 0;
	int n = 0;
	char k[24];
	for (int c = 0; c < r->ncpu_res; c++)
		if (r->mean_khz[c] > 0)
			sum += (double)r->mean_khz[c], n++;
	if (!n) {
		snprintf(buf, len, "%s", gov);
		return;
	}
	khz_text((long)(sum / n), k, sizeof k);
	snprintf(buf, len, "%s (mean %s)", gov, k);
}

static int demo_cell(struct exp *e, struct st_table *t, const struct rcols *k, const struct wl_spec *w,
                     const char *src, uint64_t size, int p, const char *gov)
{
	char name[128], dst[PATH_MAX + 16];
	struct run c;
	exp_evict(e, src);
	exp_child_run(e, w, &c);
	c.placement = (enum placement)(PLACE_PACK + p);
	c.governor = (char *)gov;
	c.no_sync = false;
	snprintf(name, sizeof name, "rsync-demo placement=%s governor=%s", demo_places[p], gov ? gov : "as-is");
	struct step_cell cell = { .placement = demo_places[p], .governor = gov };
	struct step_res *s = exp_step(e, &c, name, &cell);
	struct st_row *row = st_row(t);
	if (row) {
		int nc = p == 0 ? 1 : p == 1 ? e->ncpu : e->ncpu < 3 ? e->ncpu : 3;
		st_num(row, k->rate, units_rate_value(e->r->units, exp_rate(s, size)));
		st_num(row, k->ncpu, nc);
		st_word(row, k->place, "%s", demo_places[p]);
		/* where each role went (spread: busy roles on CPUs of their own) */
		st_word(row, k->roles, "%s", s->res.placed[0] ? s->res.placed : "-");
		st_word(row, k->gov, "%s", gov ? gov : "as-is");
		st_num(row, k->hog, exp_hog(s));
		exp_disk_cell(row, k->disk, exp_from_disk(e, s, size));
		if (k->freq >= 0) {
			demo_freq(&s->res, gov ? gov : "as-is", row->cell[k->freq].text, sizeof row->cell[k->freq].text);
			row->cell[k->freq].type = ST_WORD;
			residency_text(&s->res, row->cell[k->res].text, sizeof row->cell[k->res].text);
			row->cell[k->res].type = ST_WORD;
			row->res = residency_of(&s->res);
		}
		if (s->status)
			snprintf(row->note, sizeof row->note, "failed (exit %d)", s->status);
	}
	snprintf(dst, sizeof dst, "%s/copy", e->scratch);
	remove_copy(dst);
	return s->status > 1 ? s->status : 0;
}

static int cmp_rate(const void *a, const void *b, void *arg)
{
	int col = *(const int *)arg;
	double x = ((const struct st_row *)a)->cell[col].v, y = ((const struct st_row *)b)->cell[col].v;
	return x < y ? 1 : x > y ? -1 : 0;
}

static int study_rsync_demo(struct exp *e, struct st_table *t)
{
	uint64_t size;
	char *src, path[PATH_MAX], why[300];
	const char *gov[3];
	struct rcols k;
	struct wl_spec w;
	int status = study_size(e, "rsync-demo", 512 * MIB, &size);
	if (status || (status = exp_source(e, size, &src)))
		return status;
	bool rsync = exp_which("rsync", path, sizeof path);
	st_init(t, "rsync-demo", "");
	size_t ng = demo_governors(e, gov, t, why, sizeof why);
	struct st_table notes = *t;
	demo_table(e, t, &k, size, rsync, ng > 0);
	for (int i = 0; i < notes.nnotes; i++)
		st_note(t, "%s", notes.notes[i]);
	if (!ng)
		st_note(t, "the frequency columns are left out: %s; only the placements vary", why);
	if (rsync)
		status = study_workload(&w, "cmd:run=rsync '%s' '%s/copy/'", src, e->scratch);
	else
		status = study_workload(&w, "copy:src=%s,dst=%s/copy,engine=pipe,procs=3", src, e->scratch);
	char dst[PATH_MAX + 16];
	snprintf(dst, sizeof dst, "%s/copy", e->scratch);
	for (int p = 0; p < 3 && !status && !e->stop; p++)
		for (size_t g = 0; g < (ng ? ng : 1) && !status && !e->stop; g++) {
			if (rsync && mkdir(dst, 0700) != 0) {
				status = 3;
				break;
			}
			status = demo_cell(e, t, &k, &w, src, size, p, ng ? gov[g] : NULL);
		}
	qsort_r(t->rows, (size_t)t->nrows, sizeof *t->rows, cmp_rate, &k.rate);
	st_note(t, "#CPUs: pack 1, free all %d, spread one per process (rsync's 3, at most %d); %s", e->ncpu, e->ncpu,
	        e->cache_how);
	cli_free_workload(&w);
	free(src);
	return status;
}

/* ---- dispatch ---------------------------------------------------------- */

static const struct {
	const char *name;
	int (*run)(struct exp *e, struct st_table *t);
} studies[] = {
	{ "copytools", study_copytools }, { "rsync-demo", study_rsync_demo }, { "bonnie", study_bonnie },
	{ "aligntest", study_aligntest }, { "blocksize", study_blocksize }, { "netwrite", study_netwrite },
};

bool study_known(const char *study)
{
	for (size_t i = 0; i < sizeof studies / sizeof *studies; i++)
		if (!strcmp(studies[i].name, study))
			return true;
	return false;
}

int study_run(struct exp *e, const char *study, struct st_table *t)
{
	for (size_t i = 0; i < sizeof studies / sizeof *studies; i++)
		if (!strcmp(studies[i].name, study))
			return studies[i].run(e, t);
	return 2;
}

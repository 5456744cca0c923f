/* metrics.c - the exposition writer: one tick's figures as Prometheus text
 * format 0.0.4 or OpenMetrics 1.0, and the small accumulator that turns a
 * recording's samples into the counters a live run reads from the kernel.
 *
 * The two formats differ in three places: a counter's TYPE line names the
 * family without "_total" in OpenMetrics (the samples keep it), info
 * families are type "info" there and "gauge" in the text format, and
 * OpenMetrics has UNIT lines and ends with "# EOF". */
#include "benchtop/metrics.h"
#include "benchtop/freqrows.h"
#include "benchtop/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum fam_type { FT_COUNTER, FT_GAUGE, FT_INFO };

/* A metric family by its OpenMetrics name: counters without "_total",
 * info families without "_info". */
struct fam {
	const char *name;
	enum fam_type type;
	const char *unit;             /* a suffix of name, or NULL */
	const char *help;
};

static const struct fam F_WL_BYTES = { "benchtop_workload_bytes", FT_COUNTER, "bytes",
	"Bytes a workload has moved (destination side; read for read and seek workloads)." };
static const struct fam F_WL_RATE = { "benchtop_workload_throughput_bytes_per_second", FT_GAUGE,
	"bytes_per_second", "A workload's throughput over the last sample interval." };
static const struct fam F_WL_CPU = { "benchtop_workload_cpu_seconds", FT_COUNTER, "seconds",
	"CPU time of a workload's processes, including ended ones, by mode." };
static const struct fam F_WL_INFO = { "benchtop_workload", FT_INFO, NULL,
	"What each workload is: kind, copy engine and the test as the summary names it." };
static const struct fam F_PROC_CPU_S = { "benchtop_process_cpu_seconds", FT_COUNTER, "seconds",
	"User plus system CPU time of a tracked process (all its threads)." };
static const struct fam F_PROC_CPU = { "benchtop_process_cpu", FT_GAUGE, NULL,
	"The CPU a tracked process last ran on." };
static const struct fam F_PROC_MIGR = { "benchtop_process_migrations", FT_COUNTER, NULL,
	"Migrations of a tracked process between CPUs (summed over its threads)." };
static const struct fam F_CPU_HZ = { "benchtop_cpu_frequency_hertz", FT_GAUGE, "hertz",
	"A CPU's current frequency." };
static const struct fam F_CPU_RES = { "benchtop_cpu_residency_seconds", FT_COUNTER, "seconds",
	"Time a CPU spent at each frequency since benchtop started." };
static const struct fam F_CPU_GOV = { "benchtop_cpu_governor", FT_INFO, NULL,
	"The cpufreq governor of each CPU." };
static const struct fam F_DISK_W = { "benchtop_disk_written_bytes", FT_COUNTER, "bytes",
	"Bytes written to the block device under the workloads' files since benchtop started." };
static const struct fam F_DISK_R = { "benchtop_disk_read_bytes", FT_COUNTER, "bytes",
	"Bytes read from the block device under the workloads' files since benchtop started." };
static const struct fam F_EVENTS = { "benchtop_events", FT_COUNTER, NULL,
	"Events of the run by type (pin, placement, governor, maxfreq, marker, pause, resume, workload_end)." };
static const struct fam F_SELF = { "benchtop_self_cpu_seconds", FT_COUNTER, "seconds",
	"CPU time benchtop itself has used." };
static const struct fam F_BUILD = { "benchtop_build", FT_INFO, NULL,
	"The benchtop version serving these metrics." };

/* ---- writing --------------------------------------------------------------- */

/* The exposition is built in memory and written with one fwrite: stdio's
 * per-call cost was most of the render time. */
struct out {
	char *p;
	size_t n, cap;
};

struct expo {
	struct out *fp;
	enum metrics_format fmt;
	const struct fam *fam;        /* the family samples go to */
	bool head_done;               /* its HELP/TYPE lines are out */
};

struct label {
	const char *name, *value;
};

static void put_n(struct out *o, const void *s, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2 + 4096;
		o->p = xrealloc(o->p, o->cap);
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static void put(struct out *o, const char *s)
{
	put_n(o, s, strlen(s));
}

static void put_c(struct out *o, char c)
{
	put_n(o, &c, 1);
}

static bool plain(unsigned char c, bool quote)
{
	return c >= 0x20 && c < 0x7f && c != '\\' && (c != '"' || !quote);
}

/* Bytes of s that form valid UTF-8 go out as they are; any other byte
 * becomes U+FFFD, since a scraper refuses the whole exposition for one
 * bad label.  quote: also escape '"' (label values, OpenMetrics HELP).
 * Runs of plain ASCII go out in one write: this is most of the output. */
static void put_escaped(struct out *fp, const char *s, bool quote)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		const unsigned char *run = p;
		while (plain(*p, quote))
			p++;
		if (p > run)
			put_n(fp, run, (size_t)(p - run));
		if (!*p)
			break;
		unsigned c = *p;
		int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
		        (c & 0xf8) == 0xf0 && c <= 0xf4 ? 4 : 0;
		bool valid = n > 0;
		for (int i = 1; valid && i < n; i++)
			valid = (p[i] & 0xc0) == 0x80;
		if (valid && n == 3)   /* overlong forms and surrogates */
			valid = !(c == 0xe0 && p[1] < 0xa0) && !(c == 0xed && p[1] >= 0xa0);
		if (valid && n == 4)
			valid = !(c == 0xf0 && p[1] < 0x90) && !(c == 0xf4 && p[1] >= 0x90);
		if (!valid) {
			put(fp, "\xef\xbf\xbd");
			p++;
		} else if (c == '\\') {
			put(fp, "\\\\"), p++;
		} else if (c == '\n') {
			put(fp, "\\n"), p++;
		} else if (c == '"' && quote) {
			put(fp, "\\\""), p++;
		} else {
			put_n(fp, p, (size_t)n);
			p += n;
		}
	}
}

static const char *sample_suffix(enum fam_type t)
{
	return t == FT_COUNTER ? "_total" : t == FT_INFO ? "_info" : "";
}

static void put_head(struct expo *e)
{
	const struct fam *f = e->fam;
	bool om = e->fmt == METRICS_OPENMETRICS;
	/* The text format names the family as its samples are named. */
	const char *suffix = om ? "" : sample_suffix(f->type);
	const char *type = f->type == FT_COUNTER ? "counter" : f->type == FT_GAUGE || !om ? "gauge" : "info";
	const char *parts[] = { "# HELP ", f->name, suffix, " ", NULL, "\n# TYPE ", f->name, suffix, " ",
	                        type, "\n", om && f->unit ? "# UNIT " : "", om && f->unit ? f->name : "",
	                        om && f->unit ? " " : "", om && f->unit ? f->unit : "", om && f->unit ? "\n" : "" };
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		if (parts[i])
			put(e->fp, parts[i]);
		else
			put_escaped(e->fp, f->help, om);
	}
	e->head_done = true;
}

static void begin(struct expo *e, const struct fam *f)
{
	e->fam = f;
	e->head_done = false;
}

/* A whole number as text without printf, into buf (at least 21 bytes);
 * returns its length. */
static size_t fmt_int(char *buf, size_t len, long long v)
{
	char tmp[24], *e = tmp + sizeof tmp, *p = e;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	size_t n = (size_t)(e - p) < len ? (size_t)(e - p) : len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return n;
}

/* Whole numbers (most values: bytes, counts, CPU numbers) without printf. */
static void put_int(struct out *o, long long v)
{
	char buf[24];
	put_n(o, buf, fmt_int(buf, sizeof buf, v));
}

/* A fraction to the millionth (seconds to the microsecond, rates to a
 * millionth of a byte), trailing zeros dropped: printf's %g is most of a
 * render's cost otherwise. */
static void put_micro(struct out *o, double v)
{
	long long u = llround(fabs(v) * 1e6);
	char frac[8];
	int n = 6;
	if (v < 0 && u)
		put_c(o, '-');
	put_int(o, u / 1000000);
	for (long long f = u % 1000000, i = 5; i >= 0; i--, f /= 10)
		frac[i] = (char)('0' + f % 10);
	while (n > 0 && frac[n - 1] == '0')
		n--;
	if (n) {
		put_c(o, '.');
		put_n(o, frac, (size_t)n);
	}
}

static void put_value(struct out *o, double v)
{
	char buf[40];
	if (isnan(v))
		put(o, "NaN");
	else if (isinf(v))
		put(o, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 1e15)
		put_int(o, (long long)v);
	else if (fabs(v) < 1e9)
		put_micro(o, v);
	else
		put_n(o, buf, (size_t)snprintf(buf, sizeof buf, "%.15g", v));
}

/* One sample of the current family; its head goes out before the first. */
static void sample(struct expo *e, const struct label *l, int nl, double v)
{
	if (!e->head_done)
		put_head(e);
	put(e->fp, e->fam->name);
	put(e->fp, sample_suffix(e->fam->type));
	for (int i = 0; i < nl; i++) {
		put(e->fp, i ? "," : "{");
		put(e->fp, l[i].name);
		put(e->fp, "=\"");
		put_escaped(e->fp, l[i].value, true);
		put_c(e->fp, '"');
	}
	put(e->fp, nl ? "} " : " ");
	put_value(e->fp, v);
	put_c(e->fp, '\n');
}

/* ---- the families ------------------------------------------------------------ */

static const struct metrics_wl *wl_of(const struct metrics_view *v, int id)
{
	return id >= 1 && id <= v->nwl && v->wl ? &v->wl[id - 1] : NULL;
}

static double wl_rate(const struct metrics_view *v, const struct wl_sample *w)
{
	const struct metrics_wl *m = wl_of(v, w->id);
	bool reads = m && m->kind && (!strcmp(m->kind, "read") || !strcmp(m->kind, "seek"));
	return reads ? w->read_bps : w->write_bps;
}

static void workloads(struct expo *e, const struct metrics_view *v)
{
	const struct snapshot *s = v->snap;
	char id[24];
	struct label l[4];
	begin(e, &F_WL_BYTES);
	for (int i = 0; i < s->nwl; i++) {
		fmt_int(id, sizeof id, s->wls[i].id);
		l[0] = (struct label){ "workload", id };
		sample(e, l, 1, (double)s->wls[i].bytes);
	}
	begin(e, &F_WL_RATE);
	for (int i = 0; i < s->nwl; i++) {
		fmt_int(id, sizeof id, s->wls[i].id);
		l[0] = (struct label){ "workload", id };
		sample(e, l, 1, wl_rate(v, &s->wls[i]));
	}
	begin(e, &F_WL_CPU);
	for (int i = 0; i < s->nwl; i++) {
		fmt_int(id, sizeof id, s->wls[i].id);
		l[0] = (struct label){ "workload", id };
		l[1] = (struct label){ "mode", "user" };
		sample(e, l, 2, s->wls[i].utime);
		l[1].value = "system";
		sample(e, l, 2, s->wls[i].stime);
	}
	begin(e, &F_WL_INFO);
	for (int i = 0; i < s->nwl; i++) {
		const struct metrics_wl *m = wl_of(v, s->wls[i].id);
		if (!m)
			continue;
		fmt_int(id, sizeof id, s->wls[i].id);
		l[0] = (struct label){ "workload", id };
		l[1] = (struct label){ "kind", m->kind };
		l[2] = (struct label){ "engine", m->engine };
		l[3] = (struct label){ "test", m->test };
		sample(e, l, 4, 1);
	}
}

static void processes(struct expo *e, const struct snapshot *s)
{
	static const struct fam *const fams[] = { &F_PROC_CPU_S, &F_PROC_CPU, &F_PROC_MIGR };
	for (size_t f = 0; f < sizeof fams / sizeof *fams; f++) {
		begin(e, fams[f]);
		for (int i = 0; i < s->nproc; i++) {
			const struct proc_sample *p = &s->procs[i];
			char wl[24], pid[24];
			fmt_int(wl, sizeof wl, p->workload);
			fmt_int(pid, sizeof pid, (int)p->pid);
			struct label l[3] = { { "workload", wl }, { "role", p->role }, { "pid", pid } };
			if (f == 0)
				sample(e, l, 3, p->utime + p->stime);
			else if (f == 1 && p->cpu >= 0)
				sample(e, l, 3, p->cpu);
			else if (f == 2)
				sample(e, l, 3, (double)p->migrations);
		}
	}
}

static void cpus(struct expo *e, const struct metrics_view *v)
{
	const struct snapshot *s = v->snap;
	char cpu[24], hz[32];
	struct label l[2];
	if (v->have_freq) {
		begin(e, &F_CPU_HZ);
		for (int c = 0; c < s->ncpu; c++) {
			if (s->cpus[c].khz < 0)
				continue;
			fmt_int(cpu, sizeof cpu, s->cpus[c].id);
			l[0] = (struct label){ "cpu", cpu };
			sample(e, l, 1, s->cpus[c].khz * 1000.0);
		}
	}
	if (v->have_freq && v->residency) {
		begin(e, &F_CPU_RES);
		for (int c = 0; c < s->ncpu; c++) {
			const long *khz;
			const double *secs;
			size_t n = v->residency(v->residency_ctx, s->cpus[c].id, &khz, &secs);
			fmt_int(cpu, sizeof cpu, s->cpus[c].id);
			for (size_t i = 0; i < n; i++) {
				fmt_int(hz, sizeof hz, (long long)khz[i] * 1000);
				l[0] = (struct label){ "cpu", cpu };
				l[1] = (struct label){ "frequency_hertz", hz };
				sample(e, l, 2, secs[i]);
			}
		}
	}
	begin(e, &F_CPU_GOV);
	for (int c = 0; c < s->ncpu; c++) {
		if (!s->cpus[c].governor[0])
			continue;
		fmt_int(cpu, sizeof cpu, s->cpus[c].id);
		l[0] = (struct label){ "cpu", cpu };
		l[1] = (struct label){ "governor", s->cpus[c].governor };
		sample(e, l, 2, 1);
	}
}

static void disk(struct expo *e, const struct metrics_view *v)
{
	const char *dev = v->snap->disk.device;
	struct label l = { "device", dev };
	if (!dev[0])
		return;
	begin(e, &F_DISK_W);
	if (v->disk_written_bytes >= 0)
		sample(e, &l, 1, floor(v->disk_written_bytes));
	begin(e, &F_DISK_R);
	if (v->disk_read_bytes >= 0)
		sample(e, &l, 1, floor(v->disk_read_bytes));
}

/* Every event type a run can have is always there (0 until it happens),
 * so rate() and increase() see the first one; others as they come. */
static void events(struct expo *e, const struct history *h)
{
	enum { NKNOWN = EV_NKINDS - 1, NOTHER = 16 };
	const char *name[NKNOWN + NOTHER];
	double count[NKNOWN + NOTHER] = { 0 };
	size_t n = NKNOWN;
	for (int k = 0; k < NKNOWN; k++)
		name[k] = event_kind_name(k + 1);
	for (size_t i = 0; h && i < history_nevents(h); i++) {
		const char *a = event_name(history_event(h, i));
		size_t k = 0;
		while (k < n && strcmp(name[k], a))
			k++;
		if (k == n && n < NKNOWN + NOTHER)
			name[n++] = a;
		if (k < n)
			count[k]++;
	}
	begin(e, &F_EVENTS);
	for (size_t k = 0; k < n; k++) {
		struct label l = { "type", name[k] };
		sample(e, &l, 1, count[k]);
	}
}

char *metrics_render_mem(const struct metrics_view *v, enum metrics_format f, size_t *len)
{
	struct out o = { .p = xmalloc(16384), .cap = 16384 };
	struct expo e = { .fp = &o, .fmt = f };
	if (v->snap) {
		workloads(&e, v);
		processes(&e, v->snap);
		cpus(&e, v);
		disk(&e, v);
	}
	events(&e, v->hist);
	begin(&e, &F_SELF);
	if (v->self_cpu_s >= 0)
		sample(&e, NULL, 0, v->self_cpu_s);
	begin(&e, &F_BUILD);
	struct label l = { "version", v->version ? v->version : "" };
	sample(&e, &l, 1, 1);
	if (f == METRICS_OPENMETRICS)
		put(&o, "# EOF\n");
	*len = o.n;
	return o.p;
}

int metrics_render(FILE *fp, const struct metrics_view *v, enum metrics_format f)
{
	size_t n;
	char *text = metrics_render_mem(v, f, &n);
	size_t w = fwrite(text, 1, n, fp);
	free(text);
	return w != n || ferror(fp) ? -EIO : 0;
}

/* ---- content negotiation ---------------------------------------------------- */

/* The q of one media range "type/sub;p=v;q=0.5" (1 when absent). */
static double range_q(const char *r, size_t n)
{
	for (const char *p = memchr(r, ';', n); p && p < r + n; p = memchr(p + 1, ';', (size_t)(r + n - p - 1))) {
		const char *q = p + 1;
		while (*q == ' ')
			q++;
		if ((q[0] == 'q' || q[0] == 'Q') && q[1] == '=')
			return strtod(q + 2, NULL);
	}
	return 1;
}

enum metrics_format metrics_negotiate(const char *accept)
{
	double om = 0, text = 0;
	for (const char *r = accept ? accept : ""; *r;) {
		while (*r == ' ' || *r == ',')
			r++;
		size_t n = strcspn(r, ",");
		size_t tn = strcspn(r, ";, ");
		double q = range_q(r, n);
		if (tn == 28 && !strncasecmp(r, "application/openmetrics-text", tn))
			om = q > om ? q : om;
		else if ((tn == 10 && !strncasecmp(r, "text/plain", tn)) ||
		         (tn == 6 && !strncasecmp(r, "text/*", tn)) || (tn == 3 && !strncmp(r, "*/*", tn)))
			text = q > text ? q : text;
		r += n;
	}
	return om > 0 && om >= text ? METRICS_OPENMETRICS : METRICS_TEXT;
}

/* ---- the accumulator (recordings) -------------------------------------------- */

struct acc_cpu {
	long *khz;
	double *secs;
	size_t n, cap;
};

struct metrics_acc {
	struct acc_cpu *cpu;
	int ncpu;
	double disk_r, disk_w, self;
};

struct metrics_acc *metrics_acc_new(void)
{
	return xcalloc(1, sizeof(struct metrics_acc));
}

static int acc_grow(struct metrics_acc *a, int ncpu)
{
	if (ncpu <= a->ncpu)
		return 0;
	struct acc_cpu *c = xreallocarray(a->cpu, (size_t)ncpu, sizeof *c);
	memset(c + a->ncpu, 0, (size_t)(ncpu - a->ncpu) * sizeof *c);
	a->cpu = c;
	a->ncpu = ncpu;
	return 0;
}

/* Rows stay sorted by frequency, as the kernel's time_in_state is. */
static void acc_at(struct acc_cpu *c, long khz, double dt)
{
	while (freqrows_add(c->khz, c->secs, &c->n, c->cap, khz, dt) < 0) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->khz = xreallocarray(c->khz, c->cap, sizeof *c->khz);
		c->secs = xreallocarray(c->secs, c->cap, sizeof *c->secs);
	}
}

void metrics_acc_add(struct metrics_acc *a, const struct snapshot *s)
{
	if (!a || !s || s->dt <= 0)
		return;
	a->disk_r += s->disk.read_bps * s->dt;
	a->disk_w += s->disk.write_bps * s->dt;
	a->self += s->self_cpu_pct / 100 * s->dt;
	for (int i = 0; i < s->ncpu; i++) {
		int id = s->cpus[i].id;
		if (s->cpus[i].khz >= 0 && id >= 0 && id < 65536 && !acc_grow(a, id + 1))
			acc_at(&a->cpu[id], s->cpus[i].khz, s->dt);
	}
}

size_t metrics_sampled_residency(void *ctx, int cpu, const long **khz, const double **secs)
{
	struct metrics_acc *a = ctx;
	if (!a || cpu < 0 || cpu >= a->ncpu)
		return 0;
	*khz = a->cpu[cpu].khz;
	*secs = a->cpu[cpu].secs;
	return a->cpu[cpu].n;
}

double metrics_acc_disk_read(const struct metrics_acc *a) { return a ? a->disk_r : -1; }
double metrics_acc_disk_written(const struct metrics_acc *a) { return a ? a->disk_w : -1; }
double metrics_acc_self_cpu(const struct metrics_acc *a) { return a ? a->self : -1; }

void metrics_acc_free(struct metrics_acc *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->ncpu; i++) {
		free(a->cpu[i].khz);
		free(a->cpu[i].secs);
	}
	free(a->cpu);
	free(a);
}

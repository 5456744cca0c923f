/* report.c - SVG and HTML from a recording: the throughput graph with
 * event markers, the placement strip, residency bars and the summary
 * tables, all computed from the loaded recording (nothing from this
 * machine), so a report looks the same wherever it is made. */
#include "benchtop/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchtop/event_json.h"
#include "benchtop/json.h"
#include "benchtop/outfile.h"
#include "benchtop/record.h"
#include "benchtop/stepmark.h"
#include "benchtop/tables.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"

#define W 1000                 /* picture width */
#define PL 80                  /* plot left edge */
#define PR 980                 /* plot right edge */
#define CHART_H 260
#define STRIP_ROW 14
#define STRIP_MAX 32           /* processes shown in the placement strip */
#define RES_ROW 16
#define RES_MAX_FREQS 24
#define LINE_H 15              /* table text lines */

static const char *wl_colour[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2" };
static const char *cpu_colour[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                    "#76b7b2", "#edc948", "#b07aa1", "#9c755f" };
#define NWLC (sizeof wl_colour / sizeof *wl_colour)
#define NCPUC (sizeof cpu_colour / sizeof *cpu_colour)

/* Text for XML and HTML: markup characters escaped, control characters
 * (not allowed in XML 1.0) dropped; at most max bytes of the source, cut
 * on a character boundary, with "..." when cut (max 0: no limit). */
static void esc(FILE *fp, const char *s, size_t max)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++, n++) {
		if (max && n >= max && (*p & 0xC0) != 0x80) {
			fputs("...", fp);
			return;
		}
		switch (*p) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default:
			if (*p >= 0x20 || *p == '\t')
				fputc(*p, fp);
		}
	}
}

void report_escape(FILE *fp, const char *s, size_t max)
{
	esc(fp, s, max);
}

static double num(const struct json *o, const char *key, double def)
{
	return json_num(json_get(o, key), def);
}

/* The recorded CPU count, 0 when absent or absurd (outside input). */
static int ncpu_of(const struct json *start)
{
	double v = num(start, "ncpu", 0);
	return isfinite(v) && v >= 0 && v <= 65536 ? (int)v : 0;
}

/* 1, 2 or 5 times a power of ten, at least x / 5: five or so ticks. */
static double nice_step(double x)
{
	if (!(x > 0))
		return 1;
	double raw = x / 5, p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

struct frame {
	double t1;                   /* seconds shown on the x axis */
	double ymax;                 /* rate units at the top */
	int top;                     /* chart top edge */
	enum units_mode u;
};

static double fx(const struct frame *f, double t)
{
	return PL + (PR - PL) * (f->t1 > 0 ? t / f->t1 : 0);
}

static double fy(const struct frame *f, double v)
{
	if (v != v || v < 0)
		v = 0;
	return f->top + CHART_H - CHART_H * (v > f->ymax ? 1 : v / f->ymax);
}

/* ---- throughput ---------------------------------------------------------- */

enum series_kind { S_WRITE, S_READ, S_TOTAL, S_DISK };

static double series_value(const struct snapshot *s, enum series_kind k, int wl)
{
	double v = 0;
	switch (k) {
	case S_WRITE: return wl < s->nwl ? s->wls[wl].write_bps : 0;
	case S_READ: return wl < s->nwl ? s->wls[wl].read_bps : 0;
	case S_DISK: return s->disk.write_bps;
	case S_TOTAL:
		for (int i = 0; i < s->nwl; i++)
			v += s->wls[i].write_bps;
		return v;
	}
	return 0;
}

static double series_max(const struct recording *rec, enum series_kind k, int wl)
{
	double m = 0;
	for (size_t i = 0; i < recording_nsamples(rec); i++) {
		double v = series_value(recording_sample(rec, i), k, wl);
		if (v > m)
			m = v;
	}
	return m;
}

static void polyline(FILE *fp, const struct recording *rec, const struct frame *f,
                     enum series_kind k, int wl, const char *colour, const char *dash, double width)
{
	fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s%s points=\"",
	        colour, width, dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
	for (size_t i = 0; i < recording_nsamples(rec); i++) {
		const struct snapshot *s = recording_sample(rec, i);
		fprintf(fp, "%.1f,%.1f ", fx(f, s->t), fy(f, units_rate_value(f->u, series_value(s, k, wl))));
	}
	fprintf(fp, "\"/>\n");
}

/* One legend entry at (*x, *y); wraps to a new row at the right edge. */
static void legend(FILE *fp, int *x, int *y, const char *colour, const char *dash, const char *label)
{
	size_t len = strlen(label) > 48 ? 51 : strlen(label);
	int w = 40 + 7 * (int)len;
	if (*x > PL && *x + w > PR) {
		*x = PL;
		*y += 16;
	}
	fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s%s%s/>",
	        *x, *y - 4, *x + 24, *y - 4, colour, dash ? " stroke-dasharray=\"" : "", dash ? dash : "",
	        dash ? "\"" : "");
	fprintf(fp, "<text x=\"%d\" y=\"%d\">", *x + 28, *y);
	esc(fp, label, 48);
	fprintf(fp, "</text>\n");
	*x += w;
}

static void axes(FILE *fp, const struct frame *f)
{
	double ys = nice_step(f->ymax), xs = nice_step(f->t1);
	fprintf(fp, "<g class=\"axis\">\n");
	/* at most a few dozen lines whatever the figures (a step that
	 * does not move v, a NaN) */
	int nv = 0, nt = 0;
	for (double v = 0; v <= f->ymax + ys * 1e-6 && nv++ < 64; v += ys) {
		double y = fy(f, v);
		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
		        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
		        PL, y, PR, y, PL - 6, y + 4, v);
	}
	for (double t = 0; t <= f->t1 + xs * 1e-6 && nt++ < 64; t += xs)
		fprintf(fp, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%gs</text>\n", fx(f, t),
		        f->top + CHART_H + 14, t);
	fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	        PL, f->top, PR - PL, CHART_H);
	fprintf(fp, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">%s</text>\n",
	        f->top + CHART_H / 2, f->top + CHART_H / 2, units_rate_label(f->u));
	fprintf(fp, "</g>\n");
}

/* Marker labels: 12 px sans-serif is at most about 7.5 px a character
 * (digits and capitals; most letters are narrower), so a label is given
 * that much room and labels keep a gap between them. */
#define LABEL_CHAR_W 7.5
#define LABEL_GAP 8
#define LABEL_ROWS 6

static double label_w(const char *s)
{
	double n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (*p & 0xC0) != 0x80;
	return n * LABEL_CHAR_W;
}

static void label_text(FILE *fp, double x, int y, bool end, const struct event *e)
{
	fprintf(fp, "<text class=\"ev\" x=\"%.1f\" y=\"%d\" fill=\"#d62728\"%s><title>", x, y,
	        end ? " text-anchor=\"end\"" : "");
	esc(fp, event_name(e), 0);
	fprintf(fp, " at %.2f s</title>", e->t);
	esc(fp, event_shown(e), 0);
	fprintf(fp, "</text>\n");
}

/* A dashed line per event; its label beside it (right, else left) on the
 * first of the top rows where it keeps clear of every label already
 * there; an experiment's step says what its set-up did (its governor,
 * its placement), so those events have their line without a label of
 * their own.  Returns how many fit nowhere: those are listed under the
 * chart (cut, oldest first). */
static size_t markers(FILE *fp, const struct recording *rec, const struct frame *f, size_t *cut)
{
	size_t ne = recording_nevents(rec), ncut = 0;
	double (*row)[2] = ne ? xcalloc(ne * LABEL_ROWS, sizeof *row) : NULL;
	size_t nrow[LABEL_ROWS] = { 0 };
	const struct event *step = NULL;
	fprintf(fp, "<g class=\"events\">\n");
	for (size_t i = 0; i < ne; i++) {
		const struct event *e = recording_event(rec, i);
		double x = fx(f, e->t), w = label_w(event_shown(e));
		fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d62728\" "
		        "stroke-dasharray=\"4 3\">", x, f->top, x, f->top + CHART_H);
		if (e->kind == EV_STEP)
			step = e;
		bool placed = stepmark_says(step, e);
		/* unlabelled: the line still names it on hover */
		if (placed) {
			fprintf(fp, "<title>");
			esc(fp, event_name(e), 0);
			fprintf(fp, " at %.2f s: ", e->t);
			esc(fp, e->label, 0);
			fprintf(fp, "</title>");
		}
		fprintf(fp, "</line>\n");
		for (int r = 0; r < LABEL_ROWS && !placed; r++) {
			for (int side = 0; side < 2 && !placed; side++) {
				double x0 = side == 0 ? x + 3 : x - 3 - w, x1 = x0 + w;
				if (x0 < PL || x1 > PR)
					continue;
				bool clear = true;
				for (size_t k = 0; k < nrow[r] && clear; k++) {
					const double *o = row[(size_t)r * ne + k];
					clear = x1 + LABEL_GAP <= o[0] || x0 >= o[1] + LABEL_GAP;
				}
				if (!clear)
					continue;
				double *o = row[(size_t)r * ne + nrow[r]++];
				o[0] = x0;
				o[1] = x1;
				label_text(fp, side == 0 ? x0 : x1, f->top + 12 + 13 * r, side == 1, e);
				placed = true;
			}
		}
		if (!placed)
			cut[ncut++] = i;
	}
	fprintf(fp, "</g>\n");
	free(row);
	return ncut;
}

/* The labels that did not fit on the chart, each with its time, in rows
 * from y down; returns the y under them. */
static int marker_strip(FILE *fp, const struct recording *rec, const size_t *cut, size_t ncut, int y)
{
	if (!ncut)
		return y;
	double x = PL;
	y += 22;
	fprintf(fp, "<g class=\"strip\">\n");
	for (size_t i = 0; i < ncut; i++) {
		const struct event *e = recording_event(rec, cut[i]);
		char t[32];
		snprintf(t, sizeof t, "%.1f s ", e->t);
		double w = label_w(t) + label_w(event_shown(e));
		if (x > PL && x + w > PR) {
			x = PL;
			y += 16;
		}
		fprintf(fp, "<text class=\"ev\" x=\"%.1f\" y=\"%d\" fill=\"#d62728\"><title>", x, y);
		esc(fp, event_name(e), 0);
		fprintf(fp, " at %.2f s</title>%s", e->t, t);
		esc(fp, event_shown(e), 0);
		fprintf(fp, "</text>\n");
		x += w + LABEL_GAP * 2;
	}
	fprintf(fp, "</g>\n");
	return y;
}

static int throughput(FILE *fp, const struct recording *rec, int top, enum units_mode u)
{
	struct frame f = { .t1 = recording_duration(rec), .top = top + 22, .u = u };
	int nwl = recording_nwl(rec);
	const char *const *names = recording_wl_names(rec);
	double m = series_max(rec, S_DISK, 0);
	for (int w = 0; w < nwl; w++) {
		double a = series_max(rec, S_WRITE, w), b = series_max(rec, S_READ, w);
		m = fmax(m, fmax(a, b));
	}
	m = units_rate_value(u, m);
	double step = nice_step(m > 0 ? m : 1);
	f.ymax = ceil((m > 0 ? m : 1) / step) * step;
	fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"h\">Throughput (%s)</text>\n", PL, top + 12,
	        units_rate_label(u));
	axes(fp, &f);
	int lx = PL, ly = f.top + CHART_H + 34;
	char label[320];
	if (nwl > 1) {   /* under the workloads' own lines */
		polyline(fp, rec, &f, S_TOTAL, 0, "#000", NULL, 1.2);
		legend(fp, &lx, &ly, "#000", NULL, "total write");
	}
	polyline(fp, rec, &f, S_DISK, 0, "#7f7f7f", "2 2", 1.5);
	legend(fp, &lx, &ly, "#7f7f7f", "2 2", "disk write");
	for (int w = 0; w < nwl; w++) {
		const char *c = wl_colour[(size_t)w % NWLC];
		polyline(fp, rec, &f, S_WRITE, w, c, NULL, 2);
		snprintf(label, sizeof label, "%.36s%s write", names[w], strlen(names[w]) > 36 ? "..." : "");
		legend(fp, &lx, &ly, c, NULL, label);
		if (series_max(rec, S_READ, w) > 0) {
			polyline(fp, rec, &f, S_READ, w, c, "6 3", 1.5);
			snprintf(label, sizeof label, "%.36s%s read", names[w], strlen(names[w]) > 36 ? "..." : "");
			legend(fp, &lx, &ly, c, "6 3", label);
		}
	}
	size_t ne = recording_nevents(rec), *cut = ne ? xcalloc(ne, sizeof *cut) : NULL;
	size_t ncut = markers(fp, rec, &f, cut);
	ly = marker_strip(fp, rec, cut, ncut, ly);
	free(cut);
	return ly + 18;
}

/* ---- placement ----------------------------------------------------------- */

/* A row of the strip: a role of a workload (its slot); a recording
 * without slots has one row per PID. */
struct strip_proc {
	int wl;
	char slot[MODEL_SLOT_LEN];
	pid_t pid, last;   /* its first and its latest process */
	int runs;          /* processes that played the role */
	char name[64];
};

/* "PID comm (role)" of its first process, "+N" when others followed. */
static void row_name(struct strip_proc *r, const struct proc_sample *p)
{
	if (p->pid != r->last) {
		r->runs++;
		r->last = p->pid;
	}
	if (r->runs > 1)
		snprintf(r->name, sizeof r->name, "%d %s (%s) +%d", (int)r->pid, p->comm, p->role, r->runs - 1);
	else
		snprintf(r->name, sizeof r->name, "%d %s (%s)", (int)r->pid, p->comm, p->role);
}

static bool in_row(const struct proc_sample *p, const struct strip_proc *r)
{
	if (!r->slot[0] || !p->slot[0])
		return p->pid == r->pid;
	return p->workload == r->wl && !strcmp(p->slot, r->slot);
}

static size_t strip_procs(const struct recording *rec, struct strip_proc *out, size_t max, size_t *total)
{
	size_t n = 0;
	*total = 0;
	for (size_t i = 0; i < recording_nsamples(rec); i++) {
		const struct snapshot *s = recording_sample(rec, i);
		for (int k = 0; k < s->nproc; k++) {
			const struct proc_sample *p = &s->procs[k];
			size_t j = 0;
			while (j < n && !in_row(p, &out[j]))
				j++;
			if (j < n) {
				row_name(&out[j], p);   /* the latest role, and restarts */
				continue;
			}
			(*total)++;
			if (n == max)
				continue;
			out[n] = (struct strip_proc){ .wl = p->workload, .pid = p->pid };
			snprintf(out[n].slot, sizeof out[n].slot, "%s", p->slot);
			row_name(&out[n], p);
			n++;
		}
	}
	return n;
}

/* The row's process in sample s: its CPU (-1: none) and PID. */
static int cpu_of(const struct snapshot *s, const struct strip_proc *r, pid_t *pid)
{
	for (int k = 0; k < s->nproc; k++)
		if (in_row(&s->procs[k], r)) {
			*pid = s->procs[k].pid;
			return s->procs[k].cpu;
		}
	*pid = 0;
	return -1;
}

/* One row per role, one cell per sample coloured by the CPU its process
 * ran on; runs of the same CPU and process become one rectangle, and a
 * process that took the place of another starts after a small gap. */
static int placement(FILE *fp, const struct recording *rec, int top)
{
	struct strip_proc procs[STRIP_MAX];
	size_t total, n = strip_procs(rec, procs, STRIP_MAX, &total);
	size_t ns = recording_nsamples(rec);
	double t1 = recording_duration(rec);
	fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"h\">Placement: the CPU each role's process ran on, per sample</text>\n",
	        PL, top + 12);
	int y = top + 22;
	if (!n) {
		fprintf(fp, "<text x=\"%d\" y=\"%d\">no processes recorded</text>\n", PL, y + 12);
		return y + 24;
	}
	for (size_t p = 0; p < n; p++, y += STRIP_ROW) {
		fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"s\">", PL + 150, y + 11);
		esc(fp, procs[p].name, 30);
		fprintf(fp, "</text>\n");
		size_t i = 0;
		pid_t last = 0;
		while (i < ns) {
			const struct snapshot *s = recording_sample(rec, i);
			pid_t pid, next;
			int cpu = cpu_of(s, &procs[p], &pid);
			size_t j = i + 1;
			while (j < ns && cpu_of(recording_sample(rec, j), &procs[p], &next) == cpu && next == pid)
				j++;
			if (cpu >= 0) {
				/* A sample covers the interval that ends at its t. */
				double t0 = i ? recording_sample(rec, i - 1)->t : 0;
				double te = recording_sample(rec, j - 1)->t;
				double x0 = PL + 160 + (PR - PL - 160) * (t1 > 0 ? t0 / t1 : 0);
				double x1 = PL + 160 + (PR - PL - 160) * (t1 > 0 ? te / t1 : 0);
				if (last && pid != last)
					x0 += 2;   /* a restart: a small break in the row */
				last = pid;
				fprintf(fp, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
				        "<title>CPU %d</title></rect>\n", x0, y, fmax(x1 - x0, 1), STRIP_ROW - 2,
				        cpu_colour[(size_t)cpu % NCPUC], cpu);
			}
			i = j;
		}
	}
	if (total > n)
		fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"s\">and %zu more processes</text>\n",
		        PL + 160, (y += STRIP_ROW) - 3, total - n);
	int ncpu = ncpu_of(recording_start(rec)), x = PL + 160;
	for (int c = 0; c < ncpu && c < 64; c++, x += 60)
		fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\"/>"
		        "<text x=\"%d\" y=\"%d\" class=\"s\">CPU %d</text>\n",
		        x, y + 6, cpu_colour[(size_t)c % NCPUC], x + 16, y + 15, c);
	return y + 26;
}

/* ---- residency ----------------------------------------------------------- */

struct freqs {
	long khz[RES_MAX_FREQS];
	size_t n;
};

static void collect_freqs(const struct json *phases, struct freqs *fr)
{
	fr->n = 0;
	for (size_t p = 0; p < json_len(phases); p++) {
		const struct json *res = json_get(json_at(phases, p), "residency");
		for (size_t c = 0; c < json_len(res); c++) {
			const struct json *rows = json_at(res, c);
			for (size_t k = 0; k < json_len(rows); k++) {
				long khz = atol(json_key(rows, k));
				size_t i = 0;
				while (i < fr->n && fr->khz[i] != khz)
					i++;
				if (i == fr->n && fr->n < RES_MAX_FREQS && khz > 0)
					fr->khz[fr->n++] = khz;
			}
		}
	}
	for (size_t i = 1; i < fr->n; i++)   /* ascending */
		for (size_t j = i; j > 0 && fr->khz[j - 1] > fr->khz[j]; j--) {
			long t = fr->khz[j];
			fr->khz[j] = fr->khz[j - 1];
			fr->khz[j - 1] = t;
		}
}

/* Blue for the lowest frequency through to red for the highest. */
static void freq_colour(const struct freqs *fr, size_t i, char *buf, size_t len)
{
	double x = fr->n > 1 ? (double)i / (double)(fr->n - 1) : 1;
	snprintf(buf, len, "rgb(%d,%d,%d)", (int)(60 + 180 * x), (int)(110 + 60 * (1 - fabs(2 * x - 1))),
	         (int)(220 - 170 * x));
}

/* Seconds CPU `cpu` spent at fr->khz[*] over phases [p0, p1). */
static double sum_rows(const struct json *phases, size_t p0, size_t p1, const char *cpu,
                       const struct freqs *fr, double *secs)
{
	double total = 0;
	memset(secs, 0, fr->n * sizeof *secs);
	for (size_t p = p0; p < p1; p++) {
		const struct json *rows = json_get(json_get(json_at(phases, p), "residency"), cpu);
		for (size_t k = 0; k < json_len(rows); k++) {
			long khz = atol(json_key(rows, k));
			for (size_t i = 0; i < fr->n; i++)
				if (fr->khz[i] == khz) {
					double v = json_num(json_at(rows, k), 0);
					secs[i] += v;
					total += v;
				}
		}
	}
	return total;
}

static void res_bar(FILE *fp, int y, const char *label, const struct freqs *fr, const double *secs,
                    double total)
{
	fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"s\">", PL + 150, y + 12);
	esc(fp, label, 40);
	fprintf(fp, "</text>\n");
	double x = PL + 160, w = PR - PL - 160;
	for (size_t i = 0; i < fr->n && total > 0; i++) {
		if (secs[i] <= 0)
			continue;
		char c[32];
		freq_colour(fr, i, c, sizeof c);
		double bw = w * secs[i] / total;
		fprintf(fp, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
		        "<title>%ld MHz: %.2f s (%.0f%%)</title></rect>", x, y, bw, RES_ROW - 3, c,
		        fr->khz[i] / 1000, secs[i], 100 * secs[i] / total);
		if (bw > 60)
			fprintf(fp, "<text x=\"%.1f\" y=\"%d\" class=\"s\" fill=\"#fff\">%ld MHz %.0f%%</text>",
			        x + 4, y + 10, fr->khz[i] / 1000, 100 * secs[i] / total);
		fputc('\n', fp);
		x += bw;
	}
	if (total <= 0)
		fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"s\">no time recorded</text>\n", PL + 160, y + 12);
}

static int residency(FILE *fp, const struct recording *rec, int top)
{
	const struct json *phases = json_get(recording_end(rec), "phases");
	struct freqs fr;
	collect_freqs(phases, &fr);
	fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"h\">Frequency residency per CPU (%s)</text>\n", PL,
	        top + 12, recording_cpufreq(rec));
	int y = top + 22;
	if (!fr.n) {
		fprintf(fp, "<text x=\"%d\" y=\"%d\">no cpufreq%s</text>\n", PL, y + 12,
		        recording_end(rec) ? " residency in this recording" : " (the recording has no end record)");
		return y + 26;
	}
	const struct json *res0 = json_get(json_at(phases, 0), "residency");
	size_t nph = json_len(phases), ncpu = json_len(res0);
	double secs[RES_MAX_FREQS];
	char label[128];
	for (size_t c = 0; c < ncpu && y < top + 22 + 64 * RES_ROW; c++, y += RES_ROW) {
		snprintf(label, sizeof label, "cpu%s whole run", json_key(res0, c));
		res_bar(fp, y, label, &fr, secs, sum_rows(phases, 0, nph, json_key(res0, c), &fr, secs));
	}
	/* each phase under its name in full (an experiment's cells differ
	 * at the end of theirs), then a bar per CPU */
	for (size_t p = 0; nph > 1 && p < nph && y < top + 22 + 64 * RES_ROW; p++) {
		y += 4;
		const char *pl = json_str(json_get(json_at(phases, p), "label"), "");
		fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"s\" font-weight=\"bold\">", PL + 160, y + 12);
		esc(fp, pl, 120);
		fprintf(fp, "</text>\n");
		y += RES_ROW;
		for (size_t c = 0; c < ncpu && y < top + 22 + 64 * RES_ROW; c++, y += RES_ROW) {
			snprintf(label, sizeof label, "cpu%s", json_key(res0, c));
			res_bar(fp, y, label, &fr, secs, sum_rows(phases, p, p + 1, json_key(res0, c), &fr, secs));
		}
	}
	int x = PL + 160;
	for (size_t i = 0; i < fr.n; i++, x += 90) {
		char c[32];
		freq_colour(&fr, i, c, sizeof c);
		fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\"/>"
		        "<text x=\"%d\" y=\"%d\" class=\"s\">%ld MHz</text>\n", x, y + 6, c, x + 16, y + 15,
		        fr.khz[i] / 1000);
	}
	return y + 26;
}

/* ---- tables -------------------------------------------------------------- */

/* The text tables, as the terminal prints them, in monospace lines. */
static int text_tables(FILE *fp, const struct recording *rec, int top, enum units_mode u)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return top;
	recording_print_summary(rec, u, m);
	fclose(m);
	fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"h\">Summary</text>\n", PL, top + 12);
	int y = top + 18;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		y += *line ? LINE_H : LINE_H / 2;   /* blank lines part the tables */
		if (*line) {
			fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"m\" xml:space=\"preserve\">", PL, y);
			esc(fp, line, 140);
			fprintf(fp, "</text>\n");
		}
		line = nl ? nl + 1 : NULL;
	}
	free(buf);
	return y + 16;
}

/* What of a title fits the plot's width at the title's size (about 8.8
 * px a character of 16 px bold), after "benchtop: "; the whole title
 * heads the HTML page. */
#define TITLE_CHARS ((PR - PL) * 10 / 88 - 10)

static void header_text(FILE *fp, const struct recording *rec)
{
	const struct json *st = recording_start(rec);
	fprintf(fp, "<text x=\"%d\" y=\"24\" class=\"t\">benchtop: ", PL);
	const char *const *names = recording_wl_names(rec);
	/* an experiment by its title ("matrix ...: 4 cells"), a run by its workloads */
	const char *title = json_str(json_get(json_get(recording_end(rec), "experiment"), "title"), NULL);
	if (title)
		esc(fp, title, TITLE_CHARS);
	for (int i = 0; !title && i < recording_nwl(rec); i++) {
		fputs(i ? ", " : "", fp);
		esc(fp, names[i], 60);
	}
	fprintf(fp, "</text>\n<text x=\"%d\" y=\"42\" class=\"s\">host ", PL);
	esc(fp, json_str(json_get(st, "host"), "?"), 64);
	fprintf(fp, ", started ");
	esc(fp, json_str(json_get(st, "started"), "?"), 40);
	fprintf(fp, ", %.1f s, %d CPUs, sampled every %g s, %zu samples, %zu events, frequency: ",
	        recording_duration(rec), ncpu_of(st), num(st, "interval", 0),
	        recording_nsamples(rec), recording_nevents(rec));
	esc(fp, json_str(json_get(st, "freq_source"), "none"), 40);
	fprintf(fp, "</text>\n");
}

/* The picture; tables: the summary as text inside it (the SVG report). */
static void svg(FILE *fp, const struct recording *rec, enum units_mode u, bool tables, bool standalone)
{
	const struct json *study = json_get(recording_end(rec), "experiment");
	if (json_type(study) != JSON_OBJECT)
		study = NULL;
	/* Draw into memory first: the height is known only at the end. */
	char *body = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&body, &len);
	if (!m)
		return;
	header_text(m, rec);
	int y = throughput(m, rec, 56, u);
	y = placement(m, rec, y + 10);
	y = residency(m, rec, y + 6);
	if (tables)
		y = text_tables(m, rec, y + 4, u);
	if (study && tables)   /* the SVG report: the experiment's chart too */
		y = report_study_chart(m, study, y + 10);
	fclose(m);
	if (standalone)
		fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, y, W, y);
	fprintf(fp, "<style>.t{font-size:16px;font-weight:bold}.h{font-size:14px;font-weight:bold}"
	        ".s{font-size:11px}.m{font-family:monospace;font-size:12px}.axis text{font-size:11px}</style>\n");
	fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fwrite(body, 1, len, fp);
	fprintf(fp, "</svg>\n");
	free(body);
}

/* ---- HTML ---------------------------------------------------------------- */

static void td_num(FILE *fp, const char *fmt, double v)
{
	fprintf(fp, "<td class=\"n\">");
	fprintf(fp, fmt, v);
	fprintf(fp, "</td>");
}

/* The summary and phase tables as HTML, from the rows the text tables
 * are printed from (summary_tables). */
static void html_summary(FILE *fp, const struct recording *rec, enum units_mode u)
{
	const struct json *end = recording_end(rec);
	if (!end) {
		fprintf(fp, "<p>The recording has no end record (the run was cut short): no summary.</p>\n");
		return;
	}
	struct run_tables t;
	char name[512];
	summary_tables(recording_start(rec), end, &t);
	fprintf(fp, "<h2>Summary</h2>\n<table>\n<tr><th>user</th><th>sys</th><th>elaps</th><th>hog</th>"
	        "<th>%s</th><th>test</th></tr>\n", units_rate_label(u));
	for (size_t i = 0; i < t.nsum; i++) {
		const struct sum_row *r = &t.sum[i];
		fprintf(fp, "<tr>");
		td_num(fp, "%.2f", r->user);
		td_num(fp, "%.2f", r->sys);
		td_num(fp, "%.2f", r->elapsed);
		td_num(fp, "%.0f%%", r->elapsed > 0 ? 100 * (r->user + r->sys) / r->elapsed : 0);
		td_num(fp, "%.1f", units_rate_value(u, r->bps));
		tables_test_name(r, u, name, sizeof name);
		fprintf(fp, "<td>");
		esc(fp, name, 0);
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "</table>\n<h2>Phases</h2>\n<table>\n<tr><th>from</th><th>to</th><th>%s</th><th>hog</th>"
	        "<th>migr</th><th>MHz</th><th>phase</th></tr>\n", units_rate_label(u));
	for (size_t i = 0; i < t.nphase; i++) {
		const struct phase_row *p = &t.phase[i];
		fprintf(fp, "<tr>");
		td_num(fp, "%.2f", p->from);
		td_num(fp, "%.2f", p->to);
		/* a phase too short for a rate has null figures: "-" */
		if (!p->too_short) {
			td_num(fp, "%.1f", units_rate_value(u, p->bps));
			td_num(fp, "%.0f%%", 100 * p->hog);
		} else {
			fprintf(fp, "<td class=\"n\">-</td><td class=\"n\">-</td>");
		}
		td_num(fp, "%.0f", p->migrations);
		if (p->mhz > 0)
			td_num(fp, "%.0f", p->mhz);
		else
			fprintf(fp, "<td class=\"n\">-</td>");
		fprintf(fp, "<td>");
		esc(fp, p->label, 0);
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "</table>\n");
	tables_free(&t);
}

static void html_events(FILE *fp, const struct recording *rec)
{
	if (!recording_nevents(rec))
		return;
	fprintf(fp, "<h2>Events</h2>\n<table>\n<tr><th>t</th><th>action</th><th>label</th>"
	        "<th>details</th></tr>\n");
	for (size_t i = 0; i < recording_nevents(rec); i++) {
		const struct event *e = recording_event(rec, i);
		fprintf(fp, "<tr><td class=\"n\">%.2f</td><td>", e->t);
		esc(fp, event_name(e), 0);
		fprintf(fp, "</td><td>");
		esc(fp, e->label, 0);
		fprintf(fp, "</td><td><code>");
		/* the kind's typed details, as the record writes them */
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (m) {
			struct jw w;
			jw_begin(&w, m);
			event_json_write(&w, NULL, e);
			fclose(m);
			if (text && strcmp(text, "{}") != 0)
				esc(fp, text, 0);
		}
		free(text);
		fprintf(fp, "</code></td></tr>\n");
	}
	fprintf(fp, "</table>\n");
}

static void html(FILE *fp, const struct recording *rec, enum units_mode u, const char *source)
{
	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>benchtop report: ");
	esc(fp, source, 0);
	fprintf(fp, "</title>\n<style>body{font-family:sans-serif;margin:1em 2em;color:#222}"
	        "table{border-collapse:collapse;margin:0.5em 0 1.5em}th,td{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}"
	        "td.n{text-align:right;font-variant-numeric:tabular-nums}svg{max-width:100%%;height:auto}</style>\n"
	        "</head>\n<body>\n<h1>benchtop report: ");
	esc(fp, source, 0);
	fprintf(fp, "</h1>\n");
	const struct json *study = json_get(recording_end(rec), "experiment");
	if (json_type(study) == JSON_OBJECT)   /* an experiment: its own table first */
		report_study_html(fp, study);
	svg(fp, rec, u, false, false);
	html_summary(fp, rec, u);
	html_events(fp, rec);
	fprintf(fp, "</body>\n</html>\n");
}

void report_write(const struct recording *rec, enum report_format f, enum units_mode units,
                  const char *source, FILE *fp)
{
	if (f == REPORT_HTML)
		html(fp, rec, units, source);
	else
		svg(fp, rec, units, true, true);
}

int report_format_of(const char *name, enum report_format *f)
{
	size_t n = strlen(name);
	if (n > 4 && !strcasecmp(name + n - 4, ".svg"))
		*f = REPORT_SVG;
	else if ((n > 5 && !strcasecmp(name + n - 5, ".html")) || (n > 4 && !strcasecmp(name + n - 4, ".htm")))
		*f = REPORT_HTML;
	else
		return -EINVAL;
	return 0;
}

/* ---- writing the file ---------------------------------------------------- */

/* A page is written into a new file beside OUT and put at OUT only when
 * complete (outfile.h); a failure leaves OUT as it was.  fn writes the
 * page; msg (when given) says what went wrong. */
static int publish_page(const char *out, bool force, void (*fn)(FILE *fp, void *arg), void *arg,
                        char *msg, size_t len)
{
	char buf[256];
	if (!msg) {
		msg = buf;
		len = sizeof buf;
	}
	struct outfile o;
	unsigned fl = force ? OUTFILE_FORCE : 0;
	int rc = outfile_open(&o, "-o", out, fl, msg, len);
	if (rc)
		return rc;
	FILE *fp = fdopen(o.fd, "w");
	if (!fp) {
		rc = -errno;
		outfile_discard(&o);
		return rc;
	}
	o.fd = -1;
	fn(fp, arg);
	errno = 0;
	if (fflush(fp) || ferror(fp))
		rc = errno ? -errno : -EIO;
	if (fclose(fp) && !rc)
		rc = -errno;
	if (!rc)
		rc = outfile_publish(&o, fl);
	if (rc) {
		snprintf(msg, len, "-o %s: %s%s", out, strerror(-rc),
		         rc == -EEXIST ? " (choose a new file, or add --force to replace it)" : "");
		outfile_discard(&o);
	} else {
		outfile_close(&o);
	}
	return rc;
}

int report_publish(const char *out, bool force, void (*fn)(FILE *fp, void *arg), void *arg)
{
	return publish_page(out, force, fn, arg, NULL, 0);
}

struct report_page {
	const struct recording *rec;
	const struct run *r;
	enum report_format f;
};

static void write_page(FILE *fp, void *arg)
{
	const struct report_page *p = arg;
	report_write(p->rec, p->f, p->r->units, p->r->report, fp);
}

static int write_report(const struct recording *rec, const struct run *r, enum report_format f,
                        char *msg, size_t len)
{
	struct report_page p = { rec, r, f };
	return publish_page(r->record, r->force, write_page, &p, msg, len);
}

int report_main(const struct run *r)
{
	enum report_format f;
	if (!r->record) {
		fprintf(stderr, "benchtop: --report %s needs an output: -o OUT.svg or -o OUT.html\n", r->report);
		return 2;
	}
	if (report_format_of(r->record, &f)) {
		fprintf(stderr, "benchtop: bad report output \"%s\": use a name ending in .svg or .html\n", r->record);
		return 2;
	}
	/* refused before the recording is read: an output that exists,
	 * a directory, a device */
	char err[512];
	struct outfile o;
	int rc = outfile_open(&o, "-o", r->record, r->force ? OUTFILE_FORCE : 0, err, sizeof err);
	outfile_close(&o);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", err);
		return rc == -ENOMEM ? 1 : 3;
	}
	struct recording *rec;
	rc = recording_load(r->report, &rec, err, sizeof err);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", err);
		return rc == -EINVAL ? 2 : 3;
	}
	rc = write_report(rec, r, f, err, sizeof err);
	recording_free(rec);
	if (rc) {
		fprintf(stderr, "benchtop: %s\n", err);
		return 3;
	}
	struct stat st;
	if (stat(r->record, &st) == 0)
		fprintf(stderr, "wrote %s (%lld bytes)\n", r->record, (long long)st.st_size);
	return 0;
}

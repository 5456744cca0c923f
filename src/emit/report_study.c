/* report_study.c - an experiment's table in a report: the HTML table with
 * its notes, and its chart (bars, a heat map, or a line on a log axis),
 * all from the end record's "experiment" object (studytable.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/json.h"
#include "benchtop/report.h"

#define CW 1000          /* chart width */
#define CL 240           /* left edge of bars and plots */
#define CR 940           /* right edge */
#define BAR_H 18
#define CELL_W 130
#define CELL_H 34
#define PLOT_H 240

static const char *series_colour[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759" };

/* A cell as text: numbers with up to 3 significant decimals, shares as %. */
static void value_text(const struct json *v, bool share, char *buf, size_t len)
{
	if (json_type(v) == JSON_NUMBER) {
		double x = json_num(v, 0);
		if (share)
			snprintf(buf, len, "%.0f%%", 100 * x);
		else if (fabs(x) >= 100 || x == floor(x))
			snprintf(buf, len, "%.0f", x);
		else
			snprintf(buf, len, "%.3g", x);
	} else if (json_type(v) == JSON_STRING) {
		snprintf(buf, len, "%s", json_str(v, ""));
	} else {
		snprintf(buf, len, "-");
	}
}

static bool col_share(const struct json *exp, const char *key)
{
	const struct json *cols = json_get(exp, "columns");
	for (size_t i = 0; i < json_len(cols); i++)
		if (!strcmp(json_str(json_get(json_at(cols, i), "key"), ""), key))
			return json_bool(json_get(json_at(cols, i), "share"), false);
	return false;
}

static bool cached(const struct json *row, const char *key)
{
	const struct json *fc = json_get(row, "from_cache");
	for (size_t i = 0; i < json_len(fc); i++)
		if (!strcmp(json_str(json_at(fc, i), ""), key))
			return true;
	return false;
}

/* ---- bars ---------------------------------------------------------------- */

static int bars(FILE *fp, const struct json *exp, const struct json *ch, int top)
{
	const struct json *rows = json_get(exp, "rows"), *ys = json_get(ch, "y");
	const char *xk = json_str(json_get(ch, "x"), NULL);
	double max = 0;
	char label[160], val[64];
	for (size_t r = 0; r < json_len(rows); r++)
		for (size_t k = 0; k < json_len(ys); k++) {
			double v = json_num(json_get(json_at(rows, r), json_str(json_at(ys, k), "")), NAN);
			if (v > max)
				max = v;
		}
	int y = top;
	for (size_t r = 0; r < json_len(rows); r++) {
		const struct json *row = json_at(rows, r);
		for (size_t k = 0; k < json_len(ys); k++, y += BAR_H + 4) {
			const char *yk = json_str(json_at(ys, k), "");
			const struct json *v = json_get(row, yk);
			if (xk)
				value_text(json_get(row, xk), false, label, sizeof label);
			snprintf(label + (xk ? strlen(label) : 0), sizeof label - (xk ? strlen(label) : 0), "%s%s",
			         xk && json_len(ys) > 1 ? " " : "", !xk || json_len(ys) > 1 ? yk : "");
			fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", CL - 8, y + 13);
			report_escape(fp, label, 40);
			fprintf(fp, "</text>\n");
			value_text(v, col_share(exp, yk), val, sizeof val);
			double x = json_num(v, NAN);
			int w = isfinite(x) && max > 0 ? (int)((CR - CL - 80) * x / max) : 0;
			if (w > 0)
				fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", CL, y, w,
				        BAR_H, series_colour[k % 4]);
			fprintf(fp, "<text x=\"%d\" y=\"%d\">", CL + w + 6, y + 13);
			report_escape(fp, val, 40);
			fprintf(fp, "%s</text>\n", cached(row, yk) ? "*" : "");
		}
		if (json_len(ys) > 1)
			y += 6;
	}
	return y + 10;
}

/* ---- heat map -------------------------------------------------------------- */

/* The distinct values of column key over the rows, in first-seen order. */
static size_t distinct(const struct json *rows, const char *key, char vals[][64], size_t max)
{
	size_t n = 0;
	char buf[64];
	for (size_t r = 0; r < json_len(rows); r++) {
		value_text(json_get(json_at(rows, r), key), false, buf, sizeof buf);
		size_t i = 0;
		while (i < n && strcmp(vals[i], buf))
			i++;
		if (i == n && n < max)
			snprintf(vals[n++], 64, "%s", buf);
	}
	return n;
}

static void shade(double f, char *buf, size_t len)
{
	/* light blue to dark blue */
	int r = (int)(239 - f * (239 - 8)), g = (int)(243 - f * (243 - 48)), b = (int)(255 - f * (255 - 107));
	snprintf(buf, len, "#%02x%02x%02x", r, g, b);
}

static int heatmap(FILE *fp, const struct json *exp, const struct json *ch, int top)
{
	const struct json *rows = json_get(exp, "rows");
	const char *xk = json_str(json_get(ch, "x"), ""), *yk = json_str(json_at(json_get(ch, "y"), 0), "");
	const char *zk = json_str(json_get(ch, "z"), "");
	char xs[16][64], ys[16][64], buf[64], colour[16];
	size_t nx = distinct(rows, xk, xs, 16), ny = distinct(rows, yk, ys, 16);
	double max = 0;
	for (size_t r = 0; r < json_len(rows); r++)
		max = fmax(max, json_num(json_get(json_at(rows, r), zk), 0));
	fprintf(fp, "<text x=\"%d\" y=\"%d\" class=\"s\">", CL, top + 12);
	report_escape(fp, zk, 60);
	fprintf(fp, " by ");
	report_escape(fp, yk, 40);
	fprintf(fp, " (rows) and ");
	report_escape(fp, xk, 40);
	fprintf(fp, " (columns)</text>\n");
	int y0 = top + 24;
	for (size_t i = 0; i < nx; i++) {
		fprintf(fp, "<text x=\"%zu\" y=\"%d\" text-anchor=\"middle\">", CL + i * CELL_W + CELL_W / 2, y0 + 12);
		report_escape(fp, xs[i], 30);
		fprintf(fp, "</text>\n");
	}
	y0 += 18;
	for (size_t j = 0; j < ny; j++) {
		fprintf(fp, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", CL - 8, y0 + j * CELL_H + CELL_H / 2 + 4);
		report_escape(fp, ys[j], 30);
		fprintf(fp, "</text>\n");
	}
	for (size_t r = 0; r < json_len(rows); r++) {
		const struct json *row = json_at(rows, r);
		size_t i = 0, j = 0;
		value_text(json_get(row, xk), false, buf, sizeof buf);
		while (i < nx && strcmp(xs[i], buf))
			i++;
		value_text(json_get(row, yk), false, buf, sizeof buf);
		while (j < ny && strcmp(ys[j], buf))
			j++;
		if (i == nx || j == ny)
			continue;
		double z = json_num(json_get(row, zk), NAN), f = isfinite(z) && max > 0 ? z / max : 0;
		shade(f, colour, sizeof colour);
		fprintf(fp, "<rect x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#fff\"/>", CL + i * CELL_W,
		        y0 + j * CELL_H, CELL_W, CELL_H, colour);
		value_text(json_get(row, zk), false, buf, sizeof buf);
		fprintf(fp, "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\" fill=\"%s\">%s%s</text>\n",
		        CL + i * CELL_W + CELL_W / 2, y0 + j * CELL_H + CELL_H / 2 + 4, f > 0.55 ? "#fff" : "#000", buf,
		        cached(row, zk) ? "*" : "");
	}
	return (int)(y0 + ny * CELL_H + 16);
}

/* ---- log axis -------------------------------------------------------------- */

static double nice(double x)
{
	if (!(x > 0))
		return 1;
	double raw = x / 5, p = pow(10, floor(log10(raw))), m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void size_label(double b, char *buf, size_t len)
{
	if (b >= 1024 * 1024)
		snprintf(buf, len, "%gM", b / (1024 * 1024));
	else if (b >= 1024)
		snprintf(buf, len, "%gK", b / 1024);
	else
		snprintf(buf, len, "%g", b);
}

static int logx(FILE *fp, const struct json *exp, const struct json *ch, int top)
{
	const struct json *rows = json_get(exp, "rows");
	const char *xk = json_str(json_get(ch, "x"), ""), *yk = json_str(json_at(json_get(ch, "y"), 0), "");
	double x0 = INFINITY, x1 = 0, ymax = 0;
	char buf[32];
	for (size_t r = 0; r < json_len(rows); r++) {
		double x = json_num(json_get(json_at(rows, r), xk), NAN), y = json_num(json_get(json_at(rows, r), yk), NAN);
		if (!(x > 0) || !isfinite(y))
			continue;
		x0 = fmin(x0, x), x1 = fmax(x1, x), ymax = fmax(ymax, y);
	}
	if (!(x1 > 0))
		return top;
	if (x1 <= x0)
		x1 = x0 * 2;
	double step = nice(ymax > 0 ? ymax : 1), yt = ceil((ymax > 0 ? ymax : 1) / step) * step;
	int py = top + 10;
#define LX(v) (CL + (CR - CL) * (log2(v) - log2(x0)) / (log2(x1) - log2(x0)))
#define LY(v) (py + PLOT_H - PLOT_H * (v) / yt)
	for (double v = 0; v <= yt + step * 1e-6; v += step)
		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
		        "text-anchor=\"end\" class=\"s\">%g</text>\n", CL, LY(v), CR, LY(v), CL - 6, LY(v) + 4, v);
	fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", CL, py,
	        CR - CL, PLOT_H);
	fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", series_colour[0]);
	for (size_t r = 0; r < json_len(rows); r++) {
		double x = json_num(json_get(json_at(rows, r), xk), NAN), y = json_num(json_get(json_at(rows, r), yk), NAN);
		if (x > 0 && isfinite(y))
			fprintf(fp, "%.1f,%.1f ", LX(x), LY(y));
	}
	fprintf(fp, "\"/>\n");
	for (size_t r = 0; r < json_len(rows); r++) {
		double x = json_num(json_get(json_at(rows, r), xk), NAN), y = json_num(json_get(json_at(rows, r), yk), NAN);
		if (!(x > 0) || !isfinite(y))
			continue;
		size_label(x, buf, sizeof buf);
		fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\" "
		        "text-anchor=\"middle\" class=\"s\">%s</text>\n", LX(x), LY(y), series_colour[0], LX(x),
		        py + PLOT_H + 14, buf);
	}
	fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"s\">", (CL + CR) / 2, py + PLOT_H + 30);
	report_escape(fp, xk, 40);
	fprintf(fp, " (log scale)</text><text x=\"%d\" y=\"%d\" transform=\"rotate(-90 %d %d)\" text-anchor=\"middle\">",
	        CL - 50, py + PLOT_H / 2, CL - 50, py + PLOT_H / 2);
	report_escape(fp, yk, 40);
	fprintf(fp, "</text>\n");
#undef LX
#undef LY
	return py + PLOT_H + 44;
}

int report_study_chart(FILE *fp, const struct json *exp, int top)
{
	const struct json *ch = json_get(exp, "chart");
	const char *kind = json_str(json_get(ch, "kind"), "none");
	fprintf(fp, "<text x=\"20\" y=\"%d\" class=\"h\">", top + 14);
	report_escape(fp, json_str(json_get(exp, "title"), ""), 130);
	fprintf(fp, "</text>\n");
	top += 28;
	if (!strcmp(kind, "bars"))
		return bars(fp, exp, ch, top);
	if (!strcmp(kind, "heatmap"))
		return heatmap(fp, exp, ch, top);
	if (!strcmp(kind, "logx"))
		return logx(fp, exp, ch, top);
	return top;
}

/* ---- the HTML table ------------------------------------------------------ */

static const char *col_group(const struct json *cols, size_t c)
{
	return json_str(json_get(json_at(cols, c), "group"), "");
}

/* Column headings: a group heading over its columns (bonnie's "block
 * read" over "K/sec %CPU from disk"), as the study prints them. */
static void html_head(FILE *fp, const struct json *cols)
{
	size_t n = json_len(cols);
	bool groups = false;
	for (size_t c = 0; c < n; c++)
		groups = groups || *col_group(cols, c);
	fprintf(fp, "<tr>");
	for (size_t c = 0; c < n;) {
		const char *g = col_group(cols, c);
		size_t e = c + 1;
		while (*g && e < n && !strcmp(col_group(cols, e), g))
			e++;
		if (*g)
			fprintf(fp, "<th colspan=\"%zu\" class=\"g\">", e - c);
		else
			fprintf(fp, "<th%s>", groups ? " rowspan=\"2\"" : "");
		report_escape(fp, *g ? g : json_str(json_get(json_at(cols, c), "name"), ""), 0);
		fprintf(fp, "</th>");
		c = e;
	}
	fprintf(fp, "<th%s>note</th></tr>\n", groups ? " rowspan=\"2\"" : "");
	if (!groups)
		return;
	fprintf(fp, "<tr>");
	for (size_t c = 0; c < n; c++)
		if (*col_group(cols, c)) {
			fprintf(fp, "<th>");
			report_escape(fp, json_str(json_get(json_at(cols, c), "name"), ""), 0);
			fprintf(fp, "</th>");
		}
	fprintf(fp, "</tr>\n");
}

static void html_table(FILE *fp, const struct json *exp)
{
	const struct json *cols = json_get(exp, "columns"), *rows = json_get(exp, "rows");
	char buf[256];
	fprintf(fp, "<table class=\"study\">\n");
	html_head(fp, cols);
	for (size_t r = 0; r < json_len(rows); r++) {
		const struct json *row = json_at(rows, r);
		fprintf(fp, "<tr>");
		for (size_t c = 0; c < json_len(cols); c++) {
			const char *key = json_str(json_get(json_at(cols, c), "key"), "");
			const struct json *v = json_get(row, key);
			bool c_ = cached(row, key);
			value_text(v, json_bool(json_get(json_at(cols, c), "share"), false), buf, sizeof buf);
			fprintf(fp, "<td class=\"%s%s\"%s>", json_type(v) == JSON_NUMBER ? "n" : "w", c_ ? " cache" : "",
			        c_ ? " title=\"mostly from the page cache\"" : "");
			report_escape(fp, buf, 0);
			fprintf(fp, "%s</td>", c_ ? "*" : "");
		}
		fprintf(fp, "<td>");
		report_escape(fp, json_str(json_get(row, "note"), ""), 0);
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "</table>\n");
}

void report_study_html(FILE *fp, const struct json *exp)
{
	char *body = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&body, &len);
	int h = m ? report_study_chart(m, exp, 0) + 10 : 0;
	if (m)
		fclose(m);
	fprintf(fp, "<h2>");
	report_escape(fp, json_str(json_get(exp, "title"), "experiment"), 0);
	fprintf(fp, "</h2>\n<style>td.cache{background:#fde0dd}table.study td.w{text-align:left}th.g{text-align:center;border-bottom:1px solid #888}</style>\n");
	html_table(fp, exp);
	const struct json *notes = json_get(exp, "notes");
	bool any = false;
	for (size_t r = 0; r < json_len(json_get(exp, "rows")) && !any; r++)
		any = json_len(json_get(json_at(json_get(exp, "rows"), r), "from_cache")) > 0;
	if (any)
		fprintf(fp, "<p>* mostly from the page cache (from disk under 50%%), not from the disk</p>\n");
	for (size_t i = 0; i < json_len(notes); i++) {
		fprintf(fp, "<p class=\"note\">");
		report_escape(fp, json_str(json_at(notes, i), ""), 0);
		fprintf(fp, "</p>\n");
	}
	if (body && h > 40) {
		fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		        "font-family=\"sans-serif\" font-size=\"12\"><style>.h{font-size:14px;font-weight:bold}"
		        ".s{font-size:11px}</style>\n", CW, h, CW, h);
		fwrite(body, 1, len, fp);
		fprintf(fp, "</svg>\n");
	}
	free(body);
}

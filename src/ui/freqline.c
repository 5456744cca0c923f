/* freqline.c - the frequency line under the throughput graph (v): the
 * mean frequency of the CPUs the run's processes last ran on, per
 * sample, from the same source the header names.  Where no frequency
 * can be read it says so instead of drawing a line. */
#include "uipriv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool on;

bool ui_freqline_on(void)
{
	return on;
}

/* The mean kHz of the CPUs the run's live processes are on, -1 unknown. */
static double mean_khz(const struct snapshot *s)
{
	double sum = 0;
	int n = 0;
	for (int c = 0; c < s->ncpu; c++) {
		bool used = false;
		for (int i = 0; i < s->nproc && !used; i++)
			used = s->procs[i].alive && s->procs[i].cpu == c;
		if (used && s->cpus[c].khz > 0) {
			sum += (double)s->cpus[c].khz;
			n++;
		}
	}
	return n ? sum / n : -1;
}

/* What can be drawn: nothing (no frequency source, or a source none of
 * whose CPUs has a frequency), not yet (a source, no sample yet), or the
 * line. */
enum fl_state { FL_NONE, FL_WAIT, FL_LINE };

static enum fl_state fl_state(const struct ui_view *v)
{
	const char *fs = v->freq_source ? v->freq_source : "";
	if (!fs[0] || strstr(fs, "not observable") || strstr(fs, "no cpufreq"))
		return FL_NONE;
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	if (!s)
		return FL_WAIT;
	for (int c = 0; c < s->ncpu; c++)
		if (s->cpus[c].khz > 0)
			return FL_LINE;
	return FL_NONE;
}

const char *ui_freqline_toggle(const struct ui_view *v)
{
	static char msg[160];
	on = !on;
	ui_cache_invalidate();
	enum fl_state st = fl_state(v);
	if (!on)
		snprintf(msg, sizeof(msg), "frequency line off (v: on)");
	else if (st == FL_NONE && v->freq_source && strstr(v->freq_source, "not observable here"))
		snprintf(msg, sizeof(msg), "frequency line: %s", v->freq_source);  /* its own words */
	else if (st == FL_NONE)
		snprintf(msg, sizeof(msg), "frequency line: not observable here (%s)",
		         v->freq_source && v->freq_source[0] ? v->freq_source : "no frequency source");
	else if (!ui_freqline_room())
		snprintf(msg, sizeof(msg), "frequency line: no room under a graph this small (z: zoom; v: off)");
	else if (st == FL_WAIT)
		snprintf(msg, sizeof(msg), "frequency line: waiting for the first sample (v: off)");
	else
		snprintf(msg, sizeof(msg), "frequency line: mean of the workload's CPUs, from %s (v: off)",
		         v->freq_source);
	return msg;
}

/* Rows: a title rule naming the source and the newest value, then the
 * line (one cell per sample, newest on the right; eighth blocks under
 * UTF-8, else digits of the ramp). */
void ui_freqline_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *last = v->hist ? history_last(v->hist) : NULL;
	if (r.h < 2)
		return;
	enum fl_state st = fl_state(v);
	if (st == FL_WAIT) {
		ui_title((struct rect){ r.y, r.x, 1, r.w }, "Frequency", "waiting for the first sample");
		return;
	}
	if (st == FL_NONE) {
		ui_title((struct rect){ r.y, r.x, 1, r.w }, "Frequency", "not observable here");
		ui_text(r.y + 1, r.x + 2, r.w - 4, ROLE_DIM,
		        "frequency: not observable here (no cpufreq: nothing to draw)");
		return;
	}
	int w = r.w - 8, h = r.h - 1;
	size_t len = history_len(v->hist), n = len < (size_t)w ? len : (size_t)w;
	double lo = INFINITY, hi = 0;
	for (size_t i = len - n; i < len; i++) {
		double k = mean_khz(history_at(v->hist, i));
		if (k > 0) {
			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
		}
	}
	double now = mean_khz(last);
	char extra[96], a[24], b[24], c[24];
	ui_fmt_khz(now > 0 ? (long)now : -1, a, sizeof(a), UI_KHZ_FULL);
	snprintf(b, sizeof(b), "%.2fG", hi / 1e6);
	snprintf(c, sizeof(c), "%.2fG", isfinite(lo) ? lo / 1e6 : 0);
	snprintf(extra, sizeof(extra), "the workload's CPUs, %s: %s (v: off)", v->freq_source, a);
	ui_title((struct rect){ r.y, r.x, 1, r.w }, "Frequency", extra);
	ui_text(r.y + 1, r.x, 7, ROLE_AXIS, b);
	if (h > 1)
		ui_text(r.y + h, r.x, 7, ROLE_AXIS, c);
	if (!(hi > 0))
		return;
	double span = hi - lo > hi * 0.02 ? hi - lo : hi * 0.02, base = hi - span;
	static const wchar_t blocks[] = { L' ', 0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588 };
	attr_t at = ui_attr(ROLE_FREQ_HI);
	for (size_t i = len - n; i < len; i++) {
		double k = mean_khz(history_at(v->hist, i));
		int x = r.x + 8 + w - (int)(len - i);
		if (!(k > 0))
			continue;
		int eighths = (int)lround((k - base) / span * h * 8);
		eighths = eighths < 1 ? 1 : eighths > h * 8 ? h * 8 : eighths;
		for (int row = 0; row < h; row++) {
			int cell = eighths - (h - 1 - row) * 8;
			if (cell <= 0)
				continue;
			cell = cell > 8 ? 8 : cell;
			ui_wch(r.y + 1 + row, x, blocks[cell], cell >= 4 ? '#' : '.', at);
		}
	}
}

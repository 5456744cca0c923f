/* help.c - the help screen: the keys, generated from ui_keys[] (the table
 * that dispatches them, so it cannot list a key that does nothing), then
 * what every heading and abbreviation on screen means.  Pages when it does
 * not fit: Space or Down for the next, Up for the previous. */
#include "uipriv.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* What the screen's words mean.  An empty first word: a section title
 * (capitalised) or the previous description going on. */
static const char *const glossary[][2] = {
	{ "", "Header" },
	{ "frequency:", "where CPU frequencies come from, in plain words" },
	{ "self", "benchtop's own CPU use;  every Ns: the sample interval" },
	{ "done", "every workload has ended: the screen stays, q prints the summary" },
	{ "", "Throughput graph (d: one scale for all lines)" },
	{ "wr write", "what the workloads write (destination side), all together" },
	{ "rd read", "what the workloads read" },
	{ "w1 w2 ..", "one workload's write rate" },
	{ "dw dr", "disk w / disk r: the block device's writes and reads; over the" },
	{ "  \xe2\x86\x91 ^", "workloads' scale they are clipped at the top, marked with an up-arrow" },
	{ "dirty/wb", "dirty and writeback memory (page cache not yet on disk)" },
	{ "markers", "\xe2\x97\x86* marker  \xe2\x96\xb6> placement  ~ governor/cap  \xe2\x80\x96= pause/resume  \xe2\x96\xa0# end" },
	{ "strip", "under the axis: markers whose label did not fit, newest first" },
	{ "", "CPUs and Residency" },
	{ "u/s/w/i", "load bar: user, system, iowait and irq time (letters without colour)" },
	{ "cap", "scaling_max_freq is capped at this frequency (F; \"no cap\" lifts it)" },
	{ "residency", "time at each frequency, since start and since the last event;" },
	{ "", "one colour per frequency, lowest to highest of this machine" },
	{ "avg", "mean effective frequency over the period" },
	{ "", "Processes (o: sort, /: filter) and Placement" },
	{ "PID WL", "process id; the workload it belongs to (--attach: 1, the attached processes)" },
	{ "ROLE", "reader, writer, control, cmd, seeker ... what the process does" },
	{ "CPU", "the CPU it last ran on;  ALLOWED: the CPUs it may run on" },
	{ "S", "state: R running, S sleeping, D disk wait, T stopped, Z zombie, x ended" },
	{ "%CPU", "CPU use over the last interval, all threads (100 = one CPU)" },
	{ "WAIT%", "time spent waiting on a run queue, % of the interval" },
	{ "USER SYS", "CPU seconds in user and kernel mode since it started" },
	{ "HOG", "(user+sys) / its lifetime: how much of one CPU it held" },
	{ "READ WRITE", "its own read and write rates;  BYTES: bytes it has done" },
	{ "MIG", "migrations: times the scheduler moved it to another CPU" },
	{ "K M G", "compact numbers: KiB MiB GiB (kB MB GB in SI units)" },
	{ "placement", "one character per sample: the CPU it ran on (0-9, a-z)" },
	{ "-", "a figure that could not be measured (or too short to compute)" },
};
#define NGLOSS (sizeof(glossary) / sizeof(glossary[0]))

static int page;

void ui_help_page(int d)
{
	page = d == 0 ? 0 : page + d < 0 ? 0 : page + d;
}

/* Line i of the whole help: keys first, then the glossary. */
static void line_at(const struct ui_view *v, size_t i, int y, int x, int w)
{
	int namew = 10;
	if (i == 0) {
		ui_text(y, x, w, ROLE_TITLE, "Keys");
		return;
	}
	if (i <= ui_nkeys) {
		const struct ui_key_binding *b = &ui_keys[i - 1];
		ui_text(y, x, namew, ROLE_KEY, b->name);
		ui_textf(y, x + namew + 1, w - namew - 1,
		         (b->replay_only && !v->replay) || ((b->live_only || b->steers) && v->replay) ? ROLE_DIM : ROLE_NORMAL, "%s", b->help);
		return;
	}
	i -= ui_nkeys + 1;
	if (i == 0) {
		ui_text(y, x, w, ROLE_NORMAL, "Mouse: a click selects a process, the wheel moves the "
		        "selection (--no-mouse: off).");
		return;
	}
	const char *const *g = glossary[i - 1];
	if (!g[0][0]) {   /* a section title, or a description going on */
		if (g[1][0] >= 'A' && g[1][0] <= 'Z')
			ui_text(y, x, w, ROLE_TITLE, g[1]);
		else
			ui_text(y, x + namew + 1, w - namew - 1, ROLE_NORMAL, g[1]);
		return;
	}
	ui_text(y, x, namew, ROLE_KEY, g[0]);
	ui_text(y, x + namew + 1, w - namew - 1, ROLE_NORMAL, g[1]);
}

void ui_help_draw(const struct ui_view *v, struct rect r)
{
	size_t total = 1 + ui_nkeys + 1 + NGLOSS;
	int rows = r.h - 3;
	if (rows < 1)
		rows = 1;
	/* Two columns when the terminal is wide enough for them. */
	int ncol = r.w >= 170 ? 2 : 1, colw = (r.w - 4) / ncol;
	int per = rows * ncol, npages = (int)((total + (size_t)per - 1) / (size_t)per);
	if (page >= npages)
		page = npages - 1;
	char extra[96];
	snprintf(extra, sizeof(extra), "page %d/%d: Space/Down more, Up back, Esc or q closes",
	         page + 1, npages);
	ui_title((struct rect){ r.y, r.x, 1, r.w }, "benchtop help", extra);
	for (int k = 0; k < per; k++) {
		size_t i = (size_t)page * (size_t)per + (size_t)k;
		if (i >= total)
			break;
		line_at(v, i, r.y + 2 + k % rows, r.x + 2 + k / rows * colw, colw - 2);
	}
}

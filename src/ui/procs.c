/* procs.c - the processes table.  Columns come from one table with a
 * priority each; a narrow terminal drops the least important ones first. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>
#include "benchtop/units.h"

struct cell_ctx { const struct ui_view *v; const struct proc_sample *p; };
typedef void (*cell_fn)(const struct cell_ctx *c, char *buf, size_t len);

static void c_pid(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%d", (int)c->p->pid); }
static void c_wl(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%d", c->p->workload); }
static void c_role(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%s", c->p->role); }
static void c_cpu(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%d", c->p->cpu); }
static void c_allowed(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%s", c->p->allowed); }
static void c_state(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%c", c->p->state ? c->p->state : '?'); }
static void c_cpupct(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%.1f", c->p->cpu_pct); }
static void c_wait(const struct cell_ctx *c, char *b, size_t l)
{
	if (c->p->wait_pct < 0)
		snprintf(b, l, "-");
	else
		snprintf(b, l, "%.1f", c->p->wait_pct);
}
static void c_user(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%.2f", c->p->utime); }
static void c_sys(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%.2f", c->p->stime); }
static void c_hog(const struct cell_ctx *c, char *b, size_t l)
{
	double el = c->v->elapsed;
	if (el > 0)
		snprintf(b, l, "%.0f%%", 100 * (c->p->utime + c->p->stime) / el);
	else
		snprintf(b, l, "-");
}
static void c_read(const struct cell_ctx *c, char *b, size_t l) { units_fmt_rate(c->v->units, c->p->read_bps, b, l); }
static void c_write(const struct cell_ctx *c, char *b, size_t l) { units_fmt_rate(c->v->units, c->p->write_bps, b, l); }
static void c_bytes(const struct cell_ctx *c, char *b, size_t l) { units_fmt_bytes(c->v->units, c->p->bytes, b, l); }
static void c_mig(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%llu", (unsigned long long)c->p->migrations); }
static void c_comm(const struct cell_ctx *c, char *b, size_t l) { snprintf(b, l, "%s", c->p->comm); }

static const struct column {
	const char *head;
	int width, prio;   /* prio 0 is kept longest */
	bool right;
	cell_fn fn;
} cols[] = {
	{ "PID", 7, 0, true, c_pid }, { "WL", 2, 2, true, c_wl },
	{ "ROLE", 7, 1, false, c_role }, { "CPU", 3, 0, true, c_cpu },
	{ "ALLOWED", 7, 1, false, c_allowed }, { "S", 1, 1, false, c_state },
	{ "%CPU", 5, 0, true, c_cpupct }, { "WAIT%", 5, 2, true, c_wait },
	{ "USER", 7, 3, true, c_user }, { "SYS", 7, 3, true, c_sys },
	{ "HOG", 4, 2, true, c_hog }, { "READ", 11, 0, true, c_read },
	{ "WRITE", 11, 0, true, c_write }, { "BYTES", 9, 1, true, c_bytes },
	{ "MIG", 5, 1, true, c_mig }, { "COMMAND", 15, 4, false, c_comm },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* Drop columns from the least important priority until the row fits. */
static void choose(int width, bool *show)
{
	for (size_t i = 0; i < NCOLS; i++)
		show[i] = true;
	for (int prio = 4; prio > 0; prio--) {
		int need = 0;
		for (size_t i = 0; i < NCOLS; i++)
			need += show[i] ? cols[i].width + 1 : 0;
		if (need <= width)
			return;
		for (size_t i = 0; i < NCOLS; i++)
			if (cols[i].prio == prio)
				show[i] = false;
	}
}

static void row(const bool *show, int y, int x, int w, enum theme_role role,
                const struct cell_ctx *c)
{
	char line[512], cell[64];
	size_t n = 0;
	for (size_t i = 0; i < NCOLS && n + 1 < sizeof(line); i++) {
		if (!show[i])
			continue;
		if (c)
			cols[i].fn(c, cell, sizeof(cell));
		else
			snprintf(cell, sizeof(cell), "%s", cols[i].head);
		int cw = cols[i].width;
		n += (size_t)snprintf(line + n, sizeof(line) - n, cols[i].right ? "%*.*s " : "%-*.*s ",
		                      cw, cw, cell);
	}
	if (n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, "%*s", w > (int)n ? w - (int)n : 0, "");
	ui_text(y, x, w, role, line);
}

void ui_procs_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	char extra[48];
	snprintf(extra, sizeof(extra), "%d tracked, Up/Down select", s ? s->nproc : 0);
	ui_title(r, "Processes", extra);
	bool show[NCOLS];
	choose(r.w, show);
	row(show, r.y + 1, r.x, r.w, ROLE_TITLE, NULL);
	if (!s)
		return;
	int rows = r.h - 2, first = 0;
	/* Keep the selection on screen. */
	if (v->selected >= rows)
		first = v->selected - rows + 1;
	for (int i = first; i < s->nproc && i - first < rows; i++) {
		struct cell_ctx c = { v, &s->procs[i] };
		enum theme_role role = i == v->selected ? ROLE_SELECT
		                     : s->procs[i].alive ? ROLE_NORMAL : ROLE_DIM;
		row(show, r.y + 2 + i - first, r.x, r.w, role, &c);
	}
}

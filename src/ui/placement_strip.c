/* placement.c - per role of a workload, the CPU its process ran on in each
 * of the last samples (a character and a colour per CPU) and its
 * migration count.  A row follows a role (its slot), not a PID: a process
 * that takes the place of an ended one continues the row after a blank
 * cell. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>

#define LEFT 24   /* "pid role comm" */
#define RIGHT 10  /* " mig 123" */
#define MAX_ROWS 128

/* A row: a workload's slot; recordings without slots key rows by PID. */
struct row {
	int wl;
	const char *slot;
	pid_t pid;
};

static bool in_row(const struct proc_sample *p, const struct row *r)
{
	if (!r->slot[0] || !p->slot[0])
		return p->pid == r->pid;
	return p->workload == r->wl && !strcmp(p->slot, r->slot);
}

static const struct proc_sample *find_proc(const struct snapshot *s, const struct row *r)
{
	for (int i = 0; i < s->nproc; i++)
		if (in_row(&s->procs[i], r))
			return &s->procs[i];
	return NULL;
}

static char cpu_char(int cpu)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	return cpu >= 0 && cpu < 36 ? digits[cpu] : '+';
}

/* The row is built in memory and written with one call; samples where
 * the role had no process stay blank.  The first sample of a process that
 * replaced another (a restart) is underlined, not blanked: a command that
 * --loop runs back to back is a new process in every sample, and its row
 * still shows where each ran. */
static void strip(const struct ui_view *v, const struct row *r, int y, int x, int w)
{
	chtype cells[1024];
	size_t len = history_len(v->hist);
	int col = w - 1, first = w;
	if (w > 1024)
		return;
	chtype blank = ui_blank();
	const struct proc_sample *q = len ? find_proc(history_at(v->hist, len - 1), r) : NULL;
	for (size_t i = len; i-- > 0 && col >= 0; col--) {
		const struct proc_sample *older = i ? find_proc(history_at(v->hist, i - 1), r) : NULL;
		bool restart = q && older && older->pid != q->pid;
		if (!q || q->cpu < 0) {
			cells[col] = blank;
		} else {
			enum theme_role role = ROLE_CPU0 + q->cpu % THEME_NCPU_ROLES;
			cells[col] = (chtype)cpu_char(q->cpu) | ui_cell_attr(ui_attr(role)) |
			             (restart ? A_UNDERLINE : 0);
		}
		first = col;
		q = older;
	}
	if (first < w)
		mvaddchnstr(y, x + first, cells + first, w - first);
}

/* The rows: every role seen in the visible samples, newest first seen
 * first, so a role between two runs of its process keeps its row. */
static int collect_rows(const struct ui_view *v, int span, struct row *rows, int max)
{
	size_t len = history_len(v->hist);
	int n = 0;
	for (size_t i = len; i-- > 0 && span-- > 0;) {
		const struct snapshot *s = history_at(v->hist, i);
		for (int k = 0; k < s->nproc && n < max; k++) {
			const struct proc_sample *p = &s->procs[k];
			int j = 0;
			while (j < n && !in_row(p, &rows[j]))
				j++;
			if (j == n)
				rows[n++] = (struct row){ p->workload, p->slot, p->pid };
		}
	}
	return n;
}

/* How much a row has to be shown when not all fit: a live process in a
 * busy role first, then a live idle one (control, idle), then ended ones. */
static int row_rank(const struct snapshot *s, const struct row *r)
{
	const struct proc_sample *p = find_proc(s, r);
	if (!p || !p->alive)
		return 0;
	return !strcmp(p->role, "control") || !strcmp(p->role, "idle") ? 1 : 2;
}

/* Keep the nrows rows that matter most, in their order (a shown row does
 * not move when another is dropped). */
static int keep_rows(const struct snapshot *s, struct row *rows, int n, int nrows)
{
	int out = 0;
	for (int rank = 2; rank >= 0 && n > nrows; rank--) {
		int above = 0;
		for (int i = 0; i < n; i++)
			above += row_rank(s, &rows[i]) >= rank;
		if (above < nrows)
			continue;
		/* rows of this rank or higher fill the panel: keep them, the
		 * ones of this rank in order until the panel is full */
		int room = nrows, higher = 0;
		for (int i = 0; i < n; i++)
			higher += row_rank(s, &rows[i]) > rank;
		int same = room - higher;
		for (int i = 0; i < n; i++) {
			int k = row_rank(s, &rows[i]);
			if (k > rank || (k == rank && same-- > 0))
				rows[out++] = rows[i];
		}
		return out;
	}
	return n;
}

void ui_placement_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	int nrows = r.h - 1, w = r.w - LEFT - RIGHT;
	struct row rows[MAX_ROWS];
	int n = s && w > 4 ? collect_rows(v, w, rows, MAX_ROWS) : 0;
	char extra[96];
	int more = n > nrows ? n - nrows : 0;
	if (more)
		n = keep_rows(s, rows, n, nrows);
	snprintf(extra, sizeof(extra), "CPU of each role's process per sample, newest right%s",
	         more ? " (more in a taller terminal)" : "");
	ui_title(r, "Placement", extra);
	const struct proc_sample *sel = s && v->selected >= 0 && v->selected < s->nproc ?
	                                &s->procs[v->selected] : NULL;
	for (int i = 0; i < n && i < nrows; i++) {
		const struct proc_sample *p = find_proc(s, &rows[i]);
		const struct proc_sample *any = p;
		for (size_t k = history_len(v->hist); !any && k-- > 0;)
			any = find_proc(history_at(v->hist, k), &rows[i]);
		int y = r.y + 1 + i;
		/* the role's latest PID, its role and command name */
		ui_textf(y, r.x, LEFT, sel && in_row(sel, &rows[i]) ? ROLE_SELECT : ROLE_NORMAL,
		         "%7d %-7.7s %-7.7s ", any ? (int)any->pid : 0, any ? any->role : "",
		         any ? any->comm : "");
		strip(v, &rows[i], y, r.x + LEFT, w);
		if (p)
			ui_textf(y, r.x + LEFT + w, RIGHT, ROLE_NORMAL, " mig %llu",
			         (unsigned long long)p->migrations);
		else
			ui_textf(y, r.x + LEFT + w, RIGHT, ROLE_DIM, " ended");
	}
}

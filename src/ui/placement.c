/* placement.c - per process, the CPU it ran on in each of the last samples
 * (a character and a colour per CPU) and its migration count. */
#include "uipriv.h"

#include <stdio.h>

#define LEFT 24   /* "pid comm" */
#define RIGHT 10  /* " mig 123" */

static const struct proc_sample *find_proc(const struct snapshot *s, pid_t pid, int hint)
{
	if (hint < s->nproc && s->procs[hint].pid == pid)
		return &s->procs[hint];
	for (int i = 0; i < s->nproc; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static char cpu_char(int cpu)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	return cpu >= 0 && cpu < 36 ? digits[cpu] : '+';
}

/* The row is built in memory and written with one call; samples where
 * the process was not seen stay blank. */
static void strip(const struct ui_view *v, const struct proc_sample *p, int hint,
                  int y, int x, int w)
{
	chtype cells[1024];
	size_t len = history_len(v->hist);
	int col = w - 1, first = w;
	if (w > 1024)
		return;
	chtype blank = ui_blank();
	for (size_t i = len; i-- > 0 && col >= 0; col--) {
		const struct proc_sample *q = find_proc(history_at(v->hist, i), p->pid, hint);
		if (!q || q->cpu < 0) {
			cells[col] = blank;
			continue;
		}
		enum theme_role role = ROLE_CPU0 + q->cpu % THEME_NCPU_ROLES;
		cells[col] = (chtype)cpu_char(q->cpu) | ui_cell_attr(ui_attr(role));
		first = col;
	}
	if (first < w)
		mvaddchnstr(y, x + first, cells + first, w - first);
}

void ui_placement_draw(const struct ui_view *v, struct rect r)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	int rows = r.h - 1, w = r.w - LEFT - RIGHT;
	static const struct proc_sample *list[512];
	int n = ui_procs_list(v, list, 512);
	char extra[96];
	int more = n > rows ? n - rows : 0;
	snprintf(extra, sizeof(extra), "CPU of each process per sample, newest right%s",
	         more ? " (more in a taller terminal)" : "");
	ui_title(r, "Placement", extra);
	if (!s)
		return;
	bool sel_ok = v->selected >= 0 && v->selected < s->nproc;
	for (int i = 0; i < n && i < rows && w > 4; i++) {
		const struct proc_sample *p = list[i];
		int y = r.y + 1 + i;
		bool live = p >= s->procs && p < s->procs + s->nproc;
		int hint = live ? (int)(p - s->procs) : 0;
		enum theme_role role = sel_ok && p == &s->procs[v->selected] ? ROLE_SELECT
		                     : live ? ROLE_NORMAL : ROLE_DIM;
		ui_textf(y, r.x, LEFT, role, "%7d %-15.15s ", (int)p->pid, p->comm);
		strip(v, p, hint, y, r.x + LEFT, w);
		ui_textf(y, r.x + LEFT + w, RIGHT, ROLE_NORMAL, " mig %llu",
		         (unsigned long long)p->migrations);
	}
}

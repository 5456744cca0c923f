/* proclist.c - the rows the Processes and Placement panels show: the
 * live processes (filtered by name with /, sorted with o), then the ones
 * that have ended, kept with their last totals (state x) so a finished
 * run stays readable.  Also where Up/Down and the mouse land in that
 * order. */
#include "uipriv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GONE 256

/* ---- processes that have ended ---- */

static struct {
	const struct history *hist;
	uint64_t seen;                 /* history_total at the last update */
	struct proc_sample p[MAX_GONE];
	int n;
	unsigned char *masks;          /* MAX_GONE allowed masks of ncpu bytes, p[i]'s at i */
	int ncpu;
} gone;

/* Each ended process's allowed mask is its own copy (the samples it came
 * from are reused as the ring turns). */
static void gone_repoint(void)
{
	for (int i = 0; i < gone.n; i++)
		gone.p[i].allowed = gone.masks ? gone.masks + (size_t)i * (size_t)gone.ncpu : NULL;
}

static void gone_move(int to, int from, int n)
{
	memmove(&gone.p[to], &gone.p[from], (size_t)n * sizeof(gone.p[0]));
	if (gone.masks)
		memmove(gone.masks + (size_t)to * (size_t)gone.ncpu, gone.masks + (size_t)from * (size_t)gone.ncpu,
		        (size_t)n * (size_t)gone.ncpu);
}

static bool in_snapshot(const struct snapshot *s, pid_t pid)
{
	for (int i = 0; i < s->nproc; i++)
		if (s->procs[i].pid == pid)
			return true;
	return false;
}

static void forget(pid_t pid)
{
	for (int i = 0; i < gone.n; i++)
		if (gone.p[i].pid == pid) {
			gone_move(i, i + 1, gone.n - i - 1);
			gone.n--;
			gone_repoint();
			return;
		}
}

/* Every process of one sample missing from the next is kept as ended. */
static void note_gone(const struct snapshot *prev, const struct snapshot *now)
{
	for (int i = 0; i < prev->nproc; i++) {
		const struct proc_sample *p = &prev->procs[i];
		if (in_snapshot(now, p->pid))
			continue;
		forget(p->pid);
		if (gone.n == MAX_GONE) {
			gone_move(0, 1, MAX_GONE - 1);
			gone.n--;
		}
		if (prev->ncpu != gone.ncpu) {   /* another machine's replay */
			free(gone.masks);
			gone.ncpu = prev->ncpu;
			gone.masks = calloc(MAX_GONE, (size_t)(gone.ncpu > 0 ? gone.ncpu : 1));
		}
		struct proc_sample *q = &gone.p[gone.n++];
		*q = *p;
		if (gone.masks && p->allowed)
			memcpy(gone.masks + (size_t)(gone.n - 1) * (size_t)gone.ncpu, p->allowed, (size_t)gone.ncpu);
		else if (gone.masks)
			memset(gone.masks + (size_t)(gone.n - 1) * (size_t)gone.ncpu, 0, (size_t)gone.ncpu);
		gone_repoint();
		q->state = 'x';
		q->alive = false;
		q->cpu_pct = 0;
		q->read_bps = q->write_bps = 0;
		q->wait_pct = -1;
	}
	for (int i = 0; i < now->nproc; i++)   /* a pid seen again is live */
		forget(now->procs[i].pid);
}

static void update_gone(const struct history *h)
{
	uint64_t total = history_total(h);
	size_t len = history_len(h);
	if (h != gone.hist || total < gone.seen) {   /* a new history, or a replay seek */
		gone.hist = h;
		gone.n = 0;
		gone.seen = total > len ? total - len : 0;
	}
	uint64_t base = total - len;
	if (gone.seen < base + 1)
		gone.seen = base + 1;
	for (; gone.seen < total; gone.seen++)
		note_gone(history_at(h, (size_t)(gone.seen - 1 - base)),
		          history_at(h, (size_t)(gone.seen - base)));
}

/* ---- sorting ---- */

enum sort_key { SORT_NONE, SORT_CPU, SORT_WRITE, SORT_READ, SORT_BYTES, SORT_MIG, SORT_WAIT,
                SORT_HOG, SORT_PID, SORT_COUNT };
static const char *const sort_names[SORT_COUNT] = {
	"tracking order", "%CPU", "WRITE", "READ", "BYTES", "MIG", "WAIT%", "HOG", "PID",
};
static const char *const sort_heads[SORT_COUNT] = {
	"", "%CPU", "WRITE", "READ", "BYTES", "MIG", "WAIT%", "HOG", "PID",
};
static enum sort_key sort_by;
static bool sort_invert;       /* smallest first */
static double sort_elapsed;

const char *ui_procs_next_sort(void)
{
	sort_by = (sort_by + 1) % SORT_COUNT;
	sort_invert = false;
	return sort_names[sort_by];
}

int ui_procs_nsorts(void)
{
	return SORT_COUNT;
}

const char *ui_procs_sort_name(int i)
{
	return i >= 0 && i < SORT_COUNT ? sort_names[i] : "";
}

int ui_procs_sort_index(void)
{
	return (int)sort_by;
}

bool ui_procs_sort_inverted(void)
{
	return sort_invert;
}

void ui_procs_set_sort(int i, bool invert)
{
	sort_by = i >= 0 && i < SORT_COUNT ? (enum sort_key)i : SORT_NONE;
	sort_invert = sort_by != SORT_NONE && invert;
}

const char *ui_procs_sort_by_head(const char *head)
{
	for (int i = 1; head && i < SORT_COUNT; i++)
		if (!strcmp(sort_heads[i], head)) {
			ui_procs_set_sort(i, sort_by == (enum sort_key)i && !sort_invert);
			return sort_names[i];
		}
	return NULL;
}

const char *ui_procs_sort_head(void)
{
	return sort_heads[sort_by];
}

static double hog_of(const struct proc_sample *p)
{
	double el = p->age > 0 ? p->age : sort_elapsed;
	return el > 0 ? (p->utime + p->stime) / el : 0;
}

static double sort_value(const struct proc_sample *p)
{
	switch (sort_by) {
	case SORT_CPU: return p->cpu_pct;
	case SORT_WRITE: return p->write_bps;
	case SORT_READ: return p->read_bps;
	case SORT_BYTES: return (double)p->bytes;
	case SORT_MIG: return (double)p->migrations;
	case SORT_WAIT: return p->wait_pct;
	case SORT_HOG: return hog_of(p);
	case SORT_PID: return -(double)p->pid;   /* ascending */
	default: return 0;
	}
}

/* Largest first; ties keep the tracking order (the pointers' order). */
static int by_value(const void *a, const void *b)
{
	const struct proc_sample *p = *(const struct proc_sample *const *)a;
	const struct proc_sample *q = *(const struct proc_sample *const *)b;
	double x = sort_value(p), y = sort_value(q);
	if (x != y)
		return (x > y) != sort_invert ? -1 : 1;
	return p < q ? -1 : p > q;
}

/* ---- the tree ---- */

static bool tree_on;
#define TREE_PREFIX 48
static struct { pid_t pid; char prefix[TREE_PREFIX]; } tree_rows[MAX_GONE * 4];
static int tree_n;

bool ui_procs_toggle_tree(void)
{
	return tree_on = !tree_on;
}

bool ui_procs_tree(void)
{
	return tree_on;
}

const char *ui_procs_tree_prefix(const struct proc_sample *p)
{
	if (!tree_on || !p->alive)
		return "";
	for (int i = 0; i < tree_n; i++)
		if (tree_rows[i].pid == p->pid)
			return tree_rows[i].prefix;
	return "";
}

static int index_in(const struct proc_sample **v, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (v[i]->pid == pid)
			return i;
	return -1;
}

/* Depth-first from i: its children in the current order, each line's
 * prefix built from its ancestors' ("│  " where one has more siblings
 * to come, "   " where not) and its own "├─ " or "└─ ". */
static void tree_walk(const struct proc_sample **in, int n, int i, const char *lead, bool last,
                      bool root, const struct proc_sample **out, int *k, unsigned char *done)
{
	if (done[i] || *k >= n)
		return;
	done[i] = 1;
	out[*k] = in[i];
	if (tree_n < (int)(sizeof(tree_rows) / sizeof(tree_rows[0]))) {
		tree_rows[tree_n].pid = in[i]->pid;
		snprintf(tree_rows[tree_n].prefix, TREE_PREFIX, "%s%s", lead,
		         root ? "" : last ? (ui_utf8 ? "\u2514\u2500 " : "`- ") : (ui_utf8 ? "\u251c\u2500 " : "|- "));
		tree_n++;
	}
	(*k)++;
	char sub[TREE_PREFIX];
	snprintf(sub, sizeof(sub), "%s%s", lead, root ? "" : last ? "   " : (ui_utf8 ? "\u2502  " : "|  "));
	int kids[64], nk = 0;
	for (int j = 0; j < n && nk < 64; j++)
		if (j != i && !done[j] && in[j]->ppid == in[i]->pid)
			kids[nk++] = j;
	for (int c = 0; c < nk; c++)
		tree_walk(in, n, kids[c], sub, c == nk - 1, false, out, k, done);
}

/* The n live rows in tree order: roots (no listed parent) in the
 * current order, each followed by its descendants. */
static void tree_order(const struct proc_sample **rows, int n)
{
	static const struct proc_sample **in;
	static unsigned char *done;
	static int cap;
	tree_n = 0;
	if (n > cap) {
		const struct proc_sample **ni = realloc(in, (size_t)n * sizeof(*ni));
		unsigned char *nd = ni ? realloc(done, (size_t)n) : NULL;
		if (ni)
			in = ni;
		if (!nd)
			return;
		done = nd;
		cap = n;
	}
	memcpy(in, rows, (size_t)n * sizeof(*in));
	memset(done, 0, (size_t)n);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (index_in(in, n, in[i]->ppid) < 0)
			tree_walk(in, n, i, "", true, true, rows, &k, done);
	for (int i = 0; i < n; i++)   /* a cycle of parents: listed as is */
		if (!done[i])
			tree_walk(in, n, i, "", true, true, rows, &k, done);
}

/* ---- the list ---- */

static bool shown_by_filter(const struct proc_sample *p)
{
	const char *f = ui_proc_filter();
	return !f[0] || strcasestr(p->comm, f) || strcasestr(p->role, f);
}

/* An ended process stays listed once its workload has ended too (a
 * running command's short-lived children come and go). */
static bool workload_ended(const struct snapshot *s, int id)
{
	for (int i = 0; i < s->nwl; i++)
		if (s->wls[i].id == id)
			return s->wls[i].state == WLS_DONE || s->wls[i].state == WLS_FAILED;
	return false;
}

int ui_procs_list(const struct ui_view *v, const struct proc_sample **out, int max)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	if (!s)
		return 0;
	update_gone(v->hist);
	int n = 0;
	for (int i = 0; i < s->nproc && n < max; i++)
		if (shown_by_filter(&s->procs[i]))
			out[n++] = &s->procs[i];
	if (sort_by != SORT_NONE) {
		sort_elapsed = v->elapsed;
		qsort(out, (size_t)n, sizeof(*out), by_value);
	}
	if (tree_on)
		tree_order(out, n);
	for (int i = gone.n; i-- > 0 && n < max;)   /* newest ended first */
		if (workload_ended(s, gone.p[i].workload) && shown_by_filter(&gone.p[i]))
			out[n++] = &gone.p[i];
	return n;
}

bool ui_procs_ordered(void)
{
	return sort_by != SORT_NONE || ui_proc_filter()[0] || tree_on;
}

/* The snapshot index of a listed row, -1 for an ended process. */
static int index_of(const struct snapshot *s, const struct proc_sample *p)
{
	return s && p >= s->procs && p < s->procs + s->nproc ? (int)(p - s->procs) : -1;
}

/* The rows as shown, in a buffer kept between calls; their count. */
static int shown_rows(const struct ui_view *v, const struct proc_sample ***out)
{
	static const struct proc_sample **rows;
	static int cap;
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	int want = (s ? s->nproc : 0) + MAX_GONE;
	if (want > cap) {
		const struct proc_sample **r = realloc(rows, (size_t)want * sizeof(*r));
		if (!r)
			return 0;
		rows = r, cap = want;
	}
	*out = rows;
	return ui_procs_list(v, rows, cap);
}

/* The shown position of the selection among the live rows (-1 none);
 * *live: how many live rows there are. */
static int selected_at(const struct ui_view *v, const struct proc_sample **rows, int n, int *live)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	int at = -1;
	*live = 0;
	for (int i = 0; i < n; i++) {
		int k = index_of(s, rows[i]);
		*live += k >= 0;
		if (k >= 0 && k == v->selected)
			at = i;
	}
	return at;
}

static int select_row(const struct ui_view *v, const struct proc_sample *p, struct action *out)
{
	memset(out, 0, sizeof(*out));
	out->policy = -1;
	out->id = ACT_SELECT;
	out->cpu = index_of(history_last(v->hist), p);
	return 1;
}

int ui_procs_step(const struct ui_view *v, int d, struct action *out)
{
	memset(out, 0, sizeof(*out));
	out->policy = -1;
	if (!ui_procs_ordered() && (d == 1 || d == -1)) {
		out->id = d < 0 ? ACT_SEL_UP : ACT_SEL_DOWN;
		return 1;
	}
	const struct proc_sample **rows;
	int n = shown_rows(v, &rows), live;
	int at = selected_at(v, rows, n, &live);
	if (live == 0)
		return 0;
	at = at < 0 ? 0 : at + d;
	at = at < 0 ? 0 : at >= live ? live - 1 : at;
	return select_row(v, rows[at], out);
}

static int page_rows = 10;

int ui_procs_page(void)
{
	return page_rows > 1 ? page_rows : 1;
}

static bool holds(const struct proc_sample *p, const char *text)
{
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)p->pid);
	return strcasestr(p->comm, text) || strcasestr(p->role, text) || strstr(pid, text);
}

int ui_procs_find(const struct ui_view *v, const char *text, bool next, struct action *out)
{
	const struct proc_sample **rows;
	int n = shown_rows(v, &rows), live;
	int at = selected_at(v, rows, n, &live);
	if (live == 0)
		return 0;
	int from = at < 0 ? 0 : next ? at + 1 : at;
	for (int k = 0; k < live; k++) {
		int i = (from + k) % live;
		if (holds(rows[i], text))
			return select_row(v, rows[i], out);
	}
	return 0;
}

/* ---- the mouse ---- */

static struct rect procs_rect;
static int procs_first;

void ui_procs_where(struct rect r, int first)
{
	procs_rect = r;
	procs_first = first;
	page_rows = r.h - 2;
}

int ui_mouse_key(const struct ui_view *v, struct action *out)
{
	MEVENT ev;
	if (getmouse(&ev) != OK || ui_help_shown() || ui_too_small())
		return 0;
	if (ev.bstate & BUTTON4_PRESSED)
		return ui_procs_step(v, -1, out);
	if (ev.bstate & BUTTON5_PRESSED)
		return ui_procs_step(v, 1, out);
	if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
		return 0;
	if (ev.y == procs_rect.y + 1 && ev.x >= procs_rect.x && ev.x < procs_rect.x + procs_rect.w) {
		const char *head = ui_procs_head_at(ev.x - procs_rect.x), *name = ui_procs_sort_by_head(head);
		memset(out, 0, sizeof(*out));
		out->policy = -1;
		out->id = ACT_NOTE;
		if (name)
			snprintf(out->text, sizeof(out->text), "processes sorted by %s%s (click again: the other way)",
			         name, ui_procs_sort_inverted() ? ", inverted" : "");
		else
			snprintf(out->text, sizeof(out->text), "%s does not sort (F6: the columns that do)",
			         head ? head : "that column");
		return 1;
	}
	int row = ev.y - (procs_rect.y + 2);
	if (row < 0 || row >= procs_rect.h - 2 || ev.x < procs_rect.x ||
	    ev.x >= procs_rect.x + procs_rect.w)
		return 0;
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	const struct proc_sample *rows[512];
	int n = ui_procs_list(v, rows, 512), i = procs_first + row;
	if (i >= n || index_of(s, rows[i]) < 0)
		return 0;
	memset(out, 0, sizeof(*out));
	out->policy = -1;
	out->id = ACT_SELECT;
	out->cpu = index_of(s, rows[i]);
	return 1;
}

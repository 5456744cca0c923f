/* menus.c - the dashboard's menus, drawn over the panels: G (governor), F
 * (frequency cap), F6 (sort column), F9 (a signal for the selected
 * process) and a (the selected process's CPUs, a checkbox each).  Up and
 * Down choose, Enter applies, Esc cancels; what each applies is an
 * action, as a key would give. */
#include "uipriv.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "benchtop/cpulist.h"

#define st ui_ks

static const struct { int sig; const char *name, *what; } signals[] = {
	{ SIGTERM, "TERM", "ask it to end" }, { SIGKILL, "KILL", "end it now" },
	{ SIGSTOP, "STOP", "stop it (state T)" }, { SIGCONT, "CONT", "let it run again" },
	{ SIGINT, "INT", "as Ctrl-C" }, { SIGHUP, "HUP", "hang-up" },
	{ SIGQUIT, "QUIT", "quit (may dump core)" }, { SIGUSR1, "USR1", "user signal 1" },
	{ SIGUSR2, "USR2", "user signal 2" },
};
#define NSIGNALS (int)(sizeof(signals) / sizeof(signals[0]))

int ui_ncpus_of(const struct ui_view *v)
{
	if (v->ncpus_online > 0)
		return v->ncpus_online;
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	return s ? s->ncpu : 1;
}

const struct proc_sample *ui_selected_proc(const struct ui_view *v)
{
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	if (!s || s->nproc == 0)
		return NULL;
	int i = v->selected < 0 ? 0 : v->selected >= s->nproc ? s->nproc - 1 : v->selected;
	return &s->procs[i];
}

bool ui_menu_shown(void)
{
	return st.mode >= M_GOV;
}

static int menu_len(const struct ui_view *v)
{
	int n = 0;
	switch (st.mode) {
	case M_GOV:
		while (v->governors && v->governors[n] && n < UI_MENU_MAX)
			n++;
		return n;
	case M_FREQ:
		return (int)(v->nfreqs < UI_MENU_MAX - 1 ? v->nfreqs : UI_MENU_MAX - 1) + 1;
	case M_SORT: return ui_procs_nsorts();
	case M_SIGNAL: return NSIGNALS;
	case M_AFFINITY: return st.ncpus;
	default: return 0;
	}
}

/* The menu row of the current governor / cap (the last row, "no cap",
 * when there is none). */
static int current_row(const struct ui_view *v)
{
	int n = menu_len(v);
	if (st.mode == M_GOV) {
		for (int i = 0; i < n; i++)
			if (v->cur_governor && !strcmp(v->governors[i], v->cur_governor))
				return i;
		return 0;
	}
	for (int i = 0; i < n - 1; i++)
		if (v->cap_khz > 0 && v->freqs[i] == v->cap_khz)
			return i;
	return n > 0 ? n - 1 : 0;
}

static void who_of(const struct proc_sample *p)
{
	st.pid = p->pid;
	snprintf(st.who, sizeof(st.who), "PID %d (%s)", (int)p->pid, p->comm);
}

int ui_menu_open(const struct ui_view *v, enum action_id id, struct action *out)
{
	const struct proc_sample *p = ui_selected_proc(v);
	switch (id) {
	/* With nothing to choose from, the key goes straight to the app,
	 * which says why (e.g. no cpufreq on this machine). */
	case ACT_MENU_GOV:
		if (!v->governors || !v->governors[0]) {
			ui_fill(out, ACT_GOV_NEXT);
			return 1;
		}
		ui_open_mode(M_GOV);
		st.sel = current_row(v);
		return 0;
	case ACT_MENU_MAXFREQ:
		if (v->nfreqs == 0) {
			ui_fill(out, ACT_MAXFREQ);
			return 1;
		}
		ui_open_mode(M_FREQ);
		st.sel = current_row(v);
		return 0;
	case ACT_MENU_SORT:
		ui_open_mode(M_SORT);
		st.sel = ui_procs_sort_index();
		st.invert = ui_procs_sort_inverted();
		ui_fill(out, ACT_NONE);
		return 1;
	case ACT_MENU_SIGNAL: case ACT_MENU_AFFINITY:
		if (!p || !p->alive) {
			ui_fill(out, ACT_NOTE);
			snprintf(out->text, sizeof(out->text), "no running process selected (Up/Down or a click selects one)");
			return 1;
		}
		ui_open_mode(id == ACT_MENU_SIGNAL ? M_SIGNAL : M_AFFINITY);
		who_of(p);
		if (id == ACT_MENU_AFFINITY) {
			st.ncpus = ui_ncpus_of(v) < UI_MENU_MAX ? ui_ncpus_of(v) : UI_MENU_MAX;
			if (p->allowed && cpulist_count(p->allowed, st.ncpus))
				memcpy(st.cpus, p->allowed, (size_t)st.ncpus);
			else
				memset(st.cpus, 1, (size_t)st.ncpus);   /* not known: every CPU ticked */
			st.scope = 0;
		}
		return 0;
	default:
		return 0;
	}
}

/* Enter in a menu: what the selected row applies. */
static int menu_pick(const struct ui_view *v, struct action *out)
{
	int n = menu_len(v);
	if (n == 0) {
		ui_close_prompt();
		return 0;
	}
	switch (st.mode) {
	case M_GOV:
		ui_fill(out, ACT_GOV_SET);
		snprintf(out->text, sizeof(out->text), "%s", v->governors[st.sel]);
		out->policy = st.scope;
		break;
	case M_FREQ:
		ui_fill(out, ACT_MAXFREQ);
		/* The last row is "no cap": 0 lifts the limit. */
		out->khz = st.sel < n - 1 ? v->freqs[st.sel] : 0;
		out->policy = st.scope;
		break;
	case M_SORT:
		ui_procs_set_sort(st.sel, st.invert);
		ui_fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), "processes sorted by %s%s", ui_procs_sort_name(st.sel),
		         ui_procs_sort_inverted() ? ", inverted" : "");
		break;
	case M_SIGNAL:
		ui_fill(out, ACT_SIGNAL);
		out->sig = signals[st.sel].sig;
		out->pid = st.pid;
		snprintf(out->text, sizeof(out->text), "SIG%s", signals[st.sel].name);
		break;
	case M_AFFINITY:
		if (cpulist_count(st.cpus, st.ncpus) == 0) {
			ui_fill(out, ACT_NOTE);
			snprintf(out->text, sizeof(out->text), "check at least one CPU (Space), or Esc");
			return 1;   /* the dialog stays open */
		}
		ui_fill(out, ACT_PIN_LIST);
		cpulist_format(st.cpus, st.ncpus, out->text, sizeof(out->text));
		out->whole = st.scope;
		out->pid = st.pid;
		break;
	default:
		break;
	}
	ui_close_prompt();
	return 1;
}

int ui_menu_key(const struct ui_view *v, int key, struct action *out)
{
	int n = menu_len(v);
	if (key == KEY_ESC || key == 'q' || (key == KEY_F(9) && st.mode == M_SIGNAL) ||
	    (key == KEY_F(6) && st.mode == M_SORT)) {
		ui_close_prompt();
	} else if (key == KEY_UP || key == 'k') {
		st.sel = st.sel > 0 ? st.sel - 1 : (n ? n - 1 : 0);
	} else if (key == KEY_DOWN || key == 'j') {
		st.sel = n ? (st.sel + 1) % n : 0;
	} else if (key == KEY_HOME) {
		st.sel = 0;
	} else if (key == KEY_END) {
		st.sel = n ? n - 1 : 0;
	} else if (key == KEY_TAB && (st.mode == M_GOV || st.mode == M_FREQ)) {
		/* scope cycles all CPUs -> cpu0 -> cpu1 ... -> all */
		st.scope = st.scope + 1 < ui_ncpus_of(v) ? st.scope + 1 : -1;
	} else if (key == KEY_TAB && st.mode == M_AFFINITY) {
		st.scope = !st.scope;   /* this process, or its whole workload */
	} else if (key == ' ' && st.mode == M_AFFINITY && st.sel < st.ncpus) {
		st.cpus[st.sel] = !st.cpus[st.sel];
	} else if (key >= '0' && key <= '9' && st.mode == M_AFFINITY && key - '0' < st.ncpus) {
		st.sel = key - '0';
		st.cpus[st.sel] = !st.cpus[st.sel];
	} else if ((key == 'I' || key == 'i') && st.mode == M_SORT) {
		st.invert = !st.invert;
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		return menu_pick(v, out);
	}
	return 0;
}

const char *ui_menu_prompt(void)
{
	switch (st.mode) {
	case M_SORT:
		return "sort: Up/Down choose, I inverts, Enter sorts, Esc cancels";
	case M_SIGNAL:
		snprintf(st.line, sizeof(st.line), "signal to %s: Up/Down choose, Enter sends, Esc cancels", st.who);
		return st.line;
	case M_AFFINITY:
		snprintf(st.line, sizeof(st.line), "CPUs of %s: Space toggles, Tab %s, Enter pins, Esc cancels", st.who,
		         st.scope ? "this process only" : "whole workload");
		return st.line;
	default:
		return "menu: Up/Down choose, Tab CPU, Enter apply, Esc cancel";
	}
}

static const struct ui_bar_item bar_menu[] = {
	{ "Enter", "Apply" }, { "Tab", "CPU" }, { "Esc", "Cancel" }, { NULL, NULL } };
static const struct ui_bar_item bar_sort[] = {
	{ "Enter", "Sort" }, { "I", "Invert" }, { "Esc", "Cancel" }, { NULL, NULL } };
static const struct ui_bar_item bar_signal[] = {
	{ "Enter", "Send" }, { "Esc", "Cancel" }, { NULL, NULL } };
static const struct ui_bar_item bar_affinity[] = {
	{ "Space", "Toggle" }, { "Enter", "Pin" }, { "Tab", "Whole" }, { "Esc", "Cancel" }, { NULL, NULL } };

const struct ui_bar_item *ui_menu_bar(void)
{
	switch (st.mode) {
	case M_SORT: return bar_sort;
	case M_SIGNAL: return bar_signal;
	case M_AFFINITY: return bar_affinity;
	default: return bar_menu;
	}
}

/* ---- the overlay ---- */

/* A menu row, "(current)" after the governor, cap or sort in force. */
static void menu_row(const struct ui_view *v, int i, char *buf, size_t len)
{
	int n = menu_len(v);
	bool cur = false;
	switch (st.mode) {
	case M_GOV:
		snprintf(buf, len, "%s", v->governors[i]);
		cur = v->cur_governor && !strcmp(v->governors[i], v->cur_governor);
		break;
	case M_FREQ:
		if (i < n - 1) {
			ui_fmt_khz(v->freqs[i], buf, len, UI_KHZ_FULL);
			cur = v->cap_khz > 0 && v->freqs[i] == v->cap_khz;
		} else {
			snprintf(buf, len, "no cap");
			cur = v->cap_khz <= 0;
		}
		break;
	case M_SORT:
		snprintf(buf, len, "%s", ui_procs_sort_name(i));
		cur = i == ui_procs_sort_index();
		break;
	case M_SIGNAL:
		snprintf(buf, len, "%2d %-5s %s", signals[i].sig, signals[i].name, signals[i].what);
		break;
	case M_AFFINITY:
		snprintf(buf, len, "[%c] CPU %d", st.cpus[i] ? 'x' : ' ', i);
		break;
	default:
		buf[0] = 0;
	}
	if (cur && strlen(buf) + 11 < len)
		strcat(buf, " (current)");
}

static void menu_title(char *title, size_t tl, char *extra, size_t el)
{
	switch (st.mode) {
	case M_GOV: case M_FREQ:
		snprintf(title, tl, "%s", st.mode == M_GOV ? "governor" : "max frequency");
		if (st.scope < 0)
			snprintf(extra, el, "all CPUs");
		else
			snprintf(extra, el, "CPU %d", st.scope);
		break;
	case M_SORT:
		snprintf(title, tl, "sort by");
		snprintf(extra, el, "%s", st.invert ? "inverted (I)" : "I inverts");
		break;
	case M_SIGNAL:
		snprintf(title, tl, "signal");
		snprintf(extra, el, "%s", st.who);
		break;
	default:
		snprintf(title, tl, "CPUs");
		snprintf(extra, el, "%s%s", st.scope ? "workload of " : "", st.who);
		break;
	}
}

static const char *menu_foot(void)
{
	switch (st.mode) {
	case M_SORT: return "Enter sort  I invert  Esc";
	case M_SIGNAL: return "Enter send  Esc cancel";
	case M_AFFINITY: return "Space toggle  Enter pin  Esc";
	default: return "Enter apply  Tab CPU  Esc";
	}
}

void ui_menu_draw(const struct ui_view *v, struct rect r)
{
	if (!ui_menu_shown())
		return;
	int n = menu_len(v), w = st.mode == M_SIGNAL || st.mode == M_AFFINITY ? 44 : 34, h = n + 4;
	if (h > r.h - 2)
		h = r.h - 2;
	int rows = h - 3, first = st.sel >= rows ? st.sel - rows + 1 : 0;
	int y0 = r.y + (r.h - h) / 2, x0 = r.x + (r.w - w) / 2;
	for (int y = 0; y < h; y++)
		ui_textf(y0 + y, x0, w, ROLE_NORMAL, "%*s", w, "");
	char title[32], extra[96];
	menu_title(title, sizeof(title), extra, sizeof(extra));
	ui_title((struct rect){ y0, x0, 1, w }, title, extra);
	if (n == 0)
		ui_text(y0 + 1, x0 + 2, w - 4, ROLE_WARN,
		        st.mode == M_GOV ? "no governors here" : "no frequencies here");
	for (int i = first; i < n && i - first < rows; i++) {
		char buf[80];
		menu_row(v, i, buf, sizeof(buf));
		ui_textf(y0 + 1 + i - first, x0 + 1, w - 2, i == st.sel ? ROLE_SELECT : ROLE_NORMAL,
		         " %-*s", w - 3, buf);
	}
	ui_text(y0 + h - 1, x0 + 1, w - 2, ROLE_DIM, menu_foot());
}

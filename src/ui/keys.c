/* keys.c - the key table (the only list of keys: dispatch, the help screen
 * and the man page test all read it), the line-editing prompts of p and m,
 * and the G / F menus. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>

#define KEY_ESC 27
#define KEY_TAB '\t'
#define MENU_MAX 40

const struct ui_key_binding ui_keys[] = {
	{ .key = KEY_F(1), .alt = 'h', .name = "F1/h", .help = "this help: keys, then what every heading and abbreviation means", .action = ACT_HELP },
	{ .key = KEY_UP, .alt = 'k', .name = "Up/k", .help = "select the previous process", .action = ACT_SEL_UP },
	{ .key = KEY_DOWN, .alt = 'j', .name = "Down/j", .help = "select the next process", .action = ACT_SEL_DOWN },
	{ .key = '0', .last = '9', .name = "0-9", .help = "pin the selected process (all its threads) to that CPU", .action = ACT_PIN_CPU },
	{ .key = 'p', .name = "p", .help = "pin the selected process to a typed CPU list (Tab: whole workload)", .action = ACT_PROMPT_PIN },
	{ .key = 's', .name = "s", .help = "spread: every process on a CPU of its own, round robin", .action = ACT_SPREAD },
	{ .key = 'c', .name = "c", .help = "pack: every process onto the selected process's CPU", .action = ACT_PACK },
	{ .key = 'f', .name = "f", .help = "free: every process back to all CPUs", .action = ACT_FREE },
	{ .key = 'g', .name = "g", .help = "next governor on all CPUs", .action = ACT_GOV_NEXT },
	{ .key = 'G', .name = "G", .help = "pick a governor from a menu, for all CPUs or one (Tab)", .action = ACT_MENU_GOV },
	{ .key = 'F', .name = "F", .help = "cap the maximum frequency from a menu; \"no cap\" lifts it", .action = ACT_MENU_MAXFREQ },
	{ .key = 'm', .name = "m", .help = "add a marker with a typed label", .action = ACT_PROMPT_MARKER },
	{ .key = ' ', .name = "space", .help = "pause / resume the workloads (SIGSTOP / SIGCONT)", .action = ACT_PAUSE },
	{ .key = 'r', .name = "r", .help = "restart the selected finished workload", .action = ACT_RESTART },
	{ .key = 'x', .name = "x", .help = "stop the selected workload", .action = ACT_STOP },
	{ .key = '+', .name = "+", .help = "longer sample interval (samples less often)", .action = ACT_SLOWER },
	{ .key = '-', .name = "-", .help = "shorter sample interval (samples more often)", .action = ACT_FASTER },
	{ .key = 'u', .name = "u", .help = "units: iec (MiB/s) -> si (MB/s) -> bits (Mbit/s)", .action = ACT_UNITS },
	{ .key = 't', .name = "t", .help = "next colour theme", .action = ACT_THEME },
	{ .key = 'd', .name = "d", .help = "graph: one scale for all lines, or back to the workloads' scale", .action = ACT_SCALE },
	{ .key = 'o', .name = "o", .help = "sort the processes by the next column (the heading marks it)", .action = ACT_SORT },
	{ .key = '/', .name = "/", .help = "filter the processes by name (Enter with nothing: all)", .action = ACT_PROMPT_FILTER },
	{ .key = '?', .name = "?", .help = "this help (Esc or q closes it)", .action = ACT_HELP },
	{ .key = 'q', .alt = KEY_F(10), .name = "q/F10", .help = "quit: stop workloads, restore governors, print the summary", .action = ACT_QUIT },
	{ .key = '<', .name = "<", .help = "replay: slower", .action = ACT_REPLAY_SLOWER, .replay_only = true },
	{ .key = '>', .name = ">", .help = "replay: faster", .action = ACT_REPLAY_FASTER, .replay_only = true },
	{ .key = KEY_LEFT, .name = "Left", .help = "replay: back 10 s", .action = ACT_SEEK_BACK, .replay_only = true },
	{ .key = KEY_RIGHT, .name = "Right", .help = "replay: forward 10 s", .action = ACT_SEEK_FWD, .replay_only = true },
	{ .key = KEY_HOME, .name = "Home", .help = "replay: to the start", .action = ACT_SEEK_START, .replay_only = true },
	{ .key = KEY_END, .name = "End", .help = "replay: to the end", .action = ACT_SEEK_END, .replay_only = true },
};
const size_t ui_nkeys = sizeof(ui_keys) / sizeof(ui_keys[0]);

const struct ui_key_binding *ui_key_find(int key)
{
	for (size_t i = 0; i < ui_nkeys; i++) {
		const struct ui_key_binding *b = &ui_keys[i];
		if (key == b->key || (b->alt && key == b->alt) ||
		    (b->last && key >= b->key && key <= b->last))
			return b;
	}
	return NULL;
}

/* ---- the prompt and menu state ---- */

enum mode { M_NONE, M_PIN, M_PIN_WHOLE, M_MARKER, M_FILTER, M_GOV, M_FREQ };

static char name_filter[64];   /* the Processes panel's name filter, "" none */

const char *ui_proc_filter(void)
{
	return name_filter;
}

static struct {
	enum mode mode;
	char text[128];
	size_t len;
	int sel;         /* menu row */
	int scope;       /* menus: -1 all CPUs, else that CPU */
	char line[256];  /* what the status line shows */
} st;

static void close_prompt(void)
{
	st.mode = M_NONE;
	st.len = 0;
	st.text[0] = 0;
}

static void open_mode(enum mode m)
{
	close_prompt();
	st.mode = m;
	st.sel = 0;
	st.scope = -1;
}

static int ncpus_of(const struct ui_view *v)
{
	if (v->ncpus_online > 0)
		return v->ncpus_online;
	const struct snapshot *s = v->hist ? history_last(v->hist) : NULL;
	return s ? s->ncpu : 1;
}

static int menu_len(const struct ui_view *v)
{
	int n = 0;
	if (st.mode == M_GOV)
		while (v->governors && v->governors[n] && n < MENU_MAX)
			n++;
	else if (st.mode == M_FREQ)
		n = (int)(v->nfreqs < MENU_MAX - 1 ? v->nfreqs : MENU_MAX - 1) + 1;
	return n;
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

static void fill(struct action *out, enum action_id id)
{
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->policy = -1;
}

/* Enter in a menu: the governor or frequency on the selected row. */
static int menu_pick(const struct ui_view *v, struct action *out)
{
	int n = menu_len(v);
	if (n == 0) {
		close_prompt();
		return 0;
	}
	if (st.mode == M_GOV) {
		fill(out, ACT_GOV_SET);
		snprintf(out->text, sizeof(out->text), "%s", v->governors[st.sel]);
	} else {
		fill(out, ACT_MAXFREQ);
		/* The last row is "no cap": 0 lifts the limit. */
		out->khz = st.sel < n - 1 ? v->freqs[st.sel] : 0;
	}
	out->policy = st.scope;
	close_prompt();
	return 1;
}

static int menu_key(const struct ui_view *v, int key, struct action *out)
{
	int n = menu_len(v);
	if (key == KEY_ESC || key == 'q') {
		close_prompt();
	} else if (key == KEY_UP || key == 'k') {
		st.sel = st.sel > 0 ? st.sel - 1 : (n ? n - 1 : 0);
	} else if (key == KEY_DOWN || key == 'j') {
		st.sel = n ? (st.sel + 1) % n : 0;
	} else if (key == KEY_TAB) {
		/* scope cycles all CPUs -> cpu0 -> cpu1 ... -> all */
		st.scope = st.scope + 1 < ncpus_of(v) ? st.scope + 1 : -1;
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		return menu_pick(v, out);
	}
	return 0;
}

static int prompt_done(struct action *out)
{
	if (st.mode == M_FILTER) {
		snprintf(name_filter, sizeof(name_filter), "%s", st.text);
		fill(out, ACT_NOTE);
		if (name_filter[0])
			snprintf(out->text, sizeof(out->text), "processes whose name holds \"%s\" (/ then Enter: all)", name_filter);
		else
			snprintf(out->text, sizeof(out->text), "all processes shown");
		close_prompt();
		return 1;
	}
	if (st.mode == M_MARKER) {
		fill(out, ACT_MARKER);
	} else {
		fill(out, ACT_PIN_LIST);
		out->whole = st.mode == M_PIN_WHOLE;
	}
	snprintf(out->text, sizeof(out->text), "%s", st.text);
	close_prompt();
	return 1;
}

static int prompt_key(int key, struct action *out)
{
	if (key == KEY_ESC) {
		close_prompt();
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		return prompt_done(out);
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		/* Drop one whole UTF-8 character. */
		while (st.len > 0 && ((unsigned char)st.text[--st.len] & 0xC0) == 0x80)
			;
		st.text[st.len] = 0;
	} else if (key == KEY_TAB && (st.mode == M_PIN || st.mode == M_PIN_WHOLE)) {
		st.mode = st.mode == M_PIN ? M_PIN_WHOLE : M_PIN;
	} else if (key == 21) {   /* ^U: clear the line, as in a shell */
		st.len = 0;
		st.text[0] = 0;
	} else if (key >= 32 && key < 256 && st.len + 1 < sizeof(st.text)) {
		st.text[st.len++] = (char)key;
		st.text[st.len] = 0;
	}
	return 0;
}

/* A key as the user knows it: "y", "Enter", "F9", "^A". */
static void key_label(int key, char *buf, size_t len)
{
	if (key == '\n' || key == '\r' || key == KEY_ENTER)
		snprintf(buf, len, "Enter");
	else if (key == KEY_ESC)
		snprintf(buf, len, "Esc");
	else if (key == KEY_TAB)
		snprintf(buf, len, "Tab");
	else if (key == KEY_BACKSPACE || key == 127 || key == 8)
		snprintf(buf, len, "Backspace");
	else if (key >= KEY_F(1) && key <= KEY_F(24))
		snprintf(buf, len, "F%d", key - KEY_F(0));
	else if (key > 32 && key < 127)
		snprintf(buf, len, "%c", key);
	else if (key >= 128 && key < 256)
		snprintf(buf, len, "that key");
	else {
		const char *n = keyname(key);
		if (n && !strncmp(n, "KEY_", 4))
			n += 4;
		snprintf(buf, len, "%s", n ? n : "that key");
	}
}

/* A key that does nothing here says so, and where the keys are: never
 * silence, never the end of the run. */
static int unbound_key(int key, struct action *out)
{
	char name[32];
	key_label(key, name, sizeof(name));
	fill(out, ACT_NOTE);
	snprintf(out->text, sizeof(out->text), "%s does nothing here: F1 for the keys", name);
	return 1;
}

static int table_key(const struct ui_view *v, int key, struct action *out)
{
	const struct ui_key_binding *b = ui_key_find(key);
	if (!b || (b->replay_only && !v->replay))
		return unbound_key(key, out);
	switch (b->action) {   /* keys that change only the view */
	case ACT_SCALE:
		fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), ui_graph_toggle_scale()
		         ? "graph: one scale for all lines" : "graph: scaled to the workloads, disk lines clipped");
		return 1;
	case ACT_SORT:
		fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), "processes sorted by %s", ui_procs_next_sort());
		return 1;
	case ACT_PROMPT_FILTER:
		open_mode(M_FILTER);   /* a new filter each time: / then Enter shows all */
		st.text[0] = 0;
		st.len = 0;
		return 0;
	case ACT_SEL_UP: case ACT_SEL_DOWN:
		return ui_procs_step(v, b->action == ACT_SEL_UP ? -1 : 1, out);
	default:
		break;
	}
	/* A recording cannot be steered: the key comes back as itself, with
	 * no prompt or menu, and the replay says why it does nothing. */
	if (!v->replay) {
		switch (b->action) {
		case ACT_PROMPT_PIN: open_mode(M_PIN); return 0;
		case ACT_PROMPT_MARKER: open_mode(M_MARKER); return 0;
		/* With nothing to choose from, the key goes straight to the
		 * app, which says why (e.g. no cpufreq on this machine). */
		case ACT_MENU_GOV:
			if (!v->governors || !v->governors[0]) {
				fill(out, ACT_GOV_NEXT);
				return 1;
			}
			open_mode(M_GOV);
			st.sel = current_row(v);
			return 0;
		case ACT_MENU_MAXFREQ:
			if (v->nfreqs == 0) {
				fill(out, ACT_MAXFREQ);
				return 1;
			}
			open_mode(M_FREQ);
			st.sel = current_row(v);
			return 0;
		default: break;
		}
	}
	fill(out, b->action);
	if (b->action == ACT_PIN_CPU)
		out->cpu = key - '0';
	return 1;
}

/* While the terminal is too small nothing is on screen to act on: only
 * q, F10, ? and resizes act; every other key says so. */
static int too_small_key(int key, struct action *out)
{
	const struct ui_key_binding *b = ui_key_find(key);
	if (b && (b->action == ACT_QUIT || (b->action == ACT_HELP && key == '?'))) {
		close_prompt();
		fill(out, b->action);
		return 1;
	}
	fill(out, ACT_NOTE);
	snprintf(out->text, sizeof(out->text), "enlarge the terminal to use keys");
	ui_note_small(out->text);
	return 1;
}

int ui_key_feed(const struct ui_view *v, int key, struct action *out)
{
	if (ui_too_small() && !ui_help_shown())
		return too_small_key(key, out);
	if (ui_help_shown()) {
		/* Space / Down / Up turn its pages; any other key closes the
		 * help (the app toggles it on ACT_HELP) and does nothing else. */
		if (key == ' ' || key == KEY_DOWN || key == KEY_NPAGE || key == 'j' ||
		    key == KEY_UP || key == KEY_PPAGE || key == 'k') {
			ui_help_page(key == KEY_UP || key == KEY_PPAGE || key == 'k' ? -1 : 1);
			fill(out, ACT_NONE);
			return 1;
		}
		ui_help_page(0);
		fill(out, ACT_HELP);
		return 1;
	}
	switch (st.mode) {
	case M_NONE: return table_key(v, key, out);
	case M_GOV: case M_FREQ: return menu_key(v, key, out);
	default: return prompt_key(key, out);
	}
}

const char *ui_key_prompt(void)
{
	switch (st.mode) {
	case M_PIN: case M_PIN_WHOLE:
		snprintf(st.line, sizeof(st.line), "pin %s to CPUs: %s_   (Tab: %s, Enter, Esc)",
		         st.mode == M_PIN_WHOLE ? "the whole workload" : "the selected process",
		         st.text, st.mode == M_PIN_WHOLE ? "this process only" : "whole workload");
		return st.line;
	case M_MARKER:
		snprintf(st.line, sizeof(st.line), "marker label: %s_   (Enter, Esc)", st.text);
		return st.line;
	case M_FILTER:
		snprintf(st.line, sizeof(st.line), "show processes whose name holds: %s_   (Enter, Esc; empty: all)", st.text);
		return st.line;
	case M_GOV: case M_FREQ:
		return "menu: Up/Down choose, Tab CPU, Enter apply, Esc cancel";
	default:
		return NULL;
	}
}

static bool input_seen;

bool ui_input_seen(void)
{
	bool seen = input_seen;
	input_seen = false;
	return seen;
}

int ui_key(const struct ui_view *v, struct action *out)
{
	int ch;
	while ((ch = getch()) != ERR) {
		input_seen = true;
		if (ch == KEY_RESIZE) {
			/* curses has taken the new size already (getch does, and
			 * resizeterm queues this key): calling ui_resize here
			 * would queue another one, for ever. */
			clearok(curscr, TRUE);
			fill(out, ACT_NONE);
			return 1;
		}
		if (ch == KEY_MOUSE) {
			if (ui_mouse_key(v, out))
				return 1;
			continue;
		}
		if (ui_key_feed(v, ch, out))
			return 1;
		/* A prompt or menu changed: the caller redraws after we return. */
		if (st.mode != M_NONE) {
			fill(out, ACT_NONE);
			return 1;
		}
	}
	return 0;
}

/* ---- the menu overlay ---- */

/* A menu row, "(current)" after the governor or cap in force. */
static void menu_row(const struct ui_view *v, int i, char *buf, size_t len)
{
	int n = menu_len(v);
	bool cur = false;
	if (st.mode == M_GOV) {
		snprintf(buf, len, "%s", v->governors[i]);
		cur = v->cur_governor && !strcmp(v->governors[i], v->cur_governor);
	} else if (i < n - 1) {
		ui_fmt_khz(v->freqs[i], buf, len);
		cur = v->cap_khz > 0 && v->freqs[i] == v->cap_khz;
	} else {
		snprintf(buf, len, "no cap");
		cur = v->cap_khz <= 0;
	}
	if (cur && strlen(buf) + 11 < len)
		strcat(buf, " (current)");
}

void ui_menu_draw(const struct ui_view *v, struct rect r)
{
	if (st.mode != M_GOV && st.mode != M_FREQ)
		return;
	int n = menu_len(v), w = 34, h = n + 4;
	if (h > r.h - 2)
		h = r.h - 2;
	int y0 = r.y + (r.h - h) / 2, x0 = r.x + (r.w - w) / 2;
	for (int y = 0; y < h; y++)
		ui_textf(y0 + y, x0, w, ROLE_NORMAL, "%*s", w, "");
	char scope[32];
	if (st.scope < 0)
		snprintf(scope, sizeof(scope), "all CPUs");
	else
		snprintf(scope, sizeof(scope), "CPU %d", st.scope);
	ui_title((struct rect){ y0, x0, 1, w },
	         st.mode == M_GOV ? "governor" : "max frequency", scope);
	if (n == 0)
		ui_text(y0 + 1, x0 + 2, w - 4, ROLE_WARN,
		        st.mode == M_GOV ? "no governors here" : "no frequencies here");
	for (int i = 0; i < n && i < h - 3; i++) {
		char buf[64];
		menu_row(v, i, buf, sizeof(buf));
		ui_textf(y0 + 1 + i, x0 + 1, w - 2, i == st.sel ? ROLE_SELECT : ROLE_NORMAL,
		         " %-*s", w - 3, buf);
	}
	ui_text(y0 + h - 1, x0 + 1, w - 2, ROLE_DIM, "Enter apply  Tab CPU  Esc");
}

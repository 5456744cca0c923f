/* keys.c - the key table (the only list of keys: dispatch, the help screen,
 * the key bar and the man page test all read it), the line-editing
 * prompts (p, m, the filter and the search), and what the key bar shows
 * while one is open.  The menus are menus.c's. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>


const struct ui_key_binding ui_keys[] = {
	{ .key = KEY_F(1), .alt = 'h', .name = "F1/h", .help = "this help: keys, then what every heading and abbreviation means", .action = ACT_HELP, .bar_key = "F1", .bar = "Help" },
	{ .key = KEY_UP, .alt = 'k', .name = "Up/k", .help = "select the previous process", .action = ACT_SEL_UP },
	{ .key = KEY_DOWN, .alt = 'j', .name = "Down/j", .help = "select the next process", .action = ACT_SEL_DOWN },
	{ .key = KEY_PPAGE, .name = "PgUp", .help = "the process list one page up", .action = ACT_PAGE_UP },
	{ .key = KEY_NPAGE, .name = "PgDn", .help = "the process list one page down", .action = ACT_PAGE_DOWN },
	{ .key = KEY_HOME, .name = "Home", .help = "the first process (in a replay: to the start)", .action = ACT_FIRST, .live_only = true },
	{ .key = KEY_END, .name = "End", .help = "the last process (in a replay: to the end)", .action = ACT_LAST, .live_only = true },
	{ .key = '0', .last = '9', .name = "0-9", .help = "pin the selected process (all its threads) to that CPU", .action = ACT_PIN_CPU, .steers = true, .bar_key = "0-9", .bar = "Pin" },
	{ .key = 'p', .name = "p", .help = "pin the selected process to a typed CPU list (Tab: whole workload)", .action = ACT_PROMPT_PIN, .steers = true },
	{ .key = 'a', .name = "a", .help = "affinity: a checkbox per CPU for the selected process (Space toggles, Enter pins)", .action = ACT_MENU_AFFINITY, .steers = true, .bar_key = "a", .bar = "Affin", .bar_prio = 2 },
	{ .key = 's', .name = "s", .help = "spread: busy roles on CPUs of their own first, idle ones share", .action = ACT_SPREAD, .steers = true, .bar_key = "s", .bar = "Spread" },
	{ .key = 'c', .name = "c", .help = "pack: every process onto the selected process's CPU", .action = ACT_PACK, .steers = true, .bar_key = "c", .bar = "Pack" },
	{ .key = 'f', .name = "f", .help = "free: every process back to all CPUs", .action = ACT_FREE, .steers = true, .bar_key = "f", .bar = "Free" },
	{ .key = 'g', .name = "g", .help = "next governor on all CPUs", .action = ACT_GOV_NEXT, .steers = true, .bar_key = "g", .bar = "Gov" },
	{ .key = 'G', .name = "G", .help = "pick a governor from a menu, for all CPUs or one (Tab)", .action = ACT_MENU_GOV, .steers = true },
	{ .key = 'F', .name = "F", .help = "cap the maximum frequency from a menu; \"no cap\" lifts it", .action = ACT_MENU_MAXFREQ, .steers = true },
	{ .key = 'm', .name = "m", .help = "add a marker with a typed label", .action = ACT_PROMPT_MARKER, .steers = true, .bar_key = "m", .bar = "Mark" },
	{ .key = KEY_F(9), .name = "F9", .help = "send a signal to the selected process from a menu (TERM KILL STOP CONT ...)", .action = ACT_MENU_SIGNAL, .steers = true, .bar_key = "F9", .bar = "Signal", .bar_prio = 1 },
	{ .key = ' ', .name = "space", .help = "pause / resume the workloads (SIGSTOP / SIGCONT)", .action = ACT_PAUSE },
	{ .key = 'r', .name = "r", .help = "restart the selected finished workload", .action = ACT_RESTART, .steers = true },
	{ .key = 'x', .name = "x", .help = "stop the selected workload", .action = ACT_STOP, .steers = true },
	{ .key = '+', .name = "+", .help = "longer sample interval (samples less often)", .action = ACT_SLOWER },
	{ .key = '-', .name = "-", .help = "shorter sample interval (samples more often)", .action = ACT_FASTER },
	{ .key = 'u', .name = "u", .help = "units: iec (MiB/s) -> si (MB/s) -> bits (Mbit/s)", .action = ACT_UNITS },
	{ .key = 't', .name = "t", .help = "next colour theme", .action = ACT_THEME },
	{ .key = 'd', .name = "d", .help = "graph: one scale for all lines, or back to the workloads' scale", .action = ACT_SCALE },
	{ .key = 'z', .name = "z", .help = "zoom: the graph takes the whole screen; z again brings every panel back", .action = ACT_ZOOM, .bar_key = "z", .bar = "Zoom", .bar_prio = 2 },
	{ .key = 'v', .name = "v", .help = "the workload CPUs' mean frequency as a line under the graph (again: off)", .action = ACT_FREQ_LINE },
	{ .key = KEY_F(3), .name = "F3", .help = "search: the selection moves to the first name holding what is typed; F3 again: the next", .action = ACT_SEARCH, .bar_key = "F3", .bar = "Search", .bar_prio = 1 },
	{ .key = KEY_F(4), .alt = '\\', .name = "F4/\\", .help = "filter the processes by name as you type (Enter keeps it, Esc puts back the last)", .action = ACT_PROMPT_FILTER, .bar_key = "F4", .bar = "Filter", .bar_prio = 1 },
	{ .key = '/', .name = "/", .help = "filter the processes by name as you type, as F4 (Enter with nothing: all)", .action = ACT_PROMPT_FILTER },
	{ .key = KEY_F(5), .name = "F5", .help = "tree: processes under their parents (again: a flat list)", .action = ACT_TREE, .bar_key = "F5", .bar = "Tree", .bar_prio = 2 },
	{ .key = KEY_F(6), .name = "F6", .help = "sort by a column from a menu (I inverts; a click on a heading sorts too)", .action = ACT_MENU_SORT, .bar_key = "F6", .bar = "Sort", .bar_prio = 1 },
	{ .key = 'o', .name = "o", .help = "sort the processes by the next column (the heading marks it)", .action = ACT_SORT },
	{ .key = '?', .name = "?", .help = "this help (Esc or q closes it)", .action = ACT_HELP },
	{ .key = 'q', .alt = KEY_F(10), .name = "q/F10", .help = "quit: stop workloads, restore governors, print the summary", .action = ACT_QUIT, .bar_key = "F10", .bar = "Quit" },
	{ .key = '<', .name = "<", .help = "replay: slower", .action = ACT_REPLAY_SLOWER, .replay_only = true, .bar_key = "<", .bar = "Slower", .bar_prio = 1 },
	{ .key = '>', .name = ">", .help = "replay: faster", .action = ACT_REPLAY_FASTER, .replay_only = true, .bar_key = ">", .bar = "Faster", .bar_prio = 1 },
	{ .key = KEY_LEFT, .name = "Left", .help = "replay: back 10 s", .action = ACT_SEEK_BACK, .replay_only = true },
	{ .key = KEY_RIGHT, .name = "Right", .help = "replay: forward 10 s", .action = ACT_SEEK_FWD, .replay_only = true },
	{ .key = KEY_HOME, .name = "Home", .help = "replay: to the start", .action = ACT_SEEK_START, .replay_only = true },
	{ .key = KEY_END, .name = "End", .help = "replay: to the end", .action = ACT_SEEK_END, .replay_only = true },
};
const size_t ui_nkeys = sizeof(ui_keys) / sizeof(ui_keys[0]);

static bool matches(const struct ui_key_binding *b, int key)
{
	return key == b->key || (b->alt && key == b->alt) || (b->last && key >= b->key && key <= b->last);
}

const struct ui_key_binding *ui_key_find(int key)
{
	for (size_t i = 0; i < ui_nkeys; i++)
		if (matches(&ui_keys[i], key))
			return &ui_keys[i];
	return NULL;
}

const struct ui_key_binding *ui_key_find_for(int key, bool replay)
{
	for (size_t i = 0; i < ui_nkeys; i++) {
		const struct ui_key_binding *b = &ui_keys[i];
		if (matches(b, key) && !(b->replay_only && !replay) && !(b->live_only && replay))
			return b;
	}
	return NULL;
}

/* ---- the prompt state ---- */

static char name_filter[64];   /* the Processes panel's name filter, "" none */
static char filter_before[64]; /* the filter in force when F4 or / opened */

const char *ui_proc_filter(void)
{
	return name_filter;
}

struct ui_keystate ui_ks;
#define st ui_ks

void ui_close_prompt(void)
{
	st.mode = M_NONE;
	st.len = 0;
	st.text[0] = 0;
}

void ui_open_mode(enum ui_mode m)
{
	ui_close_prompt();
	st.mode = m;
	st.sel = 0;
	st.scope = -1;
}

void ui_fill(struct action *out, enum action_id id)
{
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->policy = -1;
}
#define fill ui_fill

static void filter_note(struct action *out)
{
	fill(out, ACT_NOTE);
	if (name_filter[0])
		snprintf(out->text, sizeof(out->text), "processes whose name holds \"%s\" (/ then Enter: all)", name_filter);
	else
		snprintf(out->text, sizeof(out->text), "all processes shown");
}

static int prompt_done(struct action *out)
{
	if (st.mode == M_FILTER) {
		filter_note(out);
		ui_close_prompt();
		return 1;
	}
	if (st.mode == M_SEARCH) {
		fill(out, ACT_NONE);
		ui_close_prompt();
		return 1;
	}
	if (st.mode == M_MARKER) {
		fill(out, ACT_MARKER);
	} else {
		fill(out, ACT_PIN_LIST);
		out->whole = st.mode == M_PIN_WHOLE;
	}
	snprintf(out->text, sizeof(out->text), "%s", st.text);
	ui_close_prompt();
	return 1;
}

/* The filter and the search act on every character typed: the list
 * narrows, the selection moves. */
static int as_you_type(const struct ui_view *v, bool next, struct action *out)
{
	if (st.mode == M_FILTER) {
		snprintf(name_filter, sizeof(name_filter), "%s", st.text);
		fill(out, ACT_NONE);
		return 1;
	}
	if (st.mode == M_SEARCH) {
		if (!st.text[0]) {
			fill(out, ACT_NONE);
			return 1;
		}
		if (ui_procs_find(v, st.text, next, out))
			return 1;
		fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), "no process name holds \"%s\"", st.text);
		return 1;
	}
	return 0;
}

static int prompt_key(const struct ui_view *v, int key, struct action *out)
{
	if (key == KEY_ESC) {
		if (st.mode == M_FILTER) {   /* Esc puts back the filter in force before */
			snprintf(name_filter, sizeof(name_filter), "%s", filter_before);
			filter_note(out);
			ui_close_prompt();
			return 1;
		}
		ui_close_prompt();
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		return prompt_done(out);
	} else if (key == KEY_F(3) && st.mode == M_SEARCH) {
		return as_you_type(v, true, out);
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		/* Drop one whole UTF-8 character. */
		while (st.len > 0 && ((unsigned char)st.text[--st.len] & 0xC0) == 0x80)
			;
		st.text[st.len] = 0;
		return as_you_type(v, false, out);
	} else if (key == KEY_TAB && (st.mode == M_PIN || st.mode == M_PIN_WHOLE)) {
		st.mode = st.mode == M_PIN ? M_PIN_WHOLE : M_PIN;
	} else if (key == 21) {   /* ^U: clear the line, as in a shell */
		st.len = 0;
		st.text[0] = 0;
		return as_you_type(v, false, out);
	} else if (key >= 32 && key < 256 && st.len + 1 < sizeof(st.text)) {
		st.text[st.len++] = (char)key;
		st.text[st.len] = 0;
		return as_you_type(v, false, out);
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

/* Keys that change only the view: handled here, said on the status line;
 * 0 when b is not one of them. */
static int view_key(const struct ui_view *v, const struct ui_key_binding *b, struct action *out)
{
	switch (b->action) {
	case ACT_SCALE:
		fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), ui_graph_toggle_scale()
		         ? "graph: one scale for all lines" : "graph: scaled to the workloads, disk lines clipped");
		return 1;
	case ACT_SORT:
		fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), "processes sorted by %s", ui_procs_next_sort());
		return 1;
	case ACT_TREE:
		fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), ui_procs_toggle_tree()
		         ? "tree view: processes under their parents (F5: flat list)" : "flat list (F5: tree view)");
		return 1;
	case ACT_ZOOM:
		fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), ui_toggle_zoom()
		         ? "zoom: the graph on the whole screen (z: every panel back)" : "every panel back (z: zoom the graph)");
		return 1;
	case ACT_FREQ_LINE:
		fill(out, ACT_NOTE);
		snprintf(out->text, sizeof(out->text), "%s", ui_freqline_toggle(v));
		return 1;
	case ACT_PROMPT_FILTER:
		snprintf(filter_before, sizeof(filter_before), "%s", name_filter);
		ui_open_mode(M_FILTER);   /* a new filter each time: / then Enter shows all */
		name_filter[0] = 0;
		fill(out, ACT_NONE);
		return 1;
	case ACT_SEARCH:
		ui_open_mode(M_SEARCH);
		fill(out, ACT_NONE);
		return 1;
	case ACT_MENU_SORT:
		return ui_menu_open(v, b->action, out);
	case ACT_SEL_UP: case ACT_SEL_DOWN:
		return ui_procs_step(v, b->action == ACT_SEL_UP ? -1 : 1, out);
	case ACT_PAGE_UP: case ACT_PAGE_DOWN:
		return ui_procs_step(v, (b->action == ACT_PAGE_UP ? -1 : 1) * ui_procs_page(), out);
	case ACT_FIRST: case ACT_LAST:
		return ui_procs_step(v, b->action == ACT_FIRST ? -100000 : 100000, out);
	default:
		return 0;
	}
}

static int table_key(const struct ui_view *v, int key, struct action *out)
{
	const struct ui_key_binding *b = ui_key_find_for(key, v->replay);
	if (!b)
		return unbound_key(key, out);
	if (view_key(v, b, out))
		return 1;
	/* A recording cannot be steered: the key comes back as itself, with
	 * no prompt or menu, and the replay says why it does nothing. */
	if (!v->replay) {
		switch (b->action) {
		case ACT_PROMPT_PIN: ui_open_mode(M_PIN); return 0;
		case ACT_PROMPT_MARKER: ui_open_mode(M_MARKER); return 0;
		case ACT_MENU_GOV: case ACT_MENU_MAXFREQ: case ACT_MENU_SIGNAL: case ACT_MENU_AFFINITY:
			return ui_menu_open(v, b->action, out);
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
		ui_close_prompt();
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
	if (st.mode == M_NONE)
		return table_key(v, key, out);
	if (ui_menu_shown())
		return ui_menu_key(v, key, out);
	return prompt_key(v, key, out);
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
		snprintf(st.line, sizeof(st.line), "filter: processes whose name holds: %s_   (Enter keeps, Esc puts back)", st.text);
		return st.line;
	case M_SEARCH:
		snprintf(st.line, sizeof(st.line), "search: %s_   (F3 next, Enter or Esc leaves)", st.text);
		return st.line;
	default:
		return ui_menu_shown() ? ui_menu_prompt() : NULL;
	}
}

/* ---- the key bar's entries while a prompt is open ---- */

static const struct ui_bar_item bar_pin[] = {
	{ "Enter", "Pin" }, { "Tab", "Whole" }, { "^U", "Clear" }, { "Esc", "Cancel" }, { NULL, NULL } };
static const struct ui_bar_item bar_marker[] = {
	{ "Enter", "Add" }, { "^U", "Clear" }, { "Esc", "Cancel" }, { NULL, NULL } };
static const struct ui_bar_item bar_filter[] = {
	{ "Enter", "Keep" }, { "^U", "Clear" }, { "Esc", "Cancel" }, { NULL, NULL } };
static const struct ui_bar_item bar_search[] = {
	{ "F3", "Next" }, { "Enter", "Done" }, { "Esc", "Leave" }, { NULL, NULL } };

const struct ui_bar_item *ui_key_bar(void)
{
	switch (st.mode) {
	case M_NONE: return NULL;
	case M_PIN: case M_PIN_WHOLE: return bar_pin;
	case M_MARKER: return bar_marker;
	case M_FILTER: return bar_filter;
	case M_SEARCH: return bar_search;
	default: return ui_menu_bar();
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

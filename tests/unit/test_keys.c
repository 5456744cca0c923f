/* test_keys.c - the key table: every key of SPEC §3 dispatches to its
 * action, prompts and menus build the right action, and every key name
 * of the table is in the KEYS section of man/benchtop.1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchtop/ui.h"

static const char *govs[] = { "performance", "powersave", NULL };
static const long freqs[] = { 800000, 2600000 };

static struct ui_view view(void)
{
	struct ui_view v = { .governors = govs, .freqs = freqs, .nfreqs = 2, .ncpus_online = 2 };
	return v;
}

/* Feed keys; returns the number of actions and leaves the last in *a. */
static int feed(const struct ui_view *v, const int *keys, size_t n, struct action *a)
{
	int got = 0;
	for (size_t i = 0; i < n; i++)
		got += ui_key_feed(v, keys[i], a);
	return got;
}

static void test_spec_keys_dispatch(void **state)
{
	(void)state;
	static const struct { int key; enum action_id id; } spec[] = {
		{ KEY_UP, ACT_SEL_UP }, { 'k', ACT_SEL_UP }, { KEY_DOWN, ACT_SEL_DOWN },
		{ 'j', ACT_SEL_DOWN }, { 's', ACT_SPREAD }, { 'c', ACT_PACK },
		{ 'f', ACT_FREE }, { 'g', ACT_GOV_NEXT }, { ' ', ACT_PAUSE },
		{ 'r', ACT_RESTART }, { 'x', ACT_STOP }, { '+', ACT_SLOWER },
		{ '-', ACT_FASTER }, { 'u', ACT_UNITS }, { 'q', ACT_QUIT },
	};
	struct ui_view v = view();
	for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		struct action a;
		assert_non_null(ui_key_find(spec[i].key));
		assert_int_equal(ui_key_feed(&v, spec[i].key, &a), 1);
		assert_int_equal(a.id, spec[i].id);
	}
	for (int d = 0; d <= 9; d++) {
		struct action a;
		assert_int_equal(ui_key_feed(&v, '0' + d, &a), 1);
		assert_int_equal(a.id, ACT_PIN_CPU);
		assert_int_equal(a.cpu, d);
	}
	/* keys that open a prompt, a menu or the help are in the table too */
	static const int more[] = { 'p', 'G', 'F', 'm', 't', '?' };
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		assert_non_null(ui_key_find(more[i]));
	assert_null(ui_key_find('Z'));
}

static void test_help_and_theme_keys(void **state)
{
	(void)state;
	struct ui_view v = view();
	struct action a;
	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
	assert_int_equal(ui_key_feed(&v, 't', &a), 1);
	assert_int_equal(a.id, ACT_THEME);
	assert_int_equal(ui_key_feed(&v, '?', &a), 1);
	assert_int_equal(a.id, ACT_HELP);
	ui_toggle_help();                       /* as the app does */
	/* while the help is shown, 'q' only closes it */
	assert_int_equal(ui_key_feed(&v, 'q', &a), 1);
	assert_int_equal(a.id, ACT_HELP);
	ui_toggle_help();
	assert_int_equal(ui_key_feed(&v, 'q', &a), 1);
	assert_int_equal(a.id, ACT_QUIT);
	/* t cycles through the themes the search path holds */
	const char *first = ui_next_theme();
	assert_non_null(first);
}

static void test_pin_prompt(void **state)
{
	(void)state;
	struct ui_view v = view();
	struct action a;
	int k1[] = { 'p', '0', '-', '2', KEY_BACKSPACE, '1', '\n' };
	assert_int_equal(feed(&v, k1, 7, &a), 1);
	assert_int_equal(a.id, ACT_PIN_LIST);
	assert_string_equal(a.text, "0-1");
	assert_int_equal(a.whole, 0);
	int k2[] = { 'p', '\t', '1', '\n' };
	assert_int_equal(feed(&v, k2, 4, &a), 1);
	assert_int_equal(a.whole, 1);
	assert_string_equal(a.text, "1");
	/* Esc cancels: nothing comes out, and the next key is a table key */
	int k3[] = { 'p', '1', 27 };
	assert_int_equal(feed(&v, k3, 3, &a), 0);
	assert_null(ui_key_prompt());
	assert_int_equal(ui_key_feed(&v, 's', &a), 1);
	assert_int_equal(a.id, ACT_SPREAD);
	/* while typing, table keys are text */
	int k4[] = { 'm', 'q', 's', ' ', 'x', '\r' };
	assert_int_equal(feed(&v, k4, 6, &a), 1);
	assert_int_equal(a.id, ACT_MARKER);
	assert_string_equal(a.text, "qs x");
}

/* htop habits: F1 and h help, F10 quits; d, o and / act in the
 * dashboard itself and say what they did. */
static void test_htop_keys(void **state)
{
	(void)state;
	struct ui_view v = view();
	struct action a;
	assert_int_equal(ui_key_feed(&v, KEY_F(1), &a), 1);
	assert_int_equal(a.id, ACT_HELP);
	assert_int_equal(ui_key_feed(&v, 'h', &a), 1);
	assert_int_equal(a.id, ACT_HELP);
	assert_int_equal(ui_key_feed(&v, KEY_F(10), &a), 1);
	assert_int_equal(a.id, ACT_QUIT);
	assert_int_equal(ui_key_feed(&v, 'd', &a), 1);
	assert_int_equal(a.id, ACT_NOTE);
	assert_non_null(strstr(a.text, "one scale"));
	assert_int_equal(ui_key_feed(&v, 'd', &a), 1);
	assert_non_null(strstr(a.text, "workloads"));
	assert_int_equal(ui_key_feed(&v, 'o', &a), 1);
	assert_int_equal(a.id, ACT_NOTE);
	assert_non_null(strstr(a.text, "sorted by %CPU"));
	for (int i = 0; i < 8; i++)   /* back round to the tracking order */
		ui_key_feed(&v, 'o', &a);
	assert_non_null(strstr(a.text, "tracking order"));
	int f[] = { '/', 'w', 'r', '\n' };   /* the filter acts as it is typed */
	assert_int_equal(feed(&v, f, 4, &a), 4);
	assert_int_equal(a.id, ACT_NOTE);
	assert_non_null(strstr(a.text, "\"wr\""));
	int none[] = { '/', 21, '\n' };   /* ^U clears: all processes */
	assert_int_equal(feed(&v, none, 3, &a), 3);
	assert_non_null(strstr(a.text, "all processes"));
	/* the replay's seek keys exist in replays only */
	v.replay = true;
	assert_int_equal(ui_key_feed(&v, KEY_LEFT, &a), 1);
	assert_int_equal(a.id, ACT_SEEK_BACK);
	assert_int_equal(ui_key_feed(&v, KEY_END, &a), 1);
	assert_int_equal(a.id, ACT_SEEK_END);
	v.replay = false;
	/* a replay key in a live run is a key that does nothing: it says so */
	assert_int_equal(ui_key_feed(&v, KEY_LEFT, &a), 1);
	assert_int_equal(a.id, ACT_NOTE);
	assert_non_null(strstr(a.text, "does nothing here: F1"));
}

/* A key bound to nothing names itself and F1 in the status line (an
 * action, never silence, never the end of the run). */
static void test_unbound_keys_hint(void **state)
{
	(void)state;
	struct ui_view v = view();
	struct action a;
	static const struct { int key; const char *name; } k[] = {
		{ 'y', "y " }, { '\n', "Enter " }, { 27, "Esc " }, { KEY_F(12), "F12 " },
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		for (int n = 0; n < 3; n++) {
			assert_int_equal(ui_key_feed(&v, k[i].key, &a), 1);
			assert_int_equal(a.id, ACT_NOTE);
		}
		assert_true(strncmp(a.text, k[i].name, strlen(k[i].name)) == 0);
		assert_non_null(strstr(a.text, "F1 for the keys"));
		assert_null(ui_key_prompt());
	}
}

static void test_menus(void **state)
{
	(void)state;
	struct ui_view v = view();
	struct action a;
	int g[] = { 'G', KEY_DOWN, '\n' };
	assert_int_equal(feed(&v, g, 3, &a), 1);
	assert_int_equal(a.id, ACT_GOV_SET);
	assert_string_equal(a.text, "powersave");
	assert_int_equal(a.policy, -1);
	int g1[] = { 'G', '\t', '\n' };
	assert_int_equal(feed(&v, g1, 3, &a), 1);
	assert_string_equal(a.text, "performance");
	assert_int_equal(a.policy, 0);
	/* without a cap, F opens on "no cap"; Down wraps to the lowest */
	int f[] = { 'F', KEY_DOWN, KEY_DOWN, '\n' };
	assert_int_equal(feed(&v, f, 4, &a), 1);
	assert_int_equal(a.id, ACT_MAXFREQ);
	assert_int_equal(a.khz, 2600000);
	int lift[] = { 'F', '\n' };
	assert_int_equal(feed(&v, lift, 2, &a), 1);
	assert_int_equal(a.khz, 0);
	/* G and F open on the governor and cap in force */
	v.cur_governor = "powersave";
	v.cap_khz = 2600000;
	int gc[] = { 'G', '\n' };
	assert_int_equal(feed(&v, gc, 2, &a), 1);
	assert_string_equal(a.text, "powersave");
	int fc[] = { 'F', '\n' };
	assert_int_equal(feed(&v, fc, 2, &a), 1);
	assert_int_equal(a.khz, 2600000);
	int fu[] = { 'F', KEY_UP, '\n' };
	assert_int_equal(feed(&v, fu, 3, &a), 1);
	assert_int_equal(a.khz, freqs[0]);
	int esc[] = { 'F', 27 };
	assert_int_equal(feed(&v, esc, 2, &a), 0);
	assert_null(ui_key_prompt());
}

static void test_replay_keys(void **state)
{
	(void)state;
	struct ui_view v = view();
	struct action a;
	assert_int_equal(ui_key_feed(&v, '>', &a), 1);
	assert_int_equal(a.id, ACT_NOTE);
	v.replay = true;
	assert_int_equal(ui_key_feed(&v, '>', &a), 1);
	assert_int_equal(a.id, ACT_REPLAY_FASTER);
	assert_int_equal(ui_key_feed(&v, '<', &a), 1);
	assert_int_equal(a.id, ACT_REPLAY_SLOWER);
}

/* ---- the man page ---- */

static void append(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(dst);
	snprintf(dst + n, cap - n, "%s", s);
}

/* roff escapes a key list uses, as the names the table shows. */
static void unescape(const char *in, char *out, size_t cap)
{
	static const struct { const char *esc, *txt; } map[] = {
		{ "\\(ua", "Up" }, { "\\(da", "Down" }, { "\\(en", "-" }, { "\\(em", "-" },
		{ "\\-", "-" }, { "\\(->", "->" }, { "\\e", "\\" }, { "\\&", "" },
		{ "\\ ", " " }, { "\\fB", " " }, { "\\fR", " " }, { "\\fI", " " }, { "\\fP", " " },
	};
	out[0] = 0;
	while (*in) {
		size_t i;
		for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (strncmp(in, map[i].esc, strlen(map[i].esc)) == 0)
				break;
		if (i < sizeof(map) / sizeof(map[0])) {
			append(out, cap, map[i].txt);
			in += strlen(map[i].esc);
		} else {
			char c[2] = { *in == '"' ? ' ' : *in, 0 };
			append(out, cap, c);
			in++;
		}
	}
}

/* The words set in bold (or as .TP tags) in the KEYS section, separated
 * by spaces, '/' and ','; NULL when the page or the section is missing. */
static char *man_key_words(void)
{
	FILE *f = fopen("man/benchtop.1", "r");
	if (!f)
		return NULL;
	static char words[65536];
	char line[1024], text[2048];
	bool in = false, any = false;
	words[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, ".SH", 3) == 0) {
			in = strstr(line, "KEYS") != NULL;
			any |= in;
			continue;
		}
		if (!in)
			continue;
		/* .B/.BR/.RB/.BI/.IR arguments, joined as roff joins them */
		if (line[0] == '.' && (line[1] == 'B' || line[1] == 'I' || line[1] == 'R') &&
		    (line[2] == ' ' || line[3] == ' ')) {
			char joined[1024] = "";
			bool q = false;
			for (char *p = strchr(line, ' ') + 1; *p && *p != '\n'; p++) {
				if (*p == '"')
					q = !q;
				else if (*p != ' ' || q) {
					char c[2] = { *p, 0 };
					append(joined, sizeof(joined), c);
				}
			}
			unescape(joined, text, sizeof(text));
			append(words, sizeof(words), " ");
			append(words, sizeof(words), text);
		}
		for (char *b = strstr(line, "\\fB"); b; b = strstr(b + 3, "\\fB")) {
			char *e = strstr(b + 3, "\\f");
			if (!e)
				break;
			char span[256];
			snprintf(span, sizeof(span), "%.*s", (int)(e - b - 3), b + 3);
			unescape(span, text, sizeof(text));
			append(words, sizeof(words), " ");
			append(words, sizeof(words), text);
		}
	}
	fclose(f);
	return any ? words : NULL;
}

static bool has_word(const char *words, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = strstr(words, w); p; p = strstr(p + 1, w)) {
		bool start = p == words || strchr(" /,", p[-1]);
		bool end = !p[n] || strchr(" /,\n", p[n]);
		if (start && end)
			return true;
	}
	return false;
}

static void test_man_page_lists_every_key(void **state)
{
	(void)state;
	const char *words = man_key_words();
	if (!words)
		fail_msg("man/benchtop.1 or its KEYS section is missing");
	int missing = 0;
	for (size_t i = 0; i < ui_nkeys; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s", ui_keys[i].name);
		char *save = NULL;
		/* "Up/k": each part is a key the page must show */
		for (char *part = strtok_r(name, "/", &save); part; part = strtok_r(NULL, "/", &save))
			if (!has_word(words, part)) {
				fprintf(stderr, "key '%s' (%s) is not in man/benchtop.1 KEYS\n",
				        part, ui_keys[i].help);
				missing++;
			}
	}
	assert_int_equal(missing, 0);
}

static void test_man_check_can_fail(void **state)
{
	(void)state;
	const char *words = man_key_words();
	if (!words)
		fail_msg("man/benchtop.1 or its KEYS section is missing");
	assert_false(has_word(words, "Z"));
	assert_false(has_word(words, "ctrl-q"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_keys_dispatch),
		cmocka_unit_test(test_help_and_theme_keys),
		cmocka_unit_test(test_pin_prompt),
		cmocka_unit_test(test_menus),
		cmocka_unit_test(test_htop_keys),
		cmocka_unit_test(test_replay_keys),
		cmocka_unit_test(test_unbound_keys_hint),
		cmocka_unit_test(test_man_page_lists_every_key),
		cmocka_unit_test(test_man_check_can_fail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

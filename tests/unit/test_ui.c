/* test_ui.c - the dashboard drawn into a virtual terminal (newterm on
 * /dev/null at a fixed size) from a synthetic history, read back cell by
 * cell: panel titles, unit labels, the selection, the too-small message,
 * monochrome without colour pairs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchtop/theme.h"
#include "benchtop/ui.h"
#include "ui_synth.h"

struct fixture { struct history *h; struct snapshot *s; FILE *out, *in; struct ui_view v; };

static int open_at(struct fixture *f, int rows, int cols, bool no_color)
{
	char err[256] = "";
	f->out = fopen("/dev/null", "w");
	f->in = fopen("/dev/null", "r");
	int rc = ui_open_term("xterm-256color", f->out, f->in, rows, cols, "default",
	                      no_color, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "ui_open_term: %s\n", err);
	return rc;
}

static int setup(void **state)
{
	static struct fixture f;
	memset(&f, 0, sizeof(f));
	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
	unsetenv("NO_COLOR");
	f.h = synth_history(4, 6, 300, &f.s);
	if (!f.h)
		return -1;
	synth_view(&f.v, f.h);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ui_close();
	history_free(f->h);
	snapshot_free(f->s);
	if (f->out)
		fclose(f->out);
	if (f->in)
		fclose(f->in);
	f->out = f->in = NULL;
	return 0;
}

/* The whole screen as text, one line per row. */
static char *screen_text(void)
{
	size_t cap = (size_t)LINES * (size_t)(COLS * 4 + 2) + 1, n = 0;
	char *buf = calloc(1, cap);
	for (int y = 0; y < LINES; y++) {
		n += (size_t)mvinnstr(y, 0, buf + n, COLS * 4 > 0 ? COLS * 4 : 1) ;
		buf[n++] = '\n';
	}
	buf[n] = 0;
	return buf;
}

static bool on_screen(const char *s)
{
	char *t = screen_text();
	bool found = strstr(t, s) != NULL;
	if (!found)
		fprintf(stderr, "'%s' not on screen:\n%s", s, t);
	free(t);
	return found;
}

static void test_panels_and_units(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	assert_true(on_screen("Throughput MiB/s"));
	assert_true(on_screen("CPUs"));
	assert_true(on_screen("Placement"));
	assert_true(on_screen("Residency"));
	assert_true(on_screen("Processes"));
	assert_true(on_screen("copy engine=pipe procs=3"));
	assert_true(on_screen("kernel's current"));   /* the source in plain words */
	assert_true(on_screen("pinned 1000 to 0"));
	assert_true(on_screen("spread"));          /* event marker label */
	assert_true(on_screen("kernel stats"));
	assert_true(on_screen("1005"));             /* a pid in the table */
	f->v.units = UNITS_SI;
	ui_draw(&f->v);
	assert_true(on_screen("Throughput MB/s"));
	f->v.units = UNITS_BITS;
	ui_draw(&f->v);
	assert_true(on_screen("Throughput Mbit/s"));
}

/* A replayed experiment at its end: its table in place of the
 * processes, taking the placement's rows when it needs them; the key bar
 * of a replay names its own keys, not a live run's. */
static void test_study_at_the_end(void **state)
{
	struct fixture *f = *state;
	static char study[4096];
	int n = snprintf(study, sizeof study, "\nsweep bs=4k:64k of read: 5 steps\n\n"
	                 "   bs  calls  MiB/s\n");
	for (int i = 0; i < 5; i++)
		n += snprintf(study + n, sizeof study - (size_t)n, " %4d  %5d   %4d\n", 4096 << i, 100 >> i, 70 + i);
	n += snprintf(study + n, sizeof study - (size_t)n, "\nfrom disk: a note under the table\n");
	f->v.replay = true;
	f->v.study = study;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	assert_true(on_screen("Experiment  sweep bs=4k:64k of read: 5 steps"));
	assert_true(on_screen("   bs  calls  MiB/s"));
	assert_true(on_screen("65536"));
	char *t = screen_text();
	assert_null(strstr(t, "Processes"));
	assert_null(strstr(t, "0-9Pin"));
	assert_non_null(strstr(t, "<Slower"));
	free(t);
	/* a table taller than the Processes panel takes the Placement's rows */
	for (int i = 0; i < 12; i++)
		n += snprintf(study + n, sizeof study - (size_t)n, " row %d\n", i);
	ui_draw(&f->v);
	assert_true(on_screen("from disk: a note under the table"));
	t = screen_text();
	assert_null(strstr(t, "Placement"));
	free(t);
	/* away from the end: every panel again */
	f->v.study = NULL;
	ui_draw(&f->v);
	assert_true(on_screen("Processes"));
	assert_true(on_screen("Placement"));
}

static void test_minimum_size_draws(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 24, 80, false), 0);
	ui_draw(&f->v);
	assert_true(on_screen("Processes"));
	assert_true(on_screen("Throughput"));
	char *t = screen_text();
	assert_null(strstr(t, "terminal too small"));
	free(t);
}

static void test_too_small(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 10, 40, false), 0);
	ui_draw(&f->v);
	assert_true(on_screen("terminal too small"));
	resizeterm(40, 120);
	ui_draw(&f->v);
	assert_true(on_screen("Processes"));
}

static void test_no_residency(void **state)
{
	struct fixture *f = *state;
	f->v.residency = NULL;
	f->v.residency_label = NULL;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	assert_true(on_screen("no cpufreq here (VM?)"));
}

/* Residency: since start and since the last event side by side, each with
 * its mean effective frequency (sum khz*secs / sum secs) and shares. */
static void test_residency_both_periods(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	/* at 120 columns the title keeps the colour legend and the second
	 * block's heading (it says since what); the first block's heading
	 * ("since start") is left out before the event's name */
	assert_true(on_screen("since ondemand"));    /* the last event's label */
	resizeterm(60, 200);
	ui_draw(&f->v);
	assert_true(on_screen("since start"));
	assert_true(on_screen("since ondemand"));
	/* since start: 12 s at 0.8, 40 s at 1.6, 48 s at 2.6 GHz */
	assert_true(on_screen("avg 1.98 GHz 2.60 GHz 48%"));
	/* since the event: 30 s at 0.8, 10 s at 2.6 GHz */
	assert_true(on_screen("avg 1.25 GHz 800 MHz 75%"));
}

/* At 80x24 the panel keeps since start and the mean. */
static void test_residency_narrow(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 24, 80, false), 0);
	ui_draw(&f->v);
	assert_true(on_screen("Residency"));
	assert_true(on_screen("cpu0  "));
	assert_true(on_screen("avg 1.98 GHz 2.60 GHz 48%"));
}

static const long one_khz[1] = { 2600000 };
static const double no_secs[1] = { 0 };
static const double some_secs[1] = { 5 };

/* Nothing since the event yet (just after a governor change). */
static size_t fresh_event(void *ctx, int cpu, bool since_event,
                          const long **khz, const double **secs)
{
	(void)ctx, (void)cpu;
	*khz = one_khz;
	*secs = since_event ? no_secs : some_secs;
	return 1;
}

static void test_residency_no_time_yet(void **state)
{
	struct fixture *f = *state;
	f->v.residency = fresh_event;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	assert_true(on_screen("avg 2.60 GHz 2.60 GHz 100%"));
	assert_true(on_screen("no time since the event yet"));
}

/* The process table's header row: the line that starts with "    PID". */
static bool table_has(const char *const *heads, size_t n)
{
	char *t = screen_text(), *line = strstr(t, "    PID ");
	bool ok = line != NULL;
	char *end = line ? strchr(line, '\n') : NULL;
	if (end)
		*end = 0;
	for (size_t i = 0; ok && i < n; i++) {
		char word[16];
		snprintf(word, sizeof(word), " %s ", heads[i]);
		if (!strstr(line, word)) {
			fprintf(stderr, "column %s missing from '%s'\n", heads[i], line);
			ok = false;
		}
	}
	free(t);
	return ok;
}

/* 80x24: the columns issue 4 asks to keep, with compact numbers. */
static void test_procs_narrow(void **state)
{
	static const char *const keep[] = { "PID", "WL", "ROLE", "CPU", "ALLOWED", "S",
	                                    "%CPU", "WAIT%", "HOG", "WRITE", "MIG" };
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 24, 80, false), 0);
	ui_draw(&f->v);
	assert_true(table_has(keep, sizeof(keep) / sizeof(keep[0])));
	/* pid 1000, workload 1, reader, cpu, 0-3, R, 42.5, 3.2 (3.25 as printf
	 * rounds it), hog 30% of 300 s, rates and bytes compact */
	assert_true(on_screen("1000  1 reader "));
	assert_true(on_screen(" R  42.5   3.2  30% "));
	assert_true(on_screen(" 29M/s   38M/s  299M    14 "));
	assert_true(on_screen("K/M/G = KiB/MiB/GiB"));
}

/* 120 columns: every column, numbers in full. */
static void test_procs_wide(void **state)
{
	static const char *const all[] = { "PID", "WL", "ROLE", "CPU", "ALLOWED", "S", "%CPU",
	                                   "WAIT%", "USER", "SYS", "HOG", "READ", "WRITE",
	                                   "BYTES", "MIG", "COMMAND" };
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	assert_true(table_has(all, sizeof(all) / sizeof(all[0])));
	assert_true(on_screen("59.80   29.90  30% 29.0 MiB/s 38.0 MiB/s  299 MiB    14 worker0"));
	f->v.units = UNITS_BITS;
	ui_draw(&f->v);
	assert_true(on_screen("Mbit/s"));
}

/* mvinch cannot hold a wide character's code; read the cell whole. */
static int cell_pair(int y, int x)
{
	cchar_t cc;
	wchar_t wc[CCHARW_MAX + 1];
	attr_t at;
	short pair;
	mvin_wch(y, x, &cc);
	getcchar(&cc, wc, &at, &pair, NULL);
	return pair;
}

static wchar_t cell_char(int y, int x)
{
	cchar_t cc;
	wchar_t wc[CCHARW_MAX + 1];
	attr_t at;
	short pair;
	mvin_wch(y, x, &cc);
	getcchar(&cc, wc, &at, &pair, NULL);
	return wc[0];
}

static bool any_braille(void)
{
	for (int y = 1; y < LINES; y++)
		for (int x = 0; x < COLS; x++)
			if (cell_char(y, x) >= 0x2801 && cell_char(y, x) <= 0x28FF)
				return true;
	return false;
}

/* Per-workload lines have their own colour roles (wl1..wl4), shown in the
 * legend and in the plot, not the CPU-load colours. */
static void test_workload_line_colours(void **state)
{
	struct fixture *f = *state;
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	unsetenv("LC_ALL");
	char row[512];
	mvinnstr(2, 0, row, COLS);   /* the legend row under the title */
	char *w1 = strstr(row, " w1 "), *w2 = strstr(row, " w2 ");
	assert_non_null(w1);
	assert_non_null(w2);
	/* mvinnstr gives the glyph "■" as 3 bytes: count columns, not bytes */
	int c1 = 0, c2 = 0;
	for (char *p = row; p < w1; p++)
		c1 += ((unsigned char)*p & 0xC0) != 0x80;
	for (char *p = row; p < w2; p++)
		c2 += ((unsigned char)*p & 0xC0) != 0x80;
	assert_int_equal(cell_pair(2, c1 + 1), ROLE_WL1 + 1);
	assert_int_equal(cell_pair(2, c2 + 1), ROLE_WL2 + 1);
	int wl2_cells = 0, user_cells = 0;
	for (int y = 2; y < 16; y++)
		for (int x = 8; x < COLS; x++) {
			wchar_t c = cell_char(y, x);
			if (c < 0x2801 || c > 0x28FF)
				continue;
			wl2_cells += cell_pair(y, x) == ROLE_WL2 + 1;
			user_cells += cell_pair(y, x) == ROLE_USER + 1;
		}
	assert_true(wl2_cells > 10);
	assert_int_equal(user_cells, 0);
}

static int selected_row(void)
{
	/* The selection has the select role: reverse in mono. */
	for (int y = 0; y < LINES; y++) {
		char buf[16];
		chtype c = mvinch(y, 3);
		if ((c & A_REVERSE) && y > 0) {
			mvinnstr(y, 0, buf, 8);
			return atoi(buf);
		}
	}
	return -1;
}

static void test_mono_has_no_colour_and_shows_selection(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, true), 0);
	f->v.selected = 2;
	ui_draw(&f->v);
	for (int y = 0; y < LINES; y++)
		for (int x = 0; x < COLS; x++)
			if (cell_pair(y, x))
				fail_msg("colour pair %d at %d,%d", cell_pair(y, x), y, x);
	assert_int_equal(selected_row(), 1002);
}

static void test_colour_uses_pairs(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	assert_true(cell_pair(0, 1) != 0);
}

static void test_help_lists_every_key(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	struct action a;
	assert_int_equal(ui_key_feed(&f->v, '?', &a), 1);
	assert_int_equal(a.id, ACT_HELP);
	ui_toggle_help();                       /* as the app does */
	/* every key on one of the pages (Space turns them) */
	bool seen[128] = { false };
	assert_true(ui_nkeys <= 128);
	for (int page = 0; page < 4; page++) {
		ui_draw(&f->v);
		for (size_t i = 0; i < ui_nkeys; i++)
			seen[i] |= on_screen(ui_keys[i].help);
		assert_int_equal(ui_key_feed(&f->v, ' ', &a), 1);
	}
	for (size_t i = 0; i < ui_nkeys; i++)
		if (!seen[i])
			fail_msg("key %s is on no help page", ui_keys[i].name);
	assert_int_equal(ui_key_feed(&f->v, 'x', &a), 1);   /* any key closes */
	assert_int_equal(a.id, ACT_HELP);
	ui_toggle_help();
	ui_draw(&f->v);
	assert_true(on_screen("Processes"));
}

static void test_menu_and_prompt_on_screen(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	struct action a;
	assert_int_equal(ui_key_feed(&f->v, 'G', &a), 0);
	ui_draw(&f->v);
	assert_true(on_screen("powersave"));
	assert_int_equal(ui_key_feed(&f->v, 27, &a), 0);
	assert_int_equal(ui_key_feed(&f->v, 'p', &a), 0);
	ui_key_feed(&f->v, '1', &a);
	ui_draw(&f->v);
	assert_true(on_screen("to CPUs: 1_"));
	ui_key_feed(&f->v, 27, &a);
}

/* 80x24: the legend row names every series with a whole value, and the
 * y labels are 1, 2 or 5 times a power of ten. */
static void test_legend_and_ticks_80(void **state)
{
	struct fixture *f = *state;
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_int_equal(open_at(f, 24, 80, false), 0);
	ui_draw(&f->v);
	unsetenv("LC_ALL");
	char row[1024];
	mvinnstr(2, 0, row, COLS * 4);
	static const char *const names[][2] = { { "write", "wr" }, { "read", "rd" }, { "w1", "w1" },
	                                         { "w2", "w2" }, { "disk w", "dw" }, { "disk r", "dr" } };
	for (size_t i = 0; i < 6; i++)
		if (!strstr(row, names[i][0]) && !strstr(row, names[i][1]))
			fail_msg("%s not in the legend \"%s\"", names[i][0], row);
	int labels = 0;
	for (int y = 3; y < LINES && !(mvinch(y, 9) & A_ALTCHARSET); y++) {   /* to the time axis */
		char b[16];
		mvinnstr(y, 0, b, 8);
		double v;
		if (sscanf(b, "%lf", &v) != 1)
			continue;
		labels++;
		if (v == 0)
			continue;
		double p = pow(10, floor(log10(v))), m = v / p;
		if (!(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6 ||
		      fabs(m - 10) < 1e-6 || fabs(m - 1.5) < 1e-6 || fabs(m - 2.5) < 1e-6 ||
		      fabs(m - 3) < 1e-6 || fabs(m - 4) < 1e-6 || fabs(m - 6) < 1e-6 || fabs(m - 8) < 1e-6))
			fail_msg("tick label %g is not a multiple of a round step", v);
	}
	assert_true(labels >= 2);
}

/* Too small: only q, F10, ? act; other keys say to enlarge the terminal. */
static void test_too_small_keys(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 10, 40, false), 0);
	ui_draw(&f->v);
	struct action a;
	assert_int_equal(ui_key_feed(&f->v, 'g', &a), 1);
	assert_int_equal(a.id, ACT_NOTE);
	assert_non_null(strstr(a.text, "enlarge the terminal"));
	assert_int_equal(ui_key_feed(&f->v, '0', &a), 1);
	assert_int_equal(a.id, ACT_NOTE);
	assert_int_equal(ui_key_feed(&f->v, 'q', &a), 1);
	assert_int_equal(a.id, ACT_QUIT);
	assert_int_equal(ui_key_feed(&f->v, '?', &a), 1);
	assert_int_equal(a.id, ACT_HELP);
	ui_draw(&f->v);
	assert_true(on_screen("enlarge the terminal"));
}

static void test_utf8_graph(void **state)
{
	struct fixture *f = *state;
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	unsetenv("LC_ALL");
	assert_true(on_screen("Throughput MiB/s"));
	assert_true(any_braille());

}

static void test_ascii_locale(void **state)
{
	struct fixture *f = *state;
	setenv("LC_ALL", "C", 1);
	assert_int_equal(open_at(f, 40, 120, false), 0);
	ui_draw(&f->v);
	unsetenv("LC_ALL");
	assert_true(on_screen("Throughput MiB/s"));
	assert_false(any_braille());
	assert_true(on_screen("n/a"));        /* unknown frequency, ASCII */
	/* the plot has ASCII strokes right of the y labels */
	int strokes = 0;
	for (int y = 1; y < 15; y++)
		for (int x = 9; x < COLS; x++) {
			wchar_t c = cell_char(y, x);
			strokes += c == '.' || c == '-' || c == '\'' || c == ':' || c == '|';
		}
	assert_true(strokes > 50);
}

/* A resize key is answered once; it must not queue itself again (it did:
 * resizeterm queues KEY_RESIZE, and ui_key spun for ever). */
static void test_resize_key_once(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	struct action a;
	ui_resize();
	ungetch(KEY_RESIZE);
	int n = 0;
	while (n < 10 && ui_key(&f->v, &a) == 1)
		n++;
	assert_in_range(n, 1, 3);
	assert_int_equal(a.id, ACT_NONE);
	ungetch('u');
	assert_int_equal(ui_key(&f->v, &a), 1);
	assert_int_equal(a.id, ACT_UNITS);
	assert_int_equal(ui_key(&f->v, &a), 0);
}

/* v: the frequency line waits for a first sample where there is a
 * source, draws the line once there is one, and says so where there is
 * none. */
static void test_freq_line_states(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(open_at(f, 40, 120, false), 0);
	struct history *empty = history_new(8);
	assert_non_null(empty);
	struct ui_view v = f->v;
	v.hist = empty;
	struct action a;
	assert_int_equal(ui_key_feed(&v, 'v', &a), 1);
	assert_non_null(strstr(a.text, "waiting for the first sample"));
	assert_null(strstr(a.text, "not observable"));
	ui_draw(&v);
	assert_true(on_screen("Frequency  waiting for the first sample"));
	/* the first samples come: the line, under its source's name */
	ui_draw(&f->v);
	assert_true(on_screen("Frequency  the workload's CPUs, scaling_cur_freq"));
	/* no source at all */
	v.hist = f->h;
	v.freq_source = "not observable";
	ui_draw(&v);
	assert_true(on_screen("frequency: not observable here"));
	assert_int_equal(ui_key_feed(&v, 'v', &a), 1);   /* off */
	assert_int_equal(ui_key_feed(&v, 'v', &a), 1);   /* on, with no source */
	assert_non_null(strstr(a.text, "not observable here"));
	assert_int_equal(ui_key_feed(&v, 'v', &a), 1);   /* off again */
	/* a source that says so itself is not said twice */
	v.freq_source = "frequency not observable here (nominal 2596 MHz)";
	assert_int_equal(ui_key_feed(&v, 'v', &a), 1);
	assert_string_equal(a.text, "frequency line: frequency not observable here (nominal 2596 MHz)");
	assert_int_equal(ui_key_feed(&v, 'v', &a), 1);
	v.freq_source = "not observable";
	/* 80x24: the graph has no room for it, and the status line says so */
	ui_close();
	assert_int_equal(open_at(f, 24, 80, false), 0);
	ui_draw(&f->v);
	assert_int_equal(ui_key_feed(&f->v, 'v', &a), 1);
	assert_non_null(strstr(a.text, "no room"));
	assert_int_equal(ui_key_feed(&f->v, 'v', &a), 1);   /* off for the next test */
	history_free(empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_panels_and_units, setup, teardown),
		cmocka_unit_test_setup_teardown(test_minimum_size_draws, setup, teardown),
		cmocka_unit_test_setup_teardown(test_study_at_the_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_small, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_residency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_residency_both_periods, setup, teardown),
		cmocka_unit_test_setup_teardown(test_residency_narrow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_residency_no_time_yet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_procs_narrow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_procs_wide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mono_has_no_colour_and_shows_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_colour_uses_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_lists_every_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_menu_and_prompt_on_screen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_utf8_graph, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legend_and_ticks_80, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_small_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ascii_locale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workload_line_colours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resize_key_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freq_line_states, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

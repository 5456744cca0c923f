/* test_uiscale.c - the graph's arithmetic: round tick steps (1, 2 or 5
 * times a power of ten) with headroom for any maximum, tick labels with
 * just the decimals they need, legend values, and the legend cut to a
 * width at whole items only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "benchtop/uiscale.h"

static bool round125(double v)
{
	double p = pow(10, floor(log10(v) + 1e-9)), m = v / p;
	return fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6;
}

static void test_round125(void **state)
{
	(void)state;
	assert_true(ui_scale_round125(1) == 1);
	assert_true(ui_scale_round125(1.01) == 2);
	assert_true(ui_scale_round125(3) == 5);
	assert_true(ui_scale_round125(5) == 5);
	assert_true(ui_scale_round125(7) == 10);
	assert_true(fabs(ui_scale_round125(0.3) - 0.5) < 1e-12);
	assert_true(ui_scale_round125(2045) == 5000);
	assert_true(ui_scale_round125(0) == 1);
	assert_true(ui_scale_round125(NAN) == 1);
}

/* For maxima over many decades: the step is round, the top holds the
 * maximum with 10% headroom, and no more ticks than asked for. */
static void test_fit(void **state)
{
	(void)state;
	static const double maxima[] = { 0.0004, 0.013, 0.9, 1, 7.3, 10, 10.5, 44, 99, 100,
	                                 682, 1136, 1591, 2045, 4930, 123456, 1e9 };
	for (size_t i = 0; i < sizeof maxima / sizeof maxima[0]; i++)
		for (int ticks = 1; ticks <= 6; ticks++) {
			struct ui_scale s;
			ui_scale_fit(maxima[i], ticks, &s);
			if (!round125(s.step) || s.top < maxima[i] * 1.1 - 1e-12 || s.nticks > ticks ||
			    s.nticks < 1 || fabs(s.top - s.nticks * s.step) > 1e-9 * s.top)
				fail_msg("max %g ticks %d: step %g top %g n %d", maxima[i], ticks, s.step,
				         s.top, s.nticks);
			/* not wastefully high: the next smaller round step would
			 * need more ticks than allowed */
			assert_true(s.top <= maxima[i] * 1.1 * 5 + 1e-12);
		}
	struct ui_scale s;
	ui_scale_fit(10, 5, &s);        /* 11 -> 5 ticks of 5 = 25? no: 3 of 5 = 15 */
	assert_true(s.step == 5 && s.top == 15);
	ui_scale_fit(0, 5, &s);
	assert_true(s.top > 0 && round125(s.step));
	ui_scale_fit(-3, 5, &s);
	assert_true(s.top > 0);
}

/* For every plot height: every tick is drawn two or more rows from the
 * next, so the labels on screen step evenly by a round number. */
static void test_fit_rows(void **state)
{
	(void)state;
	static const double maxima[] = { 0.0004, 0.3, 0.31, 0.9, 7.3, 10, 44, 682, 4930, 1e9 };
	for (size_t i = 0; i < sizeof maxima / sizeof maxima[0]; i++)
		for (int rows = 1; rows <= 40; rows++)
			for (int vres = 1; vres <= 4; vres++) {
				struct ui_scale s;
				ui_scale_fit_rows(maxima[i], rows, vres, &s);
				assert_true(round125(s.step) && s.nticks >= 1 && s.nticks <= 5);
				assert_true(s.top >= maxima[i] * 1.1 - 1e-12);
				if (rows < 3)
					continue;
				for (int k = 1; k <= s.nticks; k++) {
					int up = ui_scale_tick_row(&s, k, rows, vres);
					int down = ui_scale_tick_row(&s, k - 1, rows, vres);
					if (down - up < 2 || up < 0)
						fail_msg("max %g rows %d vres %d: tick %d on row %d, %d below",
						         maxima[i], rows, vres, k, up, down);
				}
				if (rows >= 11)
					assert_true(s.nticks >= 2);
			}
}

static void test_fmt(void **state)
{
	(void)state;
	char b[32];
	ui_scale_fmt(0, 0.5, b, sizeof b);
	assert_string_equal(b, "0.0");
	ui_scale_fmt(1.5, 0.5, b, sizeof b);
	assert_string_equal(b, "1.5");
	ui_scale_fmt(20, 10, b, sizeof b);
	assert_string_equal(b, "20");
	ui_scale_fmt(0.04, 0.02, b, sizeof b);
	assert_string_equal(b, "0.04");
	ui_scale_fmt(5000, 1000, b, sizeof b);
	assert_string_equal(b, "5000");
	ui_scale_fmt_value(10.24, b, sizeof b);
	assert_string_equal(b, "10.2");
	ui_scale_fmt_value(4930.4, b, sizeof b);
	assert_string_equal(b, "4930");
	ui_scale_fmt_value(0.05, b, sizeof b);
	assert_string_equal(b, "0.05");
	ui_scale_fmt_value(0, b, sizeof b);
	assert_string_equal(b, "0");
	ui_scale_fmt_value(NAN, b, sizeof b);
	assert_string_equal(b, "-");
	ui_scale_fmt_value(-1, b, sizeof b);
	assert_string_equal(b, "-");
}

static const struct ui_legend_item items[] = {
	{ "#", "write", "wr", "10.2", NULL }, { "#", "read", "rd", "0", NULL },
	{ "#", "w1", "w1", "5.1", NULL }, { "#", "w2", "w2", "5.1", NULL },
	{ "#", "disk w", "dw", "4930", "^" }, { "#", "disk r", "dr", "12.5", NULL },
	{ "", "dirty/wb", "dty/wb", "64.0 MiB/8.0 MiB", NULL },
};
#define NITEMS ((int)(sizeof items / sizeof items[0]))

/* The legend as the graph writes it: items joined by their separator. */
static int joined(int level, int shown, char *out, size_t len)
{
	char b[128];
	size_t n = 0;
	out[0] = 0;
	for (int i = 0; i < shown; i++) {
		ui_legend_item_text(&items[i], level, b, sizeof b);
		n += (size_t)snprintf(out + n, len - n, "%s%*s", b, i + 1 < shown ? ui_legend_sep(level) : 0, "");
	}
	if (shown < NITEMS)
		n += (size_t)snprintf(out + n, len - n, "%*s+%d", ui_legend_sep(level), "", NITEMS - shown);
	return (int)strlen(out);
}

static void test_legend_fit(void **state)
{
	(void)state;
	char out[512];
	for (int w = 4; w <= 200; w++) {
		int level, shown = ui_legend_fit(items, NITEMS, w, &level);
		int len = joined(level, shown, out, sizeof out);
		if (len > w)
			fail_msg("width %d: \"%s\" is %d columns", w, out, len);
		/* every value shown whole: each item's value is in the text */
		for (int i = 0; i < shown; i++)
			assert_non_null(strstr(out, items[i].value));
	}
	int level, shown = ui_legend_fit(items, NITEMS, 200, &level);
	assert_int_equal(shown, NITEMS);
	assert_int_equal(level, 0);
	/* 78 columns (the graph's at 80): every series named, shortened */
	shown = ui_legend_fit(items, NITEMS, 78, &level);
	assert_int_equal(shown, NITEMS);
	joined(level, shown, out, sizeof out);
	assert_non_null(strstr(out, "4930"));
	assert_non_null(strstr(out, "^"));
	shown = ui_legend_fit(items, NITEMS, 30, &level);
	assert_true(shown < NITEMS);
	assert_int_equal(level, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round125),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_fit_rows),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_legend_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

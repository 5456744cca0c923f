/* test_view.c - the view keys live runs and replay share: units cycle and
 * say so, the selection stays on a process, help and theme become
 * reaction bits only where a screen is drawn, and steering keys are left
 * to the run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "benchtop/view.h"

static bool key(struct view_state *vs, enum action_id id, int arg, int nproc, bool screen)
{
	struct action a = { .id = id, .cpu = arg, .policy = -1 };
	return view_apply(vs, &a, nproc, screen);
}

static void test_units_cycle(void **state)
{
	(void)state;
	struct view_state vs = { .units = UNITS_IEC };
	assert_true(key(&vs, ACT_UNITS, 0, 0, true));
	assert_int_equal(vs.units, units_next(UNITS_IEC));
	assert_non_null(strstr(vs.status, "units: "));
	for (int i = 0; i < 2; i++)
		key(&vs, ACT_UNITS, 0, 0, true);
	assert_int_equal(vs.units, UNITS_IEC);  /* three modes, then back */
}

static void test_selection_stays_on_a_process(void **state)
{
	(void)state;
	struct view_state vs = { 0 };
	key(&vs, ACT_SEL_UP, 0, 3, true);
	assert_int_equal(vs.selected, 0);
	key(&vs, ACT_SEL_DOWN, 0, 3, true);
	key(&vs, ACT_SEL_DOWN, 0, 3, true);
	key(&vs, ACT_SEL_DOWN, 0, 3, true);
	assert_int_equal(vs.selected, 2);
	key(&vs, ACT_SELECT, 1, 3, true);
	assert_int_equal(vs.selected, 1);
	key(&vs, ACT_SELECT, 9, 3, true);
	assert_int_equal(vs.selected, 2);
	view_clamp(&vs, 0);
	assert_int_equal(vs.selected, 0);
}

static void test_reactions_only_with_a_screen(void **state)
{
	(void)state;
	struct view_state vs = { 0 };
	assert_true(key(&vs, ACT_HELP, 0, 0, false));
	assert_true(key(&vs, ACT_THEME, 0, 0, false));
	assert_int_equal(vs.react, 0);
	key(&vs, ACT_HELP, 0, 0, true);
	key(&vs, ACT_THEME, 0, 0, true);
	assert_int_equal(vs.react, REACT_HELP | REACT_THEME);
}

static void test_note_and_steering(void **state)
{
	(void)state;
	struct view_state vs = { 0 };
	struct action a = { .id = ACT_NOTE };
	strcpy(a.text, "processes sorted by %CPU");
	assert_true(view_apply(&vs, &a, 0, true));
	assert_string_equal(vs.status, "processes sorted by %CPU");
	/* keys that steer the run are not the view's */
	assert_false(key(&vs, ACT_PIN_CPU, 0, 3, true));
	assert_false(key(&vs, ACT_PAUSE, 0, 3, true));
	assert_false(key(&vs, ACT_QUIT, 0, 3, true));
	assert_string_equal(vs.status, "processes sorted by %CPU");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_cycle),
		cmocka_unit_test(test_selection_stays_on_a_process),
		cmocka_unit_test(test_reactions_only_with_a_screen),
		cmocka_unit_test(test_note_and_steering),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

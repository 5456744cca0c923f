/* test_model.c - the history ring, events and phase accounting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "benchtop/model.h"
#include "benchtop/stepmark.h"

static struct snapshot *snap_at(double t, uint64_t bytes, double cpu, uint64_t migr, long khz)
{
	struct snapshot *s = snapshot_new(2, 1, 1);
	s->t = t;
	s->dt = 0.5;
	s->wls[0].bytes = bytes;
	s->wls[0].utime = cpu;
	s->nproc = 1;
	s->procs[0].pid = 42;
	s->procs[0].migrations = migr;
	s->cpus[0].khz = khz;
	s->cpus[1].khz = -1;
	return s;
}

static void test_ring_keeps_newest(void **state)
{
	(void)state;
	struct history *h = history_new(3);
	for (int i = 1; i <= 5; i++) {
		struct snapshot *s = snap_at(i, (uint64_t)i * 100, 0, 0, -1);
		assert_int_equal(history_push(h, s), 0);
		snapshot_free(s);
	}
	assert_int_equal(history_len(h), 3);
	assert_int_equal(history_total(h), 5);
	assert_true(history_at(h, 0)->t == 3);
	assert_true(history_last(h)->t == 5);
	assert_null(history_at(h, 3));
	assert_int_equal(history_at(h, 1)->wls[0].bytes, 400);
	history_free(h);
}

static void test_snapshot_copy_grows(void **state)
{
	(void)state;
	struct snapshot *a = snapshot_new(2, 1, 1), *b = snapshot_new(2, 1, 1);
	assert_int_equal(snapshot_reserve_procs(a, 100), 0);
	a->nproc = 100;
	for (int i = 0; i < 100; i++)
		a->procs[i].pid = 1000 + i;
	snapshot_copy(b, a);
	assert_int_equal(b->nproc, 100);
	assert_int_equal(b->procs[99].pid, 1099);
	assert_ptr_not_equal(a->procs, b->procs);
	snapshot_free(a);
	snapshot_free(b);
}

static void test_events_split_phases(void **state)
{
	(void)state;
	struct history *h = history_new(16);
	struct snapshot *s = snap_at(0.5, 1000, 0.1, 1, 800000);
	history_push(h, s);
	snapshot_free(s);
	s = snap_at(1.0, 3000, 0.3, 3, 800000);
	history_push(h, s);
	snapshot_free(s);

	struct event e = { .t = 1.0 };
	strcpy(e.action, "placement");
	strcpy(e.label, "spread");
	assert_int_equal(history_add_event(h, &e), 0);
	s = snap_at(1.5, 7000, 0.5, 3, 2600000);
	history_push(h, s);
	snapshot_free(s);

	assert_int_equal(history_nevents(h), 1);
	assert_int_equal(history_nphases(h), 2);
	const struct phase *p0 = history_phase(h, 0), *p1 = history_phase(h, 1);
	assert_string_equal(p0->label, "start");
	assert_string_equal(p1->label, "spread");
	assert_true(p0->to == 1.0 && p1->from == 1.0 && p1->to == 1.5);
	/* Bytes and migrations are deltas within each phase. */
	assert_int_equal(phase_wl_bytes(p0, 0, 0), 3000); /* from zero: the first snapshot counts too */
	assert_int_equal(phase_wl_bytes(p1, 0, 0), 4000);
	assert_true(phase_moved(p0) && phase_moved(p1));
	assert_int_equal(p0->migrations, 2);
	assert_int_equal(p1->migrations, 0);
	assert_true(p1->cpu_s > 0.19 && p1->cpu_s < 0.21);
	/* Mean frequency counts only CPUs with a known one. */
	assert_true(p1->khz_time > 0 && p1->khz_sum / p1->khz_time == 2600000);
	history_free(h);
}

/* A command whose bytes turn from read to written (and back) while the
 * phases go on: each phase keeps both directions, and whichever side the
 * run is rated by at the end, the phases add up to that side's total. */
static void test_phase_follows_side(void **state)
{
	(void)state;
	struct history *h = history_new(8);
	struct { uint64_t r, w; char side; } steps[] = {
		{ 1000, 0, 'r' }, { 3000, 1000, 'r' }, { 4000, 2000, 'w' }, { 5000, 5000, 'w' },
		{ 5000, 6000, 'w' },
	};
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
		if (i == 2 || i == 4) {  /* a phase opens before the flip and after it */
			struct event e = { .t = (double)i + 0.5 };
			strcpy(e.action, "marker");
			strcpy(e.label, i == 2 ? "flip" : "after");
			history_close_phase_bytes(h, 0, steps[i - 1].side == 'r' ? steps[i - 1].r : steps[i - 1].w);
			assert_int_equal(history_add_event(h, &e), 0);
		}
		struct snapshot *s = snap_at((double)i + 1, 0, 0, 0, -1);
		s->wls[0].rbytes = steps[i].r;
		s->wls[0].wbytes = steps[i].w;
		s->wls[0].counted = steps[i].side;
		s->wls[0].bytes = steps[i].side == 'r' ? steps[i].r : steps[i].w;
		assert_int_equal(history_push(h, s), 0);
		snapshot_free(s);
	}
	assert_int_equal(history_nphases(h), 3);
	uint64_t r = 0, w = 0;
	for (size_t i = 0; i < 3; i++) {
		r += phase_wl_bytes(history_phase(h, i), 0, 'r');
		w += phase_wl_bytes(history_phase(h, i), 0, 'w');
	}
	assert_int_equal(r, 5000);
	assert_int_equal(w, 6000);
	/* the phase before the flip holds what was written in it too */
	assert_int_equal(phase_wl_bytes(history_phase(h, 0), 0, 'w'), 1000);
	assert_int_equal(phase_wl_bytes(history_phase(h, 0), 0, 'r'), 3000);
	assert_int_equal(phase_wl_bytes(history_phase(h, 2), 0, 'w'), 1000);
	assert_int_equal(phase_wl_bytes(history_phase(h, 2), 0, 'r'), 0);
	/* a workload the phase never saw moved nothing in it */
	assert_int_equal(phase_wl_bytes(history_phase(h, 0), 3, 'w'), 0);
	history_free(h);
}

static void test_state_names(void **state)
{
	(void)state;
	assert_string_equal(model_wl_state_name(WLS_RUNNING), "running");
	assert_string_equal(model_wl_state_name(WLS_PAUSED), "paused");
	assert_string_equal(model_wl_state_name(WLS_DONE), "done");
	assert_string_equal(model_wl_state_name(WLS_FAILED), "failed");
}

/* A workload's end for good is an event, not a new phase. */
static void test_noted_event_keeps_phase(void **state)
{
	(void)state;
	struct history *h = history_new(16);
	struct event e = { .t = 1.0 };
	strcpy(e.action, "workload_end");
	strcpy(e.label, "w1 done");
	assert_int_equal(history_note_event(h, &e), 0);
	strcpy(e.action, "marker");
	strcpy(e.label, "one");
	e.t = 2.0;
	assert_int_equal(history_add_event(h, &e), 0);
	assert_int_equal(history_nevents(h), 2);
	assert_int_equal(history_nphases(h), 2);
	assert_string_equal(history_phase(h, 1)->label, "one");
	assert_true(history_phase(h, 0)->to == 2.0);
	history_free(h);
}

/* The event kinds: one name each, found again by it; other names are none. */
static void test_event_kinds(void **state)
{
	(void)state;
	for (int k = 0; k < EV_NKINDS; k++) {
		const char *n = event_kind_name(k);
		assert_non_null(n);
		assert_true(strlen(n) < sizeof(((struct event *)0)->action));
		assert_int_equal(event_kind_of(n), k);
	}
	assert_string_equal(event_kind_name(EV_WORKLOAD_END), "workload_end");
	assert_null(event_kind_name(EV_NKINDS));
	assert_int_equal(event_kind_of("hint"), -1);
	assert_int_equal(event_kind_of(NULL), -1);
}

static struct event ev(const char *action, const char *label)
{
	struct event e = { .t = 1 };
	snprintf(e.action, sizeof e.action, "%s", action);
	snprintf(e.label, sizeof e.label, "%s", label);
	return e;
}

/* A step's label says what its set-up did: whole words only. */
static void test_stepmark(void **state)
{
	(void)state;
	struct event step = ev("step", "rsync-demo placement=free governor=powersave");
	struct event gov = ev("governor", "gov powersave"), gov2 = ev("governor", "gov power");
	struct event pl = ev("placement", "free"), pl2 = ev("placement", "spread");
	struct event mark = ev("marker", "governor=powersave");
	assert_true(stepmark_says(&step, &gov));
	assert_true(stepmark_says(&step, &pl));
	assert_false(stepmark_says(&step, &gov2));   /* "governor=power" is not a word of it */
	assert_false(stepmark_says(&step, &pl2));
	assert_false(stepmark_says(&step, &mark));   /* a user's marker is always labelled */
	assert_false(stepmark_says(NULL, &gov));     /* outside experiments */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_keeps_newest),
		cmocka_unit_test(test_stepmark),
		cmocka_unit_test(test_snapshot_copy_grows),
		cmocka_unit_test(test_events_split_phases),
		cmocka_unit_test(test_noted_event_keeps_phase),
		cmocka_unit_test(test_phase_follows_side),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_event_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

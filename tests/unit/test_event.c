/* test_event.c - events typed (event.h): every kind's details written as a
 * record (record_event) and read back (event_json_read) are the same
 * struct, field for field; names and marks from the one list; the
 * placement maps' storage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchtop/event.h"
#include "benchtop/json.h"
#include "benchtop/event_json.h"
#include "benchtop/record.h"
#include "benchtop/recording.h"

/* e written as an event record, parsed, read back into *back. */
static void roundtrip(const struct event *e, struct event *back, struct json **rec)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	record_event(fp, e);
	fclose(fp);
	assert_true(len > 0 && text[len - 1] == '\n');
	assert_null(memchr(text, '\n', len - 1));   /* one line */
	struct json_error err;
	*rec = json_parse(text, len - 1, &err);
	free(text);
	assert_non_null(*rec);
	event_json_read(*rec, -1, back);
}

static void assert_same(const struct event *e)
{
	struct event *back = malloc(sizeof *back);
	struct json *rec;
	assert_non_null(back);
	roundtrip(e, back, &rec);
	assert_string_equal(json_str(json_get(rec, "type"), ""), "event");
	assert_string_equal(json_str(json_get(rec, "action"), ""), event_name(e));
	assert_int_equal(back->kind, e->kind);
	assert_true(back->t == e->t);
	assert_string_equal(back->label, e->label);
	assert_memory_equal(back, e, sizeof *e);
	json_free(rec);
	free(back);
}

static struct event *new_event(enum event_kind k, double t, const char *label)
{
	struct event *e = malloc(sizeof *e);
	assert_non_null(e);
	event_init(e, k, t, label);
	return e;
}

static void test_place_roundtrip(void **state)
{
	(void)state;
	struct event *e = new_event(EV_PIN, 1.5, "pin reader:0-1");
	struct ev_place *p = &e->d.place;
	snprintf(p->target, sizeof p->target, "1234");
	snprintf(p->cpus, sizeof p->cpus, "0-1");
	p->has_proc = true;
	p->ok = true;
	p->pid = 1234;
	p->workload = 2;
	snprintf(p->role, sizeof p->role, "reader");
	snprintf(p->slot, sizeof p->slot, "reader");
	assert_int_equal(event_map_add(p, false, 1234, "0,2"), 0);
	assert_int_equal(event_map_add(p, false, 1240, "0-3"), 0);
	assert_int_equal(event_map_add(p, true, 1234, "0-1"), 0);
	assert_int_equal(event_map_add(p, true, 1240, "0-3"), 0);
	assert_string_equal(event_map_cpus(p, &p->before[1]), "0-3");
	assert_same(e);

	/* a placement that failed, for no one process: no pid in the detail */
	event_init(e, EV_PLACEMENT, 2.25, "spread failed");
	snprintf(p->target, sizeof p->target, "spread");
	snprintf(p->cpus, sizeof p->cpus, "round robin");
	p->ok = false;
	snprintf(p->error, sizeof p->error, "PID 7: \"Operation not permitted\"\n");
	struct event *back = malloc(sizeof *back);
	struct json *rec;
	roundtrip(e, back, &rec);
	const struct json *d = json_get(rec, "detail");
	assert_null(json_get(d, "pid"));
	assert_false(json_bool(json_get(d, "ok"), true));
	assert_int_equal(json_type(json_get(d, "before")), JSON_OBJECT);
	assert_memory_equal(back, e, sizeof *e);
	json_free(rec);
	free(back);
	free(e);
}

/* Maps that do not fit are left out whole (never half a map). */
static void test_place_maps_cut(void **state)
{
	(void)state;
	struct event *e = new_event(EV_PIN, 1, "pin all:0");
	struct ev_place *p = &e->d.place;
	char list[600];
	memset(list, '1', sizeof list - 1);
	list[sizeof list - 1] = 0;
	int rc = 0, i = 0;
	assert_int_equal(event_map_add(p, false, 1, "0"), 0);
	while (rc == 0 && i < 100)
		rc = event_map_add(p, true, 100 + i++, list);
	assert_int_equal(rc, -ENOSPC);
	assert_true(p->maps_cut);
	assert_int_equal(p->nbefore, 0);
	assert_int_equal(p->nafter, 0);
	assert_int_equal(event_map_add(p, false, 2, "1"), -ENOSPC);
	/* and the record says {} for both */
	p->ok = true;
	struct event *back = malloc(sizeof *back);
	struct json *rec;
	roundtrip(e, back, &rec);
	assert_int_equal(json_len(json_get(json_get(rec, "detail"), "after")), 0);
	assert_int_equal(back->d.place.nafter, 0);
	json_free(rec);
	free(back);
	free(e);
}

static void test_other_kinds_roundtrip(void **state)
{
	(void)state;
	struct event *e = new_event(EV_GOVERNOR, 3, "gov performance");
	e->d.gov.policy = -1;
	snprintf(e->d.gov.before, sizeof e->d.gov.before, "powersave");
	snprintf(e->d.gov.after, sizeof e->d.gov.after, "performance");
	assert_same(e);

	event_init(e, EV_MAXFREQ, 4, "max 1.6GHz");
	e->d.maxfreq.policy = 1;   /* field by field: padding stays zero for the compare */
	e->d.maxfreq.before = 2600000;
	e->d.maxfreq.after = 1600000;
	assert_same(e);

	event_init(e, EV_MARKER, 5, "cache \"cold\"");
	snprintf(e->d.text.text, sizeof e->d.text.text, "cache \"cold\"\tnow \xc3\xa9");
	assert_same(e);
	e->d.text.workload = 2;   /* a restart's marker names its workload */
	assert_same(e);

	event_init(e, EV_CAPTION, 6, "Step 1");
	snprintf(e->d.text.text, sizeof e->d.text.text, "Step 1 of 5: the copy runs on one CPU");
	assert_same(e);

	event_init(e, EV_PAUSE, 7, "pause");
	assert_same(e);
	event_init(e, EV_RESUME, 8, "resume");
	snprintf(e->d.why.why, sizeof e->d.why.why, "exit");
	assert_same(e);

	event_init(e, EV_WORKLOAD_END, 9, "w1 failed");
	e->d.end.workload = 1;
	snprintf(e->d.end.state, sizeof e->d.end.state, "failed");
	snprintf(e->d.end.error, sizeof e->d.end.error, "cp: cannot open 'x': No such file");
	assert_same(e);

	event_init(e, EV_SIGNAL, 10, "STOP dd 42");
	e->d.sig.pid = 42;
	e->d.sig.number = 19;
	snprintf(e->d.sig.name, sizeof e->d.sig.name, "STOP");
	snprintf(e->d.sig.role, sizeof e->d.sig.role, "attached");
	snprintf(e->d.sig.comm, sizeof e->d.sig.comm, "dd");
	assert_same(e);

	event_init(e, EV_STEP, 11, "copy bs=4096");
	e->d.step.step = 3;
	assert_same(e);
	free(e);
}

/* A kind this benchtop does not know (a newer recording's): its name
 * kept, its details not read; a record without a label shows the name. */
static void test_unknown_kind(void **state)
{
	(void)state;
	const char *line = "{\"type\":\"event\",\"t\":2,\"action\":\"hint\",\"detail\":{\"x\":1}}";
	struct json_error err;
	struct json *j = json_parse(line, strlen(line), &err);
	assert_non_null(j);
	struct event *e = malloc(sizeof *e);
	event_json_read(j, 0, e);
	assert_int_equal(e->kind, EV_OTHER);
	assert_string_equal(event_name(e), "hint");
	assert_string_equal(event_shown(e), "hint");
	assert_true(e->t == 2);
	json_free(j);
	/* details of the wrong shape are not taken */
	line = "{\"type\":\"event\",\"action\":\"governor\",\"label\":\"g\",\"detail\":[1]}";
	j = json_parse(line, strlen(line), &err);
	event_json_read(j, 7, e);
	assert_int_equal(e->kind, EV_GOVERNOR);
	assert_true(e->t == 7);
	assert_string_equal(e->d.gov.after, "");
	json_free(j);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_roundtrip),
		cmocka_unit_test(test_place_maps_cut),
		cmocka_unit_test(test_other_kinds_roundtrip),
		cmocka_unit_test(test_unknown_kind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

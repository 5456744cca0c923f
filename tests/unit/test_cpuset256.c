/* test_cpuset256.c - CPU sets on a 256-CPU machine: every other CPU,
 * "0,2,4,...,254" (456 bytes as a list), is kept whole as a process's
 * allowed mask in a snapshot, through the history's copies, a growing
 * snapshot, a record line and the recording read back, and in a placement
 * event's detail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchtop/actions.h"
#include "benchtop/cpulist.h"
#include "benchtop/json.h"
#include "benchtop/model.h"
#include "benchtop/placement.h"
#include "benchtop/record.h"
#include "benchtop/recording.h"

#define NCPU 256

static char want[NCPU * 4 + 1];   /* "0,2,4,...,254" */

static void every_other(unsigned char *m)
{
	for (int c = 0; c < NCPU; c++)
		m[c] = c % 2 == 0;
}

static void assert_every_other(const unsigned char *m)
{
	assert_non_null(m);
	char *got = cpulist_text(m, NCPU);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static int setup_all(void **state)
{
	(void)state;
	size_t k = 0;
	for (int c = 0; c < NCPU; c += 2)
		k += (size_t)snprintf(want + k, sizeof want - k, "%s%d", c ? "," : "", c);
	return 0;
}

static void test_list_whole(void **state)
{
	(void)state;
	unsigned char m[NCPU], back[NCPU];
	every_other(m);
	assert_int_equal(strlen(want), 456);
	assert_true(cpulist_size(NCPU) > strlen(want));
	assert_every_other(m);
	char err[128];
	assert_int_equal(cpulist_parse(want, back, NCPU, err, sizeof err), 0);
	assert_memory_equal(m, back, NCPU);
	/* the worst case of every CPU count fits the room it is given */
	for (int n = 1; n <= 1100; n++) {
		unsigned char *all = malloc((size_t)n);
		for (int c = 0; c < n; c++)
			all[c] = c % 2 == 0;
		char *t = cpulist_text(all, n);
		assert_true(strlen(t) < cpulist_size(n));
		assert_int_equal(cpulist_parse(t, all, n, NULL, 0), 0);
		assert_int_equal(cpulist_count(all, n), (n + 1) / 2);
		free(t);
		free(all);
	}
}

static struct snapshot *sample_256(int nproc)
{
	struct snapshot *s = snapshot_new(NCPU, nproc, 1);
	assert_non_null(s);
	s->nproc = nproc;
	for (int i = 0; i < nproc; i++) {
		s->procs[i].pid = 1000 + i;
		s->procs[i].workload = 1;
		s->procs[i].alive = true;
		snprintf(s->procs[i].role, sizeof s->procs[i].role, "writer");
		snprintf(s->procs[i].comm, sizeof s->procs[i].comm, "w%d", i);
		every_other(s->procs[i].allowed);
		s->procs[i].allowed[i % NCPU] = 1;   /* each its own */
	}
	return s;
}

static void test_snapshot_and_history(void **state)
{
	(void)state;
	struct snapshot *s = sample_256(3);
	s->procs[0].allowed[0] = 1;
	assert_every_other(s->procs[0].allowed);
	/* more room later: what is there stays */
	assert_int_equal(snapshot_reserve_procs(s, 200), 0);
	assert_every_other(s->procs[0].allowed);
	assert_int_equal(s->procs[1].allowed[1], 1);
	struct history *h = history_new(4);
	for (int k = 0; k < 6; k++) {   /* the ring turns over */
		s->t = k;
		assert_int_equal(history_push(h, s), 0);
	}
	const struct snapshot *last = history_last(h);
	assert_int_equal(last->ncpu, NCPU);
	assert_every_other(last->procs[0].allowed);
	/* copies own their masks: the source changing leaves them be */
	assert_true(last->procs[0].allowed != s->procs[0].allowed);
	s->procs[0].allowed[2] = 0;
	assert_every_other(last->procs[0].allowed);
	/* a slot overwritten by a whole proc_sample gets its mask back */
	s->procs[2] = (struct proc_sample){ .pid = 9 };
	assert_null(s->procs[2].allowed);
	unsigned char *m = snapshot_allowed(s, 2);
	assert_non_null(m);
	assert_ptr_equal(m, s->procs[2].allowed);
	history_free(h);
	snapshot_free(s);
}

static void test_record_roundtrip(void **state)
{
	(void)state;
	char path[] = "/tmp/benchtop-cpuset256-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	assert_non_null(fp);
	struct snapshot *s = sample_256(2);
	s->t = 0.5;
	s->dt = 0.5;
	struct run_out o = { .ncpu = NCPU };
	fprintf(fp, "{\"type\":\"start\",\"version\":1}\n");
	record_sample(&o, fp, s);
	fclose(fp);
	/* the line holds the whole list */
	char *line = NULL;
	size_t cap = 0;
	fp = fopen(path, "r");
	assert_true(getline(&line, &cap, fp) > 0);
	assert_true(getline(&line, &cap, fp) > 0);
	fclose(fp);
	struct json_error jerr;
	struct json *j = json_parse(line, strlen(line), &jerr);
	assert_non_null(j);
	assert_string_equal(json_str(json_get(json_at(json_get(j, "procs"), 0), "allowed"), ""), want);
	json_free(j);
	free(line);
	/* and the recording read back has the mask */
	struct recording *rec = NULL;
	char err[512];
	assert_int_equal(recording_load(path, &rec, err, sizeof err), 0);
	assert_int_equal(recording_nsamples(rec), 1);
	const struct snapshot *r = recording_sample(rec, 0);
	assert_int_equal(r->ncpu, NCPU);
	assert_every_other(r->procs[0].allowed);
	assert_int_equal(r->procs[1].allowed[1], 1);
	recording_free(rec);
	snapshot_free(s);
	unlink(path);
}

static double now0(void *owner)
{
	(void)owner;
	return 1;
}

static struct event seen;

static void keep_event(void *owner, const struct event *e, bool phase)
{
	(void)owner;
	(void)phase;
	seen = *e;
}

/* Every other CPU asked for, the affinity calls faked: the event's
 * detail names the whole list. */
static int fake_set(pid_t pid, const unsigned char *mask, int n, char *msg, size_t len)
{
	(void)pid;
	(void)mask;
	(void)n;
	(void)msg;
	(void)len;
	return 0;
}

static int fake_get(pid_t pid, unsigned char *mask, int n)
{
	(void)pid;
	for (int c = 0; c < n; c++)
		mask[c] = c % 2 == 0;
	return 0;
}

static void test_pin_event_256(void **state)
{
	(void)state;
	static const struct action_ops ops = { .now = now0, .event = keep_event,
	                                       .set_affinity = fake_set, .get_affinity = fake_get };
	struct snapshot *s = sample_256(2);
	struct history *h = history_new(4);
	history_push(h, s);
	struct view_state vs = { 0 };
	unsigned char online[NCPU], allowed[NCPU];
	memset(online, 1, sizeof online);
	memset(allowed, 1, sizeof allowed);
	struct action_ctx c = { .ops = &ops, .hist = h, .vs = &vs, .ncpu = NCPU,
	                        .online = online, .allowed = allowed };
	c.pl = placement_new(NCPU, 1, allowed);
	/* a rule of every other CPU for the workload (a list longer than an
	 * action's text) */
	unsigned char m[NCPU];
	every_other(m);
	placement_set_workload(c.pl, -1, m);
	const unsigned char *got = action_placer(&c, 1, "writer");
	assert_every_other(got);
	/* pin the selected one to CPU 254 */
	struct action act = { .id = ACT_PIN_CPU, .cpu = 254 };
	action_apply(&c, &act);
	assert_int_equal(c.err, 0);
	assert_int_equal(seen.kind, EV_PIN);
	assert_string_equal(seen.d.place.cpus, "254");
	assert_false(seen.d.place.maps_cut);
	assert_int_equal(seen.d.place.nafter, 1);
	assert_int_equal(seen.d.place.after[0].pid, 1000);
	assert_string_equal(event_map_cpus(&seen.d.place, &seen.d.place.after[0]), want);
	/* and as its record writes it */
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	assert_non_null(mem);
	record_event(mem, &seen);
	fclose(mem);
	struct json_error jerr;
	struct json *d = json_parse(text, len - 1, &jerr);
	free(text);
	assert_non_null(d);
	const struct json *det = json_get(d, "detail");
	assert_string_equal(json_str(json_get(det, "cpus"), ""), "254");
	assert_string_equal(json_str(json_get(json_get(det, "after"), "1000"), ""), want);
	json_free(d);
	c.online = c.allowed = NULL;  /* the test's own arrays */
	action_ctx_free(&c);
	history_free(h);
	snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_whole),
		cmocka_unit_test(test_snapshot_and_history),
		cmocka_unit_test(test_record_roundtrip),
		cmocka_unit_test(test_pin_event_256),
	};
	return cmocka_run_group_tests(tests, setup_all, NULL);
}

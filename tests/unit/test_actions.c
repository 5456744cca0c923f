/* test_actions.c - the actions of keys and --at (actions.h) against a
 * fake feed: a history holding one sample of real child processes, the
 * events recorded by a fake run.  Affinity is read back from
 * /proc/PID/status, governors and limits from a fake sysfs tree, pause
 * from the children's state; a refusing kernel is an injected function.
 * No terminal, no sampler, no workload engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fakesys.h"
#include "benchtop/actions.h"
#include "benchtop/cpufreq.h"
#include "benchtop/cpulist.h"
#include "benchtop/json.h"
#include "benchtop/placement.h"
#include "benchtop/event_json.h"
#include "benchtop/record.h"

#define NKIDS 2
#define MAXCPU 1024

/* The fake run: what the actions' calls reach. */
struct fake {
	struct history *hist;
	struct snapshot *snap;
	struct view_state vs;
	struct action_ctx c;
	pid_t kids[NKIDS];
	double t;
	int nphase_events, nnotes;
	int refuse;              /* the injected kernel refuses with this errno */
	int nset;                /* calls of the injected set_affinity */
};

static struct fake *fk;     /* for the ops, which get only the owner */
static char base[128];
static int ncpu, cpus[MAXCPU], nallowed;   /* the CPUs this test may use */

static double fake_now(void *owner)
{
	return ((struct fake *)owner)->t;
}

/* The run's event sink: into the history, as a live run's. */
static void fake_event(void *owner, const struct event *e, bool phase)
{
	struct fake *f = owner;
	if (phase) {
		history_add_event(f->hist, e);
		f->nphase_events++;
	} else {
		history_note_event(f->hist, e);
		f->nnotes++;
	}
}

static int refusing_set(pid_t pid, const unsigned char *mask, int n, char *msg, size_t len)
{
	(void)pid;
	(void)mask;
	(void)n;
	fk->nset++;
	snprintf(msg, len, "not allowed here");
	return -fk->refuse;
}

static const struct action_ops ops = { .now = fake_now, .event = fake_event };
static const struct action_ops refusing_ops = { .now = fake_now, .event = fake_event,
                                                .set_affinity = refusing_set };

/* A field of /proc/PID/status ("Cpus_allowed_list", "State"). */
static void status_field(pid_t pid, const char *key, char *out, size_t len)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	out[0] = 0;
	size_t kl = strlen(key);
	while (fgets(line, sizeof line, fp))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			char *v = line + kl + 1;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = 0;
			snprintf(out, len, "%s", v);
		}
	fclose(fp);
}

static void assert_allowed(pid_t pid, const char *want)
{
	char got[256];
	status_field(pid, "Cpus_allowed_list", got, sizeof got);
	assert_string_equal(got, want);
}

/* The state letter of pid, waiting (bounded) for it to become want. */
static char state_becomes(pid_t pid, char want)
{
	char st[64] = "";
	for (int i = 0; i < 2000; i++) {
		status_field(pid, "State", st, sizeof st);
		if (st[0] == want)
			break;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return st[0];
}

static const char *cpu_name(int k)
{
	static char b[4][16];
	static int i;
	i = (i + 1) % 4;
	snprintf(b[i], sizeof b[i], "%d", cpus[k]);
	return b[i];
}

/* The newest event, its detail as a record writes it, parsed (freed by
 * the caller). */
static const struct event *last_event(struct json **detail)
{
	size_t n = history_nevents(fk->hist);
	assert_true(n > 0);
	const struct event *e = history_event(fk->hist, n - 1);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	struct jw w;
	jw_begin(&w, m);
	event_json_write(&w, NULL, e);
	fclose(m);
	struct json_error err;
	*detail = json_parse(text, len, &err);
	free(text);
	assert_non_null(*detail);
	return e;
}

static int setup(void **state)
{
	(void)state;
	struct fake *f = calloc(1, sizeof *f);
	fk = f;
	f->t = 1;
	f->hist = history_new(16);
	f->snap = snapshot_new(ncpu, NKIDS, 1);
	assert_non_null(f->hist);
	assert_non_null(f->snap);
	static const char *roles[NKIDS] = { "writer", "reader" };
	unsigned char *m = calloc((size_t)ncpu, 1);
	for (int k = 0; k < nallowed; k++)
		m[cpus[k]] = 1;
	for (int i = 0; i < NKIDS; i++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			for (;;)
				pause();
		}
		f->kids[i] = pid;
		struct proc_sample *p = &f->snap->procs[i];
		*p = (struct proc_sample){ .pid = pid, .workload = 1, .cpu = cpus[0], .alive = true,
		                           .state = 'S', .cpu_pct = 50 - i };
		snprintf(p->role, sizeof p->role, "%s", roles[i]);
		snprintf(p->slot, sizeof p->slot, "%s", roles[i]);
		snprintf(p->comm, sizeof p->comm, "bt-%s", roles[i]);
		memcpy(snapshot_allowed(f->snap, i), m, (size_t)ncpu);
	}
	f->snap->nproc = NKIDS;
	f->snap->nwl = 1;
	history_push(f->hist, f->snap);
	f->c = (struct action_ctx){
		.ops = &ops, .owner = f, .hist = f->hist, .snap = NULL, .vs = &f->vs, .ncpu = ncpu,
		.online = m, .allowed = calloc((size_t)ncpu, 1), .interval = 0.5,
	};
	memcpy(f->c.allowed, m, (size_t)ncpu);
	f->c.pl = placement_new(ncpu, 1, f->c.allowed);
	assert_non_null(f->c.pl);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;
	for (int i = 0; i < NKIDS; i++) {
		kill(f->kids[i], SIGKILL);
		waitpid(f->kids[i], NULL, 0);
	}
	action_ctx_free(&f->c);
	snapshot_free(f->snap);
	history_free(f->hist);
	free(f);
	fk = NULL;
	return 0;
}

static void test_pin_selected(void **state)
{
	struct fake *f = *state;
	int k = nallowed - 1;
	f->vs.selected = 1;
	struct action act = { .id = ACT_PIN_CPU, .cpu = cpus[k], .policy = -1 };
	unsigned r = action_apply(&f->c, &act);
	assert_int_equal(f->c.err, 0);
	assert_true(r & REACT_EVENT);
	assert_true(r & REACT_STATUS);
	assert_false(r & REACT_FAILED);
	assert_allowed(f->kids[1], cpu_name(k));
	assert_non_null(strstr(f->vs.status, "pinned"));
	/* the event: what the kernel says the process has now */
	struct json *d;
	const struct event *e = last_event(&d);
	assert_string_equal(event_name(e), "pin");
	assert_true(json_bool(json_get(d, "ok"), false));
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)f->kids[1]);
	assert_string_equal(json_str(json_get(json_get(d, "after"), pid), ""), cpu_name(k));
	assert_string_equal(json_str(json_get(d, "role"), ""), "reader");
	json_free(d);
	/* the same, typed, as the dashboard reads it */
	assert_true(e->d.place.ok && e->d.place.has_proc);
	assert_int_equal(e->d.place.pid, f->kids[1]);
	assert_string_equal(e->d.place.cpus, cpu_name(k));
	assert_int_equal(history_nphases(f->hist), 2);
	/* the rule is on the role: the next reader gets it before it runs */
	const unsigned char *m = action_placer(&f->c, 1, "reader");
	assert_non_null(m);
	assert_int_equal(m[cpus[k]], 1);
}

static void test_pin_refused(void **state)
{
	struct fake *f = *state;
	f->c.ops = &refusing_ops;
	f->refuse = EPERM;
	struct action act = { .id = ACT_PIN_CPU, .cpu = cpus[0], .policy = -1 };
	unsigned r = action_apply(&f->c, &act);
	assert_true(r & REACT_FAILED);
	assert_int_equal(f->c.err, -EPERM);
	assert_int_equal(f->nset, 1);
	assert_non_null(strstr(f->vs.status, "not allowed here"));
	struct json *d;
	const struct event *e = last_event(&d);
	assert_non_null(strstr(e->label, "failed"));
	assert_false(json_bool(json_get(d, "ok"), true));
	assert_string_equal(json_str(json_get(d, "error"), ""), "not allowed here");
	json_free(d);
}

static void test_pin_bad_cpu(void **state)
{
	struct fake *f = *state;
	struct action act = { .id = ACT_PIN_CPU, .cpu = ncpu, .policy = -1 };
	unsigned r = action_apply(&f->c, &act);
	assert_true(r & REACT_FAILED);
	assert_int_equal(f->c.err, -EINVAL);
	assert_non_null(strstr(f->vs.status, "out of range"));
	assert_int_equal(history_nevents(f->hist), 0);
	act = (struct action){ .id = ACT_PIN_LIST, .whole = 2 };
	snprintf(act.text, sizeof act.text, "0-x");
	r = action_apply(&f->c, &act);
	assert_true(r & REACT_FAILED);
	assert_int_equal(history_nevents(f->hist), 0);
}

static void test_spread_pack_free(void **state)
{
	struct fake *f = *state;
	if (nallowed < 2)
		skip();
	struct action act = { .id = ACT_SPREAD, .policy = -1 };
	unsigned r = action_apply(&f->c, &act);
	assert_int_equal(f->c.err, 0);
	assert_true(r & REACT_EVENT);
	char a[64], b[64];
	status_field(f->kids[0], "Cpus_allowed_list", a, sizeof a);
	status_field(f->kids[1], "Cpus_allowed_list", b, sizeof b);
	/* each busy role on a CPU of its own */
	assert_int_equal((int)strcspn(a, ",-"), (int)strlen(a));
	assert_int_equal((int)strcspn(b, ",-"), (int)strlen(b));
	assert_string_not_equal(a, b);
	struct json *d;
	const struct event *e = last_event(&d);
	assert_string_equal(event_name(e), "placement");
	assert_string_equal(e->label, "spread");
	json_free(d);

	/* pack: every process on the selected one's CPU (where it last ran) */
	f->vs.selected = 0;
	f->snap->procs[0].cpu = cpus[1];
	history_push(f->hist, f->snap);
	act.id = ACT_PACK;
	action_apply(&f->c, &act);
	assert_int_equal(f->c.err, 0);
	assert_allowed(f->kids[0], cpu_name(1));
	assert_allowed(f->kids[1], cpu_name(1));
	e = last_event(&d);
	assert_string_equal(e->label, "pack");
	assert_string_equal(json_str(json_get(d, "cpus"), ""), cpu_name(1));
	json_free(d);

	/* free: back to every CPU placements may use */
	char all[64];
	cpulist_format(f->c.allowed, ncpu, all, sizeof all);
	act.id = ACT_FREE;
	action_apply(&f->c, &act);
	assert_allowed(f->kids[0], all);
	assert_allowed(f->kids[1], all);
	e = last_event(&d);
	assert_string_equal(e->label, "free");
	json_free(d);
	assert_int_equal(history_nphases(f->hist), 4);
}

/* A rule that changes (pack, then free) places every process again and
 * says nothing of lost placements; a process that drops what benchtop
 * gave it is said to, once. */
static void test_rule_change_not_lost(void **state)
{
	struct fake *f = *state;
	if (nallowed < 2)
		skip();
	f->vs.selected = 0;
	struct action act = { .id = ACT_PACK, .policy = -1 };
	action_apply(&f->c, &act);
	assert_allowed(f->kids[0], cpu_name(0));
	act.id = ACT_FREE;
	action_apply(&f->c, &act);
	assert_int_equal(f->c.err, 0);
	assert_true(f->c.plog.n >= 2);
	for (size_t i = 0; i < f->c.plog.n; i++)
		assert_false(f->c.plog.v[i].reported);
	/* the reader sets its own affinity: said at the next tick, put back */
	act.id = ACT_PACK;
	action_apply(&f->c, &act);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpus[1], &one);
	assert_int_equal(sched_setaffinity(f->kids[1], sizeof one, &one), 0);
	unsigned r = action_enforce_placement(&f->c);
	assert_true(r & REACT_STATUS);
	assert_non_null(strstr(f->vs.status, "did not keep"));
	assert_allowed(f->kids[1], cpu_name(0));
}

/* --at T:pin=LIST goes through the same table: every workload. */
static void test_at_pin(void **state)
{
	struct fake *f = *state;
	struct at_action at = { .t = 1, .kind = AT_PIN, .arg = (char *)cpu_name(0) };
	struct action act;
	action_of_at(&at, &act);
	assert_int_equal(act.id, ACT_PIN_LIST);
	action_apply(&f->c, &act);
	assert_int_equal(f->c.err, 0);
	assert_allowed(f->kids[0], cpu_name(0));
	assert_allowed(f->kids[1], cpu_name(0));
	struct json *d;
	const struct event *e = last_event(&d);
	assert_string_equal(event_name(e), "pin");
	assert_string_equal(json_str(json_get(d, "target"), ""), "all");
	json_free(d);
}

static void slurp(const char *root, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX * 2];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	if (!fgets(buf, (int)len, fp))
		buf[0] = 0;
	fclose(fp);
	buf[strcspn(buf, "\n")] = 0;
}

#define POL(n, f) "devices/system/cpu/cpufreq/policy" #n "/" f

static void test_governor_and_cap(void **state)
{
	struct fake *f = *state;
	static int n;
	char root[PATH_MAX], got[64];
	snprintf(root, sizeof root, "%s/sys%d", base, n++);
	assert_int_equal(fakesys_build(root, "--cpus 2 --governor powersave"), 0);
	f->c.cf = cpufreq_open(root, 2);
	assert_non_null(f->c.cf);
	assert_int_equal(cpufreq_npolicies(f->c.cf), 2);

	struct action act = { .id = ACT_GOV_SET, .policy = -1 };
	snprintf(act.text, sizeof act.text, "performance");
	unsigned r = action_apply(&f->c, &act);
	assert_int_equal(f->c.err, 0);
	assert_true(r & REACT_EVENT);
	slurp(root, POL(0, "scaling_governor"), got, sizeof got);
	assert_string_equal(got, "performance");
	slurp(root, POL(1, "scaling_governor"), got, sizeof got);
	assert_string_equal(got, "performance");
	struct json *d;
	const struct event *e = last_event(&d);
	assert_string_equal(event_name(e), "governor");
	assert_string_equal(json_str(json_get(d, "before"), ""), "powersave");
	assert_string_equal(json_str(json_get(d, "after"), ""), "performance");
	json_free(d);

	/* a cap on policy 1 only */
	act = (struct action){ .id = ACT_MAXFREQ, .policy = 1, .khz = 1600000 };
	r = action_apply(&f->c, &act);
	assert_int_equal(f->c.err, 0);
	slurp(root, POL(1, "scaling_max_freq"), got, sizeof got);
	assert_string_equal(got, "1600000");
	slurp(root, POL(0, "scaling_max_freq"), got, sizeof got);
	assert_string_equal(got, "2600000");
	e = last_event(&d);
	assert_string_equal(event_name(e), "maxfreq");
	assert_int_equal((long)json_num(json_get(d, "after"), 0), 1600000);
	json_free(d);

	/* an unknown governor: refused, the files as they were, no event */
	size_t nev = history_nevents(f->hist);
	act = (struct action){ .id = ACT_GOV_SET, .policy = -1 };
	snprintf(act.text, sizeof act.text, "turbo");
	r = action_apply(&f->c, &act);
	assert_true(r & REACT_FAILED);
	assert_int_equal(history_nevents(f->hist), nev);
	slurp(root, POL(0, "scaling_governor"), got, sizeof got);
	assert_string_equal(got, "performance");

	/* the end of the run puts them back */
	cpufreq_restore(f->c.cf);
	cpufreq_close(f->c.cf);
	f->c.cf = NULL;
	slurp(root, POL(0, "scaling_governor"), got, sizeof got);
	assert_string_equal(got, "powersave");
	slurp(root, POL(1, "scaling_max_freq"), got, sizeof got);
	assert_string_equal(got, "2600000");
}

static void test_no_cpufreq(void **state)
{
	struct fake *f = *state;
	struct action act = { .id = ACT_GOV_NEXT, .policy = -1 };
	unsigned r = action_apply(&f->c, &act);
	assert_true(r & REACT_FAILED);
	assert_int_equal(f->c.err, -ENODEV);
	assert_non_null(strstr(f->vs.status, "no governors to change"));
	act = (struct action){ .id = ACT_MAXFREQ, .policy = -1, .khz = 1000000 };
	action_apply(&f->c, &act);
	assert_int_equal(f->c.err, -ENODEV);
	assert_int_equal(history_nevents(f->hist), 0);
}

static void test_marker(void **state)
{
	struct fake *f = *state;
	f->t = 2.5;
	struct action act = { .id = ACT_MARKER };
	snprintf(act.text, sizeof act.text, "cache \"cold\"\tnow");
	unsigned r = action_apply(&f->c, &act);
	assert_true(r & REACT_EVENT);
	struct json *d;
	const struct event *e = last_event(&d);
	assert_string_equal(event_name(e), "marker");
	assert_true(e->t == 2.5);
	assert_string_equal(json_str(json_get(d, "text"), ""), "cache \"cold\"\tnow");
	json_free(d);
	assert_int_equal(history_nphases(f->hist), 2);
	assert_string_equal(history_phase(f->hist, 1)->label, act.text);
	assert_string_equal(f->vs.status, "marker: cache \"cold\"\tnow");
}

static void test_pause_resume(void **state)
{
	struct fake *f = *state;
	f->c.attached = f->kids;
	f->c.nattached = NKIDS;
	struct action act = { .id = ACT_PAUSE };
	unsigned r = action_apply(&f->c, &act);
	assert_true(r & REACT_EVENT);
	assert_true(f->c.paused);
	assert_int_equal(state_becomes(f->kids[0], 'T'), 'T');
	assert_int_equal(state_becomes(f->kids[1], 'T'), 'T');
	struct json *d;
	assert_string_equal(event_name(last_event(&d)), "pause");
	json_free(d);
	/* space again resumes */
	action_apply(&f->c, &act);
	assert_false(f->c.paused);
	assert_int_equal(state_becomes(f->kids[0], 'S'), 'S');
	assert_string_equal(event_name(last_event(&d)), "resume");
	json_free(d);
	/* --at resume when running: said, nothing recorded */
	act.id = ACT_RESUME;
	size_t nev = history_nevents(f->hist);
	action_apply(&f->c, &act);
	assert_int_equal(history_nevents(f->hist), nev);
	assert_string_equal(f->vs.status, "not paused");
}

static void test_loop_bits(void **state)
{
	struct fake *f = *state;
	struct action act = { .id = ACT_QUIT };
	assert_true(action_apply(&f->c, &act) & REACT_QUIT);
	act.id = ACT_SLOWER;
	unsigned r = action_apply(&f->c, &act);
	assert_true(r & REACT_INTERVAL);
	assert_true(f->c.interval == 1);
	act.id = ACT_FASTER;
	action_apply(&f->c, &act);
	action_apply(&f->c, &act);
	assert_true(f->c.interval == 0.25);
	/* help and theme are the screen's, and only with a screen */
	act.id = ACT_HELP;
	assert_false(action_apply(&f->c, &act) & REACT_HELP);
	f->c.screen = true;
	assert_true(action_apply(&f->c, &act) & REACT_HELP);
	/* ids the table does not hold ask nothing */
	act.id = ACT_PROMPT_PIN;
	assert_int_equal(action_apply(&f->c, &act), 0);
}

static int setup_all(void **state)
{
	(void)state;
	snprintf(base, sizeof base, "/var/tmp/benchtop-actions-test.XXXXXX");
	if (!mkdtemp(base))
		return -1;
	char run[PATH_MAX + 8];
	snprintf(run, sizeof run, "%s/run", base);
	mkdir(run, 0700);
	setenv("XDG_RUNTIME_DIR", run, 1); /* journals stay inside the test */
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set))
		return -1;
	ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu < 1 || ncpu > MAXCPU)
		return -1;
	for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[nallowed++] = c;
	return nallowed > 0 ? 0 : -1;
}

static int teardown_all(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pin_selected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pin_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pin_bad_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spread_pack_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_change_not_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_at_pin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_governor_and_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_cpufreq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pause_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop_bits, setup, teardown),
	};
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}

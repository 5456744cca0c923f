/* test_placement.c - placement rules on roles: spread to the least-held
 * CPU, pack and free for every role, pins by role that hold for the role's
 * next process, and rules for processes that have not started yet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "benchtop/placement.h"

#define NCPU 4

static const unsigned char all[NCPU] = { 1, 1, 1, 1 };

/* The one CPU of a mask, -1 for none or several, -2 for NULL. */
static int cpu_of(const unsigned char *m)
{
	int c1 = -1;
	if (!m)
		return -2;
	for (int c = 0; c < NCPU; c++)
		if (m[c]) {
			if (c1 >= 0)
				return -1;
			c1 = c;
		}
	return c1;
}

static void one(unsigned char *m, int cpu)
{
	memset(m, 0, NCPU);
	m[cpu] = 1;
}

/* Spread gives each new role the least-held CPU, round robin among equals. */
static void test_spread_least_held(void **s)
{
	(void)s;
	struct placement_rules *p = placement_new(NCPU, 2, all);
	assert_non_null(p);
	assert_null(placement_want(p, 1, "reader", -1));  /* no rule yet */
	placement_spread(p);
	assert_true(placement_spreading(p));
	assert_int_equal(cpu_of(placement_want(p, 1, "reader", -1)), 0);
	assert_int_equal(cpu_of(placement_want(p, 1, "writer", -1)), 1);
	assert_int_equal(cpu_of(placement_want(p, 1, "control", -1)), 2);
	assert_int_equal(cpu_of(placement_want(p, 2, "cmd", -1)), 3);
	/* every CPU held once: a fifth role shares, and the next one
	 * does not pile onto the same CPU */
	int a = cpu_of(placement_want(p, 2, "rsync.1", -1));
	int b = cpu_of(placement_want(p, 2, "rsync.2", -1));
	assert_true(a >= 0 && b >= 0 && a != b);
	assert_int_equal(placement_held(p, a), 2);
	/* a role asks again (its next process): the same CPU */
	assert_int_equal(cpu_of(placement_want(p, 1, "writer", -1)), 1);
	placement_free(p);
}

/* Roles whose processes are gone do not hold their CPUs, but keep them
 * for a later restart. */
static void test_spread_live_roles(void **s)
{
	(void)s;
	struct placement_rules *p = placement_new(NCPU, 1, all);
	placement_spread(p);
	assert_int_equal(cpu_of(placement_want(p, 1, "a", -1)), 0);
	assert_int_equal(cpu_of(placement_want(p, 1, "b", -1)), 1);
	placement_live_begin(p);
	placement_live(p, 1, "b");          /* a's process ended */
	assert_int_equal(placement_held(p, 0), 0);
	assert_int_equal(placement_held(p, 1), 1);
	int c = cpu_of(placement_want(p, 1, "c", -1));
	assert_true(c != 1 && c >= 0);
	assert_int_equal(cpu_of(placement_want(p, 1, "a", -1)), 0);  /* a restarts */
	placement_free(p);
}

/* A process already alone on a CPU nobody holds keeps it under spread. */
static void test_spread_keeps_own_cpu(void **s)
{
	(void)s;
	struct placement_rules *p = placement_new(NCPU, 1, all);
	placement_spread(p);
	assert_int_equal(cpu_of(placement_want(p, 1, "x", 3)), 3);
	assert_int_equal(cpu_of(placement_want(p, 1, "y", 3)), 0);  /* 3 is held now */
	placement_free(p);
}

/* Spread stays within the allowed CPUs (--cpus). */
static void test_spread_allowed_only(void **s)
{
	(void)s;
	const unsigned char some[NCPU] = { 0, 1, 0, 1 };
	struct placement_rules *p = placement_new(NCPU, 1, some);
	placement_spread(p);
	for (int i = 0; i < 6; i++) {
		char slot[8] = { 'r', (char)('0' + i), 0 };
		int c = cpu_of(placement_want(p, 1, slot, 0));
		assert_true(c == 1 || c == 3);
	}
	placement_free(p);
}

/* Pack: every role of every workload, also those not started yet, on one
 * CPU; it ends spread and drops the pins. */
static void test_pack_all_roles(void **s)
{
	(void)s;
	unsigned char m[NCPU];
	struct placement_rules *p = placement_new(NCPU, 2, all);
	placement_spread(p);
	placement_want(p, 1, "writer", -1);
	one(m, 2);
	assert_int_equal(placement_set_workload(p, -1, m), 0);
	assert_false(placement_spreading(p));
	assert_int_equal(cpu_of(placement_want(p, 1, "writer", -1)), 2);
	assert_int_equal(cpu_of(placement_want(p, 2, "cmd", -1)), 2);     /* not started yet */
	assert_int_equal(cpu_of(placement_want(p, 0, "pid42", -1)), 2);   /* attached */
	assert_int_equal(placement_held(p, 2), 0);   /* a workload rule, no role pins */
	/* free: every role on the allowed CPUs */
	assert_int_equal(placement_set_workload(p, -1, all), 0);
	assert_memory_equal(placement_want(p, 1, "writer", -1), all, NCPU);
	placement_free(p);
}

/* A pin is on a role: the role's next process gets it; other roles and
 * other workloads keep theirs; a rule for its whole workload replaces it. */
static void test_pin_by_role(void **s)
{
	(void)s;
	unsigned char m[NCPU];
	struct placement_rules *p = placement_new(NCPU, 2, all);
	one(m, 1);
	assert_int_equal(placement_pin(p, 1, "writer", m), 0);
	assert_int_equal(cpu_of(placement_want(p, 1, "writer", -1)), 1);
	assert_null(placement_want(p, 1, "reader", -1));
	assert_null(placement_want(p, 2, "writer", -1));
	/* a restart asks again, before its process runs */
	placement_live_begin(p);
	assert_int_equal(cpu_of(placement_want(p, 1, "writer", -1)), 1);
	/* pinning again moves the rule */
	one(m, 3);
	assert_int_equal(placement_pin(p, 1, "writer", m), 0);
	assert_int_equal(cpu_of(placement_want(p, 1, "writer", -1)), 3);
	/* workload 2 packed: workload 1's pin stays */
	one(m, 0);
	assert_int_equal(placement_set_workload(p, 2, m), 0);
	assert_int_equal(cpu_of(placement_want(p, 1, "writer", -1)), 3);
	assert_int_equal(cpu_of(placement_want(p, 2, "cmd", -1)), 0);
	/* workload 1 as a whole: the role's pin gives way */
	assert_int_equal(placement_set_workload(p, 1, m), 0);
	assert_int_equal(cpu_of(placement_want(p, 1, "writer", -1)), 0);
	placement_free(p);
}

/* A pin under spread holds its CPU: spread places new roles elsewhere. */
static void test_pin_under_spread(void **s)
{
	(void)s;
	unsigned char m[NCPU];
	const unsigned char two[NCPU] = { 1, 1, 0, 0 };
	struct placement_rules *p = placement_new(NCPU, 1, two);
	placement_spread(p);
	one(m, 0);
	assert_int_equal(placement_pin(p, 1, "writer", m), 0);
	assert_true(placement_spreading(p));
	assert_int_equal(cpu_of(placement_want(p, 1, "reader", -1)), 1);
	placement_free(p);
}

static void test_bad_rules(void **s)
{
	(void)s;
	const unsigned char none[NCPU] = { 0 };
	struct placement_rules *p = placement_new(NCPU, 1, all);
	assert_int_equal(placement_pin(p, 1, "writer", none), -22);
	assert_int_equal(placement_pin(p, 5, "writer", all), -22);
	assert_int_equal(placement_set_workload(p, 1, none), -22);
	assert_null(placement_want(p, 7, "writer", -1));
	placement_free(p);
}

/* On 2 CPUs, roles asking in rsync's order (sender, generator,
 * receiver) put sender and receiver together; once the generator shows
 * idle, the receiver moves to the CPU no busy role holds. */
static void test_spread_rebalance(void **s)
{
	(void)s;
	const unsigned char two[NCPU] = { 1, 1, 0, 0 };
	struct placement_rules *p = placement_new(NCPU, 1, two);
	placement_spread(p);
	int snd = cpu_of(placement_want(p, 1, "cmd", -1));
	int gen = cpu_of(placement_want(p, 1, "rsync.1", -1));
	int rcv = cpu_of(placement_want(p, 1, "rsync.2", -1));
	assert_int_equal(snd, rcv);
	assert_true(gen != snd);
	placement_live_begin(p);
	placement_live(p, 1, "cmd");
	placement_live(p, 1, "rsync.1");
	placement_live(p, 1, "rsync.2");
	assert_int_equal(placement_rebalance(p), 0);   /* all busy: nowhere better */
	placement_idle(p, 1, "rsync.1", true);
	assert_int_equal(placement_rebalance(p), 1);
	assert_int_equal(placement_spread_cpu(p, 1, "cmd"), snd);
	assert_int_equal(placement_spread_cpu(p, 1, "rsync.2"), gen);
	assert_int_equal(placement_rebalance(p), 0);   /* settled */
	placement_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread_least_held),
		cmocka_unit_test(test_spread_live_roles),
		cmocka_unit_test(test_spread_keeps_own_cpu),
		cmocka_unit_test(test_spread_allowed_only),
		cmocka_unit_test(test_pack_all_roles),
		cmocka_unit_test(test_pin_by_role),
		cmocka_unit_test(test_pin_under_spread),
		cmocka_unit_test(test_bad_rules),
		cmocka_unit_test(test_spread_rebalance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

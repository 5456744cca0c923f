/* test_cpulist.c - strict CPU list parsing and compact formatting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "benchtop/cpulist.h"

/* Parses s for a machine of ncpu CPUs and returns the mask formatted back,
 * so a test states the set it expects as text. */
static const char *roundtrip(const char *s, int ncpu)
{
	static char out[512];
	unsigned char *mask = calloc((size_t)ncpu, 1);
	char err[256] = "";

	assert_non_null(mask);
	if (cpulist_parse(s, mask, ncpu, err, sizeof err) != 0)
		fail_msg("\"%s\" rejected: %s", s, err);
	cpulist_format(mask, ncpu, out, sizeof out);
	free(mask);
	return out;
}

static void test_good_lists(void **state)
{
	(void)state;
	assert_string_equal(roundtrip("0", 2), "0");
	assert_string_equal(roundtrip("1", 2), "1");
	assert_string_equal(roundtrip("1-1", 2), "1");
	assert_string_equal(roundtrip("0-1", 2), "0-1");
	assert_string_equal(roundtrip("0,2-3", 8), "0,2-3");
	assert_string_equal(roundtrip("3,0,1,2", 8), "0-3");
	assert_string_equal(roundtrip("0,0", 2), "0");
	assert_string_equal(roundtrip("5-7,1", 8), "1,5-7");
	assert_string_equal(roundtrip("100", 128), "100");
	assert_string_equal(roundtrip("64-127", 128), "64-127");
	assert_string_equal(roundtrip("007", 8), "7");
}

/* Every bad form is rejected with a message that quotes the bad word. */
static void expect_bad(const char *s, int ncpu, const char *word)
{
	unsigned char mask[16];
	char err[256] = "";

	memset(mask, 0xAA, sizeof mask);
	if (cpulist_parse(s, mask, ncpu, err, sizeof err) == 0)
		fail_msg("\"%s\" was accepted", s ? s : "(null)");
	if (!strstr(err, word))
		fail_msg("message for \"%s\" does not name \"%s\": %s", s ? s : "(null)", word, err);
	if (!strstr(err, "0,2-3") && !strstr(err, "this machine has") && !strstr(err, "first"))
		fail_msg("message for \"%s\" does not say what is accepted: %s", s ? s : "(null)", err);
}

static void test_bad_lists(void **state)
{
	(void)state;
	expect_bad("", 2, "empty");
	expect_bad(NULL, 2, "empty");
	expect_bad("x", 2, "\"x\"");
	expect_bad("1-0", 2, "\"1-0\"");
	expect_bad("3,", 8, "\"3,\"");
	expect_bad(",1", 2, "\",1\"");
	expect_bad("0,,1", 2, "\"0,,1\"");
	expect_bad("0-", 2, "\"0-\"");
	expect_bad("-1", 2, "\"-1\"");
	expect_bad("1--1", 2, "\"1--1\"");
	expect_bad("0-1-1", 2, "\"0-1-1\"");
	expect_bad(" 0", 2, "\" 0\"");
	expect_bad("0 ", 2, "\"0 \"");
	expect_bad("+1", 2, "\"+1\"");
	expect_bad("0x1", 2, "\"0x1\"");
	expect_bad("1.5", 2, "\"1.5\"");
	expect_bad("0,a", 2, "\"a\"");
	expect_bad("99999999999", 2, "99999999999");
	expect_bad("0-99999999999", 2, "99999999999");
	expect_bad("2", 2, "CPU 2 ");
	expect_bad("0-5", 2, "CPU 5 ");
	expect_bad("0,9", 2, "CPU 9 ");
}

static void test_out_of_range_message(void **state)
{
	unsigned char mask[2];
	char err[256];

	(void)state;
	assert_int_equal(cpulist_parse("9", mask, 2, err, sizeof err), -1);
	assert_string_equal(err, "CPU 9 is out of range: this machine has CPUs 0-1");
	assert_int_equal(cpulist_parse("1", mask, 1, err, sizeof err), -1);
	assert_string_equal(err, "CPU 1 is out of range: this machine has CPU 0");
}

/* A failed parse must not leave a half-filled mask that a caller might use. */
static void test_failed_parse_leaves_nothing_set(void **state)
{
	unsigned char mask[4] = { 1, 1, 1, 1 };
	char err[256];

	(void)state;
	assert_int_equal(cpulist_parse("0,1,x", mask, 4, err, sizeof err), -1);
	assert_int_equal(cpulist_count(mask, 4), 0);
}

static void test_format_and_count(void **state)
{
	unsigned char *mask = calloc(128, 1);
	char buf[64];

	(void)state;
	assert_non_null(mask);
	cpulist_format(mask, 128, buf, sizeof buf);
	assert_string_equal(buf, "");
	assert_int_equal(cpulist_count(mask, 128), 0);
	mask[100] = 1;
	cpulist_format(mask, 128, buf, sizeof buf);
	assert_string_equal(buf, "100");
	assert_int_equal(cpulist_count(mask, 128), 1);
	mask[0] = mask[1] = mask[2] = mask[5] = mask[127] = 1;
	cpulist_format(mask, 128, buf, sizeof buf);
	assert_string_equal(buf, "0-2,5,100,127");
	assert_int_equal(cpulist_count(mask, 128), 6);
	free(mask);
}

/* A short buffer holds whole runs only, never a dangling "1" of "10-12". */
static void test_format_truncates_at_a_run(void **state)
{
	unsigned char mask[16] = { 0 };
	char buf[6];

	(void)state;
	mask[0] = mask[10] = mask[11] = mask[12] = 1;
	cpulist_format(mask, 16, buf, sizeof buf);
	assert_string_equal(buf, "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_lists),
		cmocka_unit_test(test_bad_lists),
		cmocka_unit_test(test_out_of_range_message),
		cmocka_unit_test(test_failed_parse_leaves_nothing_set),
		cmocka_unit_test(test_format_and_count),
		cmocka_unit_test(test_format_truncates_at_a_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

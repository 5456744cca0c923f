/* test_units.c - rates and sizes as text: the number and the label agree,
 * and the label says which base (KiB vs kB vs kbit) is meant. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "benchtop/units.h"

static void rate_is(enum units_mode m, double bps, const char *want)
{
	char buf[32];
	units_fmt_rate(m, bps, buf, sizeof buf);
	if (strcmp(buf, want) != 0)
		fail_msg("rate %.17g in %s: got \"%s\", want \"%s\"", bps, units_name(m), buf, want);
}

static void bytes_is(enum units_mode m, uint64_t b, const char *want)
{
	char buf[32];
	units_fmt_bytes(m, b, buf, sizeof buf);
	if (strcmp(buf, want) != 0)
		fail_msg("bytes %llu in %s: got \"%s\", want \"%s\"", (unsigned long long)b, units_name(m), buf, want);
}

static void test_labels(void **state)
{
	(void)state;
	assert_string_equal(units_rate_label(UNITS_IEC), "MiB/s");
	assert_string_equal(units_rate_label(UNITS_SI), "MB/s");
	assert_string_equal(units_rate_label(UNITS_BITS), "Mbit/s");
	assert_string_equal(units_name(UNITS_IEC), "iec");
	assert_string_equal(units_name(UNITS_SI), "si");
	assert_string_equal(units_name(UNITS_BITS), "bits");
}

static void test_rate_value(void **state)
{
	(void)state;
	assert_float_equal(units_rate_value(UNITS_IEC, 1048576), 1.0, 1e-12);
	assert_float_equal(units_rate_value(UNITS_SI, 1048576), 1.048576, 1e-12);
	assert_float_equal(units_rate_value(UNITS_BITS, 1000000), 8.0, 1e-12);
	assert_float_equal(units_rate_value(UNITS_IEC, 31.0 * 1048576), 31.0, 1e-12);
}

static void test_fmt_rate(void **state)
{
	(void)state;
	rate_is(UNITS_IEC, 0, "0 B/s");
	rate_is(UNITS_IEC, 512, "512 B/s");
	rate_is(UNITS_IEC, 1536, "1.50 KiB/s");
	rate_is(UNITS_IEC, 12.3 * 1048576, "12.3 MiB/s");
	rate_is(UNITS_IEC, 79 * 1048576.0, "79.0 MiB/s");
	rate_is(UNITS_IEC, 850 * 1048576.0, "850 MiB/s");
	rate_is(UNITS_IEC, 2.5 * 1073741824.0, "2.50 GiB/s");
	/* 1000 KiB/s would take four digits: the next prefix is used */
	rate_is(UNITS_IEC, 1000 * 1024.0, "0.98 MiB/s");
	rate_is(UNITS_SI, 1000000, "1.00 MB/s");
	rate_is(UNITS_SI, 1048576, "1.05 MB/s");
	rate_is(UNITS_SI, 999, "999 B/s");
	rate_is(UNITS_SI, 12345678, "12.3 MB/s");
	rate_is(UNITS_BITS, 106250, "850 kbit/s");
	rate_is(UNITS_BITS, 125000000, "1.00 Gbit/s");
	rate_is(UNITS_BITS, 1, "8 bit/s");
	rate_is(UNITS_IEC, NAN, "-");
	rate_is(UNITS_IEC, -5, "-");
	rate_is(UNITS_SI, INFINITY, "-");
}

static void test_fmt_bytes(void **state)
{
	(void)state;
	bytes_is(UNITS_IEC, 0, "0 B");
	bytes_is(UNITS_IEC, 1023, "1.00 KiB");  /* 0.999 KiB, three digits */
	bytes_is(UNITS_IEC, 999, "999 B");
	bytes_is(UNITS_IEC, 1536ull * 1048576, "1.50 GiB");
	bytes_is(UNITS_SI, 1536ull * 1048576, "1.61 GB");
	bytes_is(UNITS_BITS, 1536ull * 1048576, "1.61 GB");
	bytes_is(UNITS_IEC, 268435456, "256 MiB");
	bytes_is(UNITS_SI, 1000, "1.00 kB");
	bytes_is(UNITS_IEC, UINT64_MAX, "16.0 EiB");
}

static void test_small_buffer(void **state)
{
	char buf[5] = "xxxx";
	(void)state;
	units_fmt_rate(UNITS_IEC, 12.3 * 1048576, buf, sizeof buf);
	assert_string_equal(buf, "12.3");  /* truncated, still terminated */
	units_fmt_bytes(UNITS_IEC, 1, buf, 0);  /* no room: untouched, no crash */
	assert_string_equal(buf, "12.3");
}

static void test_parse_and_cycle(void **state)
{
	enum units_mode m = UNITS_IEC;
	(void)state;
	assert_int_equal(units_parse("si", &m), 0);
	assert_int_equal(m, UNITS_SI);
	assert_int_equal(units_parse("bits", &m), 0);
	assert_int_equal(m, UNITS_BITS);
	assert_int_equal(units_parse("iec", &m), 0);
	assert_int_equal(m, UNITS_IEC);
	assert_true(units_parse("IEC", &m) < 0);
	assert_true(units_parse("", &m) < 0);
	assert_int_equal(m, UNITS_IEC);
	assert_int_equal(units_next(UNITS_IEC), UNITS_SI);
	assert_int_equal(units_next(UNITS_SI), UNITS_BITS);
	assert_int_equal(units_next(UNITS_BITS), UNITS_IEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_rate_value),
		cmocka_unit_test(test_fmt_rate),
		cmocka_unit_test(test_fmt_bytes),
		cmocka_unit_test(test_small_buffer),
		cmocka_unit_test(test_parse_and_cycle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_summary.c - the tables at a run's end come from its end record
 * (summary_tables), the live run's and a recording's alike: rows,
 * what a command was measured by, failed workloads, phases too short for
 * a rate, policies or why there are none, the preparation; one printer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "benchtop/json.h"
#include "benchtop/record.h"
#include "benchtop/tables.h"

static const char END[] =
	"{\"type\":\"end\",\"t\":3,\"summary\":["
	"{\"test\":\"cmd dd\",\"workload\":1,\"user\":0.5,\"sys\":0.25,\"elapsed\":3,\"bytes\":3145728,"
	"\"bps\":1048576,\"paused\":0,\"counted\":\"written\",\"read_bytes\":0,\"write_bytes\":3145728},"
	"{\"test\":\"copy\",\"workload\":2,\"user\":0,\"sys\":0,\"elapsed\":1,\"bps\":0,\"paused\":0.5,"
	"\"read_bytes\":null,\"write_bytes\":null}],"
	"\"workloads\":[{\"id\":1,\"state\":\"done\"},{\"id\":2,\"state\":\"failed\"}],"
	"\"policies\":[{\"policy\":0,\"cpus\":\"0\",\"driver\":\"acpi-cpufreq\",\"governor\":\"ondemand\","
	"\"min\":800000,\"max\":2600000}],"
	"\"phases\":[{\"from\":0,\"to\":2,\"label\":\"start\",\"bps\":1048576,\"hog\":0.25,\"migrations\":1,"
	"\"mean_khz\":1600000},{\"from\":2,\"to\":2.2,\"label\":\"hi\",\"bps\":null,\"hog\":null,"
	"\"migrations\":0,\"mean_khz\":null}]}";

static struct json *parse(const char *s)
{
	struct json_error e;
	struct json *j = json_parse(s, strlen(s), &e);
	assert_non_null(j);
	return j;
}

static void test_rows_from_the_end_record(void **state)
{
	(void)state;
	struct json *end = parse(END);
	struct json *start = parse("{\"type\":\"start\",\"preparation\":{\"sync_s\":0.5,\"drop_caches_s\":0.25}}");
	struct run_tables t;
	summary_tables(start, end, &t);
	assert_int_equal(t.nsum, 2);
	assert_string_equal(t.sum[0].test, "cmd dd");
	assert_string_equal(t.sum[0].counted, "written");
	assert_true(t.sum[0].rw_known);
	assert_false(t.sum[0].failed);
	assert_true(t.sum[1].failed);   /* workload 2 failed */
	assert_false(t.sum[1].rw_known);
	assert_int_equal(t.nphase, 2);
	assert_false(t.phase[0].too_short);
	assert_true(t.phase[1].too_short);  /* null rate and hog */
	assert_true(t.phase[0].mhz > 1599 && t.phase[0].mhz < 1601);
	assert_true(t.phase[1].mhz < 0);
	assert_int_equal(t.npol, 1);
	assert_string_equal(t.pol[0].governor, "ondemand");
	assert_true(t.prep_sync > 0.49 && t.prep_sync < 0.51);
	char name[256];
	tables_test_name(&t.sum[0], UNITS_IEC, name, sizeof name);
	assert_string_equal(name, "cmd dd (written: read 0 B, written 3.00 MiB)");
	tables_test_name(&t.sum[1], UNITS_IEC, name, sizeof name);
	assert_string_equal(name, "copy (failed)");

	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	tables_print(&t, UNITS_IEC, m);
	fclose(m);
	assert_non_null(strstr(buf, "paused"));          /* a workload was paused */
	assert_non_null(strstr(buf, "(written: read 0 B, written 3.00 MiB)\n"));
	assert_non_null(strstr(buf, "      -     -      0       -  hi\n"));
	assert_non_null(strstr(buf, "preparation before the run"));
	assert_non_null(strstr(buf, "limits MHz (at the end of the run)"));
	free(buf);
	tables_free(&t);
	json_free(start);
	json_free(end);
}

static void test_no_policies_recorded(void **state)
{
	(void)state;
	struct json *end = parse("{\"type\":\"end\",\"summary\":[],\"phases\":[]}");
	struct run_tables t;
	summary_tables(NULL, end, &t);
	assert_int_equal(t.nsum, 0);
	assert_int_equal(t.npol, 0);
	assert_string_equal(t.no_policies, "no cpufreq policies recorded");
	assert_true(t.prep_sync < 0);
	tables_free(&t);
	json_free(end);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_from_the_end_record),
		cmocka_unit_test(test_no_policies_recorded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

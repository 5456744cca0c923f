/* test_metrics.c - the exposition writer (text format 0.0.4 and
 * OpenMetrics 1.0), label escaping, absent frequency families, content
 * negotiation, the residency accumulator for recordings, the metrics file
 * (atomic, refused where it cannot be written, removed at close) and the
 * --metrics-listen parser. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "benchtop/cli.h"
#include "benchtop/metrics.h"

static const long rows_khz[] = { 800000, 2400000 };
static const double rows_secs[] = { 1.5, 0.25 };

static size_t fake_residency(void *ctx, int cpu, const long **khz, const double **secs)
{
	(void)ctx, (void)cpu;
	*khz = rows_khz;
	*secs = rows_secs;
	return 2;
}

struct fixture {
	struct snapshot *s;
	struct history *h;
	struct metrics_wl wl[1];
	struct metrics_view v;
};

static void fixture_init(struct fixture *f, bool freq)
{
	memset(f, 0, sizeof *f);
	f->s = snapshot_new(2, 1, 1);
	f->s->t = 3;
	f->s->dt = 0.5;
	for (int c = 0; c < 2; c++) {
		f->s->cpus[c].id = c;
		f->s->cpus[c].khz = freq ? 2400000 : -1;
		snprintf(f->s->cpus[c].governor, MODEL_GOV_LEN, "%s", freq ? "ondemand" : "");
	}
	f->s->nproc = 1;
	f->s->procs[0] = (struct proc_sample){ .pid = 4242, .workload = 1, .cpu = 1, .utime = 1.5,
	                                       .stime = 0.5, .migrations = 7, .alive = true };
	snprintf(f->s->procs[0].role, MODEL_ROLE_LEN, "writer");
	f->s->wls[0] = (struct wl_sample){ .id = 1, .write_bps = 1048576, .bytes = 123456789,
	                                   .utime = 2, .stime = 1 };
	snprintf(f->s->disk.device, sizeof f->s->disk.device, "vda");
	f->h = history_new(8);
	struct event e;
	event_init(&e, EV_PIN, 1, "");
	history_add_event(f->h, &e);
	history_add_event(f->h, &e);
	f->wl[0] = (struct metrics_wl){ "copy", "pipe", "copy \"a\\b\"\nnext" };
	f->v = (struct metrics_view){ .snap = f->s, .wl = f->wl, .nwl = 1, .have_freq = freq,
	                              .residency = freq ? fake_residency : NULL, .hist = f->h,
	                              .self_cpu_s = 0.25, .disk_read_bytes = 4096,
	                              .disk_written_bytes = 8192, .version = "9.9" };
}

static void fixture_free(struct fixture *f)
{
	snapshot_free(f->s);
	history_free(f->h);
}

static char *render(const struct metrics_view *v, enum metrics_format fmt)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	assert_non_null(fp);
	assert_int_equal(metrics_render(fp, v, fmt), 0);
	fclose(fp);
	return buf;
}

static void test_text_format(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, true);
	char *t = render(&f.v, METRICS_TEXT);
	assert_non_null(strstr(t, "# TYPE benchtop_workload_bytes_total counter\n"
	                          "benchtop_workload_bytes_total{workload=\"1\"} 123456789\n"));
	assert_non_null(strstr(t, "# HELP benchtop_workload_bytes_total "));
	assert_non_null(strstr(t, "benchtop_workload_throughput_bytes_per_second{workload=\"1\"} 1048576\n"));
	assert_non_null(strstr(t, "benchtop_workload_cpu_seconds_total{workload=\"1\",mode=\"user\"} 2\n"));
	assert_non_null(strstr(t, "benchtop_workload_cpu_seconds_total{workload=\"1\",mode=\"system\"} 1\n"));
	assert_non_null(strstr(t, "# TYPE benchtop_workload_info gauge\n"));
	assert_non_null(strstr(t, "benchtop_process_cpu_seconds_total{workload=\"1\",role=\"writer\",pid=\"4242\"} 2\n"));
	assert_non_null(strstr(t, "benchtop_process_cpu{workload=\"1\",role=\"writer\",pid=\"4242\"} 1\n"));
	assert_non_null(strstr(t, "benchtop_process_migrations_total{workload=\"1\",role=\"writer\",pid=\"4242\"} 7\n"));
	assert_non_null(strstr(t, "benchtop_cpu_frequency_hertz{cpu=\"1\"} 2400000000\n"));
	assert_non_null(strstr(t, "benchtop_cpu_residency_seconds_total{cpu=\"0\",frequency_hertz=\"800000000\"} 1.5\n"));
	assert_non_null(strstr(t, "benchtop_cpu_governor_info{cpu=\"0\",governor=\"ondemand\"} 1\n"));
	assert_non_null(strstr(t, "benchtop_disk_written_bytes_total{device=\"vda\"} 8192\n"));
	assert_non_null(strstr(t, "benchtop_disk_read_bytes_total{device=\"vda\"} 4096\n"));
	assert_non_null(strstr(t, "benchtop_events_total{type=\"pin\"} 2\n"));
	assert_non_null(strstr(t, "benchtop_events_total{type=\"marker\"} 0\n"));
	assert_non_null(strstr(t, "benchtop_self_cpu_seconds_total 0.25\n"));
	assert_non_null(strstr(t, "benchtop_cpu_residency_seconds_total{cpu=\"1\",frequency_hertz=\"2400000000\"} 0.25\n"));
	assert_non_null(strstr(t, "benchtop_build_info{version=\"9.9\"} 1\n"));
	/* the text format has neither UNIT lines nor an EOF marker */
	assert_null(strstr(t, "# UNIT"));
	assert_null(strstr(t, "# EOF"));
	/* each family's head once, before its samples */
	const char *head = strstr(t, "\n# TYPE benchtop_events_total counter\n");
	assert_non_null(head);
	assert_null(strstr(head + 2, "# TYPE benchtop_events_total"));
	assert_true(head < strstr(t, "\nbenchtop_events_total{"));
	free(t);
	fixture_free(&f);
}

static void test_openmetrics_format(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, true);
	char *t = render(&f.v, METRICS_OPENMETRICS);
	/* counters: the family without _total, samples with it */
	assert_non_null(strstr(t, "# HELP benchtop_workload_bytes Bytes"));
	assert_non_null(strstr(t, "# TYPE benchtop_workload_bytes counter\n# UNIT benchtop_workload_bytes bytes\n"
	                          "benchtop_workload_bytes_total{workload=\"1\"} 123456789\n"));
	assert_null(strstr(t, "# TYPE benchtop_workload_bytes_total"));
	assert_non_null(strstr(t, "# UNIT benchtop_workload_throughput_bytes_per_second bytes_per_second\n"));
	assert_non_null(strstr(t, "# UNIT benchtop_cpu_frequency_hertz hertz\n"));
	assert_non_null(strstr(t, "# UNIT benchtop_cpu_residency_seconds seconds\n"));
	assert_non_null(strstr(t, "# TYPE benchtop_events counter\n"));
	assert_null(strstr(t, "# UNIT benchtop_events "));
	/* info families */
	assert_non_null(strstr(t, "# TYPE benchtop_workload info\n"));
	assert_non_null(strstr(t, "# TYPE benchtop_build info\nbenchtop_build_info{version=\"9.9\"} 1\n"));
	assert_non_null(strstr(t, "# TYPE benchtop_cpu_governor info\n"));
	/* ends with # EOF and nothing after it */
	size_t n = strlen(t);
	assert_true(n > 6);
	assert_string_equal(t + n - 6, "# EOF\n");
	free(t);
	fixture_free(&f);
}

static void test_label_escaping(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, false);
	for (int fmt = 0; fmt < 2; fmt++) {
		char *t = render(&f.v, (enum metrics_format)fmt);
		/* backslash, double quote and newline escaped in label values */
		assert_non_null(strstr(t, "test=\"copy \\\"a\\\\b\\\"\\nnext\"}"));
		free(t);
	}
	/* bytes that are not UTF-8 would make a scraper refuse everything */
	f.wl[0].test = "bad \xff\xfe and \xc3\xa9 ok, overlong \xc0\xaf";
	char *t = render(&f.v, METRICS_TEXT);
	assert_non_null(strstr(t, "test=\"bad \xef\xbf\xbd\xef\xbf\xbd and \xc3\xa9 ok, overlong \xef\xbf\xbd\xef\xbf\xbd\"}"));
	free(t);
	fixture_free(&f);
}

static void test_no_frequency_source(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, false);
	for (int fmt = 0; fmt < 2; fmt++) {
		char *t = render(&f.v, (enum metrics_format)fmt);
		/* absent, not zero: no family head and no sample */
		assert_null(strstr(t, "benchtop_cpu_frequency_hertz"));
		assert_null(strstr(t, "benchtop_cpu_residency_seconds"));
		assert_null(strstr(t, "benchtop_cpu_governor"));
		assert_non_null(strstr(t, "benchtop_workload_bytes_total"));
		free(t);
	}
	/* a frequency source without residency: the gauge, not the counter */
	f.v.have_freq = true;
	f.s->cpus[0].khz = 1000000;
	char *t = render(&f.v, METRICS_TEXT);
	assert_non_null(strstr(t, "benchtop_cpu_frequency_hertz{cpu=\"0\"} 1000000000\n"));
	assert_null(strstr(t, "cpu=\"1\"} "));  /* CPU 1's frequency is unknown */
	assert_null(strstr(t, "benchtop_cpu_residency_seconds"));
	free(t);
	fixture_free(&f);
}

static void test_numbers(void **state)
{
	(void)state;
	static const struct { double v; const char *text; } cases[] = {
		{ 0, "0" }, { 123456789012345, "123456789012345" }, { 0.5, "0.5" },
		{ 1190380.44620574, "1190380.446206" }, { 0.000001, "0.000001" }, { 0.0000004, "0" },
		{ 12.1000004, "12.1" }, { 1e20, "1e+20" }, { 2.5e9, "2500000000" },
		{ 3.5e9, "3500000000" }, { 3.25e9 + 0.5, "3250000000.5" },
	};
	struct fixture f;
	fixture_init(&f, false);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char want[96];
		f.v.self_cpu_s = cases[i].v;
		char *t = render(&f.v, METRICS_TEXT);
		snprintf(want, sizeof want, "\nbenchtop_self_cpu_seconds_total %s\n", cases[i].text);
		if (!strstr(t, want))
			fail_msg("%.17g: want \"%s\" in\n%s", cases[i].v, cases[i].text, strstr(t, "benchtop_self"));
		free(t);
	}
	fixture_free(&f);
}

static void test_before_first_tick(void **state)
{
	(void)state;
	struct metrics_view v = { .self_cpu_s = -1, .version = "1" };
	char *t = render(&v, METRICS_OPENMETRICS);
	assert_null(strstr(t, "benchtop_workload"));
	assert_null(strstr(t, "benchtop_self_cpu"));
	assert_non_null(strstr(t, "benchtop_build_info{version=\"1\"} 1\n# EOF\n"));
	free(t);
}

static void test_negotiate(void **state)
{
	(void)state;
	assert_int_equal(metrics_negotiate(NULL), METRICS_TEXT);
	assert_int_equal(metrics_negotiate(""), METRICS_TEXT);
	assert_int_equal(metrics_negotiate("*/*"), METRICS_TEXT);
	assert_int_equal(metrics_negotiate("text/plain;version=0.0.4"), METRICS_TEXT);
	/* what Prometheus 2.x sends */
	assert_int_equal(metrics_negotiate("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
	                                   "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
	                 METRICS_OPENMETRICS);
	assert_int_equal(metrics_negotiate("application/openmetrics-text"), METRICS_OPENMETRICS);
	assert_int_equal(metrics_negotiate("text/plain, application/openmetrics-text; q=0.5"), METRICS_TEXT);
	assert_int_equal(metrics_negotiate("application/openmetrics-text;q=0, */*"), METRICS_TEXT);
}

static void test_sampled_residency(void **state)
{
	(void)state;
	struct metrics_acc *acc = metrics_acc_new();
	struct snapshot *s = snapshot_new(2, 0, 0);
	s->cpus[0].id = 0;
	s->cpus[1].id = 1;
	s->cpus[1].khz = -1;
	long seq[] = { 2000000, 800000, 2000000 };
	for (int i = 0; i < 3; i++) {
		s->dt = 0.5;
		s->cpus[0].khz = seq[i];
		s->disk.write_bps = 1000;
		s->self_cpu_pct = 10;
		metrics_acc_add(acc, s);
	}
	const long *khz;
	const double *secs;
	assert_int_equal(metrics_sampled_residency(acc, 0, &khz, &secs), 2);
	assert_int_equal(khz[0], 800000);      /* sorted by frequency */
	assert_true(secs[0] == 0.5);
	assert_int_equal(khz[1], 2000000);
	assert_true(secs[1] == 1.0);
	assert_int_equal(metrics_sampled_residency(acc, 1, &khz, &secs), 0);
	assert_true(metrics_acc_disk_written(acc) == 1500);
	assert_true(metrics_acc_self_cpu(acc) > 0.149 && metrics_acc_self_cpu(acc) < 0.151);
	snapshot_free(s);
	metrics_acc_free(acc);
}

static void test_file_atomic_and_removed(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_metrics.XXXXXX", path[256], msg[512];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/bt.prom", dir);
	struct metrics *m;
	assert_int_equal(metrics_open(&m, path, NULL, false, msg, sizeof msg), 0);
	assert_int_equal(access(path, F_OK), -1);   /* nothing before the first tick */
	struct fixture f;
	fixture_init(&f, false);
	assert_int_equal(metrics_update(m, &f.v), 0);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	char line[256];
	assert_non_null(fgets(line, sizeof line, fp));
	assert_non_null(strstr(line, "# HELP benchtop_workload_bytes_total"));
	fclose(fp);
	assert_int_equal(metrics_update(m, &f.v), 0);
	metrics_close(m, false);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(rmdir(dir), 0);            /* no temporary file left either */
	fixture_free(&f);
}

static void test_file_refused(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_metrics.XXXXXX", path[256], msg[512];
	struct metrics *m = (struct metrics *)1;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/missing/bt.prom", dir);
	assert_true(metrics_open(&m, path, NULL, false, msg, sizeof msg) < 0);
	assert_null(m);
	assert_non_null(strstr(msg, "missing"));
	/* an existing file is not benchtop's: refused without --force */
	snprintf(path, sizeof path, "%s/bt.prom", dir);
	FILE *fp = fopen(path, "w");
	fputs("mine\n", fp);
	fclose(fp);
	assert_int_equal(metrics_open(&m, path, NULL, false, msg, sizeof msg), -EEXIST);
	assert_non_null(strstr(msg, "--force"));
	assert_int_equal(metrics_open(&m, path, NULL, true, msg, sizeof msg), 0);
	metrics_close(m, false);
	assert_int_equal(access(path, F_OK), 0);    /* never written: not ours, stays */
	unlink(path);
	if (geteuid() != 0) {
		chmod(dir, 0555);
		assert_int_equal(metrics_open(&m, path, NULL, false, msg, sizeof msg), -EACCES);
		chmod(dir, 0755);
	}
	assert_int_equal(rmdir(dir), 0);
}

static void test_listen_parser(void **state)
{
	(void)state;
	char addr[64], err[CLI_ERR_MAX];
	unsigned port = 0;
	assert_int_equal(cli_parse_listen("9101", addr, sizeof addr, &port, err, sizeof err), 0);
	assert_string_equal(addr, "127.0.0.1");
	assert_int_equal(port, 9101);
	assert_int_equal(cli_parse_listen("0.0.0.0:80", addr, sizeof addr, &port, err, sizeof err), 0);
	assert_string_equal(addr, "0.0.0.0");
	assert_int_equal(cli_parse_listen("localhost:65535", addr, sizeof addr, &port, err, sizeof err), 0);
	assert_string_equal(addr, "127.0.0.1");
	assert_int_equal(cli_parse_listen("[::1]:9101", addr, sizeof addr, &port, err, sizeof err), 0);
	assert_string_equal(addr, "::1");
	static const char *const bad[] = { "", "0", "65536", "x", "9101x", ":9101", "1.2.3:9101",
	                                   "300.1.1.1:1", "host.example:9101", "[::1", "[:::]:1", "-1" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = 0;
		assert_int_equal(cli_parse_listen(bad[i], addr, sizeof addr, &port, err, sizeof err), -1);
		assert_non_null(strstr(err, "--metrics-listen"));
		/* the whole word is named, not a piece of it */
		char quoted[80];
		snprintf(quoted, sizeof quoted, "\"%s\"", bad[i]);
		if (bad[i][0])
			assert_non_null(strstr(err, quoted));
	}
}

/* argv from words separated by '|'; returns cli_parse's result. */
static int parse(const char *line, struct run *r, char *err, size_t len)
{
	char buf[512], *argv[32], *save = NULL;
	int argc = 0;
	snprintf(buf, sizeof buf, "benchtop|%s", line);
	for (char *w = strtok_r(buf, "|", &save); w && argc < 31; w = strtok_r(NULL, "|", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	return cli_parse(argc, argv, r, err, len);
}

static void test_options(void **state)
{
	(void)state;
	struct run r;
	char err[CLI_ERR_MAX];
	assert_int_equal(parse("-b|--metrics|/tmp/x.prom|--metrics-listen|0.0.0.0:9101", &r, err, sizeof err), 0);
	assert_string_equal(r.metrics, "/tmp/x.prom");
	assert_string_equal(r.metrics_listen, "0.0.0.0:9101");
	cli_free(&r);
	assert_int_equal(parse("--replay|rec.jsonl|--metrics-listen|9101", &r, err, sizeof err), 0);
	cli_free(&r);
	assert_int_equal(parse("--metrics-listen|300.1.1.1:9101", &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "300.1.1.1"));
	assert_int_equal(parse("--report|rec.jsonl|-o|out.svg|--metrics|x.prom", &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "--report"));
	assert_int_equal(parse("--sweep|bs=4k:8k|--metrics-listen|9101", &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "--sweep"));
	assert_int_equal(parse("-o|same.prom|--metrics|same.prom", &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "same.prom"));
	assert_int_equal(parse("--metrics-listen|9101|--metrics-listen|9102", &r, err, sizeof err), -1);
}

static void test_listener_refusals(void **state)
{
	(void)state;
	char msg[512];
	struct metrics *m, *m2;
	assert_int_equal(metrics_open(&m, NULL, "nonsense", false, msg, sizeof msg), -EINVAL);
	/* an address that is not this machine's */
	assert_int_equal(metrics_open(&m, NULL, "192.0.2.1:9", false, msg, sizeof msg), -EADDRNOTAVAIL);
	assert_non_null(strstr(msg, "192.0.2.1:9"));
	/* a port in use: take one, then ask for it again */
	int rc = -1;
	unsigned port;
	for (port = 20000 + (unsigned)(getpid() % 20000); rc && port < 65000; port += 7) {
		char spec[32];
		snprintf(spec, sizeof spec, "%u", port);
		rc = metrics_open(&m, NULL, spec, false, msg, sizeof msg);
	}
	assert_int_equal(rc, 0);
	assert_true(metrics_fd(m) >= 0);
	char spec[32];
	snprintf(spec, sizeof spec, "127.0.0.1:%u", port - 7);
	assert_string_equal(metrics_address(m), spec);
	assert_int_equal(metrics_open(&m2, NULL, spec, false, msg, sizeof msg), -EADDRINUSE);
	assert_non_null(strstr(msg, spec));
	metrics_close(m, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_format),
		cmocka_unit_test(test_openmetrics_format),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_no_frequency_source),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_before_first_tick),
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_sampled_residency),
		cmocka_unit_test(test_file_atomic_and_removed),
		cmocka_unit_test(test_file_refused),
		cmocka_unit_test(test_listen_parser),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_listener_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_cli.c - the command line parser: good forms land in struct run with
 * the right values, bad forms fail with a message naming the bad word, and
 * the man page documents every option of the table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "benchtop/cli.h"

static const char *argv0_path;

/* Splits a command line on '|' (so words may hold spaces) and parses it. */
static int parse(const char *line, struct run *r, char *err)
{
	char *copy = strdup(line), *rest = copy, *argv[32];
	int argc = 0, rc;
	argv[argc++] = "benchtop";
	while (*line && rest && argc < 31)
		argv[argc++] = strsep(&rest, "|");
	argv[argc] = NULL;
	rc = cli_parse(argc, argv, r, err, CLI_ERR_MAX);
	free(copy);
	return rc;
}

static void parse_ok(const char *line, struct run *r)
{
	char err[CLI_ERR_MAX] = "";
	int rc = parse(line, r, err);
	if (rc != 0)
		fail_msg("\"%s\" failed: %s", line, err);
}

/* ---- bad inputs ---------------------------------------------------------- */

struct bad { const char *line; const char *word; };

static const struct bad bad_lines[] = {
	/* sizes */
	{ "-w|copy:src=a,bs=12x", "12x" },
	{ "-w|copy:src=a,bs=0", "0" },
	{ "-w|copy:src=a,bs=-4k", "-4k" },
	{ "-w|copy:src=a,bs=99999999999999999999", "99999999999999999999" },
	{ "-w|copy:src=a,bs=20000000T", "20000000T" },
	{ "-w|copy:src=a,bs=4kk", "4kk" },
	{ "-w|copy:src=a,bs=4 k", "4 k" },
	{ "-w|copy:src=a,bs=1.5", "1.5" },
	{ "-w|copy:src=a,bs=4KB", "4KB" },
	{ "-w|copy:src=a,bs=2G", "2G" },
	{ "-w|copy:src=a,bs=", "bs" },
	{ "-w|copy:src=a,bs", "bs" },
	{ "-w|write:size=0", "0" },
	{ "-w|copy:src=a,bs=0x10", "0x10" },
	{ "-w|copy:src=a,bs=1e3", "1e3" },
	/* integers */
	{ "-w|copy:src=a,jobs=0", "0" },
	{ "-w|copy:src=a,jobs=-1", "-1" },
	{ "-w|copy:src=a,jobs=2x", "2x" },
	{ "-w|copy:src=a,jobs=4294967297", "4294967297" },
	{ "-w|copy:src=a,engine=pipe,procs=4", "4" },
	{ "-w|copy:src=a,procs=2", "procs" },
	{ "-w|seek:path=f,seekers=0", "0" },
	{ "-w|seek:path=f,count=1.5", "1.5" },
	/* specs */
	{ "-w|frob:src=a", "frob" },
	{ "-w|copy:src=a,bogus=1", "bogus" },
	{ "-w|copy:src=a,path=b", "path" },
	{ "-w|seek:path=a,size=1M", "size" },
	{ "-w|net:mss=10", "mss" },
	{ "-w|net:align=sideways", "sideways" },
	{ "-w|net:bs=4k", "bs" },
	{ "-b|--format|bonnie", "bonnie" },
	{ "-w|copy:src=a,src=b", "src" },
	{ "-w|copy:dst=b", "src" },
	{ "-w|copy", "src" },
	{ "-w|read", "path" },
	{ "-w|seek:count=3", "path" },
	{ "-w|cmd", "run" },
	{ "-w|cmd:run=", "run" },
	{ "-w|copy:src=a,engine=dd", "dd" },
	{ "-w|copy:src=a,sync=often", "often" },
	{ "-w|copy:src=a,direct=maybe", "maybe" },
	{ "-w|write:pattern=random", "random" },
	{ "-w|read:path=a,unit=word", "word" },
	{ "-w|copy:", "copy:" },
	{ "-w|copy:src=a,,bs=1k", "copy:src=a,,bs=1k" },
	{ "-w|copy:src=a,", "copy:src=a," },
	{ "-w|copy:src=a,dst=a", "a" },
	{ "-w|", "workload" },
	{ "-w", "-w" },
	/* times and intervals */
	{ "-i|0", "0" },
	{ "-i|0.01", "0.01" },
	{ "-i|11", "11" },
	{ "-i|-1", "-1" },
	{ "-i|1x", "1x" },
	{ "-i|1h", "1h" },
	{ "-i|nan", "nan" },
	{ "-i|inf", "inf" },
	{ "--interval=", "--interval" },
	{ "-t|0", "0" },
	{ "-t|5days", "5days" },
	{ "-t|99999999999999999999", "99999999999999999999" },
	{ "-t|1.", "1." },
	/* --at */
	{ "--at|10", "10" },
	{ "--at|x:spread", "x" },
	{ "--at|10:jump", "jump" },
	{ "--at|10:pin", "pin" },
	{ "--at|10:pin=", "pin" },
	{ "--at|10:pin=0-", "0-" },
	{ "--at|10:pack=1", "pack" },
	{ "--at|10:maxfreq=fast", "fast" },
	{ "--at|10:maxfreq=0", "0" },
	{ "--at|10:governor=a/b", "a/b" },
	{ "--at|-5:spread", "-5" },
	{ "--at|10:marker=", "marker" },
	/* options */
	{ "--frobnicate", "--frobnicate" },
	{ "--intervall|1", "--intervall" },
	{ "-z", "-z" },
	{ "-bz", "-z" },
	{ "--loop=yes", "--loop" },
	{ "--format|xml", "xml" },
	{ "--format", "--format" },
	{ "--units|kib", "kib" },
	{ "--placement|scatter", "scatter" },
	{ "--cpus|0,,1", "0,,1" },
	{ "--cpus|a", "a" },
	{ "--cpus|3-1", "3-1" },
	{ "--governor|on demand", "on demand" },
	{ "--attach|0", "0" },
	{ "--attach|12,x", "x" },
	{ "--attach|12,", "12," },
	{ "--attach|99999999", "99999999" },
	{ "--sweep|4k:1M", "4k:1M" },
	{ "--sweep|bs=1M:4k", "bs=1M:4k" },
	{ "--sweep|bs=4k", "bs=4k" },
	{ "--sweep|bs=4x:1M", "4x" },
	{ "--matrix|governor=ondemand|--matrix|governor=performance", "governor" },
	{ "--matrix=placement=pack,diagonal", "diagonal" },
	{ "--matrix=speed=1", "speed=1" },
	{ "--matrix=", "--matrix" },
	{ "--matrix=placement=", "placement=" },
	{ "--cell|5x|--sweep|bs=4k:8k", "5x" },
	{ "--cell|0|--matrix", "0" },
	{ "--cell|30s", "--cell" },
	{ "--preset|x y", "x y" },
	{ "-w|copy:src=a,bs=17179869184G", "17179869184G" },
	{ "-o|-b", "-b" },
	{ "--format|csv|--format|json", "--format" },
	{ "stray", "stray" },
	{ "--", "--" },
	/* modes */
	{ "--replay|rec.jsonl|-w|write", "--replay" },
	{ "--replay|rec.jsonl|--|ls", "--replay" },
	{ "--replay|a|--report|b|-o|c.svg", "--replay" },
	{ "--report|rec.jsonl", "--report" },
	{ "--report|rec.jsonl|-o|out.png", "out.png" },
	{ "--attach|12|-w|write", "--attach" },
	{ "--restore|--attach|1", "--restore" },
	{ "--restore|--sweep|bs=1k:2k", "--sweep" },
	{ "--sweep|bs=1k:2k|--matrix", "--matrix" },
	{ "--sweep|bs=1k:2k|-w|seek:path=f", "seek:path=f" },
	{ "--sweep|bs=1k:2k|-w|write|-w|write", "2" },
};

static void test_bad_inputs(void **state)
{
	(void)state;
	size_t n = sizeof bad_lines / sizeof bad_lines[0];
	assert_true(n >= 40);
	for (size_t i = 0; i < n; i++) {
		struct run r;
		char err[CLI_ERR_MAX] = "";
		int rc = parse(bad_lines[i].line, &r, err);
		if (rc != -1)
			fail_msg("\"%s\" was accepted", bad_lines[i].line);
		if (!strstr(err, bad_lines[i].word))
			fail_msg("\"%s\": message \"%s\" does not name \"%s\"", bad_lines[i].line, err,
			         bad_lines[i].word);
		/* a failed parse leaves nothing to free */
		assert_null(r.wl);
		assert_null(r.sysfs);
		cli_free(&r);
	}
}

/* Messages say what would be accepted, not only what was wrong. */
static void test_messages_list_choices(void **state)
{
	struct run r;
	char err[CLI_ERR_MAX];
	(void)state;
	assert_int_equal(parse("-w|copy:src=a,bogus=1", &r, err), -1);
	assert_non_null(strstr(err, "src, dst, bs, engine, procs, sync, direct, jobs"));
	assert_int_equal(parse("-w|seek:path=a,unit=char", &r, err), -1);
	assert_non_null(strstr(err, "path, bs, seekers, count, update"));
	assert_int_equal(parse("--format|xml", &r, err), -1);
	assert_non_null(strstr(err, "text, csv, json or bonnie"));
	assert_int_equal(parse("-w|net:bogus=1", &r, err), -1);
	assert_non_null(strstr(err, "path, size, sync, jobs, pattern, mss, align"));
	assert_int_equal(parse("-w|copy:src=a,bs=12x", &r, err), -1);
	assert_non_null(strstr(err, "KiB"));
	assert_int_equal(parse("--intervall|1", &r, err), -1);
	assert_non_null(strstr(err, "did you mean --interval"));
	assert_int_equal(parse("-w|copy:src=a,engine=dd", &r, err), -1);
	assert_non_null(strstr(err, "rw, cfr, sendfile, splice, mmap or pipe"));
}

/* ---- scalars --------------------------------------------------------------- */

static uint64_t size_of(const char *s)
{
	uint64_t v = 12345;
	char err[CLI_ERR_MAX];
	if (cli_parse_size(s, &v, "test", err, sizeof err))
		fail_msg("size \"%s\": %s", s, err);
	return v;
}

static double time_of(const char *s)
{
	double v = -1;
	char err[CLI_ERR_MAX];
	if (cli_parse_time(s, &v, "test", err, sizeof err))
		fail_msg("time \"%s\": %s", s, err);
	return v;
}

static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(size_of("4k"), 4096);
	assert_int_equal(size_of("4K"), 4096);
	assert_int_equal(size_of("1MiB"), 1048576);
	assert_int_equal(size_of("1MB"), 1000000);
	assert_int_equal(size_of("1m"), 1048576);
	assert_int_equal(size_of("2G"), 2147483648ull);
	assert_int_equal(size_of("1g"), 1073741824ull);
	assert_int_equal(size_of("1GB"), 1000000000ull);
	assert_int_equal(size_of("1TiB"), 1099511627776ull);
	assert_int_equal(size_of("1TB"), 1000000000000ull);
	assert_int_equal(size_of("3kB"), 3000);
	assert_int_equal(size_of("5000"), 5000);
	assert_int_equal(size_of("512B"), 512);
	assert_int_equal(size_of("1.5G"), 1610612736ull);
	assert_int_equal(size_of("0.5k"), 512);
	assert_int_equal(size_of("0"), 0);
	assert_int_equal(size_of("8388608TiB"), 9223372036854775808ull);
}

static void test_size_errors(void **state)
{
	static const char *bad[] = { "", "k", "-1", "1.", ".", "1..2", "1 k", "4kB ", "1kib",
	                             "16777216TiB", "99999999999999999999", "0.3", "+4k", "1e6" };
	uint64_t v;
	char err[CLI_ERR_MAX];
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (cli_parse_size(bad[i], &v, "bs", err, sizeof err) != -1)
			fail_msg("size \"%s\" accepted", bad[i]);
		assert_non_null(strstr(err, "bs"));
		if (*bad[i])
			assert_non_null(strstr(err, bad[i]));
	}
}

/* Limits say what is allowed: the offending word and "at most" the real
 * maximum of each parser, which itself is accepted. */
static void test_limit_messages(void **state)
{
	static const struct { const char *word, *max; } sizes[] = {
		{ "18446744073709551616", "18446744073709551615 bytes" },
		{ "99999999999999999999", "18446744073709551615 bytes" },
		{ "16777216TiB", "18446744073709551615 bytes" },
		{ "17179869184G", "18446744073709551615 bytes" },
		{ "1.00000000000000000000", "18 digits after the point" },
	};
	static const struct { const char *word, *max; } times[] = {
		{ "99999999999999999999", "1000000000s" },
		{ "1000000001", "1000000000s" },
		{ "16666667min", "1000000000s" },
		{ "0.0000000000000000001", "18 digits after the point" },
	};
	char err[CLI_ERR_MAX];
	uint64_t v;
	double t;
	struct run r;
	(void)state;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		assert_int_equal(cli_parse_size(sizes[i].word, &v, "size", err, sizeof err), -1);
		if (!strstr(err, sizes[i].word) || !strstr(err, "at most") || !strstr(err, sizes[i].max))
			fail_msg("size \"%s\": \"%s\"", sizes[i].word, err);
	}
	for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
		assert_int_equal(cli_parse_time(times[i].word, &t, "--duration", err, sizeof err), -1);
		if (!strstr(err, times[i].word) || !strstr(err, "at most") || !strstr(err, times[i].max))
			fail_msg("time \"%s\": \"%s\"", times[i].word, err);
	}
	/* the maxima named are accepted */
	assert_true(size_of("18446744073709551615") == UINT64_MAX);
	assert_true(size_of("16777215TiB") == 16777215ull << 40);
	assert_float_equal(time_of("1000000000"), 1e9, 1e-3);
	assert_float_equal(time_of("0.000000000000000001"), 1e-18, 1e-30);
	/* and through the command line */
	assert_int_equal(parse("-b|-t|99999999999999999999|--|true", &r, err), -1);
	assert_non_null(strstr(err, "99999999999999999999"));
	assert_non_null(strstr(err, "at most"));
	cli_free(&r);
	assert_int_equal(parse("-b|-w|write:size=18446744073709551616", &r, err), -1);
	assert_non_null(strstr(err, "18446744073709551616"));
	assert_non_null(strstr(err, "at most"));
	cli_free(&r);
}

static void test_times(void **state)
{
	(void)state;
	assert_float_equal(time_of("500ms"), 0.5, 1e-12);
	assert_float_equal(time_of("2min"), 120, 1e-12);
	assert_float_equal(time_of("10"), 10, 1e-12);
	assert_float_equal(time_of("10s"), 10, 1e-12);
	assert_float_equal(time_of("0.25"), 0.25, 1e-12);
	assert_float_equal(time_of(".5"), 0.5, 1e-12);
	assert_float_equal(time_of("0"), 0, 1e-12);
	assert_float_equal(time_of("1.5min"), 90, 1e-12);
}

static void test_time_errors(void **state)
{
	static const char *bad[] = { "", "-1", "1m", "1h", "s", "1 s", "1e3", "0x10", "inf", "nan", "1,5" };
	double v;
	char err[CLI_ERR_MAX];
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (cli_parse_time(bad[i], &v, "--interval", err, sizeof err) != -1)
			fail_msg("time \"%s\" accepted", bad[i]);
		assert_non_null(strstr(err, "--interval"));
		if (*bad[i])
			assert_non_null(strstr(err, bad[i]));
	}
}

static void test_cpulist_wrapper(void **state)
{
	unsigned char mask[8] = { 0 };
	char err[CLI_ERR_MAX];
	(void)state;
	assert_int_equal(cli_parse_cpulist("0,2-3", mask, 8, err, sizeof err), 0);
	assert_int_equal(mask[0], 1);
	assert_int_equal(mask[1], 0);
	assert_int_equal(mask[2], 1);
	assert_int_equal(mask[3], 1);
	assert_int_equal(mask[4], 0);
	assert_int_equal(cli_parse_cpulist("", mask, 8, err, sizeof err), -1);
	assert_int_equal(cli_parse_cpulist("9", mask, 8, err, sizeof err), -1);
	assert_non_null(strstr(err, "9"));
}

/* ---- workloads ---------------------------------------------------------------- */

static void test_workload_defaults(void **state)
{
	struct wl_spec w;
	char err[CLI_ERR_MAX];
	(void)state;
	assert_int_equal(cli_parse_workload("copy:src=/a", &w, err, sizeof err), 0);
	assert_int_equal(w.kind, WL_COPY);
	assert_string_equal(w.text, "copy:src=/a");
	assert_string_equal(w.src, "/a");
	assert_null(w.dst);
	assert_int_equal(w.bs, 131072);
	assert_int_equal(w.engine, ENG_RW);
	assert_int_equal(w.procs, 3);
	assert_int_equal(w.sync, SYNC_END);
	assert_false(w.direct);
	assert_int_equal(w.jobs, 1);
	assert_false(w.is_default);
	cli_free_workload(&w);

	assert_int_equal(cli_parse_workload("write", &w, err, sizeof err), 0);
	assert_int_equal(w.kind, WL_WRITE);
	assert_null(w.path);
	assert_int_equal(w.size, 0);
	assert_false(w.rewrite);
	assert_false(w.unit_char);
	cli_free_workload(&w);

	assert_int_equal(cli_parse_workload("seek:path=f", &w, err, sizeof err), 0);
	assert_int_equal(w.seekers, 3);
	assert_int_equal(w.count, 0);
	cli_free_workload(&w);
}

static void test_copy_all_keys(void **state)
{
	struct wl_spec w;
	char err[CLI_ERR_MAX];
	(void)state;
	assert_int_equal(cli_parse_workload("copy:src=a,dst=b,bs=1M,engine=pipe,procs=2,sync=each,direct,jobs=4",
	                                    &w, err, sizeof err), 0);
	assert_string_equal(w.src, "a");
	assert_string_equal(w.dst, "b");
	assert_int_equal(w.bs, 1048576);
	assert_int_equal(w.engine, ENG_PIPE);
	assert_int_equal(w.procs, 2);
	assert_int_equal(w.sync, SYNC_EACH);
	assert_true(w.direct);
	assert_int_equal(w.jobs, 4);
	cli_free_workload(&w);

	static const struct { const char *s; enum copy_engine e; } eng[] = {
		{ "rw", ENG_RW }, { "cfr", ENG_CFR }, { "sendfile", ENG_SENDFILE },
		{ "splice", ENG_SPLICE }, { "mmap", ENG_MMAP }, { "pipe", ENG_PIPE },
	};
	for (size_t i = 0; i < sizeof eng / sizeof eng[0]; i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "copy:src=a,engine=%s,sync=none", eng[i].s);
		assert_int_equal(cli_parse_workload(spec, &w, err, sizeof err), 0);
		assert_int_equal(w.engine, eng[i].e);
		assert_int_equal(w.sync, SYNC_NONE);
		cli_free_workload(&w);
	}
}

static void test_direct_forms(void **state)
{
	static const struct { const char *v; bool on; } f[] = {
		{ "direct", true }, { "direct=1", true }, { "direct=yes", true }, { "direct=true", true },
		{ "direct=0", false }, { "direct=no", false }, { "direct=false", false },
	};
	struct wl_spec w;
	char spec[64], err[CLI_ERR_MAX];
	(void)state;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		snprintf(spec, sizeof spec, "write:%s,sync=end", f[i].v);
		assert_int_equal(cli_parse_workload(spec, &w, err, sizeof err), 0);
		assert_int_equal(w.direct, f[i].on);
		cli_free_workload(&w);
	}
}

static void test_write_read_seek_keys(void **state)
{
	struct wl_spec w;
	char err[CLI_ERR_MAX];
	(void)state;
	assert_int_equal(cli_parse_workload("write:path=/tmp/x,size=256M,bs=5000,pattern=rewrite,unit=char,sync=none,direct=0,jobs=5",
	                                    &w, err, sizeof err), 0);
	assert_string_equal(w.path, "/tmp/x");
	assert_int_equal(w.size, 268435456);
	assert_int_equal(w.bs, 5000);
	assert_true(w.rewrite);
	assert_true(w.unit_char);
	assert_int_equal(w.jobs, 5);
	cli_free_workload(&w);

	assert_int_equal(cli_parse_workload("write:pattern=seq,unit=block", &w, err, sizeof err), 0);
	assert_false(w.rewrite);
	assert_false(w.unit_char);
	cli_free_workload(&w);

	assert_int_equal(cli_parse_workload("read:path=f,bs=8k,unit=char,jobs=2", &w, err, sizeof err), 0);
	assert_int_equal(w.kind, WL_READ);
	assert_string_equal(w.path, "f");
	assert_int_equal(w.bs, 8192);
	assert_true(w.unit_char);
	assert_int_equal(w.jobs, 2);
	cli_free_workload(&w);

	assert_int_equal(cli_parse_workload("seek:path=f,seekers=8,count=1000", &w, err, sizeof err), 0);
	assert_int_equal(w.kind, WL_SEEK);
	assert_int_equal(w.seekers, 8);
	assert_int_equal(w.count, 1000);
	cli_free_workload(&w);
}

static void test_cmd_run(void **state)
{
	struct wl_spec w;
	char err[CLI_ERR_MAX];
	(void)state;
	assert_int_equal(cli_parse_workload("cmd:run=rsync -a src/ dst/,x=y", &w, err, sizeof err), 0);
	assert_int_equal(w.kind, WL_CMD);
	assert_string_equal(w.argv[0], "/bin/sh");
	assert_string_equal(w.argv[1], "-c");
	assert_string_equal(w.argv[2], "rsync -a src/ dst/,x=y");
	assert_null(w.argv[3]);
	cli_free_workload(&w);
}

static void test_double_dash_command(void **state)
{
	struct run r;
	(void)state;
	parse_ok("-b|--|rsync|-a|src dir/|dst/", &r);
	assert_int_equal(r.mode, MODE_RUN);
	assert_int_equal(r.nwl, 1);
	assert_int_equal(r.wl[0].kind, WL_CMD);
	assert_string_equal(r.wl[0].argv[0], "rsync");
	assert_string_equal(r.wl[0].argv[1], "-a");
	assert_string_equal(r.wl[0].argv[2], "src dir/");
	assert_string_equal(r.wl[0].argv[3], "dst/");
	assert_null(r.wl[0].argv[4]);
	assert_string_equal(r.wl[0].text, "rsync -a src dir/ dst/");
	assert_true(r.batch);
	cli_free(&r);

	/* options after -- belong to the command */
	parse_ok("-w|write|--|ls|-i|--help", &r);
	assert_int_equal(r.nwl, 2);
	assert_int_equal(r.mode, MODE_RUN);
	assert_string_equal(r.wl[1].argv[1], "-i");
	assert_string_equal(r.wl[1].argv[2], "--help");
	assert_float_equal(r.interval, 0.5, 1e-12);
	cli_free(&r);
}

/* ---- options ---------------------------------------------------------------------- */

static void test_defaults(void **state)
{
	struct run r;
	(void)state;
	parse_ok("", &r);
	assert_int_equal(r.mode, MODE_RUN);
	assert_float_equal(r.interval, 0.5, 1e-12);
	assert_float_equal(r.duration, 0, 1e-12);
	assert_int_equal(r.format, FMT_TEXT);
	assert_int_equal(r.units, UNITS_IEC);
	assert_int_equal(r.placement, PLACE_NONE);
	assert_string_equal(r.sysfs, "/sys");
	assert_false(r.batch || r.loop || r.no_sync || r.keep || r.force || r.drop_caches || r.no_color);
	assert_null(r.record);
	/* the default workload: a 3-process pipe copy of a file of our own */
	assert_int_equal(r.nwl, 1);
	assert_true(r.wl[0].is_default);
	assert_int_equal(r.wl[0].kind, WL_COPY);
	assert_int_equal(r.wl[0].engine, ENG_PIPE);
	assert_int_equal(r.wl[0].procs, 3);
	assert_null(r.wl[0].src);
	cli_free(&r);

	/* a preset brings its own workloads */
	parse_ok("--preset|rsync-demo", &r);
	assert_int_equal(r.nwl, 0);
	assert_string_equal(r.preset, "rsync-demo");
	cli_free(&r);
}

static void test_every_option(void **state)
{
	struct run r;
	(void)state;
	parse_ok("-i|0.05|-t|2min|--loop|--no-sync|-b|--format|csv|-o|rec.jsonl|--cpus|0,2-3|"
	         "--placement|spread|--governor|powersave|--drop-caches|--units|bits|--theme|light|"
	         "--no-color|--sysfs|/tmp/fake|--keep|--force|-w|copy:src=a", &r);
	assert_float_equal(r.interval, 0.05, 1e-12);
	assert_float_equal(r.duration, 120, 1e-12);
	assert_true(r.loop && r.no_sync && r.batch && r.drop_caches && r.no_color && r.keep && r.force);
	assert_int_equal(r.format, FMT_CSV);
	assert_string_equal(r.record, "rec.jsonl");
	assert_string_equal(r.cpus, "0,2-3");
	assert_int_equal(r.placement, PLACE_SPREAD);
	assert_string_equal(r.governor, "powersave");
	assert_int_equal(r.units, UNITS_BITS);
	assert_string_equal(r.theme, "light");
	assert_string_equal(r.sysfs, "/tmp/fake");
	assert_int_equal(r.nwl, 1);
	assert_false(r.wl[0].is_default);
	cli_free(&r);

	parse_ok("--interval=10|--duration=500ms|--format=json|--record=x|--units=si|--placement=pack|"
	         "--theme=./my.theme|--workload=write|--workload|read:path=f", &r);
	assert_float_equal(r.interval, 10, 1e-12);
	assert_float_equal(r.duration, 0.5, 1e-12);
	assert_int_equal(r.format, FMT_JSON);
	assert_int_equal(r.units, UNITS_SI);
	assert_int_equal(r.placement, PLACE_PACK);
	assert_string_equal(r.theme, "./my.theme");
	assert_int_equal(r.nwl, 2);
	assert_int_equal(r.wl[1].kind, WL_READ);
	cli_free(&r);

	parse_ok("--placement|free|--format|text|--units|iec", &r);
	assert_int_equal(r.placement, PLACE_FREE);
	assert_int_equal(r.format, FMT_TEXT);
	assert_int_equal(r.units, UNITS_IEC);
	cli_free(&r);
}

static void test_short_forms(void **state)
{
	struct run r;
	(void)state;
	parse_ok("-bi0.25|-t5|-oout.jsonl|-wwrite:bs=4k", &r);
	assert_true(r.batch);
	assert_float_equal(r.interval, 0.25, 1e-12);
	assert_float_equal(r.duration, 5, 1e-12);
	assert_string_equal(r.record, "out.jsonl");
	assert_int_equal(r.wl[0].bs, 4096);
	cli_free(&r);
}

static void test_at(void **state)
{
	struct run r;
	(void)state;
	parse_ok("--at|20s:pin=0|--at|10:spread|--at|500ms:marker=start: warm, cold|--at|1min:governor=performance|"
	         "--at|30:maxfreq=2.6GHz|--at|31:maxfreq=800000|--at|32:pack|--at|33:free|--at|34:pause|"
	         "--at|35:resume|--at=36:maxfreq=1200MHz", &r);
	assert_int_equal(r.nat, 11);
	/* sorted by time */
	assert_int_equal(r.at[0].kind, AT_MARKER);
	assert_float_equal(r.at[0].t, 0.5, 1e-12);
	assert_string_equal(r.at[0].arg, "start: warm, cold");
	assert_int_equal(r.at[1].kind, AT_SPREAD);
	assert_null(r.at[1].arg);
	assert_int_equal(r.at[2].kind, AT_PIN);
	assert_string_equal(r.at[2].arg, "0");
	assert_int_equal(r.at[3].kind, AT_MAXFREQ);
	assert_int_equal(r.at[3].khz, 2600000);
	assert_int_equal(r.at[4].khz, 800000);
	assert_int_equal(r.at[5].kind, AT_PACK);
	assert_int_equal(r.at[6].kind, AT_FREE);
	assert_int_equal(r.at[7].kind, AT_PAUSE);
	assert_int_equal(r.at[8].kind, AT_RESUME);
	assert_int_equal(r.at[9].khz, 1200000);
	assert_int_equal(r.at[10].kind, AT_GOVERNOR);
	assert_float_equal(r.at[10].t, 60, 1e-12);
	assert_string_equal(r.at[10].arg, "performance");
	cli_free(&r);

	/* equal times keep the order typed */
	parse_ok("--at|5:pack|--at|5:spread", &r);
	assert_int_equal(r.at[0].kind, AT_PACK);
	assert_int_equal(r.at[1].kind, AT_SPREAD);
	cli_free(&r);
}

static void test_modes(void **state)
{
	struct run r;
	(void)state;
	parse_ok("--help", &r);
	assert_int_equal(r.mode, MODE_HELP);
	cli_free(&r);
	parse_ok("-w|write|-h|--bogus", &r);  /* help stops parsing */
	assert_int_equal(r.mode, MODE_HELP);
	cli_free(&r);
	parse_ok("-V", &r);
	assert_int_equal(r.mode, MODE_VERSION);
	cli_free(&r);
	parse_ok("--version", &r);
	assert_int_equal(r.mode, MODE_VERSION);
	cli_free(&r);
	parse_ok("--restore|--sysfs|/tmp/s", &r);
	assert_int_equal(r.mode, MODE_RESTORE);
	assert_int_equal(r.nwl, 0);
	cli_free(&r);
	parse_ok("--replay|rec.jsonl|--units|si", &r);
	assert_int_equal(r.mode, MODE_REPLAY);
	assert_string_equal(r.replay, "rec.jsonl");
	assert_int_equal(r.nwl, 0);
	cli_free(&r);
	parse_ok("--report|rec.jsonl|-o|out.SVG", &r);
	assert_int_equal(r.mode, MODE_REPORT);
	assert_string_equal(r.report, "rec.jsonl");
	assert_string_equal(r.record, "out.SVG");
	cli_free(&r);
	parse_ok("--report|rec.jsonl|-o|out.html", &r);
	assert_int_equal(r.mode, MODE_REPORT);
	cli_free(&r);
	parse_ok("--attach|12,13|--attach|14|-b", &r);
	assert_int_equal(r.mode, MODE_ATTACH);
	assert_int_equal(r.nattach, 3);
	assert_int_equal(r.attach[0], 12);
	assert_int_equal(r.attach[2], 14);
	assert_int_equal(r.nwl, 0);
	cli_free(&r);
}

static void test_experiments(void **state)
{
	struct run r;
	(void)state;
	parse_ok("--sweep|bs=16B:64k|--cell|256M|-w|write", &r);
	assert_string_equal(r.sweep, "bs=16B:64k");
	assert_int_equal(r.sweep_from, 16);
	assert_int_equal(r.sweep_to, 65536);
	assert_int_equal(r.cell_bytes, 268435456);
	assert_float_equal(r.cell_sec, 0, 1e-12);
	cli_free(&r);

	parse_ok("--matrix|placement=pack,spread|governor=ondemand,performance|--cell|30s", &r);
	assert_true(r.matrix);
	assert_string_equal(r.matrix_placement, "pack,spread");
	assert_string_equal(r.matrix_governor, "ondemand,performance");
	assert_float_equal(r.cell_sec, 30, 1e-12);
	assert_int_equal(r.cell_bytes, 0);
	assert_true(r.wl[0].is_default);
	cli_free(&r);

	parse_ok("--matrix|placement=free governor=schedutil", &r);
	assert_string_equal(r.matrix_placement, "free");
	assert_string_equal(r.matrix_governor, "schedutil");
	cli_free(&r);

	parse_ok("--matrix=governor=powersave|--matrix|placement=pack|-b", &r);
	assert_string_equal(r.matrix_placement, "pack");
	assert_string_equal(r.matrix_governor, "powersave");
	assert_true(r.batch);
	cli_free(&r);

	parse_ok("--matrix|-b", &r);
	assert_true(r.matrix);
	assert_string_equal(r.matrix_placement, "pack,free,spread");
	assert_null(r.matrix_governor);
	cli_free(&r);
}

static void test_help_from_table(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	(void)state;
	assert_non_null(fp);
	cli_print_help(fp);
	fclose(fp);
	for (size_t i = 0; i < cli_noptions; i++) {
		char want[64];
		snprintf(want, sizeof want, "--%s", cli_options[i].long_name);
		if (!strstr(buf, want))
			fail_msg("--help lacks %s", want);
		if (cli_options[i].short_name) {
			snprintf(want, sizeof want, "-%c, --%s", cli_options[i].short_name, cli_options[i].long_name);
			assert_non_null(strstr(buf, want));
		}
	}
	/* no line wider than a terminal */
	for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		assert_true(nl - line < 80);
	free(buf);
}

/* ---- the man page documents the tables ------------------------------------------ */

static char *read_man(void)
{
	const char *tries[3] = { "man/benchtop.1", NULL, NULL };
	char alt[4096];
	/* the binary lives in build/san/tests/: the source tree is three up */
	if (argv0_path && strrchr(argv0_path, '/')) {
		snprintf(alt, sizeof alt, "%.*s/../../../man/benchtop.1",
		         (int)(strrchr(argv0_path, '/') - argv0_path), argv0_path);
		tries[1] = alt;
	}
	for (int i = 0; tries[i]; i++) {
		FILE *fp = fopen(tries[i], "r");
		char *buf;
		long n;
		if (!fp)
			continue;
		fseek(fp, 0, SEEK_END);
		n = ftell(fp);
		rewind(fp);
		buf = calloc(1, (size_t)n + 1);
		if (fread(buf, 1, (size_t)n, fp) != (size_t)n)
			n = 0;
		fclose(fp);
		return buf;
	}
	return NULL;
}

static void test_man_page_has_every_option(void **state)
{
	char *man = read_man();
	(void)state;
	if (!man)
		fail_msg("man/benchtop.1 not found (run from the source tree)");
	for (size_t i = 0; i < cli_noptions; i++) {
		char want[64];
		snprintf(want, sizeof want, "\\-\\-%s", cli_options[i].long_name);
		/* roff writes "--" as "\-\-"; hyphens inside names too */
		for (char *p = want + 4; (p = strchr(p, '-')); p += 2) {
			memmove(p + 1, p, strlen(p) + 1);
			*p = '\\';
		}
		if (!strstr(man, want))
			fail_msg("man page lacks %s", want);
	}
	free(man);
}

static void test_man_page_has_every_key(void **state)
{
	static const char *kinds[] = { "copy", "write", "read", "seek", "cmd" };
	char *man = read_man(), *buf = NULL, *keys;
	size_t len = 0;
	FILE *fp;
	(void)state;
	if (!man)
		fail_msg("man/benchtop.1 not found (run from the source tree)");
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	cli_print_help(fp);
	fclose(fp);
	/* every "  key=META" row of the help's Keys: section */
	keys = strstr(buf, "\nKeys:\n");
	assert_non_null(keys);
	for (char *line = keys + 7; line[0] == ' ' && line[1] == ' ' && line[2] != ' '; ) {
		char want[40];
		size_t n = strcspn(line + 2, "=");
		snprintf(want, sizeof want, "\\fB%.*s=", (int)n, line + 2);
		if (!strstr(man, want))
			fail_msg("man page lacks workload key %s", want);
		line = strchr(line, '\n') + 1;
		while (line[0] == ' ' && line[2] == ' ')
			line = strchr(line, '\n') + 1;  /* wrapped continuation */
	}
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		char want[32];
		snprintf(want, sizeof want, "\\fB%s\\fR", kinds[i]);
		if (!strstr(man, want))
			fail_msg("man page lacks workload kind %s", kinds[i]);
	}
	free(buf);
	free(man);
}

int main(int argc, char **argv)
{
	(void)argc;
	argv0_path = argv[0];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_messages_list_choices),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_size_errors),
		cmocka_unit_test(test_limit_messages),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_time_errors),
		cmocka_unit_test(test_cpulist_wrapper),
		cmocka_unit_test(test_workload_defaults),
		cmocka_unit_test(test_copy_all_keys),
		cmocka_unit_test(test_direct_forms),
		cmocka_unit_test(test_write_read_seek_keys),
		cmocka_unit_test(test_cmd_run),
		cmocka_unit_test(test_double_dash_command),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_option),
		cmocka_unit_test(test_short_forms),
		cmocka_unit_test(test_at),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_experiments),
		cmocka_unit_test(test_help_from_table),
		cmocka_unit_test(test_man_page_has_every_option),
		cmocka_unit_test(test_man_page_has_every_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

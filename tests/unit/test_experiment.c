/* test_experiment.c - sweep steps, the least-squares fit, study tables
 * (text, CSV, JSON), preset files (comments, quotes, bad lines, study),
 * finding presets (built-in ones too), and a preset merged with the
 * user's options. */
#include <errno.h>
#include <math.h>
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

#include "benchtop/experiment.h"
#include "benchtop/json.h"
#include "benchtop/studytable.h"

static void steps_are(uint64_t from, uint64_t to, size_t n, const uint64_t *want)
{
	uint64_t bs[EXP_MAX_STEPS];
	size_t got = experiment_steps(from, to, bs, EXP_MAX_STEPS);
	if (got != n)
		fail_msg("steps %llu..%llu: %zu steps, want %zu", (unsigned long long)from,
		         (unsigned long long)to, got, n);
	for (size_t i = 0; i < n; i++)
		if (bs[i] != want[i])
			fail_msg("steps %llu..%llu: step %zu is %llu, want %llu", (unsigned long long)from,
			         (unsigned long long)to, i, (unsigned long long)bs[i], (unsigned long long)want[i]);
}

static void test_steps(void **state)
{
	(void)state;
	steps_are(4096, 65536, 5, (const uint64_t[]){ 4096, 8192, 16384, 32768, 65536 });
	steps_are(16, 16, 1, (const uint64_t[]){ 16 });
	/* TO is the last step even when the doubling does not land on it */
	steps_are(5000, 65536, 5, (const uint64_t[]){ 5000, 10000, 20000, 40000, 65536 });
	steps_are(1, 3, 3, (const uint64_t[]){ 1, 2, 3 });
	uint64_t bs[EXP_MAX_STEPS];
	assert_int_equal(experiment_steps(16, 65536, bs, EXP_MAX_STEPS), 13);
	assert_int_equal(bs[12], 65536);
	assert_int_equal(experiment_steps(1, 1ULL << 30, bs, EXP_MAX_STEPS), 31);
	assert_int_equal(experiment_steps(0, 4096, bs, EXP_MAX_STEPS), 0);
	assert_int_equal(experiment_steps(8192, 4096, bs, EXP_MAX_STEPS), 0);
	assert_int_equal(experiment_steps(1, 1ULL << 30, bs, 4), 4);
	assert_int_equal(bs[3], 8);
}

static void test_split(void **state)
{
	(void)state;
	int argc;
	char **argv, err[256];
	assert_int_equal(preset_split("  -w  \"cmd:run=echo a  b\" --at '5:marker=it''s \"x\"' a\\ b \"q\\\"\\\\\" ''",
	                              &argc, &argv, err, sizeof err), 0);
	assert_int_equal(argc, 7);
	assert_string_equal(argv[0], "-w");
	assert_string_equal(argv[1], "cmd:run=echo a  b");
	assert_string_equal(argv[2], "--at");
	assert_string_equal(argv[3], "5:marker=its \"x\"");
	assert_string_equal(argv[4], "a b");
	assert_string_equal(argv[5], "q\"\\");
	assert_string_equal(argv[6], "");   /* '' is an empty word, as in sh */
	assert_null(argv[7]);
	preset_free_words(argv);

	assert_int_equal(preset_split("a 'b c", &argc, &argv, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "unterminated '"));
	assert_null(argv);
	assert_int_equal(preset_split("a \"b", &argc, &argv, err, sizeof err), -EINVAL);
	assert_int_equal(preset_split("a\\", &argc, &argv, err, sizeof err), -EINVAL);
	assert_int_equal(preset_split("   ", &argc, &argv, err, sizeof err), 0);
	assert_int_equal(argc, 0);
	preset_free_words(argv);
}

static void test_parse(void **state)
{
	(void)state;
	struct preset p;
	char err[512];
	const char *text =
		"# a comment\n"
		"\n"
		"   # an indented comment = not a setting\n"
		"description =  Read sweep, \"quoted\" = fine  \n"
		"args = -w read:path=/tmp --sweep bs=4k:8k\r\n"
		"args=--cell '1 s'\n";
	assert_int_equal(preset_parse(text, "t.preset", &p, err, sizeof err), 0);
	assert_string_equal(p.description, "Read sweep, \"quoted\" = fine");
	assert_int_equal(p.nruns, 2);
	assert_int_equal(p.argc[0], 4);
	assert_string_equal(p.argv[0][3], "bs=4k:8k");
	assert_int_equal(p.argc[1], 2);
	assert_string_equal(p.argv[1][1], "1 s");
	preset_free(&p);
}

static void bad(const char *text, const char *want)
{
	struct preset p;
	char err[512] = "";
	if (preset_parse(text, "bad.preset", &p, err, sizeof err) != -EINVAL)
		fail_msg("accepted \"%s\"", text);
	if (!strstr(err, want))
		fail_msg("\"%s\": message \"%s\" lacks \"%s\"", text, err, want);
	assert_int_equal(p.nruns, 0);
	assert_null(p.description);
	preset_free(&p);
}

static void test_bad_lines(void **state)
{
	(void)state;
	bad("# only a comment\n", "bad.preset: no args line");
	bad("args = -b\njust words\n", "bad.preset:2: \"just words\" is not a setting");
	bad("colour = red\nargs = -b\n", "bad.preset:1: unknown key \"colour\"");
	bad("args =   \n", "bad.preset:1: empty args");
	bad("\n\nargs = -w 'x\n", "bad.preset:3: unterminated '");
	bad("description = a\ndescription = b\nargs = -b\n", "bad.preset:2: a second description");
	char many[2048] = "";
	for (int i = 0; i <= PRESET_MAX_RUNS; i++)
		strcat(many, "args = -b\n");
	bad(many, "more than 16 args lines");
}

/* A preset directory of our own, found through $XDG_CONFIG_HOME. */
static char xdg[] = "/tmp/benchtop-test-presets.XXXXXX";

static void write_preset(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/benchtop/presets/%s.preset", xdg, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup_dir(void **state)
{
	(void)state;
	char cmd[256];
	if (!mkdtemp(xdg))
		return -1;
	snprintf(cmd, sizeof cmd, "%s/benchtop", xdg);
	mkdir(cmd, 0755);
	snprintf(cmd, sizeof cmd, "%s/benchtop/presets", xdg);
	mkdir(cmd, 0755);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	return 0;
}

static int teardown_dir(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", xdg);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_find_and_load(void **state)
{
	(void)state;
	struct preset p;
	char err[2048], path[512];
	write_preset("zeta", "args = -b\n");
	write_preset("alpha", "description = first\nargs = -w read:path=/tmp --sweep bs=4k:8k\n");
	write_preset("broken", "nonsense\n");
	assert_int_equal(preset_find("alpha", path, sizeof path), 0);
	assert_non_null(strstr(path, "/benchtop/presets/alpha.preset"));
	assert_int_equal(preset_load("alpha", &p, err, sizeof err), 0);
	assert_string_equal(p.description, "first");
	preset_free(&p);
	assert_int_equal(preset_load("nope", &p, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "unknown preset \"nope\""));
	assert_non_null(strstr(err, "alpha, "));
	assert_non_null(strstr(err, "broken"));
	assert_non_null(strstr(err, "zeta"));
	assert_int_equal(preset_load("broken", &p, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "broken.preset:1:"));
	/* a name with a slash is a file */
	snprintf(path, sizeof path, "%s/benchtop/presets/zeta.preset", xdg);
	assert_int_equal(preset_load(path, &p, err, sizeof err), 0);
	preset_free(&p);
}

static void merged(const char *preset_args, int argc, char **argv, struct run *out)
{
	struct preset p;
	char text[512], err[1024];
	snprintf(text, sizeof text, "args = %s\n", preset_args);
	assert_int_equal(preset_parse(text, "m.preset", &p, err, sizeof err), 0);
	if (preset_merge(&p, 0, "m", argc, argv, out, err, sizeof err))
		fail_msg("merge of \"%s\" failed: %s", preset_args, err);
	preset_free(&p);
}

static void test_merge(void **state)
{
	(void)state;
	struct run r;
	const char *base = "-w read:path=/tmp -i 1 --sweep bs=4k:8k --cell 1M --at 1:marker=a";
	char *a1[] = { "benchtop", "--preset", "m", "--cell", "2s", "-b", "--at", "2:marker=b", NULL };
	merged(base, 8, a1, &r);
	assert_string_equal(r.preset, "m");
	assert_true(r.batch);
	assert_true(r.cell_sec == 2.0);
	assert_int_equal(r.cell_bytes, 0);
	assert_true(r.interval == 1.0);
	assert_non_null(r.sweep);
	assert_int_equal(r.nat, 2);         /* --at adds to the preset's */
	assert_int_equal(r.nwl, 1);
	assert_int_equal(r.wl[0].kind, WL_READ);
	cli_free(&r);

	/* -w replaces the preset's workloads, -i0.2 in a cluster replaces -i */
	char *a2[] = { "benchtop", "-bi0.2", "-w", "write:path=/tmp", "--preset=m", NULL };
	merged(base, 5, a2, &r);
	assert_int_equal(r.nwl, 1);
	assert_int_equal(r.wl[0].kind, WL_WRITE);
	assert_true(r.interval > 0.19 && r.interval < 0.21);
	cli_free(&r);

	/* --matrix replaces the preset's --sweep; a command replaces -w */
	char *a3[] = { "benchtop", "--preset", "m", "--matrix", "placement=pack,spread", "--", "sh", "-c", "true", NULL };
	merged(base, 9, a3, &r);
	assert_null(r.sweep);
	assert_true(r.matrix);
	assert_string_equal(r.matrix_placement, "pack,spread");
	assert_int_equal(r.nwl, 1);
	assert_int_equal(r.wl[0].kind, WL_CMD);
	cli_free(&r);

	/* the preset's command stays last, after the user's options */
	char *a4[] = { "benchtop", "--preset", "m", "-t", "3", NULL };
	merged("--matrix placement=pack -- sleep 1", 5, a4, &r);
	assert_int_equal(r.nwl, 1);
	assert_int_equal(r.wl[0].kind, WL_CMD);
	assert_true(r.duration == 3.0);
	cli_free(&r);

	/* a preset inside a preset, and a bad word, are refused */
	struct preset p;
	char err[1024];
	assert_int_equal(preset_parse("args = --preset other\n", "x", &p, err, sizeof err), 0);
	assert_int_equal(preset_merge(&p, 0, "m", 3, (char *[]){ "benchtop", "--preset", "m", NULL }, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "--preset inside a preset"));
	preset_free(&p);
	assert_int_equal(preset_parse("args = --bogus\n", "x", &p, err, sizeof err), 0);
	assert_int_equal(preset_merge(&p, 0, "m", 3, (char *[]){ "benchtop", "--preset", "m", NULL }, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, "--bogus"));
	preset_free(&p);
}

static void test_fit(void **state)
{
	(void)state;
	double x[] = { 0.5, 1, 2, 4, NAN }, y[] = { 3.5, 4, 5, 7, 1 }, a, b;
	assert_int_equal(experiment_fit(x, y, 5, &a, &b), 0);   /* y = 3 + x, the NaN point left out */
	assert_true(fabs(a - 3) < 1e-9 && fabs(b - 1) < 1e-9);
	assert_int_equal(experiment_fit(x, y, 1, &a, &b), -EDOM);
	double same[] = { 2, 2, 2 };
	assert_int_equal(experiment_fit(same, y, 3, &a, &b), -EDOM);
}

/* A two-level table: text, CSV and JSON agree and mark the cached cell. */
static void test_table(void **state)
{
	(void)state;
	struct st_table t;
	char *buf = NULL;
	size_t len = 0;
	st_init(&t, "bonnie", "bonnie: a test");
	int m = st_col(&t, NULL, "MiB", 0), k = st_col(&t, "block read", "K/sec", 0);
	int d = st_col(&t, "block read", "from disk", 0);
	t.col[d].share = true;
	struct st_row *r = st_row(&t);
	st_num(r, m, 16);
	st_word(r, k, "too short");
	st_num(r, d, 0.25);
	r->cell[d].cached = true;
	FILE *fp = open_memstream(&buf, &len);
	st_print_text(&t, fp);
	fclose(fp);
	assert_non_null(strstr(buf, "--block read---"));
	assert_non_null(strstr(buf, "too short"));
	assert_non_null(strstr(buf, "25%*"));
	assert_non_null(strstr(buf, "* mostly from the page cache"));
	free(buf);
	fp = open_memstream(&buf, &len);
	st_print_csv(&t, fp);
	fclose(fp);
	assert_string_equal(buf, "MiB,block read K/sec,block read from disk,note\n16,too short,0.250,mostly from the page cache\n");
	free(buf);
	fp = open_memstream(&buf, &len);
	struct jw w;
	jw_begin(&w, fp);
	st_json(&t, &w, NULL);
	fclose(fp);
	struct json_error err;
	struct json *j = json_parse(buf, len, &err);
	assert_non_null(j);
	const struct json *row = json_at(json_get(j, "rows"), 0);
	assert_true(json_num(json_get(row, "MiB"), 0) == 16);
	assert_string_equal(json_str(json_get(row, "block read K/sec"), ""), "too short");
	assert_string_equal(json_str(json_at(json_get(row, "from_cache"), 0), ""), "block read from disk");
	assert_string_equal(json_str(json_get(j, "study"), ""), "bonnie");
	json_free(j);
	free(buf);
	st_free(&t);
}

static void test_builtin_presets(void **state)
{
	(void)state;
	static const char *const names[] = { "aligntest", "blocksize", "bonnie", "copytools", "rsync-demo" };
	char path[256], err[1024], list[1024];
	for (size_t i = 0; i < 5; i++) {
		struct preset p;
		assert_int_equal(preset_find(names[i], path, sizeof path), 0);
		assert_int_equal(preset_load(names[i], &p, err, sizeof err), 0);
		assert_non_null(p.description);
		assert_string_equal(p.study, names[i]);
		preset_free(&p);
	}
	preset_names(list, sizeof list);
	assert_non_null(strstr(list, "copytools"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_find_and_load),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_builtin_presets),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}

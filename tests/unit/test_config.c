/* test_config.c - the config file parser: good lines become the command
 * line's words, bad lines fail naming the file and the line, and the
 * command line wins over the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "benchtop/cli.h"
#include "benchtop/config.h"

static int parse(const char *text, struct config *c, char *err)
{
	return config_parse_text(text, strlen(text), "cfg", c, err, 512);
}

static void test_good_lines(void **state)
{
	(void)state;
	struct config c;
	char err[512];
	assert_int_equal(parse("# defaults\n\ninterval = 1\n  units=si  \nloop = yes\n"
	                       "keep = false\ntheme = mono\r\nat = 5:marker=a b\n", &c, err), 0);
	assert_int_equal(c.nwords, 5);
	assert_string_equal(c.words[0], "--interval=1");
	assert_string_equal(c.words[1], "--units=si");
	assert_string_equal(c.words[2], "--loop");
	assert_string_equal(c.words[3], "--theme=mono");
	assert_string_equal(c.words[4], "--at=5:marker=a b");
	config_free(&c);
	assert_int_equal(parse("", &c, err), 0);
	assert_int_equal(c.nwords, 0);
	config_free(&c);
}

struct bad { const char *text; const char *want; };

static void test_bad_lines(void **state)
{
	(void)state;
	static const struct bad bad[] = {
		{ "interval = 1\nbogus = 3\n", "cfg:2: unknown option \"bogus\"" },
		{ "\n\n--interval = 1\n", "cfg:3:" },
		{ "interval\n", "cfg:1: \"interval\" needs a value" },
		{ "interval =\n", "cfg:1: \"interval\" needs a value" },
		{ "interval = fast\n", "cfg:1:" },
		{ "interval = 99\n", "cfg:1:" },
		{ "loop = maybe\n", "cfg:1: bad value \"maybe\" for loop" },
		{ "units = 3\n", "cfg:1:" },
		{ "help = true\n", "cfg:1: \"help\" cannot be a default" },
		{ "interval = 1\ninterval = 2\n", "cfg:2: \"interval\" given twice" },
		{ "= 4\n", "cfg:1: unknown option" },
		{ "a\0b\n", "cfg:1:" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct config c;
		char err[512] = "";
		size_t len = strlen(bad[i].text);
		if (i == sizeof bad / sizeof bad[0] - 1)
			len = 4;
		int rc = config_parse_text(bad[i].text, len, "cfg", &c, err, sizeof err);
		if (rc != -1 || !strstr(err, bad[i].want))
			fail_msg("line %zu: rc %d, message \"%s\", wanted \"%s\"", i, rc, err, bad[i].want);
		assert_int_equal(c.nwords, 0);
		assert_null(c.words);
	}
	/* the message names the bad value itself */
	struct config c;
	char err[512];
	assert_int_equal(parse("\ninterval = fast\n", &c, err), -1);
	assert_non_null(strstr(err, "cfg:2:"));
	assert_non_null(strstr(err, "fast"));
}

/* The command line wins: an option it gives drops the file's. */
static void test_merge(void **state)
{
	(void)state;
	struct config c;
	char err[512];
	assert_int_equal(parse("interval = 2\nunits = bits\nat = 1:pack\nloop = on\n", &c, err), 0);
	char *argv[] = { "benchtop", "-bi0.25", "--at", "2:free", "-w", "write:size=1m", NULL };
	int n;
	char **words;
	assert_int_equal(config_merge_argv(&c, 6, argv, &n, &words), 0);
	assert_int_equal(n, 8);   /* argv0 + units + loop + the 5 command-line words */
	assert_string_equal(words[1], "--units=bits");
	assert_string_equal(words[2], "--loop");
	struct run r;
	assert_int_equal(cli_parse(n, words, &r, err, sizeof err), 0);
	assert_true(r.interval > 0.24 && r.interval < 0.26);
	assert_int_equal(r.units, UNITS_BITS);
	assert_true(r.loop);
	assert_int_equal(r.nat, 1);
	cli_free(&r);
	free(words);
	config_free(&c);
}

static void test_load(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_config.XXXXXX", path[256], err[512];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/config", dir);
	struct config c;
	assert_int_equal(config_load(path, &c, err, sizeof err), 0);   /* missing: empty */
	assert_int_equal(c.nwords, 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("units = si\nnope = 1\n", f);
	fclose(f);
	assert_int_equal(config_load(path, &c, err, sizeof err), -1);
	char want[300];
	snprintf(want, sizeof want, "%s:2:", path);
	assert_non_null(strstr(err, want));
	unlink(path);
	rmdir(dir);
	setenv("XDG_CONFIG_HOME", "/x/y", 1);
	assert_int_equal(config_path(path, sizeof path), 0);
	assert_string_equal(path, "/x/y/benchtop/config");
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", "/h", 1);
	assert_int_equal(config_path(path, sizeof path), 0);
	assert_string_equal(path, "/h/.config/benchtop/config");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_lines),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

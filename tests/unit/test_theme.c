/* test_theme.c - theme files: good files parse, bad words are named with
 * file and line, the search order holds, shipped themes all load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "benchtop/theme.h"

static void test_parse_good(void **state)
{
	(void)state;
	struct theme t;
	char err[256] = "";
	theme_builtin(&t);
	assert_int_equal(theme_parse("# comment\n\ntitle = bright-cyan\n"
	                             "select = black on 208 bold\n  write=2\n",
	                             "x.theme", &t, err, sizeof(err)), 0);
	assert_int_equal(t.fg[ROLE_TITLE], 14);
	assert_false(t.bold[ROLE_TITLE]);
	assert_int_equal(t.fg[ROLE_SELECT], 0);
	assert_int_equal(t.bg[ROLE_SELECT], 208);
	assert_true(t.bold[ROLE_SELECT]);
	assert_int_equal(t.fg[ROLE_WRITE], 2);
	assert_int_equal(t.bg[ROLE_WRITE], THEME_DEFAULT_COLOUR);
	/* roles not named keep the built-in value */
	struct theme b;
	theme_builtin(&b);
	assert_int_equal(t.fg[ROLE_READ], b.fg[ROLE_READ]);
}

static void test_bad_colour_names_file_line_word(void **state)
{
	(void)state;
	struct theme t;
	char err[256] = "";
	theme_builtin(&t);
	assert_int_equal(theme_parse("title = cyan\nwrite = grene\n", "my.theme", &t,
	                             err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "my.theme:2"));
	assert_non_null(strstr(err, "'grene'"));
	assert_int_equal(theme_parse("read = 256\n", "f", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "f:1"));
	assert_non_null(strstr(err, "'256'"));
	assert_int_equal(theme_parse("read = red on\n", "f", &t, err, sizeof(err)), -EINVAL);
	assert_int_equal(theme_parse("read =\n", "f", &t, err, sizeof(err)), -EINVAL);
	assert_int_equal(theme_parse("read = red blue\n", "f", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'blue'"));
}

static void test_unknown_key_and_no_equals(void **state)
{
	(void)state;
	struct theme t;
	char err[256] = "";
	theme_builtin(&t);
	assert_int_equal(theme_parse("\n\n\nbackgrund = red\n", "k.theme", &t, err, sizeof(err)),
	                 -EINVAL);
	assert_non_null(strstr(err, "k.theme:4"));
	assert_non_null(strstr(err, "'backgrund'"));
	assert_int_equal(theme_parse("title red\n", "k.theme", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "k.theme:1"));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_search_order(void **state)
{
	(void)state;
	char tmp[] = "/tmp/bt-theme.XXXXXX", cwd[PATH_MAX], p[PATH_MAX + 64], found[PATH_MAX];
	assert_non_null(mkdtemp(tmp));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(p, sizeof(p), "%s/xdg/benchtop/themes", tmp);
	char cmd[PATH_MAX * 2];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s %s/work/themes", p, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/xdg/benchtop/themes/zz.theme", tmp);
	write_file(p, "title = red\n");
	snprintf(p, sizeof(p), "%s/work/themes/zz.theme", tmp);
	write_file(p, "title = green\n");   /* ./themes is not searched */
	snprintf(p, sizeof(p), "%s/xdg/benchtop/themes/mono.theme", tmp);
	write_file(p, "title = red\n");     /* overrides the built-in mono */
	snprintf(p, sizeof(p), "%s/xdg", tmp);
	setenv("XDG_CONFIG_HOME", p, 1);
	snprintf(p, sizeof(p), "%s/work", tmp);
	assert_int_equal(chdir(p), 0);

	struct theme t;
	char err[256] = "";
	assert_int_equal(theme_load("zz", &t, err, sizeof(err)), 0);
	assert_int_equal(t.fg[ROLE_TITLE], 1);          /* XDG wins */
	assert_string_equal(t.name, "zz");
	snprintf(p, sizeof(p), "%s/xdg/benchtop/themes/zz.theme", tmp);
	unlink(p);
	assert_int_equal(theme_load("zz", &t, err, sizeof(err)), -ENOENT);
	assert_int_equal(theme_load("mono", &t, err, sizeof(err)), 0);
	assert_int_equal(t.fg[ROLE_TITLE], 1);          /* the file wins over the built-in */
	snprintf(p, sizeof(p), "%s/xdg/benchtop/themes/mono.theme", tmp);
	unlink(p);
	assert_int_equal(theme_find("mono", found, sizeof(found)), 0);
	assert_string_equal(found, "built-in:mono");    /* from any directory */
	assert_int_equal(theme_load("mono", &t, err, sizeof(err)), 0);
	assert_int_not_equal(t.fg[ROLE_TITLE], 1);
	assert_int_equal(theme_find("nope", found, sizeof(found)), -ENOENT);
	assert_int_equal(theme_load("nope", &t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "'nope'"));
	/* a path is taken as is, and its errors name it */
	assert_int_equal(theme_find("themes/zz.theme", found, sizeof(found)), 0);
	assert_string_equal(found, "themes/zz.theme");
	write_file("bad.theme", "title = cyan\nmarker = purple\n");
	assert_int_equal(theme_load("./bad.theme", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "./bad.theme:2"));
	assert_non_null(strstr(err, "'purple'"));
	char names[8][THEME_NAME_LEN];
	assert_int_equal(theme_list(names, 8), 4);      /* the built-in four */
	assert_string_equal(names[0], "default");
	assert_string_equal(names[3], "mono");
	assert_int_equal(chdir(cwd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
}

static void test_shipped_themes_load(void **state)
{
	(void)state;
	static const char *names[] = { "default", "mono", "high-contrast", "light" };
	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
	for (size_t i = 0; i < 4; i++) {
		struct theme t;
		char err[256] = "", path[64];
		snprintf(path, sizeof(path), "themes/%s.theme", names[i]);
		if (theme_load_file(path, &t, err, sizeof(err)) != 0)
			fail_msg("%s", err);
		assert_string_equal(t.name, names[i]);
	}
	/* the built-in default is the default file */
	struct theme a, b;
	char err[256];
	theme_builtin(&a);
	assert_int_equal(theme_load_file("themes/default.theme", &b, err, sizeof(err)), 0);
	assert_memory_equal(a.fg, b.fg, sizeof(a.fg));
	assert_memory_equal(a.bg, b.bg, sizeof(a.bg));
	assert_memory_equal(a.bold, b.bold, sizeof(a.bold));
}

static void test_fallback8(void **state)
{
	(void)state;
	assert_int_equal(theme_fallback8(-1), -1);
	assert_int_equal(theme_fallback8(3), 3);
	assert_int_equal(theme_fallback8(9), 1);
	assert_int_equal(theme_fallback8(196), 1);   /* pure red */
	assert_int_equal(theme_fallback8(46), 2);    /* pure green */
	assert_int_equal(theme_fallback8(21), 4);    /* pure blue */
	assert_int_equal(theme_fallback8(226), 3);   /* yellow */
	assert_int_equal(theme_fallback8(16), 0);
	assert_int_equal(theme_fallback8(255), 7);
	assert_int_equal(theme_fallback8(8), -1);     /* grey: the terminal's foreground */
	assert_int_equal(theme_fallback8(240), -1);
	for (int c = 0; c < 256; c++) {
		short f = theme_fallback8((short)c);
		assert_true(f == -1 || (f >= 0 && f <= 7));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_bad_colour_names_file_line_word),
		cmocka_unit_test(test_unknown_key_and_no_equals),
		cmocka_unit_test(test_search_order),
		cmocka_unit_test(test_shipped_themes_load),
		cmocka_unit_test(test_fallback8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

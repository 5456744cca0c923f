/* test_base.c - the small base helpers: the JSON writer (read back with
 * the reader), the sysfs file helpers on a temp tree, the clock, the
 * division helper and the allocation wrappers. */
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

#include "benchtop/clock.h"
#include "benchtop/json.h"
#include "benchtop/num.h"
#include "benchtop/shown.h"
#include "benchtop/sysfile.h"
#include "benchtop/xalloc.h"

/* The string text parses back to exactly want. */
static void reads_back(const char *text, const char *want)
{
	struct json_error e;
	struct json *v = json_parse(text, strlen(text), &e);
	if (!v)
		fail_msg("%s refused: %s", text, e.msg);
	assert_int_equal(json_type(v), JSON_STRING);
	assert_string_equal(json_str(v, NULL), want);
	json_free(v);
}

static void test_json_string(void **state)
{
	(void)state;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	const char *s = "a\"b\\c\n\t\x01 é";
	json_string(fp, s);
	fputc(' ', fp);
	json_string(fp, NULL);
	fclose(fp);
	assert_string_equal(out, "\"a\\\"b\\\\c\\n\\t\\u0001 é\" \"\"");
	out[strlen(out) - 3] = '\0';
	reads_back(out, s);
	free(out);
}

static void test_json_number(void **state)
{
	(void)state;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	json_number(fp, 1.5);
	fputc(' ', fp);
	json_number(fp, 0.0 / 0.0);
	fputc(' ', fp);
	json_number(fp, 1e300 * 1e300);
	fclose(fp);
	assert_string_equal(out, "1.5 null null");
	free(out);
}

static void touch(const char *dir, const char *name)
{
	char path[64];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
}

static void test_sysfile(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_base.XXXXXX", buf[32];
	assert_non_null(mkdtemp(dir));
	/* files are written, never created (sysfs has them all) */
	assert_int_equal(sysfile_write(dir, "governor", "powersave"), -ENOENT);
	touch(dir, "governor");
	touch(dir, "long");
	assert_int_equal(sysfile_write(dir, "governor", "powersave"), 0);
	assert_int_equal(sysfile_read(dir, "governor", buf, sizeof buf), 9);
	assert_string_equal(buf, "powersave");
	/* a shorter value replaces the file's content */
	assert_int_equal(sysfile_write(dir, "governor", "ok"), 0);
	assert_int_equal(sysfile_read(dir, "governor", buf, sizeof buf), 2);
	assert_string_equal(buf, "ok");
	/* cut to the buffer; trailing white space removed */
	assert_int_equal(sysfile_write(dir, "long", "0123456789"), 0);
	assert_int_equal(sysfile_read(dir, "long", buf, 5), 4);
	assert_string_equal(buf, "0123");
	assert_int_equal(sysfile_read(dir, "missing", buf, sizeof buf), -ENOENT);
	assert_int_equal(sysfile_write(dir, "nodir/x", "1"), -ENOENT);
	char path[64];
	snprintf(path, sizeof path, "%s/governor", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/long", dir);
	unlink(path);
	rmdir(dir);
}

static void test_clock_and_div(void **state)
{
	(void)state;
	double t0 = clock_mono();
	usleep(20000);
	double t1 = clock_mono();
	assert_true(t1 - t0 >= 0.019 && t1 - t0 < 5);
	assert_true(num_div(6, 3) == 2);
	assert_true(num_div(1, 0) == 0);
	assert_true(num_div(1, 1e-12) == 0);
	assert_true(num_div(-4, 2) == -2);
}

static void test_xalloc(void **state)
{
	(void)state;
	char *s = xstrdup("abc");
	assert_string_equal(s, "abc");
	s = xrealloc(s, 10);
	assert_string_equal(s, "abc");
	free(s);
	s = xstrndup("abcdef", 2);
	assert_string_equal(s, "ab");
	free(s);
	int *z = xcalloc(4, sizeof *z);
	assert_int_equal(z[0] | z[1] | z[2] | z[3], 0);
	free(z);
	free(xmalloc(0));
	free(xreallocarray(NULL, 3, 8));
	/* xgrow doubles from `first` until the wanted count fits, keeping
	 * what is there */
	int *v = NULL;
	size_t cap = 0;
	xgrow((void **)&v, &cap, 1, sizeof *v, 4);
	assert_int_equal(cap, 4);
	v[0] = 7;
	xgrow((void **)&v, &cap, 4, sizeof *v, 4);
	assert_int_equal(cap, 4);
	xgrow((void **)&v, &cap, 9, sizeof *v, 4);
	assert_int_equal(cap, 16);
	assert_int_equal(v[0], 7);
	v[15] = 1;
	free(v);
}

/* Control characters of outside text become \xNN; plain text and text
 * escaped once are left as they are; a small buffer cuts, never splits an
 * escape. */
static void test_shown_escape(void **state)
{
	(void)state;
	char b[64];
	snprintf(b, sizeof b, "plain text");
	shown_escape(b, sizeof b);
	assert_string_equal(b, "plain text");
	snprintf(b, sizeof b, "a\033]0;t\007b\x7f\n");
	shown_escape(b, sizeof b);
	assert_string_equal(b, "a\\x1b]0;t\\x07b\\x7f\\x0a");
	shown_escape(b, sizeof b);
	assert_string_equal(b, "a\\x1b]0;t\\x07b\\x7f\\x0a");
	char small[8];
	snprintf(small, sizeof small, "ab\033cdef");
	shown_escape(small, sizeof small);
	assert_string_equal(small, "ab\\x1bc");
	snprintf(small, sizeof small, "abcd\033e");
	shown_escape(small, sizeof small);
	assert_string_equal(small, "abcd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_json_number),
		cmocka_unit_test(test_sysfile),
		cmocka_unit_test(test_clock_and_div),
		cmocka_unit_test(test_xalloc),
		cmocka_unit_test(test_shown_escape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

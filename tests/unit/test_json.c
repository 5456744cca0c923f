/* test_json.c - the recording reader: good documents become the tree they
 * spell, bad ones are refused with the line and column of the fault. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "benchtop/json.h"

static struct json *parse(const char *s)
{
	struct json_error e;
	struct json *v = json_parse(s, strlen(s), &e);
	if (!v)
		fail_msg("\"%s\" refused: %d:%d %s", s, e.line, e.column, e.msg);
	return v;
}

/* The document is refused at line:col with a message containing `want`. */
static void bad(const char *s, int line, int col, const char *want)
{
	struct json_error e;
	struct json *v = json_parse(s, strlen(s), &e);
	if (v) {
		json_free(v);
		fail_msg("\"%s\" accepted", s);
	}
	if (e.line != line || e.column != col || !strstr(e.msg, want))
		fail_msg("\"%s\": got %d:%d \"%s\", want %d:%d \"%s\"", s, e.line, e.column, e.msg,
		         line, col, want);
}

static void test_scalars(void **state)
{
	(void)state;
	struct json *v = parse(" 42 ");
	assert_int_equal(json_type(v), JSON_NUMBER);
	assert_true(json_num(v, 0) == 42);
	json_free(v);
	v = parse("-0.5e2");
	assert_true(json_num(v, 0) == -50);
	json_free(v);
	v = parse("1E+3");
	assert_true(json_num(v, 0) == 1000);
	json_free(v);
	v = parse("true");
	assert_true(json_bool(v, false));
	json_free(v);
	v = parse("false");
	assert_false(json_bool(v, true));
	json_free(v);
	v = parse("null");
	assert_true(json_is_null(v));
	assert_true(json_num(v, -1) == -1);
	assert_string_equal(json_str(v, "def"), "def");
	json_free(v);
}

static void test_sample_record(void **state)
{
	(void)state;
	struct json *v = parse("{\"type\":\"sample\",\"t\":0.505652,\"cpus\":[{\"id\":0,\"user\":30.04,"
	                       "\"khz\":null,\"governor\":null},{\"id\":1,\"khz\":800000}],"
	                       "\"disk\":{\"device\":\"vda\",\"dirty\":1132404736},\"extra\":[[],{}]}");
	assert_int_equal(json_type(v), JSON_OBJECT);
	assert_int_equal(json_len(v), 5);
	assert_string_equal(json_key(v, 0), "type");
	assert_string_equal(json_str(json_get(v, "type"), ""), "sample");
	const struct json *cpus = json_get(v, "cpus");
	assert_int_equal(json_len(cpus), 2);
	assert_true(json_num(json_get(json_at(cpus, 0), "user"), -1) == 30.04);
	assert_true(json_is_null(json_get(json_at(cpus, 0), "khz")));
	assert_true(json_num(json_get(json_at(cpus, 1), "khz"), -1) == 800000);
	assert_null(json_at(cpus, 2));
	assert_null(json_get(json_at(cpus, 5), "khz"));
	assert_false(json_is_null(json_get(v, "missing")));
	assert_true(json_num(json_get(json_get(v, "disk"), "dirty"), 0) == 1132404736.0);
	assert_int_equal(json_len(json_at(json_get(v, "extra"), 0)), 0);
	assert_int_equal(json_type(json_at(json_get(v, "extra"), 1)), JSON_OBJECT);
	json_free(v);
	/* A repeated member: the last one counts. */
	v = parse("{\"a\":1,\"a\":2}");
	assert_true(json_num(json_get(v, "a"), 0) == 2);
	json_free(v);
}

static void test_strings(void **state)
{
	(void)state;
	struct json *v = parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"");
	assert_string_equal(json_str(v, NULL), "a\"b\\c/d\b\f\n\r\t");
	json_free(v);
	v = parse("\"\\u00e9\\u20AC\\ud83d\\ude00 \xc3\xa9\"");
	assert_string_equal(json_str(v, NULL), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xc3\xa9");
	json_free(v);
	v = parse("\"a\\u0000b\"");
	assert_int_equal(json_strlen(v), 3);
	assert_memory_equal(json_str(v, NULL), "a\0b", 3);
	json_free(v);
	v = parse("\"\"");
	assert_string_equal(json_str(v, NULL), "");
	json_free(v);
}

static void test_bad_documents(void **state)
{
	(void)state;
	bad("", 1, 1, "end of input");
	bad("{\"a\":1,}", 1, 8, "member name");
	bad("[1,2,]", 1, 6, "expected a value");
	bad("[1 2]", 1, 4, "expected ',' or ']'");
	bad("{\"a\" 1}", 1, 6, "expected ':'");
	bad("{a:1}", 1, 2, "member name");
	bad("01", 1, 1, "leading zero");
	bad("1.", 1, 3, "digit after '.'");
	bad("1e", 1, 3, "exponent");
	bad("-", 1, 2, "digit");
	bad("+1", 1, 1, "expected a value");
	bad("tru", 1, 1, "expected true");
	bad("nul", 1, 1, "expected null");
	bad("1 2", 1, 3, "after the value");
	bad("\"abc", 1, 5, "unterminated");
	bad("\"a\tb\"", 1, 3, "control character");
	bad("\"\\x\"", 1, 2, "unknown escape");
	bad("\"\\u12G4\"", 1, 4, "hex digits");
	bad("\"\\udc00\"", 1, 2, "lone low surrogate");
	bad("\"\\ud800x\"", 1, 2, "without a low");
	bad("\"\xc3\"", 1, 2, "UTF-8");
	bad("\"\xc0\xaf\"", 1, 2, "UTF-8");
	bad("\"\xed\xa0\x80\"", 1, 2, "UTF-8");
	bad("NaN", 1, 1, "expected a value");
	bad("{\n  \"a\": [1,\n   x]\n}", 3, 4, "found 'x'");
	bad("[", 1, 2, "end of input");
	bad("{\"a\":1", 1, 7, "expected ',' or '}'");
}

static void test_depth(void **state)
{
	(void)state;
	char deep[2 * JSON_MAX_DEPTH + 3];
	for (int i = 0; i < JSON_MAX_DEPTH; i++) {
		deep[i] = '[';
		deep[JSON_MAX_DEPTH + i] = ']';
	}
	deep[2 * JSON_MAX_DEPTH] = 0;
	struct json *v = parse(deep);
	json_free(v);
	char deeper[2 * JSON_MAX_DEPTH + 3];
	memset(deeper, '[', JSON_MAX_DEPTH + 1);
	memset(deeper + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	deeper[2 * JSON_MAX_DEPTH + 2] = 0;
	bad(deeper, 1, JSON_MAX_DEPTH + 1, "nested deeper");
}

/* A decimal comma locale must not change how numbers are read. */
static void test_locale(void **state)
{
	(void)state;
	if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
		skip();
	struct json *v = parse("[0.25]");
	setlocale(LC_NUMERIC, "C");
	assert_true(json_num(json_at(v, 0), 0) == 0.25);
	json_free(v);
}

static void test_null_tolerant(void **state)
{
	(void)state;
	assert_int_equal(json_type(NULL), JSON_NULL);
	assert_null(json_get(NULL, "a"));
	assert_int_equal(json_len(NULL), 0);
	assert_null(json_key(NULL, 0));
	assert_true(json_num(NULL, 7) == 7);
	assert_false(json_is_null(NULL));
	json_free(NULL);
	assert_null(json_parse("x", 1, NULL));
}

/* The streaming writer: commas, colons and quotes where they belong at
 * every depth, keys and strings escaped, NaN as null, fixed and exact
 * numbers as asked; read back by the reader. */
static void test_writer(void **state)
{
	(void)state;
	char *t = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&t, &len);
	assert_non_null(fp);
	struct jw w;
	jw_begin(&w, fp);
	jw_obj(&w, NULL);
	jw_str(&w, "text", "a \"quoted\"\tline\n");
	jw_int(&w, "pid", 4242);
	jw_num(&w, "nan", NAN);
	jw_fix(&w, "secs", 1.23456, 2);
	jw_fix(&w, "inf", INFINITY, 1);
	jw_uint(&w, "bytes", 18446744073709551615ull);
	jw_bool(&w, "ok", false);
	jw_nstr(&w, "none", NULL);
	jw_str(&w, "empty", NULL);
	jw_obj(&w, "after");
	jw_str(&w, "12", "0-1");
	jw_obj(&w, "inner");
	jw_end(&w);
	jw_end(&w);
	jw_arr(&w, "list");
	jw_int(&w, NULL, 1);
	jw_obj(&w, NULL);
	jw_end(&w);
	jw_arr(&w, NULL);
	jw_end(&w);
	jw_str(&w, NULL, "x");
	jw_end(&w);
	jw_str(&w, "we\"ird", "k");
	jw_end(&w);
	jw_end(&w);                  /* one too many: ignored */
	fclose(fp);
	assert_string_equal(t, "{\"text\":\"a \\\"quoted\\\"\\tline\\n\",\"pid\":4242,\"nan\":null,"
	                       "\"secs\":1.23,\"inf\":null,\"bytes\":18446744073709551615,\"ok\":false,"
	                       "\"none\":null,\"empty\":\"\",\"after\":{\"12\":\"0-1\",\"inner\":{}},"
	                       "\"list\":[1,{},[],\"x\"],\"we\\\"ird\":\"k\"}");
	struct json_error err;
	struct json *j = json_parse(t, len, &err);
	assert_non_null(j);
	assert_string_equal(json_key(j, 0), "text");
	assert_string_equal(json_str(json_get(j, "text"), ""), "a \"quoted\"\tline\n");
	assert_true(json_num(json_get(j, "pid"), 0) == 4242);
	assert_true(json_is_null(json_get(j, "nan")));
	assert_false(json_bool(json_get(j, "ok"), true));
	assert_string_equal(json_str(json_get(json_get(j, "after"), "12"), ""), "0-1");
	assert_int_equal(json_len(json_get(j, "list")), 4);
	assert_string_equal(json_str(json_get(j, "we\"ird"), ""), "k");
	free(t);
	/* a parsed value written back, inside a writer's object */
	t = NULL;
	fp = open_memstream(&t, &len);
	jw_begin(&w, fp);
	jw_obj(&w, NULL);
	jw_value(&w, "copy", json_get(j, "after"));
	jw_value(&w, "missing", NULL);
	jw_end(&w);
	fclose(fp);
	assert_string_equal(t, "{\"copy\":{\"12\":\"0-1\",\"inner\":{}},\"missing\":null}");
	free(t);
	json_free(j);
	/* members into C types, as a recording is read: out of range is def */
	const char *doc = "{\"i\":42,\"big\":1e300,\"s\":\"abcdef\",\"n\":\"7\"}";
	j = json_parse(doc, strlen(doc), &err);
	assert_non_null(j);
	assert_int_equal(json_get_int(j, "i", -1), 42);
	assert_int_equal(json_get_int(j, "big", -1), -1);
	assert_int_equal(json_get_int(j, "n", -1), -1);
	assert_int_equal(json_get_int(j, "none", 5), 5);
	assert_int_equal(json_get_long(j, "big", -2), -2);
	assert_int_equal(json_get_long(j, "i", -2), 42);
	char small[4];
	json_get_str(j, "s", small, sizeof small);
	assert_string_equal(small, "abc");
	json_get_str(j, "i", small, sizeof small);
	assert_string_equal(small, "");
	json_free(j);
	/* long arrays (a sample of thousands of processes): a comma between
	 * every two values, however many */
	t = NULL;
	fp = open_memstream(&t, &len);
	jw_begin(&w, fp);
	jw_arr(&w, NULL);
	for (int i = 0; i < 1000; i++) {
		jw_obj(&w, NULL);
		jw_int(&w, "pid", i);
		jw_end(&w);
	}
	jw_end(&w);
	fclose(fp);
	j = json_parse(t, len, &err);
	assert_non_null(j);
	assert_int_equal(json_len(j), 1000);
	assert_true(json_num(json_get(json_at(j, 999), "pid"), -1) == 999);
	json_free(j);
	free(t);
	/* top-level values follow one another (records, one a line) */
	t = NULL;
	fp = open_memstream(&t, &len);
	jw_begin(&w, fp);
	jw_int(&w, NULL, 1);
	jw_int(&w, NULL, 2);
	fclose(fp);
	assert_string_equal(t, "12");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_sample_record),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_null_tolerant),
		cmocka_unit_test(test_writer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_outfile.c - files benchtop writes for the user (outfile.h) in a
 * temp directory: a new file appears only when published, an existing one
 * is refused without force and replaced with it, a link at the name is
 * replaced and its target left alone, a FIFO is refused or written in
 * place, discard removes only what benchtop made; and the regular-file
 * reader (sysfile.h) refuses a FIFO without blocking; infinite JSON
 * numbers are refused. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "benchtop/json.h"
#include "benchtop/outfile.h"
#include "benchtop/sysfile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test_outfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void slurp(const char *p, char *buf, size_t len)
{
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

static int entries(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "exit $(ls -A '%s' | wc -l)", dir);
	return WEXITSTATUS(system(cmd));
}

static void write_one(const char *p, unsigned fl, const char *text, int want)
{
	struct outfile o;
	char msg[256];
	int rc = outfile_open(&o, "-o", p, fl, msg, sizeof msg);
	if (rc) {
		assert_int_equal(rc, want);
		return;
	}
	assert_int_equal(outfile_write_all(o.fd, text, strlen(text)), 0);
	assert_int_equal(outfile_publish(&o, fl), want);
	assert_int_equal(outfile_close(&o), 0);
}

static void test_new_and_existing(void **state)
{
	(void)state;
	char p[128], buf[64];
	path(p, sizeof p, "a.jsonl");
	struct outfile o;
	char msg[256];
	assert_int_equal(outfile_open(&o, "-o", p, 0, msg, sizeof msg), 0);
	assert_int_equal(access(p, F_OK), -1);   /* not there until published */
	outfile_discard(&o);
	assert_int_equal(entries(), 0);
	write_one(p, 0, "one\n", 0);
	slurp(p, buf, sizeof buf);
	assert_string_equal(buf, "one\n");
	write_one(p, 0, "two\n", -EEXIST);
	slurp(p, buf, sizeof buf);
	assert_string_equal(buf, "one\n");
	write_one(p, OUTFILE_FORCE, "three\n", 0);
	slurp(p, buf, sizeof buf);
	assert_string_equal(buf, "three\n");
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void test_link_replaced_not_followed(void **state)
{
	(void)state;
	char p[128], victim[128], buf[64];
	path(p, sizeof p, "run.jsonl");
	path(victim, sizeof victim, "victim");
	FILE *f = fopen(victim, "w");
	fputs("precious\n", f);
	fclose(f);
	assert_int_equal(symlink(victim, p), 0);
	write_one(p, 0, "x\n", -EEXIST);
	write_one(p, OUTFILE_FORCE, "mine\n", 0);
	struct stat st;
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	slurp(victim, buf, sizeof buf);
	assert_string_equal(buf, "precious\n");
	slurp(p, buf, sizeof buf);
	assert_string_equal(buf, "mine\n");
	unlink(p);
	unlink(victim);
}

static void test_fifo_and_dir(void **state)
{
	(void)state;
	char p[128], msg[256];
	struct outfile o;
	path(p, sizeof p, "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(outfile_open(&o, "-o", p, OUTFILE_FORCE, msg, sizeof msg), -EPERM);
	assert_non_null(strstr(msg, "FIFO"));
	/* a stream without a reader: refused at once, not waited on */
	assert_int_equal(outfile_open(&o, "-o", p, OUTFILE_STREAM, msg, sizeof msg), -ENXIO);
	int r = open(p, O_RDONLY | O_NONBLOCK);
	assert_true(r >= 0);
	assert_int_equal(outfile_open(&o, "-o", p, OUTFILE_STREAM, msg, sizeof msg), 0);
	assert_true(o.in_place);
	assert_int_equal(outfile_write_all(o.fd, "hi\n", 3), 0);
	outfile_discard(&o);                      /* never removes a FIFO */
	struct stat st;
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	char buf[8] = "";
	assert_int_equal(read(r, buf, sizeof buf), 3);
	close(r);
	/* the regular-file reader refuses it without blocking */
	assert_int_equal(sysfile_open_regular(AT_FDCWD, p), -EINVAL);
	unlink(p);
	assert_int_equal(outfile_open(&o, "-o", dir, OUTFILE_FORCE, msg, sizeof msg), -EISDIR);
}

static void test_stream_cut_back(void **state)
{
	(void)state;
	char p[128], msg[256];
	struct outstream s;
	path(p, sizeof p, "s.jsonl");
	assert_int_equal(outstream_open(&s, "-o", p, OUTFILE_STREAM, msg, sizeof msg), 0);
	assert_int_equal(outstream_publish(&s, 0, msg, sizeof msg), 0);
	fputs("{\"a\":1}\n", s.fp);
	assert_int_equal(outstream_check(&s), 0);
	assert_int_equal(outstream_close(&s), 0);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 8);
	unlink(p);
}

static void test_json_infinity(void **state)
{
	(void)state;
	struct json_error e;
	const char *t = "{\"t\":1e999}";
	assert_null(json_parse(t, strlen(t), &e));
	assert_int_equal(e.column, 6);
	t = "[-1e400]";
	assert_null(json_parse(t, strlen(t), &e));
	t = "[1e308]";
	struct json *j = json_parse(t, strlen(t), &e);
	assert_non_null(j);
	json_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_existing),
		cmocka_unit_test(test_link_replaced_not_followed),
		cmocka_unit_test(test_fifo_and_dir),
		cmocka_unit_test(test_stream_cut_back),
		cmocka_unit_test(test_json_infinity),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_engine.c - benchtop's own I/O engines, run for real on files in a
 * scratch directory: every copy engine copies exactly and counts exactly,
 * write/rewrite/read/seek/jobs do and count what they say, engines loop
 * in their processes (passes counted, files from offset 0), benchtop's own
 * files go at cleanup (unless keep), user files are never overwritten
 * without force, and a small tmpfs shows the free-space refusal, a disk
 * that fills mid-run and the O_DIRECT refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchtop/engine.h"

#define MIB (1u << 20)

static char top[64];        /* this test's directory */
static char scratch[96];    /* benchtop's scratch directory inside it */
static char msg[512];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int setup(void **state)
{
	(void)state;
	strcpy(top, "/var/tmp/bt-engine-test.XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(scratch, sizeof scratch, "%s/scratch", top);
	return mkdir(scratch, 0700);
}

static char mnt[128];

static int teardown(void **state)
{
	(void)state;
	if (mnt[0])
		umount2(mnt, MNT_DETACH);
	mnt[0] = '\0';
	return nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static struct wl_spec spec(enum wl_kind kind)
{
	return (struct wl_spec){ .kind = kind, .text = "test", .bs = 128 << 10, .jobs = 1,
	                         .sync = SYNC_END, .procs = 3, .seekers = 3 };
}

/* A file of n bytes of a pattern that differs at every offset class. */
static void make_file(const char *path, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char *buf = malloc(MIB);
	uint32_t x = 12345;

	assert_true(fd >= 0 && buf);
	while (n > 0) {
		size_t k = n < MIB ? n : MIB;

		for (size_t i = 0; i < k; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (char)(x >> 16);
		}
		assert_int_equal(write(fd, buf, k), (ssize_t)k);
		n -= k;
	}
	free(buf);
	close(fd);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Byte-identical files. */
static void assert_same(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	char *x = malloc(MIB), *y = malloc(MIB);
	size_t n, m;

	assert_true(fa && fb && x && y);
	do {
		n = fread(x, 1, MIB, fa);
		m = fread(y, 1, MIB, fb);
		assert_int_equal(n, m);
		assert_memory_equal(x, y, n);
	} while (n > 0);
	fclose(fa);
	fclose(fb);
	free(x);
	free(y);
}

/* Prepare, run every job to its end, return the first job's result. */
static int run(const struct wl_spec *w, struct engine_plan *plan, struct engine_counters **cp)
{
	struct engine_counters *c;
	int rc = engine_prepare(w, scratch, false, plan, msg, sizeof msg), r = 0;

	if (rc)
		fail_msg("prepare %s: %s", w->text, msg);
	c = engine_counters_new(plan->jobs);
	assert_non_null(c);
	for (int j = 0; j < plan->jobs; j++) {
		int e = engine_run_job(w, plan, j, &c[j]);

		if (e && !r)
			r = e;
	}
	*cp = c;
	return r;
}

/* ---- copy engines ---- */

struct eng { const char *name; enum copy_engine e; int procs; };
static const struct eng engines[] = {
	{ "rw", ENG_RW, 0 }, { "cfr", ENG_CFR, 0 }, { "sendfile", ENG_SENDFILE, 0 },
	{ "splice", ENG_SPLICE, 0 }, { "mmap", ENG_MMAP, 0 },
	{ "pipe2", ENG_PIPE, 2 }, { "pipe3", ENG_PIPE, 3 },
};

static void copy_all_engines(size_t size, uint64_t bs)
{
	char src[160], dst[160];

	snprintf(src, sizeof src, "%s/src-%zu", top, size);
	make_file(src, size);
	for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
		struct wl_spec w = spec(WL_COPY);
		struct engine_plan plan;
		struct engine_counters *c;

		snprintf(dst, sizeof dst, "%s/dst-%s-%zu", top, engines[i].name, size);
		w.src = src, w.dst = dst, w.bs = bs, w.engine = engines[i].e;
		w.procs = engines[i].procs, w.text = (char *)engines[i].name;
		if (run(&w, &plan, &c) != 0)
			fail_msg("%s on %zu bytes: %s", engines[i].name, size, c->msg);
		assert_int_equal(plan.nroles, engines[i].e == ENG_PIPE ? engines[i].procs : 1);
		assert_same(src, dst);
		assert_int_equal(c->bytes, size);
		assert_int_equal(c->rbytes, size);
		assert_int_equal(c->phase, 3);
		assert_int_equal(c->err, 0);
		assert_true(c->calls >= 1);
		engine_cleanup(&w, &plan, false, false);
		assert_true(exists(dst));          /* the user's result stays */
		assert_int_equal(unlink(dst), 0);
		engine_counters_free(c, plan.jobs);
		engine_plan_free(&plan);
	}
}

static void test_copy_empty(void **s) { (void)s; copy_all_engines(0, 4096); }
static void test_copy_one_byte(void **s) { (void)s; copy_all_engines(1, 4096); }
static void test_copy_odd_size(void **s) { (void)s; copy_all_engines(300001, 4096); }
static void test_copy_100mib(void **s) { (void)s; copy_all_engines(100 * MIB, 128 << 10); }

/* rw with a bs smaller than a pipe's buffer: calls are read+write pairs. */
static void test_copy_counts_calls(void **s)
{
	struct wl_spec w = spec(WL_COPY);
	struct engine_plan plan;
	struct engine_counters *c;
	char src[160], dst[160];

	(void)s;
	snprintf(src, sizeof src, "%s/calls-src", top);
	snprintf(dst, sizeof dst, "%s/calls-dst", top);
	make_file(src, 10 * 4096);
	w.src = src, w.dst = dst, w.bs = 4096, w.engine = ENG_RW, w.sync = SYNC_NONE;
	assert_int_equal(run(&w, &plan, &c), 0);
	/* 10 reads of data + the read at EOF + 10 writes */
	assert_int_equal(c->calls, 21);
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

/* sync=end: the fsync runs inside the engine, between the phase marks 2
 * (syncing) and 3 (done), so the engine's own span (phase 0 to 3) and the
 * job's run, which ends when its processes exit, both contain the flush,
 * like `time sh -c "cp a b; sync"`.  Every copy engine; sync=none has no
 * syncing phase.  (Order of the marks only: no timing is asserted.) */
static void test_copy_sync_end_counted(void **s)
{
	char src[160], dst[160];

	(void)s;
	snprintf(src, sizeof src, "%s/sync-src", top);
	make_file(src, 10 * 4096);
	for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
		for (int k = 0; k < 2; k++) {
			struct wl_spec w = spec(WL_COPY);
			struct engine_plan plan;
			struct engine_counters *c;

			snprintf(dst, sizeof dst, "%s/sync-dst-%s-%d", top, engines[i].name, k);
			w.src = src, w.dst = dst, w.bs = 4096, w.engine = engines[i].e;
			w.procs = engines[i].procs, w.sync = k ? SYNC_END : SYNC_NONE;
			if (run(&w, &plan, &c) != 0)
				fail_msg("%s: %s", engines[i].name, c->msg);
			assert_int_equal(c->phase, 3);
			assert_true(c->phase_t[0] > 0);
			if (k) {
				assert_true(c->phase_t[2] >= c->phase_t[0]);
				assert_true(c->phase_t[3] >= c->phase_t[2]);
				assert_int_equal(c->phase_bytes[2], 10 * 4096);
			} else {
				assert_true(c->phase_t[2] == 0);
				assert_true(c->phase_t[3] >= c->phase_t[0]);
			}
			if (engines[i].e == ENG_RW)   /* 11 reads, 10 writes, the fsync */
				assert_int_equal(c->calls, 21 + (uint64_t)k);
			engine_counters_free(c, 1);
			engine_plan_free(&plan);
		}
	}
}

static void test_copy_direct_and_dsync(void **s)
{
	char src[160], dst[160];

	(void)s;
	snprintf(src, sizeof src, "%s/d-src", top);
	make_file(src, 300001);
	for (int k = 0; k < 2; k++) {
		struct wl_spec w = spec(WL_COPY);
		struct engine_plan plan;
		struct engine_counters *c;

		snprintf(dst, sizeof dst, "%s/d-dst%d", top, k);
		w.src = src, w.dst = dst, w.bs = 8192, w.engine = k ? ENG_PIPE : ENG_RW;
		w.direct = k == 0, w.sync = k ? SYNC_EACH : SYNC_END;
		if (run(&w, &plan, &c) != 0)
			fail_msg("%s: %s", k ? "sync=each" : "direct", c->msg);
		assert_same(src, dst);
		assert_int_equal(c->bytes, 300001);
		engine_counters_free(c, 1);
		engine_plan_free(&plan);
	}
}

static void test_direct_needs_aligned_bs(void **s)
{
	struct wl_spec w = spec(WL_WRITE);
	struct engine_plan plan;

	(void)s;
	w.path = top, w.bs = 5000, w.direct = true, w.size = MIB;
	assert_int_equal(engine_prepare(&w, scratch, false, &plan, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "bs=5000"));
}

/* ---- the user's files ---- */

static void test_dst_exists_refused_then_forced(void **s)
{
	struct wl_spec w = spec(WL_COPY);
	struct engine_plan plan;
	struct engine_counters *c;
	char src[160], dst[160], keep[160];

	(void)s;
	snprintf(src, sizeof src, "%s/e-src", top);
	snprintf(dst, sizeof dst, "%s/e-dst", top);
	snprintf(keep, sizeof keep, "%s/e-orig", top);
	make_file(src, 70000);
	make_file(dst, 1234);
	make_file(keep, 1234);
	w.src = src, w.dst = dst;
	assert_int_equal(engine_prepare(&w, scratch, false, &plan, msg, sizeof msg), -EEXIST);
	assert_non_null(strstr(msg, dst));
	assert_non_null(strstr(msg, "--force"));
	assert_same(dst, keep);

	assert_int_equal(engine_prepare(&w, scratch, true, &plan, msg, sizeof msg), 0);
	c = engine_counters_new(1);
	assert_int_equal(engine_run_job(&w, &plan, 0, c), 0);
	assert_same(src, dst);
	engine_cleanup(&w, &plan, false, false);
	assert_true(exists(dst));
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

static void test_src_missing_or_same(void **s)
{
	struct wl_spec w = spec(WL_COPY);
	struct engine_plan plan;
	char src[160];

	(void)s;
	snprintf(src, sizeof src, "%s/nope", top);
	w.src = src;
	assert_int_equal(engine_prepare(&w, scratch, false, &plan, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, src));
	make_file(src, 10);
	w.dst = src;
	assert_int_equal(engine_prepare(&w, scratch, true, &plan, msg, sizeof msg), -EINVAL);
	assert_int_equal(file_size(src), 10);
}

/* ---- invented files ---- */

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_default_source(void **s)
{
	char *path = NULL;
	char *buf = malloc(2 * MIB);
	FILE *fp;

	(void)s;
	assert_int_equal(engine_make_source(scratch, 8 * MIB, &path, msg, sizeof msg), 0);
	assert_int_equal(file_size(path), 8 * MIB);
	fp = fopen(path, "rb");
	assert_int_equal(fread(buf, 1, 2 * MIB, fp), 2 * MIB);
	fclose(fp);
	/* not zeros, and not one block repeated */
	assert_true(memcmp(buf, buf + MIB, MIB) != 0);
	assert_true(memcmp(buf, buf + 4096, 4096) != 0);
	for (size_t i = 0, z = 0; i < 2 * MIB; i++)
		if (buf[i] == 0 && ++z > MIB / 64)
			fail_msg("too many zero bytes");
	unlink(path);
	free(path);
	free(buf);
}

static void test_default_workload_copy(void **s)
{
	struct wl_spec w = spec(WL_COPY);
	struct engine_plan plan;
	struct engine_counters *c;
	char *src, *dst;

	(void)s;
	w.engine = ENG_PIPE, w.procs = 3, w.is_default = true, w.size = 8 * MIB;
	assert_int_equal(run(&w, &plan, &c), 0);
	src = plan.job[0].src, dst = plan.job[0].dst;
	assert_true(plan.job[0].src_invented && plan.job[0].dst_invented);
	assert_int_equal(plan.nroles, 3);
	assert_int_equal(plan.roles[2], ROLE_CONTROL);
	assert_string_equal(engine_role_name(plan.roles[2]), "control");
	assert_same(src, dst);
	assert_int_equal(c->bytes, 8 * MIB);
	assert_int_equal(count_entries(scratch), 2);
	engine_cleanup(&w, &plan, false, false);
	assert_false(exists(src));
	assert_false(exists(dst));
	assert_int_equal(count_entries(scratch), 0);
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

static void rewrite_with(uint64_t bs)
{
	struct wl_spec w = spec(WL_WRITE);
	struct engine_plan plan;
	struct engine_counters *c;
	const uint64_t size = 3 * MIB + 17;

	w.path = top, w.bs = bs, w.rewrite = true, w.size = size;
	assert_int_equal(run(&w, &plan, &c), 0);
	assert_true(plan.job[0].dst_invented);
	assert_int_equal(file_size(plan.job[0].dst), size);
	assert_int_equal(c->bytes, 2 * size);
	assert_int_equal(c->phase_bytes[1], size);
	assert_int_equal(c->phase, 3);
	assert_true(c->phase_t[1] >= c->phase_t[0] && c->phase_t[3] >= c->phase_t[1]);
	/* two passes of ceil(size/bs) writes, the sync between them, the final fsync */
	assert_int_equal(c->calls, 2 * ((size + bs - 1) / bs) + 2);
	engine_cleanup(&w, &plan, false, true);       /* keep */
	assert_true(exists(plan.job[0].dst));
	engine_cleanup(&w, &plan, false, false);
	assert_false(exists(plan.job[0].dst));
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

static void test_rewrite_5000(void **s) { (void)s; rewrite_with(5000); }
static void test_rewrite_8192(void **s) { (void)s; rewrite_with(8192); }

static void test_char_write_and_read(void **s)
{
	struct wl_spec w = spec(WL_WRITE), r = spec(WL_READ);
	struct engine_plan plan, rplan;
	struct engine_counters *c, *rc;
	char path[160], buf[64];
	FILE *fp;

	(void)s;
	snprintf(path, sizeof path, "%s/chars", top);
	w.path = path, w.unit_char = true, w.size = 100000, w.sync = SYNC_NONE;
	assert_int_equal(run(&w, &plan, &c), 0);
	assert_false(plan.job[0].dst_invented);
	assert_int_equal(file_size(path), 100000);
	assert_int_equal(c->calls, 100000);
	fp = fopen(path, "rb");
	assert_int_equal(fread(buf, 1, 28, fp), 28);
	fclose(fp);
	assert_memory_equal(buf, "abcdefghijklmnopqrstuvwxyzab", 28);

	r.path = path, r.unit_char = true;
	assert_int_equal(run(&r, &rplan, &rc), 0);
	assert_int_equal(rc->bytes, 100000);
	assert_int_equal(rc->calls, 100001);
	engine_cleanup(&w, &plan, false, false);
	engine_cleanup(&r, &rplan, false, false);
	assert_true(exists(path));                 /* the user's file stays */
	engine_counters_free(c, 1);
	engine_counters_free(rc, 1);
	engine_plan_free(&plan);
	engine_plan_free(&rplan);
}

static void test_block_read_of_invented_file(void **s)
{
	struct wl_spec r = spec(WL_READ);
	struct engine_plan plan;
	struct engine_counters *c;

	(void)s;
	r.size = 5 * MIB + 3, r.bs = 65536;
	assert_int_equal(run(&r, &plan, &c), 0);
	assert_true(plan.job[0].src_invented);
	assert_int_equal(c->bytes, 5 * MIB + 3);
	/* size= ends the pass at its last byte: no read meets the end */
	assert_int_equal(c->calls, 5 * 16 + 1);
	engine_cleanup(&r, &plan, false, false);
	assert_int_equal(count_entries(scratch), 0);
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

/* A device that never ends (/dev/zero) ends at size=. */
static void test_read_of_device_ends_at_size(void **s)
{
	struct wl_spec r = spec(WL_READ);
	struct engine_plan plan;
	struct engine_counters *c;

	(void)s;
	r.path = "/dev/zero", r.size = MIB + 5, r.bs = 4096;
	assert_int_equal(run(&r, &plan, &c), 0);
	assert_int_equal(c->bytes, MIB + 5);
	assert_int_equal(c->calls, 256 + 1);
	engine_cleanup(&r, &plan, false, false);
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

/* net: the receiver writes the whole stream into the file; with align
 * every write is align bytes (the last may be short). */
static void test_net_stream(void **s)
{
	struct wl_spec w = spec(WL_NET);
	struct engine_plan plan;
	struct engine_counters *c;
	char path[160];
	struct stat st;

	(void)s;
	snprintf(path, sizeof path, "%s/net.out", scratch);
	w.path = path, w.size = 3 * MIB + 100, w.mss = 1448, w.align = 8192;
	assert_int_equal(run(&w, &plan, &c), 0);
	assert_int_equal(plan.nroles, 2);
	assert_int_equal(plan.roles[0], ROLE_RECEIVER);
	assert_int_equal(plan.roles[1], ROLE_SENDER);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 3 * MIB + 100);
	assert_int_equal(c->bytes, 3 * MIB + 100);
	/* 384 writes of 8192 and one of 100, and the final fsync */
	assert_int_equal(c->calls, 384 + 1 + 1);
	engine_cleanup(&w, &plan, false, false);
	unlink(path);
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

static void test_seek(void **s)
{
	struct wl_spec w = spec(WL_SEEK);
	struct engine_plan plan;
	struct engine_counters *c;
	char path[160];

	(void)s;
	snprintf(path, sizeof path, "%s/seekme", top);
	make_file(path, 4 * MIB);
	w.path = path, w.bs = 4096, w.seekers = 3, w.count = 200;
	assert_int_equal(run(&w, &plan, &c), 0);
	assert_int_equal(plan.nroles, 3);
	assert_int_equal(plan.roles[1], ROLE_SEEKER);
	assert_int_equal(c->calls, 600);
	assert_int_equal(c->bytes, 600 * 4096);
	engine_cleanup(&w, &plan, false, false);
	assert_true(exists(path));
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

static void test_jobs3(void **s)
{
	struct wl_spec w = spec(WL_WRITE), cp = spec(WL_COPY);
	struct engine_plan plan, cplan;
	struct engine_counters *c, *cc;
	char dst[160], name[200];

	(void)s;
	w.jobs = 3, w.size = MIB + 1;
	assert_int_equal(run(&w, &plan, &c), 0);
	assert_int_equal(count_entries(scratch), 3);
	for (int j = 0; j < 3; j++) {
		assert_int_equal(file_size(plan.job[j].dst), MIB + 1);
		assert_int_equal(c[j].bytes, MIB + 1);
	}
	engine_cleanup(&w, &plan, false, true);
	assert_int_equal(count_entries(scratch), 3);
	engine_cleanup(&w, &plan, false, false);
	assert_int_equal(count_entries(scratch), 0);

	/* a named result with several jobs: PATH.1 .. PATH.3, which stay */
	snprintf(dst, sizeof dst, "%s/many", top);
	cp.jobs = 3, cp.dst = dst, cp.size = 2 * MIB, cp.engine = ENG_SPLICE;
	assert_int_equal(run(&cp, &cplan, &cc), 0);
	for (int j = 0; j < 3; j++) {
		snprintf(name, sizeof name, "%s.%d", dst, j + 1);
		assert_string_equal(cplan.job[j].dst, name);
		assert_same(cplan.job[j].src, name);
		assert_int_equal(cc[j].bytes, 2 * MIB);
	}
	engine_cleanup(&cp, &cplan, false, false);
	assert_int_equal(count_entries(scratch), 0);
	snprintf(name, sizeof name, "%s.3", dst);
	assert_true(exists(name));
	engine_counters_free(c, 3);
	engine_counters_free(cc, 3);
	engine_plan_free(&plan);
	engine_plan_free(&cplan);
}

/* A writer stopped by SIGKILL leaves a partial file that failed cleanup
 * removes, and its control process is not left behind. */
static void test_killed_pipe_copy(void **s)
{
	struct wl_spec w = spec(WL_COPY);
	struct engine_plan plan;
	struct engine_counters *c = engine_counters_new(1);
	pid_t pids[8];
	int st;

	(void)s;
	w.engine = ENG_PIPE, w.procs = 3, w.size = 64 * MIB, w.bs = 4096;
	assert_int_equal(engine_prepare(&w, scratch, false, &plan, msg, sizeof msg), 0);
	assert_int_equal(engine_spawn(&w, &plan, 0, c, pids, NULL, NULL), 0);
	kill(pids[1], SIGKILL);
	kill(pids[0], SIGKILL);
	assert_int_equal(waitpid(pids[0], &st, 0), pids[0]);
	assert_int_equal(waitpid(pids[1], &st, 0), pids[1]);
	assert_true(WIFSIGNALED(st));
	/* the control process sleeps until told; the parent ends it */
	kill(pids[2], SIGKILL);
	assert_int_equal(waitpid(pids[2], &st, 0), pids[2]);
	engine_cleanup(&w, &plan, true, false);
	assert_int_equal(count_entries(scratch), 0);
	engine_counters_free(c, 1);
	engine_plan_free(&plan);
}

/* ---- looping inside the processes ---- */

/* Spawn job 0 with plan->loop, wait for 3 passes, check its processes are
 * the same ones all along (alive, never reaped), stop them with SIGTERM. */
static void loop_three_passes(const struct wl_spec *w, struct engine_plan *plan,
                              struct engine_counters *c)
{
	pid_t pids[8];
	int st;

	plan->loop = true;
	assert_int_equal(engine_spawn(w, plan, 0, c, pids, NULL, NULL), 0);
	for (int i = 0; i < 3000 && __atomic_load_n(&c->passes, __ATOMIC_RELAXED) < 3; i++)
		usleep(10000);
	assert_true(c->passes >= 3);
	for (int r = 0; r < plan->nroles; r++)
		assert_int_equal(waitpid(pids[r], &st, WNOHANG), 0);  /* still running */
	assert_int_equal(c->done, 0);
	assert_int_equal(c->err, 0);
	for (int r = 0; r < plan->nroles; r++)
		kill(pids[r], SIGTERM);
	for (int r = 0; r < plan->nroles; r++)
		assert_int_equal(waitpid(pids[r], &st, 0), pids[r]);
}

/* Every copy engine loops in the same processes: passes are counted, bytes
 * keep growing, and after the passes the destination is still the copy. */
static void test_copy_engines_loop(void **s)
{
	char src[160], dst[160];

	(void)s;
	snprintf(src, sizeof src, "%s/src-loop", top);
	make_file(src, 3 * MIB + 5);
	for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
		struct wl_spec w = spec(WL_COPY);
		struct engine_plan plan;
		struct engine_counters *c = engine_counters_new(1);

		snprintf(dst, sizeof dst, "%s/dst-loop-%s", top, engines[i].name);
		w.src = src, w.dst = dst, w.bs = 64 << 10, w.engine = engines[i].e;
		w.procs = engines[i].procs, w.text = (char *)engines[i].name;
		assert_int_equal(engine_prepare(&w, scratch, false, &plan, msg, sizeof msg), 0);
		loop_three_passes(&w, &plan, c);
		assert_true(c->bytes >= 3ull * (3 * MIB + 5));
		assert_int_equal(file_size(dst), 3 * MIB + 5);
		assert_same(src, dst);
		engine_cleanup(&w, &plan, false, false);
		unlink(dst);
		engine_counters_free(c, 1);
		engine_plan_free(&plan);
	}
}

/* write and read loop too: the same file, from offset 0, pass after pass. */
static void test_write_and_read_loop(void **s)
{
	struct wl_spec w = spec(WL_WRITE), r = spec(WL_READ);
	struct engine_plan plan;
	struct engine_counters *c = engine_counters_new(1);
	char path[160];

	(void)s;
	w.size = 2 * MIB, w.bs = 4096;
	assert_int_equal(engine_prepare(&w, scratch, false, &plan, msg, sizeof msg), 0);
	loop_three_passes(&w, &plan, c);
	assert_true(c->bytes >= 3ull * 2 * MIB);
	assert_int_equal(file_size(plan.job[0].dst), 2 * MIB);  /* overwritten, not appended */
	engine_cleanup(&w, &plan, false, false);
	engine_plan_free(&plan);
	memset(c, 0, sizeof *c);
	snprintf(path, sizeof path, "%s/read-loop", top);
	make_file(path, MIB);
	r.path = path;
	assert_int_equal(engine_prepare(&r, scratch, false, &plan, msg, sizeof msg), 0);
	loop_three_passes(&r, &plan, c);
	assert_true(c->bytes >= 3ull * MIB);
	engine_cleanup(&r, &plan, false, false);
	engine_plan_free(&plan);
	engine_counters_free(c, 1);
}

/* Without loop a run is one pass. */
static void test_one_pass_without_loop(void **s)
{
	struct wl_spec w = spec(WL_WRITE);
	struct engine_plan plan;
	struct engine_counters *c;

	(void)s;
	w.size = MIB;
	assert_int_equal(run(&w, &plan, &c), 0);
	assert_int_equal(c->passes, 1);
	engine_cleanup(&w, &plan, false, false);
	engine_counters_free(c, plan.jobs);
	engine_plan_free(&plan);
}

/* ---- a small tmpfs ---- */

static bool mount_small(const char *type)
{
	snprintf(mnt, sizeof mnt, "%s/%s", top, type);
	mkdir(mnt, 0700);
	return mount(type, mnt, type, 0, "size=8m") == 0;
}

static void test_tmpfs_too_big_refused(void **s)
{
	struct wl_spec w = spec(WL_WRITE);
	struct engine_plan plan;

	(void)s;
	if (!mount_small("tmpfs"))
		skip();
	w.path = mnt, w.size = 16 * MIB;
	assert_int_equal(engine_prepare(&w, scratch, false, &plan, msg, sizeof msg), -ENOSPC);
	assert_non_null(strstr(msg, "16.0 MiB"));
	assert_non_null(strstr(msg, "tmpfs"));
	assert_int_equal(count_entries(mnt), 0);
	umount2(mnt, MNT_DETACH);
}

/* Two writes of 5 MiB each fit alone but not together: the one that runs
 * out of space fails with ENOSPC, and failed cleanup leaves nothing. */
static void test_tmpfs_fills_mid_run(void **s)
{
	struct wl_spec w = spec(WL_WRITE);
	struct engine_plan plan[2];
	struct engine_counters *c = engine_counters_new(2);
	pid_t pids[2][8];
	int st, nfail = 0;
	bool failed[2];

	(void)s;
	if (!mount_small("tmpfs"))
		skip();
	w.path = mnt, w.size = 5 * MIB, w.bs = 65536;
	/* prepared as by two runs: within one run their needs add up and
	 * the second would be refused before anything is written */
	for (int i = 0; i < 2; i++) {
		engine_space_reset();
		assert_int_equal(engine_prepare(&w, scratch, false, &plan[i], msg, sizeof msg), 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(engine_spawn(&w, &plan[i], 0, &c[i], pids[i], NULL, NULL), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(waitpid(pids[i][0], &st, 0), pids[i][0]);
		failed[i] = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	for (int i = 0; i < 2; i++) {
		if (failed[i]) {
			nfail++;
			assert_int_equal(c[i].err, ENOSPC);
			assert_non_null(strstr(c[i].msg, "full"));
			assert_non_null(strstr(c[i].msg, plan[i].job[0].dst));
		} else {
			assert_int_equal(file_size(plan[i].job[0].dst), 5 * MIB);
		}
		engine_cleanup(&w, &plan[i], failed[i], false);
		engine_plan_free(&plan[i]);
	}
	assert_true(nfail >= 1);
	assert_int_equal(count_entries(mnt), 0);
	engine_counters_free(c, 2);
	umount2(mnt, MNT_DETACH);
}

/* Within one run the needs of workloads on one file system add up: the
 * second 5 MiB write on an 8 MiB tmpfs is refused before anything is
 * written, and the message says how much all of them need. */
static void test_tmpfs_needs_add_up(void **s)
{
	struct wl_spec w = spec(WL_WRITE);
	struct engine_plan plan[2];

	(void)s;
	if (!mount_small("tmpfs"))
		skip();
	w.path = mnt, w.size = 5 * MIB;
	engine_space_reset();
	assert_int_equal(engine_prepare(&w, scratch, false, &plan[0], msg, sizeof msg), 0);
	assert_int_equal(engine_prepare(&w, scratch, false, &plan[1], msg, sizeof msg), -ENOSPC);
	assert_non_null(strstr(msg, "10.0 MiB"));
	engine_cleanup(&w, &plan[0], true, false);
	engine_plan_free(&plan[0]);
	assert_int_equal(count_entries(mnt), 0);
	engine_space_reset();
	umount2(mnt, MNT_DETACH);
}

/* tmpfs refuses O_DIRECT before Linux 6.6; later kernels accept it, and
 * then ramfs (which never has it) shows the message. */
static void test_direct_refused(void **s)
{
	static const char *const types[] = { "tmpfs", "ramfs" };
	struct wl_spec w = spec(WL_WRITE);
	struct engine_plan plan;

	(void)s;
	w.size = MIB, w.direct = true, w.bs = 4096;
	for (size_t i = 0; i < 2; i++) {
		int rc;

		if (!mount_small(types[i]))
			continue;
		w.path = mnt;
		rc = engine_prepare(&w, scratch, false, &plan, msg, sizeof msg);
		if (rc == 0) {
			engine_cleanup(&w, &plan, false, false);
			engine_plan_free(&plan);
			umount2(mnt, MNT_DETACH);
			continue;
		}
		assert_int_equal(rc, -EINVAL);
		assert_non_null(strstr(msg, types[i]));
		assert_non_null(strstr(msg, "O_DIRECT"));
		assert_int_equal(count_entries(mnt), 0);
		umount2(mnt, MNT_DETACH);
		return;
	}
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copy_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_one_byte, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_odd_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_100mib, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_counts_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_sync_end_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_direct_and_dsync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_needs_aligned_bs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dst_exists_refused_then_forced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_src_missing_or_same, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_workload_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewrite_5000, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewrite_8192, setup, teardown),
		cmocka_unit_test_setup_teardown(test_char_write_and_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_read_of_invented_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_of_device_ends_at_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seek, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs3, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_pipe_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_engines_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_and_read_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_pass_without_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tmpfs_too_big_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tmpfs_needs_add_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tmpfs_fills_mid_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

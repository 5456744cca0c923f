/* test_sample.c - the sampler: parsers against fixture files, rates across
 * a reset, and live process trees (a grandchild writing a file, a single
 * copy_file_range, a busy child, affinity), per-CPU load and the disk. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <cmocka.h>

#include "benchtop/cpulist.h"
#include "benchtop/model.h"
#include "benchtop/sample.h"
#include "../../src/kernel/sample_priv.h"  /* the exit records' reader */

#define MiB (1024u * 1024u)

static char *fixture(const char *name)
{
	static char buf[8192];
	char path[256];
	snprintf(path, sizeof path, "tests/fixtures/proc/%s", name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int ncpu(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* ---- parsers -------------------------------------------------------- */

static void test_parse_sched(void **state)
{
	(void)state;
	uint64_t m = 0;
	assert_int_equal(sample_parse_sched_migrations(fixture("sched"), &m), 0);
	assert_int_equal(m, 37);
	assert_int_equal(sample_parse_sched_migrations(fixture("sched_nomig"), &m), -1);
}

static void test_parse_disk_stat(void **state)
{
	(void)state;
	uint64_t r = 0, w = 0;
	/* the kernel's layout: right-aligned fields, reads first */
	assert_int_equal(sample_parse_disk_stat("   20146       45  2236398    12345   987654"
	                                        "     3210 77777777   654321        0\n", &r, &w), 0);
	assert_true(r == 2236398 && w == 77777777);
	assert_int_equal(sample_parse_disk_stat("1 2 3 4 5 6\n", &r, &w), -1);
	assert_int_equal(sample_parse_disk_stat("", &r, &w), -1);
	assert_int_equal(sample_parse_disk_stat("1 2 x 4 5 6 7\n", &r, &w), -1);
}

static void test_parse_schedstat(void **state)
{
	(void)state;
	uint64_t run = 0, wait = 0;
	assert_int_equal(sample_parse_schedstat(fixture("schedstat"), &run, &wait), 0);
	assert_int_equal(run, 128286012);
	assert_int_equal(wait, 166490217);
	assert_int_equal(sample_parse_schedstat("x 1 2\n", &run, &wait), -1);
	assert_int_equal(sample_parse_schedstat("12\n", &run, &wait), -1);
}

static void test_parse_io(void **state)
{
	(void)state;
	uint64_t rc, wc, rb, wb;
	assert_int_equal(sample_parse_io(fixture("io"), &rc, &wc, &rb, &wb), 0);
	assert_int_equal(rc, 1048576000);
	assert_int_equal(wc, 524288000);
	assert_int_equal(rb, 4096);
	assert_int_equal(wb, 524288000);
	assert_int_equal(sample_parse_io("rchar: 1\n", &rc, &wc, &rb, &wb), -1);
}

static void test_parse_stat(void **state)
{
	(void)state;
	struct sample_stat st;
	assert_int_equal(sample_parse_stat(fixture("stat"), &st), 0);
	assert_string_equal(st.comm, "my (odd) prog");  /* the last ')' ends it */
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 17);
	assert_int_equal(st.utime, 153);
	assert_int_equal(st.stime, 27);
	assert_int_equal(st.nthreads, 3);
	assert_int_equal(st.start, 1395162);
	assert_int_equal(st.cpu, 1);
	/* priority and nice may be negative */
	assert_int_equal(sample_parse_stat("1 (a) R 0 1 1 0 -1 0 0 0 0 0 5 6 0 0 -11 -10 1 0 9 0 0 0 0 0 0 0 0 0 0 "
	                                   "0 0 0 0 0 17 0\n", &st), 0);
	assert_int_equal(st.utime, 5);
	assert_int_equal(st.cpu, 0);
	assert_int_equal(sample_parse_stat("1 (a) R 0 1 1\n", &st), -1);  /* cut short */
	assert_int_equal(sample_parse_stat("1 a R 0\n", &st), -1);
	assert_int_equal(sample_parse_stat("1 (a very long command name here) R 0 1 1 0 -1 0 0 0 0 0 5 6 0 0 "
	                                   "20 0 1 0 9 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1\n", &st), 0);
	assert_int_equal(strlen(st.comm), MODEL_COMM_LEN - 1);
}

static void test_parse_fdinfo(void **state)
{
	(void)state;
	uint64_t pos;
	unsigned flags;
	assert_int_equal(sample_parse_fdinfo(fixture("fdinfo_wronly"), &pos, &flags), 0);
	assert_int_equal(pos, 8 * MiB);
	assert_int_equal(flags, 0100001);  /* octal: O_LARGEFILE | O_WRONLY */
	assert_int_equal(flags & O_ACCMODE, O_WRONLY);
	assert_int_equal(sample_parse_fdinfo(fixture("fdinfo_rdwr"), &pos, &flags), 0);
	assert_int_equal(pos, 0);
	assert_int_equal(flags & O_ACCMODE, O_RDWR);
	assert_true(flags & O_CLOEXEC);
	assert_int_equal(sample_parse_fdinfo(fixture("fdinfo_noflags"), &pos, &flags), -1);
}

static void test_rate_reset(void **state)
{
	(void)state;
	assert_true(sample_rate(1000, 3000, 2.0) == 1000.0);
	assert_true(sample_rate(3000, 1000, 2.0) == 0.0);  /* went backwards */
	assert_true(sample_rate(5, 5, 1.0) == 0.0);
	assert_true(sample_rate(0, 10, 0.0) == 0.0);
}

/* ---- live helpers --------------------------------------------------- */

struct rig {
	struct sampler *sp;
	struct snapshot *s;
};

static void rig_open(struct rig *r, int nwl)
{
	r->sp = sampler_new("/proc", ncpu(), nwl);
	assert_non_null(r->sp);
	r->s = snapshot_new(ncpu(), 4, nwl);
	assert_non_null(r->s);
}

static void rig_close(struct rig *r)
{
	sampler_free(r->sp);
	snapshot_free(r->s);
}

static void tick(struct rig *r)
{
	assert_int_equal(sampler_tick(r->sp, r->s, mono()), 0);
}

static const struct proc_sample *find_proc(const struct snapshot *s, pid_t pid)
{
	for (int i = 0; i < s->nproc; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

/* p's allowed CPUs (a mask of s->ncpu bytes) as a list is want. */
static void assert_allowed(const struct snapshot *s, const struct proc_sample *p, const char *want)
{
	assert_non_null(p->allowed);
	char *got = cpulist_text(p->allowed, s->ncpu);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/var/tmp/test_sample.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
}

/* ---- a grandchild writing 8 MiB ------------------------------------- */

static void grandchild_writer(const char *path)
{
	static char block[MiB];
	memset(block, 'x', sizeof block);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	for (int i = 0; i < 8 && fd >= 0; i++) {
		if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
			_exit(1);
		usleep(30000);
	}
	_exit(fd >= 0 && close(fd) == 0 ? 0 : 1);
}

/* The child forks the writer, reports its pid, waits for it, lingers. */
static pid_t spawn_tree(const char *path, pid_t *grandchild)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		close(p[0]);
		pid_t g = fork();
		if (g == 0)
			grandchild_writer(path);
		if (write(p[1], &g, sizeof g) != sizeof g)
			_exit(1);
		close(p[1]);
		waitpid(g, NULL, 0);
		usleep(200000);
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], grandchild, sizeof *grandchild), sizeof *grandchild);
	close(p[0]);
	return c;
}

static void test_tree_write(void **state)
{
	(void)state;
	struct rig r;
	char path[128];
	pid_t g = 0;
	bool saw_g = false, reaped = false;
	uint64_t last = 0;
	double last_ut = 0;

	make_tmpdir();
	snprintf(path, sizeof path, "%s/out", tmpdir);
	rig_open(&r, 1);
	pid_t c = spawn_tree(path, &g);
	assert_int_equal(sampler_add(r.sp, c, 1, "cmd", true), 0);
	for (int i = 0; i < 2000 && !reaped; i++) {
		tick(&r);
		const struct proc_sample *pg = find_proc(r.s, g);
		if (pg) {
			saw_g = true;
			assert_int_equal(pg->workload, 1);
			/* the root's role until what it does says more: it writes */
			/* its role is what it did: a writer starved of CPU for a few
			 * ticks on a loaded machine may read as idle */
			assert_true(!strcmp(pg->role, "cmd") || !strcmp(pg->role, "writer") ||
			            !strcmp(pg->role, "idle"));
		}
		assert_true(r.s->wls[0].bytes >= last);  /* never backwards */
		assert_true(r.s->wls[0].utime + r.s->wls[0].stime >= last_ut);
		last = r.s->wls[0].bytes;
		last_ut = r.s->wls[0].utime + r.s->wls[0].stime;
		reaped = waitpid(c, NULL, WNOHANG) == c;
		usleep(10000);
	}
	assert_true(reaped);
	for (int i = 0; i < 3; i++) {
		tick(&r);
		assert_true(r.s->wls[0].bytes >= last);
		last = r.s->wls[0].bytes;
	}
	assert_true(saw_g);
	assert_true(r.s->wls[0].bytes >= 8 * MiB);
	assert_null(find_proc(r.s, c));  /* gone: dropped from procs */
	assert_int_equal(sampler_nprocs(r.sp), 0);
	rig_close(&r);
	unlink(path);
	rmdir(tmpdir);
}

/* ---- one copy_file_range with explicit offsets ---------------------- */

static void make_file(const char *path, size_t size)
{
	static char block[MiB];
	memset(block, 'y', sizeof block);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (size_t done = 0; done < size; done += sizeof block)
		assert_int_equal(write(fd, block, sizeof block), sizeof block);
	assert_int_equal(close(fd), 0);
}

/* The file positions never move (explicit offsets): only the destination
 * size tells how far the copy got. */
static void cfr_child(const char *src, const char *dst, int go)
{
	int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char c;
	if (in < 0 || out < 0 || read(go, &c, 1) != 1)
		_exit(1);
	loff_t off_in = 0, off_out = 0;
	size_t left = 64 * MiB;
	while (left > 0) {
		ssize_t n = copy_file_range(in, &off_in, out, &off_out, left, 0);
		if (n <= 0)
			_exit(2);
		left -= (size_t)n;
	}
	usleep(100000);
	_exit(0);
}

static void test_copy_file_range_size(void **state)
{
	(void)state;
	struct rig r;
	char src[128], dst[128];
	int go[2];
	bool reaped = false;
	int status = -1;

	make_tmpdir();
	snprintf(src, sizeof src, "%s/src", tmpdir);
	snprintf(dst, sizeof dst, "%s/dst", tmpdir);
	make_file(src, 64 * MiB);
	/* the source and its directory were there before the copy started,
	 * as a user's are (files born after the start are the tree's own) */
	usleep(60000);
	assert_int_equal(pipe(go), 0);
	rig_open(&r, 1);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		close(go[1]);
		cfr_child(src, dst, go[0]);
	}
	close(go[0]);
	assert_int_equal(sampler_add(r.sp, c, 1, "cmd", true), 0);
	usleep(50000);  /* let it open both files before the first look */
	tick(&r);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	for (int i = 0; i < 2000 && !reaped; i++) {
		tick(&r);
		reaped = waitpid(c, &status, WNOHANG) == c;
		usleep(10000);
	}
	tick(&r);
	assert_true(reaped);
	assert_int_equal(status, 0);
	assert_true(r.s->wls[0].bytes >= 64 * MiB);
	assert_true(r.s->wls[0].bytes < 2 * 64 * MiB);  /* not counted twice */
	rig_close(&r);
	unlink(src);
	unlink(dst);
	rmdir(tmpdir);
}

/* ---- the first interval's rate -------------------------------------- */

/* Writes 8 MiB, says so, and keeps the file open until `quit` reads EOF
 * (the test closed it or died: no child outlives a failed assertion). */
static void first_writer(const char *path, int done, int quit)
{
	static char block[MiB];
	memset(block, 'z', sizeof block);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	for (int i = 0; i < 8 && fd >= 0; i++)
		if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
			_exit(1);
	if (fd < 0 || write(done, "d", 1) != 1)
		_exit(1);
	char c;
	while (read(quit, &c, 1) > 0)
		;
	_exit(0);
}

/* A workload is tracked from its spawn, so the first tick's rate counts
 * from 0 bytes at that moment: write_bps = bytes / (tick - add), not 0;
 * the next tick moves nothing and counts nothing again. */
static void test_first_interval_rate(void **state)
{
	(void)state;
	struct rig r;
	char path[128];
	int done[2], quit[2];
	char c;

	make_tmpdir();
	snprintf(path, sizeof path, "%s/first", tmpdir);
	assert_int_equal(pipe(done), 0);
	assert_int_equal(pipe2(quit, O_CLOEXEC), 0);
	rig_open(&r, 1);
	double t_before = mono();
	pid_t w = fork();
	assert_true(w >= 0);
	if (w == 0) {
		close(done[0]);
		close(quit[1]);
		first_writer(path, done[1], quit[0]);
	}
	close(done[1]);
	close(quit[0]);
	assert_int_equal(sampler_add(r.sp, w, 1, "cmd", true), 0);
	double t_after = mono();
	assert_int_equal(read(done[0], &c, 1), 1);
	close(done[0]);
	usleep(50000);
	double now = mono();
	assert_int_equal(sampler_tick(r.sp, r.s, now), 0);
	const struct wl_sample *ws = &r.s->wls[0];
	assert_true(ws->bytes >= 8 * MiB);
	assert_true(ws->bytes < 2 * 8 * MiB);  /* not counted twice */
	assert_true(ws->write_bps > 0);
	/* the rate's interval lies between the add and the tick */
	assert_true(ws->write_bps >= (double)ws->bytes / (now - t_before) * 0.999);
	assert_true(ws->write_bps <= (double)ws->bytes / (now - t_after) * 1.001);
	uint64_t first = ws->bytes;
	usleep(50000);
	assert_int_equal(sampler_tick(r.sp, r.s, mono()), 0);
	assert_true(r.s->wls[0].bytes == first);
	assert_true(r.s->wls[0].write_bps == 0);
	close(quit[1]);
	assert_int_equal(waitpid(w, NULL, 0), w);
	rig_close(&r);
	unlink(path);
	rmdir(tmpdir);
}

/* ---- a busy child: times, %CPU, migrations, allowed CPUs ------------ */

static pid_t spawn_busy(void)
{
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		volatile uint64_t x = 0;
		for (;;)
			x++;
	}
	return c;
}

static void test_busy_child(void **state)
{
	(void)state;
	struct rig r;
	double last = 0, max_pct = 0;

	rig_open(&r, 1);
	pid_t c = spawn_busy();
	assert_int_equal(sampler_add(r.sp, c, 1, "writer", false), 0);
	for (int i = 0; i < 40; i++) {
		tick(&r);
		const struct proc_sample *p = find_proc(r.s, c);
		assert_non_null(p);
		assert_true(p->utime + p->stime >= last);
		last = p->utime + p->stime;
		if (p->cpu_pct > max_pct)
			max_pct = p->cpu_pct;
		assert_true(p->cpu >= 0 && p->cpu < ncpu());
		assert_int_equal(p->nthreads, 1);
		usleep(20000);
	}
	const struct proc_sample *p = find_proc(r.s, c);
	assert_true(last > 0);
	assert_true(max_pct > 0);
	assert_true(p->alive);
	assert_true(p->state == 'R' || p->state == 'S');
	assert_true(r.s->wls[0].utime + r.s->wls[0].stime > 0);
	if (ncpu() == 2)
		assert_allowed(r.s, p, "0-1");
	/* pinned from outside, without the process doing anything about it */
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	assert_int_equal(sched_setaffinity(c, sizeof set, &set), 0);
	tick(&r);
	assert_allowed(r.s, find_proc(r.s, c), "0");
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	double ut = r.s->wls[0].utime + r.s->wls[0].stime;
	tick(&r);
	assert_null(find_proc(r.s, c));
	assert_true(r.s->wls[0].utime + r.s->wls[0].stime >= ut);  /* kept */
	rig_close(&r);
}

/* The state letter of pid in /proc/PID/stat ('?' when unreadable). */
static char stat_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* A process that keeps sleeping is still shown, at 0 %CPU. */
static void test_sleeper(void **state)
{
	(void)state;
	struct rig r;

	rig_open(&r, 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);  /* not left behind by a failed assertion */
		pause();
		_exit(0);
	}
	/* asleep in pause() first: a busy machine may not have run it yet
	 * (a condition waited for, for at most 10 s, not a timing) */
	for (int i = 0; i < 10000 && stat_state(c) != 'S'; i++)
		usleep(1000);
	assert_int_equal(sampler_add(r.sp, c, 0, "cmd", true), 0);
	for (int i = 0; i < 30; i++)
		tick(&r);
	const struct proc_sample *p = find_proc(r.s, c);
	assert_non_null(p);
	assert_int_equal(p->state, 'S');
	assert_true(p->cpu_pct < 1.0);
	pid_t pids[4];
	assert_int_equal(sampler_pids(r.sp, 0, pids, 4), 1);
	assert_int_equal(pids[0], c);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	tick(&r);
	assert_int_equal(sampler_pids(r.sp, 0, pids, 4), 0);
	rig_close(&r);
}

/* ---- machine-wide --------------------------------------------------- */

static void test_cpu_sum(void **state)
{
	(void)state;
	struct rig r;

	rig_open(&r, 0);
	tick(&r);
	usleep(200000);
	tick(&r);
	for (int c = 0; c < r.s->ncpu; c++) {
		const struct cpu_sample *x = &r.s->cpus[c];
		double sum = x->user + x->system + x->iowait + x->irq + x->idle;
		assert_true(x->user >= 0 && x->idle >= 0);
		/* stolen time (VMs) is in the total but not in the five */
		assert_true(sum > 80.0 && sum < 100.5);
		assert_int_equal(x->khz, -1);  /* the cpufreq module's field */
	}
	rig_close(&r);
}

static bool has_block_dev(const char *path)
{
	struct stat st;
	char sys[64];
	if (stat(path, &st) != 0)
		return false;
	snprintf(sys, sizeof sys, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	return access(sys, F_OK) == 0;
}

static void test_disk(void **state)
{
	(void)state;
	struct rig r;

	rig_open(&r, 0);
	sampler_watch_path(r.sp, "/proc/self");  /* no block device */
	tick(&r);
	assert_string_equal(r.s->disk.device, "");
	assert_true(r.s->disk.write_bps == 0);
	sampler_watch_path(r.sp, "/var/tmp");
	tick(&r);
	usleep(50000);
	tick(&r);
	if (has_block_dev("/var/tmp"))
		assert_true(r.s->disk.device[0] != '\0');
	assert_true(r.s->disk.read_bps >= 0 && r.s->disk.write_bps >= 0);
	int every = 0;
	assert_true(sampler_source_ms(r.sp, "meminfo", &every) >= 0);
	assert_int_equal(every, 1);
	assert_true(sampler_source_ms(r.sp, "nope", NULL) < 0);
	rig_close(&r);
}

static void test_add_bad(void **state)
{
	(void)state;
	struct rig r;

	rig_open(&r, 1);
	assert_int_equal(sampler_add(r.sp, 0, 1, "cmd", true), -EINVAL);
	assert_int_equal(sampler_add(r.sp, getpid(), 2, "cmd", true), -EINVAL);
	assert_null(sampler_new("/proc", 0, 0));
	rig_close(&r);
}

/* What one interval says a command's process does. */
static void test_role_evidence(void **state)
{
	(void)state;
	assert_string_equal(sample_role_evidence(30, 4096, 4096, true), "writer");
	assert_string_equal(sample_role_evidence(0.2, 0, 1, false), "writer");
	assert_string_equal(sample_role_evidence(30, 4096, 0, true), "reader");
	assert_string_equal(sample_role_evidence(0.5, 0, 0, true), "idle");
	assert_string_equal(sample_role_evidence(20, 0, 0, true), "pipe");
	assert_null(sample_role_evidence(50, 0, 0, false));
}

/* A role changes only after SAMPLE_ROLE_STABLE intervals agree. */
static void test_role_settles(void **state)
{
	(void)state;
	char role[MODEL_ROLE_LEN] = "cmd";
	struct sample_role_track t = { 0 };
	for (int i = 0; i < SAMPLE_ROLE_STABLE - 1; i++) {
		sample_role_settle(role, sizeof role, &t, "writer");
		assert_string_equal(role, "cmd");
	}
	sample_role_settle(role, sizeof role, &t, "writer");
	assert_string_equal(role, "writer");
	/* a stray idle interval, or no evidence, changes nothing */
	sample_role_settle(role, sizeof role, &t, "idle");
	sample_role_settle(role, sizeof role, &t, NULL);
	sample_role_settle(role, sizeof role, &t, "writer");
	sample_role_settle(role, sizeof role, &t, "idle");
	sample_role_settle(role, sizeof role, &t, "idle");
	assert_string_equal(role, "writer");
	sample_role_settle(role, sizeof role, &t, "idle");
	assert_string_equal(role, "idle");
}

/* A child that reads 64 KiB and writes 3 bytes has its own counts in
 * its exit record (to the KiB below), found by PID and name; under
 * another name it is not. */
static void test_exit_record(void **state)
{
	(void)state;
	struct sexit *x = sexit_new((int)sysconf(_SC_NPROCESSORS_CONF));
	if (!x) {
		if (geteuid() == 0)
			fail_msg("root, and the kernel gave no exit records (taskstats)");
		skip();
	}
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, "btexit", 0, 0, 0);
		static char buf[65536];
		int fd = open("/dev/zero", O_RDONLY);
		ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
		ssize_t put = write(p[1], "abc", 3);
		_exit(got == (ssize_t)sizeof buf && put == 3 ? 0 : 1);
	}
	close(p[1]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	uint64_t r = 0, w = 0;
	bool found = false;
	for (int i = 0; i < 50 && !found; i++) {  /* the record may trail the exit */
		found = sexit_find(x, pid, "btexit", &r, &w);
		if (!found)
			usleep(10000);
	}
	assert_true(found);
	assert_in_range(r, 65536, 65536 + 65535);
	assert_in_range(w, 0, 4095);  /* the kernel rounds both down to a KiB */
	assert_false(sexit_find(x, pid, "other", &r, &w));
	close(p[0]);
	sexit_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_role_evidence),
		cmocka_unit_test(test_role_settles),
		cmocka_unit_test(test_parse_sched),
		cmocka_unit_test(test_parse_schedstat),
		cmocka_unit_test(test_parse_disk_stat),
		cmocka_unit_test(test_parse_io),
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_parse_fdinfo),
		cmocka_unit_test(test_rate_reset),
		cmocka_unit_test(test_tree_write),
		cmocka_unit_test(test_copy_file_range_size),
		cmocka_unit_test(test_first_interval_rate),
		cmocka_unit_test(test_busy_child),
		cmocka_unit_test(test_sleeper),
		cmocka_unit_test(test_cpu_sum),
		cmocka_unit_test(test_disk),
		cmocka_unit_test(test_add_bad),
		cmocka_unit_test(test_exit_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

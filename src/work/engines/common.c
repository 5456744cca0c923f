/* common.c - helpers shared by the I/O loops: counters, failures, buffers,
 * opening the job's files, whole writes and the final sync. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "engines.h"
#include "benchtop/clock.h"

void eng_add(struct engine_counters *c, uint64_t bytes, uint64_t rbytes, uint64_t calls)
{
	if (bytes)
		__atomic_fetch_add(&c->bytes, bytes, __ATOMIC_RELAXED);
	if (rbytes)
		__atomic_fetch_add(&c->rbytes, rbytes, __ATOMIC_RELAXED);
	if (calls)
		__atomic_fetch_add(&c->calls, calls, __ATOMIC_RELAXED);
}

static inline void bump(uint64_t *v, uint64_t n)
{
	__atomic_store_n(v, __atomic_load_n(v, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

void eng_count(struct eng_ctx *x, uint64_t bytes, uint64_t rbytes, uint64_t calls)
{
	if (!x->solo) {
		eng_add(x->c, bytes, rbytes, calls);
		return;
	}
	if (bytes)
		bump(&x->c->bytes, bytes);
	if (rbytes)
		bump(&x->c->rbytes, rbytes);
	if (calls)
		bump(&x->c->calls, calls);
}

void eng_phase(struct engine_counters *c, int phase)
{
	c->phase_t[phase] = clock_mono();
	c->phase_bytes[phase] = __atomic_load_n(&c->bytes, __ATOMIC_RELAXED);
	c->phase_calls[phase] = __atomic_load_n(&c->calls, __ATOMIC_RELAXED);
	/* the process's own CPU at the mark: exact per-phase user and sys */
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		c->phase_user[phase] = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		c->phase_sys[phase] = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	__atomic_store_n(&c->phase, phase, __ATOMIC_RELEASE);
}

void eng_done(struct engine_counters *c)
{
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &c->done, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
}

int eng_fail(struct engine_counters *c, int err, const char *verb, const char *path)
{
	/* The first failure of a job is the one worth telling. */
	int32_t zero = 0;

	if (__atomic_compare_exchange_n(&c->err, &zero, err, false, __ATOMIC_ACQ_REL,
	                                __ATOMIC_RELAXED)) {
		if (err == ENOSPC)
			snprintf(c->msg, sizeof c->msg, "%s %s: file system full (%s)", verb, path,
			         strerror(err));
		else
			snprintf(c->msg, sizeof c->msg, "%s %s: %s", verb, path, strerror(err));
	}
	eng_done(c);
	return -err;
}

void eng_pattern(void *buf, size_t n, uint64_t *state)
{
	uint64_t s = *state ? *state : 0x9e3779b97f4a7c15ull;
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		memcpy(p + i, &s, 8);
	}
	for (; i < n; i++)
		p[i] = (unsigned char)(s >> (8 * (i % 8)));
	*state = s;
}

void *eng_buffer(size_t n)
{
	void *p = NULL;
	uint64_t st = 0x2545f4914f6cdd1dull;

	if (posix_memalign(&p, 4096, n ? n : 1) != 0)
		return NULL;
	eng_pattern(p, n, &st);
	return p;
}

int eng_open_src(struct eng_ctx *x, int *fd)
{
	/* update=PCT writes blocks back into the file it reads */
	int flags = (x->w->update > 0 ? O_RDWR : O_RDONLY) | O_CLOEXEC | (x->oflags_extra & O_DIRECT);

	*fd = open(x->job->src, flags);
	if (*fd < 0)
		return eng_fail(x->c, errno, "opening", x->job->src);
	/* Everything but the seekers reads front to back: a larger readahead
	 * window, as cat and cp ask for. */
	if (x->w->kind != WL_SEEK)
		posix_fadvise(*fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

int eng_open_empty(const char *path, int extra)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CLOEXEC | extra);

	if (fd >= 0 && (fstat(fd, &st) != 0 || (st.st_size > 0 && ftruncate(fd, 0) != 0))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int eng_open_dst(struct eng_ctx *x, int *fd)
{
	/* engine_prepare made the file; a run (or a --loop restart) starts it
	 * over.  No O_CREAT: a file removed meanwhile is an error, not remade. */
	*fd = eng_open_empty(x->job->dst, x->oflags_extra);
	if (*fd < 0)
		return eng_fail(x->c, errno, "opening", x->job->dst);
	return 0;
}

/* An O_DIRECT write of a partial last block fails with EINVAL; finish that
 * tail through the page cache. */
static int drop_direct(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || !(fl & O_DIRECT))
		return -1;
	return fcntl(fd, F_SETFL, fl & ~O_DIRECT);
}

int eng_write_all(struct eng_ctx *x, int fd, const char *buf, size_t n, const char *path)
{
	while (n > 0) {
		ssize_t k = write(fd, buf, n);

		eng_count(x, 0, 0, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EINVAL && n % 512 != 0 && drop_direct(fd) == 0)
			continue;
		if (k < 0)
			return eng_fail(x->c, errno, "writing", path);
		if (k == 0)
			return eng_fail(x->c, ENOSPC, "writing", path);
		if (!x->pipe_reader)
			eng_count(x, (uint64_t)k, 0, 0);
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

int eng_finish(struct eng_ctx *x, int fd, const char *path)
{
	if (x->w->sync == SYNC_END) {
		eng_phase(x->c, 2);
		eng_count(x, 0, 0, 1);
		if (fsync(fd) != 0) {
			int e = errno;

			close(fd);
			return eng_fail(x->c, e, "syncing", path);
		}
	}
	if (close(fd) != 0)
		return eng_fail(x->c, errno, "closing", path);
	eng_phase(x->c, 3);
	eng_done(x->c);
	return 0;
}

int eng_wrap_up(struct eng_ctx *x, int rc, int fd)
{
	if (rc) {
		close(fd);
		return rc;
	}
	eng_pass(x);
	return eng_finish(x, fd, x->job->dst);
}

void eng_pass(struct eng_ctx *x)
{
	if (x->counts_passes)
		__atomic_fetch_add(&x->c->passes, 1, __ATOMIC_RELAXED);
}

uint64_t eng_moved(const struct eng_ctx *x)
{
	return __atomic_load_n(&x->c->bytes, __ATOMIC_RELAXED) +
	       __atomic_load_n(&x->c->rbytes, __ATOMIC_RELAXED);
}

int eng_pass_end(struct eng_ctx *x, int in, int fd, int fl, const char *path)
{
	if (fd >= 0 && x->w->sync == SYNC_END) {
		eng_count(x, 0, 0, 1);
		if (fsync(fd) != 0)
			return eng_fail(x->c, errno, "syncing", path);
	}
	eng_pass(x);
	if (fd >= 0 && fl >= 0)
		fcntl(fd, F_SETFL, fl);
	if ((fd >= 0 && lseek(fd, 0, SEEK_SET) < 0) || (in >= 0 && lseek(in, 0, SEEK_SET) < 0))
		return eng_fail(x->c, errno, "seeking to the start of", path);
	return 0;
}

int eng_shrunk(struct eng_ctx *x, int in, uint64_t size, int rc)
{
	struct stat st;

	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size >= size)
		return rc;
	snprintf(x->c->msg, sizeof x->c->msg, "copying %s: the source changed size during the copy "
	         "(%llu bytes when the copy began, %lld now)", x->job->src, (unsigned long long)size,
	         (long long)st.st_size);
	__atomic_store_n(&x->c->err, EIO, __ATOMIC_RELEASE);
	eng_done(x->c);
	return -EIO;
}

void eng_cut_dst(int out)
{
	off_t at = lseek(out, 0, SEEK_CUR);

	if (at >= 0 && ftruncate(out, at) != 0)
		return;  /* the copy has failed already: this only tidies */
}

/* Size of the regular file in, 0 when it is not one. */
static uint64_t file_size(int in)
{
	struct stat st;

	return fstat(in, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

int eng_copy_files(struct eng_ctx *x, eng_loop loop)
{
	int in, out, rc, fl;
	uint64_t size;

	if ((rc = eng_open_src(x, &in)))
		return rc;
	if ((rc = eng_open_dst(x, &out))) {
		close(in);
		return rc;
	}
	size = file_size(in);
	fl = fcntl(out, F_GETFL);
	for (;;) {
		uint64_t before = eng_moved(x);

		rc = loop(x, in, out);
		/* A source that shrinks under --loop: said, and the destination
		 * cut to this pass's bytes rather than left with the old tail. */
		if (rc == 0 && x->loop && (rc = eng_shrunk(x, in, size, 0)))
			eng_cut_dst(out);
		/* A looping copy starts again at offset 0 of the same files,
		 * unless the pass moved nothing (an empty source). */
		if (rc || !x->loop || eng_moved(x) == before)
			break;
		if ((rc = eng_pass_end(x, in, out, fl, x->job->dst)))
			break;
	}
	close(in);
	return eng_wrap_up(x, rc, out);
}

int eng_chunk_loop(struct eng_ctx *x, int in, int out, eng_step step, const char *verb)
{
	size_t chunk = x->bs > ENG_BIG_CHUNK ? x->bs : ENG_BIG_CHUNK;

	for (;;) {
		ssize_t n = step(in, out, chunk);

		if (n < 0 && errno == EINTR) {
			eng_count(x, 0, 0, 1);
			continue;
		}
		if (n < 0) {
			eng_count(x, 0, 0, 1);
			return eng_fail(x->c, errno, verb, x->job->dst);
		}
		eng_count(x, (uint64_t)n, (uint64_t)n, 1);
		if (n == 0)
			return 0;
	}
}

/* write.c - write workloads: a file written bs at a time (or a byte at a
 * time through stdio, like bonnie's putc), and pattern=rewrite, which then
 * writes it again in place.  Before the rewrite the file is flushed and its
 * pages dropped from the cache (fdatasync + POSIX_FADV_DONTNEED, no root
 * needed), so a bs that is not a multiple of the page size makes every
 * rewrite a read-modify-write, as on a file that has left the cache. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engines.h"

#define ENG_DEFAULT_SIZE (1ull << 30)
#define CHAR_BATCH 4096   /* counters move once per this many putc/getc */

static uint64_t write_size(const struct wl_spec *w)
{
	return w->size ? w->size : ENG_DEFAULT_SIZE;
}

static int block_pass(struct eng_ctx *x, int fd, const char *buf)
{
	uint64_t left = write_size(x->w);
	int rc = 0;

	while (left > 0 && rc == 0) {
		size_t n = left < x->bs ? (size_t)left : x->bs;

		rc = eng_write_all(x, fd, buf, n, x->job->dst);
		left -= n;
	}
	return rc;
}

static int char_pass(struct eng_ctx *x, FILE *fp)
{
	uint64_t size = write_size(x->w), i;
	unsigned pending = 0;

	for (i = 0; i < size; i++) {
		if (putc((int)('a' + i % 26), fp) == EOF)
			return eng_fail(x->c, errno ? errno : EIO, "writing", x->job->dst);
		if (++pending == CHAR_BATCH) {
			eng_count(x, pending, 0, pending);
			pending = 0;
		}
	}
	eng_count(x, pending, 0, pending);
	if (fflush(fp) != 0)
		return eng_fail(x->c, errno, "writing", x->job->dst);
	return 0;
}

/* One pass over the whole file from offset 0, in the chosen unit. */
static int pass(struct eng_ctx *x, int fd, FILE *fp, const char *buf)
{
	return fp ? char_pass(x, fp) : block_pass(x, fd, buf);
}

/* Between the write and the rewrite: to disk, then out of the cache. */
static int restart_cold(struct eng_ctx *x, int fd, FILE *fp)
{
	if (fdatasync(fd) != 0)
		return eng_fail(x->c, errno, "syncing", x->job->dst);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	eng_phase(x->c, 1);
	/* the flush's call counts after the mark: the write row's calls are
	 * its writes alone (its mean bytes per call is the bs) */
	eng_count(x, 0, 0, 1);
	if ((fp ? fseeko(fp, 0, SEEK_SET) : (int)lseek(fd, 0, SEEK_SET)) != 0)
		return eng_fail(x->c, errno, "seeking in", x->job->dst);
	return 0;
}

static int write_passes(struct eng_ctx *x, int fd, FILE *fp, const char *buf)
{
	int rc = pass(x, fd, fp, buf);

	if (rc == 0 && x->w->rewrite) {
		rc = restart_cold(x, fd, fp);
		if (rc == 0)
			rc = pass(x, fd, fp, buf);
	}
	return rc;
}

/* Passes until stopped (loop), each from offset 0 of the same file. */
static int write_loop(struct eng_ctx *x, int fd, FILE *fp, const char *buf)
{
	int fl = fcntl(fd, F_GETFL), rc;

	for (;;) {
		rc = write_passes(x, fd, fp, buf);
		if (rc || !x->loop || write_size(x->w) == 0)
			return rc;
		if (fp && fflush(fp) != 0)
			return eng_fail(x->c, errno, "writing", x->job->dst);
		if ((rc = eng_pass_end(x, -1, fd, fl, x->job->dst)))
			return rc;
		if (fp && fseeko(fp, 0, SEEK_SET) != 0)
			return eng_fail(x->c, errno, "seeking in", x->job->dst);
		if (x->w->rewrite)
			eng_phase(x->c, 0);
	}
}

int eng_write(struct eng_ctx *x)
{
	FILE *fp = NULL;
	char *buf = NULL;
	int fd, rc;

	x->counts_passes = true;
	if ((rc = eng_open_dst(x, &fd)))
		return rc;
	if (x->w->unit_char)
		fp = fdopen(dup(fd), "w");
	else
		buf = eng_buffer(x->bs);
	if (x->w->unit_char ? !fp : !buf) {
		close(fd);
		return eng_fail(x->c, ENOMEM, "setting up writes to", x->job->dst);
	}
	rc = write_loop(x, fd, fp, buf);
	if (fp)
		fclose(fp);
	free(buf);
	return eng_wrap_up(x, rc, fd);
}

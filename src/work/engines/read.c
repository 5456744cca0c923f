/* read.c - read workloads: a file read sequentially bs at a time, or a byte
 * at a time through stdio (bonnie's getc).  For read, bytes and rbytes
 * both count what was read.  update=PCT (bonnie's rewrite: 100) dirties
 * that share of the blocks read and writes each back in place, then
 * fsyncs the file at the end, so the flush is timed.  size= (or a sweep's
 * --cell SIZE) stops a pass after that many bytes, so a device that never
 * ends (/dev/urandom) ends too. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engines.h"

#define CHAR_BATCH 4096

/* Block k of the file is one of the update=PCT share written back (spread
 * evenly: PCT of every 100 blocks). */
static bool updated(int pct, uint64_t k)
{
	return pct > 0 && (k * (uint64_t)pct) % 100 < (uint64_t)pct;
}

/* bonnie's rewrite step for one block: dirty it, seek back, write it. */
static int write_back(struct eng_ctx *x, int fd, char *buf, size_t n)
{
	buf[0]++;
	if (lseek(fd, -(off_t)n, SEEK_CUR) < 0)
		return eng_fail(x->c, errno, "seeking in", x->job->src);
	ssize_t w = write(fd, buf, n);
	eng_count(x, 0, 0, 1);
	if (w != (ssize_t)n)
		return eng_fail(x->c, w < 0 ? errno : EIO, "writing back into", x->job->src);
	return 0;
}

static int block_read(struct eng_ctx *x, int fd)
{
	char *buf = eng_buffer(x->bs);
	int rc = 0;

	if (!buf)
		return eng_fail(x->c, ENOMEM, "allocating a buffer for", x->job->src);
	uint64_t left = x->w->size ? x->w->size : UINT64_MAX;
	for (uint64_t k = 0; left > 0; k++) {
		ssize_t n = read(fd, buf, left < x->bs ? (size_t)left : x->bs);
		uint64_t got = n > 0 ? (uint64_t)n : 0;

		eng_count(x, got, got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = eng_fail(x->c, errno, "reading", x->job->src);
		if (n <= 0)
			break;
		left -= got;
		if (updated(x->w->update, k) && (rc = write_back(x, fd, buf, (size_t)n)))
			break;
	}
	if (rc == 0 && x->w->update > 0) {
		eng_phase(x->c, 2);
		if (fsync(fd) != 0)
			rc = eng_fail(x->c, errno, "syncing", x->job->src);
	}
	free(buf);
	return rc;
}

static int char_read(struct eng_ctx *x, int fd)
{
	FILE *fp = fdopen(dup(fd), "r");
	unsigned pending = 0;
	uint64_t left = x->w->size ? x->w->size : UINT64_MAX;
	int ch = 0;

	if (!fp)
		return eng_fail(x->c, errno, "opening a stream on", x->job->src);
	while (left > 0 && (ch = getc(fp)) != EOF) {
		left--;
		if (++pending == CHAR_BATCH) {
			eng_count(x, pending, pending, pending);
			pending = 0;
		}
	}
	/* The getc that met the end counts as a call too. */
	eng_count(x, pending, pending, pending + (ch == EOF));
	if (ferror(fp)) {
		fclose(fp);
		return eng_fail(x->c, EIO, "reading", x->job->src);
	}
	fclose(fp);
	return 0;
}

int eng_read(struct eng_ctx *x)
{
	int fd, rc;

	x->counts_passes = true;
	if ((rc = eng_open_src(x, &fd)))
		return rc;
	for (;;) {
		uint64_t before = eng_moved(x);

		rc = x->w->unit_char ? char_read(x, fd) : block_read(x, fd);
		/* looping: the same file again from its start */
		if (rc || !x->loop || eng_moved(x) == before)
			break;
		if ((rc = eng_pass_end(x, fd, -1, -1, x->job->src)))
			break;
	}
	close(fd);
	if (rc == 0) {
		eng_pass(x);
		eng_phase(x->c, 3);
		eng_done(x->c);
	}
	return rc;
}

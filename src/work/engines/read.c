/* read.c - read workloads: a file read sequentially bs at a time, or a byte
 * at a time through stdio (bonnie's getc).  For read, bytes and rbytes
 * both count what was read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engines.h"

#define CHAR_BATCH 4096

static int block_read(struct eng_ctx *x, int fd)
{
	char *buf = eng_buffer(x->bs);
	int rc = 0;

	if (!buf)
		return eng_fail(x->c, ENOMEM, "allocating a buffer for", x->job->src);
	for (;;) {
		ssize_t n = read(fd, buf, x->bs);
		uint64_t got = n > 0 ? (uint64_t)n : 0;

		eng_count(x, got, got, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = eng_fail(x->c, errno, "reading", x->job->src);
		if (n <= 0)
			break;
	}
	free(buf);
	return rc;
}

static int char_read(struct eng_ctx *x, int fd)
{
	FILE *fp = fdopen(dup(fd), "r");
	unsigned pending = 0;
	int ch;

	if (!fp)
		return eng_fail(x->c, errno, "opening a stream on", x->job->src);
	while ((ch = getc(fp)) != EOF) {
		if (++pending == CHAR_BATCH) {
			eng_count(x, pending, pending, pending);
			pending = 0;
		}
	}
	/* The getc that met the end counts as a call too. */
	eng_count(x, pending, pending, pending + 1);
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

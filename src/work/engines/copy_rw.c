/* copy_rw.c - engine=rw: the read/write loop of cat and cp, bs at a time. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "engines.h"

int eng_rw_span(struct eng_ctx *x, int in, int out, const char *inpath, const char *outpath,
                uint64_t limit, uint64_t *moved)
{
	char *buf = eng_buffer(x->bs);
	int rc = 0;

	*moved = 0;
	if (!buf)
		return eng_fail(x->c, ENOMEM, "allocating a buffer for", inpath);
	while (*moved < limit) {
		size_t want = limit - *moved < x->bs ? (size_t)(limit - *moved) : x->bs;
		ssize_t n = read(in, buf, want);

		eng_count(x, 0, 0, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = eng_fail(x->c, errno, "reading", inpath);
			break;
		}
		if (n == 0)
			break;
		if (!x->pipe_writer)
			eng_count(x, 0, (uint64_t)n, 0);
		rc = eng_write_all(x, out, buf, (size_t)n, outpath);
		if (rc)
			break;
		*moved += (uint64_t)n;
	}
	free(buf);
	return rc;
}

int eng_rw_loop(struct eng_ctx *x, int in, int out, const char *inpath, const char *outpath)
{
	uint64_t moved;

	return eng_rw_span(x, in, out, inpath, outpath, UINT64_MAX, &moved);
}

static int rw_loop(struct eng_ctx *x, int in, int out)
{
	return eng_rw_loop(x, in, out, x->job->src, x->job->dst);
}

int eng_copy_rw(struct eng_ctx *x)
{
	return eng_copy_files(x, rw_loop);
}

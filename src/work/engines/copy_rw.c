/* copy_rw.c - engine=rw: the read/write loop of cat and cp, bs at a time. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "engines.h"

int eng_rw_loop(struct eng_ctx *x, int in, int out, const char *inpath, const char *outpath)
{
	char *buf = eng_buffer(x->bs);
	int rc = 0;

	if (!buf)
		return eng_fail(x->c, ENOMEM, "allocating a buffer for", inpath);
	for (;;) {
		ssize_t n = read(in, buf, x->bs);

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
	}
	free(buf);
	return rc;
}

static int rw_loop(struct eng_ctx *x, int in, int out)
{
	return eng_rw_loop(x, in, out, x->job->src, x->job->dst);
}

int eng_copy_rw(struct eng_ctx *x)
{
	return eng_copy_files(x, rw_loop);
}

/* copy_splice.c - engine=splice: file -> pipe -> file with splice(2), the
 * pipe enlarged so each round moves up to a MiB without copying to user
 * space. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "engines.h"

/* Move n bytes already in the pipe into out. */
static int drain(struct eng_ctx *x, int pin, int out, size_t n)
{
	while (n > 0) {
		ssize_t m = splice(pin, NULL, out, NULL, n, SPLICE_F_MOVE);

		eng_count(x, 0, 0, 1);
		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0)
			return eng_fail(x->c, m < 0 ? errno : EIO, "splicing into", x->job->dst);
		eng_count(x, (uint64_t)m, 0, 0);
		n -= (size_t)m;
	}
	return 0;
}

static int splice_rounds(struct eng_ctx *x, int in, int out, int p[2])
{
	int sz = fcntl(p[1], F_SETPIPE_SZ, 1 << 20);

	if (sz < 0)
		sz = fcntl(p[1], F_GETPIPE_SZ);
	if (sz <= 0)
		sz = 65536;
	for (;;) {
		ssize_t n = splice(in, NULL, p[1], NULL, (size_t)sz, SPLICE_F_MOVE);
		int rc;

		eng_count(x, 0, 0, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return eng_fail(x->c, errno, "splicing from", x->job->src);
		if (n == 0)
			return 0;
		eng_count(x, 0, (uint64_t)n, 0);
		if ((rc = drain(x, p[0], out, (size_t)n)))
			return rc;
	}
}

static int splice_loop(struct eng_ctx *x, int in, int out)
{
	int p[2], rc;

	if (pipe2(p, O_CLOEXEC) != 0)
		return eng_fail(x->c, errno, "making a pipe for", x->job->dst);
	rc = splice_rounds(x, in, out, p);
	close(p[0]);
	close(p[1]);
	return rc;
}

int eng_copy_splice(struct eng_ctx *x)
{
	return eng_copy_files(x, splice_loop);
}

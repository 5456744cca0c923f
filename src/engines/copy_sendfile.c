/* copy_sendfile.c - engine=sendfile: sendfile(2) from the source file into
 * the destination file in big chunks. */
#include <errno.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "engines.h"

int eng_copy_sendfile(struct eng_ctx *x)
{
	int in, out, rc = 0;
	size_t chunk = x->bs > ENG_BIG_CHUNK ? x->bs : ENG_BIG_CHUNK;

	if ((rc = eng_open_src(x, &in)))
		return rc;
	if ((rc = eng_open_dst(x, &out))) {
		close(in);
		return rc;
	}
	for (;;) {
		ssize_t n = sendfile(out, in, NULL, chunk);

		eng_add(x->c, 0, 0, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = eng_fail(x->c, errno, "sendfile to", x->job->dst);
			break;
		}
		if (n == 0)
			break;
		eng_add(x->c, (uint64_t)n, (uint64_t)n, 0);
	}
	close(in);
	if (rc) {
		close(out);
		return rc;
	}
	return eng_finish(x, out, x->job->dst);
}

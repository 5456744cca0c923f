/* copy_cfr.c - engine=cfr: copy_file_range(2) in big chunks, so the kernel
 * (or the file system, by reflink or server-side copy) does the work. */
#include <errno.h>
#include <unistd.h>

#include "engines.h"

int eng_copy_cfr(struct eng_ctx *x)
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
		ssize_t n = copy_file_range(in, NULL, out, NULL, chunk, 0);

		eng_add(x->c, 0, 0, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = eng_fail(x->c, errno, "copy_file_range to", x->job->dst);
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

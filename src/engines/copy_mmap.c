/* copy_mmap.c - engine=mmap: the source is mapped and written to the
 * destination with write(2) straight from the mapping, bs at a time (one
 * copy, no read buffer). */
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engines.h"

static int mmap_loop(struct eng_ctx *x, int in, int out)
{
	struct stat st;
	char *map;
	size_t size, off;
	int rc = 0;

	if (fstat(in, &st) != 0)
		return eng_fail(x->c, errno, "examining", x->job->src);
	if (!S_ISREG(st.st_mode))
		return eng_fail(x->c, EINVAL, "mapping (not a regular file)", x->job->src);
	size = (size_t)st.st_size;
	if (size == 0)
		return 0;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, in, 0);
	eng_add(x->c, 0, 0, 1);
	if (map == MAP_FAILED)
		return eng_fail(x->c, errno, "mapping", x->job->src);
	madvise(map, size, MADV_SEQUENTIAL);
	for (off = 0; off < size && rc == 0; off += x->bs) {
		size_t n = size - off < x->bs ? size - off : x->bs;

		eng_add(x->c, 0, n, 0);
		rc = eng_write_all(x, out, map + off, n, x->job->dst);
	}
	munmap(map, size);
	return rc;
}

int eng_copy_mmap(struct eng_ctx *x)
{
	int in, out, rc;

	if ((rc = eng_open_src(x, &in)))
		return rc;
	if ((rc = eng_open_dst(x, &out))) {
		close(in);
		return rc;
	}
	rc = mmap_loop(x, in, out);
	close(in);
	if (rc) {
		close(out);
		return rc;
	}
	return eng_finish(x, out, x->job->dst);
}

/* copy_cfr.c - engine=cfr: copy_file_range(2) in big chunks, so the kernel
 * (or the file system, by reflink or server-side copy) does the work. */
#include <unistd.h>

#include "engines.h"

static ssize_t cfr_step(int in, int out, size_t n)
{
	return copy_file_range(in, NULL, out, NULL, n, 0);
}

static int cfr_loop(struct eng_ctx *x, int in, int out)
{
	return eng_chunk_loop(x, in, out, cfr_step, "copy_file_range to");
}

int eng_copy_cfr(struct eng_ctx *x)
{
	return eng_copy_files(x, cfr_loop);
}

/* copy_sendfile.c - engine=sendfile: sendfile(2) from the source file into
 * the destination file in big chunks. */
#include <sys/sendfile.h>

#include "engines.h"

static ssize_t sendfile_step(int in, int out, size_t n)
{
	return sendfile(out, in, NULL, n);
}

static int sendfile_loop(struct eng_ctx *x, int in, int out)
{
	return eng_chunk_loop(x, in, out, sendfile_step, "sendfile to");
}

int eng_copy_sendfile(struct eng_ctx *x)
{
	return eng_copy_files(x, sendfile_loop);
}

/* copy_pipe.c - engine=pipe: reader -> pipe -> writer in two processes, and
 * with procs=3 an idle control process, the shape of rsync. */
#include <errno.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engines.h"

/* Bytes in one pass of a looping pipe copy: the source's size; 0 when it
 * cannot loop (not a regular file, or empty), then one pass to EOF. */
static uint64_t pass_size(struct eng_ctx *x, int in)
{
	struct stat st;

	if (!x->loop || fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return 0;
	return (uint64_t)st.st_size;
}

int eng_pipe_reader(struct eng_ctx *x)
{
	int in, rc;
	uint64_t size, moved;

	close(x->pipefd[0]);
	x->pipe_reader = true;
	if ((rc = eng_open_src(x, &in))) {
		close(x->pipefd[1]);
		return rc;
	}
	size = pass_size(x, in);
	do {
		rc = eng_rw_span(x, in, x->pipefd[1], x->job->src, "the pipe to the writer",
		                 size ? size : UINT64_MAX, &moved);
		/* a short pass: the source shrank under --loop */
		if (rc == 0 && size && moved < size)
			rc = eng_shrunk(x, in, size, 0);
		/* the next pass reads the source again from its start */
		if (rc == 0 && size && lseek(in, 0, SEEK_SET) < 0)
			rc = eng_fail(x->c, errno, "seeking to the start of", x->job->src);
	} while (rc == 0 && size && moved == size);
	close(in);
	close(x->pipefd[1]);
	return rc;
}

int eng_pipe_writer(struct eng_ctx *x)
{
	int out, rc, fl;
	uint64_t size = 0, moved;
	struct stat st;

	close(x->pipefd[1]);
	x->pipe_writer = true;
	x->counts_passes = true;
	if ((rc = eng_open_dst(x, &out))) {
		close(x->pipefd[0]);
		return rc;
	}
	if (x->loop && stat(x->job->src, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		size = (uint64_t)st.st_size;
	fl = fcntl(out, F_GETFL);
	for (;;) {
		rc = eng_rw_span(x, x->pipefd[0], out, "the pipe from the reader", x->job->dst,
		                 size ? size : UINT64_MAX, &moved);
		/* a whole pass: the same destination again from offset 0 */
		if (rc || !size || moved < size)
			break;
		if ((rc = eng_pass_end(x, -1, out, fl, x->job->dst)))
			break;
	}
	close(x->pipefd[0]);
	/* EOF also comes when the reader failed: then the copy is short. */
	if (rc == 0 && __atomic_load_n(&x->c->err, __ATOMIC_ACQUIRE) != 0)
		rc = -x->c->err;
	if (rc) {
		if (size && moved < size)
			eng_cut_dst(out);
		close(out);
		eng_done(x->c);
		return rc;
	}
	if (!size)
		eng_pass(x);
	return eng_finish(x, out, x->job->dst);
}

/* Holds no pipe end (else the writer would never see EOF); sleeps on the
 * counter block's done word until the writer finishes or a process fails. */
int eng_pipe_control(struct eng_ctx *x)
{
	close(x->pipefd[0]);
	close(x->pipefd[1]);
	while (__atomic_load_n(&x->c->done, __ATOMIC_ACQUIRE) == 0)
		syscall(SYS_futex, &x->c->done, FUTEX_WAIT, 0, NULL, NULL, 0);
	return 0;
}

/* copy_pipe.c - engine=pipe: reader -> pipe -> writer in two processes, and
 * with procs=3 an idle control process, the shape of rsync. */
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engines.h"

int eng_pipe_reader(struct eng_ctx *x)
{
	int in, rc;

	close(x->pipefd[0]);
	x->pipe_reader = true;
	if ((rc = eng_open_src(x, &in))) {
		close(x->pipefd[1]);
		return rc;
	}
	rc = eng_rw_loop(x, in, x->pipefd[1], x->job->src, "the pipe to the writer");
	close(in);
	close(x->pipefd[1]);
	return rc;
}

int eng_pipe_writer(struct eng_ctx *x)
{
	int out, rc;

	close(x->pipefd[1]);
	x->pipe_writer = true;
	if ((rc = eng_open_dst(x, &out))) {
		close(x->pipefd[0]);
		return rc;
	}
	rc = eng_rw_loop(x, x->pipefd[0], out, "the pipe from the reader", x->job->dst);
	close(x->pipefd[0]);
	/* EOF also comes when the reader failed: then the copy is short. */
	if (rc == 0 && __atomic_load_n(&x->c->err, __ATOMIC_ACQUIRE) != 0)
		rc = -x->c->err;
	if (rc) {
		close(out);
		eng_done(x->c);
		return rc;
	}
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

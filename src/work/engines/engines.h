/* engines.h - private to src/work/engine.c, engine_child.c and the loops in
 * src/work/engines/: the context one engine process runs with, and the
 * helpers every I/O loop shares (counter updates, failure reporting, whole
 * writes, the final sync).
 *
 * Every loop returns 0 or a negative errno; on failure it has already put
 * the reason into the counter block with eng_fail(). */
#ifndef BENCHTOP_ENGINES_H
#define BENCHTOP_ENGINES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "benchtop/engine.h"

/* Large chunks for the in-kernel copies: few calls, yet counters that move
 * many times per sample interval. */
#define ENG_BIG_CHUNK (16u << 20)

struct eng_ctx {
	const struct wl_spec *w;
	const struct engine_job *job;
	struct engine_counters *c;
	int pipefd[2];          /* engine=pipe, else -1 */
	size_t bs;
	int oflags_extra;       /* O_DIRECT / O_DSYNC for files */
	/* engine=pipe: what crosses the pipe is counted once, on the side
	 * of the file: the reader counts rbytes, the writer bytes. */
	bool pipe_reader, pipe_writer;
	/* The only process of its job: it alone writes the counter block. */
	bool solo;
	/* Loop over the file until stopped (engine_plan.loop). */
	bool loop;
	/* This process counts the job's passes (one per job). */
	bool counts_passes;
};

/* Counters: atomic adds, since the processes of one job share the block. */
void eng_add(struct engine_counters *c, uint64_t bytes, uint64_t rbytes, uint64_t calls);
/* The same from an engine's loop: plain relaxed stores when x is the only
 * writer of its block (no locked instruction per call), else eng_add. */
void eng_count(struct eng_ctx *x, uint64_t bytes, uint64_t rbytes, uint64_t calls);
void eng_phase(struct engine_counters *c, int phase);
/* Mark the job finished (writer side) and wake the control process. */
void eng_done(struct engine_counters *c);
/* Record errno err with a message "VERB PATH: strerror" and return -err. */
int eng_fail(struct engine_counters *c, int err, const char *verb, const char *path);

/* A buffer of n bytes aligned for O_DIRECT, filled with a pattern. */
void *eng_buffer(size_t n);
/* Fill buf with a fast non-repeating pattern continuing from *state. */
void eng_pattern(void *buf, size_t n, uint64_t *state);

/* Open the existing file path for writing from offset 0, emptied: with
 * ftruncate only when it is not empty already, since on ext4 a truncate
 * (O_TRUNC too, even of an empty file) marks the file for a flush at close
 * (auto_da_alloc), about a quarter of a second per GiB that cp or cat
 * writing a new file never pay.  Returns the fd, or -1 with errno. */
int eng_open_empty(const char *path, int extra);
int eng_open_src(struct eng_ctx *x, int *fd);
int eng_open_dst(struct eng_ctx *x, int *fd);
/* Write all n bytes, counting calls and bytes; handles the unaligned tail of
 * an O_DIRECT file by dropping O_DIRECT for it. */
int eng_write_all(struct eng_ctx *x, int fd, const char *buf, size_t n, const char *path);
/* sync=end: phase 2 and fsync; then close, phase 3 and done. */
int eng_finish(struct eng_ctx *x, int fd, const char *path);
/* End of one pass of a looping engine: with sync=end fsync fd (when fd >=
 * 0), count the pass, and put fd (and in, when >= 0) back at offset 0 with
 * the file status flags fl it was opened with (a tail written without
 * O_DIRECT dropped it).  0 or a negative errno (eng_fail'ed). */
int eng_pass_end(struct eng_ctx *x, int in, int fd, int fl, const char *path);
/* The end of a job writing its destination fd: after an error rc (not 0)
 * close fd and return rc; else count the pass and eng_finish fd. */
int eng_wrap_up(struct eng_ctx *x, int rc, int fd);
/* Count a completed pass (one per job: the process with counts_passes). */
void eng_pass(struct eng_ctx *x);
/* Bytes this job has moved so far (to tell an empty pass). */
uint64_t eng_moved(const struct eng_ctx *x);

/* The source in is shorter than size now (it shrank under the copy):
 * fail saying so with both sizes and return -EIO; else return rc. */
int eng_shrunk(struct eng_ctx *x, int in, uint64_t size, int rc);
/* Cut the destination out at its current offset (a failed looping pass
 * leaves no tail of an earlier, longer one). */
void eng_cut_dst(int out);

/* The copy engines' frame: open the job's source and destination, run
 * loop(x, in, out), close, and on success eng_finish the destination. */
typedef int (*eng_loop)(struct eng_ctx *x, int in, int out);
int eng_copy_files(struct eng_ctx *x, eng_loop loop);

/* One in-kernel copy call (copy_file_range, sendfile): up to n bytes from
 * in to out at their file positions; bytes moved, 0 at EOF, or -1/errno. */
typedef ssize_t (*eng_step)(int in, int out, size_t n);
/* Call step with big chunks until EOF, counting each call and its bytes on
 * both sides; a failure is reported as "VERB DST: ...". */
int eng_chunk_loop(struct eng_ctx *x, int in, int out, eng_step step, const char *verb);

/* Copy in to out with read/write, x->bs at a time, until EOF. */
int eng_rw_loop(struct eng_ctx *x, int in, int out, const char *inpath, const char *outpath);
/* The same, stopping after limit bytes (UINT64_MAX: at EOF); *moved gets
 * the bytes copied. */
int eng_rw_span(struct eng_ctx *x, int in, int out, const char *inpath, const char *outpath,
                uint64_t limit, uint64_t *moved);

int eng_copy_rw(struct eng_ctx *x);
int eng_copy_cfr(struct eng_ctx *x);
int eng_copy_sendfile(struct eng_ctx *x);
int eng_copy_splice(struct eng_ctx *x);
int eng_copy_mmap(struct eng_ctx *x);
int eng_pipe_reader(struct eng_ctx *x);
int eng_pipe_writer(struct eng_ctx *x);
int eng_pipe_control(struct eng_ctx *x);
int eng_write(struct eng_ctx *x);
int eng_read(struct eng_ctx *x);
int eng_seek(struct eng_ctx *x);
/* net: the sender or the receiver of the loopback stream (net.c). */
int eng_net(struct eng_ctx *x, enum engine_role role);

#endif

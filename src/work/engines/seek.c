/* seek.c - bonnie's seeker: each seeker process reads `count` blocks of bs
 * at random block-aligned offsets of the file (count 0: until stopped).
 * The seekers of one job share its counter block. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engines.h"

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int seek_loop(struct eng_ctx *x, int fd, char *buf, uint64_t nblocks)
{
	struct timespec ts;
	uint64_t s, i;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	s = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ 0x9e3779b97f4a7c15ull;
	for (i = 0; x->w->count == 0 || i < x->w->count; i++) {
		off_t off = (off_t)((next_rand(&s) % nblocks) * x->bs);
		ssize_t n = pread(fd, buf, x->bs, off);

		eng_count(x, 0, 0, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return eng_fail(x->c, errno, "reading", x->job->src);
		eng_count(x, (uint64_t)n, (uint64_t)n, 0);
	}
	return 0;
}

int eng_seek(struct eng_ctx *x)
{
	struct stat st;
	char *buf;
	int fd, rc;

	if ((rc = eng_open_src(x, &fd)))
		return rc;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return eng_fail(x->c, errno, "examining", x->job->src);
	}
	buf = eng_buffer(x->bs);
	if (!buf) {
		close(fd);
		return eng_fail(x->c, ENOMEM, "allocating a buffer for", x->job->src);
	}
	do {
		rc = seek_loop(x, fd, buf, st.st_size >= (off_t)x->bs ? (uint64_t)st.st_size / x->bs : 1);
		/* count=N looping: N more reads, and a pass counted */
		if (rc == 0)
			eng_pass(x);
	} while (rc == 0 && x->loop && x->w->count > 0);
	free(buf);
	close(fd);
	return rc;
}

/* copy_mmap.c - engine=mmap: the source is mapped and written to the
 * destination with write(2) straight from the mapping, bs at a time (one
 * copy, no read buffer).  The mapping is populated a window ahead of the
 * writes (MADV_POPULATE_READ): a write from pages not yet mapped copies
 * short, zeroes what it had prepared, faults the pages in and starts over,
 * which made this engine four times slower than read/write. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engines.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Map [off, off + n) of the mapping now; where the kernel has no
 * MADV_POPULATE_READ (before Linux 5.14), touch a byte per page. */
static void populate(const char *map, size_t off, size_t n)
{
	static bool touch;
	long page = sysconf(_SC_PAGESIZE);
	volatile char sink;

	if (!touch && madvise((void *)(map + off), n, MADV_POPULATE_READ) == 0)
		return;
	if (errno == EINVAL)
		touch = true;
	for (size_t i = 0; touch && i < n; i += (size_t)page)
		sink = map[off + i];
	(void)sink;
}

/* A source that shrinks under its mapping faults: write(2) from it says
 * EFAULT ("Bad address"), touching it raises SIGBUS.  Both are told as
 * what happened. */
static struct engine_counters *bus_ctr;
static char bus_msg[sizeof bus_ctr->msg];

static void on_sigbus(int sig)
{
	(void)sig;
	if (bus_ctr) {
		memcpy(bus_ctr->msg, bus_msg, sizeof bus_msg);
		__atomic_store_n(&bus_ctr->err, EIO, __ATOMIC_RELEASE);
	}
	_exit(1);
}

static int mmap_loop(struct eng_ctx *x, int in, int out)
{
	struct stat st;
	char *map;
	size_t size, off, mapped = 0;
	size_t win = x->bs > ENG_BIG_CHUNK ? x->bs : ENG_BIG_CHUNK;
	int rc = 0;

	if (fstat(in, &st) != 0)
		return eng_fail(x->c, errno, "examining", x->job->src);
	if (!S_ISREG(st.st_mode))
		return eng_fail(x->c, EINVAL, "mapping (not a regular file)", x->job->src);
	size = (size_t)st.st_size;
	if (size == 0)
		return 0;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, in, 0);
	eng_count(x, 0, 0, 1);
	if (map == MAP_FAILED)
		return eng_fail(x->c, errno, "mapping", x->job->src);
	madvise(map, size, MADV_SEQUENTIAL);
	bus_ctr = x->c;
	snprintf(bus_msg, sizeof bus_msg, "copying %s: the source changed size during the copy "
	         "(it had %zu bytes when the copy began)", x->job->src, size);
	signal(SIGBUS, on_sigbus);
	for (off = 0; off < size && rc == 0; off += x->bs) {
		size_t n = size - off < x->bs ? size - off : x->bs;

		if (off + n > mapped) {
			size_t w = size - off < win ? size - off : win;

			rc = eng_shrunk(x, in, size, 0);
			if (rc)
				break;
			populate(map, off, w);
			mapped = off + w;
		}
		eng_count(x, 0, n, 0);
		rc = eng_write_all(x, out, map + off, n, x->job->dst);
		if (rc == -EFAULT)
			rc = eng_shrunk(x, in, size, rc);
	}
	signal(SIGBUS, SIG_DFL);
	munmap(map, size);
	return rc;
}

int eng_copy_mmap(struct eng_ctx *x)
{
	return eng_copy_files(x, mmap_loop);
}

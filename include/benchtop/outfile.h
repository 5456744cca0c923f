/* outfile.h - the one way benchtop writes a file the user names (a
 * recording, a report, a metrics file): a new temporary file beside the
 * name, made with O_EXCL|O_NOFOLLOW, then put at the name by link(2)
 * (nothing there) or rename(2) (--force).  Nothing already at the name is
 * opened, so a link someone else planted is replaced, never followed, and
 * a device node is never turned into a regular file.
 *
 * Call order: outfile_open, write to outfile_fd, outfile_publish (a
 * recording publishes before its first line, a report when complete),
 * then outfile_close; outfile_discard instead removes what benchtop made
 * (the temporary file, or the published file while it is still ours). */
#ifndef BENCHTOP_OUTFILE_H
#define BENCHTOP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
	OUTFILE_FORCE = 1,   /* an existing regular file (or link) at the name is replaced */
	OUTFILE_STREAM = 2,  /* a FIFO or terminal/character device is written in place */
};

struct outfile {
	int dirfd;      /* the name's directory */
	int fd;         /* what is written */
	char *path;     /* the name as the user gave it */
	char *base;     /* its last component */
	char tmp[96];   /* the temporary file's name in dirfd, "" when none */
	bool in_place;  /* a FIFO or device opened at the name itself */
	bool published; /* the name is benchtop's file now */
	unsigned long long dev, ino;  /* the file benchtop made */
};

/* Check path, then open the temporary file (or, with OUTFILE_STREAM, a
 * FIFO or character device at path, or behind a link owned by the user or
 * root, in place).  Refused: a directory (-EISDIR), an existing file
 * without OUTFILE_FORCE (-EEXIST), anything else that is not a regular
 * file (-EPERM: a block device, a socket, a FIFO for a non-stream), a
 * FIFO without a reader (-ENXIO).  Returns 0 or -errno with msg set,
 * naming path and what would work; what names the option ("-o"). */
int outfile_open(struct outfile *o, const char *what, const char *path, unsigned flags,
                 char *msg, size_t len);
/* Put the temporary file at the name: with OUTFILE_FORCE replacing what
 * is there, else only if nothing is (-EEXIST).  In place: nothing to do.
 * Returns 0 or -errno. */
int outfile_publish(struct outfile *o, unsigned flags);
/* Remove what benchtop made (the temporary file, or the published file
 * while the name still holds it), never a FIFO or device written in place;
 * then close.  Safe after outfile_close and on a zeroed struct. */
void outfile_discard(struct outfile *o);
/* A caller that hands fd to fdopen(3) sets o->fd to -1 and closes the
 * stream itself. */
/* Close the descriptor (if still open) and free; returns 0 or -errno of
 * close(2).  The temporary file, if never published, is removed. */
int outfile_close(struct outfile *o);

/* A recording: an outfile written through stdio as the run goes.  The
 * first write error (a full file system, EIO) is said once on standard
 * error, naming the file; the file is cut back to its last whole line and
 * nothing more is written to it. */
struct outstream {
	struct outfile of;
	FILE *fp;        /* NULL before open and after a failure */
	const char *what;
	long long good;  /* bytes known written: the end of the last whole flush */
	int err;         /* the first error, -errno; 0 while none */
};

/* outfile_open, then a stdio stream on it.  Not yet at the name: call
 * outstream_publish before the first line.  0 or -errno with msg set. */
int outstream_open(struct outstream *s, const char *what, const char *path, unsigned flags,
                   char *msg, size_t len);
/* outfile_publish with what went wrong in msg. */
int outstream_publish(struct outstream *s, unsigned flags, char *msg, size_t len);
/* Flush what was written and check it: 0, or s->err after the first
 * failure (said once; s->fp is NULL from then on). */
int outstream_check(struct outstream *s);
/* Flush, check and close: 0 or s->err. */
int outstream_close(struct outstream *s);
/* Close and remove the file (nothing of the run was written to it). */
void outstream_discard(struct outstream *s);

/* Write all of buf to fd, retrying short writes and EINTR: 0 or -errno. */
int outfile_write_all(int fd, const void *buf, size_t n);

#endif

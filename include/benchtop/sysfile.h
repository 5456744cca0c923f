/* sysfile.h - small files under /sys (or a fake tree given with --sysfs)
 * read and written whole: one value per file, as the kernel keeps them.
 * Paths are dir + "/" + name, so every caller works on any root. */
#ifndef BENCHTOP_SYSFILE_H
#define BENCHTOP_SYSFILE_H

#include <stddef.h>
#include <stdio.h>

/* Open path (relative to dirfd, or AT_FDCWD) for reading only if it is a
 * regular file.  The open is O_NONBLOCK, so a FIFO put where a file was
 * expected (a theme, the config file, a file in a --sysfs tree) cannot
 * block; the descriptor blocks again once checked.  Returns it, or -errno:
 * -EISDIR for a directory, -EINVAL for anything else not regular. */
int sysfile_open_regular(int dirfd, const char *path);
/* The same as a stdio stream; NULL with *err the -errno. */
FILE *sysfile_fopen_regular(const char *path, int *err);

/* Read dir/name into buf[0..len), NUL-terminated at the first NUL or the
 * end, trailing white space cut.  Returns the length or -errno. */
int sysfile_read(const char *dir, const char *name, char *buf, size_t len);
/* Read name under the open directory dirfd into buf[0..len) with one
 * read(2), NUL-terminated after what was read, nothing cut.  Returns 0 or
 * -errno. */
int sysfile_read_at(int dirfd, const char *name, char *buf, size_t len);
/* Write value and a newline to dir/name in one write(2) (O_TRUNC, which
 * sysfs ignores and which replaces a fake tree's content).  Returns 0 or
 * -errno (-EIO for a short write). */
int sysfile_write(const char *dir, const char *name, const char *value);
/* The same on fd, opened for writing by the caller (for example beneath a
 * checked root); fd is closed.  Returns 0 or -errno. */
int sysfile_write_fd(int fd, const char *value);

#endif

/* outfile.c - files the user names, written beside the name and put there
 * by link or rename, so nothing at the name is ever opened or truncated. */
#include "benchtop/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "benchtop/xalloc.h"

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISCHR(m) ? "a character device" :
	       S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link" : "not a regular file";
}

/* A temporary name that the name's readers never take for the file (it
 * does not end like it), made with O_EXCL|O_NOFOLLOW so nothing already
 * there is followed or reused; mode 0666 less the umask. */
static int make_temp(struct outfile *o)
{
	for (int i = 0; i < 1000; i++) {
		snprintf(o->tmp, sizeof o->tmp, ".%.60s.%d.%d.tmp", o->base, (int)getpid(), i);
		int fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0) {
			o->dev = st.st_dev;
			o->ino = st.st_ino;
		}
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	o->tmp[0] = '\0';
	return -e;
}

/* A FIFO or character device opened where it is: O_NONBLOCK so a FIFO
 * without a reader fails (ENXIO) rather than waiting, then blocking again
 * for the writes.  What was opened is checked again, so a name swapped in
 * between is refused, not written. */
static int open_in_place(struct outfile *o)
{
	int fd = openat(o->dirfd, o->base, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		close(fd);
		return -EPERM;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	o->in_place = true;
	return fd;
}

/* What a link at the name leads to, when the link is one the user may
 * follow: owned by the user or by root (such as /dev/stdout).  0 with *st
 * the target's, or -1 when the link is not followed. */
static int followed(const struct outfile *o, const struct stat *lst, struct stat *st)
{
	if (lst->st_uid != geteuid() && lst->st_uid != 0)
		return -1;
	return fstatat(o->dirfd, o->base, st, 0) == 0 ? 0 : -1;
}

static int split(struct outfile *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	o->path = xstrdup(path);
	o->base = xstrdup(slash ? slash + 1 : path);
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int e = o->dirfd < 0 ? -errno : 0;
	free(dir);
	return e;
}

static int refuse(int rc, char *msg, size_t len, const char *fmt, const char *what, const char *path,
                  const char *detail)
{
	snprintf(msg, len, fmt, what, path, detail);
	return rc;
}

/* What is at the name decides: nothing (a new file), a regular file or a
 * link (replaced with force), a stream (in place), anything else refused. */
static int check_name(struct outfile *o, const char *what, unsigned flags, char *msg, size_t len)
{
	struct stat lst, st;
	if (fstatat(o->dirfd, o->base, &lst, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : refuse(-errno, msg, len, "%s %s: %s", what, o->path, strerror(errno));
	st = lst;
	bool link = S_ISLNK(lst.st_mode);
	if (link && followed(o, &lst, &st) != 0)
		st = lst;
	bool stream = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
	if (stream && (flags & OUTFILE_STREAM))
		return 1;
	if (S_ISDIR(st.st_mode))
		return refuse(-EISDIR, msg, len, "%s %s: is a directory (%s)", what, o->path,
		              "give a file name in it");
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return refuse(-EPERM, msg, len, "%s %s: is %s: benchtop replaces only regular files "
		              "(choose a new file name)", what, o->path, kind_of(st.st_mode));
	if (!(flags & OUTFILE_FORCE))
		return refuse(-EEXIST, msg, len, "%s %s: %s", what, o->path,
		              "exists (choose a new file, or add --force to replace it)");
	return 0;
}

static void free_names(struct outfile *o);

static int open_checked(struct outfile *o, const char *what, const char *path, unsigned flags,
                        char *msg, size_t len)
{
	int rc = split(o, path);
	if (rc)
		return refuse(rc, msg, len, "%s %s: cannot use its directory: %s (give a file in an existing, "
		              "writable directory)", what, path, strerror(-rc));
	if (!o->base[0] || !strcmp(o->base, ".") || !strcmp(o->base, ".."))
		return refuse(-EISDIR, msg, len, "%s %s: names a directory (%s)", what, path, "give a file name");
	rc = check_name(o, what, flags, msg, len);
	if (rc < 0)
		return rc;
	o->fd = rc == 1 ? open_in_place(o) : make_temp(o);
	if (o->fd >= 0)
		return 0;
	rc = o->fd;
	o->fd = -1;
	if (rc == -ENXIO)
		return refuse(rc, msg, len, "%s %s: %s", what, path, "a FIFO without a reader (start its reader first)");
	return refuse(rc, msg, len, "%s %s: cannot write there: %s", what, path, strerror(-rc));
}

int outfile_open(struct outfile *o, const char *what, const char *path, unsigned flags,
                 char *msg, size_t len)
{
	memset(o, 0, sizeof *o);
	o->fd = o->dirfd = -1;
	int rc = open_checked(o, what, path, flags, msg, len);
	if (rc)
		free_names(o);  /* nothing to close or remove on a refusal */
	return rc;
}

int outfile_publish(struct outfile *o, unsigned flags)
{
	if (o->in_place || o->published)
		return 0;
	if (!o->tmp[0])
		return -EBADF;
	if (flags & OUTFILE_FORCE) {
		/* the name is replaced, whatever link it held is not followed;
		 * a device node or FIFO that appeared since is left alone */
		struct stat st;
		if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			return -EPERM;
		if (renameat(o->dirfd, o->tmp, o->dirfd, o->base) != 0)
			return -errno;
	} else if (linkat(o->dirfd, o->tmp, o->dirfd, o->base, 0) == 0) {
		unlinkat(o->dirfd, o->tmp, 0);
	} else if (errno == EEXIST) {
		return -EEXIST;
	} else {
		/* a file system without hard links: claim the name, then
		 * replace the empty file made for it */
		int fd = openat(o->dirfd, o->base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		close(fd);
		if (renameat(o->dirfd, o->tmp, o->dirfd, o->base) != 0)
			return -errno;
	}
	o->tmp[0] = '\0';
	o->published = true;
	return 0;
}

static void free_names(struct outfile *o)
{
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
	free(o->path);
	free(o->base);
	o->path = o->base = NULL;
}

void outfile_discard(struct outfile *o)
{
	if (!o->path)
		return;
	if (o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	o->tmp[0] = '\0';
	struct stat st;
	if (o->published && fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == o->dev && st.st_ino == o->ino)
		unlinkat(o->dirfd, o->base, 0);
	o->published = false;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	free_names(o);
}

int outfile_close(struct outfile *o)
{
	int rc = 0;
	if (o->fd >= 0 && close(o->fd) != 0)
		rc = -errno;
	o->fd = -1;
	if (o->path && o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	o->tmp[0] = '\0';
	if (o->path)
		free_names(o);
	return rc;
}

int outfile_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* ---- recordings ---------------------------------------------------------- */

int outstream_open(struct outstream *s, const char *what, const char *path, unsigned flags,
                   char *msg, size_t len)
{
	memset(s, 0, sizeof *s);
	s->what = what;
	int rc = outfile_open(&s->of, what, path, flags, msg, len);
	if (rc)
		return rc;
	s->fp = fdopen(s->of.fd, "w");
	if (!s->fp) {
		rc = -errno;
		outfile_discard(&s->of);
		snprintf(msg, len, "%s %s: %s", what, path, strerror(-rc));
		return rc;
	}
	s->of.fd = -1;
	return 0;
}

int outstream_publish(struct outstream *s, unsigned flags, char *msg, size_t len)
{
	int rc = outfile_publish(&s->of, flags);
	if (rc)
		snprintf(msg, len, "%s %s: %s%s", s->what, s->of.path, strerror(-rc),
		         rc == -EEXIST ? " (it appeared since the start: choose a new file, or add --force)" :
		         rc == -EPERM ? " (it is no longer a regular file)" : "");
	return rc;
}

static void stream_failed(struct outstream *s, int e)
{
	/* stdio may have met the error in an earlier write and left errno
	 * as it found it: a file system with no room left says why */
	struct statvfs v;
	if (!e && fstatvfs(fileno(s->fp), &v) == 0 && v.f_bavail == 0)
		e = ENOSPC;
	s->err = e ? -e : -EIO;
	fprintf(stderr, "benchtop: %s %s: %s: the recording stops here, the run goes on\n", s->what,
	        s->of.path, strerror(-s->err));
	/* a line cut in the middle would make the file unreadable: back to
	 * the end of the last whole flush */
	if (!s->of.in_place && ftruncate(fileno(s->fp), (off_t)s->good) != 0)
		s->good = -1;
	fclose(s->fp);
	s->fp = NULL;
}

int outstream_check(struct outstream *s)
{
	if (!s->fp)
		return s->err;
	errno = 0;
	if (fflush(s->fp) != 0 || ferror(s->fp)) {
		stream_failed(s, errno);
		return s->err;
	}
	if (!s->of.in_place) {
		off_t at = ftello(s->fp);
		if (at >= 0)
			s->good = at;
	}
	return 0;
}

int outstream_close(struct outstream *s)
{
	if (s->fp && outstream_check(s) == 0) {
		errno = 0;
		if (fclose(s->fp) != 0) {
			s->err = errno ? -errno : -EIO;
			fprintf(stderr, "benchtop: %s %s: %s: the end of the recording may be lost\n", s->what,
			        s->of.path, strerror(-s->err));
		}
		s->fp = NULL;
	}
	outfile_close(&s->of);
	return s->err;
}

void outstream_discard(struct outstream *s)
{
	if (s->fp)
		fclose(s->fp);
	s->fp = NULL;
	outfile_discard(&s->of);
}

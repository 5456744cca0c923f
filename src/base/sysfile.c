/* sysfile.c - one-value files under /sys read and written whole. */
#include "benchtop/sysfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sysfile_open_regular(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = fstat(fd, &st) != 0 ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : !S_ISREG(st.st_mode) ? -EINVAL : 0;
	int fl = rc ? -1 : fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

FILE *sysfile_fopen_regular(const char *path, int *err)
{
	int fd = sysfile_open_regular(AT_FDCWD, path);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	*err = fd < 0 ? fd : f ? 0 : -errno;
	if (!f && fd >= 0)
		close(fd);
	return f;
}

int sysfile_read(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX + 64];
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = sysfile_open_regular(AT_FDCWD, path);
	if (fd < 0)
		return fd;
	n = (int)read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	n = (int)strlen(buf);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return n;
}

int sysfile_read_at(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = sysfile_open_regular(dirfd, name);
	if (fd < 0)
		return fd;
	ssize_t n = read(fd, buf, len - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return 0;
}

int sysfile_write(const char *dir, const char *name, const char *value)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return sysfile_write_fd(fd, value);
}

int sysfile_write_fd(int fd, const char *value)
{
	char buf[256];
	int rc = 0, n = snprintf(buf, sizeof(buf), "%s\n", value);

	if (n < 0 || (size_t)n >= sizeof(buf)) {
		close(fd);
		return -EINVAL;
	}
	errno = 0;
	if (write(fd, buf, (size_t)n) != n)
		rc = errno ? -errno : -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

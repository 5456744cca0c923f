/* pagecache.c - evicting files from the page cache, dropping it whole,
 * and the disk reads under a file, from /proc/diskstats. */
#include "benchtop/pagecache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *fs_name(long type)
{
	switch ((unsigned long)type) {
	case 0x01021994: return "tmpfs";
	case 0x794c7630: return "overlay";
	case 0x9123683e: return "btrfs (no single device)";
	case 0x6969: return "nfs";
	case 0x65735546: return "fuse";
	case 0x858458f6: return "ramfs";
	default: return "a file system without a block device";
	}
}

int pagecache_disk_of(const char *path, char *name, size_t len, char *why, size_t whylen)
{
	struct stat st;
	if (why && whylen)
		why[0] = 0;
	if (stat(path, &st) != 0)
		return -errno;
	FILE *f = fopen("/proc/diskstats", "re");
	if (!f)
		return -errno;
	char line[512], dev[64];
	unsigned ma, mi;
	int rc = -ENODEV;
	while (rc && fgets(line, sizeof line, f))
		if (sscanf(line, "%u %u %63s", &ma, &mi, dev) == 3 && ma == major(st.st_dev) && mi == minor(st.st_dev)) {
			snprintf(name, len, "%s", dev);
			rc = 0;
		}
	fclose(f);
	struct statfs sf;
	if (rc && why && whylen && statfs(path, &sf) == 0)
		snprintf(why, whylen, "%s", fs_name(sf.f_type));
	return rc;
}

int pagecache_evict(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) ? -errno : 0;
	int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return rc ? rc : -e;
}

int pagecache_can_drop(void)
{
	return geteuid() == 0 && access("/proc/sys/vm/drop_caches", W_OK) == 0;
}

int pagecache_drop_all(void)
{
	sync();
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = write(fd, "3\n", 2) == 2 ? 0 : -errno;
	close(fd);
	return rc;
}

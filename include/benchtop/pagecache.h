/* pagecache.h - what the page cache holds and what the disk really read:
 * the helpers experiments use to be honest about the cache.
 *
 * Every read test of an experiment is preceded by pagecache_evict() of the
 * file it reads (or pagecache_drop_all() when root and asked); its bytes
 * from disk are what its processes read from storage (their read_bytes). */
#ifndef BENCHTOP_PAGECACHE_H
#define BENCHTOP_PAGECACHE_H

#include <stddef.h>
#include <stdint.h>

/* The block device under path as /proc/diskstats names it (a partition
 * when the file system sits on one), into name.  0, or -ENODEV when there
 * is none (tmpfs, overlay, a network file system) with the file system's
 * type in why (e.g. "tmpfs"), or another -errno. */
int pagecache_disk_of(const char *path, char *name, size_t len, char *why, size_t whylen);

/* Push path's dirty pages to disk (fsync) and drop its pages from the
 * cache (posix_fadvise DONTNEED; no root needed).  0 or -errno. */
int pagecache_evict(const char *path);

/* sync(2), then drop the whole page cache ("3" into
 * /proc/sys/vm/drop_caches).  0 or -errno (-EACCES when not root). */
int pagecache_drop_all(void);
/* True when pagecache_drop_all would be allowed (root, a writable file). */
int pagecache_can_drop(void);

#endif

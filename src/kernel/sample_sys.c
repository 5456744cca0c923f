/* sample_sys.c - machine-wide sources of a snapshot: per-CPU load
 * (/proc/stat), Dirty/Writeback (/proc/meminfo) and the sectors moved by
 * the block device under the watched files (its sysfs "stat"), each read
 * through a descriptor held open: one pread a tick.  The disk's own stat
 * file is a line, where /proc/diskstats lists every device. */
#include "sample_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "benchtop/sample.h"
#include "benchtop/xalloc.h"

/* busy = user, system, iowait, irq; all = busy + idle (+ stolen). */
struct cpu_tics {
	uint64_t user, system, iowait, irq, idle, total;
};

struct ssys {
	int ncpu;
	int stat_fd, mem_fd;            /* /proc/stat and /proc/meminfo, held open */
	char *buf;                      /* room for either */
	size_t buf_len;
	int disk_fd;                    /* the watched disk's sysfs stat */
	struct cpu_tics *prev;
	char device[32];
	uint64_t rsect, wsect;
	bool have_sect;
	bool watched;          /* a path or device was given (ssys_watch) */
	bool guessed;          /* only a guess (ssys_watch_guess): the first
	                        * file the tree writes names the device */
};

struct ssys *ssys_new(int ncpu)
{
	struct ssys *y = xcalloc(1, sizeof *y);

	if (!y)
		return NULL;
	y->ncpu = ncpu;
	y->disk_fd = -1;
	y->prev = xcalloc((size_t)ncpu, sizeof *y->prev);
	if (!y->prev) {
		free(y);
		return NULL;
	}
	/* A source that cannot open stays -1 and is reported missing.  The
	 * CPU lines come first in /proc/stat: room for them and some more. */
	y->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	y->mem_fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
	y->buf_len = 8192 + (size_t)ncpu * 160;
	y->buf = xmalloc(y->buf_len);
	if (!y->buf) {
		ssys_free(y);
		return NULL;
	}
	return y;
}

void ssys_free(struct ssys *y)
{
	if (!y)
		return;
	if (y->stat_fd >= 0)
		close(y->stat_fd);
	if (y->mem_fd >= 0)
		close(y->mem_fd);
	if (y->disk_fd >= 0)
		close(y->disk_fd);
	free(y->buf);
	free(y->prev);
	free(y);
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0;
}

static uint64_t since(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : 0;
}

static void cpu_fill(struct cpu_sample *c, const struct cpu_tics *now, const struct cpu_tics *was)
{
	uint64_t total = since(now->total, was->total);

	c->user = pct(since(now->user, was->user), total);
	c->system = pct(since(now->system, was->system), total);
	c->iowait = pct(since(now->iowait, was->iowait), total);
	c->irq = pct(since(now->irq, was->irq), total);
	c->idle = pct(since(now->idle, was->idle), total);
}

static void cpu_missing(struct cpu_sample *c)
{
	c->user = c->system = c->iowait = c->irq = c->idle = -1;
}

/* The file behind fd, from its start, into y->buf: bytes or -errno. */
static ssize_t sys_read(struct ssys *y, int fd)
{
	if (fd < 0)
		return -ENOENT;
	ssize_t n = pread(fd, y->buf, y->buf_len - 1, 0);
	if (n < 0)
		return -errno;
	y->buf[n] = '\0';
	return n;
}

/* One "cpuN user nice system idle iowait irq softirq steal" line. */
static bool cpu_line(const char *line, int *id, struct cpu_tics *t)
{
	unsigned long long v[8] = { 0 };
	char *end;
	if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
		return false;
	*id = (int)strtol(line + 3, &end, 10);
	const char *q = end;
	int k = 0;
	for (; k < 8; k++, q = end) {
		v[k] = strtoull(q, &end, 10);
		if (end == q)
			break;  /* old kernels stop early: missing fields are 0 */
	}
	if (k < 4)
		return false;
	*t = (struct cpu_tics){ .user = v[0] + v[1], .system = v[2], .idle = v[3], .iowait = v[4],
	                        .irq = v[5] + v[6] };
	t->total = t->user + t->system + t->iowait + t->irq + t->idle + v[7];
	return true;
}

int ssys_cpu(struct ssys *y, struct snapshot *s)
{
	int n = s->ncpu < y->ncpu ? s->ncpu : y->ncpu;

	for (int i = 0; i < n; i++)
		cpu_missing(&s->cpus[i]);
	ssize_t len = sys_read(y, y->stat_fd);
	if (len <= 0)
		return len < 0 ? (int)len : -EIO;
	for (const char *line = y->buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		struct cpu_tics t = { 0 };
		int id;
		if (strncmp(line, "cpu", 3))
			break;  /* past the CPU lines */
		if (!cpu_line(line, &id, &t) || id < 0 || id >= n)
			continue;  /* the total line; offline CPUs are not listed: left missing */
		cpu_fill(&s->cpus[id], &t, &y->prev[id]);
		y->prev[id] = t;
	}
	return 0;
}

/* st_dev -> /sys/dev/block/MAJ:MIN -> the whole disk's name and its
 * sysfs directory: a partition's sits inside its disk's and has a
 * "partition" file. */
static int disk_of_dev(dev_t dev, char *name, size_t len, char *dir, size_t dlen)
{
	char link[64], real[PATH_MAX], probe[PATH_MAX + 16];

	snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real))
		return -errno;
	snprintf(probe, sizeof probe, "%s/partition", real);
	if (access(probe, F_OK) == 0)
		*strrchr(real, '/') = '\0';
	snprintf(dir, dlen, "%s", real);
	snprintf(name, len, "%s", basename(real));
	return 0;
}

void ssys_watch(struct ssys *y, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		ssys_watch_dev(y, st.st_dev);
}

void ssys_watch_guess(struct ssys *y, const char *path)
{
	if (y->watched)
		return;
	ssys_watch(y, path);
	y->watched = y->guessed = true;
}

void ssys_watch_dev(struct ssys *y, dev_t dev)
{
	char name[32], dir[PATH_MAX], path[PATH_MAX + 8];

	bool guess = y->guessed;
	y->watched = true;
	y->guessed = false;
	if (disk_of_dev(dev, name, sizeof name, dir, sizeof dir) != 0) {
		/* tmpfs, overlay: no block device; stays missing (a guess's
		 * device goes: the tree writes where there is none) */
		if (guess && y->disk_fd >= 0) {
			close(y->disk_fd);
			y->disk_fd = -1;
			y->device[0] = '\0';
		}
		return;
	}
	if (strcmp(name, y->device) == 0 && y->disk_fd >= 0)
		return;
	if (y->disk_fd >= 0)
		close(y->disk_fd);
	snprintf(path, sizeof path, "%s/stat", dir);
	y->disk_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	snprintf(y->device, sizeof y->device, "%s", name);
	y->have_sect = false;
}

bool ssys_watching(const struct ssys *y)
{
	return y->watched && !y->guessed;
}

int ssys_disk(struct ssys *y, struct snapshot *s, double dt)
{
	s->disk.read_bps = s->disk.write_bps = 0;
	snprintf(s->disk.device, sizeof s->disk.device, "%s", y->device);
	if (!y->device[0])
		return 0;
	uint64_t rs, ws;
	if (sys_read(y, y->disk_fd) <= 0 || sample_parse_disk_stat(y->buf, &rs, &ws) != 0) {
		s->disk.device[0] = '\0';
		return -ENOENT;
	}
	if (y->have_sect) {
		/* the kernel counts 512-byte sectors whatever the device's block size */
		s->disk.read_bps = sample_rate(y->rsect, rs, dt) * 512;
		s->disk.write_bps = sample_rate(y->wsect, ws, dt) * 512;
	}
	y->rsect = rs;
	y->wsect = ws;
	y->have_sect = true;
	return 0;
}

/* The kB of a "Key:   N kB" line of meminfo, in bytes; false if none. */
static bool mem_field(const char *text, const char *key, uint64_t *bytes)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			*bytes = strtoull(p + klen + 1, NULL, 10) * 1024;
			return true;
		}
	return false;
}

int ssys_mem(struct ssys *y, struct snapshot *s)
{
	ssize_t len = sys_read(y, y->mem_fd);
	if (len <= 0)
		return len < 0 ? (int)len : -EIO;
	uint64_t dirty, wb;
	if (!mem_field(y->buf, "Dirty", &dirty) || !mem_field(y->buf, "Writeback", &wb))
		return -EIO;
	s->disk.dirty = dirty;
	s->disk.writeback = wb;
	return 0;
}

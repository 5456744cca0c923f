/* sample_sys.c - machine-wide sources of a snapshot: per-CPU load
 * (libproc2 stat), the block device under the watched files (libproc2
 * diskstats) and Dirty/Writeback (libproc2 meminfo). */
#include "sample_priv.h"

#include <errno.h>
#include <libgen.h>
#include <libproc2/diskstats.h>
#include <libproc2/meminfo.h>
#include <libproc2/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "benchtop/sample.h"
#include "benchtop/xalloc.h"

/* One list makes both the libproc2 item array and the enum indexing it. */
#define CPU_ITEMS(X) \
	X(CI_ID, STAT_TIC_ID) \
	X(CI_USER, STAT_TIC_USER) \
	X(CI_NICE, STAT_TIC_NICE) \
	X(CI_SYSTEM, STAT_TIC_SYSTEM) \
	X(CI_IDLE, STAT_TIC_IDLE) \
	X(CI_IOWAIT, STAT_TIC_IOWAIT) \
	X(CI_IRQ, STAT_TIC_IRQ) \
	X(CI_SOFTIRQ, STAT_TIC_SOFTIRQ) \
	X(CI_STOLEN, STAT_TIC_STOLEN)
#define AS_ENUM(e, item) e,
#define AS_ITEM(e, item) item,
enum cpu_idx { CPU_ITEMS(AS_ENUM) CI_COUNT };
static enum stat_item cpu_items[] = { CPU_ITEMS(AS_ITEM) };

#define DISK_ITEMS(X) \
	X(DI_NAME, DISKSTATS_NAME) \
	X(DI_RSECT, DISKSTATS_READ_SECTORS) \
	X(DI_WSECT, DISKSTATS_WRITE_SECTORS)
enum disk_idx { DISK_ITEMS(AS_ENUM) DI_COUNT };
static enum diskstats_item disk_items[] = { DISK_ITEMS(AS_ITEM) };

#define MEM_ITEMS(X) \
	X(MI_DIRTY, MEMINFO_MEM_DIRTY) \
	X(MI_WRITEBACK, MEMINFO_MEM_WRITEBACK)
enum mem_idx { MEM_ITEMS(AS_ENUM) MI_COUNT };
static enum meminfo_item mem_items[] = { MEM_ITEMS(AS_ITEM) };

/* busy = user, system, iowait, irq; all = busy + idle (+ stolen). */
struct cpu_tics {
	uint64_t user, system, iowait, irq, idle, total;
};

struct ssys {
	int ncpu;
	struct stat_info *stat;
	struct diskstats_info *disk;
	struct meminfo_info *mem;
	struct cpu_tics *prev;
	char device[32];
	uint64_t rsect, wsect;
	bool have_sect;
	bool watched;          /* a path or device was given (ssys_watch) */
};

struct ssys *ssys_new(int ncpu)
{
	struct ssys *y = xcalloc(1, sizeof *y);

	if (!y)
		return NULL;
	y->ncpu = ncpu;
	y->prev = xcalloc((size_t)ncpu, sizeof *y->prev);
	if (!y->prev) {
		free(y);
		return NULL;
	}
	/* A source that cannot open stays NULL and is reported missing. */
	if (procps_stat_new(&y->stat) < 0)
		y->stat = NULL;
	if (procps_meminfo_new(&y->mem) < 0)
		y->mem = NULL;
	return y;
}

void ssys_free(struct ssys *y)
{
	if (!y)
		return;
	if (y->stat)
		procps_stat_unref(&y->stat);
	if (y->disk)
		procps_diskstats_unref(&y->disk);
	if (y->mem)
		procps_meminfo_unref(&y->mem);
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

int ssys_cpu(struct ssys *y, struct snapshot *s)
{
	int n = s->ncpu < y->ncpu ? s->ncpu : y->ncpu;

	for (int i = 0; i < n; i++)
		cpu_missing(&s->cpus[i]);
	if (!y->stat)
		return -ENOENT;
	struct stat_reaped *r = procps_stat_reap(y->stat, STAT_REAP_CPUS_ONLY, cpu_items, CI_COUNT);
	if (!r)
		return -errno ? -errno : -EIO;
	for (int i = 0; i < r->cpus->total; i++) {
		struct stat_result *h = r->cpus->stacks[i]->head;
		int id = h[CI_ID].result.s_int;
		if (id < 0 || id >= n)
			continue;  /* offline CPUs are not reported: left missing */
		struct cpu_tics t = {
			.user = h[CI_USER].result.ull_int + h[CI_NICE].result.ull_int,
			.system = h[CI_SYSTEM].result.ull_int,
			.iowait = h[CI_IOWAIT].result.ull_int,
			.irq = h[CI_IRQ].result.ull_int + h[CI_SOFTIRQ].result.ull_int,
			.idle = h[CI_IDLE].result.ull_int,
		};
		t.total = t.user + t.system + t.iowait + t.irq + t.idle + h[CI_STOLEN].result.ull_int;
		cpu_fill(&s->cpus[id], &t, &y->prev[id]);
		y->prev[id] = t;
	}
	return 0;
}

/* st_dev -> /sys/dev/block/MAJ:MIN -> the whole disk's name: a partition's
 * sysfs directory sits inside its disk's and has a "partition" file. */
static int disk_of_dev(dev_t dev, char *name, size_t len)
{
	char link[64], real[PATH_MAX], probe[PATH_MAX + 16];

	snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real))
		return -errno;
	snprintf(probe, sizeof probe, "%s/partition", real);
	if (access(probe, F_OK) == 0)
		*strrchr(real, '/') = '\0';
	snprintf(name, len, "%s", basename(real));
	return 0;
}

void ssys_watch(struct ssys *y, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		ssys_watch_dev(y, st.st_dev);
}

void ssys_watch_dev(struct ssys *y, dev_t dev)
{
	char name[32];

	y->watched = true;
	if (disk_of_dev(dev, name, sizeof name) != 0)
		return;  /* tmpfs, overlay: no block device; stays missing */
	if (strcmp(name, y->device) != 0) {
		snprintf(y->device, sizeof y->device, "%s", name);
		y->have_sect = false;
	}
}

bool ssys_watching(const struct ssys *y)
{
	return y->watched;
}

int ssys_disk(struct ssys *y, struct snapshot *s, double dt)
{
	s->disk.read_bps = s->disk.write_bps = 0;
	snprintf(s->disk.device, sizeof s->disk.device, "%s", y->device);
	if (!y->device[0])
		return 0;
	if (!y->disk && procps_diskstats_new(&y->disk) < 0) {
		y->disk = NULL;
		return -ENOENT;
	}
	struct diskstats_stack *d = procps_diskstats_select(y->disk, y->device, disk_items, DI_COUNT);
	if (!d) {
		s->disk.device[0] = '\0';
		return -ENOENT;
	}
	uint64_t rs = d->head[DI_RSECT].result.ul_int, ws = d->head[DI_WSECT].result.ul_int;
	if (y->have_sect) {
		/* diskstats counts 512-byte sectors whatever the device's block size */
		s->disk.read_bps = sample_rate(y->rsect, rs, dt) * 512;
		s->disk.write_bps = sample_rate(y->wsect, ws, dt) * 512;
	}
	y->rsect = rs;
	y->wsect = ws;
	y->have_sect = true;
	return 0;
}

int ssys_mem(struct ssys *y, struct snapshot *s)
{
	if (!y->mem)
		return -ENOENT;
	/* select rereads the file; procps_meminfo_get would cache for a second */
	struct meminfo_stack *m = procps_meminfo_select(y->mem, mem_items, MI_COUNT);
	if (!m)
		return -EIO;
	s->disk.dirty = (uint64_t)m->head[MI_DIRTY].result.ul_int * 1024;
	s->disk.writeback = (uint64_t)m->head[MI_WRITEBACK].result.ul_int * 1024;
	return 0;
}

/* sample_fd.c - destination-side bytes of command workloads, from the
 * regular files their processes hold open.
 *
 * Per workload and file (dev, inode, direction) the bytes moved are
 * max(growth of the file positions, growth of the file size): cp copies a
 * whole file in one copy_file_range call and its position moves only when
 * the call returns, while the size grows all along; taking the larger of
 * the two never counts the same byte twice.  Pipes are never looked at, so
 * a pipeline is not counted once per stage.  A process without such a
 * file falls back to its write_bytes / read_bytes. */
#include "sample_priv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchtop/sample.h"
#include "benchtop/xalloc.h"

#define TICK_POS 4

/* One file a workload reads or writes, shared by all its holders. */
struct sfile {
	int wl;
	dev_t dev;
	ino_t ino;
	bool write;
	int path_fd;            /* O_PATH: the final size after the last close */
	int refs;               /* sofiles pointing here */
	uint64_t size0, size;   /* size when first seen (less what pos explains), now */
	uint64_t pgrowth;       /* position growth of distinct open descriptions */
	uint64_t counted;       /* max(pgrowth, size growth) already credited */
	pid_t credit;           /* who gets this tick's growth */
	uint64_t best_dpos;
	uint64_t tick_pos[TICK_POS];  /* positions counted this tick */
	int ntick_pos;
};

struct sfiles {
	struct sfile *v;
	int n, cap;
};

struct sfiles *sfiles_new(void)
{
	return xcalloc(1, sizeof(struct sfiles));
}

void sfiles_free(struct sfiles *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++)
		if (f->v[i].path_fd >= 0)
			close(f->v[i].path_fd);
	free(f->v);
	free(f);
}

int sample_grow(void **p, int *cap, int want, size_t elem)
{
	if (want <= *cap)
		return 0;
	int n = *cap ? *cap * 2 : 8;
	while (n < want)
		n *= 2;
	void *q = xrealloc(*p, (size_t)n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static struct sfile *sfile_find(struct sfiles *f, int wl, dev_t dev, ino_t ino, bool write)
{
	for (int i = 0; i < f->n; i++) {
		struct sfile *s = &f->v[i];
		if (s->ino == ino && s->dev == dev && s->wl == wl && s->write == write)
			return s;
	}
	return NULL;
}

static struct sfile *sfile_add(struct sfiles *f, int wl, const struct stat *st, bool write)
{
	if (sample_grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v))
		return NULL;
	struct sfile *s = &f->v[f->n++];
	*s = (struct sfile){ .wl = wl, .dev = st->st_dev, .ino = st->st_ino, .write = write,
	                     .path_fd = -1, .size0 = (uint64_t)st->st_size,
	                     .size = (uint64_t)st->st_size };
	return s;
}

/* A position that moved by dpos: counted unless another holder of the same
 * open description (a shell and the command it started share fd 1) already
 * reported this very position in this tick. */
static void sfile_pos(struct sfile *s, pid_t pid, uint64_t pos, uint64_t dpos)
{
	if (!s->credit)
		s->credit = pid;
	if (!dpos)
		return;
	for (int i = 0; i < s->ntick_pos; i++)
		if (s->tick_pos[i] == pos)
			return;
	if (s->ntick_pos < TICK_POS)
		s->tick_pos[s->ntick_pos++] = pos;
	s->pgrowth += dpos;
	if (dpos >= s->best_dpos) {
		s->best_dpos = dpos;
		s->credit = pid;
	}
}

static void sofile_release(struct sfiles *f, struct sofile *o, int wl)
{
	struct sfile *s = sfile_find(f, wl, o->dev, o->ino, o->write);
	if (s)
		s->refs--;
}

/* A file created after its writer's tree was first tracked is all new:
 * cp may be half-way through one copy_file_range when first seen. */
static bool born_after(int dirfd, const char *name, const struct timespec *since)
{
	struct statx sx;

	if (statx(dirfd, name, 0, STATX_BTIME, &sx) != 0 || !(sx.stx_mask & STATX_BTIME))
		return false;
	return sx.stx_btime.tv_sec > since->tv_sec ||
	       (sx.stx_btime.tv_sec == since->tv_sec && sx.stx_btime.tv_nsec >= (unsigned)since->tv_nsec);
}

/* First sight of fd in p.  The position is counted from 0 (the process
 * wrote what it has written since it opened the file) unless the file was
 * already known to the workload (an inherited or second descriptor) or is
 * O_APPEND (its position is the old end of file). */
static struct sofile *sofile_new(struct sfiles *f, struct sproc *p, int dirfd, const char *name,
                                 int fd, const struct stat *st, bool write, uint64_t pos, unsigned flags)
{
	if (sample_grow((void **)&p->of, &p->capof, p->nof + 1, sizeof *p->of))
		return NULL;
	struct sfile *s = sfile_find(f, p->wl, st->st_dev, st->st_ino, write);
	bool known = s != NULL;
	if (!s && !(s = sfile_add(f, p->wl, st, write)))
		return NULL;
	if (!known && write)
		s->path_fd = openat(dirfd, name, O_PATH | O_CLOEXEC);
	bool from_zero = !known && !(flags & O_APPEND);
	if (from_zero && write)
		s->size0 = born_after(dirfd, name, &p->since) ? 0 : s->size0 - (pos < s->size0 ? pos : s->size0);
	s->refs++;
	struct sofile *o = &p->of[p->nof++];
	*o = (struct sofile){ .fd = fd, .dev = st->st_dev, .ino = st->st_ino, .write = write,
	                      .pos = from_zero ? 0 : pos, .size = (uint64_t)st->st_size };
	return o;
}

static struct sofile *sofile_find(struct sproc *p, int fd, const struct stat *st)
{
	for (int i = 0; i < p->nof; i++) {
		struct sofile *o = &p->of[i];
		if (o->fd == fd && o->ino == st->st_ino && o->dev == st->st_dev)
			return o;
	}
	return NULL;
}

static int read_at(int dirfd, const char *path, char *buf, size_t len)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return 0;
}

/* One fd entry of /proc/PID/fd; returns 1 for a regular file written. */
static int scan_one(struct sfiles *f, struct sproc *p, int fddir, int infodir,
                    const char *name, char *buf)
{
	struct stat st;
	uint64_t pos;
	unsigned flags;
	char *end;
	long fd = strtol(name, &end, 10);

	if (*end || fstatat(fddir, name, &st, 0) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (read_at(infodir, name, buf, SAMPLE_BUF) || sample_parse_fdinfo(buf, &pos, &flags))
		return 0;
	int acc = (int)(flags & O_ACCMODE);
	bool write = acc == O_WRONLY || acc == O_RDWR;
	struct sofile *o = sofile_find(p, (int)fd, &st);
	if (o && o->write != write)
		o = NULL;  /* cannot happen for one description; be safe */
	if (!o && !(o = sofile_new(f, p, fddir, name, (int)fd, &st, write, pos, flags)))
		return 0;
	o->seen = true;
	/* a lower position on the same fd and inode: closed and reopened */
	uint64_t dpos = pos >= o->pos ? pos - o->pos : pos;
	o->pos = pos;
	/* evidence of what the process does (its role) */
	if (write) {
		p->fwr += dpos + ((uint64_t)st.st_size > o->size ? (uint64_t)st.st_size - o->size : 0);
		o->size = (uint64_t)st.st_size;
	} else {
		p->frd += dpos;
	}
	struct sfile *s = sfile_find(f, p->wl, st.st_dev, st.st_ino, write);
	if (s) {
		sfile_pos(s, p->pid, pos, dpos);
		if (write) {
			s->size = (uint64_t)st.st_size;
			if (s->size < s->size0)
				s->size0 = s->size;  /* truncated: growth restarts from here */
		}
	}
	return write ? 1 : 2;
}

/* Drop the process's fds that were not seen in this scan (closed). */
static void sofile_sweep(struct sfiles *f, struct sproc *p)
{
	int k = 0;

	for (int i = 0; i < p->nof; i++) {
		if (!p->of[i].seen) {
			sofile_release(f, &p->of[i], p->wl);
			continue;
		}
		p->of[i].seen = false;
		p->of[k++] = p->of[i];
	}
	p->nof = k;
}

/* write_bytes / read_bytes of a process with no such file of its own. */
static void fallback(struct sproc *p, struct swl *w, bool has_w, bool has_r)
{
	if (!has_w && p->wbytes > p->wb_counted) {
		w->wbytes += p->wbytes - p->wb_counted;
		p->bytes += p->wbytes - p->wb_counted;
	}
	if (!has_r && p->rbytes > p->rb_counted)
		w->rbytes += p->rbytes - p->rb_counted;
	if (p->wbytes > p->wb_counted)
		p->wb_counted = p->wbytes;
	if (p->rbytes > p->rb_counted)
		p->rb_counted = p->rbytes;
}

void sfiles_scan(struct sfiles *f, const char *root, struct sproc *p, struct swl *w, char *buf)
{
	char path[96];
	bool has_w = false, has_r = false;

	snprintf(path, sizeof path, "%s/%d/fd", root, (int)p->pid);
	int fddir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof path, "%s/%d/fdinfo", root, (int)p->pid);
	int infodir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fddir >= 0 && infodir >= 0 ? fdopendir(dup(fddir)) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		int r = scan_one(f, p, fddir, infodir, e->d_name, buf);
		has_w |= r == 1;
		has_r |= r == 2;
	}
	if (d)
		closedir(d);
	if (fddir >= 0)
		close(fddir);
	if (infodir >= 0)
		close(infodir);
	sofile_sweep(f, p);
	fallback(p, w, has_w, has_r);
}

static struct sproc *proc_by_pid(struct sproc *procs, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

/* Credit a file's growth since the last tick; a file nobody holds any
 * more gets a last look at its size through the O_PATH descriptor. */
static void settle_one(struct sfile *s, struct sproc *procs, int nprocs, struct swl *wls, int nwl)
{
	struct stat st;

	if (s->refs <= 0 && s->path_fd >= 0 && fstat(s->path_fd, &st) == 0 &&
	    (uint64_t)st.st_size >= s->size0)
		s->size = (uint64_t)st.st_size;
	uint64_t sgrow = s->write && s->size > s->size0 ? s->size - s->size0 : 0;
	uint64_t grown = s->pgrowth > sgrow ? s->pgrowth : sgrow;
	if (grown > s->counted && s->wl >= 0 && s->wl <= nwl) {
		uint64_t inc = grown - s->counted;
		if (s->write)
			wls[s->wl].wbytes += inc;
		else
			wls[s->wl].rbytes += inc;
		struct sproc *p = s->write ? proc_by_pid(procs, nprocs, s->credit) : NULL;
		if (p)
			p->bytes += inc;
		s->counted = grown;
	}
	s->credit = 0;
	s->best_dpos = 0;
	s->ntick_pos = 0;
}

void sfiles_settle(struct sfiles *f, struct sproc *procs, int nprocs, struct swl *wls, int nwl)
{
	int k = 0;

	for (int i = 0; i < f->n; i++) {
		struct sfile *s = &f->v[i];
		settle_one(s, procs, nprocs, wls, nwl);
		if (s->refs > 0) {
			f->v[k++] = *s;
			continue;
		}
		if (s->path_fd >= 0)
			close(s->path_fd);
	}
	f->n = k;
}

void sfiles_forget(struct sfiles *f, struct sproc *p)
{
	for (int i = 0; i < p->nof; i++)
		sofile_release(f, &p->of[i], p->wl);
	p->nof = 0;
}

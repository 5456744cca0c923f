/* sample_filebytes.c - the bytes command workloads move to and from regular
 * files, from the files their processes hold open and the directories
 * they write into.
 *
 * Per workload and file (dev, inode, direction):
 *  - written bytes are the larger of the growth of the file's size (seen
 *    through fstat of /proc/PID/fd, an O_PATH descriptor held while the
 *    file is open for a last look after it is closed, and the directory
 *    scans below) and the growth of the write positions of its open file
 *    descriptions (fdinfo "pos:"), which is what an overwrite in place
 *    moves.  A position only counts above the highest one any holder of
 *    the file reported, so a shell and the command it started, sharing one
 *    description, count it once.
 *  - read bytes are the growth of read positions.
 * Files are never counted by page-rounded write_bytes.  A file first seen
 * part-way through is counted from its creation when it was born after
 * the tree was first tracked (statx btime), from its old end for O_APPEND
 * (what the process's wchar says it appended), and from 0 when it was
 * truncated and rewritten since (mtime after the start).
 * Directories: see sample_newfiles.c.  Pipes are never looked at, so a pipeline
 * is not counted once per stage. */
#include "sample_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "benchtop/sample.h"
#include "benchtop/xalloc.h"

#define TICK_POS 4
#define SFILES_WATCHED 128  /* written files watched after their last close */

/* One file a workload reads or writes, shared by all its holders. */
struct sfile {
	int wl;
	dev_t dev;
	ino_t ino;
	bool write;
	bool dirseen;           /* found by a directory scan: kept while the workload is */
	int path_fd;            /* O_PATH while held: the final size after the last close */
	int refs;               /* sofiles pointing here */
	uint64_t size0, size;   /* size it is counted from, size now */
	uint64_t blk0, blk;     /* allocated bytes (st_blocks) counted from, now */
	uint64_t sgrow_acc;     /* size growth before a truncation */
	uint64_t pos_hi;        /* write: the highest position any holder reported */
	uint64_t pgrowth;       /* position growth of distinct open descriptions */
	uint64_t counted;       /* max(pgrowth, size growth) already credited */
	pid_t credit;           /* who gets this tick's growth */
	uint64_t best_dpos;
	struct {                /* read positions counted this tick, and where */
		uint64_t pos;
		pid_t pid;
		int fd;
	} tick_pos[TICK_POS];
	int ntick_pos;
};

struct sfiles {
	struct sfile *v;
	int n, cap;
	int *hash;              /* open addressing: index + 1, 0 empty */
	int hcap;
	struct sdirs *dirs;
	dev_t own_dev[3];       /* benchtop's own standard files: never the workload's */
	ino_t own_ino[3];
	dev_t proc_dev, sys_dev;
	dev_t pipe_dev;         /* anonymous pipes' (pipefs) */
	int npath;              /* O_PATH descriptors held */
	dev_t stdin_dev;        /* benchtop's own standard input */
	ino_t stdin_ino;
	bool out_null;          /* the commands' output goes to /dev/null: benchtop's
	                         * standard error is, or the dashboard sent it there */
};

struct sfiles *sfiles_new(void)
{
	struct sfiles *f = xcalloc(1, sizeof(struct sfiles));
	if (f && !(f->dirs = sdirs_new())) {
		free(f);
		return NULL;
	}
	/* a command's output that goes where benchtop's own goes (batch mode
	 * joins it to standard error) is the user's log, not its work */
	struct stat ps;
	if (f && stat("/proc/self/stat", &ps) == 0)
		f->proc_dev = ps.st_dev;
	if (f && stat("/sys/kernel", &ps) == 0)
		f->sys_dev = ps.st_dev;
	struct stat in;
	int pp[2];
	if (f && pipe2(pp, O_CLOEXEC) == 0) {
		if (fstat(pp[0], &in) == 0)
			f->pipe_dev = in.st_dev;
		close(pp[0]);
		close(pp[1]);
	}
	if (f && fstat(STDIN_FILENO, &in) == 0) {
		f->stdin_dev = in.st_dev;
		f->stdin_ino = in.st_ino;
	}
	if (f && fstat(STDERR_FILENO, &in) == 0)
		f->out_null = S_ISCHR(in.st_mode) && in.st_rdev == makedev(1, 3);
	for (int i = 0; f && i < 3; i++) {
		struct stat st;
		if (fstat(i, &st) == 0 && S_ISREG(st.st_mode)) {
			f->own_dev[i] = st.st_dev;
			f->own_ino[i] = st.st_ino;
		}
	}
	return f;
}

void sfiles_output_null(struct sfiles *f)
{
	f->out_null = true;
}

void sfiles_free(struct sfiles *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++)
		if (f->v[i].path_fd >= 0)
			close(f->v[i].path_fd);
	sdirs_free(f->dirs);
	free(f->hash);
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

/* ---- the file table ------------------------------------------------- */

static unsigned key_hash(int wl, dev_t dev, ino_t ino, bool write)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev * 31 ^ (uint64_t)wl * 7 ^ write;
	return (unsigned)(h ^ h >> 29);
}

static void hash_put(struct sfiles *f, int i)
{
	const struct sfile *s = &f->v[i];
	unsigned m = (unsigned)f->hcap - 1, k = key_hash(s->wl, s->dev, s->ino, s->write) & m;
	while (f->hash[k])
		k = (k + 1) & m;
	f->hash[k] = i + 1;
}

/* Rebuild the index (after growth or compaction); at most half full. */
static int hash_rebuild(struct sfiles *f)
{
	int want = 64;
	while (want < f->cap * 2)
		want *= 2;
	if (want != f->hcap) {
		int *h = xcalloc((size_t)want, sizeof *h);
		if (!h)
			return -ENOMEM;
		free(f->hash);
		f->hash = h;
		f->hcap = want;
	} else {
		memset(f->hash, 0, (size_t)f->hcap * sizeof *f->hash);
	}
	for (int i = 0; i < f->n; i++)
		hash_put(f, i);
	return 0;
}

static struct sfile *sfile_find(struct sfiles *f, int wl, dev_t dev, ino_t ino, bool write)
{
	if (!f->hcap)
		return NULL;
	unsigned m = (unsigned)f->hcap - 1, k = key_hash(wl, dev, ino, write) & m;
	for (; f->hash[k]; k = (k + 1) & m) {
		struct sfile *s = &f->v[f->hash[k] - 1];
		if (s->ino == ino && s->dev == dev && s->wl == wl && s->write == write)
			return s;
	}
	return NULL;
}

static struct sfile *sfile_add(struct sfiles *f, int wl, dev_t dev, ino_t ino, uint64_t size,
                               uint64_t blk, bool write)
{
	int cap = f->cap;
	if (sample_grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v))
		return NULL;
	struct sfile *s = &f->v[f->n++];
	*s = (struct sfile){ .wl = wl, .dev = dev, .ino = ino, .write = write,
	                     .path_fd = -1, .size0 = size, .size = size, .blk0 = blk, .blk = blk };
	if (cap != f->cap || !f->hcap) {
		if (hash_rebuild(f)) {
			f->n--;
			return NULL;
		}
	} else {
		hash_put(f, f->n - 1);
	}
	return s;
}

/* What a written file's size grew by, except holes: a file with fewer
 * bytes allocated than its size is sparse (a seek past its end, a
 * truncate -s), and only what was allocated was written.  Allocation
 * (st_blocks) counts delayed-allocation blocks on ext4, xfs, btrfs and
 * tmpfs, so it follows writes that are still in the page cache. */
static bool sfile_sparse(const struct sfile *s)
{
	/* a hole, not a page whose allocation is still being accounted */
	return s->blk + 65536 + s->size / 256 < s->size;
}

static uint64_t sfile_growth(const struct sfile *s)
{
	uint64_t grow = s->size > s->size0 ? s->size - s->size0 : 0;
	if (sfile_sparse(s)) {
		uint64_t alloc = s->blk > s->blk0 ? s->blk - s->blk0 : 0;
		if (alloc < grow)
			grow = alloc;
	}
	return grow;
}

/* A new size (and allocation) for a written file; a shrink is a
 * truncation, after which growth is counted again from the new size. */
static void sfile_size(struct sfile *s, uint64_t size, uint64_t blk)
{
	if (size < s->size) {
		s->sgrow_acc += sfile_growth(s);
		s->size0 = size;
		s->blk0 = blk;
		s->pos_hi = 0;
	}
	s->size = size;
	s->blk = blk;
}

void sfiles_dir_file(struct sfiles *f, int wl, dev_t dev, ino_t ino, uint64_t size, uint64_t blk,
                     pid_t credit)
{
	struct sfile *s = sfile_find(f, wl, dev, ino, true);
	/* a file the tree holds open only for reading is a source that sits
	 * beside what it writes (born just before the tree was tracked) */
	if (!s && sfile_find(f, wl, dev, ino, false))
		return;
	if (!s && !(s = sfile_add(f, wl, dev, ino, 0, 0, true)))
		return;
	s->dirseen = true;
	sfile_size(s, size, blk);
	if (!s->credit)
		s->credit = credit;
}

/* Do two processes' descriptors share one open file description (a
 * shell's and its child's, inherited)?  kcmp says; where it cannot (no
 * permission, no kcmp), one position shown twice counts as shared. */
static bool same_description(pid_t p1, int fd1, pid_t p2, int fd2)
{
	long r = syscall(SYS_kcmp, p1, p2, KCMP_FILE, fd1, fd2);
	return r != 1 && r != 2;
}

/* A position that moved from prev to pos on one holder's description. */
static void sfile_pos(struct sfile *s, pid_t pid, int fd, uint64_t prev, uint64_t pos)
{
	uint64_t dpos;

	if (!s->credit)
		s->credit = pid;
	if (s->write) {
		/* a shared description shows the same position to every holder */
		uint64_t from = prev > s->pos_hi ? prev : s->pos_hi;
		if (pos < prev)
			from = s->pos_hi > pos ? s->pos_hi : 0;  /* closed and reopened */
		dpos = pos > from ? pos - from : 0;
		if (pos > s->pos_hi)
			s->pos_hi = pos;
	} else {
		/* parallel readers of one file each count; holders of one
		 * description count it once */
		dpos = pos >= prev ? pos - prev : pos;
		for (int i = 0; i < s->ntick_pos && dpos; i++)
			if (s->tick_pos[i].pos == pos &&
			    same_description(s->tick_pos[i].pid, s->tick_pos[i].fd, pid, fd))
				dpos = 0;
		if (dpos && s->ntick_pos < TICK_POS) {
			s->tick_pos[s->ntick_pos].pos = pos;
			s->tick_pos[s->ntick_pos].pid = pid;
			s->tick_pos[s->ntick_pos++].fd = fd;
		}
	}
	if (!dpos)
		return;
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

bool sample_time_after(const struct statx_timestamp *t, const struct timespec *since)
{
	/* file times are coarse (a clock tick behind): allow 20 ms */
	int64_t ns = (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
	int64_t s = (int64_t)since->tv_sec * 1000000000 + since->tv_nsec - 20000000;
	return ns >= s;
}

bool sample_born_after(int dirfd, const char *name, const struct timespec *since)
{
	struct statx sx;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &sx) != 0 || !(sx.stx_mask & STATX_BTIME))
		return false;
	return sample_time_after(&sx.stx_btime, since);
}

/* How much of a written file first seen with size `size` at position pos
 * the tree had already written. */
static uint64_t already_written(const struct sproc *p, int dirfd, const char *name,
                                uint64_t size, uint64_t pos, unsigned flags)
{
	struct statx sx;

	if (statx(dirfd, name, 0, STATX_BTIME | STATX_MTIME, &sx) != 0)
		return pos;
	if ((sx.stx_mask & STATX_BTIME) && sample_time_after(&sx.stx_btime, &p->since))
		return size;  /* created by the tree: all of it */
	if (flags & O_APPEND)
		return p->wchar < size ? p->wchar : size;
	if (!sample_time_after(&sx.stx_mtime, &p->since))
		return pos;
	/* modified since the start: truncated and rewritten (cp moves the
	 * position only when its one copy_file_range returns) */
	return pos > 0 ? pos : size;
}

/* First sight of fd in p.  Positions count from where p's first look
 * found them, except what the file itself shows was already written. */
static struct sofile *sofile_new(struct sfiles *f, struct sproc *p, int dirfd, const char *name,
                                 int fd, const struct stat *st, bool write, uint64_t pos, unsigned flags)
{
	if (sample_grow((void **)&p->of, &p->capof, p->nof + 1, sizeof *p->of))
		return NULL;
	struct sfile *s = sfile_find(f, p->wl, st->st_dev, st->st_ino, write);
	bool known = s != NULL;
	uint64_t blk = (uint64_t)st->st_blocks * 512;
	if (!s && !(s = sfile_add(f, p->wl, st->st_dev, st->st_ino, (uint64_t)st->st_size, blk, write)))
		return NULL;
	uint64_t start = pos;
	if (write && s->path_fd < 0 && (s->path_fd = openat(dirfd, name, O_PATH | O_CLOEXEC)) >= 0) {
		/* the descriptor may have been closed and reused since the
		 * stat: an O_PATH to another file would lend it its size */
		struct stat ps;
		if (fstat(s->path_fd, &ps) != 0 || ps.st_ino != st->st_ino || ps.st_dev != st->st_dev) {
			close(s->path_fd);
			s->path_fd = -1;
		} else {
			f->npath++;
		}
	}
	if (write && !known) {
		uint64_t size = (uint64_t)st->st_size;
		uint64_t done = already_written(p, dirfd, name, size, pos, flags);
		s->size0 = size - (done < size ? done : size);
		if (done >= size)
			s->blk0 = 0;  /* the tree made all of it */
		start = pos >= done ? pos - done : 0;
		sdirs_note(f->dirs, p, dirfd, name);
	} else if (!write && !known && !(flags & O_APPEND)) {
		start = 0;  /* the process read what it has read since it opened it */
	}
	s->refs++;
	struct sofile *o = &p->of[p->nof++];
	*o = (struct sofile){ .fd = fd, .dev = st->st_dev, .ino = st->st_ino, .write = write,
	                      .pos = start, .size = (uint64_t)st->st_size };
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

/* A descriptor whose bytes are not a file's: a pipe, a socket, a device
 * (/dev/null too: what is written there is not counted anywhere). */
static bool moves_other(const struct stat *st)
{
	return S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode) || S_ISCHR(st->st_mode);
}

/* A command's standard input that is benchtop's own (the user's). */
static bool own_stdin(const struct sfiles *f, long fd, const struct stat *st)
{
	return fd == 0 && st->st_ino == f->stdin_ino && st->st_dev == f->stdin_dev;
}

/* /dev/null as a place for messages: on a descriptor past standard
 * output (standard error), or as standard output when benchtop put it
 * there (the dashboard's commands) or its own standard error, which a
 * batch run joins a command's output to, is /dev/null. */
static bool null_messages(const struct sfiles *f, long fd, const struct stat *st)
{
	return (fd >= 2 || (fd == 1 && f->out_null)) && S_ISCHR(st->st_mode) &&
	       st->st_rdev == makedev(1, 3);
}

/* Reading /dev/null or benchtop's own standard input is not reading a pipe. */
static bool reads_nothing(const struct sfiles *f, long fd, const struct stat *st)
{
	return (S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3)) || own_stdin(f, fd, st);
}

/* A pipe that no one can write to any more and that holds nothing: its
 * reader reads no more from it (poll says POLLHUP on a copy of the
 * descriptor, FIONREAD 0).  False when that cannot be told.  *avail is
 * what it holds unread, -1 when not known. */
static bool pipe_drained(pid_t pid, int fd, const struct stat *st, int *avail_out)
{
	*avail_out = -1;
	if (!S_ISFIFO(st->st_mode))
		return false;
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return false;
	int lfd = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	int e = errno;
	close(pfd);
	if (lfd < 0)
		return e == EBADF;  /* closed since the look at it: read no more */
	struct pollfd q = { .fd = lfd, .events = POLLIN };
	int avail = -1;
	bool hup = poll(&q, 1, 0) == 1 && (q.revents & POLLHUP);
	if (ioctl(lfd, FIONREAD, &avail) != 0)
		avail = -1;
	bool empty = avail == 0;
	*avail_out = avail;
	close(lfd);
	return hup && empty;
}

/* One scan of a process's descriptors: /proc/PID/fd, and its fdinfo
 * directory once an entry needs it. */
struct fdscan {
	int fddir, infodir;
	char infopath[96];
};

/* fdinfo of one descriptor ("pos:", "flags:"), a file of /proc: 0 or -1. */
static int fdinfo_read(struct fdscan *sc, const char *name, char *buf, uint64_t *pos, unsigned *flags)
{
	if (sc->infodir == -1)
		sc->infodir = open(sc->infopath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sc->infodir < 0) {
		sc->infodir = -2;  /* not again */
		return -1;
	}
	int fd = openat(sc->infodir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, SAMPLE_BUF - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sample_parse_fdinfo(buf, pos, flags);
}

/* The access mode of a pipe, socket or device on fd: known from an
 * earlier scan when the same file is still there, else from fdinfo;
 * -1 when it cannot be read. */
static int other_acc(struct sproc *p, long fd, const struct stat *st, struct fdscan *sc,
                     const char *name, char *buf)
{
	for (int i = 0; i < p->nod; i++) {
		struct sofd *o = &p->od[i];
		if (o->fd == fd && o->ino == st->st_ino && o->dev == st->st_dev && o->rdev == st->st_rdev) {
			o->seen = true;
			return o->acc;
		}
	}
	uint64_t pos;
	unsigned flags;
	if (fdinfo_read(sc, name, buf, &pos, &flags) != 0)
		return -1;
	int acc = (int)(flags & O_ACCMODE);
	if (sample_grow((void **)&p->od, &p->capod, p->nod + 1, sizeof *p->od) == 0)
		p->od[p->nod++] = (struct sofd){ .fd = (int)fd, .dev = st->st_dev, .rdev = st->st_rdev,
		                                 .ino = st->st_ino, .acc = acc, .seen = true };
	return acc;
}

/* A pipe, socket or device fd of the process may read from or write to:
 * its reads or writes are not all files'. */
static void scan_other(struct sfiles *f, struct sproc *p, struct fdscan *sc, const char *name, char *buf,
                       long fd, const struct stat *st)
{
	int acc = moves_other(st) ? other_acc(p, fd, st, sc, name, buf) : -1;
	if (acc < 0)
		return;
	bool rd = acc != O_WRONLY && !reads_nothing(f, fd, st);
	p->piped |= rd;
	/* a fork not yet exec'd holds its parent's pipes (xargs's input):
	 * what it will read after its exec is its command's */
	int avail = -1;
	bool live = rd && !p->prexec && !pipe_drained(p->pid, (int)fd, st, &avail);
	p->pipe_live |= live;
	p->fd_still &= !(rd && (S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode)));
	for (int i = 0; i < p->nod; i++)
		if (p->od[i].fd == fd && p->od[i].ino == st->st_ino && p->od[i].dev == st->st_dev) {
			p->od[i].live_rd = live;
			p->od[i].avail = avail;
		}
	/* its standard input, benchtop's, is not written to; /dev/null as a
	 * standard error (dd 2>/dev/null) takes its few lines of messages,
	 * not what it or its children write out, so their wchar stays
	 * file bytes (as far as a file shows the tree writes: sample_reap.c) */
	p->piped_w |= acc != O_RDONLY && !own_stdin(f, fd, st) && !null_messages(f, fd, st);
}

/* A pipe p could still read from at its last scan carries what others
 * write to it: a tracked process other than p that held its write end
 * then (a stage before it in a pipeline), or anyone, for a socket, a
 * device or a named pipe.  An anonymous pipe whose write end no other
 * tracked process held was fed by p itself or by a child never seen (a
 * shell's $(...), or a stage before it that has ended): what p read from
 * it after that scan is at most what it held then, or a few bytes of
 * text from p's own child; the rest its tree read is files' bytes. */
bool sfiles_fed_by_others(const struct sfiles *f, const struct sproc *procs, int n,
                          const struct sproc *p, uint64_t *tail)
{
	uint64_t held = 0;
	for (int i = 0; i < p->nod; i++) {
		const struct sofd *o = &p->od[i];
		if (!o->live_rd)
			continue;
		if (!f->pipe_dev || o->dev != f->pipe_dev || o->rdev)
			return true;
		held += o->avail > 0 ? (uint64_t)o->avail : 0;
		for (int k = 0; k < n; k++) {
			const struct sproc *q = &procs[k];
			for (int j = 0; q != p && j < q->nod; j++)
				if (q->od[j].ino == o->ino && q->od[j].dev == o->dev && q->od[j].acc != O_RDONLY)
					return true;
		}
	}
	*tail += held;
	return false;
}

/* One fd entry of /proc/PID/fd; returns 1 for a regular file written,
 * 2 for one read. */
static int scan_one(struct sfiles *f, struct sproc *p, struct fdscan *sc, const char *name,
                    char *buf)
{
	int fddir = sc->fddir;
	struct stat st;
	uint64_t pos;
	unsigned flags;
	char *end;
	long fd = strtol(name, &end, 10);

	if (*end || fstatat(fddir, name, &st, 0) != 0)
		return 0;
	if (!S_ISREG(st.st_mode)) {
		scan_other(f, p, sc, name, buf, fd, &st);
		return 0;
	}
	for (int i = 0; i < 3; i++)
		if (f->own_ino[i] && st.st_ino == f->own_ino[i] && st.st_dev == f->own_dev[i])
			return 0;
	if (st.st_dev == f->proc_dev || st.st_dev == f->sys_dev) {
		/* /proc and /sys files are not data */
		if (!p->piped_w && fdinfo_read(sc, name, buf, &pos, &flags) == 0 &&
		    (flags & O_ACCMODE) != O_RDONLY)
			p->piped_w = true;
		return 0;
	}
	if (fdinfo_read(sc, name, buf, &pos, &flags))
		return 0;
	/* closed and reused since the stat (a copy of many small files):
	 * that position is another file's; next time */
	const char *ino = strstr(buf, "\nino:");
	if (ino && strtoull(ino + 5, NULL, 10) != (unsigned long long)st.st_ino)
		return 0;
	int acc = (int)(flags & O_ACCMODE);
	bool write = acc == O_WRONLY || acc == O_RDWR;
	struct sofile *o = sofile_find(p, (int)fd, &st);
	if (o && o->write != write)
		o = NULL;  /* cannot happen for one description; be safe */
	if (!o && !(o = sofile_new(f, p, fddir, name, (int)fd, &st, write, pos, flags)))
		return 0;
	o->seen = true;
	uint64_t prev = o->pos;
	/* a lower position on the same fd and inode: closed and reopened */
	uint64_t dpos = pos >= prev ? pos - prev : pos;
	o->pos = pos;
	/* evidence of what the process does (its role) */
	if (write) {
		p->fwr += dpos + ((uint64_t)st.st_size > o->size ? (uint64_t)st.st_size - o->size : 0);
		o->size = (uint64_t)st.st_size;
	} else {
		/* what a copy call's reads were counted as while in flight */
		uint64_t a = o->ahead < dpos ? o->ahead : dpos;
		o->ahead -= a;
		p->frd += dpos - a;
	}
	struct sfile *s = sfile_find(f, p->wl, st.st_dev, st.st_ino, write);
	if (s) {
		sfile_pos(s, p->pid, (int)fd, prev, pos);
		if (write)
			sfile_size(s, (uint64_t)st.st_size, (uint64_t)st.st_blocks * 512);
		else if (pos >= prev)
			p->rd_dpos += pos - prev;
	}
	if (!write && (uint64_t)st.st_size > pos)
		p->rd_left += (uint64_t)st.st_size - pos;
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
	k = 0;
	for (int i = 0; i < p->nod; i++)
		if (p->od[i].seen) {
			p->od[i].seen = false;
			p->od[k++] = p->od[i];
		}
	p->nod = k;
}

/* The entries of the directory fd (getdents64, no stdio stream: the
 * scan runs every tick), each name passed to scan_one; false when the
 * directory could not be read. */
static bool scan_dir(struct sfiles *f, struct sproc *p, struct fdscan *sc, char *buf, bool *has_r)
{
	char ents[4096] __attribute__((aligned(8)));
	long n;

	while ((n = syscall(SYS_getdents64, sc->fddir, ents, sizeof ents)) > 0)
		for (long off = 0; off < n;) {
			const struct linux_dirent64 {
				uint64_t d_ino;
				int64_t d_off;
				unsigned short d_reclen;
				unsigned char d_type;
				char d_name[];
			} *e = (const void *)(ents + off);
			off += e->d_reclen;
			if (e->d_name[0] != '.')
				*has_r |= scan_one(f, p, sc, e->d_name, buf) == 2;
		}
	return n == 0;
}

void sfiles_scan(struct sfiles *f, const char *root, struct sproc *p, struct swl *w, char *buf)
{
	char path[96];
	bool has_r = false;

	(void)w;
	/* one held from the last scan is read again from its start */
	if (p->fd_dir >= 0 && lseek(p->fd_dir, 0, SEEK_SET) != 0) {
		close(p->fd_dir);
		p->fd_dir = -1;  /* the caller counts it closed: opened again below */
	}
	snprintf(path, sizeof path, "%s/%d/fd", root, (int)p->pid);
	if (p->fd_dir < 0)
		p->fd_dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct fdscan sc = { .fddir = p->fd_dir, .infodir = -1 };
	snprintf(sc.infopath, sizeof sc.infopath, "%s/%d/fdinfo", root, (int)p->pid);
	p->rd_left = 0;
	p->pipe_live = false;
	p->fd_still = true;
	struct stat ds;
	p->fd_count = sc.fddir >= 0 && fstat(sc.fddir, &ds) == 0 ? (long)ds.st_size : 0;
	bool read = sc.fddir >= 0 && scan_dir(f, p, &sc, buf, &has_r);
	p->fd_still &= read && p->nof == 0;
	if (sc.infodir >= 0)
		close(sc.infodir);
	/* a failed scan (the process is exiting) keeps what it knew */
	if (read && sc.infodir != -2)
		sofile_sweep(f, p);
	/* all its reads from regular files (within what ld.so reads at exec):
	 * what it reads after its last scan can be recovered from its rchar */
	uint64_t rc = p->rchar > p->rchar0 ? p->rchar - p->rchar0 : 0;
	p->reads_files = has_r && p->rd_dpos > 0 && rc <= p->rd_dpos + p->rd_dpos / 50 + 65536;
}

bool sfiles_unchanged(const char *root, const struct sproc *p)
{
	char path[96];
	struct stat ds;

	if (!p->fd_still || p->fd_count <= 0)
		return false;  /* a kernel before 6.2 gives no count: 0 */
	if (p->fd_dir >= 0)
		return fstat(p->fd_dir, &ds) == 0 && (long)ds.st_size == p->fd_count;
	snprintf(path, sizeof path, "%s/%d/fd", root, (int)p->pid);
	return stat(path, &ds) == 0 && (long)ds.st_size == p->fd_count;
}

static struct sproc *proc_by_pid(struct sproc *procs, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

/* Credit a file's growth since the last tick; a written file nobody holds
 * any more is looked at through its O_PATH descriptor: kept while few are
 * (so appends by processes that start and end between two ticks show as
 * they happen), else a last look and closed. */
/* A file p writes grew by inc while p's I/O counters stood still: a copy
 * call in flight (copy_file_range, sendfile, splice), whose reads the
 * kernel counts only when it returns.  What the destination gained beyond
 * what p has read and not yet written was read in this call, from the
 * one regular file p holds open for reading: counted there now, as far
 * as that file has unread bytes, and not again when its position moves. */
static void inflight_reads(struct sfiles *f, struct sproc *p, uint64_t inc, struct swl *w)
{
	struct sofile *src = NULL;

	for (int i = 0; i < p->nof; i++) {
		if (p->of[i].write)
			continue;
		if (src)
			return;  /* two sources: which one is not known */
		src = &p->of[i];
	}
	if (!src)
		return;
	struct sfile *r = sfile_find(f, p->wl, src->dev, src->ino, false);
	if (!r)
		return;
	p->cfr_grow += inc;
	uint64_t rd = p->rchar > p->rchar0 ? p->rchar - p->rchar0 : 0;
	uint64_t wr = p->wchar > p->wchar0 ? p->wchar - p->wchar0 : 0;
	uint64_t backlog = rd > wr ? rd - wr : 0;  /* read, not yet written */
	uint64_t want = p->cfr_grow > backlog ? p->cfr_grow - backlog : 0;
	uint64_t unread = src->size > src->pos + src->ahead ? src->size - src->pos - src->ahead : 0;
	uint64_t c = want > p->cfr_read ? want - p->cfr_read : 0;
	if (c > unread)
		c = unread;
	if (!c)
		return;
	p->cfr_read += c;
	src->ahead += c;
	r->counted += c;
	w->rbytes += c;
	p->bytes_r += c;
	p->frd_cum += c;  /* as if its position had moved (sample_reap.c) */
}

static void settle_one(struct sfiles *f, struct sfile *s, struct sproc *procs, int nprocs,
                       struct swl *wls, int nwl)
{
	struct stat st;

	if (s->refs <= 0 && s->path_fd >= 0) {
		if (fstat(s->path_fd, &st) == 0)
			sfile_size(s, (uint64_t)st.st_size, (uint64_t)st.st_blocks * 512);
		if (f->npath > SFILES_WATCHED) {
			close(s->path_fd);
			s->path_fd = -1;
			f->npath--;
		}
	}
	uint64_t sgrow = s->sgrow_acc + (s->write ? sfile_growth(s) : 0);
	uint64_t pgrowth = s->pgrowth;
	/* in a sparse file, positions a seek moved over holes were not
	 * written: no more than its allocation grew */
	if (s->write && sfile_sparse(s)) {
		uint64_t cap = s->sgrow_acc + (s->blk > s->blk0 ? s->blk - s->blk0 : 0);
		if (pgrowth > cap)
			pgrowth = cap;
	}
	uint64_t grown = pgrowth > sgrow ? pgrowth : sgrow;
	if (grown > s->counted && s->wl >= 0 && s->wl <= nwl) {
		uint64_t inc = grown - s->counted;
		if (s->write && !s->counted)
			wls[s->wl].nwfiles++;
		if (s->write)
			wls[s->wl].wbytes += inc;
		else
			wls[s->wl].rbytes += inc;
		struct sproc *p = proc_by_pid(procs, nprocs, s->credit);
		if (p && s->write)
			p->bytes += inc;
		else if (p)
			p->bytes_r += inc;
		if (p && s->write && p->measure_io && p->io_known && !p->io_moved && !p->gone)
			inflight_reads(f, p, inc, &wls[s->wl]);
		s->counted = grown;
	}
	s->credit = 0;
	s->best_dpos = 0;
	s->ntick_pos = 0;
}

void sfiles_settle(struct sfiles *f, struct sproc *procs, int nprocs, struct swl *wls, int nwl)
{
	int k = 0;

	sdirs_scan(f->dirs, f);
	for (int i = 0; i < f->n; i++) {
		struct sfile *s = &f->v[i];
		settle_one(f, s, procs, nprocs, wls, nwl);
		/* written files stay known while their workload is: a file seen
		 * again (a later scan, a reopen) is not counted twice */
		if (s->refs > 0 || s->write)
			f->v[k++] = *s;
	}
	if (k != f->n) {
		f->n = k;
		hash_rebuild(f);
	}
}

bool sfiles_holds_write(const struct sproc *p)
{
	for (int i = 0; i < p->nof; i++)
		if (p->of[i].write)
			return true;
	return false;
}

void sfiles_forget(struct sfiles *f, struct sproc *p)
{
	for (int i = 0; i < p->nof; i++)
		sofile_release(f, &p->of[i], p->wl);
	p->nof = 0;
}

void sfiles_forget_workload(struct sfiles *f, int wl)
{
	int k = 0;

	for (int i = 0; i < f->n; i++) {
		if (f->v[i].wl == wl && f->v[i].refs <= 0) {
			if (f->v[i].path_fd >= 0) {
				close(f->v[i].path_fd);
				f->npath--;
			}
			continue;
		}
		f->v[k++] = f->v[i];
	}
	f->n = k;
	hash_rebuild(f);
	sdirs_forget_workload(f->dirs, wl);
}

/* sample_reap.c - what a command tree read and wrote through processes
 * that ended: parallel, background and short-lived children the sampler
 * never saw, and the last I/O of those it saw.
 *
 * The kernel keeps two I/O counts per process: each thread's own
 * (/proc/PID/task/TID/io) and the whole process's (/proc/PID/io), which
 * adds what its ended threads and every child it reaped did (a child's
 * whole count, so its own reaped children's too).  So for each tracked
 * process, whole minus its live threads' own (`kr`, `kw`) grows exactly
 * by what it reaped; benchtop reaps the roots and the orphans handed to
 * it (its subreaper) and reads their zombie's counts before it does.
 * Per workload and tick:
 *
 *   new = growth of every kr + zombies benchtop reaped
 *       - what was counted of the tracked processes that ended
 *         (their own reads by count or position, what they reaped)
 *
 * which is what tracked processes did after their last look plus all a
 * never-seen process did.  A process never seen is measured by its rchar
 * and wchar (read(2), write(2) and their kin: nothing else is left of it).
 * A reaper read before the child it reaped was found gone shows it later:
 * what it owes is carried, never dropped.
 * When a tracked process that ended held a pipe or socket it could still
 * read from (a stage of a pipeline; a pipe no one can write to any more
 * and that holds nothing is done), its last reads cannot be told from the
 * rest: that tick counts no more than what the ended file readers had
 * left unread in their files.  Written bytes by wchar are used only for
 * trees never seen holding a pipe, socket or device (sreap_written). */
#include "sample_priv.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* rchar and wchar of one thread's own I/O (its task io); false when
 * unreadable. */
static bool task_io(const struct sampler *sp, pid_t pid, pid_t tid, uint64_t *rchar,
                    uint64_t *wchar)
{
	char path[160], buf[512];
	uint64_t rb, wb;

	snprintf(path, sizeof path, "%s/%d/task/%d/io", sp->root, (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return sample_parse_io(buf, rchar, wchar, &rb, &wb) == 0;
}

/* The same for a tracked thread, through a descriptor held open. */
static bool thr_io(struct sampler *sp, struct sproc *p, struct sthr *t, uint64_t *rchar,
                   uint64_t *wchar)
{
	char buf[512];
	uint64_t rb, wb;
	return sprocs_read_file(sp, &t->fd_io, p->pid, t->tid, "io", buf, sizeof buf) > 0 &&
	       sample_parse_io(buf, rchar, wchar, &rb, &wb) == 0;
}

void sreap_base(struct sampler *sp, struct sproc *p)
{
	uint64_t r, wr;
	if (!task_io(sp, p->pid, p->pid, &r, &wr))
		return;
	p->own_base = r;
	p->own_w_base = p->own_w = wr;
	p->based = true;
}

void sreap_thread_gone(struct sampler *sp, struct sproc *p, const struct sthr *t)
{
	/* its own count moves into the whole's rest: seen already; its last
	 * reads are the process's own, told apart by position, not here */
	struct swl *w = &sp->wl[p->wl];
	if (!p->measure_io || t->tid == p->pid || p->gone)
		return;  /* a process that ended is counted whole (sreap_gone) */
	w->reap_seen += t->rchar_own;
	w->reap_wseen += t->wchar_own;
	w->reap_ambig = true;
}

/* What p's whole count (rchar, wchar) holds beyond its own threads'
 * counts (own, own_w) and beyond what it did before its first look (a
 * root's set-up before its exec: its join of the cgroup is a 1-byte
 * write), which is in the whole however little its live threads show
 * (none, once it is a zombie): what it reaped. */
static void reaped_of(const struct sproc *p, uint64_t rchar, uint64_t wchar, uint64_t own,
                      uint64_t own_w, uint64_t *kr, uint64_t *kw)
{
	uint64_t own_r0 = own > p->own_base ? own : p->own_base;
	uint64_t own_w0 = own_w > p->own_w_base ? own_w : p->own_w_base;
	*kr = rchar > own_r0 ? rchar - own_r0 : 0;
	*kw = wchar > own_w0 ? wchar - own_w0 : 0;
}

/* The new whole rchar of p was read: its own threads' counts too, and
 * what its reaped count grew by goes to its workload. */
void sreap_read(struct sampler *sp, struct sproc *p)
{
	uint64_t own = 0, own_w = 0, r, wr;
	struct swl *w = &sp->wl[p->wl];

	if (!p->measure_io)
		return;
	for (int i = 0; i < p->nthr; i++) {
		if (!thr_io(sp, p, &p->thr[i], &r, &wr))
			return;  /* a thread ended in between: next time */
		p->thr[i].rchar_own = r;
		p->thr[i].wchar_own = wr;
		own += r;
		own_w += wr;
	}
	if (!p->kr_known && !p->based) {
		p->own_base = p->past ? own : 0;
		p->own_w_base = p->past ? own_w : 0;
		p->own_w = p->own_w_base;
	}
	p->own = own;
	if (own_w > p->own_w) {
		w->wchar_files += own_w - p->own_w;
		p->own_w = own_w;
	}
	/* threads read after the whole: kr may come out short, never long,
	 * and what is short shows at the next look */
	uint64_t kr, kw;
	reaped_of(p, p->rchar, p->wchar, own, own_w, &kr, &kw);
	/* an attached process's past is not this run's; a process first
	 * seen after it reaped children never seen counts them */
	if (!p->kr_known && p->past) {
		p->kr = kr;
		p->kw = kw;
	}
	if (kr > p->kr) {
		w->reap_rchar += kr - p->kr;
		p->kr = kr;
	}
	if (kw > p->kw) {
		w->reap_wchar += kw - p->kw;
		p->kw = kw;
	}
	p->kr_known = true;
}

void sreap_own(struct sampler *sp, struct sproc *p)
{
	p->frd_cum += p->frd;
	/* a pipe read means a writer into it, maybe one never seen */
	if ((p->piped_w || p->piped) && p->measure_io)
		sp->wl[p->wl].wpiped = true;
	if (!p->measure_io || !p->kr_known || p->piped)
		return;
	/* positions are read after the counts, so they can only be ahead */
	uint64_t own = p->own > p->own_base ? p->own - p->own_base : 0;
	uint64_t target = own > p->frd_cum ? own - p->frd_cum : 0;
	if (target > p->extra) {
		sp->wl[p->wl].rbytes += target - p->extra;
		p->extra = target;
	}
}

/* What of p's own reads is already counted: its count at the last look,
 * or what its positions showed when they were read later still, with
 * what its count showed beyond its positions (reads of files it closed
 * between two looks), counted too: once positions run ahead of the count
 * again, that is still counted. */
static uint64_t own_counted(const struct sproc *p)
{
	uint64_t pos = p->own_base + p->frd_cum + p->extra;
	return p->own > pos ? p->own : pos;
}

void sreap_gone(struct sampler *sp, struct sproc *p)
{
	struct swl *w = &sp->wl[p->wl];

	if (!p->measure_io || p->exit_noted || !p->io_known)
		return;
	/* what was counted of it (its own reads, by count or position, and
	 * what it reaped), not its whole count: that may have been read
	 * after its threads' last look */
	w->reap_seen += p->kr + own_counted(p);
	w->reap_wseen += p->kw + p->own_w;
	w->wpiped |= p->piped_w || p->piped;
	/* one that held no pipe or socket to read read only files, whatever
	 * its count says of its positions (a file closed between two looks) */
	w->reap_cap += p->reads_files || !p->piped ? p->rd_left : 0;
	/* one that could still read a pipe: its own last reads, known from
	 * its exit record, are taken off; else they cannot be told from
	 * the rest (the tick is capped) */
	uint64_t er, ew;
	bool may_pipe = p->pipe_live && !p->reads_files;
	if (may_pipe && p->nthr <= 1 && sexit_find(sp->exits, p->pid, p->comm, &er, &ew))
		w->reap_pipe_tail += er > own_counted(p) ? er - own_counted(p) : 0;
	else if (may_pipe)
		w->reap_ambig |= sfiles_fed_by_others(sp->files, sp->procs, sp->n, p, &w->reap_pipe_tail);
	p->rd_left = 0;
	p->io_known = false;  /* counted once */
}

void sreap_zombie(struct sampler *sp, struct sproc *p, int wl, pid_t pid, uint64_t rchar,
                  uint64_t wchar, uint64_t wb)
{
	struct swl *w = &sp->wl[wl];

	if (!w->measure_io)
		return;
	if (!p || !p->io_known) {  /* never seen: all it and its reaped descendants did */
		/* but for what a root had done by its exec (its join of the
		 * workload's cgroup is a 1-byte write) */
		if (p && p->based) {
			rchar = rchar > p->own_base ? rchar - p->own_base : 0;
			wchar = wchar > p->own_w_base ? wchar - p->own_w_base : 0;
		}
		w->reap_rchar += rchar;
		w->reap_wchar += wchar;
		w->reap_wb += wb;
		return;
	}
	if (!p->measure_io || p->exit_noted)
		return;
	/* the pages it dirtied since its last look (a cp first seen before
	 * it opened its files, ended before the next tick) */
	if (wb > p->wbytes)
		w->reap_wb += wb - p->wbytes;
	w->wpiped |= p->piped_w || p->piped;
	uint64_t own, own_w;
	if (!task_io(sp, pid, pid, &own, &own_w))
		own = own_w = 0;
	uint64_t own_last = 0, own_w_last = 0;
	for (int i = 0; i < p->nthr; i++)
		if (p->thr[i].tid == pid) {
			own_last = p->thr[i].rchar_own;
			own_w_last = p->thr[i].wchar_own;
		}
	/* a single thread's last count is the process's; positions read
	 * after it can only be ahead */
	if (p->nthr <= 1 && own_counted(p) > own_last)
		own_last = own_counted(p);
	if (p->nthr <= 1 && p->own_w > own_w_last)
		own_w_last = p->own_w;  /* its base, when it ended before any look */
	uint64_t kr, kw;
	reaped_of(p, rchar, wchar, own, own_w, &kr, &kw);
	if (kr > p->kr)
		w->reap_rchar += kr - p->kr;
	if (kw > p->kw)
		w->reap_wchar += kw - p->kw;
	/* threads that ended since the last look: their counts are in kr */
	for (int i = 0; i < p->nthr; i++)
		if (p->thr[i].tid != pid) {
			w->reap_seen += p->thr[i].rchar_own;
			w->reap_wseen += p->thr[i].wchar_own;
			w->reap_ambig = true;
		}
	/* its own last reads: all of them when it read only files, else
	 * no more than its files had left */
	if (own > own_last) {
		uint64_t tail = own - own_last;
		if (p->pipe_live)
			tail = !p->reads_files ? 0 : tail < p->rd_left ? tail : p->rd_left;
		w->pend_rbytes += tail;
	}
	if (own_w > own_w_last)
		w->wchar_files += own_w - own_w_last;
	p->rd_left = 0;
	p->kr = kr;
	p->kw = kw;
	p->rchar = rchar;
	p->wchar = wchar;
}

/* Count what ended processes read and wrote beyond what was seen. */
static void sreap_count(struct swl *w, uint64_t d, uint64_t dw)
{
	/* what ended pipe readers may have read of their pipes' last bytes */
	d -= d < w->reap_pipe_tail ? d : w->reap_pipe_tail;
	w->reap_pipe_tail = 0;
	if (w->reap_ambig && d > w->reap_cap)
		d = w->reap_cap;
	w->rbytes += d;
	w->wchar_files += dw;
	w->reap_cap = 0;
	w->reap_ambig = false;
}

void sreap_settle(struct sampler *sp, int wl)
{
	struct swl *w = &sp->wl[wl];

	w->rbytes += w->pend_rbytes;
	w->pend_rbytes = 0;
	if (!w->reap_rchar && !w->reap_seen && !w->reap_wchar && !w->reap_wseen)
		return;
	/* a reaper read before the child it reaped was found gone shows
	 * that child at a later tick: what it has not shown yet stays owed */
	if (w->reap_rchar < w->reap_seen || w->reap_wchar < w->reap_wseen) {
		uint64_t r = w->reap_rchar < w->reap_seen ? w->reap_rchar : w->reap_seen;
		uint64_t wr = w->reap_wchar < w->reap_wseen ? w->reap_wchar : w->reap_wseen;
		w->reap_rchar -= r;
		w->reap_seen -= r;
		w->reap_wchar -= wr;
		w->reap_wseen -= wr;
		if (w->reap_seen || w->reap_wseen) {
			/* what is owed is matched first; the rest counts */
			uint64_t extra_r = w->reap_rchar, extra_w = w->reap_wchar;
			w->reap_rchar = w->reap_wchar = 0;
			sreap_count(w, extra_r, extra_w);
			return;
		}
	}
	uint64_t d = w->reap_rchar > w->reap_seen ? w->reap_rchar - w->reap_seen : 0;
	uint64_t dw = w->reap_wchar > w->reap_wseen ? w->reap_wchar - w->reap_wseen : 0;
	w->reap_wchar = w->reap_wseen = 0;
	w->reap_rchar = w->reap_seen = 0;
	sreap_count(w, d, dw);
}

void sreap_root_dir(struct sampler *sp, int wl, pid_t pid, const struct timespec *since)
{
	struct swl *w = &sp->wl[wl];
	char path[160];

	snprintf(path, sizeof path, "%s/%d/cwd", sp->root, (int)pid);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (w->cwd_fd >= 0)
		close(w->cwd_fd);
	w->cwd_fd = fd;
	w->since = *since;
}

/* Is the file dev:ino one benchtop holds open for writing itself (its
 * record, its standard output or error redirected to a file there)?  Those change
 * as benchtop writes them, not as the tree does. */
static bool own_open_file(dev_t dev, ino_t ino)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return false;
	struct dirent *e;
	bool own = false;
	while (!own && (e = readdir(d))) {
		struct stat st;
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (e->d_name[0] == '.' || *end || fd == dirfd(d))
			continue;
		/* written through it: not the sampler's own look at a file the
		 * tree wrote (O_PATH) */
		int fl = fcntl((int)fd, F_GETFL);
		own = fl >= 0 && !(fl & O_PATH) && (fl & O_ACCMODE) != O_RDONLY &&
		      fstat((int)fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == dev && st.st_ino == ino;
	}
	closedir(d);
	return own;
}

/* Did the tree change a regular file in its root's working directory
 * since it started (its modification time says so)?  At most the first
 * 4096 entries are looked at; a file benchtop itself is writing (a
 * record in the directory the run started from) is not the tree's. */
static bool cwd_changed(const struct swl *w)
{
	if (w->cwd_fd < 0)
		return false;
	int fd = openat(w->cwd_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	struct dirent *e;
	bool changed = false;
	for (int n = 0; !changed && n < 4096 && (e = readdir(d)); n++) {
		struct statx sx;
		if (e->d_name[0] == '.' || (e->d_type != DT_REG && e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    statx(dirfd(d), e->d_name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_MTIME | STATX_INO, &sx) != 0)
			continue;
		/* a file changed, or a directory the tree filled (cpio -p dst) */
		changed = (S_ISREG(sx.stx_mode) || S_ISDIR(sx.stx_mode)) && (sx.stx_mask & STATX_MTIME) &&
		          sample_time_after(&sx.stx_mtime, &w->since) &&
		          !(S_ISREG(sx.stx_mode) && own_open_file(makedev(sx.stx_dev_major, sx.stx_dev_minor), sx.stx_ino));
	}
	closedir(d);
	return changed;
}

/* Did the workload's processes dirty pages for at least half of need
 * bytes, beyond those their output to benchtop's standard error (out
 * bytes) dirtied, one page spare?  A process's write_bytes holds what it
 * reaped too; a read can dirty a page of metadata (an access time), so
 * fewer than two pages show nothing.  What processes dirtied after their
 * last look, read from their zombies (a cp seen at its exec, ended before
 * it was looked at again), shows writes of 64 KiB or more only: a
 * reader's last page or two of output is not evidence. */
static bool pages_cover(uint64_t wb, uint64_t pages, uint64_t need)
{
	return need > 0 && wb >= pages + 8192 && 2 * (wb - pages) >= need;
}

static bool dirtied_pages(const struct sampler *sp, int wl, uint64_t out, uint64_t need)
{
	uint64_t wb = 0, pages = 4096 * ((out + 4095) / 4096 + 1);
	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].wl == wl && sp->procs[i].io_known)
			wb += sp->procs[i].wbytes;
	return pages_cover(wb, pages, need) ||
	       (need >= 65536 && pages_cover(wb + sp->wl[wl].reap_wb, pages, need));
}

bool sreap_shows_writes(struct sampler *sp, int wl, uint64_t out, uint64_t need)
{
	struct swl *w = &sp->wl[wl];
	if (!w->wrote_files)
		w->wrote_files = w->nwfiles > 0 || w->wbytes > 0 || dirtied_pages(sp, wl, out, need) ||
		                 cwd_changed(w);
	return w->wrote_files;
}

void sreap_written(struct sampler *sp, int wl, uint64_t out)
{
	struct swl *w = &sp->wl[wl];
	uint64_t total = w->wbytes;

	if (!w->wpiped) {
		uint64_t wc = w->wchar_files > out ? w->wchar_files - out : 0;
		/* what processes wrote by wchar reached files only if some file
		 * shows the tree writes: one it holds or made, growth counted,
		 * pages it dirtied, or a file changed where it runs (in-place
		 * overwrites); a short `cat f > /dev/null` never seen shows none */
		if (wc > total && sreap_shows_writes(sp, wl, out, wc - total))
			total = wc;
	}
	if (total > w->wtotal)
		w->wtotal = total;
}

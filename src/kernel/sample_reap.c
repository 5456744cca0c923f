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
 * left unread in their files.
 *
 * Writes are counted the same way, by wchar and by write_bytes (pages
 * dirtied) side by side, and what ended processes wrote beyond their last
 * look is counted in the tick they end, never guessed at the end of the
 * tree: by the smaller of the two (a write to a pipe, a socket or
 * /dev/null dirties no page), all of wchar only when a file that was there
 * before the tree changed in that tick (an overwrite of pages already
 * dirty).  wchar is used at all only for trees never seen holding a pipe,
 * socket or device to write to; in the others, what processes never seen
 * writing a file wrote counts as far as no file that was looked at shows
 * it (sreap_written). */
#include "sample_priv.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CWD_ENTRIES 4096  /* entries of a working directory looked at */
#define CWDS 4            /* working directories looked at */

/* rchar, wchar and write_bytes of one thread's own I/O (its task io);
 * false when unreadable. */
static bool task_io(const struct sampler *sp, pid_t pid, pid_t tid, uint64_t *rchar,
                    uint64_t *wchar, uint64_t *wb)
{
	char path[160], buf[512];
	uint64_t rb;

	snprintf(path, sizeof path, "%s/%d/task/%d/io", sp->root, (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return sample_parse_io(buf, rchar, wchar, &rb, wb) == 0;
}

/* The same for a tracked thread, through a descriptor held open. */
static bool thr_io(struct sampler *sp, struct sproc *p, struct sthr *t, uint64_t *rchar,
                   uint64_t *wchar, uint64_t *wb)
{
	char buf[512];
	uint64_t rb;
	return sprocs_read_file(sp, &t->fd_io, p->pid, t->tid, "io", buf, sizeof buf) > 0 &&
	       sample_parse_io(buf, rchar, wchar, &rb, wb) == 0;
}

void sreap_base(struct sampler *sp, struct sproc *p)
{
	uint64_t r, wr, wb;
	if (!task_io(sp, p->pid, p->pid, &r, &wr, &wb))
		return;
	p->own_wb = wb;
	p->own_base = r;
	p->own_w_base = p->own_w = wr;
	p->based = true;
}

/* What p wrote before its descriptors were seen: by wchar when a scan
 * has now seen it holding a file it writes, else as what ended processes
 * wrote (the smaller of wchar and write_bytes: not where it went; a
 * process found exiting holds nothing any more). */
static void pre_settle(struct sampler *sp, struct sproc *p)
{
	struct swl *w = &sp->wl[p->wl];
	if (p->fds_seen && p->wrote_files) {
		w->wchar_files += p->pre_w;
	} else {
		w->reap_wchar += p->pre_w;
		w->reap_wb += p->pre_wb;
	}
	p->pre_w = p->pre_wb = 0;
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
	w->reap_wbseen += t->wb_own;
	w->reap_ambig = true;
}

/* The new whole rchar of p was read: its own threads' counts too, and
 * what its reaped count grew by goes to its workload. */
void sreap_read(struct sampler *sp, struct sproc *p)
{
	uint64_t own = 0, own_w = 0, own_wb = 0, r, wr, wb;
	struct swl *w = &sp->wl[p->wl];

	if (!p->measure_io)
		return;
	for (int i = 0; i < p->nthr; i++) {
		if (!thr_io(sp, p, &p->thr[i], &r, &wr, &wb))
			return;  /* a thread ended in between: next time */
		p->thr[i].rchar_own = r;
		p->thr[i].wchar_own = wr;
		p->thr[i].wb_own = wb;
		own += r;
		own_w += wr;
		own_wb += wb;
	}
	if (!p->kr_known && !p->based) {
		p->own_base = p->past ? own : 0;
		p->own_w_base = p->past ? own_w : 0;
		p->own_w = p->own_w_base;
		p->own_wb = p->past ? own_wb : 0;
	}
	p->own = own;
	p->wrote_now = own_w > p->own_w;
	/* what it wrote counts by wchar once its descriptors were seen;
	 * before, it waits for this tick's scan (sreap_own) */
	if (own_w > p->own_w && p->fds_seen) {
		w->wchar_files += own_w - p->own_w;
	} else if (own_w > p->own_w) {
		p->pre_w += own_w - p->own_w;
		p->pre_wb += own_wb > p->own_wb ? own_wb - p->own_wb : 0;
	}
	if (own_w > p->own_w)
		p->own_w = own_w;
	/* threads read after the whole: kr may come out short, never long,
	 * and what is short shows at the next look */
	uint64_t kr = p->rchar > own ? p->rchar - own : 0;
	uint64_t kw = p->wchar > own_w ? p->wchar - own_w : 0;
	uint64_t kwb = p->wbytes > own_wb ? p->wbytes - own_wb : 0;
	if (own_wb > p->own_wb)
		p->own_wb = own_wb;
	/* an attached process's past is not this run's; a process first
	 * seen after it reaped children never seen counts them */
	if (!p->kr_known && p->past) {
		p->kr = kr;
		p->kw = kw;
		p->kwb = kwb;
	}
	if (kwb > p->kwb) {
		w->reap_wb += kwb - p->kwb;
		p->kwb = kwb;
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
	pre_settle(sp, p);
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
	pre_settle(sp, p);
	/* what was counted of it (its own reads, by count or position, and
	 * what it reaped), not its whole count: that may have been read
	 * after its threads' last look */
	w->reap_seen += p->kr + own_counted(p);
	w->reap_wseen += p->kw + p->own_w;
	w->reap_wbseen += p->kwb + p->own_wb;
	w->reap_filer |= p->wrote_files;
	w->wpiped |= p->piped_w || p->piped;
	w->reap_cap += p->reads_files ? p->rd_left : 0;
	w->reap_ambig |= p->pipe_live && !p->reads_files;
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
		w->reap_rchar += rchar;
		w->reap_wchar += wchar;
		w->reap_wb += wb;
		return;
	}
	if (!p->measure_io || p->exit_noted)
		return;
	pre_settle(sp, p);
	w->wpiped |= p->piped_w || p->piped;
	w->reap_filer |= p->wrote_files;
	uint64_t own, own_w, own_wb;
	if (!task_io(sp, pid, pid, &own, &own_w, &own_wb))
		own = own_w = own_wb = 0;
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
	uint64_t kr = rchar > own ? rchar - own : 0;
	uint64_t kw = wchar > own_w ? wchar - own_w : 0;
	uint64_t kwb = wb > own_wb ? wb - own_wb : 0;
	if (kr > p->kr)
		w->reap_rchar += kr - p->kr;
	if (kw > p->kw)
		w->reap_wchar += kw - p->kw;
	if (kwb > p->kwb)
		w->reap_wb += kwb - p->kwb;
	/* threads that ended since the last look: their counts are in kr */
	for (int i = 0; i < p->nthr; i++)
		if (p->thr[i].tid != pid) {
			w->reap_seen += p->thr[i].rchar_own;
			w->reap_wseen += p->thr[i].wchar_own;
			w->reap_wbseen += p->thr[i].wb_own;
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
	p->kwb = kwb;
	p->rchar = rchar;
	p->wchar = wchar;
}

/* Was a regular file in the directory dirfd, there before since, modified
 * after `after`?  Benchtop's own files are not the tree's. */
static bool dir_old_changed(struct sampler *sp, int dirfd, const struct timespec *since,
                            const struct timespec *after)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	struct statx sx;
	bool changed = false;

	if (!d) {
		close(dirfd);
		return false;
	}
	for (int n = 0; !changed && n < CWD_ENTRIES && (e = readdir(d)); n++) {
		if ((e->d_type != DT_REG && e->d_type != DT_UNKNOWN) ||
		    statx(dirfd, e->d_name, AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_MTIME | STATX_INO, &sx) != 0 ||
		    !S_ISREG(sx.stx_mode) || !(sx.stx_mask & STATX_BTIME))
			continue;
		if (sfiles_own(sp->files, makedev(sx.stx_dev_major, sx.stx_dev_minor), sx.stx_ino))
			continue;
		changed = sample_time_before(&sx.stx_btime, since) && sample_time_after(&sx.stx_mtime, after);
	}
	closedir(d);
	return changed;
}

bool sreap_old_file_changed(struct sampler *sp, int wl)
{
	struct timespec since = { 0, 0 };
	struct stat seen[CWDS];
	int nseen = 0;

	for (int i = 0; i < sp->n; i++)
		if (sp->procs[i].wl == wl && (!since.tv_sec || sp->procs[i].root))
			since = sp->procs[i].since;
	/* since the read before the last: a reaper may show what a child
	 * wrote a tick after the child was last seen */
	const struct timespec *after = &sp->rt_prev2;
	if (!since.tv_sec || !after->tv_sec)
		return false;
	if (sfiles_old_changed(sp->files, wl, &since, after))
		return true;
	/* the working directories of its processes, each once */
	for (int i = 0; i < sp->n && nseen < CWDS; i++) {
		const struct sproc *p = &sp->procs[i];
		char path[160];
		struct stat st;
		if (p->wl != wl || p->gone || p->zombie)
			continue;
		snprintf(path, sizeof path, "%s/%d/cwd", sp->root, (int)p->pid);
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		bool dup = fstat(fd, &st) != 0;
		for (int k = 0; k < nseen && !dup; k++)
			dup = seen[k].st_dev == st.st_dev && seen[k].st_ino == st.st_ino;
		if (dup) {
			close(fd);
			continue;
		}
		seen[nseen++] = st;
		if (dir_old_changed(sp, fd, &since, after))
			return true;
	}
	return false;
}

/* What of a count of ended processes (grow) what was counted of the
 * tracked ones among them (seen) does not explain.  A reaper read before
 * the child it reaped was found gone shows that child at a later tick:
 * what it has not shown yet stays owed, never dropped. */
static uint64_t unexplained(uint64_t *grow, uint64_t *seen)
{
	uint64_t d = *grow > *seen ? *grow - *seen : 0;
	*seen = *seen > *grow ? *seen - *grow : 0;
	*grow = 0;
	return d;
}

/* What processes that ended wrote beyond what was seen of them: dw by
 * wchar, dwb in pages dirtied (write_bytes).  A write that dirtied no
 * page went to a pipe, a socket, a device (/dev/null) or over a page
 * that was dirty already (an overwrite in place): it counts only when a
 * file that was there before the tree changed meanwhile.  In a tree seen
 * writing other than files, wchar is unusable; there only what no file
 * that was looked at shows counts, from ended processes that were never
 * seen writing a file (the tails of those that were are their files'). */
static void written_unseen(struct sampler *sp, int wl, uint64_t dw, uint64_t dwb)
{
	struct swl *w = &sp->wl[wl];
	uint64_t paged = dw < dwb ? dw : dwb;

	if (!dw)
		return;
	if (!w->wpiped)
		w->wchar_files += paged < dw && sreap_old_file_changed(sp, wl) ? dw : paged;
	if (!w->reap_filer)
		w->unseen += paged;
}

void sreap_settle(struct sampler *sp, int wl)
{
	struct swl *w = &sp->wl[wl];

	w->rbytes += w->pend_rbytes;
	w->pend_rbytes = 0;
	uint64_t d = unexplained(&w->reap_rchar, &w->reap_seen);
	uint64_t dw = unexplained(&w->reap_wchar, &w->reap_wseen);
	uint64_t dwb = unexplained(&w->reap_wb, &w->reap_wbseen);
	if (w->reap_ambig && d > w->reap_cap)
		d = w->reap_cap;
	w->rbytes += d;
	w->reap_cap = 0;
	w->reap_ambig = false;
	/* what of their writes dirtied no page may have gone to a pipe that
	 * others of them read (or to /dev/null: it cannot be told) */
	uint64_t nonpaged = dw > dwb ? dw - dwb : 0;
	w->rd_amb += d < nonpaged ? d : nonpaged;
	written_unseen(sp, wl, dw, dwb);
	w->reap_filer = false;
}

void sreap_written(struct sampler *sp, int wl, uint64_t out)
{
	struct swl *w = &sp->wl[wl];
	/* what ended processes wrote that no file looked at shows (files
	 * nobody held grew by what those processes wrote into them) */
	uint64_t shown = w->unheld + out;
	uint64_t total = w->wbytes + (w->unseen > shown ? w->unseen - shown : 0);

	if (!w->wpiped) {
		uint64_t wc = w->wchar_files > out ? w->wchar_files - out : 0;
		if (wc > total)
			total = wc;
	}
	if (total > w->wtotal)
		w->wtotal = total;
}

/* sample_reap.c - what a command tree read through processes that ended:
 * parallel, background and short-lived children the sampler never saw,
 * and the last reads of those it saw.
 *
 * The kernel keeps two I/O counts per process: each thread's own
 * (/proc/PID/task/TID/io) and the whole process's (/proc/PID/io), which
 * adds what its ended threads and every child it reaped did (a child's
 * whole count, so its own reaped children's too).  So for each tracked
 * process, whole minus its live threads' own (`kr`) grows exactly by the
 * rchar of what it reaped; benchtop reaps the roots and the orphans handed
 * to it (its subreaper) and reads their zombie's counts before it does.
 * Per workload and tick:
 *
 *   new reads = growth of every kr + zombies benchtop reaped
 *             - the whole rchar last seen of the tracked processes that ended
 *
 * which is what tracked processes read after their last look plus all a
 * never-seen process read.  A process never seen is measured by its rchar
 * (read(2), readv, sendfile and splice input: nothing else is left of it).
 * When a tracked process that ended held a pipe or socket to read from
 * (a stage of a pipeline), its last reads cannot be told from the rest:
 * that tick counts no more than what the ended file readers had left
 * unread in their files. */
#include "sample_priv.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* rchar of one thread's own reads (its task io); false when unreadable. */
static bool task_rchar(const struct sampler *sp, pid_t pid, pid_t tid, uint64_t *rchar)
{
	char path[160], buf[512];
	uint64_t wchar, rb, wb;

	snprintf(path, sizeof path, "%s/%d/task/%d/io", sp->root, (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return sample_parse_io(buf, rchar, &wchar, &rb, &wb) == 0;
}

void sreap_thread_gone(struct sampler *sp, struct sproc *p, const struct sthr *t)
{
	/* its own count moves into the whole's rest: seen already; its last
	 * reads are the process's own, told apart by position, not here */
	struct swl *w = &sp->wl[p->wl];
	if (!p->measure_io || t->tid == p->pid)
		return;
	w->reap_seen += t->rchar_own;
	w->reap_ambig = true;
}

/* The new whole rchar of p was read: its own threads' counts too, and
 * what its reaped count grew by goes to its workload. */
void sreap_read(struct sampler *sp, struct sproc *p)
{
	uint64_t own = 0, r;

	if (!p->measure_io)
		return;
	for (int i = 0; i < p->nthr; i++) {
		if (!task_rchar(sp, p->pid, p->thr[i].tid, &r))
			return;  /* a thread ended in between: next time */
		p->thr[i].rchar_own = r;
		own += r;
	}
	if (!p->kr_known)
		p->own_base = p->past ? own : 0;
	p->own = own;
	/* threads read after the whole: kr may come out short, never long,
	 * and what is short shows at the next look */
	uint64_t kr = p->rchar > own ? p->rchar - own : 0;
	/* an attached process's past is not this run's; a process first
	 * seen after it reaped children never seen counts them */
	if (!p->kr_known && p->past)
		p->kr = kr;
	if (kr > p->kr) {
		sp->wl[p->wl].reap_rchar += kr - p->kr;
		p->kr = kr;
	}
	p->kr_known = true;
}

void sreap_own(struct sampler *sp, struct sproc *p)
{
	p->frd_cum += p->frd;
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

void sreap_gone(struct sampler *sp, struct sproc *p)
{
	struct swl *w = &sp->wl[p->wl];

	if (!p->measure_io || p->exit_noted || !p->io_known)
		return;
	w->reap_seen += p->rchar;
	w->reap_cap += p->reads_files ? p->rd_left : 0;
	w->reap_ambig |= p->piped && !p->reads_files;
	p->rd_left = 0;
	p->io_known = false;  /* counted once */
}

void sreap_zombie(struct sampler *sp, struct sproc *p, int wl, pid_t pid, uint64_t rchar)
{
	struct swl *w = &sp->wl[wl];

	if (!w->measure_io)
		return;
	if (!p) {  /* never seen: all it and its reaped descendants read */
		w->reap_rchar += rchar;
		return;
	}
	if (!p->measure_io || p->exit_noted)
		return;
	if (!p->io_known) {
		w->reap_rchar += rchar;
		return;
	}
	/* the leader's own last reads count when all its reads were its files */
	uint64_t own;
	if (!task_rchar(sp, pid, pid, &own))
		own = 0;
	uint64_t own_last = 0;
	for (int i = 0; i < p->nthr; i++)
		if (p->thr[i].tid == pid)
			own_last = p->thr[i].rchar_own;
	uint64_t kr = rchar > own ? rchar - own : 0;
	if (kr > p->kr)
		w->reap_rchar += kr - p->kr;
	/* threads that ended since the last look: their counts are in kr */
	for (int i = 0; i < p->nthr; i++)
		if (p->thr[i].tid != pid) {
			w->reap_seen += p->thr[i].rchar_own;
			w->reap_ambig = true;
		}
	/* its own last reads: all of them when it read only files, else
	 * no more than its files had left */
	if (own > own_last) {
		uint64_t tail = own - own_last;
		if (p->piped)
			tail = !p->reads_files ? 0 : tail < p->rd_left ? tail : p->rd_left;
		w->pend_rbytes += tail;
	}
	p->rd_left = 0;
	p->kr = kr;
	p->rchar = rchar;
}

void sreap_settle(struct sampler *sp, int wl)
{
	struct swl *w = &sp->wl[wl];

	w->rbytes += w->pend_rbytes;
	w->pend_rbytes = 0;
	if (!w->reap_rchar && !w->reap_seen)
		return;
	/* a reaper read before the child it reaped was found gone shows
	 * that child at the next tick: wait for it, two ticks at most */
	if (w->reap_rchar < w->reap_seen && ++w->reap_wait <= 2)
		return;
	uint64_t d = w->reap_rchar > w->reap_seen ? w->reap_rchar - w->reap_seen : 0;
	if (w->reap_ambig && d > w->reap_cap)
		d = w->reap_cap;
	w->rbytes += d;
	w->reap_rchar = w->reap_seen = w->reap_cap = 0;
	w->reap_ambig = false;
	w->reap_wait = 0;
}

/* proc.c - one process looked up through libproc2: start time, bytes
 * written, its threads.  A context per item set, made on first use and
 * kept (benchtop's parent is single-threaded). */
#include "benchtop/proc.h"

#include <errno.h>
#include <libproc2/pids.h>
#include <stddef.h>

enum { ITEM_START, ITEM_WBYTES, ITEM_TID, ITEM_RBYTES, ITEM_N };

static enum pids_item start_items[] = { PIDS_TICS_BEGAN };
static enum pids_item io_items[] = { PIDS_IO_WRITE_BYTES };
static enum pids_item tid_items[] = { PIDS_ID_TID };
static enum pids_item rio_items[] = { PIDS_IO_READ_BYTES };

static struct pids_info *ctx_for(int which)
{
	static struct pids_info *info[ITEM_N];
	static enum pids_item *items[ITEM_N] = { start_items, io_items, tid_items, rio_items };

	if (!info[which] && procps_pids_new(&info[which], items[which], 1) < 0)
		info[which] = NULL;
	return info[which];
}

/* The first (only) result of pid for item context `which`, or NULL. */
static struct pids_result *one(int which, pid_t pid, struct pids_fetch **out)
{
	struct pids_info *info = ctx_for(which);
	unsigned id = (unsigned)pid;

	if (!info || pid <= 0)
		return NULL;
	*out = procps_pids_select(info, &id, 1, PIDS_SELECT_PID);
	if (!*out || (*out)->counts->total < 1)
		return NULL;
	return (*out)->stacks[0]->head;
}

unsigned long long proc_start_ticks(pid_t pid)
{
	struct pids_fetch *f = NULL;
	struct pids_result *r = one(ITEM_START, pid, &f);

	return r ? r[0].result.ull_int : 0;
}

int proc_write_bytes(pid_t pid, uint64_t *bytes)
{
	struct pids_fetch *f = NULL;
	struct pids_result *r;

	errno = 0;
	r = one(ITEM_WBYTES, pid, &f);
	if (!r)
		return errno == EACCES ? -EACCES : -ESRCH;
	*bytes = r[0].result.ul_int;
	return 0;
}

int proc_read_bytes(pid_t pid, uint64_t *bytes)
{
	struct pids_fetch *f = NULL;
	struct pids_result *r;

	errno = 0;
	r = one(ITEM_RBYTES, pid, &f);
	if (!r)
		return errno == EACCES ? -EACCES : -ESRCH;
	*bytes = r[0].result.ul_int;
	return 0;
}

int proc_each_thread(pid_t pid, void (*fn)(void *ctx, pid_t tid), void *ctx)
{
	struct pids_info *info = ctx_for(ITEM_TID);
	unsigned id = (unsigned)pid;
	struct pids_fetch *f;

	if (!info || pid <= 0)
		return -ESRCH;
	f = procps_pids_select(info, &id, 1, PIDS_SELECT_PID_THREADS);
	if (!f || f->counts->total < 1)
		return -ESRCH;
	for (int i = 0; i < f->counts->total; i++)
		fn(ctx, (pid_t)f->stacks[i]->head[0].result.s_int);
	return 0;
}

/* workload_attach.c - the processes of --attach as one workload: benchtop
 * did not start them and never signals them through it; they are
 * measured like a command (their trees' bytes to regular files, from
 * their file positions and sizes), and the workload ends when the last of
 * them has. */
#include "benchtop/workload.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "benchtop/sample.h"
#include "workload_priv.h"

int workload_attach_start(struct workload *w, char *msg, size_t len)
{
	const struct run *r = w->run;
	for (size_t i = 0; i < r->nattach; i++) {
		char slot[32];
		snprintf(slot, sizeof slot, "pid%d", (int)r->attach[i]);  /* a rule on it is on this PID */
		int rc = sampler_add_slot(w->sp, r->attach[i], w->id, "attached", slot, true);
		if (rc) {
			snprintf(msg, len, "--attach %d: cannot follow it: %s", (int)r->attach[i], strerror(-rc));
			return rc;
		}
	}
	return 0;
}

bool workload_attached_alive(const struct workload *w)
{
	/* one the sampler still tracks (a descendant it left behind is
	 * still its tree) needs no system call */
	pid_t pid;
	if (w->sp && sampler_pids(w->sp, w->id, &pid, 1) > 0)
		return true;
	const struct run *r = w->run;
	for (size_t i = 0; i < r->nattach; i++)
		if (kill(r->attach[i], 0) == 0 || errno == EPERM)
			return true;
	return false;
}

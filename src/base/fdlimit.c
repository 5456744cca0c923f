/* fdlimit.c - the descriptor limit: raised for benchtop, given back to
 * the commands it starts, and the share of it the sampler may hold. */
#include "benchtop/fdlimit.h"

#include <stdbool.h>
#include <sys/resource.h>

#define FDLIMIT_CAP ((rlim_t)1 << 20)

static struct rlimit found;
static bool raised;

void fdlimit_raise(void)
{
	struct rlimit r;

	if (raised || getrlimit(RLIMIT_NOFILE, &r) != 0)
		return;
	found = r;
	rlim_t want = r.rlim_max == RLIM_INFINITY || r.rlim_max > FDLIMIT_CAP ? FDLIMIT_CAP : r.rlim_max;
	if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < want) {
		r.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &r) == 0)
			raised = true;
	}
}

void fdlimit_child(void)
{
	if (raised)
		setrlimit(RLIMIT_NOFILE, &found);
}

int fdlimit_hold_budget(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) != 0)
		return 512;
	rlim_t soft = r.rlim_cur == RLIM_INFINITY || r.rlim_cur > FDLIMIT_CAP ? FDLIMIT_CAP : r.rlim_cur;
	if (soft >= 2048)
		return (int)(soft - 1024);
	return soft / 2 < 512 ? (int)(soft / 2) : 512;
}

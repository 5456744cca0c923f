/* priority.c - benchtop's own scheduling priority (see priority.h). */
#include "benchtop/priority.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/resource.h>

#define PRIORITY_STEPS 10

static bool raised;
static int started_nice;

int priority_raise(void)
{
	if (raised)
		return 0;  /* an earlier run in this process (an experiment's step) raised it */
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno)
		return -errno;
	int want = nice - PRIORITY_STEPS < -20 ? -20 : nice - PRIORITY_STEPS;
	if (want == nice)
		return 0;
	if (setpriority(PRIO_PROCESS, 0, want) < 0)
		return -errno;
	started_nice = nice;
	raised = true;
	return 0;
}

void priority_child(void)
{
	if (raised)
		setpriority(PRIO_PROCESS, 0, started_nice);
}

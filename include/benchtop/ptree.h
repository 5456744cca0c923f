/* ptree.h - facts about processes from /proc/PID/stat: parent, state,
 * kernel threads, and the descendants of a process.  Paths are /proc's;
 * every function is safe on a PID that has gone (it answers "unknown"). */
#ifndef BENCHTOP_PTREE_H
#define BENCHTOP_PTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The parent's PID, or -1 when pid is gone. */
pid_t ptree_parent(pid_t pid);
/* The state letter ('R', 'S', 'T', 'Z', ...), or 0 when pid is gone. */
char ptree_state(pid_t pid);
/* True for a kernel thread (PF_KTHREAD: kthreadd, kworkers, kswapd...). */
bool ptree_is_kernel_thread(pid_t pid);
/* Its command line into buf (arguments separated by spaces; its name
 * in brackets when it has none), "" when pid is gone. */
void ptree_cmdline(pid_t pid, char *buf, size_t len);
/* Send sig to every live descendant of ancestor, by parent links (benchtop
 * is its children's subreaper, so orphans of its tree are still its
 * descendants).  Returns how many were signalled. */
int ptree_signal_descendants(pid_t ancestor, int sig);

#endif

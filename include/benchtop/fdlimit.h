/* fdlimit.h - how many descriptors benchtop may hold, and the user's own
 * limit given back to the commands it starts. */
#ifndef BENCHTOP_FDLIMIT_H
#define BENCHTOP_FDLIMIT_H

/* Raise benchtop's soft RLIMIT_NOFILE to its hard limit (at most 2^20):
 * it holds /proc files of every tracked process open across ticks, a few
 * per process.  The limit it found is kept for fdlimit_child.  Call once,
 * at start. */
void fdlimit_raise(void);

/* In a forked child just before it execs a command: the soft limit back
 * to what benchtop found, so the command sees the user's own (a program
 * with select() must not be handed descriptors past FD_SETSIZE).  Only a
 * setrlimit: safe after fork. */
void fdlimit_child(void);

/* How many /proc files a sampler may hold open across ticks under the
 * current soft limit: all but 1024 of it (benchtop's other descriptors,
 * a file's O_PATH watchers, journals, connections), and never more than
 * half of a limit under 2048 (then at most 512). */
int fdlimit_hold_budget(void);

#endif

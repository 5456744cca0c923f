/* priority.h - benchtop's own scheduling priority.  The monitor asks for
 * a higher priority than its workloads (nice 10 steps below the one it
 * was started with, as atop does), so that a machine kept busy by the
 * workload it watches still lets each sample be taken on time; every
 * process benchtop starts for a workload goes back to the priority
 * benchtop was started with before it runs.  Where the system refuses
 * (no CAP_SYS_NICE, no RLIMIT_NICE room) nothing changes. */
#ifndef BENCHTOP_PRIORITY_H
#define BENCHTOP_PRIORITY_H

/* Raise this process's priority; 0, or -errno when refused (it stays). */
int priority_raise(void);
/* In a child before it runs a workload: the priority benchtop was started
 * with (nothing when priority_raise did not raise it). */
void priority_child(void);

#endif

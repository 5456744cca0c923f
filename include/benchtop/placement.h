/* placement.h - the placement rules of a run.  A rule is on a role of a
 * workload, never on a PID: a pin on "the writer of workload 1" holds for
 * that writer and for the next process that takes its place (a command
 * re-run by --loop, a workload restarted with r), which gets the rule
 * before it execs.
 *
 * A role is named by its workload (1..nwl; 0 = attached processes) and a
 * slot: an engine's role name ("writer", "seeker.2" when several share
 * it), "cmd" for a command's root, "source", or COMM.N for a command's
 * descendants.  Masks are byte arrays of ncpu entries (cpulist.h).
 *
 * Rules, strongest first: a pin on the role; under spread, the CPU spread
 * gave the role (the least-held allowed CPU, chosen when the role first
 * asks, kept from then on); the mask of the role's workload (pack, free,
 * a whole-workload pin, --cpus); none.  Pure logic: nothing here touches
 * a process (the caller applies what placement_want answers). */
#ifndef BENCHTOP_PLACEMENT_H
#define BENCHTOP_PLACEMENT_H

#include <stdbool.h>

struct placement_rules;

/* nwl workloads (ids 1..nwl, 0 for attached ones); allowed: the CPUs
 * placements may use (--cpus, else the online ones), copied.  NULL when
 * out of memory. */
struct placement_rules *placement_new(int ncpu, int nwl, const unsigned char *allowed);
void placement_free(struct placement_rules *p);

/* Pin role (wl, slot) to mask (copied).  0 or -ENOMEM / -EINVAL (an
 * empty mask, or wl out of range). */
int placement_pin(struct placement_rules *p, int wl, const char *slot, const unsigned char *mask);
/* Every role of workload wl (-1: of every workload) to mask: pack (one
 * CPU), free (the allowed CPUs), a whole-workload pin.  Drops the pins of
 * those roles and ends spread.  0 or -ENOMEM / -EINVAL. */
int placement_set_workload(struct placement_rules *p, int wl, const unsigned char *mask);
/* Spread: every role gets a CPU of its own, as it asks (placement_want);
 * drops every other rule. */
void placement_spread(struct placement_rules *p);
bool placement_spreading(const struct placement_rules *p);

/* The mask role (wl, slot) should have: for a running process, or for one
 * about to start (before it execs).  keep: a CPU the process already has
 * alone (-1 none), kept under spread when no live role holds it.  Marks
 * the role live.  NULL: no rule, leave it as it is.  The pointer is valid
 * until the next call that changes the rules. */
const unsigned char *placement_want(struct placement_rules *p, int wl, const char *slot, int keep);

/* Which roles have a process now: placement_live_begin, then
 * placement_live for each running process.  Under spread only live roles
 * hold their CPUs (a role whose process ended for good frees its CPU;
 * its rule stays for a later restart). */
void placement_live_begin(struct placement_rules *p);
void placement_live(struct placement_rules *p, int wl, const char *slot);
/* What the role's process does now: idle (control, idle: it may share
 * a CPU) or busy (a reader, a writer, a busy command process), after
 * placement_live.  A role is busy until said otherwise. */
void placement_idle(struct placement_rules *p, int wl, const char *slot, bool idle);
/* Under spread: a busy live role that shares its CPU with another busy
 * one moves to an allowed CPU no busy role holds, when there is one (the
 * idle ones share what is left).  Returns how many roles moved. */
int placement_rebalance(struct placement_rules *p);
/* The CPU spread gave role (wl, slot), -1 when none (not spreading, or
 * the role has not asked yet). */
int placement_spread_cpu(const struct placement_rules *p, int wl, const char *slot);
/* How many live roles are pinned to CPU cpu alone. */
int placement_held(const struct placement_rules *p, int cpu);

#endif

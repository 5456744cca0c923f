/* cpufreq.h - CPU frequency policies, governors, limits and residency,
 * read and written under a sysfs root (default "/sys"; tests pass a fake
 * tree).  Nothing here invents a frequency: what the tree does not have is
 * reported as missing.
 *
 * Every write (governor, scaling_max_freq) first records the original value
 * in the restore journal (journal.h); cpufreq_restore() writes the originals
 * back and removes the journal. */
#ifndef BENCHTOP_CPUFREQ_H
#define BENCHTOP_CPUFREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "benchtop/model.h"

struct cpufreq;

/* Open the tree at sysfs_root for ncpu CPUs.  Never fails for a missing
 * tree: cpufreq_source() then says FREQ_CPUINFO or FREQ_NONE.  procfs_root
 * is "/proc" (used only for /proc/cpuinfo when sysfs_root is "/sys"). */
struct cpufreq *cpufreq_open(const char *sysfs_root, int ncpu);
/* The same with an explicit procfs root for /proc/cpuinfo (NULL: never
 * read it).  cpufreq_open passes "/proc" only when sysfs_root is "/sys",
 * so a fake tree's figures never mix with the real machine's. */
struct cpufreq *cpufreq_open_at(const char *sysfs_root, const char *procfs_root, int ncpu);
void cpufreq_close(struct cpufreq *cf);
/* The run journal holding cf's originals, "" when none are recorded. */
const char *cpufreq_journal_path(const struct cpufreq *cf);

/* Where frequencies come from on this host (FREQ_NONE when nowhere). */
enum freq_source cpufreq_source(const struct cpufreq *cf);
const char *cpufreq_source_name(enum freq_source s); /* "scaling_cur_freq", ... */
/* "kernel" (time_in_state), "sampled" or "none" - the start record's word. */
const char *cpufreq_residency_kind(const struct cpufreq *cf);
/* A sentence for the header when nothing is observable, else NULL:
 * "frequency not observable here (nominal 2400 MHz)". */
const char *cpufreq_unavailable_reason(const struct cpufreq *cf);

/* Read current frequency and governor of every CPU into s->cpus[i].khz and
 * .governor, and advance residency by dt seconds.  Cheap: a handful of
 * small reads; a source that is slow is read less often. */
void cpufreq_sample(struct cpufreq *cf, struct snapshot *s, double dt);

/* Number of cpufreq policies found (0 without a cpufreq tree). */
int cpufreq_npolicies(const struct cpufreq *cf);
/* The policy CPU cpu belongs to, -1 when none covers it. */
int cpufreq_policy_of_cpu(const struct cpufreq *cf, int cpu);
/* Policy p: the CPUs it covers as a list ("0-3"), its available governors
 * (space separated), current governor, driver, min/max limits and the
 * available frequencies (ascending).  Strings are owned by cf. */
const char *cpufreq_policy_cpus(const struct cpufreq *cf, int p);
const char *cpufreq_policy_governors(const struct cpufreq *cf, int p);
const char *cpufreq_policy_governor(const struct cpufreq *cf, int p);
const char *cpufreq_policy_driver(const struct cpufreq *cf, int p);
long cpufreq_policy_min(const struct cpufreq *cf, int p);
long cpufreq_policy_max(const struct cpufreq *cf, int p);
size_t cpufreq_policy_freqs(const struct cpufreq *cf, int p, const long **khz);

/* Set the governor on policy p (or all when p < 0).  Refuses a name not in
 * scaling_available_governors (-EINVAL) before writing.  Before its first
 * change a policy's originals go to the run journal; a policy whose
 * originals cannot be recorded exactly (an unreadable, overlong or odd
 * file) or that another benchtop steers (-EBUSY, msg names its PID) is
 * left alone, and msg says so.  Returns 0 when the policies that were not
 * left alone have the governor, else -errno; msg gets a sentence for the
 * status line either way. */
int cpufreq_set_governor(struct cpufreq *cf, int p, const char *gov, char *msg, size_t len);
/* The governor after the current one on policy 0, cycling; NULL if none. */
const char *cpufreq_next_governor(const struct cpufreq *cf);
/* Cap scaling_max_freq at khz on policy p (all if p < 0); khz <= 0 lifts
 * the cap (back to the saved original).  Policies are left alone as for
 * cpufreq_set_governor. */
int cpufreq_set_maxfreq(struct cpufreq *cf, int p, long khz, char *msg, size_t len);
/* How many policies the last set call left alone (msg said why). */
int cpufreq_left_alone(const struct cpufreq *cf);

/* Residency: seconds at each frequency of cpu since start (since_event =
 * false) or since the last cpufreq_mark() (true).  Returns the number of
 * rows; *khz and *secs point into cf. */
size_t cpufreq_residency(const struct cpufreq *cf, int cpu, bool since_event,
                         const long **khz, const double **secs);
/* Mean effective frequency of cpu in kHz over the same span, -1 unknown. */
long cpufreq_mean_khz(const struct cpufreq *cf, int cpu, bool since_event);
/* Residency counts from now, the run's start: the kernel's counters are
 * read again as the baseline and what was added since cpufreq_open (the
 * run's set-up) is dropped. */
void cpufreq_start_clock(struct cpufreq *cf);
/* Start a new residency phase (called at every event). */
void cpufreq_mark(struct cpufreq *cf);
/* Number of completed phases (cpufreq_mark calls). */
size_t cpufreq_nphases(const struct cpufreq *cf);
/* The residency of completed phase i as a JSON object
 * {"0":{"800000":1.5,...},...}, member key of where w is (NULL in an
 * array); i == cpufreq_nphases() writes the phase still open. */
struct jw;
void cpufreq_phase_residency_json(const struct cpufreq *cf, size_t phase, struct jw *w, const char *key);
/* Policies with driver, governor and limits as a JSON array (member key),
 * for the start record and the summary. */
void cpufreq_policies_json(const struct cpufreq *cf, struct jw *w, const char *key);

/* Write back every original value changed through cf; remove the journal.
 * Safe to call more than once. */
void cpufreq_restore(struct cpufreq *cf);
/* The same, with one line per failure on report (may be NULL); 0 or the
 * first -errno (the journal is kept when something could not be restored). */
int cpufreq_restore_report(struct cpufreq *cf, FILE *report);

/* Put policy directory rel (relative to sysfs root) back to governor gov
 * ("" to leave it), min_khz and max_khz (<= 0 to leave them), writing only
 * what differs.  Every file is opened beneath root without following a
 * symbolic link out of it (links inside the tree, as sysfs has, are
 * followed); the governor must be in the policy's available list and the
 * limits within its cpuinfo range.  Used by cpufreq_restore and
 * --restore.  0 or -errno, msg says what failed. */
int cpufreq_restore_policy(const char *root, const char *rel, const char *gov, long min_khz,
                           long max_khz, char *msg, size_t len);
/* Open rel beneath the directory rootfd with flags, resolving symbolic
 * links only while they stay beneath it (-EXDEV when one leads out, as
 * an absolute one does).  The fd, or -errno. */
int cpufreq_open_beneath(int rootfd, const char *rel, int flags);

#endif

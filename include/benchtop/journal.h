/* journal.h - the restore journal: what the machine's cpufreq policies
 * looked like before benchtop changed them, so that the originals can be
 * written back at exit, or later by `benchtop --restore` when the benchtop
 * that changed them was killed.
 *
 * One file per benchtop process ("journal.PID", "journal.PID.N" for a
 * second tree in the same process) in the journal directory, written
 * atomically (a hidden temporary file renamed over it), so two benchtops
 * never corrupt each other's journal.  The file is plain text:
 *
 *   benchtop-journal 1
 *   pid 1234
 *   starttime 56789
 *   boot_id 0f3c...
 *   sysfs /sys
 *   policy devices/system/cpu/cpufreq/policy0 ondemand 800000 2600000
 *
 * A policy line names the policy directory relative to the sysfs root, the
 * original governor ("-" when unknown), scaling_min_freq and
 * scaling_max_freq in kHz (-1 when unknown). */
#ifndef BENCHTOP_JOURNAL_H
#define BENCHTOP_JOURNAL_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#define JOURNAL_GOV_LEN 32
#define JOURNAL_DIR_LEN 256

struct journal_policy {
	char dir[JOURNAL_DIR_LEN];      /* relative to the sysfs root */
	char governor[JOURNAL_GOV_LEN]; /* "" when unknown */
	long min_khz, max_khz;          /* -1 when unknown */
};

struct journal {
	pid_t pid;                      /* the benchtop that made the changes */
	unsigned long long starttime;   /* its start time (/proc/PID/stat), 0 unknown */
	char boot_id[64];
	char sysfs_root[PATH_MAX];
	size_t n;
	struct journal_policy *pol;     /* owned; free with journal_free() */
};

/* The directory journals go to, created if needed (mode 0700):
 * $XDG_RUNTIME_DIR/benchtop, else /run/benchtop, else fallback (when NULL:
 * $TMPDIR/benchtop, else /var/tmp/benchtop).  Returns 0 or -errno. */
int journal_dir(const char *fallback, char *buf, size_t len);

/* This boot's id (/proc/sys/kernel/random/boot_id); 0 or -errno. */
int journal_boot_id(char *buf, size_t len);
/* Start time of pid in clock ticks since boot (field 22 of /proc/PID/stat),
 * 0 when it cannot be read. */
unsigned long long journal_proc_starttime(pid_t pid);

/* Write j to path atomically (temporary file + rename).  0 or -errno. */
int journal_save(const char *path, const struct journal *j);
/* Read path into *j (which then owns an array: journal_free).  -EINVAL for
 * a file that is not a benchtop journal. */
int journal_load(const char *path, struct journal *j);
void journal_free(struct journal *j);

/* Write every policy of j back under j->sysfs_root.  Each failure is one
 * line on report (may be NULL).  0, or the first -errno. */
int journal_apply(const struct journal *j, FILE *report);

/* Originals another running benchtop recorded already.  pol holds n
 * policies (dir relative to sysfs_root, the values as read now); for each,
 * when a journal in the directories journal_dir may pick (fallback as
 * there; the default fallback too) is for the same resolved sysfs root,
 * from this boot, and its owner is still running (start time checked), the
 * values it holds replace the ones read now (field by field: an unknown
 * value in the journal leaves the one read).  A second benchtop started
 * while a first one has the policies changed would otherwise take the
 * first one's settings for the originals and "restore" them.  When several
 * live journals hold a policy, the oldest owner's wins.  Returns how many
 * policies were taken from a journal, or -errno. */
int journal_live_originals(const char *sysfs_root, const char *fallback,
                           struct journal_policy *pol, size_t n);
/* The same for one directory (tests use it with a scratch directory). */
int journal_live_originals_dir(const char *dir, const char *sysfs_root,
                               struct journal_policy *pol, size_t n);

/* `benchtop --restore`: in every journal directory (those journal_dir may
 * pick, with the default fallback), apply each journal whose owner is no
 * longer running and remove it.  Journals of a live benchtop are left
 * alone; journals from another boot are discarded with a message; when
 * sysfs_root is not NULL, only journals for that root are applied.  One line
 * per journal on report (may be NULL).  0, or the first -errno. */
int journal_restore_all(const char *sysfs_root, FILE *report);
/* The same for one directory (tests use it with a scratch directory). */
int journal_restore_dir(const char *dir, const char *sysfs_root, FILE *report);

#endif

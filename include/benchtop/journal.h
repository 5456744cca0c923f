/* journal.h - the run journal: everything a benchtop process changed or
 * made that must be undone if it is killed (SIGKILL, a crash, a power cut
 * of the terminal): the cpufreq policies it changed with their original
 * values, its scratch files and directories, the process groups and
 * cgroups its workloads run in, and attached processes it paused.
 * `benchtop --restore` reads journals left by benchtops that are gone and
 * undoes what they name.  This module is storage only: it writes, locks,
 * checks and reads journals; undoing is the callers' (cpufreq_write.c for
 * policies, leftovers.c for processes and files, app/restore.c for
 * --restore).
 *
 * Where: one directory per user, owned by that user and writable by
 * nobody else: $XDG_RUNTIME_DIR/benchtop, else /run/benchtop for root,
 * else ~/.local/state/benchtop.  Never a shared temporary directory.
 * Before a journal is read, its directory (owned by the user or root, not
 * writable by group or others) and its parent (the same, or sticky), and
 * the file itself (a regular file with one link, owned by the user, not
 * writable by group or others) are checked, as ssh's StrictModes does; a
 * journal that fails is refused with a message naming it.
 *
 * One file per benchtop process, "journal.PID".  It is written whole each
 * time something is noted: a new file made with O_CREAT|O_EXCL|O_NOFOLLOW
 * (".journal.PID.tmp"), locked (flock LOCK_EX), then renamed over
 * the old one.  The owner holds the lock for as long as it runs, so a
 * journal whose lock can be taken belongs to a benchtop that is gone.
 * The file is plain text, one record a line, paths %XX-escaped (bytes
 * below 0x21, 0x7f and '%'):
 *
 *   benchtop-journal 2
 *   pid 1234
 *   starttime 56789
 *   boot_id 0f3c...
 *   sysfs /sys
 *   policy devices/system/cpu/cpufreq/policy0 ondemand 800000 2600000
 *   scratch /var/tmp/benchtop.Ab12Cd
 *   pgid 4321 56800
 *   cgroup /sys/fs/cgroup/unified/user.slice/benchtop-1234
 *   paused 999 12000
 *
 * A policy line belongs to the sysfs line before it and names the policy
 * directory relative to that root, the original governor ("-" unknown),
 * scaling_min_freq and scaling_max_freq in kHz (-1 unknown).  pgid and
 * paused lines carry the process's start time (clock ticks since boot,
 * /proc/PID/stat field 22), so a reused PID is never taken for it.
 * Version 1 journals (no scratch, pgid, cgroup or paused lines) are read
 * too. */
#ifndef BENCHTOP_JOURNAL_H
#define BENCHTOP_JOURNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define JOURNAL_GOV_LEN 32
#define JOURNAL_DIR_LEN 256

struct journal_policy {
	int root;                       /* index into journal.roots */
	char dir[JOURNAL_DIR_LEN];      /* relative to that root */
	char governor[JOURNAL_GOV_LEN]; /* "" when unknown */
	long min_khz, max_khz;          /* -1 when unknown */
};

/* A process named by PID and start time (0 when unknown). */
struct journal_proc {
	pid_t pid;
	unsigned long long starttime;
};

struct journal {
	pid_t pid;                      /* the benchtop that wrote it */
	unsigned long long starttime;   /* its start time, 0 unknown */
	char boot_id[64];
	size_t nroots;
	char (*roots)[PATH_MAX];        /* sysfs roots the policies are under */
	size_t n;
	struct journal_policy *pol;
	size_t nscratch;
	char **scratch;                 /* absolute paths */
	size_t npgid;
	struct journal_proc *pgid;      /* process groups (leader's start time) */
	size_t ncgroup;
	char **cgroup;                  /* absolute cgroup directories */
	size_t npaused;
	struct journal_proc *paused;
};
/* Everything above is owned by the journal: free with journal_free(). */

/* ---- the run journal of this process ----------------------------------
 * One per benchtop process, made at the first note and removed as soon as
 * it holds nothing.  Each note is on disk (renamed into place) when the
 * call returns; call it right after making the thing it names (a scratch
 * directory just made, a process group just set) and forget it right
 * after undoing it in order.  A forked child that notes something starts
 * a journal of its own (the parent's stays the parent's).  Notes return 0
 * or -errno (the journal could not be written: the caller says so; what
 * was noted before stays).  Noting what is noted already, or forgetting
 * what is not, does nothing and returns 0. */

/* A file or directory benchtop made (absolute path): --restore removes it,
 * a directory with everything in it, never following a symbolic link.
 * Do not note what --keep keeps. */
int journal_note_scratch(const char *path);
int journal_forget_scratch(const char *path);
/* Whether a scratch path below directory dir is noted (a file that could
 * not be removed: the directory stays noted with it). */
bool journal_scratch_below(const char *dir);
/* A process group a workload runs in (pgid is its leader's PID, alive
 * now): --restore sends the group SIGKILL if its leader is still the same
 * process, or if the leader is gone and members remain. */
int journal_note_pgid(pid_t pgid);
int journal_forget_pgid(pid_t pgid);
/* A cgroup directory the run made for its workloads (absolute path):
 * --restore kills what is in it (cgroup.kill, else each process in
 * cgroup.procs) and removes it. */
int journal_note_cgroup(const char *path);
int journal_forget_cgroup(const char *path);
/* An attached process benchtop stopped (SIGSTOP): --restore sends it
 * SIGCONT if it is still the same process.  _resumed forgets it. */
int journal_note_paused(pid_t pid);
int journal_note_resumed(pid_t pid);

/* Before benchtop first changes policy p->dir under sysfs_root: record
 * its originals.  Refused with -EBUSY and a sentence in msg naming the
 * PID when a journal of another benchtop (running, or gone without its
 * journal restored) holds the same policy on the same tree.  0 when noted
 * (or noted already), else -errno with msg. */
int journal_note_policy(const char *sysfs_root, const struct journal_policy *p,
                        char *msg, size_t len);
/* Journals live where XDG_RUNTIME_DIR says; so that a benchtop started
 * with another one still sees it, every noted policy is also claimed in
 * one place per user that no environment variable moves
 * (/run/benchtop/claims for root, else /run/user/UID/benchtop/claims,
 * else ~/.local/state/benchtop/claims), a file per policy directory named
 * for its device and inode, naming the claimant and its journal.  A claim
 * whose journal holds the policy refuses the note as above; one whose
 * journal is gone or holds it no more is stale and replaced.  Forgetting
 * the policy releases it; --restore releases the claims of pid on what it
 * put back. */
void journal_release_claim(const char *policy_path, pid_t pid);
/* The policy's originals are back: forget it. */
int journal_forget_policy(const char *sysfs_root, const char *dir);

/* The run journal's path, "" when this process has none. */
const char *journal_path(void);

/* ---- journal files ----------------------------------------------------- */

/* The journal directory of this user (not made, not checked): 0 or -errno. */
int journal_dir_path(char *buf, size_t len);
/* Open a journal directory after checking it and its parent as the header
 * says (make: create it and missing parents, mode 0700).  0 and *dirfd,
 * else -errno (-ENOENT missing, -EPERM not trusted) and a sentence naming
 * it in why (may be NULL). */
int journal_open_dir(const char *dir, bool make, int *dirfd, char *why, size_t len);
/* Open journal name in dirfd for reading (O_NOFOLLOW) after checking the
 * file as the header says; shown is its name in why.  0 and *fd, or
 * -errno with a sentence in why. */
int journal_open_checked(int dirfd, const char *name, const char *shown, int *fd,
                         char *why, size_t len);

/* This boot's id (/proc/sys/kernel/random/boot_id); 0 or -errno. */
int journal_boot_id(char *buf, size_t len);
/* Start time of pid in clock ticks since boot (field 22 of /proc/PID/stat),
 * 0 when it cannot be read. */
unsigned long long journal_proc_starttime(pid_t pid);

/* Text of j (the format above): 0 or -errno; *out is malloc'd. */
int journal_format(const struct journal *j, char **out, size_t *outlen);
/* Parse len bytes of text into *j (then owning its arrays): 0, -EFBIG
 * above 1 MiB, or -EINVAL for anything that is not a well-formed journal
 * (bad names, values out of range, a policy path that is absolute or has
 * "." or "..", a relative scratch, sysfs or cgroup path, PID 0 or 1, a
 * NUL byte, an unknown line). */
int journal_parse(const char *text, size_t len, struct journal *j);
/* Read an open journal into *j: 0 or -errno as journal_parse. */
int journal_read_fd(int fd, struct journal *j);
/* journal_open_dir + journal_open_checked + journal_read_fd. */
int journal_load(const char *path, struct journal *j, char *why, size_t len);
/* Write j to path (temporary file made O_EXCL|O_NOFOLLOW, rename) in a
 * checked directory.  Tests and tools only: the run journal is written by
 * the notes. */
int journal_save(const char *path, const struct journal *j);
void journal_free(struct journal *j);

/* Claim the journal open as fd for undoing: true when its benchtop is gone
 * (its lock is free and its pid does not run with the recorded start
 * time); the lock is then held through fd until it is closed, so two
 * --restore never undo one journal at once.  false: still in use. */
bool journal_claim(int fd, const struct journal *j);

/* The absolute path of policy i ("ROOT/DIR"). */
void journal_policy_path(const struct journal *j, size_t i, char *buf, size_t len);

/* What the parser accepts: a path with no empty, "." or ".." component
 * (absolute or relative as asked; never "/"), and a governor name
 * (letters, digits, '_' and '-', under JOURNAL_GOV_LEN). */
bool journal_clean_path(const char *s, bool absolute);
bool journal_governor_name(const char *s);

#endif

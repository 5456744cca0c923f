/* journal_run.c - the run journal of this process: the notes (see
 * journal.h).  One journal per process, rewritten whole at each note and
 * removed when it holds nothing. */
#include "journal_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
	pid_t owner;            /* the process this state is for */
	struct journal j;
	int dirfd, fd;          /* fd: the journal on disk, locked */
	char dir[PATH_MAX], name[64], path[PATH_MAX + 64];
} run = { .dirfd = -1, .fd = -1 };

/* A forked child has a copy of its parent's state: it starts afresh
 * (closing its copies leaves the parent's lock held). */
static void own_state(void)
{
	pid_t me = getpid();

	if (run.owner == me)
		return;
	if (run.owner) {
		if (run.fd >= 0)
			close(run.fd);
		if (run.dirfd >= 0)
			close(run.dirfd);
		journal_free(&run.j);
	}
	memset(&run.j, 0, sizeof(run.j));
	run.fd = run.dirfd = -1;
	run.dir[0] = run.path[0] = '\0';
	run.owner = me;
	snprintf(run.name, sizeof(run.name), "journal.%d", (int)me);
}

static int open_dir(char *why, size_t len)
{
	int rc;

	if (run.dirfd >= 0)
		return 0;
	if ((rc = journal_dir_path(run.dir, sizeof(run.dir))) < 0) {
		if (why)
			snprintf(why, len, "no directory for the journal (set XDG_RUNTIME_DIR or HOME)");
		return rc;
	}
	return journal_open_dir(run.dir, true, &run.dirfd, why, len);
}

static bool empty(const struct journal *j)
{
	return !j->n && !j->nscratch && !j->npgid && !j->ncgroup && !j->npaused;
}

/* Put the journal on disk as it is now (or remove it when empty). */
static int sync_run(void)
{
	int rc, fd = -1;

	if (empty(&run.j)) {
		if (run.fd >= 0) {
			unlinkat(run.dirfd, run.name, 0);
			close(run.fd);
			run.fd = -1;
			run.path[0] = '\0';
		}
		return 0;
	}
	if ((rc = open_dir(NULL, 0)) < 0)
		return rc;
	if (!run.j.pid) {
		run.j.pid = run.owner;
		run.j.starttime = journal_proc_starttime(run.owner);
		journal_boot_id(run.j.boot_id, sizeof(run.j.boot_id));
	}
	if ((rc = journal_write_at(run.dirfd, run.name, &run.j, &fd)) < 0)
		return rc;
	if (run.fd >= 0)
		close(run.fd);
	run.fd = fd;
	snprintf(run.path, sizeof(run.path), "%s/%s", run.dir, run.name);
	return 0;
}

const char *journal_path(void)
{
	own_state();
	return run.path;
}

/* ---- strings and processes ---- */

static int find_string(char **arr, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(arr[i], s) == 0)
			return (int)i;
	return -1;
}

static int note_string(char ***arr, size_t *n, const char *path)
{
	int rc;

	own_state();
	if (!path || !journal_clean_path(path, true))
		return -EINVAL;
	if (find_string(*arr, *n, path) >= 0)
		return 0;
	if ((rc = journal_add_string(arr, n, path)) < 0)
		return rc;
	return sync_run();
}

static int forget_string(char ***arr, size_t *n, const char *path)
{
	int i;

	own_state();
	if (!path || (i = find_string(*arr, *n, path)) < 0)
		return 0;
	free((*arr)[i]);
	(*arr)[i] = (*arr)[--*n];
	return sync_run();
}

static int find_proc(const struct journal_proc *arr, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (arr[i].pid == pid)
			return (int)i;
	return -1;
}

static int note_proc(struct journal_proc **arr, size_t *n, pid_t pid)
{
	int rc;

	own_state();
	if (pid < 2)
		return -EINVAL;
	if (find_proc(*arr, *n, pid) >= 0)
		return 0;
	if ((rc = journal_add_proc(arr, n, pid, journal_proc_starttime(pid))) < 0)
		return rc;
	return sync_run();
}

static int forget_proc(struct journal_proc *arr, size_t *n, pid_t pid)
{
	int i;

	own_state();
	if ((i = find_proc(arr, *n, pid)) < 0)
		return 0;
	arr[i] = arr[--*n];
	return sync_run();
}

int journal_note_scratch(const char *path)
{
	return note_string(&run.j.scratch, &run.j.nscratch, path);
}

int journal_forget_scratch(const char *path)
{
	return forget_string(&run.j.scratch, &run.j.nscratch, path);
}

bool journal_scratch_below(const char *dir)
{
	size_t n = strlen(dir);

	own_state();
	for (size_t i = 0; i < run.j.nscratch; i++)
		if (strncmp(run.j.scratch[i], dir, n) == 0 && run.j.scratch[i][n] == '/')
			return true;
	return false;
}

int journal_note_cgroup(const char *path)
{
	return note_string(&run.j.cgroup, &run.j.ncgroup, path);
}

int journal_forget_cgroup(const char *path)
{
	return forget_string(&run.j.cgroup, &run.j.ncgroup, path);
}

int journal_note_pgid(pid_t pgid)
{
	return note_proc(&run.j.pgid, &run.j.npgid, pgid);
}

int journal_forget_pgid(pid_t pgid)
{
	own_state();
	return forget_proc(run.j.pgid, &run.j.npgid, pgid);
}

int journal_note_paused(pid_t pid)
{
	return note_proc(&run.j.paused, &run.j.npaused, pid);
}

int journal_note_resumed(pid_t pid)
{
	own_state();
	return forget_proc(run.j.paused, &run.j.npaused, pid);
}

/* ---- policies ---- */

static void canonical(const char *path, char *buf)
{
	if (!realpath(path, buf))
		snprintf(buf, PATH_MAX, "%s", path);
}

static int find_root(const struct journal *j, const char *root)
{
	for (size_t i = 0; i < j->nroots; i++)
		if (strcmp(j->roots[i], root) == 0)
			return (int)i;
	return -1;
}

static int find_policy(const struct journal *j, int root, const char *dir)
{
	for (size_t i = 0; i < j->n; i++)
		if (j->pol[i].root == root && strcmp(j->pol[i].dir, dir) == 0)
			return (int)i;
	return -1;
}

/* Does journal j hold the policy whose resolved directory is want? */
static bool holds(const struct journal *j, const char *want)
{
	char path[PATH_MAX + JOURNAL_DIR_LEN], real[PATH_MAX];

	for (size_t i = 0; i < j->n; i++) {
		journal_policy_path(j, i, path, sizeof(path));
		canonical(path, real);
		if (strcmp(real, want) == 0)
			return true;
	}
	return false;
}

static void busy_msg(const struct journal *j, int fd, const char *name, const char *dir,
                     char *msg, size_t len)
{
	const char *pol = strrchr(dir, '/');
	bool live = flock(fd, LOCK_SH | LOCK_NB) < 0 || journal_owner_alive(j);

	pol = pol ? pol + 1 : dir;
	if (live)
		snprintf(msg, len, "%s is steered by benchtop %d, which is running (journal %s/%s): "
		         "left alone", pol, (int)j->pid, run.dir, name);
	else
		snprintf(msg, len, "%s still has the changes of benchtop %d, which stopped without "
		         "undoing them (journal %s/%s): run benchtop --restore first", pol,
		         (int)j->pid, run.dir, name);
}

/* Another journal in our directory holding the policy at want: -EBUSY. */
static int other_holder(const char *want, const char *dir, char *msg, size_t len)
{
	int dfd = openat(run.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0; /* nothing readable: nothing found */
	}
	while (rc == 0 && (de = readdir(d))) {
		struct journal j;
		int fd;
		if (strncmp(de->d_name, "journal.", 8) != 0 || strcmp(de->d_name, run.name) == 0)
			continue;
		if (journal_open_checked(run.dirfd, de->d_name, de->d_name, &fd, NULL, 0) < 0)
			continue;
		if (journal_read_fd(fd, &j) == 0) {
			if (holds(&j, want)) {
				busy_msg(&j, fd, de->d_name, dir, msg, len);
				rc = -EBUSY;
			}
			journal_free(&j);
		}
		close(fd);
	}
	closedir(d);
	return rc;
}

/* ---- claims ----
 * Journals live where XDG_RUNTIME_DIR says, so two benchtops started with
 * different ones would not see each other's.  Every policy a benchtop
 * changes is therefore also claimed in one place that does not depend on
 * the environment: /run/benchtop/claims for root, else
 * /run/user/UID/benchtop/claims, else ~/.local/state/benchtop/claims
 * (home from the password database).  A claim is a file named for the
 * policy directory's device and inode ("policy.DEV.INO", whatever path
 * reached it), holding the claimant's PID, start time and journal path.
 * It holds while that journal holds the policy; otherwise it is stale and
 * replaced. */

static int claims_dir(int *dfd)
{
	char dir[PATH_MAX];
	struct stat st;
	uid_t uid = geteuid();

	if (uid == 0) {
		snprintf(dir, sizeof(dir), "/run/benchtop/claims");
	} else {
		snprintf(dir, sizeof(dir), "/run/user/%u", (unsigned)uid);
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid) {
			snprintf(dir, sizeof(dir), "/run/user/%u/benchtop/claims", (unsigned)uid);
		} else {
			struct passwd *pw = getpwuid(uid);
			if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
				return -ENOENT;
			snprintf(dir, sizeof(dir), "%s/.local/state/benchtop/claims", pw->pw_dir);
		}
	}
	return journal_open_dir(dir, true, dfd, NULL, 0);
}

static int claim_name(const char *policy_path, char *name, size_t len)
{
	struct stat st;

	if (stat(policy_path, &st) != 0)
		return -errno;
	snprintf(name, len, "policy.%llu.%llu", (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino);
	return 0;
}

struct claim {
	pid_t pid;
	unsigned long long starttime;
	char journal[PATH_MAX];
};

static bool read_claim(int dfd, const char *name, struct claim *c)
{
	char buf[PATH_MAX + 128];
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_uid == geteuid() || st.st_uid == 0))
		n = read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	int pid = 0, off = 0;
	if (sscanf(buf, "pid %d %llu\njournal %n", &pid, &c->starttime, &off) < 2 || !off || pid < 2)
		return false;
	c->pid = pid;
	snprintf(c->journal, sizeof(c->journal), "%s", buf + off);
	c->journal[strcspn(c->journal, "\n")] = '\0';
	return c->journal[0] == '/';
}

/* Does the claim c on the policy at want still hold (its journal holds
 * the policy)?  *alive: its benchtop runs. */
static bool claim_holds(const struct claim *c, const char *want, bool *alive)
{
	struct journal j;
	bool held;

	if (journal_load(c->journal, &j, NULL, 0) < 0)
		return false;
	held = j.pid == c->pid && holds(&j, want);
	*alive = journal_owner_alive(&j);
	journal_free(&j);
	return held;
}

/* The XDG_RUNTIME_DIR whose --restore reads journal path ("DIR/benchtop/journal.N"). */
static void restore_hint(const char *path, char *buf, size_t len)
{
	const char *end = strstr(path, "/benchtop/journal.");
	if (end && end > path)
		snprintf(buf, len, "XDG_RUNTIME_DIR=%.*s benchtop --restore", (int)(end - path), path);
	else
		snprintf(buf, len, "benchtop --restore");
}

/* Claim the policy at want (canonical path) for this process: 0 (claimed,
 * or no claims directory here), or -EBUSY with msg naming the holder. */
static int claim_policy(const char *want, const char *dir, char *msg, size_t len)
{
	char name[96], text[PATH_MAX + 128], hint[PATH_MAX + 64];
	const char *pol = strrchr(dir, '/');
	struct claim c;
	int dfd, rc = 0;

	pol = pol ? pol + 1 : dir;
	if (claim_name(want, name, sizeof(name)) < 0 || claims_dir(&dfd) < 0)
		return 0;
	for (int tries = 0; tries < 2; tries++) {
		int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			int n = snprintf(text, sizeof(text), "pid %d %llu\njournal %s/%s\n", (int)run.owner,
			                 journal_proc_starttime(run.owner), run.dir, run.name);
			rc = journal_write_all(fd, text, (size_t)n);
			close(fd);
			if (rc < 0)
				unlinkat(dfd, name, 0);
			rc = 0;  /* a claim that cannot be written: the journal still is */
			break;
		}
		if (errno != EEXIST)
			break;
		bool alive = false;
		if (read_claim(dfd, name, &c) && c.pid == run.owner)
			break;  /* ours already */
		if (read_claim(dfd, name, &c) && claim_holds(&c, want, &alive)) {
			restore_hint(c.journal, hint, sizeof(hint));
			if (alive)
				snprintf(msg, len, "%s is steered by benchtop %d, which is running (journal %s): "
				         "left alone", pol, (int)c.pid, c.journal);
			else
				snprintf(msg, len, "%s still has the changes of benchtop %d, which stopped without "
				         "undoing them (journal %s): run %s first", pol, (int)c.pid, c.journal, hint);
			rc = -EBUSY;
			break;
		}
		unlinkat(dfd, name, 0);  /* stale: its journal no longer holds the policy */
	}
	close(dfd);
	return rc;
}

void journal_release_claim(const char *policy_path, pid_t pid)
{
	char name[96], real[PATH_MAX];
	struct claim c;
	int dfd;

	canonical(policy_path, real);
	if (claim_name(real, name, sizeof(name)) < 0 || claims_dir(&dfd) < 0)
		return;
	if (read_claim(dfd, name, &c) && c.pid == pid)
		unlinkat(dfd, name, 0);
	close(dfd);
}

int journal_note_policy(const char *sysfs_root, const struct journal_policy *p,
                        char *msg, size_t len)
{
	char root[PATH_MAX], full[PATH_MAX + JOURNAL_DIR_LEN], want[PATH_MAX];
	struct journal_policy q = *p;
	int rc, rfd, r;

	own_state();
	canonical(sysfs_root && sysfs_root[0] ? sysfs_root : "/", root);
	if (!journal_clean_path(p->dir, false) || (p->governor[0] && !journal_governor_name(p->governor))) {
		snprintf(msg, len, "%s cannot be recorded: its name or governor is not plain text", p->dir);
		return -EINVAL;
	}
	r = find_root(&run.j, root);
	if (r >= 0 && find_policy(&run.j, r, p->dir) >= 0)
		return 0;
	if ((rc = open_dir(msg, len)) < 0) {
		char why[PATH_MAX + 128];
		snprintf(why, sizeof(why), "%s", msg);
		snprintf(msg, len, "no journal to record the originals in: %s", why);
		return rc;
	}
	snprintf(full, sizeof(full), "%s/%s", strcmp(root, "/") ? root : "", p->dir);
	canonical(full, want);
	/* Two benchtops noting at once take turns: the tree's root is locked
	 * while one looks at the others' journals and writes its own. */
	rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd >= 0)
		flock(rfd, LOCK_EX);
	rc = other_holder(want, p->dir, msg, len);
	if (rc == 0)
		rc = claim_policy(want, p->dir, msg, len);
	if (rc == 0 && r < 0) {
		rc = journal_add_root(&run.j, root);
		r = (int)run.j.nroots - 1;
	}
	q.root = r;
	if (rc == 0)
		rc = journal_add_policy(&run.j, &q);
	if (rc == 0 && (rc = sync_run()) < 0) {
		run.j.n--; /* not on disk: not noted */
		journal_release_claim(want, run.owner);
		snprintf(msg, len, "the journal %s/%s cannot be written: %s", run.dir, run.name, strerror(-rc));
	}
	if (rfd >= 0)
		close(rfd);
	return rc;
}

int journal_forget_policy(const char *sysfs_root, const char *dir)
{
	char root[PATH_MAX];
	int r, i;

	own_state();
	canonical(sysfs_root && sysfs_root[0] ? sysfs_root : "/", root);
	if ((r = find_root(&run.j, root)) < 0 || (i = find_policy(&run.j, r, dir)) < 0)
		return 0;
	char full[PATH_MAX + JOURNAL_DIR_LEN];
	snprintf(full, sizeof(full), "%s/%s", strcmp(root, "/") ? root : "", dir);
	journal_release_claim(full, run.owner);
	run.j.pol[i] = run.j.pol[--run.j.n];
	return sync_run();
}

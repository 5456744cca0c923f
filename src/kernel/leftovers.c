/* leftovers.c - ending a killed run's processes, resuming what it paused
 * and removing its scratch files (see leftovers.h). */
#include "benchtop/leftovers.h"
#include "benchtop/journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define CGROUP2_MAGIC 0x63677270
#define MAX_DEPTH 32

/* pgrp (field 5) and start time (field 22) of pid; false when gone or a
 * zombie (it has ended; only its parent's wait is missing). */
static bool proc_stat(pid_t pid, pid_t *pgrp, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	int fd, n, f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (!(p = strrchr(buf, ')')) || p[1] != ' ' || p[2] == 'Z')
		return false;
	for (f = 2; f < 22 && p; f++) {
		p = strchr(p + 1, ' ');
		if (p && f + 1 == 5)
			*pgrp = (pid_t)strtol(p + 1, NULL, 10);
	}
	*start = p ? strtoull(p + 1, NULL, 10) : 0;
	return p != NULL;
}

/* Members of group pgid now; -1 when the group is not the run's. */
static int group_members(pid_t pgid, unsigned long long leader_start, unsigned long long run_start)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;
	bool ours = true;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10), pg = 0;
		unsigned long long st = 0;
		if (pid <= 0 || !proc_stat(pid, &pg, &st) || pg != pgid)
			continue;
		if (pid == pgid && leader_start && st != leader_start)
			ours = false; /* the PID was reused for another group */
		if (run_start && st < run_start)
			ours = false; /* older than the run: not one of its processes */
		n++;
	}
	closedir(d);
	return ours ? n : -1;
}

/* What was ended, for the message: "1234 sleep, 1240 sh and 3 more". */
struct named {
	char text[320];
	int n;
};

static void name_proc(struct named *nm, pid_t pid)
{
	char path[64], comm[32] = "?";
	size_t k = strlen(nm->text);
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		ssize_t r = read(fd, comm, sizeof(comm) - 1);
		comm[r > 0 ? r : 0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		for (char *c = comm; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';   /* a process's name is its own: never raw in a message */
		close(fd);
	}
	if (nm->n++ < 6 && k + 48 < sizeof(nm->text))
		snprintf(nm->text + k, sizeof(nm->text) - k, "%s%d %s", k ? ", " : "", (int)pid, comm);
}

static void named_end(struct named *nm)
{
	size_t k = strlen(nm->text);

	if (nm->n > 6)
		snprintf(nm->text + k, sizeof(nm->text) - k, " and %d more", nm->n - 6);
}

/* Name every member of process group pgid into nm. */
static void group_names(pid_t pgid, struct named *nm)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10), pg = 0;
		unsigned long long st = 0;
		if (pid > 0 && proc_stat(pid, &pg, &st) && pg == pgid)
			name_proc(nm, pid);
	}
	closedir(d);
	named_end(nm);
}

static void nap(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

int leftover_kill_pgid(pid_t pgid, unsigned long long leader_start,
                       unsigned long long run_start, char *msg, size_t len)
{
	int n = pgid > 1 ? group_members(pgid, leader_start, run_start) : -1;

	if (n < 0) {
		snprintf(msg, len, "process group %d is no longer the run's: left alone", (int)pgid);
		return 0;
	}
	if (n == 0) {
		msg[0] = '\0';
		return 0;
	}
	struct named nm = { "", 0 };
	group_names(pgid, &nm);
	if (kill(-pgid, SIGKILL) < 0) {
		int e = errno;
		snprintf(msg, len, "cannot end process group %d (%d processes: %s): %s", (int)pgid, n,
		         nm.text, strerror(e));
		return e == ESRCH ? 0 : -e;
	}
	int left = 0;
	for (int i = 0; i < 100 && (left = group_members(pgid, 0, 0)) > 0; i++)
		nap();
	if (left > 0) {
		snprintf(msg, len, "process group %d (%s) did not end: %d process%s left", (int)pgid, nm.text,
		         left, left == 1 ? "" : "es");
		return -EBUSY;
	}
	snprintf(msg, len, "ended %d process%s of process group %d (%s)", n, n == 1 ? "" : "es", (int)pgid,
	         nm.text);
	return n;
}

/* Each process listed in the group at dfd and in every group below it:
 * counted, named into nm (when not NULL), and sent sig (when not 0). */
static int tree_procs(int dfd, int sig, struct named *nm, int depth)
{
	int fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC), n = 0;
	FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	long pid;

	if (fp) {
		while (fscanf(fp, "%ld", &pid) == 1) {
			if (pid <= 1)
				continue;
			if (nm)
				name_proc(nm, (pid_t)pid);
			if (sig)
				kill((pid_t)pid, sig);
			n++;
		}
		fclose(fp);
	} else if (fd >= 0) {
		close(fd);
	}
	int dup_fd = depth < MAX_DEPTH ? openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return n;
	}
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			n += tree_procs(sub, sig, nm, depth + 1);
			close(sub);
		}
	}
	closedir(d);
	return n;
}

/* Remove every group below the one at dfd, leaves first: 0, or -errno of
 * the first that stays, its path (relative to dfd's) in bad. */
static int remove_below(int dfd, const char *at, char *bad, size_t len, int *removed, int depth)
{
	int dup_fd = depth < MAX_DEPTH ? openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, rc = 0;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return depth < MAX_DEPTH ? -errno : -ELOOP;
	}
	while ((de = readdir(d))) {
		char here[PATH_MAX];
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(here, sizeof(here), "%s/%s", at, de->d_name);
		int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int r = sub < 0 ? -errno : remove_below(sub, here, bad, len, removed, depth + 1);
		if (sub >= 0)
			close(sub);
		if (r == 0 && unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) != 0) {
			r = -errno;
			snprintf(bad, len, "%s", here);
		} else if (r == 0) {
			(*removed)++;
		}
		if (r && !rc)
			rc = r;
	}
	closedir(d);
	return rc;
}

int leftover_kill_cgroup(const char *path, char *msg, size_t len)
{
	struct statfs sf;
	struct named nm = { "", 0 };
	int dfd, n, fd, left = 0, below = 0, rc;
	char bad[PATH_MAX] = "";

	msg[0] = '\0';
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(msg, len, "cannot open cgroup %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstatfs(dfd, &sf) < 0 || sf.f_type != CGROUP2_MAGIC) {
		close(dfd);
		snprintf(msg, len, "%s is not a cgroup: left alone", path);
		return -EINVAL;
	}
	n = tree_procs(dfd, 0, &nm, 0);
	named_end(&nm);
	/* cgroup.kill ends the group and every group below it at once */
	fd = openat(dfd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		tree_procs(dfd, SIGKILL, NULL, 0); /* kernels before 5.14 */
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 100 && (left = tree_procs(dfd, i % 10 == 9 ? SIGKILL : 0, NULL, 0)) > 0; i++)
		nap();
	rc = remove_below(dfd, path, bad, sizeof(bad), &below, 0);
	close(dfd);
	if (rc == 0 && rmdir(path) != 0) {
		rc = -errno;
		snprintf(bad, sizeof(bad), "%s", path);
	}
	char ended[400] = "";
	if (n)
		snprintf(ended, sizeof(ended), "ended %d process%s (%s) in cgroup %s", n, n == 1 ? "" : "es",
		         nm.text, path);
	if (rc) {
		snprintf(msg, len, "%s%scannot remove cgroup %s: %s%s", ended, n ? "; " : "", bad,
		         strerror(-rc), left ? " (processes are still in it)" : "");
		return rc;
	}
	char groups[64] = "";
	if (below)
		snprintf(groups, sizeof(groups), " with the %d group%s below it", below, below == 1 ? "" : "s");
	if (n)
		snprintf(msg, len, "%s and removed it%s", ended, groups);
	else
		snprintf(msg, len, "removed cgroup %s%s (no process was left in it)", path, groups);
	return n + 1;
}

int leftover_resume(pid_t pid, unsigned long long starttime, char *msg, size_t len)
{
	pid_t pg;
	unsigned long long st = 0;

	msg[0] = '\0';
	if (pid <= 1 || !proc_stat(pid, &pg, &st) || (starttime && st != starttime))
		return 0;
	if (kill(pid, SIGCONT) < 0) {
		snprintf(msg, len, "cannot resume paused process %d: %s", (int)pid, strerror(errno));
		return -errno;
	}
	snprintf(msg, len, "resumed process %d, which benchtop had paused", (int)pid);
	return 1;
}

/* Remove everything in directory dfd (closed here), not following links. */
static int empty_dir(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			rc = rc ? rc : -errno;
			continue;
		}
		int sub = depth < MAX_DEPTH ?
		          openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (sub < 0 || empty_dir(sub, depth + 1) < 0 || unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0)
			rc = rc ? rc : -(errno ? errno : ELOOP);
	}
	closedir(d);
	return rc;
}

int leftover_remove(const char *path, char *msg, size_t len)
{
	const char *base = strrchr(path, '/');
	struct stat st;
	int rc = 0;

	msg[0] = '\0';
	base = base ? base + 1 : path;
	if (!journal_clean_path(path, true) || strncmp(base, "benchtop", 8) != 0) {
		snprintf(msg, len, "%s is not a name benchtop makes: left alone", path);
		return -EINVAL;
	}
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		snprintf(msg, len, "cannot remove scratch %s: %s", path, strerror(-rc));
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = dfd < 0 ? -errno : empty_dir(dfd, 0);
		if (rc == 0 && rmdir(path) < 0)
			rc = -errno;
	} else if (unlink(path) < 0) {
		rc = -errno;
	}
	if (rc < 0) {
		snprintf(msg, len, "cannot remove scratch %s %s: %s", S_ISDIR(st.st_mode) ? "directory" : "file",
		         path, strerror(-rc));
		return rc;
	}
	snprintf(msg, len, "removed scratch %s %s", S_ISDIR(st.st_mode) ? "directory" : "file", path);
	return 1;
}

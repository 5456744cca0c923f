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

/* pgrp (field 5) and start time (field 22) of pid; false when gone. */
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
	if (!(p = strrchr(buf, ')')))
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
	if (kill(-pgid, SIGKILL) < 0) {
		int e = errno;
		snprintf(msg, len, "cannot end process group %d (%d processes): %s", (int)pgid, n, strerror(e));
		return e == ESRCH ? 0 : -e;
	}
	for (int i = 0; i < 100 && group_members(pgid, 0, 0) > 0; i++)
		nap();
	snprintf(msg, len, "ended %d process%s of process group %d", n, n == 1 ? "" : "es", (int)pgid);
	return n;
}

/* Count (and with sig, signal) the processes listed in cgroup.procs. */
static int cgroup_procs(int dfd, int sig)
{
	int fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC), n = 0;
	FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	long pid;

	if (!fp) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (fscanf(fp, "%ld", &pid) == 1) {
		if (pid > 1 && sig)
			kill((pid_t)pid, sig);
		n += pid > 1;
	}
	fclose(fp);
	return n;
}

int leftover_kill_cgroup(const char *path, char *msg, size_t len)
{
	struct statfs sf;
	int dfd, n, fd;

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
	n = cgroup_procs(dfd, 0);
	fd = openat(dfd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "1", 1) != 1)
		cgroup_procs(dfd, SIGKILL); /* kernels before 5.14 */
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 100 && cgroup_procs(dfd, i % 10 == 9 ? SIGKILL : 0) > 0; i++)
		nap();
	close(dfd);
	bool gone = rmdir(path) == 0;
	if (n || gone)
		snprintf(msg, len, "ended %d process%s in cgroup %s%s", n, n == 1 ? "" : "es", path,
		         gone ? " and removed it" : "");
	return n + gone;
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
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
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

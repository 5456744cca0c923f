/* cgroup.c - cgroup v2 groups for a run's workloads (see cgroup.h). */
#include "benchtop/cgroup.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/sysfile.h"
#include "benchtop/xalloc.h"

struct cgroup {
	int dfd;                 /* the group's directory */
	int cpu_fd;              /* its cpu.stat, held open for every tick; -1 */
	char path[PATH_MAX];
};

/* ---- finding benchtop's own group -------------------------------------- */

/* Copies the first line of the file at path that keep() accepts into
 * line[0..len); 0, -ENOENT when no line does, or -errno. */
static int first_line(const char *path, bool (*keep)(const char *line), char *line, size_t len)
{
	FILE *fp = fopen(path, "re");
	if (!fp)
		return -errno;
	int rc = -ENOENT;
	while (rc && fgets(line, (int)len, fp))
		if (keep(line))
			rc = 0;
	fclose(fp);
	return rc;
}

/* mountinfo's fields 4 and 5 (root, mount point) into r and m. */
static bool mount_fields(const char *line, char r[PATH_MAX], char m[PATH_MAX])
{
	return sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) == 2;
}

/* A mountinfo line of a cgroup2 mount whose fields can be read. */
static bool is_cgroup2_mount(const char *line)
{
	const char *sep = strstr(line, " - ");
	char r[PATH_MAX], m[PATH_MAX], type[64];
	if (!sep || sscanf(sep + 3, "%63s", type) != 1 || strcmp(type, "cgroup2"))
		return false;
	return mount_fields(line, r, m);
}

/* The cgroup2 mount point and the group path it shows as its root
 * (mountinfo field 4), from /proc/self/mountinfo. */
static int cgroup2_mount(char *mnt, size_t mlen, char *root, size_t rlen)
{
	char line[4096], r[PATH_MAX], m[PATH_MAX];
	int rc = first_line("/proc/self/mountinfo", is_cgroup2_mount, line, sizeof line);
	if (rc)
		return rc;
	mount_fields(line, r, m);
	snprintf(mnt, mlen, "%s", m);
	snprintf(root, rlen, "%s", r);
	return 0;
}

/* The cgroup2 line of /proc/self/cgroup. */
static bool is_v2_group(const char *line)
{
	return strncmp(line, "0::", 3) == 0;
}

/* benchtop's own cgroup2 group ("0::/user.slice/..."), from /proc/self/cgroup. */
static int own_group(char *buf, size_t len)
{
	char line[4096];
	int rc = first_line("/proc/self/cgroup", is_v2_group, line, sizeof line);
	if (rc)
		return rc;
	line[strcspn(line, "\n")] = 0;
	snprintf(buf, len, "%s", line + 3);
	return 0;
}

static struct cgroup *open_dir(const char *path)
{
	struct cgroup *g = xcalloc(1, sizeof *g);
	snprintf(g->path, sizeof g->path, "%s", path);
	g->dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->dfd < 0) {
		int e = errno;
		free(g);
		errno = e;
		return NULL;
	}
	g->cpu_fd = -1;
	return g;
}

/* A probe process moves itself into g and ends: that the kernel lets
 * benchtop's children join is known before any workload starts. */
static int probe_join(const struct cgroup *g)
{
	int fd = cgroup_procs_fd(g);
	if (fd < 0)
		return fd;
	pid_t pid = fork();
	if (pid == 0) {
		int rc = cgroup_join(fd);
		_exit(rc ? (-rc & 0x7f) : 0);
	}
	close(fd);
	if (pid < 0)
		return -errno;
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	return WIFEXITED(st) ? -WEXITSTATUS(st) : -EIO;
}

int cgroup_run_open(struct cgroup **out, char *why, size_t len)
{
	char mnt[PATH_MAX], root[PATH_MAX], own[PATH_MAX], path[PATH_MAX];
	*out = NULL;
	if (cgroup2_mount(mnt, sizeof mnt, root, sizeof root)) {
		snprintf(why, len, "no cgroup2 file system is mounted");
		return -ENOENT;
	}
	if (own_group(own, sizeof own)) {
		snprintf(why, len, "/proc/self/cgroup names no cgroup2 group");
		return -ENOENT;
	}
	/* own is relative to the cgroup namespace, as is the mount's root */
	size_t rl = strcmp(root, "/") ? strlen(root) : 0;
	if (rl && (strncmp(own, root, rl) || (own[rl] && own[rl] != '/'))) {
		snprintf(why, len, "benchtop's group %s is outside the cgroup2 mount at %s", own, mnt);
		return -ENOENT;
	}
	const char *rel = own + rl;
	if (!strcmp(rel, "/"))
		rel = "";
	snprintf(path, sizeof path, "%s%s/benchtop.%d", mnt, rel, (int)getpid());
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		int e = errno;
		snprintf(why, len, "cannot make the group %s: %s", path, strerror(e));
		return -e;
	}
	struct cgroup *g = open_dir(path);
	int rc = g ? probe_join(g) : -errno;
	if (rc) {
		snprintf(why, len, "cannot move processes into the group %s: %s", path, strerror(-rc));
		if (g)
			cgroup_remove(g);
		else
			rmdir(path);
		return rc;
	}
	*out = g;
	return 0;
}

struct cgroup *cgroup_child(struct cgroup *parent, const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", parent->path, name);
	if (mkdirat(parent->dfd, name, 0755) < 0 && errno != EEXIST)
		return NULL;
	return open_dir(path);
}

const char *cgroup_path(const struct cgroup *g)
{
	return g->path;
}

/* ---- processes ----------------------------------------------------------- */

int cgroup_procs_fd(const struct cgroup *g)
{
	int fd = openat(g->dfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int cgroup_join(int procs_fd)
{
	/* "0" is the writing process itself */
	return write(procs_fd, "0", 1) == 1 ? 0 : -errno;
}

int cgroup_move(int procs_fd, pid_t pid)
{
	char buf[24];
	int n = snprintf(buf, sizeof buf, "%d", (int)pid);
	return write(procs_fd, buf, (size_t)n) == n ? 0 : -errno;
}

bool cgroup_holds(const struct cgroup *g, pid_t pid)
{
	char path[64], line[4096];
	snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
	if (first_line(path, is_v2_group, line, sizeof line))
		return false;
	line[strcspn(line, "\n")] = 0;
	/* the group's path in the file system ends with the process's
	 * group path (below the cgroup2 mount) */
	size_t n = strlen(line + 3), m = strlen(g->path);
	return n > 1 && n <= m && strcmp(g->path + m - n, line + 3) == 0 &&
	       (n == m || g->path[m - n - 1] == '/' || line[3] == '/');
}

int cgroup_populated(const struct cgroup *g)
{
	char buf[256];
	int rc = sysfile_read_at(g->dfd, "cgroup.events", buf, sizeof buf);
	if (rc)
		return rc;
	const char *p = strstr(buf, "populated ");
	return p ? p[10] == '1' : -EINVAL;
}

int cgroup_cpu(struct cgroup *g, double *user, double *sys)
{
	char buf[1024];
	/* read at every tick: opened once, then read again from offset 0 */
	if (g->cpu_fd < 0)
		g->cpu_fd = openat(g->dfd, "cpu.stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = g->cpu_fd >= 0 ? pread(g->cpu_fd, buf, sizeof buf - 1, 0) : -1;
	if (n < 0)
		return -errno;
	buf[n] = 0;
	unsigned long long u = 0, s = 0;
	const char *pu = strstr(buf, "user_usec "), *ps = strstr(buf, "system_usec ");
	if (!pu || !ps || sscanf(pu + 10, "%llu", &u) != 1 || sscanf(ps + 12, "%llu", &s) != 1)
		return -EINVAL;
	*user = u / 1e6;
	*sys = s / 1e6;
	return 0;
}

int cgroup_signal(const struct cgroup *g, int sig)
{
	int fd = openat(g->dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!fp) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int n = 0, pid;
	while (fscanf(fp, "%d", &pid) == 1)
		if (pid > 0 && kill(pid, sig) == 0)
			n++;
	fclose(fp);
	return n;
}

static int write_file(const struct cgroup *g, const char *name, const char *val)
{
	int fd = openat(g->dfd, name, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, val, strlen(val));
	int e = errno;
	close(fd);
	return n < 0 ? -e : 0;
}

/* Kernels before 5.14 have no cgroup.kill: freeze the group (no process
 * can fork while frozen), kill each one, thaw so the kills land. */
static int kill_one_by_one(const struct cgroup *g)
{
	for (int round = 0; round < 100; round++) {
		bool frozen = write_file(g, "cgroup.freeze", "1") == 0;
		int n = cgroup_signal(g, SIGKILL);
		if (frozen)
			write_file(g, "cgroup.freeze", "0");
		if (n == 0)
			return 0;
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

int cgroup_kill(const struct cgroup *g)
{
	int rc = write_file(g, "cgroup.kill", "1");
	return rc == -ENOENT ? kill_one_by_one(g) : rc;
}

int cgroup_kill_async(const struct cgroup *g)
{
	/* write_file is openat, write and close: all async-signal-safe */
	return write_file(g, "cgroup.kill", "1");
}

int cgroup_remove(struct cgroup *g)
{
	if (!g)
		return 0;
	close(g->dfd);
	if (g->cpu_fd >= 0)
		close(g->cpu_fd);
	int rc = rmdir(g->path) < 0 ? -errno : 0;
	free(g);
	return rc;
}


/* journal.c - the restore journal (see journal.h for the file format). */
#include "benchtop/journal.h"
#include "benchtop/cpufreq.h"
#include "benchtop/proc.h"
#include "benchtop/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL_MAGIC "benchtop-journal 1"

/* mkdir -p for the last component only: the parents are system ones. */
static int make_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(path, W_OK | X_OK) == 0 ? 0 : -errno;
}

static void default_fallback(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/benchtop", tmp && *tmp ? tmp : "/var/tmp");
}

/* The candidate directories in order of preference; returns how many. */
static int candidates(const char *fallback, char dirs[3][PATH_MAX])
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n = 0;

	if (xdg && *xdg)
		snprintf(dirs[n++], PATH_MAX, "%s/benchtop", xdg);
	snprintf(dirs[n++], PATH_MAX, "/run/benchtop");
	if (fallback && *fallback)
		snprintf(dirs[n++], PATH_MAX, "%s", fallback);
	else
		default_fallback(dirs[n++], PATH_MAX);
	return n;
}

int journal_dir(const char *fallback, char *buf, size_t len)
{
	char dirs[3][PATH_MAX];
	int n = candidates(fallback, dirs), rc = -ENOENT;

	for (int i = 0; i < n; i++) {
		rc = make_dir(dirs[i]);
		if (rc == 0) {
			if ((size_t)snprintf(buf, len, "%s", dirs[i]) >= len)
				return -ENAMETOOLONG;
			return 0;
		}
	}
	return rc;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	int rc = 0;

	if (!fp)
		return -errno;
	if (!fgets(buf, (int)len, fp))
		rc = -EIO;
	fclose(fp);
	if (rc == 0)
		buf[strcspn(buf, "\r\n")] = '\0';
	return rc;
}

int journal_boot_id(char *buf, size_t len)
{
	return read_line("/proc/sys/kernel/random/boot_id", buf, len);
}

unsigned long long journal_proc_starttime(pid_t pid)
{
	return proc_start_ticks(pid);
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int format_journal(const struct journal *j, char **out, size_t *outlen)
{
	FILE *fp = open_memstream(out, outlen);

	if (!fp)
		return -errno;
	fprintf(fp, "%s\npid %d\nstarttime %llu\nboot_id %s\nsysfs %s\n", JOURNAL_MAGIC,
	        (int)j->pid, j->starttime, j->boot_id[0] ? j->boot_id : "-", j->sysfs_root);
	for (size_t i = 0; i < j->n; i++) {
		const struct journal_policy *p = &j->pol[i];
		fprintf(fp, "policy %s %s %ld %ld\n", p->dir, p->governor[0] ? p->governor : "-",
		        p->min_khz, p->max_khz);
	}
	return fclose(fp) == 0 ? 0 : -ENOMEM;
}

int journal_save(const char *path, const struct journal *j)
{
	char tmp[PATH_MAX], *text = NULL;
	const char *base = strrchr(path, '/');
	size_t len = 0;
	int fd, rc;

	base = base ? base + 1 : path;
	/* A hidden name in the same directory, so rename is atomic and the
	 * half-written file is never taken for a journal. */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp", (int)(base - path), path, base) >= sizeof(tmp))
		return -ENAMETOOLONG;
	rc = format_journal(j, &text, &len);
	if (rc < 0)
		return rc;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		free(text);
		return rc;
	}
	rc = write_all(fd, text, len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	free(text);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

static int parse_policy(const char *line, struct journal *j)
{
	struct journal_policy p = { .min_khz = -1, .max_khz = -1 };
	char dir[JOURNAL_DIR_LEN], gov[JOURNAL_GOV_LEN];
	struct journal_policy *np;

	if (sscanf(line, "policy %255s %31s %ld %ld", dir, gov, &p.min_khz, &p.max_khz) != 4)
		return -EINVAL;
	if (strstr(dir, ".."))
		return -EINVAL; /* a journal never points outside its sysfs root */
	snprintf(p.dir, sizeof(p.dir), "%s", dir);
	if (strcmp(gov, "-") != 0)
		snprintf(p.governor, sizeof(p.governor), "%s", gov);
	np = xrealloc(j->pol, (j->n + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	j->pol = np;
	j->pol[j->n++] = p;
	return 0;
}

static int parse_line(char *line, struct journal *j)
{
	int pid;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "pid %d", &pid) == 1) {
		j->pid = pid;
		return 0;
	}
	if (sscanf(line, "starttime %llu", &j->starttime) == 1)
		return 0;
	if (strncmp(line, "boot_id ", 8) == 0) {
		snprintf(j->boot_id, sizeof(j->boot_id), "%.63s", line + 8);
		return 0;
	}
	if (strncmp(line, "sysfs ", 6) == 0) {
		if (strlen(line + 6) >= sizeof(j->sysfs_root))
			return -ENAMETOOLONG;
		memcpy(j->sysfs_root, line + 6, strlen(line + 6) + 1);
		return 0;
	}
	if (strncmp(line, "policy ", 7) == 0)
		return parse_policy(line, j);
	return line[0] ? -EINVAL : 0;
}

int journal_load(const char *path, struct journal *j)
{
	char line[PATH_MAX + 64];
	FILE *fp = fopen(path, "r");
	int rc = 0;

	memset(j, 0, sizeof(*j));
	if (!fp)
		return -errno;
	if (!fgets(line, sizeof(line), fp) || strncmp(line, JOURNAL_MAGIC, strlen(JOURNAL_MAGIC)) != 0)
		rc = -EINVAL;
	while (rc == 0 && fgets(line, sizeof(line), fp))
		rc = parse_line(line, j);
	fclose(fp);
	if (rc == 0 && (j->pid <= 0 || !j->sysfs_root[0]))
		rc = -EINVAL;
	if (rc < 0)
		journal_free(j);
	return rc;
}

void journal_free(struct journal *j)
{
	free(j->pol);
	j->pol = NULL;
	j->n = 0;
}

int journal_apply(const struct journal *j, FILE *report)
{
	int first = 0;

	for (size_t i = 0; i < j->n; i++) {
		const struct journal_policy *p = &j->pol[i];
		char dir[PATH_MAX + JOURNAL_DIR_LEN], msg[512];
		int rc;

		snprintf(dir, sizeof(dir), "%s/%s", strcmp(j->sysfs_root, "/") ? j->sysfs_root : "", p->dir);
		rc = cpufreq_restore_policy(dir, p->governor, p->min_khz, p->max_khz, msg, sizeof(msg));
		if (rc < 0) {
			if (report)
				fprintf(report, "benchtop: %s\n", msg);
			if (first == 0)
				first = rc;
		}
	}
	return first;
}

/* A benchtop still running (the same process, not a reused pid). */
static bool owner_alive(const struct journal *j)
{
	unsigned long long st;

	if (kill(j->pid, 0) < 0 && errno != EPERM)
		return false;
	st = journal_proc_starttime(j->pid);
	return j->starttime == 0 || st == 0 || st == j->starttime;
}

static bool same_root(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (!realpath(a, ra))
		snprintf(ra, sizeof(ra), "%s", a);
	if (!realpath(b, rb))
		snprintf(rb, sizeof(rb), "%s", b);
	return strcmp(ra, rb) == 0;
}

/* The oldest live owner's values per policy, gathered over directories. */
struct live_pick {
	const char *root, *boot;
	struct journal_policy *pol;
	size_t n;
	unsigned long long *st;   /* per policy: the chosen owner's start time */
	bool *taken;
};

static void pick_from(struct live_pick *lp, const struct journal *j)
{
	for (size_t i = 0; i < lp->n; i++) {
		for (size_t k = 0; k < j->n; k++) {
			const struct journal_policy *q = &j->pol[k];
			if (strcmp(q->dir, lp->pol[i].dir) != 0)
				continue;
			/* unknown start times lose to known ones, else older wins */
			if (lp->taken[i] && (j->starttime == 0 ||
			                     (lp->st[i] != 0 && lp->st[i] <= j->starttime)))
				break;
			if (q->governor[0])
				snprintf(lp->pol[i].governor, sizeof(lp->pol[i].governor), "%s", q->governor);
			if (q->min_khz > 0)
				lp->pol[i].min_khz = q->min_khz;
			if (q->max_khz > 0)
				lp->pol[i].max_khz = q->max_khz;
			lp->st[i] = j->starttime;
			lp->taken[i] = true;
			break;
		}
	}
}

static int live_dir(struct live_pick *lp, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct journal j;
		if (strncmp(de->d_name, "journal.", 8) != 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (journal_load(path, &j) < 0)
			continue;
		if ((!lp->boot[0] || !j.boot_id[0] || strcmp(j.boot_id, lp->boot) == 0) &&
		    same_root(lp->root, j.sysfs_root) && owner_alive(&j))
			pick_from(lp, &j);
		journal_free(&j);
	}
	closedir(d);
	return 0;
}

static int live_originals(char dirs[][PATH_MAX], int ndirs, const char *sysfs_root,
                          struct journal_policy *pol, size_t n)
{
	char boot[64] = "";
	struct live_pick lp = { .root = sysfs_root, .boot = boot, .pol = pol, .n = n };
	int rc = 0, taken = 0;

	if (n == 0)
		return 0;
	lp.st = xcalloc(n, sizeof(*lp.st));
	lp.taken = xcalloc(n, sizeof(*lp.taken));
	if (!lp.st || !lp.taken)
		rc = -ENOMEM;
	if (rc == 0)
		journal_boot_id(boot, sizeof(boot));
	for (int i = 0; rc == 0 && i < ndirs; i++) {
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen = seen || strcmp(dirs[k], dirs[i]) == 0;
		if (!seen)
			live_dir(&lp, dirs[i]); /* an unreadable directory holds nothing for us */
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		taken += lp.taken[i];
	free(lp.st);
	free(lp.taken);
	return rc < 0 ? rc : taken;
}

int journal_live_originals_dir(const char *dir, const char *sysfs_root,
                               struct journal_policy *pol, size_t n)
{
	char dirs[1][PATH_MAX];

	if ((size_t)snprintf(dirs[0], PATH_MAX, "%s", dir) >= PATH_MAX)
		return -ENAMETOOLONG;
	return live_originals(dirs, 1, sysfs_root, pol, n);
}

int journal_live_originals(const char *sysfs_root, const char *fallback,
                           struct journal_policy *pol, size_t n)
{
	char dirs[4][PATH_MAX];
	int ndirs = candidates(fallback, dirs);

	/* Another benchtop may have fallen back to the default directory. */
	if (fallback && *fallback)
		default_fallback(dirs[ndirs++], PATH_MAX);
	return live_originals(dirs, ndirs, sysfs_root, pol, n);
}

/* Handle one journal file; returns 1 when it was applied or discarded,
 * 0 when left alone, -errno on failure. */
static int restore_one(const char *path, const char *root, const char *boot, FILE *report)
{
	struct journal j;
	int rc = journal_load(path, &j);

	if (rc < 0) {
		if (report)
			fprintf(report, "benchtop: ignoring %s: not a readable benchtop journal (%s)\n",
			        path, strerror(-rc));
		return 0;
	}
	if (boot[0] && strcmp(j.boot_id, boot) != 0) {
		if (report)
			fprintf(report, "benchtop: discarding %s: it is from another boot, "
			        "whose settings are gone already\n", path);
		unlink(path);
		rc = 1;
	} else if (root && !same_root(root, j.sysfs_root)) {
		rc = 0; /* another tree's journal: --restore --sysfs names which */
	} else if (owner_alive(&j)) {
		if (report)
			fprintf(report, "benchtop: leaving %s: benchtop %d is still running and "
			        "will restore it itself\n", path, (int)j.pid);
		rc = 0;
	} else {
		rc = journal_apply(&j, report);
		if (rc == 0) {
			unlink(path);
			if (report)
				fprintf(report, "benchtop: restored %zu cpufreq polic%s under %s "
				        "(left by benchtop %d)\n", j.n, j.n == 1 ? "y" : "ies",
				        j.sysfs_root, (int)j.pid);
			rc = 1;
		}
	}
	journal_free(&j);
	return rc;
}

static int restore_dir_count(const char *dir, const char *root, FILE *report, int *done)
{
	char boot[64] = "", path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);
	int first = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	journal_boot_id(boot, sizeof(boot));
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "journal.", 8) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		int rc = restore_one(path, root, boot, report);
		if (rc > 0)
			(*done)++;
		else if (rc < 0 && first == 0)
			first = rc;
	}
	closedir(d);
	return first;
}

int journal_restore_dir(const char *dir, const char *sysfs_root, FILE *report)
{
	int done = 0;

	return restore_dir_count(dir, sysfs_root, report, &done);
}

int journal_restore_all(const char *sysfs_root, FILE *report)
{
	char dirs[3][PATH_MAX];
	int n = candidates(NULL, dirs), first = 0, done = 0;

	for (int i = 0; i < n; i++) {
		int rc = restore_dir_count(dirs[i], sysfs_root, report, &done);
		if (rc < 0 && first == 0)
			first = rc;
	}
	if (done == 0 && first == 0 && report)
		fprintf(report, "benchtop: nothing to restore: no journal left by a stopped benchtop%s%s\n",
		        sysfs_root ? " for " : "", sysfs_root ? sysfs_root : "");
	return first;
}

/* restore.c - `benchtop --restore`: undo what benchtops that are gone
 * left behind, as their journals in this user's journal directory name
 * it: processes ended, paused processes resumed, cpufreq policies put
 * back, scratch files removed.  Each thing done or refused is one line. */
#include "benchtop/restore.h"
#include "benchtop/cpufreq.h"
#include "benchtop/journal.h"
#include "benchtop/leftovers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct undo {
	FILE *rep;
	const char *name;   /* the journal's path, for messages */
	int failed;         /* things that could not be undone */
};

static void said(struct undo *u, int rc, const char *msg)
{
	if (msg[0])
		fprintf(u->rep, "benchtop: %s\n", msg);
	if (rc < 0)
		u->failed++;
}

static void undo_processes(struct undo *u, const struct journal *j)
{
	char msg[PATH_MAX + 128];

	for (size_t i = 0; i < j->ncgroup; i++)
		said(u, leftover_kill_cgroup(j->cgroup[i], msg, sizeof(msg)), msg);
	for (size_t i = 0; i < j->npgid; i++)
		said(u, leftover_kill_pgid(j->pgid[i].pid, j->pgid[i].starttime, j->starttime, msg,
		                           sizeof(msg)), msg);
	for (size_t i = 0; i < j->npaused; i++)
		said(u, leftover_resume(j->paused[i].pid, j->paused[i].starttime, msg, sizeof(msg)), msg);
}

static void undo_policies(struct undo *u, const struct journal *j)
{
	for (size_t r = 0; r < j->nroots; r++) {
		char msg[PATH_MAX + 512];
		int done = 0, rc;
		for (size_t i = 0; i < j->n; i++) {
			const struct journal_policy *p = &j->pol[i];
			if ((size_t)p->root != r)
				continue;
			rc = cpufreq_restore_policy(j->roots[r], p->dir, p->governor, p->min_khz, p->max_khz,
			                            msg, sizeof(msg));
			if (rc < 0) {
				said(u, rc, msg);
			} else {
				char path[PATH_MAX + JOURNAL_DIR_LEN];
				journal_policy_path(j, i, path, sizeof(path));
				journal_release_claim(path, j->pid);
				done++;
			}
		}
		if (done)
			fprintf(u->rep, "benchtop: restored %d cpufreq polic%s under %s\n", done,
			        done == 1 ? "y" : "ies", j->roots[r]);
	}
}

static void undo_scratch(struct undo *u, const struct journal *j)
{
	char msg[PATH_MAX + 128];

	for (size_t i = 0; i < j->nscratch; i++)
		said(u, leftover_remove(j->scratch[i], msg, sizeof(msg)), msg);
}

static bool has_root(const struct journal *j, const char *root)
{
	char a[PATH_MAX], b[PATH_MAX];

	if (!realpath(root, a))
		snprintf(a, sizeof(a), "%s", root);
	for (size_t r = 0; r < j->nroots; r++) {
		if (!realpath(j->roots[r], b))
			snprintf(b, sizeof(b), "%s", j->roots[r]);
		if (!strcmp(a, b))
			return true;
	}
	return false;
}

/* One journal: 1 undone and removed, 0 left alone, -1 refused or failed. */
static int restore_one(int dfd, const char *name, const char *path, const char *root,
                       const char *boot, FILE *rep)
{
	struct undo u = { .rep = rep, .name = path };
	struct journal j;
	char why[PATH_MAX + 256];
	int fd, rc = journal_open_checked(dfd, name, path, &fd, why, sizeof(why));

	if (rc < 0) {
		fprintf(rep, "benchtop: refusing journal %s\n", why);
		return -1;
	}
	if ((rc = journal_read_fd(fd, &j)) < 0) {
		fprintf(rep, "benchtop: refusing journal %s: not a benchtop journal (%s)\n", path,
		        rc == -EINVAL ? "malformed" : strerror(-rc));
		close(fd);
		return -1;
	}
	if (root && j.nroots && !has_root(&j, root)) {
		rc = 0; /* another tree's: --restore without --sysfs takes it (one that
		         * changed no policy belongs to every tree) */
	} else if (!journal_claim(fd, &j)) {
		fprintf(rep, "benchtop: leaving %s: benchtop %d is still running and will undo it itself\n",
		        path, (int)j.pid);
		rc = 0;
	} else {
		bool other_boot = boot[0] && j.boot_id[0] && strcmp(j.boot_id, boot);
		if (other_boot)
			fprintf(rep, "benchtop: %s is from another boot: its processes and cpufreq settings "
			        "are gone already\n", path);
		else
			undo_processes(&u, &j);
		if (!other_boot)
			undo_policies(&u, &j);
		undo_scratch(&u, &j);
		if (u.failed) {
			fprintf(rep, "benchtop: kept %s (benchtop %d): %d thing%s could not be undone; "
			        "--restore tries again\n", path, (int)j.pid, u.failed, u.failed == 1 ? "" : "s");
			rc = -1;
		} else {
			unlinkat(dfd, name, 0);
			fprintf(rep, "benchtop: undid what benchtop %d left and removed its journal %s\n",
			        (int)j.pid, path);
			rc = 1;
		}
	}
	journal_free(&j);
	close(fd);
	return rc;
}

int app_restore(const char *sysfs_root, FILE *rep)
{
	char dir[PATH_MAX], why[PATH_MAX + 256], path[PATH_MAX + 300], boot[64] = "";
	int dfd, rc, done = 0, bad = 0;
	struct dirent *de;
	DIR *d;

	if ((rc = journal_dir_path(dir, sizeof(dir))) < 0) {
		fprintf(rep, "benchtop: no journal directory: set XDG_RUNTIME_DIR or HOME (%s)\n", strerror(-rc));
		return 3;
	}
	if ((rc = journal_open_dir(dir, false, &dfd, why, sizeof(why))) == -ENOENT) {
		fprintf(rep, "benchtop: nothing to restore: no journal directory %s\n", dir);
		return 0;
	}
	if (rc < 0) {
		fprintf(rep, "benchtop: refusing journal directory %s\n", why);
		return 3;
	}
	journal_boot_id(boot, sizeof(boot));
	if (!(d = fdopendir(openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)))) {
		fprintf(rep, "benchtop: cannot read journal directory %s: %s\n", dir, strerror(errno));
		close(dfd);
		return 3;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "journal.", 8) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		rc = restore_one(dfd, de->d_name, path, sysfs_root, boot, rep);
		done += rc > 0;
		bad += rc < 0;
	}
	closedir(d);
	close(dfd);
	if (!done && !bad)
		fprintf(rep, "benchtop: nothing to restore: no journal left by a stopped benchtop in %s%s%s\n",
		        dir, sysfs_root ? " for " : "", sysfs_root ? sysfs_root : "");
	return bad ? 3 : 0;
}

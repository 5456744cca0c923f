/* sample_newfiles.c - the directories a command tree writes into, so files it
 * creates, fills and closes between two ticks (cp -r, rsync -a, cpio -p
 * of many small files) are counted as they appear, at their exact size.
 *
 * When a tree is first seen writing a file, benchtop walks up from the
 * file's directory while the directories were born after the tree was
 * first tracked (statx btime): the highest of them is the tree's own and
 * is scanned whole every tick; the directory above it (which existed
 * before) is scanned too once the tree has put two different new entries
 * in it (rsync into an existing dst/).  A scan counts regular files born
 * after the start, and descends only into directories born after it, so
 * files that were there before, and other directories, are never
 * counted.  Each file is counted once, by inode, with its growth through
 * open descriptors (sample_filebytes.c). */
#include "sample_priv.h"

#include "benchtop/xalloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_DEPTH 32

struct sdir {
	int wl;
	char *path;
	bool active;            /* scanned every tick */
	int nkids;
	char *kids[2];          /* distinct new entries seen in it (a container) */
	struct timespec since;
	pid_t credit;
};

struct sdirs {
	struct sdir *v;
	int n, cap;
};

struct sdirs *sdirs_new(void)
{
	return xcalloc(1, sizeof(struct sdirs));
}

static void sdir_free(struct sdir *d)
{
	free(d->path);
	free(d->kids[0]);
	free(d->kids[1]);
}

void sdirs_free(struct sdirs *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n; i++)
		sdir_free(&d->v[i]);
	free(d->v);
	free(d);
}

void sdirs_forget_workload(struct sdirs *d, int wl)
{
	int k = 0;

	for (int i = 0; i < d->n; i++) {
		if (d->v[i].wl == wl) {
			sdir_free(&d->v[i]);
			continue;
		}
		d->v[k++] = d->v[i];
	}
	d->n = k;
}

/* Is path under (or equal to) dir? */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (strncmp(path, dir, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/');
}

static struct sdir *sdir_get(struct sdirs *d, const struct sproc *p, const char *path)
{
	for (int i = 0; i < d->n; i++)
		if (d->v[i].wl == p->wl && strcmp(d->v[i].path, path) == 0)
			return &d->v[i];
	if (sample_grow((void **)&d->v, &d->cap, d->n + 1, sizeof *d->v))
		return NULL;
	char *copy = xstrdup(path);
	if (!copy)
		return NULL;
	struct sdir *e = &d->v[d->n++];
	*e = (struct sdir){ .wl = p->wl, .path = copy, .since = p->since, .credit = p->pid };
	return e;
}

/* Already scanned as part of an active directory of the same workload? */
static bool covered(const struct sdirs *d, int wl, const char *path, const struct sdir *self)
{
	for (int i = 0; i < d->n; i++) {
		const struct sdir *e = &d->v[i];
		if (e != self && e->active && e->wl == wl && under(path, e->path))
			return true;
	}
	return false;
}

static void activate(struct sdirs *d, struct sdir *e)
{
	if (e->active || covered(d, e->wl, e->path, e))
		return;
	e->active = true;
	for (int i = 0; i < d->n; i++)  /* what it covers need not be scanned again */
		if (&d->v[i] != e && d->v[i].wl == e->wl && under(d->v[i].path, e->path))
			d->v[i].active = false;
}

static void add_kid(struct sdir *e, const char *name)
{
	for (int i = 0; i < e->nkids; i++)
		if (strcmp(e->kids[i], name) == 0)
			return;
	if (e->nkids < 2 && (e->kids[e->nkids] = xstrdup(name)))
		e->nkids++;
}

void sdirs_note(struct sdirs *d, const struct sproc *p, int fddir, const char *fdname)
{
	char path[PATH_MAX], top[PATH_MAX] = "";
	ssize_t n = readlinkat(fddir, fdname, path, sizeof path - 1);

	if (n <= 1 || path[0] != '/')
		return;
	path[n] = '\0';
	if (strstr(path, " (deleted)"))
		return;
	char kid[NAME_MAX + 1];
	char *slash = strrchr(path, '/');
	snprintf(kid, sizeof kid, "%s", slash + 1);
	*slash = '\0';
	/* up while the directory is the tree's own */
	while (path[0] && sample_born_after(AT_FDCWD, path, &p->since)) {
		snprintf(top, sizeof top, "%s", path);
		slash = strrchr(path, '/');
		snprintf(kid, sizeof kid, "%s", slash + 1);
		*slash = '\0';
	}
	if (!path[0])
		snprintf(path, sizeof path, "/");
	if (top[0]) {
		struct sdir *e = sdir_get(d, p, top);
		if (e)
			activate(d, e);
	}
	struct sdir *c = sdir_get(d, p, path);
	if (c) {
		add_kid(c, kid);
		if (c->nkids >= 2)
			activate(d, c);
	}
}

static void walk(struct sfiles *f, const struct sdir *e, int dfd, int depth)
{
	DIR *dir = fdopendir(dfd);
	struct dirent *de;

	if (!dir) {
		close(dfd);
		return;
	}
	while ((de = readdir(dir))) {
		struct statx sx;
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (de->d_type != DT_UNKNOWN && de->d_type != DT_REG && de->d_type != DT_DIR)
			continue;
		if (statx(dirfd(dir), de->d_name, AT_SYMLINK_NOFOLLOW,
		          STATX_TYPE | STATX_SIZE | STATX_INO | STATX_BTIME | STATX_BLOCKS, &sx) != 0 ||
		    !(sx.stx_mask & STATX_BTIME) || !sample_time_after(&sx.stx_btime, &e->since))
			continue;
		if (S_ISREG(sx.stx_mode)) {
			sfiles_dir_file(f, e->wl, makedev(sx.stx_dev_major, sx.stx_dev_minor),
			                (ino_t)sx.stx_ino, sx.stx_size, sx.stx_blocks * 512, e->credit);
		} else if (S_ISDIR(sx.stx_mode) && depth < MAX_DEPTH) {
			int c = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (c >= 0)
				walk(f, e, c, depth + 1);
		}
	}
	closedir(dir);
}

void sdirs_scan(struct sdirs *d, struct sfiles *f)
{
	for (int i = 0; i < d->n; i++) {
		const struct sdir *e = &d->v[i];
		if (!e->active)
			continue;
		int dfd = open(e->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0)
			walk(f, e, dfd, 0);
	}
}

/* engine.c - the parent's side of benchtop's own workloads before and after
 * a run: decide the processes (roles) and the files of each job
 * (engine_prepare: sources to invent, results to create, the free space
 * they need on each file system), make them, and clean them up after the
 * run.  The processes themselves are forked and run in engine_child.c; the
 * I/O loops live in src/work/engines/. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "benchtop/engine.h"
#include "benchtop/xalloc.h"
#include "engine_priv.h"
#include "engines/engines.h"

#define MIB (1ull << 20)
#define DEFAULT_SIZE (1ull << 30)
#define MIN_SOURCE (4 * MIB)
#define DEFAULT_BS (128u << 10)

/* ---- roles ---- */

const char *engine_role_name(enum engine_role r)
{
	static const char *const names[] = {
		[ROLE_MAIN] = "copier", [ROLE_READER] = "reader", [ROLE_WRITER] = "writer",
		[ROLE_CONTROL] = "control", [ROLE_SEEKER] = "seeker",
		[ROLE_RECEIVER] = "receiver", [ROLE_SENDER] = "sender",
	};

	return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

static int plan_roles(const struct wl_spec *w, struct engine_plan *p, char *msg, size_t len)
{
	int i, seekers = w->seekers > 0 ? w->seekers : 3;

	switch (w->kind) {
	case WL_COPY:
		if (w->engine != ENG_PIPE) {
			p->roles[p->nroles++] = ROLE_MAIN;
			break;
		}
		p->roles[p->nroles++] = ROLE_READER;
		p->roles[p->nroles++] = ROLE_WRITER;
		if (w->procs != 2)
			p->roles[p->nroles++] = ROLE_CONTROL;
		break;
	case WL_WRITE:
		p->roles[p->nroles++] = ROLE_WRITER;
		break;
	case WL_NET:
		p->roles[p->nroles++] = ROLE_RECEIVER;
		p->roles[p->nroles++] = ROLE_SENDER;
		break;
	case WL_READ:
		p->roles[p->nroles++] = ROLE_READER;
		break;
	case WL_SEEK:
		if (seekers > (int)(sizeof p->roles / sizeof p->roles[0])) {
			snprintf(msg, len, "seekers=%d: at most %zu seekers per job", seekers,
			         sizeof p->roles / sizeof p->roles[0]);
			return -EINVAL;
		}
		for (i = 0; i < seekers; i++)
			p->roles[p->nroles++] = ROLE_SEEKER;
		break;
	default:
		snprintf(msg, len, "%s: not a built-in engine workload", w->text ? w->text : "?");
		return -EINVAL;
	}
	return 0;
}

/* The block size a workload's I/O uses: its bs=, else DEFAULT_BS. */
size_t engine_spec_bs(const struct wl_spec *w)
{
	return w->bs ? (size_t)w->bs : DEFAULT_BS;
}

/* ---- file systems ---- */

static const char *fs_name(const char *path)
{
	static const struct { long magic; const char *name; } fs[] = {
		{ 0x01021994, "tmpfs" }, { 0x858458f6, "ramfs" }, { 0xEF53, "ext2/3/4" },
		{ 0x58465342, "xfs" }, { 0x9123683E, "btrfs" }, { 0x6969, "nfs" },
		{ 0x794c7630, "overlayfs" }, { 0x65735546, "fuse" }, { 0x2fc12fc1, "zfs" },
		{ 0xF2F52010, "f2fs" }, { 0x4d44, "vfat" }, { 0x73717368, "squashfs" },
		{ 0x01021997, "9p" }, { 0xFF534D42, "cifs" },
	};
	struct statfs sf;
	size_t i;

	if (statfs(path, &sf) != 0)
		return "unknown";
	for (i = 0; i < sizeof fs / sizeof fs[0]; i++)
		if ((long)sf.f_type == fs[i].magic)
			return fs[i].name;
	return "unknown";
}

/* The directory a path lives in (malloc'd). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* Free bytes for us, and the 5% that must stay free, on dir's file system. */
static int fs_space(const char *dir, uint64_t *avail, uint64_t *reserve)
{
	struct statvfs sv;

	if (statvfs(dir, &sv) != 0)
		return -errno;
	if (sv.f_blocks == 0) {
		/* ramfs and the like have no size to run out of. */
		*avail = UINT64_MAX / 4;
		*reserve = 0;
		return 0;
	}
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	*reserve = (uint64_t)sv.f_blocks * sv.f_frsize / 20;
	return 0;
}

/* Bytes that may still be written in dir leaving 5% free. */
static uint64_t fs_room(const char *dir)
{
	uint64_t avail = 0, reserve = 0;

	if (fs_space(dir, &avail, &reserve) != 0 || avail <= reserve)
		return 0;
	return avail - reserve;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- sources ---- */

/* Fill fd with size bytes of a non-repeating pattern; counts into c when
 * given.  Returns 0 or an errno. */
int engine_fill_fd(int fd, uint64_t size, struct engine_counters *c)
{
	const size_t chunk = MIB;
	uint64_t state = 0x853c49e6748fea9bull ^ (uint64_t)getpid();
	char *buf = xmalloc(chunk);
	int e = buf ? 0 : ENOMEM;

	for (uint64_t done = 0; done < size && !e; ) {
		size_t n = size - done < chunk ? (size_t)(size - done) : chunk;
		ssize_t k;

		eng_pattern(buf, n, &state);
		k = write(fd, buf, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			e = k < 0 ? errno : ENOSPC;
		else
			done += (uint64_t)k;
		if (k > 0 && c)
			eng_add(c, (uint64_t)k, 0, 1);
	}
	free(buf);
	return e;
}

/* Make a file of size bytes of a non-repeating pattern with O_EXCL. */
static int fill_source(const char *dir, uint64_t size, char **path, char *msg, size_t len)
{
	char *p = NULL;
	int fd, e;

	if (asprintf(&p, "%s/benchtop-src.XXXXXX", dir) < 0)
		return -ENOMEM;
	fd = mkostemp(p, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		snprintf(msg, len, "creating a source file in %s: %s", dir, strerror(e));
		free(p);
		return -e;
	}
	e = engine_fill_fd(fd, size, NULL);
	if (close(fd) != 0 && !e)
		e = errno;
	if (e) {
		snprintf(msg, len, "writing source file %s: %s", p, strerror(e));
		unlink(p);
		free(p);
		return -e;
	}
	*path = p;
	return 0;
}

int engine_source_size(const char *scratch, uint64_t want, uint64_t *size, char *msg, size_t len)
{
	/* Leave room for one copy of it as well: the default workload copies it
	 * next to itself. */
	uint64_t room = fs_room(scratch) / 2 / MIB * MIB;

	*size = want ? want : DEFAULT_SIZE;
	if (*size > room)
		*size = room;
	if (*size < MIN_SOURCE && (want == 0 || want > *size)) {
		snprintf(msg, len, "no room for a source file in %s (%s): it needs %llu MiB "
		         "and another as much for its copy, with 5%% of the file system left free",
		         scratch, fs_name(scratch), (unsigned long long)(MIN_SOURCE / MIB));
		return -ENOSPC;
	}
	return 0;
}

int engine_make_source(const char *scratch, uint64_t want, char **path, char *msg, size_t len)
{
	uint64_t size;
	int rc = engine_source_size(scratch, want, &size, msg, len);

	return rc ? rc : fill_source(scratch, size, path, msg, len);
}

/* ---- planning the files of each job ---- */

/* What engine_prepare decides for one file before it makes any. */
struct target {
	char *path;        /* user's file, or after creation the invented one */
	char *dir;         /* invent a file inside this directory */
	uint64_t bytes;    /* to be written (dst) or the size to make (invented src) */
	uint64_t freed;    /* bytes an existing file replaced with --force frees */
	bool made;         /* created by engine_prepare */
};

struct files {
	int jobs;
	struct target *src, *dst;   /* jobs entries each */
	bool need_src, need_dst;
};

static void files_free(struct files *f)
{
	for (int j = 0; f->src && f->dst && j < f->jobs; j++) {
		free(f->src[j].path);
		free(f->src[j].dir);
		free(f->dst[j].path);
		free(f->dst[j].dir);
	}
	free(f->src);
	free(f->dst);
}

/* The name of job j's result file when the user named PATH: PATH itself for
 * one job, PATH.1 .. PATH.N for several. */
static char *job_name(const char *path, int j, int jobs)
{
	char *s = NULL;

	if (jobs == 1)
		return xstrdup(path);
	return asprintf(&s, "%s.%d", path, j + 1) < 0 ? NULL : s;
}

static const char *file_kind(mode_t m)
{
	return S_ISBLK(m) ? "a block device" : S_ISCHR(m) ? "a character device" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* A file the user names as the result: refused when it exists, unless
 * force (then its blocks count as freed). */
static int user_dst(struct target *t, const char *path, const char *key, bool force,
                    char *msg, size_t len)
{
	struct stat st;

	t->path = xstrdup(path);
	if (!t->path)
		return -ENOMEM;
	if (lstat(path, &st) != 0)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		snprintf(msg, len, "%s=%s is a directory; give a file name or a directory "
		         "without the job number", key, path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		/* --force never turns a device node or FIFO into a file */
		snprintf(msg, len, "%s=%s is %s, not a regular file: benchtop writes only regular files "
		         "(name a new file or a directory)", key, path, file_kind(st.st_mode));
		return -EPERM;
	}
	if (!force) {
		snprintf(msg, len, "%s=%s exists; benchtop does not overwrite files it did not "
		         "create (use --force to replace it)", key, path);
		return -EEXIST;
	}
	t->freed = (uint64_t)st.st_blocks * 512;
	return 0;
}

/* The output of a copy or write: user path (file or directory) or scratch. */
static int plan_dst(struct target *t, const char *path, const char *key, const char *scratch,
                    int j, int jobs, bool force, char *msg, size_t len)
{
	char *name;
	int rc;

	if (!path || is_dir(path)) {
		t->dir = xstrdup(path ? path : scratch);
		return t->dir ? 0 : -ENOMEM;
	}
	name = job_name(path, j, jobs);
	if (!name)
		return -ENOMEM;
	rc = user_dst(t, name, key, force, msg, len);
	free(name);
	return rc;
}

/* An input: a file that must exist, or (path NULL or a directory) one to
 * invent; size 0 = decided later from free space. */
static int plan_src(struct target *t, const char *path, const char *key, const char *scratch,
                    uint64_t size, char *msg, size_t len)
{
	struct stat st;

	if (!path || is_dir(path)) {
		t->dir = xstrdup(path ? path : scratch);
		t->bytes = size;
		return t->dir ? 0 : -ENOMEM;
	}
	if (stat(path, &st) != 0) {
		int e = errno;

		snprintf(msg, len, "%s=%s: %s", key, path, strerror(e));
		return -e;
	}
	t->path = xstrdup(path);
	t->bytes = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	return t->path ? 0 : -ENOMEM;
}

/* A copy must not truncate its own source. */
static int same_file(const char *a, const char *b, char *msg, size_t len)
{
	struct stat sa, sb;

	if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return 0;
	if (sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
		return 0;
	snprintf(msg, len, "dst=%s is the same file as src=%s", b, a);
	return -EINVAL;
}

static int plan_job(const struct wl_spec *w, const char *scratch, bool force, struct files *f,
                    int j, char *msg, size_t len)
{
	struct target *s = &f->src[j], *d = &f->dst[j];
	int rc = 0;

	switch (w->kind) {
	case WL_COPY:
		if (w->src && is_dir(w->src)) {
			/* a directory would mean inventing a 1 GiB file in the
			 * user's directory: say what src takes instead */
			snprintf(msg, len, "src=%s is a directory: give a file to copy", w->src);
			return -EISDIR;
		}
		rc = plan_src(s, w->src, "src", scratch, w->size, msg, len);
		if (rc == 0)
			rc = plan_dst(d, w->dst, "dst", scratch, j, f->jobs, force, msg, len);
		if (rc == 0)
			rc = same_file(s->path, d->path, msg, len);
		d->bytes = s->bytes;
		break;
	case WL_WRITE:
	case WL_NET:
		rc = plan_dst(d, w->path, "path", scratch, j, f->jobs, force, msg, len);
		d->bytes = w->size ? w->size : DEFAULT_SIZE;
		break;
	default:
		rc = plan_src(s, w->path, "path", scratch, w->size, msg, len);
		break;
	}
	return rc;
}

/* ---- free space ---- */

/* Invented sources of unspecified size: 1 GiB, or what fits with their
 * copies while 5% stays free (at least MIN_SOURCE). */
static void size_sources(const struct wl_spec *w, struct files *f)
{
	for (int j = 0; j < f->jobs; j++) {
		struct target *s = &f->src[j];
		uint64_t room, per = (uint64_t)f->jobs * (w->kind == WL_COPY ? 2 : 1);

		if (!s->dir || s->bytes)
			continue;
		room = fs_room(s->dir) / per / MIB * MIB;
		s->bytes = room < DEFAULT_SIZE ? room : DEFAULT_SIZE;
		if (s->bytes < MIN_SOURCE)
			s->bytes = MIN_SOURCE;
		if (w->kind == WL_COPY)
			f->dst[j].bytes = s->bytes;
	}
}

/* What the workloads prepared earlier in this run will write on each file
 * system: their files are still empty, so statvfs does not show it yet. */
#define LEDGER_MAX 16
static struct { dev_t dev; uint64_t need; } ledger[LEDGER_MAX];
static int nledger;

void engine_space_reset(void)
{
	nledger = 0;
}

static uint64_t *ledger_of(dev_t dev, bool add)
{
	for (int i = 0; i < nledger; i++)
		if (ledger[i].dev == dev)
			return &ledger[i].need;
	if (!add || nledger == LEDGER_MAX)
		return NULL;
	ledger[nledger].dev = dev;
	ledger[nledger].need = 0;
	return &ledger[nledger++].need;
}

/* Sum what will be written on each file system, with what workloads
 * prepared before this one will write there, and refuse when less than
 * 5% would stay free. */
static int check_space(struct files *f, char *msg, size_t len)
{
	struct need { dev_t dev; char *dir; uint64_t need; } fs[8];
	int nfs = 0, rc = 0;

	for (int i = 0; i < 2 * f->jobs; i++) {
		struct target *t = i < f->jobs ? &f->src[i] : &f->dst[i - f->jobs];
		bool writes = i >= f->jobs || t->dir;
		char *dir = t->dir ? xstrdup(t->dir) : t->path ? dir_of(t->path) : NULL;
		struct stat st;
		int k;

		if (!dir || !writes || stat(dir, &st) != 0) {
			int e = dir && writes ? errno : 0;

			if (e)
				snprintf(msg, len, "%s: %s", dir, strerror(e));
			free(dir);
			if (e) {
				rc = -e;
				break;
			}
			continue;
		}
		for (k = 0; k < nfs && fs[k].dev != st.st_dev; k++)
			;
		if (k == nfs && nfs < 8)
			fs[nfs++] = (struct need){ st.st_dev, dir, 0 };
		else
			free(dir);
		if (k < nfs)
			fs[k].need += t->bytes > t->freed ? t->bytes - t->freed : 0;
	}
	for (int k = 0; k < nfs; k++) {
		uint64_t avail = 0, reserve = 0, *before = ledger_of(fs[k].dev, false);
		uint64_t others = before ? *before : 0;

		if (rc == 0 && fs_space(fs[k].dir, &avail, &reserve) == 0 &&
		    fs[k].need > 0 && fs[k].need + others + reserve > avail) {
			char more[96] = "";
			if (others)
				snprintf(more, sizeof more, " (%.1f MiB with the workloads before it on this file system)",
				         (fs[k].need + others) / (double)MIB);
			snprintf(msg, len, "not enough space in %s (%s): the workload needs %.1f MiB%s, "
			         "%.1f MiB is free and 5%% of the file system (%.1f MiB) must stay free",
			         fs[k].dir, fs_name(fs[k].dir), fs[k].need / (double)MIB, more,
			         avail / (double)MIB, reserve / (double)MIB);
			rc = -ENOSPC;
		}
	}
	for (int k = 0; k < nfs; k++) {
		uint64_t *n = rc == 0 ? ledger_of(fs[k].dev, true) : NULL;
		if (n)
			*n += fs[k].need;
		free(fs[k].dir);
	}
	return rc;
}

/* ---- making the files ---- */

static int make_empty(struct target *t, const char *prefix, bool force, char *msg, size_t len)
{
	int fd, e;

	if (t->dir) {
		if (asprintf(&t->path, "%s/benchtop-%s.XXXXXX", t->dir, prefix) < 0) {
			t->path = NULL;
			return -ENOMEM;
		}
		fd = mkostemp(t->path, O_CLOEXEC);
	} else {
		/* only a regular file or a link is replaced (checked again
		 * here: a device node may have appeared since the plan) */
		struct stat st;
		if (force && lstat(t->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			errno = EPERM;
			goto fail;
		}
		if (force && unlink(t->path) != 0 && errno != ENOENT)
			goto fail;
		fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	}
	if (fd < 0)
		goto fail;
	t->made = true;
	close(fd);
	return 0;
fail:
	e = errno;
	snprintf(msg, len, "creating %s: %s", t->dir ? t->dir : t->path, strerror(e));
	if (t->dir) {
		free(t->path);
		t->path = NULL;
	}
	return -e;
}

/* O_DIRECT is refused at open by file systems without it (EINVAL). */
static int probe_direct(const char *path, char *msg, size_t len)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == EINVAL) {
		snprintf(msg, len, "direct: the file system of %s (%s) does not support O_DIRECT; "
		         "drop direct or use a directory on a disk", path, fs_name(path));
		return -EINVAL;
	}
	snprintf(msg, len, "opening %s with O_DIRECT: %s", path, strerror(errno));
	return -errno;
}

static int make_files(const struct wl_spec *w, struct files *f, bool force, char *msg, size_t len)
{
	const char *prefix = w->kind == WL_WRITE ? "write" : w->kind == WL_NET ? "net" : "dst";
	int rc = 0;

	for (int j = 0; j < f->jobs && rc == 0; j++) {
		struct target *s = &f->src[j], *d = &f->dst[j];

		if (f->need_src && s->dir) {
			rc = fill_source(s->dir, s->bytes, &s->path, msg, len);
			s->made = rc == 0;
		}
		if (rc == 0 && f->need_dst)
			rc = make_empty(d, prefix, force, msg, len);
		if (rc == 0 && w->direct && f->need_src)
			rc = probe_direct(s->path, msg, len);
		if (rc == 0 && w->direct && f->need_dst)
			rc = probe_direct(d->path, msg, len);
	}
	return rc;
}

static void unmake_files(struct files *f)
{
	for (int j = 0; j < f->jobs; j++) {
		if (f->src[j].made)
			unlink(f->src[j].path);
		if (f->dst[j].made)
			unlink(f->dst[j].path);
	}
}

/* ---- engine_prepare ---- */

static int check_spec(const struct wl_spec *w, char *msg, size_t len)
{
	if (w->direct && engine_spec_bs(w) % 512 != 0) {
		snprintf(msg, len, "bs=%zu with direct: O_DIRECT needs a multiple of 512 bytes "
		         "(e.g. bs=4k)", engine_spec_bs(w));
		return -EINVAL;
	}
	if (w->jobs > 1024) {
		snprintf(msg, len, "jobs=%d: at most 1024", w->jobs);
		return -EINVAL;
	}
	if (w->update > 0 && w->unit_char) {
		snprintf(msg, len, "update=%d with unit=char: write-backs are per block; use unit=block", w->update);
		return -EINVAL;
	}
	return 0;
}

/* update=PCT writes into the file it reads: only into one benchtop makes
 * (a directory or no path), or with --force. */
static int check_update(const struct wl_spec *w, bool force, char *msg, size_t len)
{
	struct stat st;
	if (w->update <= 0 || !w->path || stat(w->path, &st) != 0 || S_ISDIR(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, len, "update=%d writes into %s, which is %s: benchtop writes only regular files "
		         "(drop update= to read it)", w->update, w->path, file_kind(st.st_mode));
		return -EPERM;
	}
	if (force)
		return 0;
	snprintf(msg, len, "update=%d writes into %s, a file benchtop did not make: add --force to allow it, "
	         "or give a directory", w->update, w->path);
	return -EEXIST;
}

static int plan_files(const struct wl_spec *w, const char *scratch, bool force,
                      struct files *f, char *msg, size_t len)
{
	int rc = 0;

	f->need_src = w->kind != WL_WRITE && w->kind != WL_NET;
	f->need_dst = w->kind == WL_COPY || w->kind == WL_WRITE || w->kind == WL_NET;
	f->src = xcalloc((size_t)f->jobs, sizeof *f->src);
	f->dst = xcalloc((size_t)f->jobs, sizeof *f->dst);
	if (!f->src || !f->dst)
		return -ENOMEM;
	for (int j = 0; j < f->jobs && rc == 0; j++)
		rc = plan_job(w, scratch, force, f, j, msg, len);
	if (rc == 0) {
		size_sources(w, f);
		rc = check_space(f, msg, len);
	}
	if (rc == 0)
		rc = make_files(w, f, force, msg, len);
	return rc;
}

/* Hand the made paths over to the plan. */
static int fill_plan(struct files *f, struct engine_plan *plan)
{
	plan->job = xcalloc((size_t)f->jobs, sizeof *plan->job);
	if (!plan->job)
		return -ENOMEM;
	plan->jobs = f->jobs;
	for (int j = 0; j < f->jobs; j++) {
		struct engine_job *jb = &plan->job[j];

		jb->src = f->need_src ? f->src[j].path : NULL;
		jb->dst = f->need_dst ? f->dst[j].path : NULL;
		jb->src_invented = f->need_src && f->src[j].dir;
		jb->dst_invented = f->need_dst && f->dst[j].dir;
		if (f->need_src)
			f->src[j].path = NULL;
		if (f->need_dst)
			f->dst[j].path = NULL;
	}
	return 0;
}

int engine_prepare(const struct wl_spec *w, const char *scratch, bool force,
                   struct engine_plan *plan, char *msg, size_t len)
{
	struct files f = { .jobs = w->jobs > 0 ? w->jobs : 1 };
	int rc;

	memset(plan, 0, sizeof *plan);
	if (len)
		msg[0] = '\0';
	rc = plan_roles(w, plan, msg, len);
	if (rc == 0)
		rc = check_spec(w, msg, len);
	if (rc == 0)
		rc = check_update(w, force, msg, len);
	if (rc == 0)
		rc = plan_files(w, scratch, force, &f, msg, len);
	if (rc == 0)
		rc = fill_plan(&f, plan);
	if (rc != 0) {
		if (f.src && f.dst)
			unmake_files(&f);
		if (len && !msg[0])
			snprintf(msg, len, "preparing %s: %s", w->text ? w->text : "workload",
			         strerror(-rc));
		plan->nroles = 0;
	}
	files_free(&f);
	return rc;
}

/* ---- after the run ---- */

void engine_cleanup(const struct wl_spec *w, struct engine_plan *plan, bool failed, bool keep)
{
	(void)w;
	for (int j = 0; plan->job && j < plan->jobs; j++) {
		struct engine_job *jb = &plan->job[j];

		if (jb->src && jb->src_invented && !keep)
			unlink(jb->src);
		/* A failed run's output is partial: an invented one goes, even a
		 * kept one; a dst the user named is theirs and stays. */
		if (jb->dst && jb->dst_invented && (failed || !keep))
			unlink(jb->dst);
	}
}

void engine_unmake(struct engine_plan *plan)
{
	for (int j = 0; plan->job && j < plan->jobs; j++) {
		if (plan->job[j].src && plan->job[j].src_invented)
			unlink(plan->job[j].src);
		if (plan->job[j].dst)
			unlink(plan->job[j].dst);
	}
}

void engine_plan_free(struct engine_plan *plan)
{
	for (int j = 0; plan->job && j < plan->jobs; j++) {
		free(plan->job[j].src);
		free(plan->job[j].dst);
	}
	free(plan->job);
	memset(plan, 0, sizeof *plan);
}

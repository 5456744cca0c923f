/* cpufreq_write.c - governor and max-frequency writes, each preceded by
 * the policy's originals in the run journal, and restoring them (at exit,
 * or by --restore from a journal).  Every file is opened beneath the sysfs
 * root, never following a symbolic link out of it. */
#include "cpufreq_impl.h"
#include "benchtop/sysfile.h"
#include "benchtop/journal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- files beneath the root ---- */

#define BENEATH_DEPTH 64

/* Take the first component of *p into comp (NUL-terminated), advancing
 * *p past it and its slashes; -ENAMETOOLONG for a component too long. */
static int next_component(char **p, char *comp)
{
	size_t n;

	while (**p == '/')
		(*p)++;
	n = strcspn(*p, "/");
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(comp, *p, n);
	comp[n] = '\0';
	*p += n;
	while (**p == '/')
		(*p)++;
	return 0;
}

/* A symbolic link at comp in dirfd: its target spliced in front of the
 * rest of the path (*p points into path).  Absolute targets leave the
 * root: -EXDEV. */
static int splice_link(int dirfd, const char *comp, char *path, size_t len, char **p)
{
	char link[PATH_MAX], tmp[2 * PATH_MAX];
	ssize_t n = readlinkat(dirfd, comp, link, sizeof(link) - 1);

	if (n < 0)
		return -errno;
	link[n] = '\0';
	if (link[0] == '/')
		return -EXDEV;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/%s", link, *p) >= len)
		return -ENAMETOOLONG;
	memcpy(path, tmp, strlen(tmp) + 1);
	*p = path;
	return 0;
}

int cpufreq_open_beneath(int rootfd, const char *rel, int flags)
{
	char path[2 * PATH_MAX], comp[NAME_MAX + 1], *p = path;
	int fds[BENEATH_DEPTH], depth = 0, links = 0, rc = 0;
	struct stat st;

	if (rel[0] == '/')
		return -EXDEV;
	if ((size_t)snprintf(path, sizeof(path), "%s", rel) >= PATH_MAX)
		return -ENAMETOOLONG;
	fds[0] = rootfd;
	while (rc == 0) {
		if ((rc = next_component(&p, comp)) < 0)
			break;
		bool last = !*p;
		if (!comp[0] || (!strcmp(comp, ".") && last)) {
			rc = -EISDIR;
		} else if (!strcmp(comp, ".")) {
			continue;
		} else if (!strcmp(comp, "..")) {
			if (depth == 0)
				rc = -EXDEV; /* out of the root */
			else
				close(fds[depth--]);
		} else if (fstatat(fds[depth], comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = -errno;
		} else if (S_ISLNK(st.st_mode)) {
			rc = ++links > 40 ? -ELOOP : splice_link(fds[depth], comp, path, sizeof(path), &p);
		} else if (last) {
			/* O_NONBLOCK: a FIFO in a fake tree cannot block
			 * (it is refused after the open) */
			int fd = openat(fds[depth], comp, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			rc = fd < 0 ? -errno : fd;
			break;
		} else if (depth + 1 >= BENEATH_DEPTH) {
			rc = -ENAMETOOLONG;
		} else {
			/* a directory swapped for a link since fstatat fails here */
			int fd = openat(fds[depth], comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				rc = -errno;
			else
				fds[++depth] = fd;
		}
	}
	while (depth > 0)
		close(fds[depth--]);
	return rc;
}

/* Open root/rel/name beneath root; a regular file must have one link
 * (a hard link could name any file on the machine). */
static int open_attr(const char *root, const char *rel, const char *name, int flags)
{
	char path[PATH_MAX + 64];
	struct stat st;
	int rfd, fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", rel, name) >= sizeof(path))
		return -ENAMETOOLONG;
	rfd = open(root[0] ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	fd = cpufreq_open_beneath(rfd, path, flags);
	close(rfd);
	if (fd >= 0 && (fstat(fd, &st) < 0 || (S_ISREG(st.st_mode) && st.st_nlink != 1) ||
	                (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The whole file (at most len - 1 bytes; -EFBIG when longer). */
static int read_attr(const char *root, const char *rel, const char *name, char *buf, size_t len)
{
	int fd = open_attr(root, rel, name, O_RDONLY | O_NONBLOCK), n = 0;

	if (fd < 0)
		return fd;
	while ((size_t)n < len) {
		ssize_t r = read(fd, buf + n, len - (size_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			n = r < 0 ? -errno : n;
			break;
		}
		n += (int)r;
	}
	close(fd);
	if (n >= 0 && (size_t)n >= len)
		return -EFBIG;
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static int write_attr(const char *root, const char *rel, const char *name, const char *value)
{
	/* O_TRUNC is ignored by sysfs and replaces a fake tree's content. */
	int fd = open_attr(root, rel, name, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return fd;
	return sysfile_write_fd(fd, value);
}

static int write_khz(const char *root, const char *rel, const char *name, long khz)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", khz);
	return write_attr(root, rel, name, buf);
}

/* A policy's directory relative to cf's root. */
static const char *rel_dir(const struct cpufreq *cf, const struct policy *p)
{
	return p->dir + strlen(cf->root) + 1;
}

/* The status-line sentence for a refused write. */
static void write_msg(char *msg, size_t len, int rc, const char *what, const char *dir,
                      const char *file)
{
	/* The reason first: a narrow status line must still say why. */
	const char *pol = strrchr(dir, '/');
	pol = pol ? pol + 1 : dir;
	if (rc == -EACCES || rc == -EPERM)
		snprintf(msg, len, "%s are read-only here: run as root (%s: %s/%s in %s)", what,
		         strerror(-rc), pol, file, dir);
	else if (rc == -EROFS)
		snprintf(msg, len, "%s are read-only here (%s): %s/%s in %s", what, strerror(-rc), pol,
		         file, dir);
	else if (rc == -EINVAL)
		snprintf(msg, len, "the kernel refused the %s value (%s: %s in %s)", file, strerror(-rc),
		         pol, dir);
	else if (rc == -EXDEV || rc == -ELOOP)
		snprintf(msg, len, "%s/%s in %s leads out of the tree through a symbolic link: "
		         "not written", pol, file, dir);
	else
		snprintf(msg, len, "%s: cannot write %s/%s in %s", strerror(-rc), pol, file, dir);
}

/* ---- restore ---- */

/* A file's one line, trailing newline cut: -EFBIG above 63 bytes,
 * -EILSEQ for a NUL byte or other line breaks. */
static int read_value(const char *root, const char *rel, const char *name, char *buf, size_t len)
{
	int n = read_attr(root, rel, name, buf, len);

	if (n < 0)
		return n;
	if (memchr(buf, '\0', (size_t)n))
		return -EILSEQ;
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return strchr(buf, '\n') ? -EILSEQ : n;
}

static long value_khz(const char *root, const char *rel, const char *name)
{
	char buf[64], *end;
	long v;

	if (read_value(root, rel, name, buf, sizeof(buf)) <= 0 || !isdigit((unsigned char)buf[0]))
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	return errno || *end || v <= 0 || v > 100000000L ? -1 : v;
}

static int restore_governor(const char *root, const char *rel, const char *dir, const char *gov,
                            char *msg, size_t len)
{
	char cur[64], govs[1024];
	int rc;

	if (!journal_governor_name(gov)) {
		snprintf(msg, len, "cannot restore governor in %s: the recorded name is not a governor", dir);
		return -EINVAL;
	}
	if (read_value(root, rel, "scaling_governor", cur, sizeof(cur)) >= 0 && !strcmp(cur, gov))
		return 0;
	if (read_value(root, rel, "scaling_available_governors", govs, sizeof(govs)) < 0)
		govs[0] = '\0';
	if (!cpufreq_in_list(govs, gov)) {
		snprintf(msg, len, "cannot restore governor %s in %s: it is not among the "
		         "available governors", gov, dir);
		return -EINVAL;
	}
	if ((rc = write_attr(root, rel, "scaling_governor", gov)) < 0)
		write_msg(msg, len, rc, "governors", dir, "scaling_governor");
	return rc;
}

static int restore_limits(const char *root, const char *rel, const char *dir, long min_khz,
                          long max_khz, char *msg, size_t len)
{
	long lo = value_khz(root, rel, "cpuinfo_min_freq"), hi = value_khz(root, rel, "cpuinfo_max_freq");
	long cur_min = value_khz(root, rel, "scaling_min_freq");
	long cur_max = value_khz(root, rel, "scaling_max_freq");
	int rc;

	for (int k = 0; k < 2; k++) {
		long v = k ? max_khz : min_khz;
		if (v > 0 && (lo <= 0 || hi <= 0 || v < lo || v > hi)) {
			snprintf(msg, len, "cannot restore %s %ld kHz in %s: outside the policy's range (%ld to %ld kHz)",
			         k ? "scaling_max_freq" : "scaling_min_freq", v, dir, lo, hi);
			return -EINVAL;
		}
	}
	/* Raise the max before the min (and lower the min before the max), so
	 * that min <= max holds after each write. */
	bool min_first = max_khz > 0 && cur_min > 0 && max_khz < cur_min;
	for (int step = 0; step < 2; step++) {
		bool do_min = (step == 0) == min_first;
		long want = do_min ? min_khz : max_khz, have = do_min ? cur_min : cur_max;
		const char *file = do_min ? "scaling_min_freq" : "scaling_max_freq";
		if (want <= 0 || want == have)
			continue;
		if ((rc = write_khz(root, rel, file, want)) < 0) {
			write_msg(msg, len, rc, "frequency limits", dir, file);
			return rc;
		}
	}
	return 0;
}

int cpufreq_restore_policy(const char *root, const char *rel, const char *gov, long min_khz,
                           long max_khz, char *msg, size_t len)
{
	char dir[PATH_MAX + JOURNAL_DIR_LEN];
	int rc = 0;

	root = strcmp(root, "/") ? root : "";
	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	snprintf(msg, len, "restored %s", dir);
	if (!journal_clean_path(rel, false)) {
		snprintf(msg, len, "cannot restore %s: not a plain path beneath the tree", dir);
		return -EINVAL;
	}
	if (gov && gov[0])
		rc = restore_governor(root, rel, dir, gov, msg, len);
	if (rc == 0)
		rc = restore_limits(root, rel, dir, min_khz, max_khz, msg, len);
	return rc;
}

/* ---- the originals ---- */

/* Why a value cannot be recorded exactly, for the status line. */
static void unrecordable(char *msg, size_t len, const struct policy *p, const char *file, int rc)
{
	const char *why = rc == -EFBIG ? "is too long to be a value" :
	                  rc == -EILSEQ ? "holds a NUL byte or a line break" :
	                  rc == -EINVAL ? "holds something that is not a value" : strerror(-rc);
	snprintf(msg, len, "CPUs %s left alone: %s %s (%s), so it could not be restored exactly",
	         p->cpus, file, why, p->dir);
}

/* One original: a governor name or a kHz figure; a missing file is
 * "unknown" unless it is the one to change. */
static int original(const struct cpufreq *cf, const struct policy *p, const char *file, bool need,
                    char *out, size_t outlen)
{
	char buf[64];
	int rc = read_value(cf->root, rel_dir(cf, p), file, buf, sizeof(buf));

	out[0] = '\0';
	if (rc == -ENOENT && !need)
		return 0;
	if (rc < 0)
		return rc;
	bool gov = !strcmp(file, "scaling_governor");
	if (gov ? !journal_governor_name(buf) : value_khz(cf->root, rel_dir(cf, p), file) <= 0)
		return -EINVAL;
	snprintf(out, outlen, "%s", buf);
	return 0;
}

/* Before the first change of policy p: its originals to the journal.
 * what is the file about to change.  0, or -errno with msg (the policy
 * is then left alone). */
static int save_policy(struct cpufreq *cf, struct policy *p, const char *what, char *msg, size_t len)
{
	static const char *const files[] = { "scaling_governor", "scaling_min_freq", "scaling_max_freq" };
	char val[3][64];
	struct journal_policy jp = { .min_khz = -1, .max_khz = -1 };
	int rc;

	if (p->saved)
		return 0;
	for (int k = 0; k < 3; k++)
		if ((rc = original(cf, p, files[k], !strcmp(files[k], what), val[k], sizeof(val[k]))) < 0) {
			unrecordable(msg, len, p, files[k], rc);
			return rc;
		}
	snprintf(jp.dir, sizeof(jp.dir), "%s", rel_dir(cf, p));
	snprintf(jp.governor, sizeof(jp.governor), "%s", val[0]);
	if (val[1][0])
		jp.min_khz = strtol(val[1], NULL, 10);
	if (val[2][0])
		jp.max_khz = strtol(val[2], NULL, 10);
	if ((rc = journal_note_policy(cf->root[0] ? cf->root : "/", &jp, msg, len)) < 0)
		return rc;
	snprintf(p->orig_gov, sizeof(p->orig_gov), "%s", jp.governor);
	p->orig_min = jp.min_khz;
	p->orig_max = jp.max_khz;
	p->saved = true;
	return 0;
}

/* Why a frequency key can do nothing here, or 0. */
static int check_policies(const struct cpufreq *cf, int p, char *msg, size_t len)
{
	if (cf->npol == 0) {
		snprintf(msg, len, "no cpufreq policies to change: %s",
		         cf->reason[0] ? cf->reason : "this tree has no cpufreq directory");
		return -ENODEV;
	}
	if (p >= cf->npol) {
		snprintf(msg, len, "there is no policy %d: this machine has policies 0-%d", p, cf->npol - 1);
		return -EINVAL;
	}
	return 0;
}

static void targets_name(const struct cpufreq *cf, int p, char *buf, size_t len)
{
	if (p < 0 || cf->npol == 1)
		snprintf(buf, len, "all CPUs");
	else
		snprintf(buf, len, "CPUs %s", cf->pol[p].cpus);
}

static int gov_refused(const struct cpufreq *cf, int p, const char *gov, char *msg, size_t len)
{
	for (int i = p < 0 ? 0 : p; i < (p < 0 ? cf->npol : p + 1); i++) {
		if (gov && cpufreq_in_list(cf->pol[i].governors, gov))
			continue;
		snprintf(msg, len, "governor '%s' is not available on CPUs %s: choose from %s",
		         gov ? gov : "", cf->pol[i].cpus,
		         cf->pol[i].governors[0] ? cf->pol[i].governors : "(none listed)");
		return -EINVAL;
	}
	return 0;
}

/* Append " (left alone: WHY)" for the policies a change skipped. */
static void add_left(char *msg, size_t len, const char *left)
{
	size_t n = strlen(msg);

	if (left[0] && n < len)
		snprintf(msg + n, len - n, "; %s", left);
}

/* Change one file on every targeted policy whose originals are recorded;
 * policies that cannot be recorded are left alone (said in msg; counted
 * in cf->left_alone).  0 when at least one policy took the value (or
 * had it already), else the first -errno. */
static int change_all(struct cpufreq *cf, int p, const char *file, const char *value,
                      char *msg, size_t len)
{
	char left[512] = "";
	int rc = 0, done = 0, first = 0;

	cf->left_alone = 0;
	for (int i = p < 0 ? 0 : p; rc == 0 && i < (p < 0 ? cf->npol : p + 1); i++) {
		struct policy *pol = &cf->pol[i];
		char why[512];
		int e = save_policy(cf, pol, file, why, sizeof(why));
		if (e < 0) {
			if (!left[0])
				snprintf(left, sizeof(left), "%s", why);
			if (first == 0)
				first = e;
			cf->left_alone++;
			continue;
		}
		char cur[64];
		if (read_value(cf->root, rel_dir(cf, pol), file, cur, sizeof(cur)) >= 0 && !strcmp(cur, value)) {
			done++;
			continue;
		}
		pol->changed = true; /* even a failed write may have half-happened */
		rc = write_attr(cf->root, rel_dir(cf, pol), file, value);
		if (rc < 0)
			write_msg(msg, len, rc, strcmp(file, "scaling_governor") ? "frequency limits" : "governors",
			          pol->dir, file);
		else
			done++;
		cpufreq_read_state(cf, pol);
	}
	if (rc < 0)
		return rc;
	if (done == 0) {
		snprintf(msg, len, "%s", left);
		return first < 0 ? first : -ENODEV;
	}
	msg[0] = '\0';
	if (left[0])
		snprintf(msg, len, "%s", left);
	return 0;
}

/* Write val to file in the targeted policies (change_all).  Done, msg says
 * "<done> on <CPUs>" and what was left alone; failed, msg says what was
 * left when anything was. */
static int change_and_say(struct cpufreq *cf, int p, const char *file, const char *val,
                          const char *done, char *msg, size_t len)
{
	char who[512], left[512] = "";
	int rc = change_all(cf, p, file, val, left, sizeof(left));

	if (rc < 0 && left[0])
		snprintf(msg, len, "%s", left);
	if (rc == 0) {
		targets_name(cf, p, who, sizeof(who));
		snprintf(msg, len, "%s on %s", done, who);
		add_left(msg, len, left);
	}
	return rc;
}

int cpufreq_set_governor(struct cpufreq *cf, int p, const char *gov, char *msg, size_t len)
{
	char done[512];
	int rc = check_policies(cf, p, msg, len);

	cf->left_alone = 0;
	if (rc == 0)
		rc = gov_refused(cf, p, gov, msg, len);
	if (rc == 0) {
		snprintf(done, sizeof(done), "governor %s", gov);
		rc = change_and_say(cf, p, "scaling_governor", gov, done, msg, len);
	}
	return rc;
}

static int cap_refused(const struct cpufreq *cf, int p, long khz, char *msg, size_t len)
{
	for (int i = p < 0 ? 0 : p; i < (p < 0 ? cf->npol : p + 1); i++) {
		const struct policy *pol = &cf->pol[i];
		long lo = pol->min > 0 ? pol->min : pol->cpuinfo_min;
		if ((lo > 0 && khz < lo) || (pol->cpuinfo_max > 0 && khz > pol->cpuinfo_max)) {
			snprintf(msg, len, "cannot cap CPUs %s at %ld kHz: choose from %ld to %ld kHz",
			         pol->cpus, khz, lo, pol->cpuinfo_max);
			return -EINVAL;
		}
	}
	return 0;
}

/* Lift the cap: back to the saved originals. */
static int lift_cap(struct cpufreq *cf, int p, char *msg, size_t len)
{
	int rc = 0, lifted = 0;

	cf->left_alone = 0;
	for (int i = p < 0 ? 0 : p; rc == 0 && i < (p < 0 ? cf->npol : p + 1); i++) {
		struct policy *pol = &cf->pol[i];
		pol->max = cpufreq_read_khz(pol->dir, "scaling_max_freq");
		if (!pol->saved || pol->orig_max <= 0 || pol->max == pol->orig_max)
			continue;
		rc = write_khz(cf->root, rel_dir(cf, pol), "scaling_max_freq", pol->orig_max);
		if (rc < 0)
			write_msg(msg, len, rc, "frequency limits", pol->dir, "scaling_max_freq");
		else
			lifted++;
		pol->max = cpufreq_read_khz(pol->dir, "scaling_max_freq");
	}
	if (rc == 0)
		snprintf(msg, len, lifted ? "frequency cap lifted" : "no frequency cap to lift");
	return rc;
}

int cpufreq_set_maxfreq(struct cpufreq *cf, int p, long khz, char *msg, size_t len)
{
	char val[32], done[64];
	int rc = check_policies(cf, p, msg, len);

	if (rc == 0 && khz <= 0)
		return lift_cap(cf, p, msg, len);
	cf->left_alone = 0;
	if (rc == 0)
		rc = cap_refused(cf, p, khz, msg, len);
	snprintf(val, sizeof(val), "%ld", khz);
	snprintf(done, sizeof(done), "max frequency %.2f GHz", (double)khz / 1e6);
	if (rc == 0)
		rc = change_and_say(cf, p, "scaling_max_freq", val, done, msg, len);
	return rc;
}

int cpufreq_left_alone(const struct cpufreq *cf)
{
	return cf->left_alone;
}

/* ---- restore ---- */

int cpufreq_restore_report(struct cpufreq *cf, FILE *report)
{
	const char *root = cf->root[0] ? cf->root : "/";
	int first = 0;

	for (int i = 0; i < cf->npol; i++) {
		struct policy *p = &cf->pol[i];
		char msg[PATH_MAX + 256];
		int rc = 0;
		if (!p->saved)
			continue;
		if (p->changed)
			rc = cpufreq_restore_policy(root, rel_dir(cf, p), p->orig_gov, p->orig_min, p->orig_max,
			                            msg, sizeof(msg));
		if (rc < 0) {
			if (report)
				fprintf(report, "benchtop: %s\n", msg);
			if (first == 0)
				first = rc;
			continue;
		}
		p->changed = p->saved = false;
		journal_forget_policy(root, rel_dir(cf, p));
		cpufreq_read_state(cf, p);
	}
	if (first < 0 && report && journal_path()[0])
		fprintf(report, "benchtop: the journal %s is kept: `benchtop --restore` tries again\n",
		        journal_path());
	return first;
}

void cpufreq_restore(struct cpufreq *cf)
{
	if (cf)
		cpufreq_restore_report(cf, NULL);
}

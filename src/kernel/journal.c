/* journal.c - journal files: where they live, the checks before one is
 * read, the text format, saving and loading (see journal.h).  The run
 * journal of this process (the notes) is in journal_run.c. */
#include "journal_impl.h"
#include "benchtop/proc.h"
#include "benchtop/strv.h"
#include "benchtop/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL_MAGIC "benchtop-journal "
#define JOURNAL_MAX (1 << 20)
#define KHZ_MAX 100000000L

/* ---- where ---------------------------------------------------------- */

static int home_dir(char *buf, size_t len)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (!home || home[0] != '/') {
		pw = getpwuid(geteuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || home[0] != '/')
		return -ENOENT;
	return (size_t)snprintf(buf, len, "%s", home) < len ? 0 : -ENAMETOOLONG;
}

int journal_dir_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char home[PATH_MAX];
	size_t n;
	int rc;

	if (xdg && xdg[0] == '/')
		n = (size_t)snprintf(buf, len, "%s/benchtop", xdg);
	else if (geteuid() == 0)
		n = (size_t)snprintf(buf, len, "/run/benchtop");
	else if ((rc = home_dir(home, sizeof(home))) < 0)
		return rc;
	else
		n = (size_t)snprintf(buf, len, "%s/.local/state/benchtop", home);
	return n < len ? 0 : -ENAMETOOLONG;
}

/* Who may own a journal directory or file: the user, or root. */
static bool trusted_owner(uid_t uid)
{
	return uid == geteuid() || uid == 0;
}

static int refuse(char *why, size_t len, int rc, const char *fmt, const char *path,
                  const struct stat *st)
{
	if (why) {
		char detail[128];
		snprintf(detail, sizeof(detail), fmt, st ? (long)st->st_uid : 0L,
		         st ? (unsigned)(st->st_mode & 07777) : 0u);
		snprintf(why, len, "%s: %s", path, detail);
	}
	return rc;
}

/* The StrictModes test of an open directory and of its parent. */
static int check_dir_fd(int fd, const char *path, char *why, size_t len)
{
	struct stat st, up;
	int pfd;

	if (fstat(fd, &st) < 0)
		return refuse(why, len, -errno, "cannot be checked", path, NULL);
	if (!trusted_owner(st.st_uid))
		return refuse(why, len, -EPERM, "owned by uid %ld, not by you or root: not trusted", path, &st);
	if (st.st_mode & 022)
		return refuse(why, len, -EPERM, "writable by others (uid %ld, mode %04o): not trusted", path, &st);
	pfd = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return refuse(why, len, -errno, "its parent cannot be checked", path, NULL);
	int rc = fstat(pfd, &up) < 0 ? -errno : 0;
	close(pfd);
	if (rc < 0)
		return refuse(why, len, rc, "its parent cannot be checked", path, NULL);
	if (!trusted_owner(up.st_uid) || ((up.st_mode & 022) && !(up.st_mode & S_ISVTX)))
		return refuse(why, len, -EPERM, "its parent directory (uid %ld, mode %04o) may be "
		              "changed by others: not trusted", path, &up);
	return 0;
}

/* mkdir -p with mode 0700 for what is missing (the user's own tree). */
static int make_parents(const char *dir)
{
	char tmp[PATH_MAX];
	size_t n = strlen(dir);

	if (n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, dir, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(tmp, 0700) < 0 && errno != EEXIST ? -errno : 0;
}

int journal_open_dir(const char *dir, bool make, int *dirfd, char *why, size_t len)
{
	int fd, rc;

	if (why && len)
		why[0] = '\0';
	if (make && (rc = make_parents(dir)) < 0)
		return refuse(why, len, rc, "cannot be made", dir, NULL);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat st;
		rc = -errno;
		if (rc == -ENOENT)
			return refuse(why, len, rc, "does not exist", dir, NULL);
		if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
			return refuse(why, len, -EPERM, "is a symbolic link: not trusted", dir, NULL);
		return refuse(why, len, rc, "cannot be opened", dir, NULL);
	}
	rc = check_dir_fd(fd, dir, why, len);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	*dirfd = fd;
	return 0;
}

int journal_open_checked(int dirfd, const char *name, const char *shown, int *fd,
                         char *why, size_t len)
{
	struct stat st;
	int f = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (f < 0) {
		int rc = -errno;
		return refuse(why, len, rc == -ELOOP ? -EPERM : rc, rc == -ELOOP ?
		              "is a symbolic link: not trusted" : "cannot be opened", shown, NULL);
	}
	int rc = fstat(f, &st) < 0 ? -errno : 0;
	if (rc < 0)
		refuse(why, len, rc, "cannot be checked", shown, NULL);
	else if (!S_ISREG(st.st_mode))
		rc = refuse(why, len, -EPERM, "is not a regular file: not trusted", shown, NULL);
	else if (st.st_uid != geteuid())
		rc = refuse(why, len, -EPERM, "owned by uid %ld, not by you: not trusted", shown, &st);
	else if (st.st_mode & 022)
		rc = refuse(why, len, -EPERM, "writable by others (uid %ld, mode %04o): not trusted", shown, &st);
	else if (st.st_nlink != 1)
		rc = refuse(why, len, -EPERM, "has more than one link: not trusted", shown, NULL);
	if (rc < 0) {
		close(f);
		return rc;
	}
	*fd = f;
	return 0;
}

/* ---- small helpers -------------------------------------------------- */

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "re");
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
	return pid > 0 ? proc_start_ticks(pid) : 0;
}

int journal_write_all(int fd, const char *s, size_t n)
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

/* ---- text ------------------------------------------------------------ */

/* A line "key PATH", the path with blanks, controls and '%' as %XX. */
static void put_path_line(FILE *fp, const char *key, const char *s)
{
	fprintf(fp, "%s ", key);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= 0x20 || *p == 0x7f || *p == '%')
			fprintf(fp, "%%%02X", *p);
		else
			fputc(*p, fp);
	}
	fputc('\n', fp);
}

int journal_format(const struct journal *j, char **out, size_t *outlen)
{
	FILE *fp = open_memstream(out, outlen);

	if (!fp)
		return -errno;
	fprintf(fp, "%s2\npid %d\nstarttime %llu\nboot_id %s\n", JOURNAL_MAGIC, (int)j->pid,
	        j->starttime, j->boot_id[0] ? j->boot_id : "-");
	for (size_t r = 0; r < j->nroots; r++) {
		size_t k = 0;
		while (k < j->n && (size_t)j->pol[k].root != r)
			k++;
		if (k == j->n)
			continue; /* no policy left under it */
		put_path_line(fp, "sysfs", j->roots[r]);
		for (size_t i = 0; i < j->n; i++) {
			const struct journal_policy *p = &j->pol[i];
			if ((size_t)p->root != r)
				continue;
			fprintf(fp, "policy %s %s %ld %ld\n", p->dir, p->governor[0] ? p->governor : "-",
			        p->min_khz, p->max_khz);
		}
	}
	for (size_t i = 0; i < j->nscratch; i++)
		put_path_line(fp, "scratch", j->scratch[i]);
	for (size_t i = 0; i < j->npgid; i++)
		fprintf(fp, "pgid %d %llu\n", (int)j->pgid[i].pid, j->pgid[i].starttime);
	for (size_t i = 0; i < j->ncgroup; i++)
		put_path_line(fp, "cgroup", j->cgroup[i]);
	for (size_t i = 0; i < j->npaused; i++)
		fprintf(fp, "paused %d %llu\n", (int)j->paused[i].pid, j->paused[i].starttime);
	return fclose(fp) == 0 ? 0 : -ENOMEM;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Undo put_path_line's escapes in place; -EINVAL for a bad escape or an escaped NUL. */
static int unescape(char *s)
{
	char *o = s;

	for (char *p = s; *p; p++) {
		if (*p != '%') {
			*o++ = *p;
			continue;
		}
		int hi = hexval((unsigned char)p[1]), lo = hi < 0 ? -1 : hexval((unsigned char)p[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return -EINVAL;
		*o++ = (char)(hi * 16 + lo);
		p += 2;
	}
	*o = '\0';
	return 0;
}

/* A path with no empty, "." or ".." component (absolute or not as asked). */
bool journal_clean_path(const char *s, bool absolute)
{
	if (!s[0] || (s[0] == '/') != absolute || strlen(s) >= PATH_MAX)
		return false;
	if (absolute && !s[1])
		return false; /* never "/" itself */
	for (const char *p = absolute ? s + 1 : s; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}

bool journal_governor_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= JOURNAL_GOV_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

/* A decimal number with no sign, leading zeros allowed, at most max. */
static int parse_num(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v > (max - (unsigned)(*s - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
	}
	*out = v;
	return 0;
}

static int parse_khz(const char *s, long *out)
{
	unsigned long long v;

	if (strcmp(s, "-1") == 0) {
		*out = -1;
		return 0;
	}
	if (parse_num(s, KHZ_MAX, &v) < 0 || v == 0)
		return -EINVAL;
	*out = (long)v;
	return 0;
}

static int parse_pid(const char *s, pid_t *out)
{
	unsigned long long v;

	/* never PID 1 nor 0: those are no process of a run */
	if (parse_num(s, INT32_MAX, &v) < 0 || v < 2)
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

static void *grow(void *arr, size_t n, size_t size)
{
	if (n >= JOURNAL_MAX / 8)
		return NULL; /* no journal holds that many */
	return xreallocarray(arr, n + 1, size);
}

static int add_root(struct journal *j, const char *path)
{
	char (*r)[PATH_MAX] = grow(j->roots, j->nroots, sizeof(*r));

	if (!r)
		return -ENOMEM;
	j->roots = r;
	snprintf(j->roots[j->nroots++], PATH_MAX, "%s", path);
	return 0;
}

static int add_string(char ***arr, size_t *n, const char *s)
{
	char **a = grow(*arr, *n, sizeof(*a)), *c;

	if (!a)
		return -ENOMEM;
	*arr = a;
	c = xstrdup(s);
	a[(*n)++] = c;
	return 0;
}

static int add_proc(struct journal_proc **arr, size_t *n, pid_t pid, unsigned long long st)
{
	struct journal_proc *a = grow(*arr, *n, sizeof(*a));

	if (!a)
		return -ENOMEM;
	*arr = a;
	a[(*n)++] = (struct journal_proc){ pid, st };
	return 0;
}

int journal_add_root(struct journal *j, const char *path)
{
	return add_root(j, path);
}

int journal_add_string(char ***arr, size_t *n, const char *s)
{
	return add_string(arr, n, s);
}

int journal_add_proc(struct journal_proc **arr, size_t *n, pid_t pid, unsigned long long st)
{
	return add_proc(arr, n, pid, st);
}

int journal_add_policy(struct journal *j, const struct journal_policy *p)
{
	struct journal_policy *a = grow(j->pol, j->n, sizeof(*a));

	if (!a)
		return -ENOMEM;
	j->pol = a;
	j->pol[j->n++] = *p;
	return 0;
}

static int parse_policy(char **tok, int ntok, struct journal *j)
{
	struct journal_policy p = { .root = (int)j->nroots - 1 };

	if (ntok != 5 || j->nroots == 0 || !journal_clean_path(tok[1], false) ||
	    strlen(tok[1]) >= sizeof(p.dir))
		return -EINVAL;
	snprintf(p.dir, sizeof(p.dir), "%s", tok[1]);
	if (strcmp(tok[2], "-") != 0) {
		if (!journal_governor_name(tok[2]))
			return -EINVAL;
		snprintf(p.governor, sizeof(p.governor), "%s", tok[2]);
	}
	if (parse_khz(tok[3], &p.min_khz) < 0 || parse_khz(tok[4], &p.max_khz) < 0)
		return -EINVAL;
	return journal_add_policy(j, &p);
}

static int parse_proc(char **tok, int ntok, struct journal_proc **arr, size_t *n)
{
	unsigned long long st;
	pid_t pid;

	if (ntok != 3 || parse_pid(tok[1], &pid) < 0 || parse_num(tok[2], ULLONG_MAX, &st) < 0)
		return -EINVAL;
	return add_proc(arr, n, pid, st);
}

/* A sysfs root: "/" or a clean absolute path. */
static bool root_path(const char *s)
{
	return !strcmp(s, "/") || journal_clean_path(s, true);
}

static int parse_abs(char **tok, int ntok, char ***arr, size_t *n, struct journal *j)
{
	if (ntok != 2 || unescape(tok[1]) < 0)
		return -EINVAL;
	if (!arr)
		return root_path(tok[1]) ? add_root(j, tok[1]) : -EINVAL;
	if (!journal_clean_path(tok[1], true))
		return -EINVAL;
	return add_string(arr, n, tok[1]);
}

static int parse_head(char **tok, int ntok, struct journal *j)
{
	unsigned long long v;

	if (ntok != 2)
		return -EINVAL;
	if (strcmp(tok[0], "pid") == 0)
		return parse_pid(tok[1], &j->pid);
	if (strcmp(tok[0], "starttime") == 0) {
		if (parse_num(tok[1], ULLONG_MAX, &v) < 0)
			return -EINVAL;
		j->starttime = v;
		return 0;
	}
	/* boot_id */
	if (strcmp(tok[1], "-") == 0)
		return 0;
	if (strlen(tok[1]) >= sizeof(j->boot_id) || strspn(tok[1], "0123456789abcdef-") != strlen(tok[1]))
		return -EINVAL;
	snprintf(j->boot_id, sizeof(j->boot_id), "%s", tok[1]);
	return 0;
}

/* One line, split at single spaces (a version 1 sysfs line keeps its
 * spaces: the path was the rest of the line). */
static int parse_line(char *line, int version, struct journal *j)
{
	char *tok[6];
	int ntok = 0;

	if (!line[0])
		return 0;
	if (version == 1 && strncmp(line, "sysfs ", 6) == 0)
		return root_path(line + 6) ? add_root(j, line + 6) : -EINVAL;
	for (char *p = line; p && ntok < 6;) {
		tok[ntok++] = p;
		p = strchr(p, ' ');
		if (p)
			*p++ = '\0';
	}
	if (ntok == 6)
		return -EINVAL;
	if (!strcmp(tok[0], "pid") || !strcmp(tok[0], "starttime") || !strcmp(tok[0], "boot_id"))
		return parse_head(tok, ntok, j);
	if (!strcmp(tok[0], "sysfs"))
		return parse_abs(tok, ntok, NULL, NULL, j);
	if (!strcmp(tok[0], "policy"))
		return parse_policy(tok, ntok, j);
	if (version >= 2 && !strcmp(tok[0], "scratch"))
		return parse_abs(tok, ntok, &j->scratch, &j->nscratch, j);
	if (version >= 2 && !strcmp(tok[0], "cgroup"))
		return parse_abs(tok, ntok, &j->cgroup, &j->ncgroup, j);
	if (version >= 2 && !strcmp(tok[0], "pgid"))
		return parse_proc(tok, ntok, &j->pgid, &j->npgid);
	if (version >= 2 && !strcmp(tok[0], "paused"))
		return parse_proc(tok, ntok, &j->paused, &j->npaused);
	return -EINVAL;
}

int journal_parse(const char *text, size_t len, struct journal *j)
{
	size_t mlen = strlen(JOURNAL_MAGIC);
	char *buf, *save = NULL;
	int rc = 0, version;

	memset(j, 0, sizeof(*j));
	if (len > JOURNAL_MAX)
		return -EFBIG;
	if (memchr(text, '\0', len) || len < mlen + 2 || memcmp(text, JOURNAL_MAGIC, mlen) != 0)
		return -EINVAL;
	version = text[mlen] - '0';
	if ((version != 1 && version != 2) || text[mlen + 1] != '\n')
		return -EINVAL;
	buf = xmalloc(len + 1);
	memcpy(buf, text + mlen + 2, len - mlen - 2);
	buf[len - mlen - 2] = '\0';
	for (char *line = strtok_r(buf, "\n", &save); rc == 0 && line; line = strtok_r(NULL, "\n", &save))
		rc = parse_line(line, version, j);
	free(buf);
	if (rc == 0 && j->pid <= 0)
		rc = -EINVAL;
	if (rc < 0)
		journal_free(j);
	return rc;
}

int journal_read_fd(int fd, struct journal *j)
{
	char *buf = xmalloc(JOURNAL_MAX + 1);
	size_t len = 0;
	int rc = 0;

	memset(j, 0, sizeof(*j));
	while (len <= JOURNAL_MAX) {
		ssize_t n = read(fd, buf + len, JOURNAL_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (rc == 0)
		rc = len > JOURNAL_MAX ? -EFBIG : journal_parse(buf, len, j);
	free(buf);
	return rc;
}

/* Split path into its directory and last component. */
static int split(const char *path, char *dir, char *name)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, PATH_MAX, ".");
		return (size_t)snprintf(name, NAME_MAX + 1, "%s", path) <= NAME_MAX ? 0 : -ENAMETOOLONG;
	}
	if ((size_t)snprintf(dir, PATH_MAX, "%.*s", (int)(slash - path), path) >= PATH_MAX ||
	    (size_t)snprintf(name, NAME_MAX + 1, "%s", slash + 1) > NAME_MAX)
		return -ENAMETOOLONG;
	if (!dir[0])
		snprintf(dir, PATH_MAX, "/");
	return name[0] ? 0 : -EINVAL;
}

int journal_load(const char *path, struct journal *j, char *why, size_t len)
{
	char dir[PATH_MAX], name[NAME_MAX + 1];
	int dfd, fd, rc;

	memset(j, 0, sizeof(*j));
	if ((rc = split(path, dir, name)) < 0)
		return rc;
	if ((rc = journal_open_dir(dir, false, &dfd, why, len)) < 0)
		return rc;
	rc = journal_open_checked(dfd, name, path, &fd, why, len);
	close(dfd);
	if (rc < 0)
		return rc;
	rc = journal_read_fd(fd, j);
	close(fd);
	return rc;
}

int journal_write_at(int dirfd, const char *name, const struct journal *j, int *locked_fd)
{
	char tmp[NAME_MAX + 1], *text = NULL;
	size_t len = 0;
	int fd = -1, rc;

	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= sizeof(tmp))
		return -ENAMETOOLONG;
	if ((rc = journal_format(j, &text, &len)) < 0)
		return rc;
	for (int tries = 0; fd < 0 && tries < 2; tries++) {
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		/* a stale one of a killed process with this name: ours (the
		 * directory is), and unlink never follows a link */
		if (fd < 0 && errno == EEXIST && tries == 0)
			unlinkat(dirfd, tmp, 0);
	}
	rc = fd < 0 ? -errno : 0;
	if (rc == 0 && locked_fd && flock(fd, LOCK_EX | LOCK_NB) < 0)
		rc = -errno;
	/* no fsync: a journal is for a killed benchtop (the page cache
	 * outlives it); after a power cut the processes and the cpufreq
	 * settings it names are gone anyway */
	if (rc == 0)
		rc = journal_write_all(fd, text, len);
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		rc = -errno;
	free(text);
	if (rc < 0 && fd >= 0)
		unlinkat(dirfd, tmp, 0);
	if (rc == 0 && locked_fd) {
		*locked_fd = fd;
	} else if (fd >= 0) {
		close(fd);
	}
	return rc;
}

int journal_save(const char *path, const struct journal *j)
{
	char dir[PATH_MAX], name[NAME_MAX + 1];
	int dfd, rc;

	if ((rc = split(path, dir, name)) < 0)
		return rc;
	if ((rc = journal_open_dir(dir, false, &dfd, NULL, 0)) < 0)
		return rc;
	rc = journal_write_at(dfd, name, j, NULL);
	close(dfd);
	return rc;
}

void journal_free(struct journal *j)
{
	strv_free_n(j->scratch, j->nscratch);
	strv_free_n(j->cgroup, j->ncgroup);
	free(j->roots);
	free(j->pol);
	free(j->pgid);
	free(j->paused);
	memset(j, 0, sizeof(*j));
}

bool journal_owner_alive(const struct journal *j)
{
	unsigned long long st;

	if (kill(j->pid, 0) < 0 && errno != EPERM)
		return false;
	st = journal_proc_starttime(j->pid);
	return j->starttime == 0 || st == 0 || st == j->starttime;
}

bool journal_claim(int fd, const struct journal *j)
{
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return false; /* held: its benchtop (or a --restore) has it */
	if (journal_owner_alive(j)) {
		flock(fd, LOCK_UN);
		return false;
	}
	return true;
}

void journal_policy_path(const struct journal *j, size_t i, char *buf, size_t len)
{
	const struct journal_policy *p = &j->pol[i];
	const char *root = p->root >= 0 && (size_t)p->root < j->nroots ? j->roots[p->root] : "/";

	snprintf(buf, len, "%s/%s", strcmp(root, "/") ? root : "", p->dir);
}

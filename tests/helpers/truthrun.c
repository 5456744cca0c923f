/* truthrun.c - the outside measurement of a command for the truth matrix
 * (tests/e2e/truth.sh): runs argv[1..] and, as their subreaper, waits for
 * every descendant (orphans too), then prints to standard error
 *   truth wall=SECONDS user=SECONDS sys=SECONDS rchar=BYTES wchar=BYTES
 * wall from just before the fork to the last wait4 (CLOCK_MONOTONIC),
 * CPU from wait4's resource use of the whole tree (RUSAGE_CHILDREN) plus
 * truthrun's own from its start on (RUSAGE_SELF less what it had used
 * when main began): what its parent's wait4 will see, but for the time
 * its process spent before its exec (benchtop's set-up of its command's
 * child, which benchtop does not count as the command's).
 * rchar and wchar are what every process of the tree read and wrote with
 * read(2)/write(2) and their kin, whatever the file (pipes included), as
 * the kernel summed them into truthrun's /proc/self/io while it reaped
 * them, less truthrun's own before the fork: an upper bound of the tree's
 * regular-file bytes, and exactly them for a tree that moves nothing
 * else.
 *
 *   cc -o truthrun tests/helpers/truthrun.c
 *   truthrun sh -c 'cp big out' */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* rchar and wchar of /proc/self/io (whole: reaped children included). */
static void self_io(unsigned long long *rchar, unsigned long long *wchar)
{
	char line[128];
	FILE *fp = fopen("/proc/self/io", "r");
	*rchar = *wchar = 0;
	while (fp && fgets(line, sizeof line, fp)) {
		sscanf(line, "rchar: %llu", rchar);
		sscanf(line, "wchar: %llu", wchar);
	}
	if (fp)
		fclose(fp);
}

static double secs(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: truthrun COMMAND [ARG]...\n");
		return 2;
	}
	struct rusage ru, self, self0;
	getrusage(RUSAGE_SELF, &self0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	unsigned long long r0, w0, r1, w1;
	self_io(&r0, &w0);
	double t0 = mono();
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	int st, rc = 0;
	pid_t p;
	while ((p = wait(&st)) > 0 || (p < 0 && errno == EINTR))
		if (p == pid)
			rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	double wall = mono() - t0;
	self_io(&r1, &w1);
	getrusage(RUSAGE_CHILDREN, &ru);
	getrusage(RUSAGE_SELF, &self);
	fprintf(stderr, "truth wall=%.6f user=%.6f sys=%.6f rchar=%llu wchar=%llu\n", wall,
	        secs(ru.ru_utime) + secs(self.ru_utime) - secs(self0.ru_utime),
	        secs(ru.ru_stime) + secs(self.ru_stime) - secs(self0.ru_stime),
	        r1 - r0, w1 - w0);
	return rc;
}

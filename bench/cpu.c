/* cpu.c - what one command costs, with microseconds where GNU time
 * prints hundredths:
 *
 *   cpu [-l N] OUT CMD [ARG]...
 *
 * runs CMD and writes one line "wall_s cpu_s maxrss_kib first_s status"
 * to OUT once it has ended: wall-clock seconds from just before the fork
 * to its exit, user + system seconds of CMD and every child it waited
 * for, its peak resident set, and with -l N the seconds until the N-th
 * line of its standard output arrived (CMD's output is read through a
 * pipe and passed on; -1 without -l or when fewer lines came).  status
 * is the exit status, or 128 + the signal that ended it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchtop/clock.h"
#include "timing.h"

/* Pass the child's output on, noting when line `want` arrived. */
static double relay(int fd, int want, double t0)
{
	char buf[65536];
	int lines = 0;
	double first = -1;
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n && first < 0; i++)
			if (buf[i] == '\n' && ++lines == want)
				first = clock_mono() - t0;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(STDOUT_FILENO, buf + off, (size_t)(n - off));
			if (w <= 0)
				break;
			off += w;
		}
	}
	return first;
}

int main(int argc, char **argv)
{
	int want = 0, a = 1;
	if (argc > 2 && !strcmp(argv[1], "-l")) {
		want = atoi(argv[2]);
		a = 3;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: cpu [-l N] OUT CMD [ARG]...\n");
		return 2;
	}
	const char *out = argv[a];
	int pfd[2] = { -1, -1 };
	if (want > 0 && pipe(pfd) < 0)
		return 1;
	double t0 = clock_mono();
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		if (want > 0) {
			dup2(pfd[1], STDOUT_FILENO);
			close(pfd[0]);
			close(pfd[1]);
		}
		execvp(argv[a + 1], argv + a + 1);
		_exit(127);
	}
	double first = -1;
	if (want > 0) {
		close(pfd[1]);
		first = relay(pfd[0], want, t0);
		close(pfd[0]);
	}
	int st;
	struct rusage ru;
	if (timing_wait(pid, &st, &ru))
		return 1;
	double wall = clock_mono() - t0;
	FILE *f = fopen(out, "w");
	if (!f)
		return 1;
	fprintf(f, "%.6f %.6f %ld %.6f %d\n", wall, timing_cpu(&ru),
	        ru.ru_maxrss, first, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return fclose(f) ? 1 : 0;
}

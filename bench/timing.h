/* timing.h - what the bench tools time with: CPU seconds of a rusage, of
 * the tool itself, and of one command run to its end.  Static inline so
 * each tool stays a single file to compile; wall time is the project's
 * clock_mono (src/base/clock.c). */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* user + system seconds of ru */
static inline double timing_cpu(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
	       (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/* the calling process's own CPU seconds so far */
static inline double timing_self(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return timing_cpu(&ru);
}

/* Wait for pid (through EINTR); its status and rusage into *st, *ru.
 * Returns 0, or -1 when it could not be waited for. */
static inline int timing_wait(pid_t pid, int *st, struct rusage *ru)
{
	while (wait4(pid, st, 0, ru) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* Run argv with its standard output to /dev/null; its CPU seconds into
 * *cpu.  Returns 0 when it exited 0, else -1. */
static inline int timing_cmd_quiet(char *const *argv, double *cpu)
{
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (timing_wait(p, &st, &ru))
		return -1;
	*cpu = timing_cpu(&ru);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

#endif

/* tick.c - what one sampler tick costs, and whether ticks keep time.
 *
 *   tick cost N TICKS     N sleeping children tracked; CPU us per tick
 *                         (getrusage over TICKS ticks)
 *   tick callgrind N TICKS  the same, meant to run under
 *                         valgrind --tool=callgrind --toggle-collect=sampler_tick
 *   tick top REFRESHES    CPU us per refresh of `top -b -d 0.1`
 *   tick schedule SECONDS ticks on an absolute 0.1 s timerfd; samples/s
 *   tick top1 N           CPU us of one `top -b -n 1` while N sleepers live
 *   tick membw            memcpy bandwidth as benchtop measures it (once per boot)
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/clock.h"
#include "benchtop/membw.h"
#include "benchtop/model.h"
#include "benchtop/sample.h"
#include "timing.h"

static pid_t *spawn_sleepers(int n)
{
	pid_t *pids = calloc((size_t)n, sizeof *pids);
	for (int i = 0; pids && i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			pause();
			_exit(0);
		}
	}
	return pids;
}

static void reap(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	free(pids);
}

struct rig {
	struct sampler *sp;
	struct snapshot *s;
	pid_t *pids;
	int n;
};

static int rig_open(struct rig *r, int n)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r->n = n;
	r->sp = sampler_new("/proc", ncpu, 1);
	r->s = snapshot_new(ncpu, n, 1);
	r->pids = spawn_sleepers(n);
	if (!r->sp || !r->s || !r->pids)
		return -1;
	for (int i = 0; i < n; i++)
		sampler_add(r->sp, r->pids[i], 1, "cmd", true);
	sampler_watch_path(r->sp, "/var/tmp");
	usleep(100000);  /* let the children reach pause() */
	for (int i = 0; i < 3; i++)
		sampler_tick(r->sp, r->s, clock_mono());  /* first looks read everything */
	return 0;
}

static void rig_close(struct rig *r)
{
	reap(r->pids, r->n);
	sampler_free(r->sp);
	snapshot_free(r->s);
}

static int cost(int n, int ticks)
{
	struct rig r;
	if (rig_open(&r, n))
		return 1;
	double c0 = timing_self();
	for (int i = 0; i < ticks; i++)
		sampler_tick(r.sp, r.s, clock_mono());
	double us = (timing_self() - c0) * 1e6 / ticks;
	printf("procs=%d ticks=%d cpu_us_per_tick=%.1f tracked=%d\n", n, ticks, us, r.s->nproc);
	rig_close(&r);
	return 0;
}

static int top(int refreshes)
{
	char nbuf[16];
	snprintf(nbuf, sizeof nbuf, "%d", refreshes);
	char *argv[] = { "top", "-b", "-d", "0.1", "-n", nbuf, NULL };
	double cpu;
	if (timing_cmd_quiet(argv, &cpu))
		return 1;
	printf("top refreshes=%d cpu_us_per_refresh=%.1f\n", refreshes, cpu * 1e6 / refreshes);
	return 0;
}

/* One whole `top -b -n 1` (start-up included) while n sleepers live: the
 * machine's processes, these n among them, read once. */
static int top1(int n)
{
	pid_t *pids = spawn_sleepers(n);
	if (!pids)
		return 1;
	usleep(100000);
	char *argv[] = { "top", "-b", "-n", "1", NULL };
	double cpu = 0;
	int rc = timing_cmd_quiet(argv, &cpu) ? 1 : 0;
	printf("top -b -n 1 with %d sleepers: cpu_us_top_n1=%.1f\n", n, cpu * 1e6);
	reap(pids, n);
	return rc;
}

/* Absolute deadlines: a late tick does not push the next ones back. */
static int schedule(int seconds)
{
	struct rig r;
	if (rig_open(&r, 16))
		return 1;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	struct itimerspec its = { .it_interval = { 0, 100000000 }, .it_value = now };
	its.it_value.tv_nsec += 100000000;
	if (its.it_value.tv_nsec >= 1000000000) {
		its.it_value.tv_sec++;
		its.it_value.tv_nsec -= 1000000000;
	}
	if (fd < 0 || timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
		return 1;
	double t0 = clock_mono();
	int ticks = 0;
	while (clock_mono() - t0 < seconds - 0.05) {
		uint64_t exp;
		if (read(fd, &exp, sizeof exp) != sizeof exp)
			return 1;
		ticks += (int)exp;  /* expirations missed still count as due */
		sampler_tick(r.sp, r.s, clock_mono());
	}
	printf("schedule seconds=%d ticks=%d samples_per_s=%.2f\n", seconds, ticks,
	       ticks / (double)seconds);
	close(fd);
	rig_close(&r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && (!strcmp(argv[1], "cost") || !strcmp(argv[1], "callgrind")))
		return cost(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "top"))
		return top(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "schedule"))
		return schedule(atoi(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "top1"))
		return top1(atoi(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "membw")) {
		double bw = membw_measure();
		printf("memcpy_bps=%.0f (%.1f GiB/s)\n", bw, bw / (1 << 30));
		return 0;
	}
	fprintf(stderr, "usage: tick cost|callgrind N TICKS | top REFRESHES | schedule SECONDS\n");
	return 2;
}

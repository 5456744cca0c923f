/* fake_kernel.c - tests/fake_kernel.sh's kernel, in one process: for a
 * fake sysfs tree made by tests/fakesys.sh, every 100 ms and for each
 * policy, the row its governor implies (performance: the highest frequency
 * within scaling_max_freq, powersave: the lowest within scaling_min_freq,
 * any other: the middle one) gains the time gone by since the last step
 * (time_in_state counts 10 ms units), and scaling_cur_freq is set to it.
 * Files are replaced by rename, as a reader never sees half of one.  Runs
 * until killed, for SECONDS (0: no end), or until ROOT is removed.  No
 * process is started per step: a busy machine delays a step, and the
 * time it was late is counted where it belongs.
 *
 * usage: fake_kernel ROOT [SECONDS] */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAXF 64
#define MAXP 256

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return 0;
}

static long long num(const char *s, long long dflt)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	return end != s && (*end == 0 || *end == '\n') && v >= 0 ? v : dflt;
}

static void put(const char *dir, const char *name, const char *text)
{
	char tmp[PATH_MAX], p[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fputs(text, f);
	if (fclose(f) == 0)
		rename(tmp, p);
}

/* One step of one policy directory; units: 10 ms gone by. */
static void tick(const char *d, long long units)
{
	char buf[8192], gov[64] = "";
	long long khz[MAXF], val[MAXF];
	int n = 0, stats = 0;

	if (read_line(d, "scaling_governor", gov, sizeof gov) == 0)
		gov[strcspn(gov, "\n")] = 0;
	long long lo = read_line(d, "scaling_min_freq", buf, sizeof buf) ? 0 : num(buf, 0);
	long long hi = read_line(d, "scaling_max_freq", buf, sizeof buf) ? 999999999 : num(buf, 999999999);
	if (read_line(d, "stats/time_in_state", buf, sizeof buf) == 0) {
		stats = 1;
		for (char *line = strtok(buf, "\n"); line && n < MAXF; line = strtok(NULL, "\n")) {
			char *sp = strchr(line, ' ');
			if (!sp)
				return;
			*sp = 0;
			khz[n] = num(line, -1), val[n] = num(sp + 1, -1);
			if (khz[n] < 0 || val[n] < 0)
				return;
			n++;
		}
	} else if (read_line(d, "scaling_available_frequencies", buf, sizeof buf) == 0) {
		for (char *w = strtok(buf, " \n"); w && n < MAXF; w = strtok(NULL, " \n"))
			khz[n++] = num(w, 0);
	} else {
		return;
	}
	int sel[MAXF], ns = 0;
	for (int i = 0; i < n; i++)
		if (khz[i] >= lo && khz[i] <= hi)
			sel[ns++] = i;
	if (ns == 0)
		return;
	int pick = !strcmp(gov, "performance") ? sel[ns - 1] : !strcmp(gov, "powersave") ? sel[0] : sel[ns / 2];
	if (stats) {
		char out[8192];
		size_t k = 0;
		val[pick] += units;
		for (int i = 0; i < n && k < sizeof out; i++)
			k += (size_t)snprintf(out + k, sizeof out - k, "%lld %lld\n", khz[i], val[i]);
		char sd[PATH_MAX];
		snprintf(sd, sizeof sd, "%s/stats", d);
		put(sd, "time_in_state", out);
	}
	snprintf(buf, sizeof buf, "%lld\n", khz[pick]);
	put(d, "scaling_cur_freq", buf);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fake_kernel ROOT [SECONDS]\n");
		return 2;
	}
	double secs = argc == 3 ? atof(argv[2]) : 0;
	char base[PATH_MAX], p[PATH_MAX];
	static char dirs[MAXP][PATH_MAX];
	int nd = 0;
	struct stat st;

	snprintf(base, sizeof base, "%s/devices/system/cpu", argv[1]);
	/* real policy directories: policyN, or per-CPU ones that are not links */
	const char *where[] = { "cpufreq", "" };
	for (int w = 0; w < 2; w++) {
		snprintf(p, sizeof p, "%s/%s", base, where[w]);
		DIR *dp = opendir(p);
		if (!dp)
			continue;
		struct dirent *e;
		while ((e = readdir(dp)) && nd < MAXP) {
			char d[PATH_MAX];
			if (w == 0 && !strncmp(e->d_name, "policy", 6))
				snprintf(d, sizeof d, "%s/cpufreq/%s", base, e->d_name);
			else if (w == 1 && !strncmp(e->d_name, "cpu", 3) && e->d_name[3] >= '0' && e->d_name[3] <= '9')
				snprintf(d, sizeof d, "%s/%s/cpufreq", base, e->d_name);
			else
				continue;
			if (lstat(d, &st) == 0 && S_ISDIR(st.st_mode))
				snprintf(dirs[nd++], PATH_MAX, "%s", d);
		}
		closedir(dp);
	}
	/* the first step counts one period, as every later one does */
	double start = now(), last = start - 0.1, carry = 0;
	while (secs <= 0 || now() - start < secs) {
		if (stat(base, &st) != 0)
			return 0;
		double t = now();
		carry += (t - last) * 100;   /* 10 ms units gone by */
		last = t;
		long long units = (long long)carry;
		carry -= (double)units;
		for (int i = 0; i < nd; i++)
			tick(dirs[i], units);
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	}
	return 0;
}

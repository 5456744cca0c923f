/* fake_kernel ROOT [SECONDS]: play the kernel for a fake sysfs tree made by
 * tests/fakesys.sh.  Every 100 ms, for each policy, add 10 (time_in_state
 * counts 10 ms units) to the row its governor implies - performance: the
 * highest frequency within scaling_max_freq, powersave: the lowest within
 * scaling_min_freq, any other: the middle one - and set scaling_cur_freq to
 * it.  A tick that comes late (a busy machine) adds the ticks it missed,
 * at most five, so the tree's time keeps up with the clock.  Runs until
 * killed, for SECONDS (0: no end), or until ROOT is removed.
 *
 * One small process in place of a shell loop that forked five programs a
 * tick: under a load of dozens of runnable tasks it still ticks on time.
 * Files are replaced by rename, as a reader must never see half of one. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAXROWS 64
#define MAXPOL 512

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static long read_num(const char *dir, const char *name, long def)
{
	char b[64], *end;
	if (read_line(dir, name, b, sizeof b))
		return def;
	long v = strtol(b, &end, 10);
	return end != b ? v : def;
}

static int replace(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX], t[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	snprintf(t, sizeof t, "%s/.%s.fk", dir, strrchr(name, '/') ? strrchr(name, '/') + 1 : name);
	FILE *f = fopen(t, "w");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f))
		return -1;
	return rename(t, p);
}

/* One tick of n steps for the policy directory d. */
static void tick(const char *d, int steps)
{
	char gov[64] = "", path[PATH_MAX];
	long khz[MAXROWS], val[MAXROWS];
	int n = 0, stats = 0;
	read_line(d, "scaling_governor", gov, sizeof gov);
	long lo = read_num(d, "scaling_min_freq", 0), hi = read_num(d, "scaling_max_freq", 999999999);
	snprintf(path, sizeof path, "%s/stats/time_in_state", d);
	FILE *f = fopen(path, "r");
	if (f) {
		stats = 1;
		while (n < MAXROWS && fscanf(f, "%ld %ld", &khz[n], &val[n]) == 2)
			n++;
		fclose(f);
	} else {
		snprintf(path, sizeof path, "%s/scaling_available_frequencies", d);
		f = fopen(path, "r");
		if (!f)
			return;
		while (n < MAXROWS && fscanf(f, "%ld", &khz[n]) == 1)
			val[n++] = 0;
		fclose(f);
	}
	int sel[MAXROWS], ns = 0;
	for (int i = 0; i < n; i++)
		if (khz[i] >= lo && khz[i] <= hi)
			sel[ns++] = i;
	if (!ns)
		return;
	int pick = !strcmp(gov, "performance") ? sel[ns - 1] : !strcmp(gov, "powersave") ? sel[0] : sel[ns / 2];
	char buf[MAXROWS * 48];
	if (stats) {
		val[pick] += 10L * steps;
		size_t k = 0;
		for (int i = 0; i < n; i++)
			k += (size_t)snprintf(buf + k, sizeof buf - k, "%ld %ld\n", khz[i], val[i]);
		replace(d, "stats/time_in_state", buf);
	}
	snprintf(buf, sizeof buf, "%ld\n", khz[pick]);
	replace(d, "scaling_cur_freq", buf);
}

/* Real policy directories: policyN, or per-CPU dirs that are not links. */
static int policy_dirs(const char *base, char **out)
{
	int n = 0;
	char p[PATH_MAX];
	struct dirent *e;
	snprintf(p, sizeof p, "%s/cpufreq", base);
	DIR *dp = opendir(p);
	while (dp && (e = readdir(dp)) && n < MAXPOL)
		if (!strncmp(e->d_name, "policy", 6)) {
			char *d = malloc(PATH_MAX);
			snprintf(d, PATH_MAX, "%s/%s", p, e->d_name);
			out[n++] = d;
		}
	if (dp)
		closedir(dp);
	dp = opendir(base);
	while (dp && (e = readdir(dp)) && n < MAXPOL) {
		struct stat st;
		if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
			continue;
		char *d = malloc(PATH_MAX);
		snprintf(d, PATH_MAX, "%s/%s/cpufreq", base, e->d_name);
		if (lstat(d, &st) == 0 && S_ISDIR(st.st_mode))
			out[n++] = d;
		else
			free(d);
	}
	if (dp)
		closedir(dp);
	return n;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fake_kernel ROOT [SECONDS]\n");
		return 2;
	}
	char base[PATH_MAX];
	snprintf(base, sizeof base, "%s/devices/system/cpu", argv[1]);
	double secs = argc > 2 ? atof(argv[2]) : 0;
	static char *dirs[MAXPOL];
	int nd = policy_dirs(base, dirs);
	double t0 = now(), next = t0;
	while (secs <= 0 || now() - t0 < secs) {
		if (access(base, F_OK))
			return 0;
		double t = now();
		int steps = 1;
		if (t > next + 0.1) {
			steps = 1 + (int)((t - next) / 0.1);
			if (steps > 5)
				steps = 5;
			next = t;
		}
		for (int i = 0; i < nd; i++)
			tick(dirs[i], steps);
		next += 0.1;
		double wait = next - now();
		if (wait > 0) {
			struct timespec ts = { 0, (long)(wait * 1e9) };
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
	}
	return 0;
}

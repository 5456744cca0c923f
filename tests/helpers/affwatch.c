/* affwatch - watch the CPU affinity of processes as the kernel reports it.
 *
 * usage: affwatch PID...
 *
 * Every 10 ms it reads Cpus_allowed_list of every task of every PID from
 * /proc/PID/task/TID/status and prints a line whenever the view changes:
 * one word per PID, that PID's list if all its tasks share it, "mixed"
 * if they differ, "gone" once the PID has ended.  It exits when every
 * PID is gone.  No fork, no shell: a poll that stays quick on a busy
 * machine, so a test sees every state a run goes through.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int task_list(const char *pid, const char *tid, char *out, size_t len)
{
	char path[320], line[512];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof path, "/proc/%s/task/%s/status", pid, tid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
			char *v = line + 18;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, len, "%s", v);
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}

/* pid_word: the word for one PID; returns 0 once it is gone. */
static int pid_word(const char *pid, char *out, size_t len)
{
	char path[64], one[256];
	DIR *d;
	struct dirent *e;
	int n = 0, mixed = 0;

	snprintf(path, sizeof path, "/proc/%s/task", pid);
	d = opendir(path);
	if (d == NULL) {
		snprintf(out, len, "gone");
		return 0;
	}
	out[0] = '\0';
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (!task_list(pid, e->d_name, one, sizeof one))
			continue;
		if (n++ == 0)
			snprintf(out, len, "%s", one);
		else if (strcmp(out, one) != 0)
			mixed = 1;
	}
	closedir(d);
	if (n == 0) {
		snprintf(out, len, "gone");
		return 0;
	}
	if (mixed)
		snprintf(out, len, "mixed");
	return 1;
}

int main(int argc, char **argv)
{
	char last[4096] = "", now[4096];
	struct timespec t0, t, nap = { 0, 10 * 1000 * 1000 };

	if (argc < 2) {
		fprintf(stderr, "usage: affwatch PID...\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		size_t used = 0;
		int alive = 0;

		now[0] = '\0';
		for (int i = 1; i < argc; i++) {
			char w[256];
			alive += pid_word(argv[i], w, sizeof w);
			used += (size_t)snprintf(now + used, sizeof now - used, "%s%s",
						 i > 1 ? " " : "", w);
			if (used >= sizeof now)
				used = sizeof now - 1;
		}
		if (strcmp(now, last) != 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			printf("%.3f %s\n", (double)(t.tv_sec - t0.tv_sec) +
			       (double)(t.tv_nsec - t0.tv_nsec) / 1e9, now);
			fflush(stdout);
			snprintf(last, sizeof last, "%s", now);
		}
		if (alive == 0)
			return 0;
		nanosleep(&nap, NULL);
	}
}

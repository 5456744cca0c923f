/* ptree.c - process facts from /proc/PID/stat (see ptree.h). */
#include "benchtop/ptree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchtop/xalloc.h"

/* The fields after comm in /proc/PID/stat ("S 1 ..."), in buf. */
static const char *stat_fields(pid_t pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	const char *p = strrchr(buf, ')'); /* comm may hold anything */
	return p ? p + 1 : NULL;
}

pid_t ptree_parent(pid_t pid)
{
	char buf[1024];
	const char *f = stat_fields(pid, buf, sizeof buf);
	int ppid;
	return f && sscanf(f, " %*c %d", &ppid) == 1 ? ppid : -1;
}

char ptree_state(pid_t pid)
{
	char buf[1024], st;
	const char *f = stat_fields(pid, buf, sizeof buf);
	return f && sscanf(f, " %c", &st) == 1 ? st : 0;
}

void ptree_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	buf[0] = 0;
	if (len < 4)
		return;
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = 0;
		while (n > 0 && buf[n - 1] == 0)
			n--;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == 0)
				buf[i] = ' ';
		return;
	}
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	char comm[32] = "";
	n = fd >= 0 ? read(fd, comm, sizeof comm - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		comm[n] = 0;
		comm[strcspn(comm, "\n")] = 0;
		snprintf(buf, len, "[%s]", comm);
	}
}

#define PF_KTHREAD 0x00200000u

bool ptree_is_kernel_thread(pid_t pid)
{
	char buf[1024];
	unsigned flags;
	const char *f = stat_fields(pid, buf, sizeof buf);
	/* state ppid pgrp session tty_nr tpgid flags */
	return f && sscanf(f, " %*c %*d %*d %*d %*d %*d %u", &flags) == 1 && (flags & PF_KTHREAD);
}

int ptree_signal_descendants(pid_t ancestor, int sig)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	size_t n = 0, cap = 0;
	pid_t (*pp)[2] = NULL;  /* pid, parent */
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			pp = xreallocarray(pp, cap, sizeof *pp);
		}
		pp[n][0] = (pid_t)pid;
		pp[n][1] = ptree_parent((pid_t)pid);
		n++;
	}
	closedir(d);
	int sent = 0;
	for (size_t i = 0; i < n; i++) {
		/* walk up: is ancestor among its forebears? */
		pid_t p = pp[i][1];
		for (int depth = 0; p > 1 && p != ancestor && depth < 4096; depth++) {
			pid_t up = -1;
			for (size_t k = 0; k < n && up < 0; k++)
				if (pp[k][0] == p)
					up = pp[k][1];
			p = up;
		}
		if (p == ancestor && kill(pp[i][0], sig) == 0)
			sent++;
	}
	free(pp);
	return sent;
}

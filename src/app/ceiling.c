/* ceiling.c - the memcpy ceiling, cached per boot (see ceiling.h). */
#include "benchtop/ceiling.h"
#include "benchtop/journal.h"
#include "benchtop/membw.h"

#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CEILING_FILE "memcpy"

double ceiling_cached(void)
{
	char dir[PATH_MAX], boot[64], text[160], id[64];
	int dfd, fd;
	double bps = 0;

	if (journal_dir_path(dir, sizeof dir) < 0 || journal_boot_id(boot, sizeof boot) < 0)
		return 0;
	if (journal_open_dir(dir, false, &dfd, NULL, 0) < 0)
		return 0;
	if (journal_open_checked(dfd, CEILING_FILE, CEILING_FILE, &fd, NULL, 0) == 0) {
		ssize_t n = read(fd, text, sizeof text - 1);
		close(fd);
		if (n > 0) {
			text[n] = '\0';
			if (sscanf(text, "%63s %lf", id, &bps) != 2 || strcmp(id, boot) || !(bps > 0) ||
			    bps > 1e15)
				bps = 0;
		}
	}
	close(dfd);
	return bps;
}

/* Write the ceiling beside the journals: a new file made O_EXCL and
 * renamed over the old one, so a reader never sees half of it. */
static void ceiling_save(double bps)
{
	char dir[PATH_MAX], boot[64], tmp[64], text[160];
	int dfd, fd;

	if (journal_dir_path(dir, sizeof dir) < 0 || journal_boot_id(boot, sizeof boot) < 0)
		return;
	if (journal_open_dir(dir, true, &dfd, NULL, 0) < 0)
		return;
	snprintf(tmp, sizeof tmp, ".%s.%ld.tmp", CEILING_FILE, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		int n = snprintf(text, sizeof text, "%s %.0f\n", boot, bps);
		bool good = write(fd, text, (size_t)n) == n;
		if (close(fd) < 0 || !good || renameat(dfd, tmp, dfd, CEILING_FILE) < 0)
			unlinkat(dfd, tmp, 0);
	}
	close(dfd);
}

double ceiling_measure(void)
{
	double bps = membw_measure();
	if (bps > 0)
		ceiling_save(bps);
	return bps;
}

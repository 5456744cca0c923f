/* holdfiles.c - a test workload holding many files open while it writes:
 * opens N files in DIR (created empty, read-only descriptors), then
 * writes BYTES to OUT in 64 KiB writes, 2 ms apart, then exits.  With
 * HOLE, each write is followed by a seek HOLE bytes forward: a sparse OUT
 * whose data is BYTES.
 *
 *   cc -o holdfiles tests/helpers/holdfiles.c
 *   holdfiles 4000 DIR OUT 8000000 [HOLE] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: holdfiles N DIR OUT BYTES [HOLE]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	long long left = atoll(argv[4]);
	off_t hole = argc == 6 ? (off_t)atoll(argv[5]) : 0;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max : (rlim_t)n + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	char path[4096];
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/held.%d", argv[2], i);
		if (open(path, O_RDONLY | O_CREAT, 0644) < 0) {
			perror(path);
			return 1;
		}
	}
	int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[3]);
		return 1;
	}
	static char buf[65536];
	memset(buf, 'x', sizeof buf);
	while (left > 0) {
		size_t k = left < (long long)sizeof buf ? (size_t)left : sizeof buf;
		if (write(fd, buf, k) != (ssize_t)k)
			return 1;
		left -= (long long)k;
		if (hole > 0 && lseek(fd, hole, SEEK_CUR) < 0)
			return 1;
		usleep(2000);
	}
	return close(fd) == 0 ? 0 : 1;
}

/* recording_input.h - the set-up the recording harnesses share: the
 * fuzzer's input as a regular file (a memfd, opened by path as --replay
 * and --report open theirs), loaded as a recording.  An input that does
 * not load must say why. */
#ifndef FUZZ_RECORDING_INPUT_H
#define FUZZ_RECORDING_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "benchtop/recording.h"

/* The recording DATA holds, or NULL when it is not one (with a reason). */
static struct recording *load_input(const uint8_t *data, size_t size)
{
	char path[64], err[512] = "";
	struct recording *rec = NULL;
	int fd = memfd_create("fuzz.jsonl", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	int rc = recording_load(path, &rec, err, sizeof err);
	close(fd);
	if (rc != 0 && !err[0])
		abort();
	return rc == 0 ? rec : NULL;
}

#endif

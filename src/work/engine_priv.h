/* engine_priv.h - what the two halves of benchtop's engine module share:
 * engine.c (roles, files, engine_prepare, cleanup) and engine_child.c
 * (counters, the child processes, spawning).  Not part of any other
 * module's contract. */
#ifndef BENCHTOP_ENGINE_PRIV_H
#define BENCHTOP_ENGINE_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include "benchtop/engine.h"

/* The block size a workload's I/O uses: its bs=, else 128 KiB. */
size_t engine_spec_bs(const struct wl_spec *w);

/* Fill fd with size bytes of a non-repeating pattern; counts into c when
 * given.  Returns 0 or an errno. */
int engine_fill_fd(int fd, uint64_t size, struct engine_counters *c);

#endif

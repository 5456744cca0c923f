/* journal_impl.h - what journal.c and journal_run.c share and nothing
 * else sees. */
#ifndef BENCHTOP_JOURNAL_IMPL_H
#define BENCHTOP_JOURNAL_IMPL_H

#include "benchtop/journal.h"

int journal_write_all(int fd, const char *s, size_t n);
/* Write j as dirfd/name (temporary file, O_EXCL|O_NOFOLLOW, rename); with
 * locked_fd, the new file is locked (flock LOCK_EX) and left open there. */
int journal_write_at(int dirfd, const char *name, const struct journal *j, int *locked_fd);
int journal_add_root(struct journal *j, const char *path);
int journal_add_policy(struct journal *j, const struct journal_policy *p);
int journal_add_string(char ***arr, size_t *n, const char *s);
int journal_add_proc(struct journal_proc **arr, size_t *n, pid_t pid, unsigned long long st);
/* The owner's pid runs with the recorded start time. */
bool journal_owner_alive(const struct journal *j);

#endif

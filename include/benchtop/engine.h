/* engine.h - benchtop's own I/O workloads (copy, write, read, seek).
 *
 * Lifecycle, in the parent: engine_prepare() checks the spec against the
 * file system (exists? --force? free space? O_DIRECT possible?) and makes
 * the files benchtop invents in its scratch directory; engine_plan() says
 * how many child processes an instance needs and their roles; the parent
 * forks one child per role and calls engine_child() in it; the child
 * reports progress through its shared counter block (struct engine_counters,
 * in MAP_SHARED memory made by engine_counters_new) and _exit()s with
 * 0 or 1.  engine_cleanup() removes what engine_prepare() made (unless keep)
 * and, for a failed instance, the partial output it wrote. */
#ifndef BENCHTOP_ENGINE_H
#define BENCHTOP_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "benchtop/cli.h"

/* Written by one child, read by the sampler.  Plain aligned 64-bit stores
 * and loads (relaxed atomics); the sampler tolerates a torn phase change. */
struct engine_counters {
	uint64_t bytes;      /* bytes done on the destination side (written; read for read/seek) */
	uint64_t rbytes;     /* bytes read (source side) */
	uint64_t calls;      /* system calls (or stdio calls for unit=char) */
	int32_t err;         /* errno of the failure, 0 while fine */
	int32_t phase;       /* 0 running, 1 rewrite phase, 2 syncing, 3 done */
	double phase_t[4];   /* CLOCK_MONOTONIC seconds at which each phase began */
	char msg[160];       /* failure text for the user, "" while fine */
	double phase_user[4];    /* the marking process's user and sys CPU seconds */
	double phase_sys[4];     /* when each phase began */
	uint64_t phase_calls[4]; /* value of calls when each phase began */
	uint64_t phase_bytes[4]; /* value of bytes when each phase began (rewrite: the
	                          * write row is phase_bytes[1] - phase_bytes[0] over
	                          * phase_t[1] - phase_t[0], the rewrite row the rest) */
	uint32_t done;       /* futex word: 1 once the job's writer (or its only
	                      * process) finished or any process failed; the pipe
	                      * engine's control process sleeps on it */
	uint64_t passes;     /* complete passes over the job's file (a looping
	                      * engine starts the next one at offset 0) */
};

/* Allocate n zeroed counter blocks in shared memory (survive fork). */
struct engine_counters *engine_counters_new(int n);
void engine_counters_free(struct engine_counters *c, int n);

/* Roles of the processes of one instance.  A one-process copy is ROLE_MAIN
 * ("copier"); write is one ROLE_WRITER, read one ROLE_READER, seek `seekers`
 * ROLE_SEEKERs, copy engine=pipe READER + WRITER (+ CONTROL with procs=3),
 * net a RECEIVER (writes the file) and a SENDER (streams over loopback TCP). */
enum engine_role { ROLE_MAIN, ROLE_READER, ROLE_WRITER, ROLE_CONTROL, ROLE_SEEKER, ROLE_RECEIVER,
                   ROLE_SENDER };
const char *engine_role_name(enum engine_role r);   /* "copier", "reader", ... */

/* Files of one instance (one job), filled by engine_prepare. */
struct engine_job {
	char *src;           /* file read (copy src, read/seek path) */
	char *dst;           /* file written (copy dst, write file) */
	bool dst_invented;   /* dst is benchtop's own (removed at exit unless keep) */
	bool src_invented;
};

#define ENGINE_MAX_ROLES 64   /* processes per job (seek: seekers) */

/* Everything engine_prepare decided for one workload. */
struct engine_plan {
	int jobs;
	struct engine_job *job;      /* jobs entries */
	int nroles;                  /* processes per job */
	enum engine_role roles[ENGINE_MAX_ROLES];
	/* Loop inside the processes: after each pass over the file, the same
	 * processes start again at offset 0 (a writer of the same destination,
	 * a reader of the same source) until they are stopped.  Set by the
	 * caller before spawning (--loop, the default workload). */
	bool loop;
};

/* Forget what earlier engine_prepare calls will write: call once before
 * the workloads of a run are prepared (their needs on one file system add
 * up until then). */
void engine_space_reset(void);
/* Check and prepare workload w.
 *
 * Files: a copy without dst, a write without path and a read/seek without
 * path work in scratch; a dst or path naming a directory gets a file
 * invented inside it (O_EXCL, removed at exit unless keep); a dst or write
 * path naming a file is the user's result and stays.  With jobs=N > 1 a
 * user-named result file PATH becomes PATH.1 .. PATH.N.  A copy without src
 * (the default workload) gets one invented source per job (w->size, else
 * 1 GiB capped so that sources and copies leave 5% free, never below 4 MiB);
 * read/seek of a directory or of nothing likewise.  Invented sources are
 * filled with a non-repeating pattern.  Every file written is created here
 * (O_EXCL; with force an existing one is unlinked first) and truncated by
 * the child.  direct needs bs to be a multiple of 512.  scratch is benchtop's scratch directory
 * (created by the caller).  Returns 0, or a negative errno with a message
 * naming the path and what would be accepted: -EEXIST (dst exists, no
 * --force), -ENOSPC (less than 5% would stay free; the message says how
 * much was needed), -EINVAL (O_DIRECT refused by the file system: the
 * message names it), other -errno. */
int engine_prepare(const struct wl_spec *w, const char *scratch, bool force,
                   struct engine_plan *plan, char *msg, size_t len);

/* Run role r of job j of workload w in this (child) process; never returns.
 * pipefd is the job's pipe for engine=pipe (reader writes pipefd[1], writer
 * reads pipefd[0]; each closes the other end; control closes both), for
 * net pipefd[0] is the listening socket (engine_net_listen), else
 * ignored (may be NULL).  Every role asks for SIGKILL when its parent dies.
 * Exit 0 done, 1 failed with c->err and c->msg set.  The control process of
 * procs=3 sleeps on c->done and exits 0 when the writer finished or a
 * process failed; if the writer is killed by a signal nobody sets done, so
 * the parent must then kill the control process (it kills the instance). */
_Noreturn void engine_child(const struct wl_spec *w, const struct engine_plan *plan,
                            int j, int r, struct engine_counters *c, int pipefd[2]);

/* After the instance ended: remove invented files (unless keep) and, if
 * failed, an invented partial destination; a dst the user named stays. */
void engine_cleanup(const struct wl_spec *w, struct engine_plan *plan, bool failed, bool keep);
/* The instance never ran: remove every file engine_prepare made, the
 * (empty) dst the user named included. */
void engine_unmake(struct engine_plan *plan);
void engine_plan_free(struct engine_plan *plan);

/* The default workload's source: a file of up to 1 GiB (smaller when free
 * space is short) made with O_EXCL inside scratch.  Returns 0 and sets
 * *path (malloc'd), or -errno with a message. */
int engine_make_source(const char *scratch, uint64_t want, char **path, char *msg, size_t len);
/* The size engine_make_source would choose (1 GiB or what fits), or
 * -ENOSPC with a message. */
int engine_source_size(const char *scratch, uint64_t want, uint64_t *size, char *msg, size_t len);
/* In a child: fill the existing file path with size bytes of the source
 * pattern, counting into c; _exit(0), or _exit(1) with c->err/msg. */
_Noreturn void engine_fill_child(const char *path, uint64_t size, struct engine_counters *c);

/* net: a listening TCP socket on 127.0.0.1 (any port) with TCP_MAXSEG set
 * to w's mss, for one job's sender and receiver.  The fd, or -errno. */
int engine_net_listen(const struct wl_spec *w);

/* Convenience for the parent: fork the nroles processes of job j (making
 * and closing the pipe for engine=pipe), calling hook(arg, role) in each
 * child first when hook is not NULL (e.g. to set affinity).  Fills
 * pids[0..plan->nroles).  Returns 0 or -errno (then no child is left). */
typedef void (*engine_hook)(void *arg, enum engine_role role);
/* Start job j of w as above (see the paragraph before engine_hook). */
int engine_spawn(const struct wl_spec *w, const struct engine_plan *plan, int j,
                 struct engine_counters *c, pid_t *pids, engine_hook hook, void *arg);

/* engine_spawn, then wait for all of job j's processes.  Returns 0 when all
 * exited 0, else -c->err (or -EINTR for a process killed by a signal, or
 * -EIO).  For tests, the benchmark and simple batch use. */
int engine_run_job(const struct wl_spec *w, const struct engine_plan *plan, int j,
                   struct engine_counters *c);

#endif

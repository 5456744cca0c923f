/* sample_priv.h - what the sampler's source files share (sample.c,
 * sample_proc.c, sample_filebytes.c, sample_newfiles.c, sample_sys.c).  Not part of
 * any other module's contract. */
#ifndef BENCHTOP_SAMPLE_PRIV_H
#define BENCHTOP_SAMPLE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <sched.h>
#include <time.h>
#include "benchtop/model.h"
#include "benchtop/sample.h"

#define SAMPLE_BUF 8192

struct sampler;

/* A thread of a tracked process and the /proc files read for it. */
struct sthr {
	pid_t tid;
	int fd_schedstat, fd_sched, fd_children, fd_io;
	uint64_t run_ns, wait_ns, migr;
	uint64_t drun;     /* run time in the last interval, ns */
	uint64_t rchar_own;/* its own rchar at the last look (task io; sample_reap.c) */
	uint64_t wchar_own;/* and wchar */
	int cpu;
	int migr_cpu;      /* the CPU at its last read of sched (-1: none yet) */
	uint64_t migr_tick;/* and the sampler's tick then */
	bool seen;
};

/* A regular file open in a tracked process, one per (fd, dev, inode). */
struct sofile {
	int fd;
	dev_t dev;
	ino_t ino;
	bool write;
	uint64_t pos;      /* position when last counted */
	uint64_t size;     /* file size when last seen (growth: the process writes) */
	uint64_t ahead;    /* read: bytes counted before its position showed them
	                    * (a copy call in flight, sfiles_settle) */
	bool seen;
};

/* A pipe, socket or device open in a tracked process: its access mode,
 * read from fdinfo when first seen on that fd (a description's mode never
 * changes; another file on the fd shows as another dev, inode or rdev). */
struct sofd {
	int fd;
	dev_t dev, rdev;
	ino_t ino;
	int acc;           /* O_RDONLY, O_WRONLY or O_RDWR */
	bool seen;
	bool live_rd;      /* at the last scan, one it may still read from */
	int avail;         /* a pipe's unread bytes then (-1: not known) */
};

struct sproc {
	pid_t pid;
	int wl;
	char role[MODEL_ROLE_LEN];
	char slot[MODEL_SLOT_LEN];         /* "" until named (descendants: COMM.N) */
	bool infer;                        /* a command's process: role from what it does */
	struct sample_role_track track;
	uint64_t frd, fwr;                 /* regular-file bytes read / written this tick */
	char comm[MODEL_COMM_LEN];
	unsigned char *allowed;   /* nconf bytes: its allowed CPUs (all 0: not read yet) */
	bool measure_io, zombie, gone, ran, fresh;
	char state;
	int cpu, nthreads;
	int fd_stat, fd_io;                /* /proc/PID/stat and io, held open (-1: not) */
	struct sthr *thr;
	int nthr, capthr;
	struct sofile *of;
	int nof, capof;
	struct sofd *od;                   /* its pipes, sockets and devices */
	int nod, capod;
	uint64_t utk, stk;                 /* clock ticks */
	uint64_t rchar, wchar, rbytes, wbytes;
	bool io_known;                     /* rchar.. were read at least once */
	bool io_moved;                     /* rchar or wchar moved at the last read */
	bool exit_noted;                   /* its zombie's io was read (sampler_note_exit) */
	bool root;                         /* added by sampler_add (not found as a child) */
	pid_t ppid;
	uint64_t rchar0;                   /* rchar at its first read */
	uint64_t wchar0;                   /* and wchar */
	uint64_t cfr_grow, cfr_read;       /* growth of its written files while its
	                                    * counters stood still, and the reads
	                                    * counted for it (sfiles_settle) */
	uint64_t rd_dpos;                  /* read positions it moved, all its life */
	uint64_t rd_left;                  /* unread bytes of its read files at the last scan */
	bool reads_files;                  /* its reads are its regular files' (rchar agrees) */
	bool piped;                        /* a scan found it holding a pipe or socket to read */
	bool ran_unscanned;                /* ran since its last descriptor scan */
	bool fd_still;                     /* its last scan found no regular file and
	                                    * nothing that drains (a pipe or socket
	                                    * to read): only devices */
	long fd_count;                     /* its open descriptors then (0: not known) */
	int fd_dir;                        /* /proc/PID/fd, held open while fd_still
	                                    * (its fstat counts them: sfiles_unchanged) */
	bool kids_found;                   /* a child of it was ever tracked */
	bool parents_name;                 /* its last stat showed its parent's name */
	bool named_only;                   /* read this tick for that alone (it did not run) */
	uint64_t first_tick;               /* the sampler's tick at its first look */
	bool prexec;                       /* first look, under its parent's name: a fork
	                                    * not yet exec'd, holding its parent's pipes */
	bool pipe_live;                    /* at its last scan, one it may still read from */
	uint64_t kr;                       /* rchar of what it reaped: whole minus its threads' own */
	bool kr_known;                     /* kr was read at least once */
	bool past;                         /* attached: what it reaped before is not this run's */
	bool based;                        /* own_base and own_w_base set when it was added */
	uint64_t own, own_base;            /* its threads' own rchar summed; at its first read
	                                    * (0 but for attached processes) */
	uint64_t kw, own_w, own_w_base;    /* the same for wchar */
	bool piped_w;                      /* a scan found it holding a pipe, socket or
	                                    * device (not /dev/null) to write to */
	uint64_t frd_cum;                  /* read positions it moved, all its life */
	uint64_t extra;                    /* own reads no position showed, counted */
	uint64_t migr_dead;                /* migrations of threads that exited */
	uint64_t migrations;
	uint64_t bytes;                    /* bytes this process wrote to regular files */
	uint64_t bytes_r;                  /* and read from them */
	double cpu_pct, wait_pct, read_bps, write_bps;
	double start;                      /* seconds after boot it started */
	struct timespec since;             /* when its tree was first tracked (realtime) */
};

/* Per-workload sums; index 0 = attached processes. */
struct swl {
	bool measure_io;
	double dead_ut, dead_st;           /* seconds of processes gone */
	uint64_t wbytes, rbytes;           /* destination-side totals */
	uint64_t wbytes_prev, rbytes_prev;
	double t_prev;                     /* CLOCK_MONOTONIC s the _prev values are from:
	                                    * the last processes read, or before the first
	                                    * one, when the workload was first tracked
	                                    * (its bytes count from 0 there); 0 unknown */
	bool held;                         /* the _prev values and t_prev are from before
	                                    * the first look (sampler_prime): kept once */
	uint64_t wtotal_first, rbytes_first;
	double t_first;
	double wbps, rbps;
	double ut, st;
	uint64_t nwfiles;                  /* written files counted */
	uint64_t root_wbytes, root_nwfiles;/* wbytes and nwfiles when its root was added */
	bool rec_pending;                  /* its root exited: reconcile at the next settle */
	uint64_t rec_wchar, rec_wb;        /* the root zombie's wchar and write_bytes */
	uint64_t root_out0, rec_out;       /* size of benchtop's standard error (where a
	                                    * command's output goes), less benchtop's own
	                                    * words there, before its root's fork and at
	                                    * its exit */
	uint64_t pend_rbytes;              /* reads recovered between ticks, counted at the next */
	/* reads through processes that ended (sample_reap.c), this tick */
	uint64_t reap_rchar;               /* growth of the reapers' kr, and reaped zombies' */
	uint64_t reap_seen;                /* whole rchar last seen of tracked processes that ended */
	uint64_t reap_cap;                 /* what those reading only files had left unread */
	uint64_t reap_pipe_tail;           /* what their own pipes held unread (not files') */
	bool reap_ambig;                   /* one of them read other than its files */
	/* writes by wchar: exact for a tree that writes only regular files
	 * (overwrites of dirty pages, appends by processes never seen) */
	uint64_t reap_wchar, reap_wseen;   /* as reap_rchar, reap_seen */
	uint64_t wchar_files;              /* every process's own writes, all its life */
	uint64_t reap_wb;                  /* pages dirtied (write_bytes) by zombies never seen */
	bool wpiped;                       /* some process wrote other than files: unusable */
	uint64_t out_start;                /* the same at its first start */
	bool out_started;
	uint64_t out_mark;                 /* its size before the root's fork (sampler_will_add) */
	bool out_marked;
	uint64_t wtotal, wtotal_prev;      /* written: the larger of wbytes and wchar_files
	                                    * less its output to benchtop's own file */
	bool wrote_files;                  /* some file shows the tree writes (below) */
	int cwd_fd;                        /* its root's working directory (-1: none) */
	struct timespec since;             /* when its root was first tracked (realtime) */
};

/* In thread mode libproc2 reports each thread's own id. */
#define THR_ITEMS(X) \
	X(TI_TID, PIDS_ID_TID) \
	X(TI_CPU, PIDS_PROCESSOR)
#define SAMPLE_AS_ENUM(e, item) e,
enum thr_idx { THR_ITEMS(SAMPLE_AS_ENUM) TI_COUNT };
#undef SAMPLE_AS_ENUM

struct sampler;
typedef int (*source_fn)(struct sampler *sp, double dt);

/* A data source, read every tick, timestamped at its own read. */
struct source {
	const char *name;
	source_fn fn;
	double last_t;        /* monotonic time of its last read, < 0 never */
	double ms;            /* how long its last read took */
};

/* Exit records of ended tasks (sample_exit.c); NULL where the kernel
 * gives none. */
struct sexit;
struct sexit *sexit_new(int ncpu);
void sexit_free(struct sexit *x);
void sexit_drain(struct sexit *x);
/* The own rchar and wchar of the latest ended task pid (named comm). */
bool sexit_find(struct sexit *x, pid_t pid, const char *comm, uint64_t *rchar, uint64_t *wchar);

/* The sampler itself (sample.c; its processes are read in sample_proc.c). */
struct sampler {
	char root[128];
	int ncpu, nwl, nconf;
	long hz;
	struct pids_info *tinfo;       /* the threads of a process */
	struct sproc *procs;
	int n, cap;
	struct swl *wl;                /* nwl + 1, index 0 = attached */
	struct sfiles *files;
	struct ssys *sys;
	struct sexit *exits;           /* ended tasks' own counts, or NULL */
	struct cpu_sample *cpus;       /* last values, copied into each snapshot */
	struct disk_sample disk;
	cpu_set_t *cset;
	size_t csize;
	unsigned char *mask;
	uint64_t ticks;
	double last_now;
	double now;                    /* the current tick's CLOCK_MONOTONIC time */
	double boot_now;               /* and CLOCK_BOOTTIME's (start times count on it) */
	double t_procs, dt_procs;      /* when the processes were last read, and since the read before */
	double t_first;                /* after sampler_prime: when the first workload was
	                                * first tracked, where the next sample's interval
	                                * starts; 0 otherwise */
	int held;                      /* /proc files held open across ticks (pread
	                                * at offset 0 regenerates one) */
	int max_held;                  /* above this many, files are opened and
	                                * closed per read (fdlimit_hold_budget) */
	uint64_t own_out;              /* bytes benchtop wrote to its own standard error */
	struct source src[4];
	char buf[SAMPLE_BUF];
	char *big;                     /* whole files of any length (children lists) */
	size_t big_cap;
};

/* tracked processes (sample_proc.c). */
/* The tracked process pid, or NULL. */
struct sproc *sprocs_find(struct sampler *sp, pid_t pid);
/* Track pid (appended: may move sp->procs); NULL when out of memory. */
struct sproc *sprocs_new(struct sampler *sp, pid_t pid, int wl, const char *role, bool mio);
/* Stop tracking procs[i]: its CPU goes to its workload's dead totals, its
 * files and threads are let go; the last process takes its place. */
void sprocs_drop(struct sampler *sp, int i);
/* Read every tracked process: threads, children, stat and io of those that
 * ran, migrations, affinity, and the files of those that moved bytes. */
void sprocs_read(struct sampler *sp, double dt);
/* Read /proc/PID/task/TID/NAME (tid 0: /proc/PID/NAME) into buf[len]
 * through *fd, held open across ticks while few enough files are (-1:
 * not open yet).  Returns bytes or -errno (-ESRCH once it is gone). */
int sprocs_read_file(struct sampler *sp, int *fd, pid_t pid, pid_t tid, const char *name,
                     char *buf, size_t len);

/* Make room for want elements of elem bytes in the array *p of capacity
 * *cap, doubling (from 8); 0 or -ENOMEM (then *p is unchanged). */
int sample_grow(void **p, int *cap, int want, size_t elem);

/* fd side (sample_filebytes.c). */
struct sfiles;
struct sfiles *sfiles_new(void);
void sfiles_free(struct sfiles *f);
/* The commands' output goes to /dev/null (sampler_output_null). */
void sfiles_output_null(struct sfiles *f);
/* Scan /proc/PID/fd of p; adds what p moved to w (and p->bytes).  buf is
 * scratch of SAMPLE_BUF bytes. */
void sfiles_scan(struct sfiles *f, const char *root, struct sproc *p, struct swl *w, char *buf);
/* Would a scan of p's descriptors find what its last one did?  True when
 * that one found only devices and p holds as many descriptors now. */
bool sfiles_unchanged(const char *root, const struct sproc *p);
/* After all processes were scanned: count size growth of files, credit it,
 * and forget files no process holds any more (after a last look). */
void sfiles_settle(struct sfiles *f, struct sproc *procs, int nprocs, struct swl *wls, int nwl);
/* Does p hold a regular file open for writing (as of its last scan)? */
bool sfiles_holds_write(const struct sproc *p);
/* May what p last read from a pipe or socket (after its last scan) have
 * come from some other process seen, or from outside the tree?  When
 * not, *tail adds what its pipes held unread then. */
bool sfiles_fed_by_others(const struct sfiles *f, const struct sproc *procs, int n,
                          const struct sproc *p, uint64_t *tail);
/* p is gone: its files lose a holder (their last size still counts). */
void sfiles_forget(struct sfiles *f, struct sproc *p);
/* The workload's files are forgotten (it was restarted or removed). */
void sfiles_forget_workload(struct sfiles *f, int wl);
/* A regular file a directory scan found for workload wl. */
void sfiles_dir_file(struct sfiles *f, int wl, dev_t dev, ino_t ino, uint64_t size, uint64_t blk,
                     pid_t credit);
/* File times against a tree's start (20 ms slack for coarse file clocks). */
bool sample_time_after(const struct statx_timestamp *t, const struct timespec *since);
bool sample_born_after(int dirfd, const char *name, const struct timespec *since);

/* reads through processes that ended (sample_reap.c). */
/* p's whole rchar was just read: read its threads' own, credit kr's growth. */
void sreap_read(struct sampler *sp, struct sproc *p);
/* After p's files were scanned: its own reads that no position showed
 * (files opened and closed between two looks), when it reads only files. */
void sreap_own(struct sampler *sp, struct sproc *p);
/* A root just started (exec'd): what it did before (benchtop's set-up
 * of the child: its cgroup join) is not its work. */
void sreap_base(struct sampler *sp, struct sproc *p);
/* Thread t of p ended (its own count joined p's whole). */
void sreap_thread_gone(struct sampler *sp, struct sproc *p, const struct sthr *t);
/* Tracked p ended and was reaped by a process of its tree. */
void sreap_gone(struct sampler *sp, struct sproc *p);
/* Zombie pid of workload wl (p: its tracked entry, or NULL when never
 * seen), about to be reaped by benchtop, has whole rchar `rchar`, wchar
 * `wchar` and write_bytes `wb`. */
void sreap_zombie(struct sampler *sp, struct sproc *p, int wl, pid_t pid, uint64_t rchar,
                  uint64_t wchar, uint64_t wb);
/* End of a tick: the workload's new reads through ended processes. */
void sreap_settle(struct sampler *sp, int wl);
/* After every other count of the tick: the workload's written total
 * (wtotal); out is how much its processes wrote to benchtop's own
 * standard error (a regular file: its output in batch mode). */
void sreap_written(struct sampler *sp, int wl, uint64_t out);
/* Does some file show the tree writes: one it was seen holding or making,
 * growth counted, pages its processes dirtied (beyond those of their out
 * bytes to benchtop's standard error) for at least half of need bytes
 * written by wchar only, or a regular file in its root's working
 * directory modified since it started?  Once true, it stays so. */
bool sreap_shows_writes(struct sampler *sp, int wl, uint64_t out, uint64_t need);
/* The workload's root pid was added: keep its working directory, where a
 * tree's files show it writes (sreap_written); its last one is let go. */
void sreap_root_dir(struct sampler *sp, int wl, pid_t pid, const struct timespec *since);

/* directories written into (sample_newfiles.c). */
struct sdirs;
struct sdirs *sdirs_new(void);
void sdirs_free(struct sdirs *d);
/* p wrote the file /proc/PID/fd/fdname for the first time. */
void sdirs_note(struct sdirs *d, const struct sproc *p, int fddir, const char *fdname);
/* Scan the active directories; each new regular file goes to f. */
void sdirs_scan(struct sdirs *d, struct sfiles *f);
void sdirs_forget_workload(struct sdirs *d, int wl);

/* system side (sample_sys.c). */
struct ssys;
struct ssys *ssys_new(int ncpu);
void ssys_free(struct ssys *y);
int ssys_cpu(struct ssys *y, struct snapshot *s);
int ssys_disk(struct ssys *y, struct snapshot *s, double dt);
int ssys_mem(struct ssys *y, struct snapshot *s);
void ssys_watch(struct ssys *y, const char *path);
/* The same for the device a file is on (st_dev). */
void ssys_watch_dev(struct ssys *y, dev_t dev);
/* The device under path until the tree writes a file (ssys_watching
 * stays false, so that file's device is watched instead). */
void ssys_watch_guess(struct ssys *y, const char *path);
/* A path or device was given to watch (the device may still be missing),
 * not only guessed. */
bool ssys_watching(const struct ssys *y);

#endif

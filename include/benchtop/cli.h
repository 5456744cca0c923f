/* cli.h - command line and workload specs: strings in, a run description
 * (struct run) or an error message out.  Pure: no I/O, no exit().
 *
 * One table (cli_options[]) drives the parser, --help and the man page's
 * option list.  Every error message names the offending word and says what
 * would be accepted; the caller prints it and exits 2. */
#ifndef BENCHTOP_CLI_H
#define BENCHTOP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_ERR_MAX 512

/* WL_ATTACHED: the processes of --attach, one workload benchtop did not
 * start (never a -w kind). */
enum wl_kind { WL_COPY, WL_WRITE, WL_READ, WL_SEEK, WL_CMD, WL_NET, WL_ATTACHED };
enum copy_engine { ENG_RW, ENG_CFR, ENG_SENDFILE, ENG_SPLICE, ENG_MMAP, ENG_PIPE };
enum sync_mode { SYNC_END, SYNC_NONE, SYNC_EACH };
enum units_mode { UNITS_IEC, UNITS_SI, UNITS_BITS };
enum out_format { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_BONNIE };
enum placement { PLACE_NONE, PLACE_PACK, PLACE_FREE, PLACE_SPREAD };
enum run_mode { MODE_RUN, MODE_ATTACH, MODE_REPLAY, MODE_REPORT, MODE_RESTORE,
                MODE_HELP, MODE_VERSION, MODE_COMPARE };

/* One -w workload (or the command after --). */
struct wl_spec {
	enum wl_kind kind;
	char *text;           /* the spec as typed, e.g. "copy:src=a,dst=b" */
	char *src, *dst;      /* copy */
	char *path;           /* write, read, seek */
	uint64_t bs;          /* block size in bytes (default 128 KiB) */
	uint64_t size;        /* write: bytes to write (0 = default) */
	enum copy_engine engine;
	int procs;            /* pipe engine: 2 or 3 */
	enum sync_mode sync;
	bool direct;          /* O_DIRECT */
	int jobs;             /* instances at once, >= 1 */
	bool rewrite;         /* write pattern=rewrite */
	bool unit_char;       /* unit=char: a byte at a time through stdio */
	int seekers;          /* seek: processes (default 3) */
	uint64_t count;       /* seek: reads per seeker (0 = until stopped) */
	int update;           /* read, seek: percent of the blocks read that are
	                       * dirtied and written back in place (0..100) */
	int mss;              /* net: TCP_MAXSEG of the loopback stream (default 1448) */
	uint64_t align;       /* net: the receiver buffers to writes of this many
	                       * bytes (0 = none: it writes what each recv returns) */
	char **argv;          /* cmd: NULL-terminated argv; run= goes via sh -c */
	bool is_default;      /* the default workload (SPEC §2): copy, engine
	                       * pipe, procs 3, src and dst NULL (benchtop
	                       * invents both), repeated until the user quits.
	                       * cli_parse adds it in MODE_RUN when no -w, no
	                       * command and no --preset is given. */
};

/* One --at T:ACTION.  run->at is kept sorted by t (stable). */
enum at_kind { AT_PIN, AT_PACK, AT_FREE, AT_SPREAD, AT_GOVERNOR, AT_MAXFREQ,
               AT_MARKER, AT_PAUSE, AT_RESUME, AT_CAPTION };
struct at_action {
	double t;             /* seconds since start */
	enum at_kind kind;
	char *arg;            /* pin: CPU list; governor: name; marker: text */
	long khz;             /* maxfreq */
	bool optional;        /* "T?:": a governor or maxfreq step skipped (with a
	                       * note) where the machine has no cpufreq */
};

/* Everything the command line asks for. */
struct run {
	enum run_mode mode;
	struct wl_spec *wl;   /* workloads, in order */
	size_t nwl;
	double interval;      /* seconds, 0.05 .. 10 */
	double duration;      /* seconds, 0 = until done or quit */
	bool loop, no_sync, batch, keep, force, drop_caches, no_color;
	bool leave_placement; /* --attach: keep benchtop's placement at exit */
	bool no_mouse;        /* --no-mouse: the dashboard leaves the mouse to the terminal */
	enum out_format format;
	enum units_mode units;
	char *record;         /* -o FILE (also the report output with --report) */
	char *replay, *report;
	int *attach;          /* pids */
	size_t nattach;
	char *cpus;           /* --cpus LIST, validated syntax */
	enum placement placement;
	char *governor;
	struct at_action *at;
	size_t nat;
	char *sweep;          /* "bs=FROM:TO" as typed; parsed into from/to */
	uint64_t sweep_from, sweep_to;
	bool matrix;          /* --matrix given */
	/* --matrix lists as typed ("pack,spread"; "ondemand,performance");
	 * NULL = that axis is not varied.  A bare --matrix means
	 * placement=pack,free,spread. */
	char *matrix_placement, *matrix_governor;
	char *cell;           /* --cell as typed; exactly one of the next two is set */
	double cell_sec;      /* --cell as a time (0 if a size or not given) */
	uint64_t cell_bytes;  /* --cell as a size (0 if a time or not given) */
	char *preset;
	char *theme;
	char *sysfs;          /* default "/sys" */
	char *metrics;        /* --metrics FILE, or NULL */
	char *metrics_listen; /* --metrics-listen [ADDR:]PORT as typed, or NULL */
	char **compare;       /* --compare FILE...: the recordings, in order */
	size_t ncompare;
};

/* What an option table row says, for --help and the man page. */
struct cli_option {
	char short_name;      /* 0 if none */
	const char *long_name;
	const char *arg;      /* metavar, NULL for a flag */
	const char *help;
	int id;
	bool repeatable;      /* may be given more than once */
	/* Stores the value (NULL for a flag) in *r; 0 or -1 with err. */
	int (*apply)(struct run *r, const char *val, char *err, size_t errlen);
};
extern const struct cli_option cli_options[];
extern const size_t cli_noptions;

/* Parse argv into *r.  Returns 0, or -1 with a message in err (no
 * "benchtop: " prefix; the caller adds it).  On success *r owns its
 * strings; free with cli_free().  On failure *r is left zeroed (nothing to
 * free, cli_free is harmless).  -h / -V stop parsing at once. */
int cli_parse(int argc, char **argv, struct run *r, char *err, size_t errlen);
void cli_free(struct run *r);

/* Parse one workload spec "KIND[:k=v,...]" into *w. 0 or -1 + err.
 * On failure *w is left zeroed. */
int cli_parse_workload(const char *text, struct wl_spec *w, char *err, size_t errlen);
void cli_free_workload(struct wl_spec *w);

/* Strict scalar parsers; 0 or -1 with a message naming `what` and `s`. */
int cli_parse_size(const char *s, uint64_t *out, const char *what, char *err, size_t errlen);
int cli_parse_time(const char *s, double *out, const char *what, char *err, size_t errlen);
/* CPU list "0,2-3": fills mask[0..ncpu) with 1 for listed CPUs.  ncpu bounds
 * the accepted CPU numbers (pass a large number to check syntax only). */
int cli_parse_cpulist(const char *s, unsigned char *mask, int ncpu, char *err, size_t errlen);
/* --at "T:ACTION": T is a time (10, 10s, 500ms, 2min); ACTION is pin=LIST,
 * pack, free, spread, governor=NAME, maxfreq=KHZ (bare kHz, or with kHz,
 * MHz, GHz), marker=TEXT, pause or resume.  a->arg is malloc'd (NULL for
 * actions without an argument); free it.  On failure a->arg is NULL. */
int cli_parse_at(const char *s, struct at_action *a, char *err, size_t errlen);

/* --metrics-listen "[ADDR:]PORT": PORT alone means 127.0.0.1; ADDR is an
 * IPv4 address, "localhost" or "[IPv6]".  Fills addr with the numeric
 * address (IPv6 without brackets) and *port.  0 or -1 with err. */
int cli_parse_listen(const char *s, char *addr, size_t alen, unsigned *port, char *err, size_t errlen);

/* The word for a workload kind ("copy", "cmd", ...), from the same table
 * the parser reads. */
const char *cli_kind_name(enum wl_kind k);

/* Print --help generated from cli_options[] to fp (a FILE *). */
void cli_print_help(void *fp);

#endif

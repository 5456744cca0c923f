/* event.h - what happened during a run, typed: every kind of event from
 * one list (EVENT_KINDS), and each kind's details as a small struct, filled
 * where the event happens.  The details become JSON only when a record is
 * written (record_write.c) and are read back into the same struct for a
 * replay (record_read.c); the dashboard and the report read the fields.
 *
 * struct event holds no pointers: it is copied by value (the history keeps
 * copies), and a zeroed one is an event of no known kind (EV_OTHER). */
#ifndef BENCHTOP_EVENT_H
#define BENCHTOP_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#define EVENT_LABEL_LEN 64
#define EVENT_NAME_LEN 16
#define EVENT_GOV_LEN 32
#define EVENT_TEXT_LEN 128
#define EVENT_ERROR_LEN 320
#define EVENT_CPUS_LEN 1024     /* a CPU list (a 256-CPU host's "0,2,...,254" fits) */
#define EVENT_MAP_MAX 64        /* processes in a placement's before / after map */
#define EVENT_MAP_TEXT 2048     /* the maps' CPU lists, all together */

/* How the graph marks a kind (its colour, line and glyph), with the
 * words the help's legend names it by. */
#define EVENT_MARKS(X)                                                        \
	X(MARK_USER, "marker") X(MARK_PLACE, "placement")                     \
	X(MARK_FREQ, "governor/cap") X(MARK_PAUSE, "pause/resume") X(MARK_END, "end")

enum event_mark {
#define EVENT_MARK_ENUM(id, words) id,
	EVENT_MARKS(EVENT_MARK_ENUM)
#undef EVENT_MARK_ENUM
	MARK_N
};

/* Every kind of event, as records name it, with its mark and the member
 * of struct event's union (d.NAME) that holds its details.  The one list:
 * the enum, the names written and read back, the graph's and the report's
 * marks, and the metrics' event counts come from it. */
#define EVENT_KINDS(X)                                                                 \
	X(EV_PIN, "pin", MARK_PLACE, place)                /* a process pinned */      \
	X(EV_PLACEMENT, "placement", MARK_PLACE, place)    /* spread, pack, free */    \
	X(EV_GOVERNOR, "governor", MARK_FREQ, gov)         /* a governor set */        \
	X(EV_MAXFREQ, "maxfreq", MARK_FREQ, maxfreq)       /* a frequency capped */    \
	X(EV_MARKER, "marker", MARK_USER, text)            /* the user's marker */     \
	X(EV_PAUSE, "pause", MARK_PAUSE, why)                                          \
	X(EV_RESUME, "resume", MARK_PAUSE, why)                                        \
	X(EV_WORKLOAD_END, "workload_end", MARK_END, end)  /* ended for good */        \
	X(EV_SIGNAL, "signal", MARK_USER, sig)             /* a signal sent */         \
	X(EV_CAPTION, "caption", MARK_USER, text)          /* a lesson's caption */    \
	X(EV_STEP, "step", MARK_USER, step)                /* an experiment's step */

enum event_kind {
	EV_OTHER,                     /* a kind this benchtop does not know (a newer recording's) */
#define EVENT_KIND_ENUM(id, name, mark, member) id,
	EVENT_KINDS(EVENT_KIND_ENUM)
#undef EVENT_KIND_ENUM
	EV_NKINDS
};

/* One process's allowed CPUs in a placement's map: the list's text is at
 * pool + at in the placement. */
struct ev_proc_cpus {
	int pid;
	unsigned short at;
};

/* pin, placement: what was asked (target, cpus), for which process when
 * it was one (has_proc), whether it was done, and every tracked process's
 * allowed CPUs before and after, read back from the kernel (nbefore and
 * nafter 0 with maps_cut when they did not fit). */
struct ev_place {
	char target[96];              /* "spread", "1234", "workload 2", "all" */
	char cpus[EVENT_CPUS_LEN];    /* the CPU list, or "round robin" */
	bool has_proc, ok;
	int pid, workload;
	char role[16], slot[24];
	char error[EVENT_ERROR_LEN];  /* why not, when !ok */
	bool maps_cut;
	unsigned short nbefore, nafter, used;
	struct ev_proc_cpus before[EVENT_MAP_MAX], after[EVENT_MAP_MAX];
	char pool[EVENT_MAP_TEXT];
};

struct ev_gov {                   /* governor: policy -1: every one */
	int policy;
	char before[EVENT_GOV_LEN], after[EVENT_GOV_LEN];
};

struct ev_maxfreq {               /* maxfreq: kHz before and after */
	int policy;
	long before, after;
};

struct ev_text {                  /* marker, caption: workload 0 when none */
	int workload;
	char text[EVENT_TEXT_LEN];
};

struct ev_why {                   /* pause, resume: why[0] 0 when the user's */
	char why[16];
};

struct ev_end {                   /* workload_end: state "done", "stopped", "failed" */
	int workload;
	char state[16];
	char error[EVENT_ERROR_LEN];
};

struct ev_sig {                   /* signal */
	int pid, number, workload;
	char name[16], role[16], comm[16];
};

struct ev_step {                  /* step: 1-based */
	int step;
};

struct event {
	double t;
	enum event_kind kind;
	char other[EVENT_NAME_LEN];   /* EV_OTHER: the name the recording gave */
	char label[EVENT_LABEL_LEN];  /* short label for the graph and the phase table */
	union {
		/* each kind's member, as EVENT_KINDS names it */
		struct ev_place place;
		struct ev_gov gov;
		struct ev_maxfreq maxfreq;
		struct ev_text text;
		struct ev_why why;
		struct ev_end end;
		struct ev_sig sig;
		struct ev_step step;
	} d;
};

/* A kind's name in records ("pin"); NULL for EV_OTHER and out of range. */
const char *event_kind_name(enum event_kind k);
/* The kind named name, or EV_OTHER for a name no kind has. */
enum event_kind event_kind_of(const char *name);
enum event_mark event_kind_mark(enum event_kind k);
/* A mark's words in the legend ("governor/cap"); "" out of range. */
const char *event_mark_words(enum event_mark m);
/* An event's kind as records name it (EV_OTHER's own name). */
const char *event_name(const struct event *e);
/* What the graph, the phase table and the report show: the label, else
 * the name. */
const char *event_shown(const struct event *e);

/* A new event of kind k at t with a label (cut to fit), details zeroed. */
void event_init(struct event *e, enum event_kind k, double t, const char *label);

/* Add pid's allowed CPUs to a placement's before (after false) or after
 * map: 0, or -ENOSPC when the maps are full (then maps_cut is set and
 * both maps are emptied: a placement keeps whole maps or none). */
int event_map_add(struct ev_place *p, bool after, int pid, const char *cpus);
/* Entry i of a map (0 <= i < nbefore or nafter), its CPU list. */
const char *event_map_cpus(const struct ev_place *p, const struct ev_proc_cpus *m);

#endif

/* record_read.c - a JSON Lines recording read back into the model: its
 * samples and events in time order, its workloads' names, and the summary
 * and phase tables it ended with, printed as a live run prints them.  Every
 * line is outside input: a broken one is named by line and column. */
#include "benchtop/recording.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/cpulist.h"
#include "benchtop/event_json.h"
#include "benchtop/freqrows.h"
#include "benchtop/num.h"
#include "benchtop/record.h"
#include "benchtop/studytable.h"
#include "benchtop/tables.h"
#include "benchtop/units.h"
#include "benchtop/xalloc.h"

/* ---- the recording ------------------------------------------------------- */

struct item {
	double t;
	bool is_event;
	size_t index;
};

struct recording {
	struct json *start, *end;
	struct snapshot **samples;
	size_t nsamples, samplecap;
	struct event *events;
	size_t nevents, eventcap;
	struct item *items;
	size_t nitems, itemcap;
	char **wl_names;
	int nwl;
};

static int grow(void **p, size_t *cap, size_t want, size_t elem)
{
	xgrow(p, cap, want, elem, 64);
	return 0;
}

static double num(const struct json *obj, const char *key, double def)
{
	return json_num(json_get(obj, key), def);
}

static uint64_t count(const struct json *obj, const char *key)
{
	double v = num(obj, key, 0);
	return v > 0 && v < 1.8e19 ? (uint64_t)v : 0;
}

static enum wl_state state_of(const char *s)
{
	if (!strcmp(s, "paused"))
		return WLS_PAUSED;
	if (!strcmp(s, "done"))
		return WLS_DONE;
	if (!strcmp(s, "failed"))
		return WLS_FAILED;
	return WLS_RUNNING;
}

static void fill_cpu(struct cpu_sample *c, const struct json *j, int i)
{
	c->id = json_get_int(j, "id", i);
	c->user = num(j, "user", 0);
	c->system = num(j, "system", 0);
	c->iowait = num(j, "iowait", 0);
	c->irq = num(j, "irq", 0);
	c->idle = num(j, "idle", 100 - c->user - c->system - c->iowait - c->irq);
	c->khz = json_get_long(j, "khz", -1);
	json_get_str(j, "governor", c->governor, sizeof c->governor);
}

static void fill_proc(struct proc_sample *p, const struct json *j, int ncpu)
{
	p->pid = (pid_t)json_get_int(j, "pid", 0);
	p->workload = json_get_int(j, "workload", 0);
	json_get_str(j, "role", p->role, sizeof p->role);
	json_get_str(j, "slot", p->slot, sizeof p->slot);
	json_get_str(j, "comm", p->comm, sizeof p->comm);
	p->cpu = json_get_int(j, "cpu", -1);
	const char *allowed = json_str(json_get(j, "allowed"), NULL);
	if (p->allowed && (!allowed || cpulist_parse(allowed, p->allowed, ncpu, NULL, 0)))
		memset(p->allowed, 0, (size_t)ncpu);   /* not recorded, or not a list of these CPUs */
	const char *st = json_str(json_get(j, "state"), "?");
	p->state = st[0] ? st[0] : '?';
	p->nthreads = json_get_int(j, "threads", 1);
	p->cpu_pct = num(j, "cpu_pct", 0);
	p->wait_pct = num(j, "wait_pct", 0);
	p->utime = num(j, "utime", 0);
	p->age = num(j, "age", -1);
	p->stime = num(j, "stime", 0);
	p->read_bps = num(j, "read_bps", 0);
	p->write_bps = num(j, "write_bps", 0);
	p->bytes = count(j, "bytes");
	p->migrations = count(j, "migrations");
	p->alive = true;
}

/* Which recorded processes sat on each CPU, as the sampler writes it. */
static void cpu_procs(struct snapshot *s)
{
	for (int c = 0; c < s->ncpu; c++) {
		char *o = s->cpus[c].procs;
		size_t used = 0, len = sizeof s->cpus[c].procs;
		o[0] = 0;
		for (int i = 0; i < s->nproc; i++) {
			if (s->procs[i].cpu != s->cpus[c].id)
				continue;
			int w = snprintf(o + used, len - used, "%s%d", used ? "," : "", (int)s->procs[i].pid);
			if (w < 0 || (size_t)w >= len - used) {
				o[used] = 0;
				break;
			}
			used += (size_t)w;
		}
	}
}

/* The record keeps no per-workload CPU time: the sum over its processes
 * stands in for it (the phase accounting only needs the increase). */
static void wl_cpu_from_procs(struct snapshot *s)
{
	for (int w = 0; w < s->nwl; w++)
		for (int i = 0; i < s->nproc; i++)
			if (s->procs[i].workload == s->wls[w].id) {
				s->wls[w].utime += s->procs[i].utime;
				s->wls[w].stime += s->procs[i].stime;
			}
}

static struct snapshot *snapshot_of(const struct json *j, double prev_t)
{
	const struct json *cpus = json_get(j, "cpus"), *procs = json_get(j, "procs");
	const struct json *wls = json_get(j, "workloads"), *disk = json_get(j, "disk");
	int ncpu = (int)json_len(cpus), nproc = (int)json_len(procs), nwl = (int)json_len(wls);
	struct snapshot *s = snapshot_new(ncpu, nproc, nwl);
	if (!s)
		return NULL;
	s->t = num(j, "t", prev_t);
	s->dt = s->t > prev_t ? s->t - prev_t : 0;
	for (int i = 0; i < ncpu; i++)
		fill_cpu(&s->cpus[i], json_at(cpus, (size_t)i), i);
	s->nproc = nproc;
	for (int i = 0; i < nproc; i++)
		fill_proc(&s->procs[i], json_at(procs, (size_t)i), s->ncpu);
	for (int i = 0; i < nwl; i++) {
		const struct json *w = json_at(wls, (size_t)i);
		struct wl_sample *o = &s->wls[i];
		o->id = json_get_int(w, "id", i + 1);
		o->read_bps = num(w, "read_bps", 0);
		o->write_bps = num(w, "write_bps", 0);
		o->bytes = count(w, "bytes");
		o->calls = count(w, "calls");
		o->passes = count(w, "passes");
		o->state = state_of(json_str(json_get(w, "state"), "running"));
	}
	json_get_str(disk, "device", s->disk.device, sizeof s->disk.device);
	s->disk.read_bps = num(disk, "read_bps", 0);
	s->disk.write_bps = num(disk, "write_bps", 0);
	s->disk.dirty = count(disk, "dirty");
	s->disk.writeback = count(disk, "writeback");
	s->self_cpu_pct = num(j, "self_cpu_pct", 0);
	s->self_tick_us = num(j, "self_tick_us", 0);
	s->late = num(j, "late", 0);
	cpu_procs(s);
	wl_cpu_from_procs(s);
	return s;
}

static int add_item(struct recording *rec, double t, bool is_event, size_t index)
{
	if (grow((void **)&rec->items, &rec->itemcap, rec->nitems + 1, sizeof *rec->items))
		return -ENOMEM;
	rec->items[rec->nitems++] = (struct item){ t, is_event, index };
	return 0;
}

static int add_sample(struct recording *rec, const struct json *j)
{
	double prev = rec->nsamples ? rec->samples[rec->nsamples - 1]->t : 0;
	if (grow((void **)&rec->samples, &rec->samplecap, rec->nsamples + 1, sizeof *rec->samples))
		return -ENOMEM;
	struct snapshot *s = snapshot_of(j, prev);
	if (!s)
		return -ENOMEM;
	rec->samples[rec->nsamples] = s;
	return add_item(rec, s->t, false, rec->nsamples++);
}

static int add_event(struct recording *rec, const struct json *j)
{
	if (grow((void **)&rec->events, &rec->eventcap, rec->nevents + 1, sizeof *rec->events))
		return -ENOMEM;
	struct event *e = &rec->events[rec->nevents];
	event_json_read(j, rec->nitems ? rec->items[rec->nitems - 1].t : 0, e);
	return add_item(rec, e->t, true, rec->nevents++);
}

static int set_names(struct recording *rec)
{
	const struct json *wls = json_get(rec->start, "workloads");
	rec->nwl = (int)json_len(wls);
	rec->wl_names = xcalloc((size_t)rec->nwl + 1, sizeof *rec->wl_names);
	if (!rec->wl_names)
		return -ENOMEM;
	for (int i = 0; i < rec->nwl; i++) {
		const struct json *w = json_at(wls, (size_t)i);
		const char *n = json_str(json_get(w, "name"), json_str(json_get(w, "spec"), "?"));
		if (!(rec->wl_names[i] = xstrdup(n)))
			return -ENOMEM;
	}
	return 0;
}

/* Workloads the samples carry beyond those the start record names (an
 * experiment's preset steps run workloads of their own): named by the
 * experiment ("rsync-demo", "rsync-demo w2"), else "workload N". */
static void more_names(struct recording *rec)
{
	int n = rec->nwl;
	for (size_t i = 0; i < rec->nsamples; i++)
		for (int w = 0; w < rec->samples[i]->nwl; w++)
			if (rec->samples[i]->wls[w].id > n && rec->samples[i]->wls[w].id <= 64)
				n = rec->samples[i]->wls[w].id;
	if (n == rec->nwl)
		return;
	rec->wl_names = xrealloc(rec->wl_names, ((size_t)n + 1) * sizeof *rec->wl_names);
	const char *x = json_str(json_get(rec->start, "experiment"), "");
	for (int i = rec->nwl; i < n; i++) {
		char name[96];
		if (!*x)
			snprintf(name, sizeof name, "workload %d", i + 1);
		else if (n == 1)
			snprintf(name, sizeof name, "%.80s", x);
		else
			snprintf(name, sizeof name, "%.80s w%d", x, i + 1);
		rec->wl_names[i] = xstrdup(name);
	}
	rec->wl_names[n] = NULL;
	rec->nwl = n;
}

/* An experiment's steps are part of what its recording feeds: each
 * step's start (a phase of the end record) becomes an event "step" in
 * time order among the others, so a replay and a report mark each step
 * as they mark a run's events (and the replay's phases are the steps). */
static void add_steps(struct recording *rec)
{
	const struct json *ph = json_get(rec->end, "phases");
	size_t ns = json_len(ph);
	if (json_type(json_get(rec->end, "experiment")) != JSON_OBJECT || ns == 0)
		return;
	size_t ne = rec->nevents + ns, ni = rec->nitems + ns;
	struct event *ev = xcalloc(ne, sizeof *ev);
	struct item *it = xcalloc(ni, sizeof *it);
	size_t *newidx = xcalloc(rec->nevents + 1, sizeof *newidx);
	size_t *at = xcalloc(ns, sizeof *at);   /* where each step's event went */
	/* the events: the recorded ones and the steps, merged by time */
	size_t a = 0, b = 0, k = 0;
	while (a < rec->nevents || b < ns) {
		double sf = b < ns ? num(json_at(ph, b), "from", 0) : INFINITY;
		if (a < rec->nevents && rec->events[a].t < sf) {
			newidx[a] = k;
			ev[k++] = rec->events[a++];
			continue;
		}
		struct event *e = &ev[k];
		event_init(e, EV_STEP, sf, json_str(json_get(json_at(ph, b), "label"), ""));
		e->d.step.step = (int)b + 1;
		at[b++] = k++;
	}
	/* the items: each step's before the first recorded item after its start */
	size_t m = 0;
	b = 0;
	for (size_t i = 0; i <= rec->nitems; i++) {
		double t = i < rec->nitems ? rec->items[i].t : INFINITY;
		for (; b < ns && ev[at[b]].t <= t; b++)
			it[m++] = (struct item){ ev[at[b]].t, true, at[b] };
		if (i < rec->nitems) {
			struct item x = rec->items[i];
			if (x.is_event)
				x.index = newidx[x.index];
			it[m++] = x;
		}
	}
	free(at);
	free(newidx);
	free(rec->events);
	free(rec->items);
	rec->events = ev;
	rec->nevents = rec->eventcap = ne;
	rec->items = it;
	rec->nitems = rec->itemcap = m;
}

/* One line: 0 when used or skipped, else -EINVAL / -ENOMEM with err. */
static int take_line(struct recording *rec, const char *path, size_t lineno, char *line,
                     size_t len, char *err, size_t errlen)
{
	struct json_error je;
	struct json *j = json_parse(line, len, &je);
	const char *type = json_str(json_get(j, "type"), NULL);
	if (!j || !type) {
		if (lineno == 1 || !rec->start)
			snprintf(err, errlen, "%s is not a benchtop recording (line %zu: %s)", path, lineno,
			         j ? "no \"type\"" : je.msg);
		else if (!j)
			snprintf(err, errlen, "%s:%zu:%d: broken record: %s", path, lineno, je.column, je.msg);
		else
			snprintf(err, errlen, "%s:%zu: broken record: not an object with a \"type\"", path, lineno);
		json_free(j);
		return -EINVAL;
	}
	int rc = 0;
	if (!rec->start) {
		if (strcmp(type, "start") || json_type(json_get(j, "version")) != JSON_NUMBER) {
			snprintf(err, errlen, "%s is not a benchtop recording (line %zu is a \"%s\" record, "
			         "not a start record with a version)", path, lineno, type);
			json_free(j);
			return -EINVAL;
		}
		rec->start = j;
		return set_names(rec);
	}
	if (!strcmp(type, "sample"))
		rc = add_sample(rec, j);
	else if (!strcmp(type, "event"))
		rc = add_event(rec, j);
	else if (!strcmp(type, "end") && !rec->end) {
		rec->end = j;
		return 0;
	}
	json_free(j);
	if (rc)
		snprintf(err, errlen, "%s:%zu: out of memory", path, lineno);
	return rc;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* One line of fp into *line (grown as needed, the newline kept, NUL bytes
 * in it kept too), at most RECORDING_LINE_MAX bytes: its length, -1 at the
 * end of the file, -E2BIG for a longer line (nothing more is read of it). */
static ssize_t read_line(FILE *fp, char **line, size_t *cap)
{
	size_t n = 0;
	int c;
	while ((c = getc_unlocked(fp)) != EOF) {
		if (n + 2 > *cap) {
			size_t want = *cap ? *cap * 2 : 4096;
			if (want > RECORDING_LINE_MAX + 2)
				want = RECORDING_LINE_MAX + 2;
			if (want <= *cap)
				return -E2BIG;
			*line = xrealloc(*line, want);
			*cap = want;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (!n)
		return -1;
	(*line)[n] = 0;
	return (ssize_t)n;
}

/* A recording is a regular file: a directory, a device (/dev/zero) or a
 * pipe is refused before anything is read. */
static FILE *open_recording(const char *path, char *err, size_t errlen, int *rc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	*rc = 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		*rc = -errno;
		snprintf(err, errlen, "cannot read recording %s: %s", path, strerror(-*rc));
	} else if (!S_ISREG(st.st_mode)) {
		*rc = -EINVAL;
		snprintf(err, errlen, "recording %s is not a regular file (it is %s): give a file "
		         "written by benchtop -o or --format json", path,
		         S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) ? "a character device" :
		         S_ISBLK(st.st_mode) ? "a block device" : S_ISFIFO(st.st_mode) ? "a pipe" :
		         "a socket");
	}
	FILE *fp = *rc ? NULL : fdopen(fd, "r");
	if (!fp && fd >= 0)
		close(fd);
	if (!fp && !*rc) {
		*rc = -errno;
		snprintf(err, errlen, "cannot read recording %s: %s", path, strerror(-*rc));
	}
	return fp;
}

int recording_load(const char *path, struct recording **out, char *err, size_t errlen)
{
	*out = NULL;
	int rc;
	FILE *fp = open_recording(path, err, errlen, &rc);
	if (!fp)
		return rc;
	struct recording *rec = xcalloc(1, sizeof *rec);
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	rc = rec ? 0 : -ENOMEM;
	while (!rc && (n = read_line(fp, &line, &cap)) != -1) {
		lineno++;
		if (n == -E2BIG) {
			snprintf(err, errlen, "%s:%zu: line longer than %d MiB: not a benchtop recording",
			         path, lineno, RECORDING_LINE_MAX >> 20);
			rc = -EINVAL;
			break;
		}
		if (n < 0) {
			rc = (int)n;
			break;
		}
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (!blank(line, (size_t)n))
			rc = take_line(rec, path, lineno, line, (size_t)n, err, errlen);
	}
	if (!rc && ferror(fp)) {
		rc = -errno;
		snprintf(err, errlen, "cannot read recording %s: %s", path, strerror(-rc));
	}
	free(line);
	fclose(fp);
	if (!rc && !rec->start) {
		snprintf(err, errlen, "%s is not a benchtop recording (it is empty)", path);
		rc = -EINVAL;
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory reading %s", path);
	if (rc) {
		recording_free(rec);
		return rc;
	}
	more_names(rec);
	add_steps(rec);
	*out = rec;
	return 0;
}

void recording_free(struct recording *rec)
{
	if (!rec)
		return;
	json_free(rec->start);
	json_free(rec->end);
	for (size_t i = 0; i < rec->nsamples; i++)
		snapshot_free(rec->samples[i]);
	free(rec->samples);
	free(rec->events);
	free(rec->items);
	for (int i = 0; rec->wl_names && i < rec->nwl; i++)
		free(rec->wl_names[i]);
	free(rec->wl_names);
	free(rec);
}

const struct json *recording_start(const struct recording *rec) { return rec->start; }
const struct json *recording_end(const struct recording *rec) { return rec->end; }
size_t recording_nsamples(const struct recording *rec) { return rec->nsamples; }
size_t recording_nevents(const struct recording *rec) { return rec->nevents; }
size_t recording_nitems(const struct recording *rec) { return rec->nitems; }
int recording_nwl(const struct recording *rec) { return rec->nwl; }

const struct snapshot *recording_sample(const struct recording *rec, size_t i)
{
	return i < rec->nsamples ? rec->samples[i] : NULL;
}

const struct event *recording_event(const struct recording *rec, size_t i)
{
	return i < rec->nevents ? &rec->events[i] : NULL;
}

double recording_item(const struct recording *rec, size_t i, bool *is_event, size_t *index)
{
	const struct item *it = &rec->items[i];
	*is_event = it->is_event;
	*index = it->index;
	return it->t;
}

const char *const *recording_wl_names(const struct recording *rec)
{
	return (const char *const *)rec->wl_names;
}

double recording_duration(const struct recording *rec)
{
	double last = rec->nitems ? rec->items[rec->nitems - 1].t : 0;
	double end = num(rec->end, "t", last);
	return end > last ? end : last;
}

const char *recording_cpufreq(const struct recording *rec)
{
	return json_str(json_get(rec->start, "cpufreq"), "none");
}

size_t recording_residency(const struct recording *rec, double t, bool last_only, int cpu,
                           long *khz, double *secs, size_t cap)
{
	const struct json *phases = json_get(rec->end, "phases");
	char key[16];
	snprintf(key, sizeof key, "%d", cpu);
	size_t n = 0, first = 0, upto = 0;
	while (upto < json_len(phases) && num(json_at(phases, upto), "to", INFINITY) <= t + 1e-9)
		upto++;
	if (last_only)
		first = upto ? upto - 1 : 0;
	for (size_t p = first; p < upto; p++) {
		const struct json *rows = json_get(json_get(json_at(phases, p), "residency"), key);
		for (size_t k = 0; k < json_len(rows); k++) {
			long f = atol(json_key(rows, k));
			double v = json_num(json_at(rows, k), 0);
			if (f > 0 && v > 0)
				freqrows_add(khz, secs, &n, cap, f, v);
		}
	}
	return n;
}

const char *recording_step_at(const struct recording *rec, double t, size_t *k, size_t *n)
{
	const struct json *ph = json_get(rec->end, "phases");
	size_t np = json_len(ph), i = 0;
	if (json_type(json_get(rec->end, "experiment")) != JSON_OBJECT || np == 0)
		return NULL;
	while (i + 1 < np && num(json_at(ph, i + 1), "from", INFINITY) <= t + 1e-9)
		i++;
	*k = i + 1;
	*n = np;
	return json_str(json_get(json_at(ph, i), "label"), NULL);
}

/* ---- the summary --------------------------------------------------------- */

void recording_print_summary(const struct recording *rec, enum units_mode u, FILE *fp)
{
	const struct json *end = rec->end;
	if (!end) {
		fprintf(fp, "\nThe recording has no end record (the run was cut short): no summary.\n");
		return;
	}
	struct run_tables t;
	summary_tables(rec->start, end, &t);
	tables_print(&t, u, fp);
	tables_free(&t);
	/* an experiment's table at its end, as the experiment printed it */
	const struct json *x = json_get(end, "experiment");
	if (x) {
		struct st_table t;
		fputc('\n', fp);
		if (st_from_json(x, &t) == 0)
			st_print_text(&t, fp);
		st_free(&t);
	}
	fflush(fp);
}

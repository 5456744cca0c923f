/* record_write.c - JSON Lines records (SPEC §4: start, sample, event, end) and
 * the batch text / CSV lines.  Writers only: they read the model. */
#include "benchtop/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchtop/cpufreq.h"
#include "benchtop/cpulist.h"
#include "benchtop/event_json.h"
#include "benchtop/json.h"
#include "benchtop/machine.h"
#include "benchtop/units.h"
#include "benchtop/workload.h"

/* The paths under test: every workload's files, the directory benchtop
 * works in, and for commands the directory they run in. */
static void record_machine(struct jw *w, const struct run *r, const char *dir)
{
	const char *paths[3 * 16 + 2];
	char cwd[4096];
	size_t n = 0;
	bool cmd = false;
	for (size_t i = 0; r && i < r->nwl && n + 3 < sizeof paths / sizeof *paths - 2; i++) {
		const struct wl_spec *s = &r->wl[i];
		paths[n++] = s->path;
		paths[n++] = s->src;
		paths[n++] = s->dst;
		cmd |= s->kind == WL_CMD;
	}
	if (dir && *dir)
		paths[n++] = dir;
	if ((cmd || n == 0) && getcwd(cwd, sizeof cwd))
		paths[n++] = cwd;
	machine_json(w, r ? r->sysfs : NULL, paths, n);
}

void record_start_head(struct jw *w, int ncpu, double interval, const struct run *r, const char *dir)
{
	char host[256] = "", when[64];
	gethostname(host, sizeof host - 1);
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", &tm);
	jw_obj(w, NULL);
	jw_str(w, "type", "start");
	jw_int(w, "version", 1);
	jw_str(w, "started", when);
	jw_str(w, "host", host);
	jw_int(w, "ncpu", ncpu);
	jw_num(w, "interval", interval);
	record_machine(w, r, dir);
}

void record_start(const struct run_out *o, FILE *fp)
{
	struct jw w;
	jw_begin(&w, fp);
	record_start_head(&w, o->ncpu, o->interval, o->run, o->scratch);
	jw_str(&w, "cpufreq", o->cf ? cpufreq_residency_kind(o->cf) : "none");
	enum freq_source fs = o->cf ? cpufreq_source(o->cf) : FREQ_NONE;
	jw_str(&w, "freq_source", fs == FREQ_NONE ? "none" : cpufreq_source_name(fs));
	if (o->cf)
		cpufreq_policies_json(o->cf, &w, "policies");
	jw_num(&w, "memcpy_bps", o->membw > 0 ? o->membw : NAN);
	if (o->prep_sync >= 0) {
		jw_obj(&w, "preparation");
		jw_fix(&w, "sync_s", o->prep_sync, 6);
		jw_fix(&w, "drop_caches_s", o->prep_drop, 6);
		jw_end(&w);
	}
	jw_str(&w, "units", units_name(o->units));
	jw_arr(&w, "workloads");
	for (int i = 0; i < o->nwl; i++) {
		const struct wl_spec *s = workload_spec(o->wl[i]);
		jw_obj(&w, NULL);
		jw_int(&w, "id", i + 1);
		jw_str(&w, "kind", cli_kind_name(s->kind));
		jw_str(&w, "spec", s->text ? s->text : workload_name(o->wl[i]));
		jw_str(&w, "name", workload_name(o->wl[i]));
		jw_end(&w);
	}
	jw_end(&w);
	if (o->nattached) {
		jw_arr(&w, "attached");
		for (size_t i = 0; i < o->nattached; i++)
			jw_int(&w, NULL, o->attached[i]);
		jw_end(&w);
	}
	jw_end(&w);
	fputc('\n', fp);
	fflush(fp);
}

static void record_cpus(struct jw *w, const struct snapshot *s)
{
	jw_arr(w, "cpus");
	for (int i = 0; i < s->ncpu; i++) {
		const struct cpu_sample *c = &s->cpus[i];
		jw_obj(w, NULL);
		jw_int(w, "id", c->id);
		jw_num(w, "user", c->user);
		jw_num(w, "system", c->system);
		jw_num(w, "iowait", c->iowait);
		jw_num(w, "irq", c->irq);
		jw_num(w, "idle", c->idle);
		if (c->khz > 0)
			jw_int(w, "khz", c->khz);
		else
			jw_null(w, "khz");
		jw_nstr(w, "governor", c->governor[0] ? c->governor : NULL);
		jw_end(w);
	}
	jw_end(w);
}

static void record_procs(struct jw *w, const struct snapshot *s)
{
	/* one list buffer for every process of the sample */
	size_t room = cpulist_size(s->ncpu);
	char *buf = s->nproc > 0 ? malloc(room) : NULL;
	jw_arr(w, "procs");
	for (int i = 0; i < s->nproc; i++) {
		const struct proc_sample *p = &s->procs[i];
		char state[2] = { p->state ? p->state : '?', 0 };
		jw_obj(w, NULL);
		jw_int(w, "pid", p->pid);
		jw_int(w, "workload", p->workload);
		jw_str(w, "role", p->role);
		jw_str(w, "slot", p->slot);
		jw_str(w, "comm", p->comm);
		jw_int(w, "cpu", p->cpu);
		bool known = buf && p->allowed && cpulist_count(p->allowed, s->ncpu);
		if (known)
			cpulist_format(p->allowed, s->ncpu, buf, room);
		jw_nstr(w, "allowed", known ? buf : NULL);  /* null: not read, it had ended */
		jw_str(w, "state", state);
		jw_int(w, "threads", p->nthreads);
		jw_num(w, "read_bps", p->read_bps);
		jw_num(w, "write_bps", p->write_bps);
		jw_num(w, "utime", p->utime);
		jw_num(w, "stime", p->stime);
		jw_num(w, "age", p->age);
		jw_num(w, "cpu_pct", p->cpu_pct);
		jw_num(w, "wait_pct", p->wait_pct);
		jw_uint(w, "bytes", p->bytes);
		jw_uint(w, "migrations", p->migrations);
		jw_end(w);
	}
	jw_end(w);
	free(buf);
}

static void record_wls(struct jw *w, const struct snapshot *s)
{
	jw_arr(w, "workloads");
	for (int i = 0; i < s->nwl; i++) {
		const struct wl_sample *l = &s->wls[i];
		jw_obj(w, NULL);
		jw_int(w, "id", l->id);
		jw_num(w, "read_bps", l->read_bps >= 0 ? l->read_bps : NAN);  /* unread: null */
		jw_num(w, "write_bps", l->write_bps >= 0 ? l->write_bps : NAN);
		jw_num(w, "us_per_call", l->us_per_call >= 0 ? l->us_per_call : NAN);
		jw_num(w, "utime", l->utime);
		jw_num(w, "stime", l->stime);
		jw_uint(w, "bytes", l->bytes);
		jw_uint(w, "calls", l->calls);
		jw_uint(w, "passes", l->passes);
		jw_str(w, "state", model_wl_state_name(l->state));
		if (l->counted)
			jw_str(w, "counted", l->counted == 'r' ? "read" : "written");
		jw_end(w);
	}
	jw_end(w);
}

void record_sample(const struct run_out *o, FILE *fp, const struct snapshot *s)
{
	struct jw w;
	jw_begin(&w, fp);
	jw_obj(&w, NULL);
	jw_str(&w, "type", "sample");
	jw_num(&w, "t", s->t + (fp == o->rec ? o->t_offset : 0));
	if (o->cell > 0 && fp == o->rec)
		jw_int(&w, "cell", o->cell);
	/* the measured interval every rate of this sample is over (wider
	 * than the asked one when a tick could not finish in time) */
	jw_num(&w, "interval", s->dt > 0 ? s->dt : NAN);
	record_cpus(&w, s);
	record_procs(&w, s);
	record_wls(&w, s);
	jw_obj(&w, "disk");
	jw_str(&w, "device", s->disk.device);
	jw_num(&w, "read_bps", s->disk.read_bps);
	jw_num(&w, "write_bps", s->disk.write_bps);
	jw_uint(&w, "dirty", s->disk.dirty);
	jw_uint(&w, "writeback", s->disk.writeback);
	jw_end(&w);
	jw_num(&w, "self_cpu_pct", s->self_cpu_pct);
	jw_num(&w, "self_tick_us", s->self_tick_us);
	jw_num(&w, "late", s->late);
	jw_end(&w);
	fputc('\n', fp);
}

void record_event(FILE *fp, const struct event *e)
{
	struct jw w;
	jw_begin(&w, fp);
	jw_obj(&w, NULL);
	jw_str(&w, "type", "event");
	jw_num(&w, "t", e->t);
	jw_str(&w, "action", event_name(e));
	jw_str(&w, "label", e->label);
	event_json_write(&w, "detail", e);
	jw_end(&w);
	fputc('\n', fp);
	fflush(fp);
}

void record_end(const struct run_out *o, FILE *fp)
{
	struct jw w;
	jw_begin(&w, fp);
	jw_obj(&w, NULL);
	jw_str(&w, "type", "end");
	jw_num(&w, "t", o->ended);
	jw_num(&w, "memcpy_bps", o->membw > 0 ? o->membw : NAN);
	summary_json(o, &w);
	jw_end(&w);
	fputc('\n', fp);
	fflush(fp);
}

/* ---- batch text and CSV -------------------------------------------------- */

void batch_header(const struct run_out *o, FILE *fp)
{
	bool csv = o->run->format == FMT_CSV;
	const char *u = units_rate_label(o->units);
	if (csv) {
		fprintf(fp, "t,write_%s,read_%s,disk_write_%s,disk_read_%s,dirty_bytes,writeback_bytes,bytes",
		        u, u, u, u);
		for (int c = 0; c < o->ncpu; c++)
			fprintf(fp, ",cpu%d_busy_pct,cpu%d_khz", c, c);
		fprintf(fp, ",procs,self_cpu_pct\n");
		return;
	}
	for (int i = 0; i < o->nwl; i++)
		fprintf(fp, "# workload %d: %s\n", i + 1, workload_name(o->wl[i]));
	fprintf(fp, "%7s %10s %10s %10s %10s %9s %9s %10s", "t", "write", "read", "disk_wr", "disk_rd",
	        "dirty", "wback", "bytes");
	for (int c = 0; c < o->ncpu; c++)
		fprintf(fp, " %5s%-2d %6s", "cpu", c, "MHz");
	fprintf(fp, " %5s %5s\n", "procs", "self%");
	fprintf(fp, "%7s %10s %10s %10s %10s %9s %9s %10s", "s", u, u, u, u, "MiB", "MiB", "MiB");
	for (int c = 0; c < o->ncpu; c++)
		fprintf(fp, " %7s %6s", "busy%", "");
	fprintf(fp, "\n");
}

void batch_line(const struct run_out *o, FILE *fp, const struct snapshot *s)
{
	if (o->run->format == FMT_JSON) {
		record_sample(o, fp, s);
		return;
	}
	double wr = 0, rd = 0;
	uint64_t bytes = 0;
	for (int i = 0; i < s->nwl; i++) {
		wr += s->wls[i].write_bps;
		rd += s->wls[i].read_bps;
		bytes += s->wls[i].bytes;
	}
	enum units_mode u = o->units;
	bool csv = o->run->format == FMT_CSV;
	const char *f = csv ? "%.3f,%.3f,%.3f,%.3f,%.3f,%llu,%llu,%llu" :
	                      "%7.2f %10.2f %10.2f %10.2f %10.2f %9.1f %9.1f %10.1f";
	if (csv)
		fprintf(fp, f, s->t, units_rate_value(u, wr), units_rate_value(u, rd),
		        units_rate_value(u, s->disk.write_bps), units_rate_value(u, s->disk.read_bps),
		        (unsigned long long)s->disk.dirty, (unsigned long long)s->disk.writeback,
		        (unsigned long long)bytes);
	else
		fprintf(fp, f, s->t, units_rate_value(u, wr), units_rate_value(u, rd),
		        units_rate_value(u, s->disk.write_bps), units_rate_value(u, s->disk.read_bps),
		        s->disk.dirty / 1048576.0, s->disk.writeback / 1048576.0, bytes / 1048576.0);
	for (int c = 0; c < s->ncpu; c++) {
		double busy = 100 - s->cpus[c].idle;
		if (csv)
			fprintf(fp, ",%.1f,%s", busy, "");
		if (csv && s->cpus[c].khz > 0)
			fprintf(fp, "%ld", s->cpus[c].khz);
		if (!csv && s->cpus[c].khz > 0)
			fprintf(fp, " %7.1f %6ld", busy, s->cpus[c].khz / 1000);
		else if (!csv)
			fprintf(fp, " %7.1f %6s", busy, "-");
	}
	fprintf(fp, csv ? ",%d,%.2f\n" : " %5d %5.1f\n", s->nproc, s->self_cpu_pct);
}

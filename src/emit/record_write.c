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
#include "benchtop/json.h"
#include "benchtop/machine.h"
#include "benchtop/units.h"
#include "benchtop/workload.h"

/* The paths under test: every workload's files, the directory benchtop
 * works in, and for commands the directory they run in. */
static void record_machine(FILE *fp, const struct run *r, const char *dir)
{
	const char *paths[3 * 16 + 2];
	char cwd[4096];
	size_t n = 0;
	bool cmd = false;
	for (size_t i = 0; r && i < r->nwl && n + 3 < sizeof paths / sizeof *paths - 2; i++) {
		const struct wl_spec *w = &r->wl[i];
		paths[n++] = w->path;
		paths[n++] = w->src;
		paths[n++] = w->dst;
		cmd |= w->kind == WL_CMD;
	}
	if (dir && *dir)
		paths[n++] = dir;
	if ((cmd || n == 0) && getcwd(cwd, sizeof cwd))
		paths[n++] = cwd;
	fputc(',', fp);
	machine_json(fp, r ? r->sysfs : NULL, paths, n);
}

void record_start_head(FILE *fp, int ncpu, double interval, const struct run *r, const char *dir)
{
	char host[256] = "", when[64];
	gethostname(host, sizeof host - 1);
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", &tm);
	fprintf(fp, "{\"type\":\"start\",\"version\":1,\"started\":");
	json_string(fp, when);
	json_member_string(fp, "host", host);
	fprintf(fp, ",\"ncpu\":%d,\"interval\":", ncpu);
	json_number(fp, interval);
	record_machine(fp, r, dir);
}

void record_start(const struct run_out *o, FILE *fp)
{
	record_start_head(fp, o->ncpu, o->interval, o->run, o->scratch);
	json_member_string(fp, "cpufreq", o->cf ? cpufreq_residency_kind(o->cf) : "none");
	fprintf(fp, ",\"freq_source\":");
	enum freq_source fs = o->cf ? cpufreq_source(o->cf) : FREQ_NONE;
	json_string(fp, fs == FREQ_NONE ? "none" : cpufreq_source_name(fs));
	if (o->cf) {
		fprintf(fp, ",\"policies\":");
		cpufreq_policies_json(o->cf, fp);
	}
	fprintf(fp, ",\"memcpy_bps\":");
	json_number(fp, o->membw > 0 ? o->membw : NAN);
	if (o->prep_sync >= 0)
		fprintf(fp, ",\"preparation\":{\"sync_s\":%.6f,\"drop_caches_s\":%.6f}", o->prep_sync, o->prep_drop);
	fprintf(fp, ",\"units\":\"%s\",\"workloads\":[", units_name(o->units));
	for (int i = 0; i < o->nwl; i++) {
		const struct wl_spec *s = workload_spec(o->wl[i]);
		fprintf(fp, "%s{\"id\":%d,\"kind\":\"%s\",\"spec\":", i ? "," : "", i + 1, cli_kind_name(s->kind));
		json_string(fp, s->text ? s->text : workload_name(o->wl[i]));
		json_member_string(fp, "name", workload_name(o->wl[i]));
		fputc('}', fp);
	}
	fprintf(fp, "]");
	if (o->nattached) {
		fprintf(fp, ",\"attached\":[");
		for (size_t i = 0; i < o->nattached; i++)
			fprintf(fp, "%s%d", i ? "," : "", (int)o->attached[i]);
		fprintf(fp, "]");
	}
	fprintf(fp, "}\n");
	fflush(fp);
}

static void record_cpus(FILE *fp, const struct snapshot *s)
{
	fprintf(fp, "\"cpus\":[");
	for (int i = 0; i < s->ncpu; i++) {
		const struct cpu_sample *c = &s->cpus[i];
		fprintf(fp, "%s{\"id\":%d,\"user\":", i ? "," : "", c->id);
		json_number(fp, c->user);
		json_member_number(fp, "system", c->system);
		json_member_number(fp, "iowait", c->iowait);
		json_member_number(fp, "irq", c->irq);
		json_member_number(fp, "idle", c->idle);
		if (c->khz > 0)
			fprintf(fp, ",\"khz\":%ld", c->khz);
		else
			fprintf(fp, ",\"khz\":null");
		fprintf(fp, ",\"governor\":");
		if (c->governor[0])
			json_string(fp, c->governor);
		else
			fputs("null", fp);
		fputc('}', fp);
	}
	fputc(']', fp);
}

static void record_procs(FILE *fp, const struct snapshot *s)
{
	fprintf(fp, ",\"procs\":[");
	for (int i = 0; i < s->nproc; i++) {
		const struct proc_sample *p = &s->procs[i];
		fprintf(fp, "%s{\"pid\":%d,\"workload\":%d,\"role\":", i ? "," : "", (int)p->pid, p->workload);
		json_string(fp, p->role);
		json_member_string(fp, "slot", p->slot);
		json_member_string(fp, "comm", p->comm);
		fprintf(fp, ",\"cpu\":%d,\"allowed\":", p->cpu);
		char *allowed = p->allowed && cpulist_count(p->allowed, s->ncpu) ? cpulist_text(p->allowed, s->ncpu) : NULL;
		if (allowed)
			json_string(fp, allowed);
		else
			fputs("null", fp);  /* not read: it had ended */
		free(allowed);
		fprintf(fp, ",\"state\":\"%c\",\"threads\":%d,\"read_bps\":", p->state ? p->state : '?',
		        p->nthreads);
		json_number(fp, p->read_bps);
		json_member_number(fp, "write_bps", p->write_bps);
		json_member_number(fp, "utime", p->utime);
		json_member_number(fp, "stime", p->stime);
		json_member_number(fp, "age", p->age);
		json_member_number(fp, "cpu_pct", p->cpu_pct);
		json_member_number(fp, "wait_pct", p->wait_pct);
		fprintf(fp, ",\"bytes\":%llu,\"migrations\":%llu}", (unsigned long long)p->bytes,
		        (unsigned long long)p->migrations);
	}
	fputc(']', fp);
}

void record_sample(const struct run_out *o, FILE *fp, const struct snapshot *s)
{
	fprintf(fp, "{\"type\":\"sample\",\"t\":");
	json_number(fp, s->t + (fp == o->rec ? o->t_offset : 0));
	if (o->cell > 0 && fp == o->rec)
		fprintf(fp, ",\"cell\":%d", o->cell);
	/* the measured interval every rate of this sample is over (wider
	 * than the asked one when a tick could not finish in time) */
	fprintf(fp, ",\"interval\":");
	json_number(fp, s->dt > 0 ? s->dt : NAN);
	fputc(',', fp);
	record_cpus(fp, s);
	record_procs(fp, s);
	fprintf(fp, ",\"workloads\":[");
	for (int i = 0; i < s->nwl; i++) {
		const struct wl_sample *w = &s->wls[i];
		fprintf(fp, "%s{\"id\":%d,\"read_bps\":", i ? "," : "", w->id);
		json_number(fp, w->read_bps >= 0 ? w->read_bps : NAN);  /* unread: null */
		json_member_number(fp, "write_bps", w->write_bps >= 0 ? w->write_bps : NAN);
		fprintf(fp, ",\"us_per_call\":");
		if (w->us_per_call >= 0)
			json_number(fp, w->us_per_call);
		else
			fputs("null", fp);
		json_member_number(fp, "utime", w->utime);
		json_member_number(fp, "stime", w->stime);
		fprintf(fp, ",\"bytes\":%llu,\"calls\":%llu,\"passes\":%llu,\"state\":\"%s\"",
		        (unsigned long long)w->bytes, (unsigned long long)w->calls,
		        (unsigned long long)w->passes, model_wl_state_name(w->state));
		if (w->counted)
			fprintf(fp, ",\"counted\":\"%s\"", w->counted == 'r' ? "read" : "written");
		fputc('}', fp);
	}
	fprintf(fp, "],\"disk\":{\"device\":");
	json_string(fp, s->disk.device);
	json_member_number(fp, "read_bps", s->disk.read_bps);
	json_member_number(fp, "write_bps", s->disk.write_bps);
	fprintf(fp, ",\"dirty\":%llu,\"writeback\":%llu},\"self_cpu_pct\":",
	        (unsigned long long)s->disk.dirty, (unsigned long long)s->disk.writeback);
	json_number(fp, s->self_cpu_pct);
	json_member_number(fp, "self_tick_us", s->self_tick_us);
	json_member_number(fp, "late", s->late);
	fprintf(fp, "}\n");
}

void record_event(FILE *fp, const struct event *e)
{
	fprintf(fp, "{\"type\":\"event\",\"t\":");
	json_number(fp, e->t);
	json_member_string(fp, "action", e->action);
	json_member_string(fp, "label", e->label);
	fprintf(fp, ",\"detail\":%s}\n", e->detail[0] ? e->detail : "{}");
	fflush(fp);
}

void record_end(const struct run_out *o, FILE *fp)
{
	fprintf(fp, "{\"type\":\"end\",\"t\":");
	json_number(fp, o->ended);
	fprintf(fp, ",\"memcpy_bps\":");
	json_number(fp, o->membw > 0 ? o->membw : NAN);
	fputc(',', fp);
	summary_json(o, fp);
	fprintf(fp, "}\n");
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

/* ui_synth.h - a synthetic run for dashboard tests and the frame
 * benchmark: ncpu CPUs, nproc processes in two workloads, nsamples ticks
 * of 0.5 s with throughput waves, migrations and two events. */
#ifndef BENCHTOP_UI_SYNTH_H
#define BENCHTOP_UI_SYNTH_H

#include <stdio.h>
#include <string.h>
#include "benchtop/model.h"
#include "benchtop/ui.h"

static const char *synth_wl_names[] = { "copy engine=pipe procs=3", "write bs=1m" };

static void synth_sample(struct snapshot *s, int ncpu, int nproc, int k)
{
	s->t = k * 0.5;
	s->dt = 0.5;
	s->self_cpu_pct = 0.7;
	for (int c = 0; c < ncpu; c++) {
		struct cpu_sample *cs = &s->cpus[c];
		cs->user = (k + c) % 50;
		cs->system = 10;
		cs->iowait = 5;
		cs->irq = 1;
		cs->idle = 100 - cs->user - 16;
		cs->khz = c % 2 ? -1 : 800000 + 100000 * (k % 18);
		snprintf(cs->governor, sizeof(cs->governor), "%s", c % 2 ? "" : "ondemand");
		snprintf(cs->procs, sizeof(cs->procs), "%d", 1000 + c % (nproc ? nproc : 1));
	}
	s->nproc = nproc;
	for (int p = 0; p < nproc; p++) {
		struct proc_sample *ps = &s->procs[p];
		memset(ps, 0, sizeof(*ps));
		ps->pid = 1000 + p;
		ps->workload = 1 + p % 2;
		snprintf(ps->role, sizeof(ps->role), "%s", p % 3 == 0 ? "reader" : "writer");
		snprintf(ps->comm, sizeof(ps->comm), "worker%d", p % 1000);
		ps->cpu = (p + k / 20) % ncpu;
		memset(snapshot_allowed(s, p), 1, (size_t)ncpu);
		ps->state = 'R';
		ps->nthreads = 1;
		ps->cpu_pct = 42.5;
		ps->wait_pct = 3.25;
		ps->utime = k * 0.2;
		ps->stime = k * 0.1;
		ps->read_bps = 1048576.0 * (k % 30);
		ps->write_bps = 2097152.0 * (k % 40);
		ps->bytes = (uint64_t)k << 20;
		ps->migrations = (uint64_t)k / 20;
		ps->alive = true;
	}
	for (int w = 0; w < s->nwl; w++) {
		s->wls[w].read_bps = 30.0 * 1048576 * (1 + (k % 40) / 40.0);
		s->wls[w].write_bps = 60.0 * 1048576 * (1 + (k % 25) / 25.0);
		s->wls[w].bytes = (uint64_t)k << 24;
		s->wls[w].state = WLS_RUNNING;
	}
	snprintf(s->disk.device, sizeof(s->disk.device), "vda");
	s->disk.write_bps = 100.0 * 1048576;
	s->disk.read_bps = 20.0 * 1048576;
	s->disk.dirty = 64u << 20;
	s->disk.writeback = 8u << 20;
}

/* Pushes one more sample (the frame benchmark's steady state). */
static int synth_push(struct history *h, struct snapshot *s, int ncpu, int nproc, int k)
{
	synth_sample(s, ncpu, nproc, k);
	return history_push(h, s);
}

static struct history *synth_history(int ncpu, int nproc, int nsamples, struct snapshot **sp)
{
	struct history *h = history_new((size_t)nsamples);
	struct snapshot *s = snapshot_new(ncpu, nproc, 2);
	if (!h || !s)
		return NULL;
	for (int k = 0; k < nsamples; k++) {
		synth_push(h, s, ncpu, nproc, k);
		if (k == nsamples / 3 || k == nsamples * 2 / 3) {
			struct event e;
			event_init(&e, EV_MARKER, s->t, k == nsamples / 3 ? "spread" : "ondemand");
			history_add_event(h, &e);
		}
	}
	*sp = s;
	return h;
}

static const long synth_khz[3] = { 800000, 1600000, 2600000 };
/* Since start: mean 1.98 GHz, 48% at 2.60 GHz; since the last event
 * (powersave, say): mean 1.25 GHz, 75% at 800 MHz. */
static const double synth_secs[3] = { 12, 40, 48 };
static const double synth_secs_event[3] = { 30, 0, 10 };

static size_t synth_residency(void *ctx, int cpu, bool since_event,
                              const long **khz, const double **secs)
{
	(void)ctx, (void)cpu;
	*khz = synth_khz;
	*secs = since_event ? synth_secs_event : synth_secs;
	return 3;
}

static void synth_view(struct ui_view *v, struct history *h)
{
	static const char *govs[] = { "performance", "powersave", "ondemand", NULL };
	static const long freqs[] = { 800000, 1600000, 2600000 };
	memset(v, 0, sizeof(*v));
	v->hist = h;
	v->wl_names = synth_wl_names;
	v->nwl = 2;
	v->status = "pinned 1000 to 0";
	v->units = UNITS_IEC;
	v->freq_source = "scaling_cur_freq";
	v->residency_label = "kernel stats";
	v->residency = synth_residency;
	v->elapsed = 300;
	v->governors = govs;
	v->freqs = freqs;
	v->nfreqs = 3;
	v->interval = 0.5;
}

#endif

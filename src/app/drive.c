/* drive.c - the one driver loop of a live run and a replay (drive.h). */
#include "benchtop/drive.h"

#include <string.h>

#include "benchtop/loop.h"
#include "benchtop/ui.h"
#include "benchtop/view.h"

void drive(const struct feed *f)
{
	bool lost = false;
	while (!f->done(f->ctx)) {
		struct loop_wake w;
		if (loop_wait(f->loop, f->timeout_ms(f->ctx), &w) < 0)
			break;
		if (f->serve)
			f->serve(f->ctx);
		/* a scrape alone changes nothing on screen */
		if (w.nfds && !w.timer && !w.term && !w.nsig)
			continue;
		f->wake(f->ctx, &w);
		/* the terminal has gone: end as on SIGHUP, never poll it again */
		if (f->dashboard && !lost && w.term && ui_terminal_lost(w.term, f->keys(f->ctx))) {
			lost = true;
			loop_set_term(f->loop, -1);
			f->lost(f->ctx);
		}
		if (f->dashboard && !lost)
			f->draw(f->ctx);
	}
}

void feed_view(struct ui_view *v, const struct feed_facts *f)
{
	memset(v, 0, sizeof *v);
	v->hist = f->hist;
	v->run = f->run;
	v->wl_names = f->wl_names;
	v->nwl = f->nwl;
	v->status = f->status;
	v->selected = f->vs->selected;
	v->units = f->vs->units;
	v->elapsed = f->elapsed;
	v->interval = f->interval;
	v->paused = f->paused;
	v->replay = f->recorded;
	v->freq_source = f->freq_source ? f->freq_source : "not observable here";
	const char *rk = f->residency_kind ? f->residency_kind : "none";
	bool kernel = !strcmp(rk, "kernel"), sampled = !strcmp(rk, "sampled");
	v->residency_label = kernel ? (f->recorded ? "kernel stats, phases that ended" : "kernel stats") :
	                     sampled ? (f->recorded ? "sampled, phases that ended" : "sampled") :
	                               "no cpufreq here (VM?)";
}

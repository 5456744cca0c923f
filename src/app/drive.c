/* drive.c - the one driver loop of a live run and a replay (drive.h). */
#include "benchtop/drive.h"

#include "benchtop/loop.h"
#include "benchtop/ui.h"

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

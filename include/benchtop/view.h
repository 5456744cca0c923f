/* view.h - what the person watching a run sets without touching the run:
 * the selected process, the units, the status line, and the screen
 * reactions (help, theme) the loop has yet to do.  One struct and one
 * handler of the view keys serve live runs (struct app) and replay. */
#ifndef BENCHTOP_VIEW_H
#define BENCHTOP_VIEW_H

#include <stdbool.h>

#include "benchtop/action.h"
#include "benchtop/units.h"

struct view_state {
	int selected;                /* index into the newest sample's processes */
	enum units_mode units;       /* u cycles them */
	unsigned react;              /* enum reaction bits the loop has yet to do */
	char status[256];            /* what the last key or action did */
};

/* Apply act to vs when it only changes the view (units, help, theme,
 * selection, a note for the status line), with nproc processes in the
 * newest sample; screen is false when no dashboard is drawn (help and
 * theme then do nothing).  Returns true when act was such an action. */
bool view_apply(struct view_state *vs, const struct action *act, int nproc, bool screen);

/* Keep the selection on one of nproc processes (0 when there is none). */
void view_clamp(struct view_state *vs, int nproc);

#endif

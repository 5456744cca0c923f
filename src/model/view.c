/* view.c - the view keys, the same for a live run and a replay: they
 * change what is shown (units, selection, help, theme, the status line)
 * and never the run.  Screen work is left to the loop as reaction bits. */
#include "benchtop/view.h"

#include <stdio.h>

void view_clamp(struct view_state *vs, int nproc)
{
	if (vs->selected >= nproc)
		vs->selected = nproc - 1;
	if (vs->selected < 0)
		vs->selected = 0;
}

bool view_apply(struct view_state *vs, const struct action *act, int nproc, bool screen)
{
	switch (act->id) {
	case ACT_UNITS:
		vs->units = units_next(vs->units);
		snprintf(vs->status, sizeof vs->status, "units: %s", units_title(vs->units));
		return true;
	case ACT_HELP:
		if (screen)
			vs->react |= REACT_HELP;
		return true;
	case ACT_THEME:
		if (screen)
			vs->react |= REACT_THEME;
		return true;
	case ACT_SEL_UP:
	case ACT_SEL_DOWN:
		vs->selected += act->id == ACT_SEL_UP ? -1 : 1;
		view_clamp(vs, nproc);
		return true;
	case ACT_SELECT:
		vs->selected = act->cpu;
		view_clamp(vs, nproc);
		return true;
	case ACT_NOTE:
		snprintf(vs->status, sizeof vs->status, "%s", act->text);
		return true;
	default:
		return false;
	}
}

/* stepmark.c - an experiment's step and the events of its set-up (see
 * stepmark.h). */
#include "benchtop/stepmark.h"

#include <stdio.h>
#include <string.h>

bool stepmark_says(const struct event *step, const struct event *e)
{
	char want[MODEL_LABEL_LEN + 16];
	if (!step || !e)
		return false;
	if (!strcmp(e->action, "governor") && !strncmp(e->label, "gov ", 4))
		snprintf(want, sizeof want, "governor=%s", e->label + 4);
	else if (!strcmp(e->action, "placement"))
		snprintf(want, sizeof want, "placement=%s", e->label);
	else
		return false;
	/* a whole word of the step's label */
	size_t n = strlen(want);
	for (const char *at = strstr(step->label, want); at; at = strstr(at + 1, want))
		if ((at[n] == 0 || at[n] == ' ') && (at == step->label || at[-1] == ' '))
			return true;
	return false;
}

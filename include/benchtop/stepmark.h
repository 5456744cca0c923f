/* stepmark.h - an experiment's step and the events of its set-up
 * (stepmark.c): what a chart need not label twice. */
#ifndef BENCHTOP_STEPMARK_H
#define BENCHTOP_STEPMARK_H

#include <stdbool.h>
#include "benchtop/model.h"

/* Does the label of an experiment's step (step: its "step" event, NULL
 * outside experiments) say what event e did as the step was set up
 * ("governor=powersave" for "gov powersave", "placement=free" for a
 * placement "free")?  Then e's marker needs no label of its own. */
bool stepmark_says(const struct event *step, const struct event *e);

#endif

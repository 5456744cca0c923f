/* clock.h - the one monotonic clock benchtop measures time with. */
#ifndef BENCHTOP_CLOCK_H
#define BENCHTOP_CLOCK_H

/* Seconds on CLOCK_MONOTONIC (since an arbitrary start, never jumps with
 * the wall clock); the same clock timerfds and the engines' phase marks
 * use, so times from any of them can be subtracted. */
double clock_mono(void);

#endif

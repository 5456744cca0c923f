/* num.h - small arithmetic the whole program shares. */
#ifndef BENCHTOP_NUM_H
#define BENCHTOP_NUM_H

/* a / b, or 0 when b is zero or too small to divide by (under 1e-9):
 * a rate over no time, a share of nothing. */
double num_div(double a, double b);

#endif

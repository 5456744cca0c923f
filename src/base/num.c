/* num.c - small arithmetic the whole program shares. */
#include "benchtop/num.h"

double num_div(double a, double b)
{
	return b > 1e-9 ? a / b : 0;
}

/* report.c - SVG and HTML from a recording. */
#include "benchtop/report.h"

int report_main(const struct run *r)
{
	(void)r;
	return 2;
}

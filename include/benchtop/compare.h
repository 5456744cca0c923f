/* compare.h - --compare FILE...: recordings, from one machine or many,
 * compiled into one table per kind of result (a study's own table when
 * the recordings share it, else the run summary) with a row per
 * recording, its file name and host, and the ratio of its rate to the
 * first row's; the machines' facts side by side above them; differing
 * machines, studies and units said in the notes. */
#ifndef BENCHTOP_COMPARE_H
#define BENCHTOP_COMPARE_H

#include "benchtop/cli.h"

/* Text (or --format csv|json) on stdout, or with -o OUT.html a page with
 * the tables and their bars.  Returns the exit status: 0; 2 for a file
 * that is not a recording; 3 for one that cannot be read, or OUT that
 * exists without --force or cannot be written. */
int compare_main(const struct run *r);

#endif

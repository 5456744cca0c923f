/* units.h - bytes and rates as text, with honest labels: IEC (KiB, MiB,
 * 1024^n), SI (kB, MB, 1000^n) or bits per second (Mbit/s). */
#ifndef BENCHTOP_UNITS_H
#define BENCHTOP_UNITS_H

#include <stddef.h>
#include <stdint.h>
#include "benchtop/cli.h"

/* The unit label for rates in mode m at the "mega" scale used by the
 * summary and the graph axis: "MiB/s", "MB/s", "Mbit/s". */
const char *units_rate_label(enum units_mode m);
/* A rate in bytes/s expressed in that unit (e.g. 1048576 -> 1.0 MiB/s). */
double units_rate_value(enum units_mode m, double bytes_per_s);
/* A rate with an automatically chosen prefix: "12.3 MiB/s", "850 kbit/s".
 * A rate that is unknown (NaN, negative, infinite) prints as "-". */
void units_fmt_rate(enum units_mode m, double bytes_per_s, char *buf, size_t len);
/* A byte count with an automatic prefix: "1.5 GiB", "1.6 GB" (bits mode
 * shows bytes in SI). */
void units_fmt_bytes(enum units_mode m, uint64_t bytes, char *buf, size_t len);
const char *units_name(enum units_mode m);  /* "iec", "si", "bits" */
/* How the status line names mode m: "IEC (MiB/s)", "SI (MB/s)",
 * "bits (Mbit/s)". */
const char *units_title(enum units_mode m);

/* "iec", "si" or "bits" -> *m.  Returns 0, or -EINVAL for any other word. */
int units_parse(const char *name, enum units_mode *m);
/* The mode after m in the cycle iec -> si -> bits -> iec (the `u` key). */
enum units_mode units_next(enum units_mode m);

#endif

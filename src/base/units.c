/* units.c - bytes and rates as text.  The prefix is chosen so the number
 * stays below 1000, and the label always names the base (KiB vs kB vs
 * kbit), so a reader never has to guess which "MB" is meant. */
#include "benchtop/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const iec_rate[] = { "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s" };
static const char *const si_rate[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s" };
static const char *const bit_rate[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", "Pbit/s" };
static const char *const iec_size[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
static const char *const si_size[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };

const char *units_name(enum units_mode m)
{
	switch (m) {
	case UNITS_SI: return "si";
	case UNITS_BITS: return "bits";
	case UNITS_IEC: break;
	}
	return "iec";
}

int units_parse(const char *name, enum units_mode *m)
{
	static const enum units_mode all[] = { UNITS_IEC, UNITS_SI, UNITS_BITS };
	for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++) {
		if (strcmp(name, units_name(all[i])) == 0) {
			*m = all[i];
			return 0;
		}
	}
	return -EINVAL;
}

const char *units_title(enum units_mode m)
{
	return m == UNITS_SI ? "SI (MB/s)" : m == UNITS_BITS ? "bits (Mbit/s)" : "IEC (MiB/s)";
}

enum units_mode units_next(enum units_mode m)
{
	switch (m) {
	case UNITS_IEC: return UNITS_SI;
	case UNITS_SI: return UNITS_BITS;
	case UNITS_BITS: break;
	}
	return UNITS_IEC;
}

const char *units_rate_label(enum units_mode m)
{
	switch (m) {
	case UNITS_SI: return "MB/s";
	case UNITS_BITS: return "Mbit/s";
	case UNITS_IEC: break;
	}
	return "MiB/s";
}

double units_rate_value(enum units_mode m, double bytes_per_s)
{
	switch (m) {
	case UNITS_SI: return bytes_per_s / 1e6;
	case UNITS_BITS: return bytes_per_s * 8.0 / 1e6;
	case UNITS_IEC: break;
	}
	return bytes_per_s / 1048576.0;
}

/* Scale v down by base until it is below 1000 (or the labels run out),
 * then print it with about three significant digits. */
static void fmt_scaled(double v, double base, const char *const *labels,
                       size_t nlabels, char *buf, size_t len)
{
	size_t i = 0;
	while (v >= 999.5 && i + 1 < nlabels) {
		v /= base;
		i++;
	}
	if (i == 0 && v == floor(v))
		snprintf(buf, len, "%.0f %s", v, labels[i]);
	else if (v < 9.995)
		snprintf(buf, len, "%.2f %s", v, labels[i]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f %s", v, labels[i]);
	else
		snprintf(buf, len, "%.0f %s", v, labels[i]);
}

void units_fmt_rate(enum units_mode m, double bytes_per_s, char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	if (isnan(bytes_per_s) || isinf(bytes_per_s) || bytes_per_s < 0) {
		snprintf(buf, len, "-");
		return;
	}
	switch (m) {
	case UNITS_SI:
		fmt_scaled(bytes_per_s, 1000.0, si_rate, 6, buf, len);
		break;
	case UNITS_BITS:
		fmt_scaled(bytes_per_s * 8.0, 1000.0, bit_rate, 6, buf, len);
		break;
	case UNITS_IEC:
		fmt_scaled(bytes_per_s, 1024.0, iec_rate, 6, buf, len);
		break;
	}
}

void units_fmt_bytes(enum units_mode m, uint64_t bytes, char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	if (m == UNITS_IEC)
		fmt_scaled((double)bytes, 1024.0, iec_size, 7, buf, len);
	else
		fmt_scaled((double)bytes, 1000.0, si_size, 7, buf, len);
}

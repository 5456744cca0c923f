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

/* What each mode is called and how it states a rate at the "mega" scale:
 * bytes/s times per_byte, divided by mega. */
static const struct mode {
	const char *name, *title, *rate_label;
	enum units_mode next;
	double per_byte, mega;
} modes[] = {
	[UNITS_IEC] = { "iec", "IEC (MiB/s)", "MiB/s", UNITS_SI, 1.0, 1048576.0 },
	[UNITS_SI] = { "si", "SI (MB/s)", "MB/s", UNITS_BITS, 1.0, 1e6 },
	[UNITS_BITS] = { "bits", "bits (Mbit/s)", "Mbit/s", UNITS_IEC, 8.0, 1e6 },
};

/* The row of m; any value that is no mode reads as IEC. */
static const struct mode *mode_of(enum units_mode m)
{
	return (unsigned)m < sizeof modes / sizeof modes[0] ? &modes[m] : &modes[UNITS_IEC];
}

const char *units_name(enum units_mode m)
{
	return mode_of(m)->name;
}

int units_parse(const char *name, enum units_mode *m)
{
	for (size_t i = 0; name && i < sizeof modes / sizeof modes[0]; i++) {
		if (strcmp(name, modes[i].name) == 0) {
			*m = (enum units_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *units_title(enum units_mode m)
{
	return mode_of(m)->title;
}

enum units_mode units_next(enum units_mode m)
{
	return mode_of(m)->next;
}

const char *units_rate_label(enum units_mode m)
{
	return mode_of(m)->rate_label;
}

double units_rate_value(enum units_mode m, double bytes_per_s)
{
	const struct mode *mo = mode_of(m);
	return bytes_per_s * mo->per_byte / mo->mega;
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

/* membw.h - the machine's memcpy bandwidth, measured in a few
 * milliseconds: the ceiling no honest byte rate on this machine can pass
 * (a sample's rate is checked against twice it). */
#ifndef BENCHTOP_MEMBW_H
#define BENCHTOP_MEMBW_H

/* Bytes per second memcpy moves between two 3 MiB buffers (best of a
 * few rounds); 0 when the buffers cannot be had. */
double membw_measure(void);

#endif

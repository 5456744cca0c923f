/* ceiling.h - the memcpy ceiling of this boot: the rate no honest byte
 * count on this machine can pass by far (a sample's rate is checked
 * against twice it).  It is measured once per boot, after a run's last
 * sample (never before the first one, never inside a phase), and kept in
 * the journal directory as "memcpy" ("BOOT_ID BYTES_PER_S"), so later
 * runs start without it. */
#ifndef BENCHTOP_CEILING_H
#define BENCHTOP_CEILING_H

/* The ceiling cached for this boot, bytes/s; 0 when none is cached (or
 * the file is not the user's own regular file, or names another boot). */
double ceiling_cached(void);

/* Measure the ceiling now (a few milliseconds) and cache it for this boot
 * where the journal directory allows; returns bytes/s, 0 when it could
 * not be measured. */
double ceiling_measure(void);

#endif

/* machine.h - the facts of the machine a run was made on, for the start
 * record, so results compiled from several machines say what each was:
 * CPU model and count, caches, memory, kernel, OS, and per path under
 * test its disk (device, model, rotational, scheduler) and file system
 * (type, mount options).  Read once, at the start. */
#ifndef BENCHTOP_MACHINE_H
#define BENCHTOP_MACHINE_H

#include <stddef.h>
#include <stdio.h>

/* Write the member "machine":{...} of the object w is in.  sysfs is the root of
 * the CPU tree (--sysfs; caches come from SYSFS/devices/system/cpu/cpu0/
 * cache); disks always from the real /sys and /proc/self/mountinfo, one
 * entry per distinct path in paths (NULLs skipped).  A fact that cannot
 * be read is null (caches: an empty list). */
struct jw;
void machine_json(struct jw *w, const char *sysfs, const char *const *paths, size_t npaths);

/* "32K", "8M", "1024" (bytes) as in sysfs cache sizes; 0 when bad. */
unsigned long long machine_parse_cache_size(const char *s);

#endif

/* machine.c - the machine's facts for the start record: /proc/cpuinfo's
 * model name, the online CPUs, cpu0's caches, MemTotal, uname -r,
 * os-release's PRETTY_NAME, and for each path under test the block device
 * under it (/sys/dev/block/MAJ:MIN, its whole disk's model, rotational and
 * scheduler) and its mount (/proc/self/mountinfo: type and options). */
#include "benchtop/machine.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "benchtop/json.h"
#include "benchtop/sysfile.h"

#define MACHINE_MAX_DISKS 16


/* The first "KEY : value" line of file whose KEY is one of keys. */
static bool file_field(const char *path, const char *const *keys, char sep, char *buf, size_t len)
{
	int e;
	FILE *f = sysfile_fopen_regular(path, &e);
	char line[512];
	bool found = false;
	if (!f)
		return false;
	while (!found && fgets(line, sizeof line, f)) {
		char *s = strchr(line, sep);
		if (!s)
			continue;
		char *k = line, *e = s;
		while (e > k && isspace((unsigned char)e[-1]))
			e--;
		for (const char *const *p = keys; *p && !found; p++)
			if ((size_t)(e - k) == strlen(*p) && !strncmp(k, *p, (size_t)(e - k))) {
				char *v = s + 1;
				while (isspace((unsigned char)*v) || *v == '"')
					v++;
				v[strcspn(v, "\"\n")] = 0;
				snprintf(buf, len, "%s", v);
				found = true;
			}
	}
	fclose(f);
	return found;
}

unsigned long long machine_parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	case 0: return v;
	default: return 0;
	}
}

static void caches_json(struct jw *w, const char *sysfs)
{
	char dir[4096], buf[64], type[32];
	jw_arr(w, "caches");
	for (int i = 0; i < 16; i++) {
		snprintf(dir, sizeof dir, "%s/devices/system/cpu/cpu0/cache/index%d", sysfs, i);
		if (sysfile_read(dir, "level", buf, sizeof buf) < 0)
			continue;
		int level = atoi(buf);
		if (sysfile_read(dir, "type", type, sizeof type) < 0)
			snprintf(type, sizeof type, "Unknown");
		unsigned long long size = sysfile_read(dir, "size", buf, sizeof buf) < 0 ? 0 : machine_parse_cache_size(buf);
		jw_obj(w, NULL);
		jw_int(w, "level", level);
		jw_str(w, "type", type);
		if (size)
			jw_uint(w, "size", size);
		else
			jw_null(w, "size");
		jw_end(w);
	}
	jw_end(w);
}

/* ---- disks ---- */

struct mount_of {
	char fstype[64], options[512];
};

/* The mount's options, then the file system's that it does not repeat
 * ("rw,relatime" and "rw,errors=remount-ro": "rw,relatime,errors=remount-ro"). */
static void join_options(char *out, size_t len, const char *mnt, char *super)
{
	size_t used = (size_t)snprintf(out, len, "%s", mnt);
	char *save = NULL;
	for (char *o = strtok_r(super, ",", &save); o && used < len; o = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(o);
		bool dup = false;
		for (const char *p = out; (p = strstr(p, o)) && !dup; p += n)
			dup = (p == out || p[-1] == ',') && (p[n] == ',' || p[n] == 0);
		if (!dup)
			used += (size_t)snprintf(out + used, len - used, ",%s", o);
	}
}

/* A mount point of mountinfo with its octal escapes (\040: a space) undone. */
static void unescape_mount(char *s)
{
	char *o = s;
	for (char *p = s; *p; o++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
		    p[3] <= '7') {
			*o = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 4;
		} else {
			*o = *p++;
		}
	}
	*o = 0;
}

/* Is mount point mnt at or above path? */
static bool mount_holds(const char *mnt, const char *path)
{
	size_t n = strlen(mnt);
	return !strcmp(mnt, "/") || (!strncmp(path, mnt, n) && (path[n] == '/' || path[n] == 0));
}

/* The mount of dev that path is under, as findmnt -T finds it: the
 * deepest mount point above path (of those on top of each other, the
 * last listed).  The same device is mounted elsewhere too (bind mounts,
 * a read-only view), with options of its own. */
static bool mount_of(const char *path, dev_t dev, struct mount_of *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], real[4096];
	size_t best = 0;
	bool found = false;
	if (!f)
		return false;
	/* path, else the nearest directory above it that exists */
	char near[4096];
	snprintf(near, sizeof near, "%s", path);
	while (!realpath(near, real)) {
		char *sl = strrchr(near, '/');
		if (!sl || sl == near) {
			snprintf(near, sizeof near, "%s", sl ? "/" : ".");
			if (!realpath(near, real))
				snprintf(real, sizeof real, "/");
			break;
		}
		*sl = 0;
	}
	while (fgets(line, sizeof line, f)) {
		unsigned ma, mi;
		char mnt[4096], opts[1024], *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*u %*u %u:%u %*s %4095s %1023s", &ma, &mi, mnt, opts) != 4)
			continue;
		unescape_mount(mnt);
		size_t depth = strlen(mnt);
		if (makedev(ma, mi) != dev || !mount_holds(mnt, real) || (found && depth < best))
			continue;
		char type[64], super[1024] = "";
		if (sscanf(dash + 3, "%63s %*s %1023s", type, super) < 1)
			continue;
		snprintf(m->fstype, sizeof m->fstype, "%s", type);
		join_options(m->options, sizeof m->options, opts, super);
		best = depth;
		found = true;
	}
	fclose(f);
	return found;
}

/* The [bracketed] word of a scheduler file, "none" when it is alone. */
static void scheduler_of(const char *queue, char *buf, size_t len)
{
	char s[256];
	buf[0] = 0;
	if (sysfile_read(queue, "scheduler", s, sizeof s) < 0)
		return;
	char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;
	if (a && b)
		snprintf(buf, len, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(buf, len, "%s", s);
}

static void disk_json(struct jw *w, const char *path, dev_t dev)
{
	char blk[128], link[4096], disk[4096], name[128] = "", model[256] = "", rot[16] = "", sched[64] = "";
	struct mount_of m = { "", "" };
	snprintf(blk, sizeof blk, "/sys/dev/block/%u:%u", major(dev), minor(dev));
	ssize_t n = readlink(blk, link, sizeof link - 1);
	if (n > 0) {
		link[n] = 0;
		snprintf(name, sizeof name, "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
		/* a partition's queue and model are its whole disk's */
		struct stat st;
		snprintf(disk, sizeof disk, "%s/partition", blk);
		if (stat(disk, &st) == 0)
			snprintf(disk, sizeof disk, "%s/..", blk);
		else
			snprintf(disk, sizeof disk, "%s", blk);
		char dd[4096 + 16];
		snprintf(dd, sizeof dd, "%s/device", disk);
		sysfile_read(dd, "model", model, sizeof model);
		snprintf(dd, sizeof dd, "%s/queue", disk);
		sysfile_read(dd, "rotational", rot, sizeof rot);
		scheduler_of(dd, sched, sizeof sched);
	}
	mount_of(path, dev, &m);
	jw_obj(w, NULL);
	jw_str(w, "path", path);
	jw_nstr(w, "device", name[0] ? name : NULL);
	jw_nstr(w, "model", model[0] ? model : NULL);
	if (rot[0] == '1' || rot[0] == '0')
		jw_bool(w, "rotational", rot[0] == '1');
	else
		jw_null(w, "rotational");
	jw_nstr(w, "scheduler", sched[0] ? sched : NULL);
	jw_nstr(w, "fstype", m.fstype[0] ? m.fstype : NULL);
	jw_nstr(w, "mount_options", m.options[0] ? m.options : NULL);
	jw_end(w);
}

/* path, else the nearest directory above it that exists (a file to be
 * made is judged by its directory). */
static int stat_near(const char *path, struct stat *st)
{
	char p[4096];
	snprintf(p, sizeof p, "%s", path);
	while (stat(p, st) != 0) {
		char *s = strrchr(p, '/');
		if (!s)
			return stat(".", st);
		if (s == p) {
			p[1] = 0;
			return stat(p, st);
		}
		*s = 0;
	}
	return 0;
}

static void disks_json(struct jw *w, const char *const *paths, size_t npaths)
{
	dev_t seen[MACHINE_MAX_DISKS];
	size_t nseen = 0;
	jw_arr(w, "disks");
	for (size_t i = 0; i < npaths && nseen < MACHINE_MAX_DISKS; i++) {
		struct stat st;
		if (!paths[i] || stat_near(paths[i], &st) != 0)
			continue;
		bool dup = false;
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = seen[k] == st.st_dev;
		if (dup)
			continue;
		disk_json(w, paths[i], st.st_dev);
		seen[nseen++] = st.st_dev;
	}
	jw_end(w);
}

void machine_json(struct jw *w, const char *sysfs, const char *const *paths, size_t npaths)
{
	static const char *const model_keys[] = { "model name", "Model", "cpu model", "Processor", "cpu", NULL };
	static const char *const os_keys[] = { "PRETTY_NAME", NULL };
	char model[256] = "", os[256] = "", mem[64] = "";
	struct utsname u;
	file_field("/proc/cpuinfo", model_keys, ':', model, sizeof model);
	if (!file_field("/etc/os-release", os_keys, '=', os, sizeof os))
		file_field("/usr/lib/os-release", os_keys, '=', os, sizeof os);
	static const char *const mem_keys[] = { "MemTotal", NULL };
	file_field("/proc/meminfo", mem_keys, ':', mem, sizeof mem);
	jw_obj(w, "machine");
	jw_nstr(w, "cpu_model", model[0] ? model : NULL);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	jw_int(w, "cpus", cpus > 0 ? cpus : 1);
	caches_json(w, sysfs && *sysfs ? sysfs : "/sys");
	unsigned long long kb = strtoull(mem, NULL, 10);
	if (kb)
		jw_uint(w, "memory", kb * 1024);
	else
		jw_null(w, "memory");
	jw_nstr(w, "kernel", uname(&u) == 0 ? u.release : NULL);
	jw_nstr(w, "os", os[0] ? os : uname(&u) == 0 ? u.sysname : NULL);
	disks_json(w, paths, npaths);
	jw_end(w);
}

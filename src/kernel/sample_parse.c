/* sample_parse.c - the sampler's small parsers for the /proc files it
 * reads through descriptors held open (stat, io, sched, schedstat) and
 * fdinfo, and the rate of a counter.  They take file contents, so tests
 * feed them fixtures. */
#include "benchtop/sample.h"

#include <stdlib.h>
#include <string.h>

/* The unsigned number after "key" and the ':' that follows it, at the
 * start of a line.  Returns 0 or -1. */
static int field_u64(const char *text, const char *key, int base, uint64_t *out)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0)
			continue;
		const char *q = p + klen;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != ':')
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		char *end;
		if (*q < '0' || *q > '9')
			return -1;
		unsigned long long v = strtoull(q, &end, base);
		if (end == q)
			return -1;
		*out = v;
		return 0;
	}
	return -1;
}

int sample_parse_sched_migrations(const char *text, uint64_t *migrations)
{
	return field_u64(text, "se.nr_migrations", 10, migrations);
}

/* schedstat: "run_ns wait_ns timeslices\n". */
int sample_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns)
{
	char *end;

	if (*text < '0' || *text > '9')
		return -1;
	unsigned long long run = strtoull(text, &end, 10);
	if (end == text || *end != ' ')
		return -1;
	const char *q = end + 1;
	if (*q < '0' || *q > '9')
		return -1;
	unsigned long long wait = strtoull(q, &end, 10);
	if (end == q)
		return -1;
	*run_ns = run;
	*wait_ns = wait;
	return 0;
}

int sample_parse_disk_stat(const char *text, uint64_t *rsect, uint64_t *wsect)
{
	unsigned long long v[7];
	const char *q = text;
	for (int k = 0; k < 7; k++) {
		char *end;
		while (*q == ' ')
			q++;
		if (*q < '0' || *q > '9')
			return -1;
		v[k] = strtoull(q, &end, 10);
		q = end;
	}
	*rsect = v[2];
	*wsect = v[6];
	return 0;
}

int sample_parse_io(const char *text, uint64_t *rchar, uint64_t *wchar,
                    uint64_t *read_bytes, uint64_t *write_bytes)
{
	if (field_u64(text, "rchar", 10, rchar) || field_u64(text, "wchar", 10, wchar) ||
	    field_u64(text, "read_bytes", 10, read_bytes) ||
	    field_u64(text, "write_bytes", 10, write_bytes))
		return -1;
	return 0;
}

/* The kernel prints fdinfo flags in octal ("flags:\t0100001"). */
int sample_parse_fdinfo(const char *text, uint64_t *pos, unsigned *flags)
{
	uint64_t f;

	if (field_u64(text, "pos", 10, pos) || field_u64(text, "flags", 8, &f))
		return -1;
	*flags = (unsigned)f;
	return 0;
}

/* stat: "PID (COMM) S PPID ..." where COMM may hold spaces and
 * parentheses (the last ')' ends it); fields as proc(5) numbers them. */
int sample_parse_stat(const char *text, struct sample_stat *st)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	if (!open || !close || close < open || close[1] != ' ')
		return -1;
	size_t len = (size_t)(close - open - 1);
	if (len >= sizeof st->comm)
		len = sizeof st->comm - 1;
	memcpy(st->comm, open + 1, len);
	st->comm[len] = '\0';
	const char *q = close + 2;
	if (!*q || *q == ' ')
		return -1;
	st->state = *q++;
	/* fields 4 (ppid) to 39 (processor), unsigned but for ppid and
	 * those the sampler skips */
	unsigned long long f[40] = { 0 };
	int n = 4;
	for (; n <= 39; n++) {
		while (*q == ' ')
			q++;
		if (*q == '-')
			q++;  /* a negative field the sampler does not use */
		if (*q < '0' || *q > '9')
			break;
		char *end;
		f[n] = strtoull(q, &end, 10);
		q = end;
	}
	if (n <= 39)
		return -1;
	st->ppid = (pid_t)f[4];
	st->utime = f[14];
	st->stime = f[15];
	st->nthreads = (int)f[20];
	st->start = f[22];
	st->cpu = (int)f[39];
	return 0;
}

double sample_rate(uint64_t before, uint64_t after, double dt)
{
	if (after < before || dt <= 0)
		return 0;
	return (double)(after - before) / dt;
}

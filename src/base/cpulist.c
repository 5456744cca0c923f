/* cpulist.c - CPU lists as users and the kernel write them ("0,2-3").
 * Depends on libc only: it is linked into the command-line fuzz harness.
 * Parsing is strict so that a typo at a prompt or in --at never silently
 * pins to the wrong CPUs; every error names the offending word. */
#include "benchtop/cpulist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACCEPTED "use CPU numbers and ranges separated by commas, such as 0 or 0,2-3"

/* The machine's CPUs as a phrase for messages: "CPU 0" or "CPUs 0-1". */
static void machine_cpus(int ncpu, char *buf, size_t len)
{
	if (ncpu == 1)
		snprintf(buf, len, "CPU 0");
	else
		snprintf(buf, len, "CPUs 0-%d", ncpu - 1);
}

/* Reads decimal digits from *p into *val.  Returns 0, -1 when there are no
 * digits, -2 when the number does not fit an int (still consumes them). */
static int read_number(const char **p, long long *val)
{
	const char *s = *p;
	long long v = 0;
	int big = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (!big)
			v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			big = 1;
	}
	*p = s;
	*val = v;
	return big ? -2 : 0;
}

/* Copies the word [w, end) into out for quoting in messages. */
static void word_copy(const char *w, const char *end, char *out, size_t outlen)
{
	size_t n = (size_t)(end - w);

	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, w, n);
	out[n] = '\0';
}

static int out_of_range(const char *num, int ncpu, char *err, size_t errlen)
{
	char have[48];

	machine_cpus(ncpu, have, sizeof have);
	snprintf(err, errlen, "CPU %s is out of range: this machine has %s", num, have);
	return -1;
}

/* Checks one number of a word: fits, and names a CPU below ncpu. */
static int check_cpu(int rc, const char *start, const char *end, long long v,
		     int ncpu, char *err, size_t errlen)
{
	char num[32];

	word_copy(start, end, num, sizeof num);
	if (rc == -2 || v >= ncpu)
		return out_of_range(num, ncpu, err, errlen);
	return 0;
}

/* Parses one word "N" or "N-M" (no commas) into mask. */
static int parse_word(const char *w, const char *end, unsigned char *mask, int ncpu,
		      char *err, size_t errlen)
{
	char word[64];
	const char *p = w, *numstart = w;
	long long lo, hi;
	int rc;

	word_copy(w, end, word, sizeof word);
	rc = read_number(&p, &lo);
	if (rc == -1 || (p != end && *p != '-'))
		goto bad;
	if (check_cpu(rc, numstart, p, lo, ncpu, err, errlen) < 0)
		return -1;
	hi = lo;
	if (p != end) {
		numstart = ++p;
		rc = read_number(&p, &hi);
		if (rc == -1 || p != end)
			goto bad;
		if (rc != -2 && hi < lo) {
			snprintf(err, errlen, "CPU range \"%s\" runs backwards: write the lower CPU "
				 "first, such as %lld-%lld", word, hi, lo);
			return -1;
		}
		if (check_cpu(rc, numstart, p, hi, ncpu, err, errlen) < 0)
			return -1;
	}
	for (long long c = lo; c <= hi; c++)
		mask[c] = 1;
	return 0;
bad:
	snprintf(err, errlen, "\"%s\" is not a CPU number or range: " ACCEPTED, word);
	return -1;
}

int cpulist_parse(const char *s, unsigned char *mask, int ncpu, char *err, size_t errlen)
{
	if (ncpu <= 0) {
		snprintf(err, errlen, "no CPUs to choose from (CPU count %d)", ncpu);
		return -1;
	}
	memset(mask, 0, (size_t)ncpu);
	if (!s || !*s) {
		snprintf(err, errlen, "empty CPU list: " ACCEPTED);
		return -1;
	}
	for (const char *w = s;;) {
		const char *end = strchr(w, ',');

		if (!end)
			end = w + strlen(w);
		if (end == w) {
			snprintf(err, errlen, "CPU list \"%s\" has an empty entry between commas: "
				 ACCEPTED, s);
			return -1;
		}
		if (parse_word(w, end, mask, ncpu, err, errlen) < 0) {
			memset(mask, 0, (size_t)ncpu);  /* no half-parsed set to misuse */
			return -1;
		}
		if (!*end)
			return 0;
		w = end + 1;
	}
}

/* Appends "a" or "a-b" (with a leading comma unless first) to buf. */
static size_t append_run(char *buf, size_t len, size_t used, int a, int b)
{
	int n;

	if (used >= len)
		return used;
	if (a == b)
		n = snprintf(buf + used, len - used, "%s%d", used ? "," : "", a);
	else
		n = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", a, b);
	if (n < 0 || (size_t)n >= len - used) {
		buf[used] = '\0';  /* no half-written run; stop adding */
		return len;
	}
	return used + (size_t)n;
}

void cpulist_format(const unsigned char *mask, int ncpu, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int c = 0; c < ncpu; c++) {
		int start = c;

		if (!mask[c])
			continue;
		while (c + 1 < ncpu && mask[c + 1])
			c++;
		used = append_run(buf, len, used, start, c);
	}
}

size_t cpulist_size(int ncpu)
{
	size_t digits = 1;
	for (int n = ncpu > 1 ? ncpu - 1 : 1; n >= 10; n /= 10)
		digits++;
	return (size_t)(ncpu > 0 ? ncpu : 1) * (digits + 1) + 1;
}

char *cpulist_text(const unsigned char *mask, int ncpu)
{
	size_t len = cpulist_size(ncpu);
	char *buf = malloc(len);
	if (buf)
		cpulist_format(mask, ncpu, buf, len);
	return buf;
}

int cpulist_count(const unsigned char *mask, int ncpu)
{
	int n = 0;

	for (int c = 0; c < ncpu; c++)
		n += mask[c] != 0;
	return n;
}

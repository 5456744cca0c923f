/* xalloc.c - allocation that fails loudly (one policy for the program). */
#include "benchtop/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void (*fatal_hook)(void);

void xalloc_on_fatal(void (*fn)(void))
{
	fatal_hook = fn;
}

_Noreturn void xalloc_die(const char *what)
{
	void (*fn)(void) = fatal_hook;

	fatal_hook = NULL;   /* a hook that fails the same way ends here */
	if (fn)
		fn();
	fprintf(stderr, "benchtop: out of memory (%s)\n", what);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		xalloc_die("malloc");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		xalloc_die("calloc");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		xalloc_die("realloc");
	return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		xalloc_die("array size overflows");
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		xalloc_die("strdup");
	return d;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d)
		xalloc_die("strndup");
	return d;
}

/* xalloc.h - benchtop's one out-of-memory policy: allocation never fails
 * quietly.  When memory runs out, the hook set with xalloc_on_fatal runs
 * (the dashboard restores the terminal there), "benchtop: out of memory"
 * goes to stderr and the process exits with status 1.  Callers need no
 * NULL checks. */
#ifndef BENCHTOP_XALLOC_H
#define BENCHTOP_XALLOC_H

#include <stddef.h>

/* malloc(n); n 0 gives a valid pointer to free. */
void *xmalloc(size_t n);
/* calloc(n, size): zeroed, the product checked for overflow. */
void *xcalloc(size_t n, size_t size);
/* realloc(p, n) (p may be NULL); n 0 gives a valid pointer to free. */
void *xrealloc(void *p, size_t n);
/* realloc(p, n * size) with the product checked for overflow. */
void *xreallocarray(void *p, size_t n, size_t size);
/* strdup(s). */
char *xstrdup(const char *s);
/* A copy of at most n bytes of s, NUL-terminated. */
char *xstrndup(const char *s, size_t n);
/* fn (or NULL for none) runs once before the out-of-memory exit; it must
 * not allocate. */
void xalloc_on_fatal(void (*fn)(void));
/* The out-of-memory exit itself, for callers whose allocator is not one
 * of the above (e.g. ncurses'): what failed goes into the message. */
_Noreturn void xalloc_die(const char *what);

#endif

/* strv.h - arrays of malloc'd strings, freed with the strings they hold. */
#ifndef BENCHTOP_STRV_H
#define BENCHTOP_STRV_H

#include <stddef.h>

/* Free each string of the NULL-terminated array v, then v (NULL: nothing). */
void strv_free(char **v);
/* Free the first n strings of v, then v itself. */
void strv_free_n(char **v, size_t n);

#endif

/* strv.c - arrays of malloc'd strings (strv.h). */
#include "benchtop/strv.h"

#include <stdlib.h>

void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void strv_free_n(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

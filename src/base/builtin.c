/* builtin.c - looking up the presets and themes compiled into benchtop. */
#include "benchtop/builtin.h"

#include <string.h>

const char *builtin_text(const char *kind, const char *name)
{
	for (const struct builtin_file *f = builtin_files; f->kind; f++)
		if (!strcmp(f->kind, kind) && !strcmp(f->name, name))
			return f->text;
	return NULL;
}

const char *builtin_name(const char *kind, size_t i)
{
	for (const struct builtin_file *f = builtin_files; f->kind; f++)
		if (!strcmp(f->kind, kind) && i-- == 0)
			return f->name;
	return NULL;
}

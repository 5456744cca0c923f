/* builtin.h - the presets and themes shipped with benchtop, compiled into
 * the binary (mk/embed.sh generates the table from presets/NAME.preset and
 * themes/NAME.theme at build time), so they work from any directory whether
 * benchtop is installed or not.  Files in $XDG_CONFIG_HOME/benchtop/ and
 * the installed share directory add to them or override them by name. */
#ifndef BENCHTOP_BUILTIN_H
#define BENCHTOP_BUILTIN_H

#include <stddef.h>

struct builtin_file {
	const char *kind;   /* "preset" or "theme": the file's extension */
	const char *name;   /* the file's name without directory and extension */
	const char *text;   /* its whole text */
};
/* Ends with a row of NULLs. */
extern const struct builtin_file builtin_files[];

/* The text of built-in KIND NAME, or NULL. */
const char *builtin_text(const char *kind, const char *name);
/* The i-th built-in name of KIND (0-based, in file-name order), or NULL
 * past the last. */
const char *builtin_name(const char *kind, size_t i);

#endif

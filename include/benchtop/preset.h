/* preset.h - named experiments: a preset file holds benchtop arguments
 * (one run per args line) that merge with the user's command line. */
#ifndef BENCHTOP_PRESET_H
#define BENCHTOP_PRESET_H

#include <stddef.h>
#include <stdio.h>
#include "benchtop/cli.h"

/* A preset file (presets/NAME.preset): lines of
 *     # comment
 *     description = free text
 *     study = NAME
 *     args = benchtop arguments
 * Blank lines and comments are skipped; keys are description, study and
 * args (each args line is one run, run in order; at least one unless a
 * study is named).  study names one of benchtop's built-in studies
 * (experiment.h), which plans its own runs: the args lines then only set
 * its options (--cell, --drop-caches, -w ...:path=DIR).  Arguments are
 * split on blanks; '...' keeps everything literally, "..." keeps blanks and
 * takes \" and \\, a backslash outside quotes escapes the next character. */
#define PRESET_MAX_RUNS 16
struct preset {
	char *description;              /* NULL when the file has none */
	char *study;                    /* NULL when the file names none */
	int nruns;
	int argc[PRESET_MAX_RUNS];
	char **argv[PRESET_MAX_RUNS];   /* each NULL-terminated, malloc'd words */
};

/* Parse the text of a preset file; where names the file in messages.
 * 0, or -EINVAL with "where:LINE: what is wrong, what would do" in err.
 * On failure *p is left empty (preset_free is harmless). */
int preset_parse(const char *text, const char *where, struct preset *p, char *err, size_t errlen);
void preset_free(struct preset *p);

/* Split one args value into words (rules above).  *argv is malloc'd and
 * NULL-terminated; free with preset_free_words.  0 or -EINVAL + err. */
int preset_split(const char *s, int *argc, char ***argv, char *err, size_t errlen);
void preset_free_words(char **argv);

/* Where preset NAME lives: NAME itself when it holds a '/', else the first
 * of $XDG_CONFIG_HOME/benchtop/presets (or ~/.config/benchtop/presets) and
 * BENCHTOP_SHAREDIR/presets with NAME.preset, else "built-in:NAME" for a
 * preset compiled into benchtop (builtin.h).  0 or -ENOENT. */
int preset_find(const char *name, char *path, size_t len);
/* Every preset name (those directories' and the built-in ones), sorted,
 * ", "-separated, into buf. */
void preset_names(char *buf, size_t len);
/* --preset list: one line per preset, its name and description.  Returns
 * how many. */
int preset_list(FILE *fp);
/* preset_find + read + preset_parse.  -ENOENT (err lists the names),
 * -EINVAL (a bad file) or another -errno. */
int preset_load(const char *name, struct preset *p, char *err, size_t errlen);

/* Run k of preset p merged with the user's command line (argv as given to
 * main, holding --preset): the preset's words first, then the user's.
 * An option the user gives replaces the preset's (--at adds to it); -w or
 * a command replaces all the preset's workloads; --sweep or --matrix
 * replaces the preset's experiment.  The result is parsed by cli_parse
 * into *out (free with cli_free).  0, or -1 with a message in err. */
int preset_merge(const struct preset *p, int k, const char *name, int argc, char **argv,
                 struct run *out, char *err, size_t errlen);

#endif

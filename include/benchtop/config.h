/* config.h - defaults for long options from a file
 * ($XDG_CONFIG_HOME/benchtop/config, else ~/.config/benchtop/config).
 *
 * One `option = value` per line, with the command line's long option names
 * (no dashes); a flag takes true/false, yes/no, on/off or 1/0 (false
 * leaves it out); `#` starts a comment line; blank lines are skipped.
 * The file's options go before the command line's, and an option the
 * command line gives drops the file's (the command line wins).
 * Pure text in, words out: no exit(), and no I/O except config_load. */
#ifndef BENCHTOP_CONFIG_H
#define BENCHTOP_CONFIG_H

#include <limits.h>
#include <stddef.h>

/* The file's options as command-line words: "--interval=1", "--loop". */
struct config {
	char **words;
	int nwords;
	int *opt;        /* per word: its row in cli_options[] */
};

/* Parse a config text of len bytes (need not end in NUL; a NUL byte inside
 * is an error).  file names the text in messages.  0 and *out filled (free
 * with config_free), or -1 with err as "FILE:LINE: what is wrong and what
 * would be accepted" and *out empty.  Every value is checked by the
 * option's own parser, so a bad value is reported at its line. */
int config_parse_text(const char *text, size_t len, const char *file,
                      struct config *out, char *err, size_t errlen);
void config_free(struct config *c);

/* The config file's path: $XDG_CONFIG_HOME/benchtop/config, else
 * $HOME/.config/benchtop/config; 0, or -1 when neither is set. */
int config_path(char *buf, size_t len);

/* The directories whose NAME files of one kind (sub: "presets", "themes")
 * add to or override the built-in ones, the first one winning: the user's
 * ($XDG_CONFIG_HOME/benchtop/SUB, else $HOME/.config/benchtop/SUB, when
 * either is set), then BENCHTOP_SHAREDIR/SUB.  Returns how many were
 * filled. */
int config_search_dirs(const char *sub, char dirs[2][PATH_MAX]);

/* Read and parse the file at path; a missing file is an empty config.
 * 0, or -1 with err (unreadable file, or a bad line as above). */
int config_load(const char *path, struct config *out, char *err, size_t errlen);

/* The words to parse: argv[0], the config's words for options the command
 * line does not give, then argv[1..].  *nargv is malloc'd (the strings are
 * borrowed from c and argv); free(*nargv) when done. */
int config_merge_argv(const struct config *c, int argc, char **argv,
                      int *nargc, char ***nargv);

#endif

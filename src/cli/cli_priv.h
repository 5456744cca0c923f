/* cli_priv.h - what src/cli/cli.c (options, parser, --help), spec.c
 * (workload specs, --at) and scalar.c (sizes, times, numbers, words)
 * share, with config.c for its error messages, and nothing else sees. */
#ifndef BENCHTOP_CLI_PRIV_H
#define BENCHTOP_CLI_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "benchtop/cli.h"

#define TIME_HINT "use a number of seconds with an optional unit ms, s or min (e.g. 500ms, 2min)"
#define MAX_BS (1ull << 30)      /* a bigger buffer per call only tests malloc */

/* Writes the message and returns -1, so error paths are one line. */
__attribute__((format(printf, 3, 4)))
static inline int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- scalar.c ---- */

/* A whole number in [lo, hi] into *out; 0, or -1 with err naming `what`. */
int cli_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
             const char *what, char *err, size_t errlen);
/* Syntax check of a CPU list (any CPU count); 0 or -1 naming `what`. */
int cli_check_cpulist(const char *s, const char *what, char *err, size_t errlen);
/* A governor or preset name a sysfs file name can hold; 0 or -1. */
int cli_check_name(const char *s, const char *what, char *err, size_t errlen);
/* "2600000", "2600000kHz", "2600MHz", "2.6GHz" -> kHz; 0 or -1. */
int cli_parse_khz(const char *s, long *out, char *err, size_t errlen);
/* The NULL-terminated word list w as "a, b or c" into buf. */
void cli_join_words(const char *const *w, char *buf, size_t len);
/* The index of s in the NULL-terminated list w, or -1. */
int cli_word_index(const char *const *w, const char *s);
/* text word-wrapped to 80 columns, continuation lines indented to col;
 * the first line starts at column col (the caller printed what is left
 * of it). */
void cli_wrap(FILE *fp, const char *text, int col);

/* ---- spec.c ---- */

/* A spec of `kind` with every default, text copied as its label. */
void cli_spec_defaults(struct wl_spec *w, enum wl_kind kind, const char *text);
/* The workload part of --help: kinds with their keys, then every key. */
void cli_help_workloads(FILE *fp);

#endif

/* shown.h - text that reaches a terminal from outside benchtop (a config
 * or theme file's bytes, a file name) is shown, never obeyed: control
 * characters are written as escapes, so a message cannot move the cursor,
 * retitle the window or clear the screen. */
#ifndef BENCHTOP_SHOWN_H
#define BENCHTOP_SHOWN_H

#include <stdbool.h>
#include <stddef.h>

/* Rewrite the string s (in a buffer of size bytes) with every byte below
 * 0x20 and 0x7f as \xNN, cut to fit.  Text without them is unchanged, so
 * escaping twice is escaping once. */
void shown_escape(char *s, size_t size);

#endif

/* theme.h - colours by role.  A theme file maps roles to colours, one
 * `role = colour` line each ("# comments" and blank lines allowed):
 *
 *     title = bright-cyan
 *     select = black on cyan
 *     marker = 208 bold
 *
 * A colour is a name (default, black, red, green, yellow, blue, magenta,
 * cyan, white, bright-black .. bright-white) or a number 0-255; "on COLOUR"
 * sets the background and "bold" the attribute.  Roles not named keep the
 * built-in default.  Nothing here touches curses: the dashboard turns a
 * struct theme into colour pairs. */
#ifndef BENCHTOP_THEME_H
#define BENCHTOP_THEME_H

#include <stdbool.h>
#include <stddef.h>

/* Every role once: enum name, file key.  The enum and the key list are
 * both made from this list, so they cannot drift apart. */
#define THEME_ROLES(X) \
	X(NORMAL, "normal") X(TITLE, "title") X(HEADER, "header") \
	X(STATUS, "status") X(SELECT, "select") X(AXIS, "axis") \
	X(WRITE, "write") X(READ, "read") X(DISK_WRITE, "disk-write") \
	X(DISK_READ, "disk-read") X(DIRTY, "dirty") X(MARKER, "marker") \
	X(USER, "user") X(SYSTEM, "system") X(IOWAIT, "iowait") X(IRQ, "irq") \
	X(FREQ_LO, "freq-low") X(FREQ_MID, "freq-mid") X(FREQ_HI, "freq-high") \
	X(WARN, "warn") X(KEY, "key") X(DIM, "dim") \
	X(WL1, "wl1") X(WL2, "wl2") X(WL3, "wl3") X(WL4, "wl4") \
	X(CPU0, "cpu0") X(CPU1, "cpu1") X(CPU2, "cpu2") X(CPU3, "cpu3") \
	X(CPU4, "cpu4") X(CPU5, "cpu5") X(CPU6, "cpu6") X(CPU7, "cpu7") \
	X(MARK_PLACE, "marker-placement") X(MARK_FREQ, "marker-governor") \
	X(MARK_PAUSE, "marker-pause") X(MARK_END, "marker-end")

enum theme_role {
#define THEME_ENUM(e, key) ROLE_##e,
	THEME_ROLES(THEME_ENUM)
#undef THEME_ENUM
	ROLE_COUNT
};

/* Per-workload graph lines cycle through this many roles. */
#define THEME_NWL_ROLES (ROLE_WL4 - ROLE_WL1 + 1)
/* Placement colours cycle through this many CPU roles. */
#define THEME_NCPU_ROLES (ROLE_CPU7 - ROLE_CPU0 + 1)

#define THEME_DEFAULT_COLOUR (-1)
#define THEME_NAME_LEN 64

struct theme {
	char name[THEME_NAME_LEN];
	short fg[ROLE_COUNT], bg[ROLE_COUNT];   /* -1 = terminal default */
	bool bold[ROLE_COUNT];
};

/* The built-in default theme (used when no theme file can be found). */
void theme_builtin(struct theme *t);
/* Parse theme text over *t (which keeps the roles the text does not name).
 * file names the source in messages.  Returns 0, or -EINVAL with err
 * "FILE:LINE: unknown colour 'WORD' (...)" naming file, line and word. */
int theme_parse(const char *text, const char *file, struct theme *t,
                char *err, size_t errlen);
/* Load a file over the built-in default; the name is the file's base name
 * without ".theme".  0, -errno (err says which file) or -EINVAL. */
int theme_load_file(const char *path, struct theme *t, char *err, size_t errlen);
/* Find a theme: a FILE (contains '/' or ends in ".theme") is used as is;
 * a NAME is looked up as NAME.theme in $XDG_CONFIG_HOME/benchtop/themes
 * (else ~/.config/benchtop/themes) and BENCHTOP_SHAREDIR/themes, else
 * among the themes compiled in (builtin.h): then the path written is
 * "built-in:NAME".  Writes the path found; 0 or -ENOENT. */
int theme_find(const char *name, char *path, size_t len);
/* theme_find + theme_load_file; NULL name = "default" (and then a missing
 * file is not an error: the built-in default is used). */
int theme_load(const char *name, struct theme *t, char *err, size_t errlen);
/* Names of the themes in the search directories and the built-in ones,
 * sorted, without duplicates; fills up to max names, returns how many. */
size_t theme_list(char (*names)[THEME_NAME_LEN], size_t max);
/* A 0-255 colour mapped to the nearest of the 8 basic ones (8-colour
 * terminals); greys become -1, the terminal's own foreground, readable on
 * dark and light backgrounds alike; -1 stays -1. */
short theme_fallback8(short c);

#endif

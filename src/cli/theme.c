/* theme.c - theme files: `role = colour [on colour] [bold]` lines. */
#include "benchtop/theme.h"
#include "benchtop/sysfile.h"
#include "benchtop/shown.h"
#include "benchtop/xalloc.h"

#include "benchtop/builtin.h"
#include "benchtop/config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef BENCHTOP_SHAREDIR
#define BENCHTOP_SHAREDIR "/usr/local/share/benchtop"
#endif

static const char *const role_keys[ROLE_COUNT] = {
#define THEME_KEY(e, key) key,
	THEME_ROLES(THEME_KEY)
#undef THEME_KEY
};

static const char *const colour_names[16] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
	"bright-black", "bright-red", "bright-green", "bright-yellow",
	"bright-blue", "bright-magenta", "bright-cyan", "bright-white",
};

void theme_builtin(struct theme *t)
{
	/* Kept in step with themes/default.theme so an installed binary
	 * without its share directory still looks the same. */
	static const struct { enum theme_role r; short fg, bg; bool bold; } d[] = {
		{ ROLE_TITLE, 6, -1, true }, { ROLE_HEADER, 0, 6, false },
		{ ROLE_STATUS, 3, -1, false }, { ROLE_SELECT, 0, 6, false },
		{ ROLE_AXIS, 8, -1, false }, { ROLE_WRITE, 10, -1, true },
		{ ROLE_READ, 14, -1, true }, { ROLE_DISK_WRITE, 1, -1, false },
		{ ROLE_DISK_READ, 4, -1, false }, { ROLE_DIRTY, 3, -1, false },
		{ ROLE_MARKER, 5, -1, true }, { ROLE_USER, 2, -1, false },
		{ ROLE_SYSTEM, 1, -1, false }, { ROLE_IOWAIT, 4, -1, false },
		{ ROLE_IRQ, 5, -1, false }, { ROLE_FREQ_LO, 4, -1, false },
		{ ROLE_FREQ_MID, 3, -1, false }, { ROLE_FREQ_HI, 1, -1, false },
		{ ROLE_WARN, 1, -1, true }, { ROLE_KEY, 6, -1, true },
		{ ROLE_DIM, 8, -1, false },
		{ ROLE_WL1, 11, -1, false }, { ROLE_WL2, 13, -1, false },
		{ ROLE_WL3, 15, -1, false }, { ROLE_WL4, 12, -1, false },
		{ ROLE_MARK_PLACE, 6, -1, true }, { ROLE_MARK_FREQ, 3, -1, true },
		{ ROLE_MARK_PAUSE, 7, -1, false }, { ROLE_MARK_END, 1, -1, true },
		{ ROLE_CPU0, 0, 1, false }, { ROLE_CPU1, 0, 2, false },
		{ ROLE_CPU2, 0, 3, false }, { ROLE_CPU3, 0, 4, false },
		{ ROLE_CPU4, 0, 5, false }, { ROLE_CPU5, 0, 6, false },
		{ ROLE_CPU6, 0, 7, false }, { ROLE_CPU7, 15, 8, false },
	};
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "default");
	for (int i = 0; i < ROLE_COUNT; i++)
		t->fg[i] = t->bg[i] = THEME_DEFAULT_COLOUR;
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		t->fg[d[i].r] = d[i].fg;
		t->bg[d[i].r] = d[i].bg;
		t->bold[d[i].r] = d[i].bold;
	}
}

/* A colour word -> 0..255 or -1 (default); -EINVAL when it is neither. */
static int parse_colour(const char *w, short *out)
{
	if (strcmp(w, "default") == 0) {
		*out = THEME_DEFAULT_COLOUR;
		return 0;
	}
	for (int i = 0; i < 16; i++)
		if (strcmp(w, colour_names[i]) == 0) {
			*out = (short)i;
			return 0;
		}
	if (!isdigit((unsigned char)w[0]) || strlen(w) > 3)
		return -EINVAL;
	char *end;
	long v = strtol(w, &end, 10);
	if (*end || v > 255)
		return -EINVAL;
	*out = (short)v;
	return 0;
}

static int role_of(const char *key)
{
	for (int i = 0; i < ROLE_COUNT; i++)
		if (strcmp(key, role_keys[i]) == 0)
			return i;
	return -1;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* The value part: COLOUR [on COLOUR] [bold]. */
static int parse_value(char *val, short *fg, short *bg, bool *bold,
                       const char **bad)
{
	char *save = NULL;
	int n = 0;
	*bold = false;
	for (char *w = strtok_r(val, " \t", &save); w; w = strtok_r(NULL, " \t", &save), n++) {
		*bad = w;
		if (strcmp(w, "bold") == 0) {
			*bold = true;
		} else if (strcmp(w, "on") == 0) {
			w = strtok_r(NULL, " \t", &save);
			*bad = w ? w : "on";
			if (!w || parse_colour(w, bg) < 0)
				return -EINVAL;
		} else if (n > 0 || parse_colour(w, fg) < 0) {
			return -EINVAL;
		}
	}
	if (n == 0) {
		*bad = "";
		return -EINVAL;
	}
	return 0;
}

static int parse_line(char *line, const char *file, int lineno,
                      struct theme *t, char *err, size_t errlen)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	char *s = trim(line);
	if (!*s)
		return 0;
	char *eq = strchr(s, '=');
	if (!eq) {
		snprintf(err, errlen, "%s:%d: '%s' is not 'role = colour'", file, lineno, s);
		return -EINVAL;
	}
	*eq = 0;
	char *key = trim(s), *val = trim(eq + 1);
	int r = role_of(key);
	if (r < 0) {
		snprintf(err, errlen, "%s:%d: unknown role '%s' (roles: normal, title, "
		         "write, read, marker, cpu0..cpu7, ...; see themes/default.theme)",
		         file, lineno, key);
		return -EINVAL;
	}
	short fg = THEME_DEFAULT_COLOUR, bg = THEME_DEFAULT_COLOUR;
	bool bold;
	const char *bad = "";
	if (parse_value(val, &fg, &bg, &bold, &bad) < 0) {
		snprintf(err, errlen, "%s:%d: unknown colour '%s' (a name such as red, "
		         "bright-blue, default, or a number 0-255; then optionally "
		         "'on COLOUR' and 'bold')", file, lineno, bad);
		return -EINVAL;
	}
	t->fg[r] = fg;
	t->bg[r] = bg;
	t->bold[r] = bold;
	return 0;
}

int theme_parse(const char *text, const char *file, struct theme *t,
                char *err, size_t errlen)
{
	char *copy = xstrdup(text);
	if (!copy)
		return -ENOMEM;
	int lineno = 1, rc = 0;
	for (char *line = copy, *next; line && rc == 0; line = next, lineno++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		rc = parse_line(line, file, lineno, t, err, errlen);
	}
	free(copy);
	if (rc < 0 && err && errlen)
		shown_escape(err, errlen);  /* the file's words, never raw */
	return rc;
}

static void name_from_path(const char *path, char *name, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 6 && strcmp(base + n - 6, ".theme") == 0)
		n -= 6;
	snprintf(name, len, "%.*s", (int)n, base);
	shown_escape(name, len);  /* a file name is shown: never raw */
}

static int load_file(const char *path, struct theme *t, char *err, size_t errlen);

int theme_load_file(const char *path, struct theme *t, char *err, size_t errlen)
{
	int rc = load_file(path, t, err, errlen);
	if (rc < 0 && err && errlen)
		shown_escape(err, errlen);  /* the path is the user's: never raw */
	return rc;
}

static int load_file(const char *path, struct theme *t, char *err, size_t errlen)
{
	int e;
	FILE *f = sysfile_fopen_regular(path, &e);
	if (!f) {
		snprintf(err, errlen, "theme file '%s': %s", path, e == -EISDIR ? "is a directory, not a theme file" :
		         e == -EINVAL ? "is not a regular file" : strerror(-e));
		return e == -EISDIR ? -EINVAL : e;
	}
	/* a directory or a device (/dev/zero) is no theme: refused before
	 * anything is read */
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > (1 << 20))) {
		snprintf(err, errlen, "theme file '%s': %s", path,
		         S_ISDIR(st.st_mode) ? "is a directory, not a theme file" :
		         !S_ISREG(st.st_mode) ? "is not a regular file" : "is larger than 1 MiB: not a theme");
		fclose(f);
		return -EINVAL;
	}
	char *text = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&text, &cap, 0, f);
	fclose(f);
	theme_builtin(t);
	name_from_path(path, t->name, sizeof(t->name));
	int rc = theme_parse(n > 0 ? text : "", path, t, err, errlen);
	free(text);
	return rc;
}

static int is_file_arg(const char *name)
{
	size_t n = strlen(name);
	return strchr(name, '/') || (n > 6 && strcmp(name + n - 6, ".theme") == 0);
}

int theme_find(const char *name, char *path, size_t len)
{
	if (is_file_arg(name)) {
		snprintf(path, len, "%s", name);
		return 0;
	}
	char dirs[2][PATH_MAX];
	int n = config_search_dirs("themes", dirs);
	for (int i = 0; i < n; i++) {
		snprintf(path, len, "%s/%s.theme", dirs[i], name);
		/* a FIFO or device here is found (and refused when
		 * loaded), never opened */
		struct stat st;
		if (stat(path, &st) == 0)
			return 0;
	}
	if (builtin_text("theme", name)) {
		snprintf(path, len, "built-in:%s", name);
		return 0;
	}
	return -ENOENT;
}

int theme_load(const char *name, struct theme *t, char *err, size_t errlen)
{
	char path[PATH_MAX];
	bool implicit = !name;
	if (implicit)
		name = "default";
	if (theme_find(name, path, sizeof(path)) < 0) {
		theme_builtin(t);
		if (implicit)
			return 0;
		snprintf(err, errlen, "theme '%s' not found (give a file, a built-in name such as "
		         "default, mono, high-contrast or light, or a name in "
		         "$XDG_CONFIG_HOME/benchtop/themes or %s/themes)",
		         name, BENCHTOP_SHAREDIR);
		shown_escape(err, errlen);
		return -ENOENT;
	}
	const char *built = !strncmp(path, "built-in:", 9) ? builtin_text("theme", path + 9) : NULL;
	if (built) {
		theme_builtin(t);
		snprintf(t->name, sizeof t->name, "%s", path + 9);
		return theme_parse(built, path, t, err, errlen);
	}
	return theme_load_file(path, t, err, errlen);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

static size_t add_dir(const char *dir, char (*names)[THEME_NAME_LEN],
                      size_t n, size_t max)
{
	DIR *d = opendir(dir);
	if (!d)
		return n;
	for (struct dirent *e; n < max && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l <= 6 || strcmp(e->d_name + l - 6, ".theme") != 0)
			continue;
		char nm[THEME_NAME_LEN];
		name_from_path(e->d_name, nm, sizeof(nm));
		bool dup = false;
		for (size_t i = 0; i < n && !dup; i++)
			dup = strcmp(names[i], nm) == 0;
		if (!dup)
			memcpy(names[n++], nm, sizeof(nm));
	}
	closedir(d);
	return n;
}

size_t theme_list(char (*names)[THEME_NAME_LEN], size_t max)
{
	char dirs[2][PATH_MAX];
	int nd = config_search_dirs("themes", dirs);
	size_t n = 0;
	for (int i = 0; i < nd; i++)
		n = add_dir(dirs[i], names, n, max);
	for (size_t i = 0; builtin_name("theme", i) && n < max; i++) {
		const char *nm = builtin_name("theme", i);
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(names[k], nm) == 0;
		if (!dup && strlen(nm) < THEME_NAME_LEN)
			snprintf(names[n++], THEME_NAME_LEN, "%s", nm);
	}
	qsort(names, n, THEME_NAME_LEN, cmp_names);
	return n;
}

short theme_fallback8(short c)
{
	if (c < 8)
		return c;
	/* Greys become the terminal's own foreground (-1): black would vanish
	 * on a dark terminal and white on a light one. */
	if (c == 8)
		return -1;
	if (c < 16)
		return (short)(c - 8);
	if (c >= 232)
		return c < 250 ? -1 : 7;
	int v = c - 16, r = v / 36, g = (v / 6) % 6, b = v % 6;
	int hi = r > g ? (r > b ? r : b) : (g > b ? g : b);
	if (hi < 2)
		return 0;
	/* Keep each channel that is near the strongest one. */
	int bits = (r >= hi - 1 ? 1 : 0) |
	           (g >= hi - 1 ? 2 : 0) | (b >= hi - 1 ? 4 : 0);
	return (short)bits;
}

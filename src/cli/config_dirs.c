/* config_dirs.c - where files that add to or override benchtop's built-in
 * presets and themes are looked for: the user's configuration directory,
 * then the installed share directory. */
#include "benchtop/config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef BENCHTOP_SHAREDIR
#define BENCHTOP_SHAREDIR "/usr/local/share/benchtop"
#endif

int config_search_dirs(const char *sub, char dirs[2][PATH_MAX])
{
	int n = 0;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(dirs[n++], PATH_MAX, "%s/benchtop/%s", xdg, sub);
	else if (home && *home)
		snprintf(dirs[n++], PATH_MAX, "%s/.config/benchtop/%s", home, sub);
	snprintf(dirs[n++], PATH_MAX, "%s/%s", BENCHTOP_SHAREDIR, sub);
	return n;
}

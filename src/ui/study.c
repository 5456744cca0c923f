/* study.c - an experiment's table on screen: once a replay of the
 * experiment has reached its end, the table the experiment printed (as
 * its end record keeps it) takes the Processes panel, and the Placement
 * panel's rows too when it needs them. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>

/* The lines of text, blank ones left out; each cut at the panel's width. */
static int study_lines(const char *s, const char **line, int *len, int max)
{
	int n = 0;
	while (*s && n < max) {
		const char *nl = strchr(s, '\n');
		int k = nl ? (int)(nl - s) : (int)strlen(s);
		if (strspn(s, " ") < (size_t)k) {
			line[n] = s;
			len[n++] = k;
		}
		s += k + (nl != NULL);
	}
	return n;
}

int ui_study_draw(const struct ui_view *v, struct rect place, struct rect procs)
{
	if (!v->study || !v->study[0] || procs.h < 2)
		return 0;
	const char *line[64];
	int len[64];
	int n = study_lines(v->study, line, len, 64);
	if (n == 0)
		return 0;
	/* the study's title heads the panel; its rows and notes below */
	struct rect r = procs;
	if (n > r.h && place.h > 0 && place.y + place.h == procs.y) {
		r.y = place.y;
		r.h += place.h;
	}
	char title[256];
	snprintf(title, sizeof title, "%.*s", len[0] < 255 ? len[0] : 255, line[0]);
	ui_title(r, "Experiment", title);
	for (int i = 1; i < n && i < r.h; i++) {
		char text[512];
		snprintf(text, sizeof text, "%.*s", len[i] < 511 ? len[i] : 511, line[i]);
		ui_text(r.y + i, r.x, r.w, ROLE_NORMAL, text);
	}
	return r.y == place.y ? 2 : 1;
}

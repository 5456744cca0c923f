/* caption.c - a lesson's caption (--at T:caption=TEXT): a banner across
 * the graph, from the newest caption event until the next one.  The
 * caption is an event like any other, so a replay shows it too. */
#include "uipriv.h"

#include <stdio.h>
#include <string.h>

/* The text of the newest caption event (its detail holds the whole
 * text, the label only its start); "" when none. */
static const char *caption_text(const struct ui_view *v)
{
	size_t ne = v->hist ? history_nevents(v->hist) : 0;
	for (size_t i = ne; i-- > 0;) {
		const struct event *e = history_event(v->hist, i);
		if (e->kind == EV_CAPTION)
			return e->d.text.text[0] ? e->d.text.text : e->label;
	}
	return "";
}

void ui_caption_draw(const struct ui_view *v, struct rect g)
{
	const char *text = caption_text(v);
	if (g.h < 8 || !text[0])
		return;
	/* under the marker labels' two rows, inside the plot's frame */
	int y = g.y + (g.h >= 12 ? 4 : 2), w = g.w - 8, x = g.x + 7;
	char fit[EVENT_TEXT_LEN * 2];
	ui_fit_words(text, w - 2, fit, sizeof(fit));
	int tw = ui_strwidth(fit[0] ? fit : text);
	if (tw > w - 2)
		tw = w - 2;
	int at = x + (w - tw - 2) / 2;
	ui_textf(y, at, tw + 2, ROLE_SELECT, " %s ", fit[0] ? fit : text);
}

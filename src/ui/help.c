/* help.c - the help screen, generated from ui_keys[] (the table that
 * dispatches keys), so it cannot list a key that does nothing. */
#include "uipriv.h"

#include <stdbool.h>
#include <string.h>

void ui_help_draw(const struct ui_view *v, struct rect r)
{
	ui_title((struct rect){ r.y, r.x, 1, r.w }, "benchtop keys", "any key closes this");
	/* One column whenever the keys fit in the height (the footer gives
	 * way first), so descriptions are never cut to half a column. */
	int rows = r.h - 2, namew = 8;
	bool footer = rows > (int)ui_nkeys;
	if (footer)
		rows--;
	if (rows < 1)
		return;
	int ncol = ((int)ui_nkeys + rows - 1) / rows;
	int colw = r.w / (ncol ? ncol : 1);
	for (size_t i = 0; i < ui_nkeys; i++) {
		const struct ui_key_binding *b = &ui_keys[i];
		int y = r.y + 2 + (int)i % rows, x = r.x + 2 + (int)i / rows * colw;
		ui_text(y, x, namew, ROLE_KEY, b->name);
		ui_textf(y, x + namew + 1, colw - namew - 3,
		         b->replay_only && !v->replay ? ROLE_DIM : ROLE_NORMAL, "%s", b->help);
	}
	if (footer)
		ui_text(r.y + r.h - 1, r.x + 2, r.w - 4, ROLE_DIM,
		        "Pinning applies to every thread and descendant; events are marked on the graph.");
}

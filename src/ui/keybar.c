/* keybar.c - the key bar on the bottom line, as htop's: each key with
 * one word for what it does, taken from the key table (F1 Help first,
 * the steering keys, the F keys in order, F10 Quit last; a replay's
 * own keys instead of the steering ones), the least needed entries left
 * out when the line is short.  While a prompt or a
 * menu is open it names that one's keys instead. */
#include "uipriv.h"

#include <stdlib.h>
#include <string.h>

/* Where an entry goes: F1 first, then the letter and digit keys in
 * table order, then the F keys by number, F10 last. */
static int place_of(const struct ui_key_binding *b, size_t i)
{
	const char *k = b->bar_key;
	if (k[0] == 'F' && k[1] >= '0' && k[1] <= '9') {
		int n = atoi(k + 1);
		return n == 1 ? -1 : n == 10 ? 100000 : 1000 + n;
	}
	return (int)i;
}

static int item_width(const char *key, const char *label)
{
	return ui_strwidth(key) + ui_strwidth(label) + 1;
}

static void draw_items(struct rect r, const struct ui_bar_item *items, size_t n)
{
	int x = r.x;
	for (size_t i = 0; i < n && x < r.x + r.w; i++) {
		int kw = ui_strwidth(items[i].key), lw = ui_strwidth(items[i].label);
		ui_text(r.y, x, r.x + r.w - x, ROLE_KEY, items[i].key);
		x += kw;
		if (x >= r.x + r.w)
			break;
		ui_text(r.y, x, r.x + r.w - x, ROLE_SELECT, items[i].label);
		x += lw + 1;
	}
}

void ui_keybar_draw(const struct ui_view *v, struct rect r)
{
	const struct ui_bar_item *open = ui_key_bar();
	struct ui_bar_item items[64];
	size_t n = 0;
	if (open) {
		while (open[n].key && n < 64) {
			items[n] = open[n];
			n++;
		}
		draw_items(r, items, n);
		return;
	}
	/* the table's entries in bar order */
	size_t idx[64];
	int place[64];
	for (size_t i = 0; i < ui_nkeys && n < 64; i++) {
		const struct ui_key_binding *b = &ui_keys[i];
		if (!b->bar_key || (b->replay_only && !v->replay) || ((b->live_only || b->steers) && v->replay))
			continue;
		size_t k = n++;
		int p = place_of(b, i);
		while (k > 0 && place[k - 1] > p) {
			idx[k] = idx[k - 1];
			place[k] = place[k - 1];
			k--;
		}
		idx[k] = i;
		place[k] = p;
	}
	/* every entry of priority 0, then the others in bar order while
	 * they fit */
	bool keep[64] = { false };
	int used = 0;
	for (size_t k = 0; k < n; k++)
		if (ui_keys[idx[k]].bar_prio == 0) {
			keep[k] = true;
			used += item_width(ui_keys[idx[k]].bar_key, ui_keys[idx[k]].bar);
		}
	for (int prio = 1; prio <= 3; prio++)
		for (size_t k = 0; k < n; k++) {
			const struct ui_key_binding *b = &ui_keys[idx[k]];
			int w = item_width(b->bar_key, b->bar);
			if (!keep[k] && b->bar_prio == prio && used + w <= r.w) {
				keep[k] = true;
				used += w;
			}
		}
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (keep[k])
			items[m++] = (struct ui_bar_item){ ui_keys[idx[k]].bar_key, ui_keys[idx[k]].bar };
	draw_items(r, items, m);
}

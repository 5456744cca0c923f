/* uiscale.h - the arithmetic of the throughput graph, without curses: the
 * y scale and its round tick labels, and the one-line legend cut to a
 * width at whole items (never in the middle of a word or a number).
 * Pure functions; the unit tests call them directly. */
#ifndef BENCHTOP_UISCALE_H
#define BENCHTOP_UISCALE_H

#include <stdbool.h>
#include <stddef.h>

/* The y axis: 0 .. top in steps of step (1, 2 or 5 times a power of ten). */
struct ui_scale {
	double top, step;
	int nticks;          /* ticks above 0: top = nticks * step */
};

/* 1, 2 or 5 times a power of ten, the smallest such number >= v (v > 0;
 * 1 for anything else). */
double ui_scale_round125(double v);
/* The scale for values up to max with headroom (the top is at least 10%
 * above max), at most maxticks ticks above 0 (>= 1).  max <= 0 or not
 * finite gives 0..1. */
void ui_scale_fit(double max, int maxticks, struct ui_scale *s);
/* The scale for a plot of rows text rows of vres dots each: as many
 * ticks as fit with every label at least two rows from the next, so all
 * of them are drawn and the labels on screen step evenly. */
void ui_scale_fit_rows(double max, int rows, int vres, struct ui_scale *s);
/* The text row (0 at the top) tick k of a scale is drawn at. */
int ui_scale_tick_row(const struct ui_scale *s, int k, int rows, int vres);
/* A tick value as text with just the decimals its step needs ("0.5",
 * "20", "1500"); returns the length. */
int ui_scale_fmt(double v, double step, char *buf, size_t len);
/* A value for the legend in at most 5 characters where it can: 3
 * significant figures ("10.2", "0.05", "4930"); "-" when unknown (NaN or
 * negative). */
int ui_scale_fmt_value(double v, char *buf, size_t len);

/* One legend item: a glyph (a UTF-8 character or ASCII) and a name, a
 * short name, and its value ("10.2", or "" for none). */
struct ui_legend_item {
	const char *glyph;
	const char *name, *abbrev;
	const char *value;
	const char *flag;    /* after the name, e.g. an up-arrow when the series
	                      * is over the scale; NULL for none */
};
/* How the legend is written at a width: level 0 "glyph name value",
 * separated by two blanks; level 1 one blank; level 2 short names; level
 * 3 short names without a blank after the glyph.  Items that do not fit
 * even then are left out from the end and "+N" says how many.  Returns
 * the number of items shown and fills *level. */
int ui_legend_fit(const struct ui_legend_item *it, int n, int width, int *level);
/* The text of item i at a level (as ui_legend_fit measures it), without
 * the separator; returns its display width. */
int ui_legend_item_text(const struct ui_legend_item *it, int level, char *buf, size_t len);
/* The separator after an item at a level (2 or 1 blanks). */
int ui_legend_sep(int level);

#endif

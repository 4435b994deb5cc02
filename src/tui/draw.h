/*
 * draw.h — drawing helpers shared by the TUI's loop and its views: text
 * clipped to a width (UTF-8 aware), colour pairs, clocks and a scrolling
 * cursor.  Nothing here knows the UI's state (that is tui_view.h).  They
 * paint with stdscr and never refresh; tui.c refreshes once per frame.
 *
 * Threads: none — the terminal thread only.
 */
#ifndef KINF_DRAW_H
#define KINF_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/tui_request.h"

struct rect {
	int y, x, h, w;
};

/* A cursor in a list of nr lines shown height at a time. */
struct scroll {
	size_t cur, top;
};

/* Moves the cursor for a move request (tui_request.h); false if req is none. */
bool scroll_request(struct scroll *s, enum request req, size_t nr, int height);
/* Keeps cur within [0, nr) and visible in a window of height lines. */
void scroll_fix(struct scroll *s, size_t nr, int height);
/* Moves the cursor by lines, clamped. */
void scroll_by(struct scroll *s, long lines, size_t nr);

/* Colour pairs (and the attributes used when there is no colour). */
enum {
	PAIR_NONE,
	PAIR_ADDED,
	PAIR_UPDATED,
	PAIR_DELETED,
	PAIR_REPLACED,
	PAIR_SYNC,
	PAIR_TITLE,
	PAIR_ERROR,
	PAIR_ACTIVITY,
	PAIR_MARK,
	PAIR__COUNT
};

/*
 * Nothing is cut silently: text wider than w columns is drawn up to
 * where it must give way and ends in the ellipsis, "…" in a UTF-8
 * locale and ".." otherwise (draw_set_utf8 says which, once).
 *
 * draw_text returns the columns it used; draw_fill pads with spaces up
 * to w.
 */
void draw_set_utf8(bool utf8);
const char *draw_ellipsis(void);
int draw_text(int y, int x, int w, int attr, const char *s);
void draw_fill(int y, int x, int w, int attr, const char *s);
/*
 * Text is drawn and measured escaped (termsafe.h): a control, a bidi
 * override or a byte of no character shows as its escape.
 */
/* Columns s takes on the screen, escaped. */
int text_width(const char *s);
/*
 * buf holds what a snprintf into size bytes cut (it returned size or
 * more): its end becomes the ellipsis, at a character's boundary, so that
 * a text cut where it was made says so too.
 */
void text_mark_cut(char *buf, size_t size);

/*
 * The bytes of s[0..len) that fit in w columns, on a character's
 * boundary; at least one character (when len), so that a piece of text
 * cut by it always moves on.
 */
size_t text_fit(const char *s, size_t len, int w);

/*
 * Word wrap: breaks s into lines of at most w columns at spaces (a word
 * wider than w is broken where it must).  Calls line() for each, at most
 * max_lines times; when the text needs more, the last line given ends in
 * the ellipsis.  Returns the lines given.
 */
int text_wrap(const char *s, int w, int max_lines,
	      void (*line)(void *ctx, const char *text), void *ctx);
/*
 * A pane written a line at a time, from line y down to bottom (which is
 * not drawn on), at x and w columns wide.  pane_line() prints a line, cut
 * as draw_text() cuts; pane_wrap() is text_wrap()'s line() for it, in attr.
 */
struct pane_lines {
	int y, bottom, x, w, attr;
};
void pane_line(struct pane_lines *p, int attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pane_wrap(void *p, const char *text);

#endif

/*
 * tui_help.c — the keys (`?`), full screen, from the keys' own table
 * (tui_request.h); scrolled with j/k, Space, PgUp/PgDn, g/G (the last row
 * says when more follows); Esc or any other key closes it.
 */
#include <stdio.h>
#include <stdlib.h>

#include <curses.h>

#include "tui/tui_help.h"
#include "lib/util.h"

/* The view's own state (t->screen[SCREEN_HELP]). */
struct help_state {
	int top;		/* the first line shown */
	int page;		/* PgUp/PgDn's step (help_draw) */
};

static inline struct help_state *hs(const struct tui *t)
{
	return t->screen[SCREEN_HELP];
}

void help_open(struct tui *t)
{
	hs(t)->top = 0;
	hs(t)->page = 1;	/* until help_draw() knows the screen */
	t->view = &help_view;
}

static void *help_view_new(struct tui *t, struct tab *tab)
{
	return xcalloc(1, sizeof(struct help_state));
}

static void help_draw(struct tui *t, const struct rect *r, bool focused)
{
	size_t count;
	const char *const *help_lines = request_help(&count);
	int nr = (int)count;
	int rows = r->h - 1;
	char right[64];

	if (hs(t)->top > nr - rows)
		hs(t)->top = nr - rows > 0 ? nr - rows : 0;
	/* When more follows, the last row says so instead of a key. */
	bool more = hs(t)->top + rows < nr;
	int shown = more ? rows - 1 : rows;
	if (shown > nr - hs(t)->top)
		shown = nr - hs(t)->top;
	/* a page: the lines shown while more follows, less one kept in view */
	hs(t)->page = rows > 3 ? rows - 2 : 1;
	snprintf(right, sizeof(right), "%d-%d of %d", hs(t)->top + 1, hs(t)->top + shown, nr);
	draw_title(t, r, focused, " keys", right);
	for (int i = 0; i < shown; i++) {
		const char *s = help_lines[hs(t)->top + i];
		draw_text(r->y + 1 + i, r->x + 1, r->w - 1, s[0] != ' ' ? A_BOLD : A_NORMAL, s);
	}
	if (more)
		draw_text(r->y + rows, r->x + 1, r->w - 1, A_REVERSE,
			  t->utf8 ? " ↓ more below: j, Space " : " v more below: j, Space ");
}

static bool help_request(struct tui *t, enum request req, int key)
{
	switch (req) {
	case REQ_MOVE_DOWN: case REQ_PAGE_DOWN:
		hs(t)->top += req == REQ_PAGE_DOWN ? hs(t)->page : 1;
		return true;
	case REQ_MOVE_UP: case REQ_PAGE_UP:
		hs(t)->top -= req == REQ_PAGE_UP ? hs(t)->page : 1;
		if (hs(t)->top < 0)
			hs(t)->top = 0;
		return true;
	case REQ_MOVE_FIRST:
		hs(t)->top = 0;
		return true;
	case REQ_MOVE_LAST:
		hs(t)->top = 1 << 20;	/* help_draw brings it to the last page */
		return true;
	case REQ_QUIT:
		return false;
	default:
		t->view = NULL;	/* any other key closes */
		return true;
	}
}

static void help_wheel(struct tui *t, int lines)
{
	hs(t)->top += lines;
	if (hs(t)->top < 0)
		hs(t)->top = 0;
}

const struct view_ops help_view = {
	.new = help_view_new,
	.free = free,
	.draw = help_draw,
	.keymap = KEYMAP_HELP,
	.request = help_request,
	.wheel = help_wheel,
};

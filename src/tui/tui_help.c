/* tui_help.c — the keys (`?`), full screen; Esc or any other key closes it. */
#include <curses.h>

#include "tui/tui_view.h"

static const char *const help_lines[] = {
	"Moving",
	"  Up/Down  j/k       move the cursor",
	"  PgUp/PgDn          a page up or down (also Ctrl-B/Ctrl-F, Space)",
	"  g/G  Home/End      first or last line",
	"  mouse wheel        scroll the pane under the pointer; click selects",
	"  Tab / Shift-Tab    next or previous pane (table, deltas), then resource",
	"  1-9                go to the Nth resource tab",
	"",
	"The table (the informer's cache)",
	"  /                  filter: a substring of namespace/name, or",
	"                     l:app=web,tier for labels (Enter keeps, Esc undoes)",
	"  Esc                clear the filter",
	"  s / S              sort by the next column / reverse the order",
	"  Enter              the object: history, last update's diff, JSON",
	"  marks              + added  * changed (3 s)  x deleted  ? tombstone",
	"",
	"The delta log",
	"  Enter              the object of the selected delta",
	"  c                  clear the log",
	"",
	"The informer",
	"  p                  pause / resume the display (deltas are held and counted)",
	"  r                  resync now: a Sync delta for every cached object",
	"",
	"  Esc                back from the detail view or this help",
	"  q                  quit",
};

static void help_draw(struct tui *t, const struct rect *r, bool focused)
{
	int nr = (int)(sizeof(help_lines) / sizeof(help_lines[0]));

	if (t->help_top > nr - (r->h - 1))
		t->help_top = nr - (r->h - 1) > 0 ? nr - (r->h - 1) : 0;
	draw_title(t, r, focused, " keys", NULL);
	for (int i = 0; i < r->h - 1 && t->help_top + i < nr; i++) {
		const char *s = help_lines[t->help_top + i];
		draw_text(r->y + 1 + i, r->x + 1, r->w - 1, s[0] != ' ' ? A_BOLD : A_NORMAL, s);
	}
}

static bool help_key(struct tui *t, int key)
{
	switch (key) {
	case KEY_DOWN: case 'j': case KEY_NPAGE: case ' ':
		t->help_top += key == KEY_NPAGE || key == ' ' ? 10 : 1;
		return true;
	case KEY_UP: case 'k': case KEY_PPAGE:
		t->help_top -= key == KEY_PPAGE ? 10 : 1;
		if (t->help_top < 0)
			t->help_top = 0;
		return true;
	case 'q':
		return false;
	default:
		t->view = NULL;	/* any other key closes */
		return true;
	}
}

static void help_wheel(struct tui *t, int lines)
{
	t->help_top += lines;
	if (t->help_top < 0)
		t->help_top = 0;
}

const struct view_ops help_view = {
	.name = "help",
	.draw = help_draw,
	.key = help_key,
	.wheel = help_wheel,
};

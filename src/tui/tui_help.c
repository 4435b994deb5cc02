/*
 * tui_help.c — the keys (`?`), full screen, scrolled with j/k, Space,
 * PgUp/PgDn, g/G (the last row says when more follows); Esc or any other
 * key closes it.
 */
#include <stdio.h>

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
	"  :                  a resource by name (Tab completes): its tab, or a",
	"                     new one with an informer of its own; :q quits",
	"  n                  one namespace only, in every tab (Tab completes;",
	"                     empty: all); the informers keep watching as started",
	"",
	"The table (the informer's cache)",
	"  /                  filter: a regex (extended, any case) on",
	"                     namespace/name, or l: and a label selector as -l",
	"                     takes (l:app=web,tier!=db, l:env in (a,b), l:!x);",
	"                     a new filter each time (Enter keeps, Esc undoes)",
	"  Esc                cancel a V or : under way, then clear the",
	"                     filter, then the namespace",
	"  s  >  Right        sort by the next column (as on screen)",
	"  <  Left            sort by the previous column",
	"  Shift+letter       sort by the column with that initial; again: the",
	"                     next one with it (N: NAMESPACE, NAME, NODE)",
	"  S                  reverse the order",
	"  Enter              the object: history, last update's diff, JSON;",
	"                     there [ ] step through its history, each step's",
	"                     diff and the state it left",
	"  y                  the object as YAML (kubectl -o yaml)",
	"  marks              + added  * changed (3 s)  x deleted  ? tombstone",
	"",
	"The delta pane",
	"  Enter              the object of the selected delta; on a relist's",
	"                     \"unchanged\" line: show or hide those deltas",
	"  y                  that object as YAML",
	"  c                  clear the pane",
	"                     / and n apply here too",
	"",
	"The informer",
	"  p                  pause / resume the display (deltas are held and counted)",
	"  r                  resync now: a Sync delta for every cached object",
	"  V                  verify: the cache against a LIST from the server;",
	"                     the screen goes on meanwhile (Esc cancels)",
	"",
	"  Esc                back from the detail view or this help",
	"  Ctrl-L             redraw",
	"  q                  quit",
};

static void help_draw(struct tui *t, const struct rect *r, bool focused)
{
	int nr = (int)(sizeof(help_lines) / sizeof(help_lines[0]));
	int rows = r->h - 1;
	char right[64];

	if (t->help_top > nr - rows)
		t->help_top = nr - rows > 0 ? nr - rows : 0;
	/* When more follows, the last row says so instead of a key. */
	bool more = t->help_top + rows < nr;
	int shown = more ? rows - 1 : rows;
	if (shown > nr - t->help_top)
		shown = nr - t->help_top;
	snprintf(right, sizeof(right), "%d-%d of %d", t->help_top + 1, t->help_top + shown, nr);
	draw_title(t, r, focused, " keys", right);
	for (int i = 0; i < shown; i++) {
		const char *s = help_lines[t->help_top + i];
		draw_text(r->y + 1 + i, r->x + 1, r->w - 1, s[0] != ' ' ? A_BOLD : A_NORMAL, s);
	}
	if (more)
		draw_text(r->y + rows, r->x + 1, r->w - 1, A_REVERSE,
			  t->utf8 ? " ↓ more below: j, Space " : " v more below: j, Space ");
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
	case KEY_HOME: case 'g':
		t->help_top = 0;
		return true;
	case KEY_END: case 'G':
		t->help_top = 1 << 20;	/* help_draw brings it to the last page */
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

/*
 * tui_request.c — the keys' one table; see tui_request.h.
 *
 * Each row is one entry of the help screen (keys as shown, then the text,
 * '\n' starting a continuation line), the keys it binds in which keymap,
 * and its hint in the footer of a keymap with the hint's place there.  A
 * row without help text binds keys the help does not list (`?` itself,
 * the detail view's other ways back); a row without keys is a title.
 */
#include "tui/tui_request.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "lib/util.h"

#define CTRL(c) ((c) & 0x1f)
#define KEYS_WIDTH 19		/* the keys' column of the help screen */

struct binding {
	enum keymap map;
	int from, to;		/* the keys from..to (a range: 1-9, A-Z) */
	enum request req;
};

struct hint {
	int at;			/* its place in the footer, from 1; 0: none */
	const char *text;
};

struct key_row {
	const char *keys;	/* as shown; NULL: a title line */
	const char *help;	/* NULL: not shown */
	struct binding bind[10];
	struct hint hint[KEYMAP__COUNT];
};

#define K(map, key, req) { map, key, key, req }
#define G KEYMAP_GENERIC
#define M KEYMAP_MAIN
#define D KEYMAP_DETAIL
#define H KEYMAP_HELP

static const struct key_row rows[] = {
	{ NULL, "Moving", { { 0 } }, { { 0 } } },
	{ "Up/Down  j/k", "move the cursor",
	  { K(G, KEY_UP, REQ_MOVE_UP), K(G, 'k', REQ_MOVE_UP),
	    K(G, KEY_DOWN, REQ_MOVE_DOWN), K(G, 'j', REQ_MOVE_DOWN),
	    K(H, KEY_UP, REQ_MOVE_UP), K(H, 'k', REQ_MOVE_UP),
	    K(H, KEY_DOWN, REQ_MOVE_DOWN), K(H, 'j', REQ_MOVE_DOWN) },
	  { [D] = { 2, "j/k PgUp/PgDn g/G scroll" } } },
	{ "PgUp/PgDn", "a page up or down (also Ctrl-B/Ctrl-F, Space)",
	  { K(G, KEY_PPAGE, REQ_PAGE_UP), K(G, CTRL('b'), REQ_PAGE_UP),
	    K(G, KEY_NPAGE, REQ_PAGE_DOWN), K(G, CTRL('f'), REQ_PAGE_DOWN),
	    K(G, ' ', REQ_PAGE_DOWN),
	    K(H, KEY_PPAGE, REQ_PAGE_UP), K(H, KEY_NPAGE, REQ_PAGE_DOWN),
	    K(H, ' ', REQ_PAGE_DOWN) }, { { 0 } } },
	{ "g/G  Home/End", "first or last line",
	  { K(G, KEY_HOME, REQ_MOVE_FIRST), K(G, 'g', REQ_MOVE_FIRST),
	    K(G, KEY_END, REQ_MOVE_LAST), K(G, 'G', REQ_MOVE_LAST),
	    K(H, KEY_HOME, REQ_MOVE_FIRST), K(H, 'g', REQ_MOVE_FIRST),
	    K(H, KEY_END, REQ_MOVE_LAST), K(H, 'G', REQ_MOVE_LAST) }, { { 0 } } },
	{ "mouse wheel", "scroll the pane under the pointer; click selects",
	  { { 0 } }, { { 0 } } },
	{ "Tab / Shift-Tab", "next or previous pane (table, deltas), then resource",
	  { K(M, '\t', REQ_NEXT_PANE), K(M, KEY_BTAB, REQ_PREV_PANE) },
	  { [M] = { 8, "Tab pane" } } },
	{ "1-9", "go to the Nth resource tab",
	  { { M, '1', '9', REQ_GO_TAB } }, { { 0 } } },
	{ ":", "a resource by name (Tab completes): its tab, or a\n"
	       "new one with an informer of its own; :q quits",
	  { K(M, ':', REQ_RESOURCE) }, { [M] = { 3, ": resource" } } },
	{ "n", "one namespace only, in every tab (Tab completes;\n"
	       "empty: all); the informers keep watching as started",
	  { K(M, 'n', REQ_NAMESPACE) }, { [M] = { 4, "n namespace" } } },
	{ "0", "all namespaces; again: back to the one before (as\n"
	       "k9s's 0)",
	  { K(M, '0', REQ_ALL_NAMESPACES) }, { { 0 } } },
	{ NULL, "", { { 0 } }, { { 0 } } },
	{ NULL, "The table (the informer's cache)", { { 0 } }, { { 0 } } },
	{ "/", "filter: a regex (extended, any case) on\n"
	       "namespace/name, or l: and a label selector as -l\n"
	       "takes (l:app=web,tier!=db, l:env in (a,b), l:!x);\n"
	       "a new filter each time (Enter keeps, Esc undoes)",
	  { K(M, '/', REQ_FILTER) }, { [M] = { 2, "/ filter" } } },
	{ "Esc", "cancel a V, a : or d's Events under way, then\n"
		 "clear the filter, then the namespace",
	  { K(G, 27, REQ_BACK) }, { { 0 } } },
	{ "s  >  Right", "sort by the next column (as on screen)",
	  { K(M, 's', REQ_SORT_NEXT), K(M, '>', REQ_SORT_NEXT), K(M, KEY_RIGHT, REQ_SORT_NEXT) },
	  { [M] = { 5, "s sort" } } },
	{ "<  Left", "sort by the previous column",
	  { K(M, '<', REQ_SORT_PREV), K(M, KEY_LEFT, REQ_SORT_PREV) }, { { 0 } } },
	{ "Shift+letter", "sort by the column with that initial; again: the\n"
			  "next one with it (N: NAMESPACE, NAME, NODE)",
	  { { M, 'A', 'Z', REQ_SORT_LETTER } }, { { 0 } } },
	{ "S", "reverse the order", { K(M, 'S', REQ_SORT_REVERSE) }, { { 0 } } },
	{ "Enter", "the object: history, last update's diff, JSON;\n"
		   "there [ ] step through its history, each step's\n"
		   "diff and the state it left",
	  { K(G, '\r', REQ_ENTER), K(G, '\n', REQ_ENTER), K(G, KEY_ENTER, REQ_ENTER),
	    K(D, '[', REQ_STEP_OLDER), K(D, ']', REQ_STEP_NEWER) },
	  { [M] = { 6, "Enter detail" }, [D] = { 3, "[ ] step" } } },
	{ "y", "the object as YAML (kubectl -o yaml)",
	  { K(M, 'y', REQ_YAML), K(D, 'y', REQ_YAML) },
	  { [M] = { 7, "y yaml" }, [D] = { 4, "y yaml/detail" } } },
	{ "d", "the object as kubectl describe lays it out, with\n"
	       "its Events from the server (fetched beside the\n"
	       "screen: Esc cancels); there d fetches them again",
	  { K(M, 'd', REQ_DESCRIBE), K(D, 'd', REQ_DESCRIBE) }, { { 0 } } },
	{ "w", "in those views: long lines wrapped (at first), or\n"
	       "cut with the ellipsis",
	  { K(D, 'w', REQ_WRAP) }, { { 0 } } },
	{ "marks", "+ added  * changed (3 s)  x deleted  ? tombstone", { { 0 } }, { { 0 } } },
	{ NULL, "", { { 0 } }, { { 0 } } },
	{ NULL, "The delta pane", { { 0 } }, { { 0 } } },
	{ "Enter", "the object of the selected delta; on a relist's\n"
		   "\"unchanged\" line: show or hide those deltas", { { 0 } }, { { 0 } } },
	{ "y", "that object as YAML", { { 0 } }, { { 0 } } },
	{ "d", "that object described, with its Events", { { 0 } }, { { 0 } } },
	{ "c", "clear the pane", { K(G, 'c', REQ_CLEAR_LOG) }, { { 0 } } },
	{ "", "/ and n apply here too", { { 0 } }, { { 0 } } },
	{ NULL, "", { { 0 } }, { { 0 } } },
	{ NULL, "The informer", { { 0 } }, { { 0 } } },
	{ "p", "pause / resume the display (deltas are held and counted)",
	  { K(G, 'p', REQ_PAUSE) }, { [M] = { 9, "p pause" }, [D] = { 5, "p pause" } } },
	{ "r", "resync now: a Sync delta for every cached object",
	  { K(G, 'r', REQ_RESYNC) }, { [M] = { 10, "r resync" } } },
	{ "V", "verify: the cache against a LIST from the server;\n"
	       "the screen goes on meanwhile (Esc cancels)",
	  { K(M, 'V', REQ_VERIFY) }, { { 0 } } },
	{ "D", "flight recorder (--flight-recorder): dump the last window\n"
	       "and the tail after now, for kinf replay",
	  { K(M, 'D', REQ_DUMP) }, { { 0 } } },
	{ "w", "controller (--controller): the simulated controller's\n"
	       "pane in the informer's place: queue, Reconciles running,\n"
	       "the selected object's last Reconcile and unseen states;\n"
	       "Enter's history then says where each delta went",
	  { K(M, 'w', REQ_CONTROLLER) }, { { 0 } } },
	{ NULL, "", { { 0 } }, { { 0 } } },
	{ "Esc", "back from the detail view or this help", { { 0 } },
	  { [D] = { 1, "Esc back" }, [H] = { 1, "Esc back" } } },
	{ "Ctrl-L", "redraw", { K(G, CTRL('l'), REQ_REDRAW) }, { { 0 } } },
	{ "q", "quit", { K(G, 'q', REQ_QUIT), K(H, 'q', REQ_QUIT) },
	  { [M] = { 11, "q quit" }, [D] = { 6, "q quit" }, [H] = { 2, "q quit" } } },
	/* Not listed: `?` brought the help up; the detail view's ways back. */
	{ "?", NULL, { K(G, '?', REQ_HELP) },
	  { [M] = { 1, "? help" }, [D] = { 7, "? help" } } },
	{ "h  Left  Backspace", NULL,
	  { K(D, 'h', REQ_CLOSE), K(D, KEY_LEFT, REQ_CLOSE), K(D, KEY_BACKSPACE, REQ_CLOSE) },
	  { { 0 } } },
};

#undef K
#undef G
#undef M
#undef D
#undef H

/* key's request in map alone; ranges: only when ranges (exact keys win). */
static enum request lookup(enum keymap map, int key, bool ranges)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		for (const struct binding *b = rows[i].bind; b->req; b++) {
			if (b->map != map || (b->from != b->to) != ranges)
				continue;
			if (key >= b->from && key <= b->to)
				return b->req;
		}
	}
	return REQ_NONE;
}

enum request request_of(enum keymap map, int key)
{
	enum request req = lookup(map, key, false);

	if (req == REQ_NONE && map != KEYMAP_HELP)
		req = lookup(KEYMAP_GENERIC, key, false);
	if (req == REQ_NONE)
		req = lookup(map, key, true);
	return req;
}

/* Appends the lines of row r to *v (NULL: only counts them); returns how many. */
static size_t help_lines(const struct key_row *r, char **v)
{
	size_t n = 0;
	const char *p = r->help;

	if (!p)
		return 0;
	do {
		const char *end = strchr(p, '\n');
		int len = end ? (int)(end - p) : (int)strlen(p);
		if (v && !r->keys)
			v[n] = xasprintf("%.*s", len, p);
		else if (v)
			v[n] = xasprintf("  %-*s%.*s", KEYS_WIDTH, n ? "" : r->keys, len, p);
		n++;
		p = end ? end + 1 : NULL;
	} while (p);
	return n;
}

const char *const *request_help(size_t *nr)
{
	/* Built once; kept for the run. */
	static char **lines;
	static size_t count;

	if (!lines) {
		for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
			count += help_lines(&rows[i], NULL);
		lines = xcalloc(count, sizeof(*lines));
		for (size_t i = 0, n = 0; i < ARRAY_SIZE(rows); i++)
			n += help_lines(&rows[i], lines + n);
	}
	*nr = count;
	return (const char *const *)lines;
}

const char *request_hints(enum keymap map)
{
	static char text[KEYMAP__COUNT][256];
	char *s = text[map];

	if (*s)
		return s;
	for (int at = 1;; at++) {
		bool found = false;
		for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
			const struct hint *h = &rows[i].hint[map];
			if (h->at != at)
				continue;
			size_t len = strlen(s);
			snprintf(s + len, sizeof(text[map]) - len, "%s%s",
				 len ? "  " : "", h->text);
			found = true;
		}
		if (!found)
			return s;
	}
}

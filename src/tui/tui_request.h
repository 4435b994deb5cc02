/*
 * tui_request.h — what a key asks for, as tig's requests: the keys map to
 * an enum request through one table (tui_request.c) that also holds each
 * key's help text and its footer hint, so the help screen (`?`), the
 * footers and the keys themselves cannot disagree.
 *
 * Keymaps: a key means something in one keymap.  The main screen looks in
 * KEYMAP_MAIN, then KEYMAP_GENERIC; the detail view in KEYMAP_DETAIL, then
 * KEYMAP_GENERIC; the help in KEYMAP_HELP alone (any other key closes it).
 * A key of the main screen pressed over a full-screen view is no request
 * there, and says so.
 *
 * Threads: none; the table is constant.
 */
#ifndef KINF_TUI_REQUEST_H
#define KINF_TUI_REQUEST_H

#include <stddef.h>

enum request {
	REQ_NONE,		/* the key means nothing here */
	REQ_MOVE_UP,
	REQ_MOVE_DOWN,
	REQ_PAGE_UP,
	REQ_PAGE_DOWN,
	REQ_MOVE_FIRST,
	REQ_MOVE_LAST,
	REQ_NEXT_PANE,		/* then the next tab */
	REQ_PREV_PANE,
	REQ_GO_TAB,		/* 1-9: the tab of the key's digit */
	REQ_RESOURCE,		/* `:` */
	REQ_NAMESPACE,
	REQ_ALL_NAMESPACES,	/* `0`: all namespaces, and back */
	REQ_FILTER,
	REQ_BACK,		/* Esc */
	REQ_CLOSE,		/* the detail view's h, Left, Backspace */
	REQ_SORT_NEXT,
	REQ_SORT_PREV,
	REQ_SORT_LETTER,	/* Shift+letter: the column with the key's initial */
	REQ_SORT_REVERSE,
	REQ_ENTER,
	REQ_YAML,
	REQ_DESCRIBE,		/* `d`: as kubectl describe, with the Events */
	REQ_WRAP,		/* the detail view's long lines: wrapped or cut */
	REQ_STEP_OLDER,
	REQ_STEP_NEWER,
	REQ_CLEAR_LOG,
	REQ_PAUSE,
	REQ_RESYNC,
	REQ_VERIFY,
	REQ_DUMP,		/* the flight recorder writes a dump */
	REQ_CONTROLLER,		/* `w`: the controller pane, or the informer's */
	REQ_REDRAW,
	REQ_HELP,
	REQ_QUIT,
};

enum keymap {
	KEYMAP_GENERIC,
	KEYMAP_MAIN,
	KEYMAP_DETAIL,
	KEYMAP_HELP,
	KEYMAP__COUNT,
};

/* What key asks for in keymap (and, but for KEYMAP_HELP, the generic one). */
enum request request_of(enum keymap map, int key);

/* The help screen's lines, built once from the table; *nr is set. */
const char *const *request_help(size_t *nr);

/* The footer of a keymap: its hints in their order ("? help  / filter ..."). */
const char *request_hints(enum keymap map);

#endif

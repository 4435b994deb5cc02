/*
 * tui_view.h — what the TUI's views share: the state of the whole UI,
 * the view contract (the drawing helpers are in draw.h).
 *
 * The main screen is three panes (the table, the delta log, the health
 * pane) laid out by tui.c; a full-screen view (detail, help) replaces
 * them until it is closed.  Each is a `const struct view_ops`:
 *
 *   draw   paints inside r with stdscr; must not touch anything outside
 *          r and must not refresh (tui.c does, once per frame).
 *   key    handles a key the view understands; returns false to let the
 *          global keys (q, ?, Tab, p, r, …) have it.
 *   wheel  scrolls by lines (negative: up), for the mouse wheel.
 *
 * Views draw only what is visible, so their cost does not grow with the
 * number of objects; the table's index (sorting and filtering every row)
 * is rebuilt only when rows are added or removed, or when the order
 * depends on what changed, and never more often than its own cost allows.
 *
 * Threads: none — everything here runs on the terminal thread.
 */
#ifndef KINF_TUI_VIEW_H
#define KINF_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/draw.h"
#include "tui/tui_model.h"

struct session;

struct tui;

struct view_ops {
	const char *name;
	void (*draw)(struct tui *t, const struct rect *r, bool focused);
	bool (*key)(struct tui *t, int key);
	void (*wheel)(struct tui *t, int lines);
};

extern const struct view_ops table_view;
extern const struct view_ops log_view;
extern const struct view_ops health_view;
extern const struct view_ops detail_view;
extern const struct view_ops help_view;

enum pane {
	PANE_TABLE,
	PANE_LOG,
	PANE__COUNT,
};

/* The table's columns: fixed ones, then the kind's (see tui_table.c). */
struct table_layout {
	const char *kind;	/* the kind it was made for */
	size_t nr;
	const char **names;
	int *widths;
};

/* One tab: a resource, its model and how its panes are scrolled. */
struct tab {
	struct model m;
	struct row_index index;
	bool index_dirty;
	int64_t index_at;	/* monotonic, last rebuild */
	int64_t index_cost;	/* ms the last rebuild took */
	uint64_t seen_structure, seen_changes;	/* the model's, at the rebuild */
	struct scroll table, log;
	bool log_follow;	/* the log's cursor stays on the newest entry */
	char filter[256];
	int sort;		/* column, see tui_table.c */
	bool sort_desc;
	struct table_layout layout;
	int table_height;	/* rows shown last frame (for PgUp/PgDn) */
	int log_height;
};

struct tui {
	struct session *session;
	struct tab *tabs;
	size_t nr, cur;
	enum pane focus;
	const struct view_ops *view;	/* full-screen view, or NULL */
	bool paused;
	bool color;
	bool utf8;
	int lines, cols;
	int64_t now_mono, now_wall;	/* this frame's clocks */

	char message[256];		/* transient status line text */
	int64_t message_until;		/* monotonic */

	bool prompting;			/* typing a filter */
	char prompt[256];
	char prompt_saved[256];		/* restored by Esc */

	/* The detail view: which object, and its text, rebuilt when it changes. */
	struct {
		size_t tab;
		char *key;
		unsigned version;	/* the row's version the lines are of */
		bool vanished;		/* the row was freed; lines are the last */
		char **lines;
		int *attrs;
		size_t nr, alloc;
		struct scroll scroll;
		int height;
	} detail;
	int help_top;

	/* Where the panes were drawn last frame (for the mouse). */
	struct rect pane_rect[PANE__COUNT];

	bool quit;
};

static inline struct tab *tui_tab(struct tui *t)
{
	return &t->tabs[t->cur];
}

/* tui_view.c: helpers that read the UI's state. */
/* Transient message on the status line for a few seconds. */
void tui_message(struct tui *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Colour attribute of a pair (0 without colour). */
int tui_color(const struct tui *t, int pair);
/* How a delta type is shown: colour, or bold/dim without colour. */
int delta_attr(const struct tui *t, enum delta_type type);
/* A title bar across r's first line; focused panes are highlighted. */
void draw_title(const struct tui *t, const struct rect *r, bool focused,
		const char *text, const char *right);
/* "3s", "2m10s" since wall (from the frame's clock). */
void format_ago(const struct tui *t, int64_t wall, char buf[32]);

/* tui_table.c */
void table_rebuild(struct tui *t, struct tab *tab);
/* Rebuilds when dirty and the cost allows (force: now). */
void table_refresh(struct tui *t, struct tab *tab, bool force);
void table_cycle_sort(struct tui *t, struct tab *tab, bool reverse);
void table_release(struct tab *tab);
/* The row under the table's cursor, or NULL. */
struct row *table_selected(struct tab *tab);

/* tui_detail.c */
void detail_open(struct tui *t, size_t tab, const char *key);
void detail_release(struct tui *t);

#endif

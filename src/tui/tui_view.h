/*
 * tui_view.h — what the TUI's views share: the state of the whole UI,
 * the view contract (the drawing helpers are in draw.h).
 *
 * The main screen is three panes (the table, the delta log, the health
 * pane) laid out by tui.c; a full-screen view (detail, help) replaces
 * them until it is closed.  Each is a `const struct view_ops`:
 *
 *   new    makes the view's private state: a pane's, one a tab (made
 *          with the tab); a full-screen view's, one for the UI (tab NULL,
 *          in t->screen[]).  free frees it.  NULL: the view keeps none.
 *   draw   paints inside r with stdscr; must not touch anything outside
 *          r and must not refresh (tui.c does, once per frame).
 *   request  handles what a key asks for (tui_request.h: looked up in the
 *          view's keymap; key is the key itself), returns false to let
 *          the global requests (q, ?, Tab, p, r, …) have it.
 *   wheel  scrolls by lines (negative: up), for the mouse wheel.
 *   click  a click on the view's line-th line (0: its title), for panes.
 *
 * Views draw only what is visible, so their cost does not grow with the
 * number of objects; the table's order is kept up by each delta in
 * O(log n) and read by rank (tui_table.c says how), never sorted again
 * because rows changed.
 *
 * Threads: everything here runs on the terminal thread; only what the
 * consumer hands its worker (a LIST, discovery, `d`'s Events) runs
 * elsewhere.
 */
#ifndef KINF_TUI_VIEW_H
#define KINF_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "informer/consumer.h"
#include "lib/hugemem.h"
#include "lib/util.h"
#include "tui/draw.h"
#include "tui/tui_model.h"

struct session;
struct controller_opts;
struct tui_ctl;

struct tui;
struct tab;

enum prompt_kind {
	PROMPT_NONE,
	PROMPT_FILTER,
	PROMPT_RESOURCE,
	PROMPT_NAMESPACE,
};

struct prompt {
	enum prompt_kind kind;
	char text[256];
	char saved[256];	/* the filter before: Esc puts it back */
	char error[512];	/* why the text is not accepted, shown while typing */
	char hint[512];		/* what Tab found, shown while typing */
};

struct view_ops {
	enum keymap keymap;
	void *(*new)(struct tui *t, struct tab *tab);
	void (*free)(void *state);
	void (*draw)(struct tui *t, const struct rect *r, bool focused);
	bool (*request)(struct tui *t, enum request req, int key);
	void (*wheel)(struct tui *t, int lines);
	void (*click)(struct tui *t, int line);
};

extern const struct view_ops table_view;
extern const struct view_ops log_view;
extern const struct view_ops health_view;
extern const struct view_ops detail_view;
extern const struct view_ops help_view;
extern const struct view_ops controller_view;

enum pane {
	PANE_TABLE,
	PANE_LOG,
	PANE__COUNT,
};

/*
 * One tab: a resource, its model, its filter, and each pane's private
 * state (the pane's ops->new, freed with the tab).
 */
struct tab {
	struct model m;
	/*
	 * The TUI's, when it knew the kind's CRD as the tab opened, else
	 * NULL: the kind's columns, which never change while the tab is open.
	 */
	const struct crd_columns *crds;
	struct filter filter;	/* `/`, the table's and the delta pane's */
	void *pane[PANE__COUNT];
	/* The last `V` check's summary (owned), when, and whether it differed. */
	char *verify_text;
	int64_t verify_ms;	/* wall clock; 0: never checked */
	bool verify_bad;
	/* --controller: the tab's simulated controller (tui_controller.c); NULL: none. */
	struct tui_ctl *ctl;
};

/* The full-screen views, each with its private state in struct tui. */
enum screen_view {
	SCREEN_DETAIL,
	SCREEN_HELP,
	SCREEN__COUNT,
};

struct tui {
	struct session *session;
	struct crd_columns *crds;	/* tui_opts'; borrowed */
	struct flight *flight;		/* tui_opts'; borrowed, NULL: none */
	/*
	 * Each tab's listener, `V` and --verify-every, and the discovery of
	 * `:`, whose server requests run on the consumer's worker thread.
	 */
	struct consumer cons;
	/* What a job of the TUI's does on the worker, for the status line
	 * ("resolving deploy"); "" when none. */
	char working[512];
	unsigned hist_states;		/* each tab's model's */
	struct hist_budget hist_budget;	/* every tab's models' */
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

	/* The prompt on the status line: `/` filter, `:` resource, `n` namespace. */
	struct prompt prompt;
	/* `n`: only this namespace in every tab ("" for all). */
	char ns_filter[256];
	/* The last namespace shown before another (or all): where `0` goes back to. */
	char ns_prev[256];
	uint64_t filter_gen;		/* bumped when a filter or the namespace changes:
				 * every view looks again */

	/* The full-screen views' private states (their ops->new). */
	void *screen[SCREEN__COUNT];

	/* Where the panes were drawn last frame (for the mouse). */
	struct rect pane_rect[PANE__COUNT];

	/* --controller's options (tui_opts'; NULL: none), and whether `w`
	 * shows the controller pane in the informer pane's place. */
	const struct controller_opts *ctl_opts;
	bool show_ctl;

	/* The memory in 2 MiB pages, a range at a time between keys and
	 * deltas (lib/hugemem.h): from the first key, then now and then. */
	struct huge_sweep huge;
	int64_t huge_next;		/* monotonic: the next sweep's time */
	bool keyed;			/* a key was pressed */

	bool dirty;			/* something changed: a frame is due */
	bool key_frame;			/* ... because of a key: draw it now */
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
/* The columns of the widest delta type name (ReplacedAll): the type
 * column's width, so that every line's next column starts alike. */
int delta_type_width(void);
/* A title bar across r's first line; focused panes are highlighted. */
void draw_title(const struct tui *t, const struct rect *r, bool focused,
		const char *text, const char *right);
/* "3s", "2m10s" since wall (from the frame's clock). */
void format_ago(const struct tui *t, int64_t wall, char buf[32]);

/*
 * A server request of the TUI's on the consumer's worker (`:`'s
 * discovery, `d`'s Events): base.run there, then done() here with its
 * result, before base.free.
 */
struct tui_job {
	struct worker_job base;
	void (*done)(struct tui *t, struct tui_job *job);
};
/*
 * tui_view.c: hands job to the worker (takes it); what: the status line's
 * words while it runs ("resolving deploy").  -1 when a job of the TUI's
 * is queued or running already (then job is the caller's still).
 */
int tui_job_submit(struct tui *t, struct tui_job *job, const char *what);

#endif

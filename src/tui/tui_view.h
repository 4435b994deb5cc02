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
	bool wants_resource;	/* Enter on `:`: the loop is to open text */
};

struct view_ops {
	const char *name;
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
	uint64_t filter_gen;		/* bumped when any filter changes */

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

/* A tab's filter or the namespace changed: every view looks again. */
void tui_filters_changed(struct tui *t);
/* Only namespace ns shown ("": all), the one left kept in ns_prev. */
void tui_namespace_show(struct tui *t, const char *ns);
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
 * The informer needs a look: backing off, an error in the last minute, a
 * watch whose resourceVersion went back, or a cache the last `V` found
 * wrong.  Its tab shows '!'.
 */
bool tab_unhealthy(const struct tui *t, const struct tab *tab);

/* tui_table.c */
void table_rebuild(struct tui *t, struct tab *tab);
/* Rebuilds when dirty and the cost allows (force: now). */
void table_refresh(struct tui *t, struct tab *tab, bool force);
/* Sorting: by the column step places on in screen order (s, <, >), the
 * other way round (S), or by the column with that initial (Shift+letter;
 * again, the next with it; false when none has it). */
void table_cycle_sort(struct tui *t, struct tab *tab, int step);
void table_reverse_sort(struct tui *t, struct tab *tab);
bool table_sort_letter(struct tui *t, struct tab *tab, char letter);
/*
 * A new sort is answered with its first page when it can be (tui_table.c's
 * struct pending); the rest of its order is made by table_work(), a slice
 * of about budget_ms at a time, which the loop calls while table_pending()
 * says some is left, without sleeping in between.  So are, from sync on,
 * the rows' keys for a sort by a kind's column (struct row's kind_key).
 */
bool table_pending(const struct tui *t);
void table_work(struct tui *t, int budget_ms);
/* Whether tab's new sort is still a page: a row freed now (model_expire())
 * would have it finished first, at once rather than in slices. */
bool table_paging(const struct tab *tab);
/* Each second (the loop's tick): what a burst of sorts and filters kept
 * is given back once no key has sorted or filtered for a while. */
void table_tick(struct tui *t);
/* The row under the table's cursor, or NULL. */
struct row *table_selected(struct tab *tab);
/* What the table shows changed (a filter, pause): sort and filter again. */
void table_invalidate(struct tab *tab);
/* The cursor to the first row (a new filter). */
void table_to_top(struct tab *tab);

/* tui_log.c */
/* The key of the object of the delta line under the cursor, or NULL. */
const char *log_selected_key(struct tui *t, struct tab *tab);
/* The model's log was cleared: the cursor follows the newest again. */
void log_cleared(struct tab *tab);

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

/*
 * tui_detail.c: the object full screen: its history, last change and
 * JSON; only the object, as YAML; or as kubectl describe lays it out.
 */
enum detail_mode {
	DETAIL_HISTORY,
	DETAIL_YAML,
	DETAIL_DESCRIBE,
};
void detail_open(struct tui *t, size_t tab, const char *key, enum detail_mode mode);

/*
 * tui_describe.c: `d`.  An object as `kubectl describe` lays it out
 * (its describers' lines, aligned as its tabwriter aligns them): a Pod's
 * and a Secret's as their own describers (a Secret's values by their
 * sizes only), any other kind's as the generic describer (its fields,
 * key: value, nested by indent); then its Events, as kubectl fetches
 * them: a LIST of events with a field selector on the object's name,
 * namespace, uid (and kind, but for a Pod).
 */
struct json_object;
struct strbuf;
/*
 * The text of obj (the caller's tree, redacted in place) into out, a
 * line each; events: the Events' items, or NULL with note saying why
 * there are none to show (NULL note: the kind shows no Events).
 */
void describe_text(struct json_object *obj, const char *group, const char *kind,
		   struct json_object *events, const char *note, int64_t now_ms,
		   struct strbuf *out);
/* Whether kubectl describe shows Events for the kind (a Secret: none). */
bool describe_has_events(const char *group, const char *kind);
/*
 * What describe_fetch() number seq found, on the terminal thread: the
 * Events' items (an array, taken), or NULL and why not.
 */
typedef void describe_done_fn(struct tui *t, uint64_t seq, struct json_object *items,
			      const char *why);
/*
 * Starts the LIST of obj's Events on the worker; done gets what it
 * finds.  -1 with err when the worker has a job of the TUI's already.
 */
int describe_fetch(struct tui *t, struct json_object *obj, const char *group, const char *kind,
		   uint64_t seq, describe_done_fn *done, struct errbuf *err);

/* tui_help.c: the keys, from the top. */
void help_open(struct tui *t);

/*
 * tui_story.c: the tab's simulated controller (--controller), fed
 * by tui.c's loop: each notification (paused or not: the controller does
 * not pause), then tui_ctl_advance() after each wake-up, which runs the
 * timers due and says whether anything happened; tui_ctl_wait_ms() bounds
 * the loop's sleep (-1: no timer).  tui_ctl_expire() drops what is kept
 * of deleted objects whose rows the model freed.
 */
/* NULL: opts are bad (never: the command checked them). */
struct tui_ctl *tui_ctl_new(const struct controller_opts *opts);
void tui_ctl_free(struct tui_ctl *ctl);	/* NULL: no-op */
void tui_ctl_note(struct tui_ctl *ctl, const struct notification *n);
bool tui_ctl_advance(struct tui_ctl *ctl);
int64_t tui_ctl_wait_ms(struct tui_ctl *ctl);
void tui_ctl_expire(struct tui_ctl *ctl, const struct model *m, int64_t now_mono);
/*
 * Bumped by every record about key (NULL: about any key), for the views
 * that show it to rebuild; NULL ctl: 0.  With --enqueue-owner an
 * object's deltas are covered by its owner's Reconciles: only the latter
 * tells of them.
 */
uint64_t tui_ctl_generation(const struct tui_ctl *ctl, const char *key);
/* Every tab's: tui_ctl_advance (t->dirty when something happened), the
 * least tui_ctl_wait_ms. */
void tui_ctl_tabs_advance(struct tui *t);
int64_t tui_ctl_tabs_wait_ms(struct tui *t);
/* The simulation, for its stats and its workers (borrowed). */
struct controller *tui_ctl_controller(const struct tui_ctl *ctl);
/* The last Reconcile of key; strings valid until the next record. */
struct tui_ctl_last {
	unsigned number;	/* the n-th Reconcile */
	const char *rv;		/* the RV it read; "": nothing (not in the cache) */
	const char *done;	/* how it ended ("success after 1.000s"); NULL: running */
	const char *unseen;	/* the states it never saw, as the records say; NULL: none */
};
bool tui_ctl_last(const struct tui_ctl *ctl, const char *key, struct tui_ctl_last *out);
/*
 * The detail view's story: where the delta at history entry i of row r
 * went (filtered by which predicate; enqueued new, coalesced or dirty;
 * then the Reconcile that covered it and the RV it read), into buf;
 * false when the controller has no word of it.
 */
bool tui_ctl_fate(const struct tui *t, const struct tui_ctl *ctl, const struct row *r,
		  size_t i, char *buf, size_t size);

/* tui_controller.c: `w` shows or hides the controller pane (controller_view). */
void tui_ctl_toggle(struct tui *t);

/*
 * tui_prompt.c: the status line's prompt (t->prompt).  After prompt_key(),
 * wants_resource asks the caller to open the resource named by text and
 * to close the prompt with prompt_close(); what goes wrong then (no such
 * resource) the caller says on the status line (tui_message()), the
 * prompt closed: the keys after it are keys again, not text.
 */
void prompt_open(struct tui *t, enum prompt_kind kind);
void prompt_key(struct tui *t, int key);
void prompt_close(struct tui *t);
void prompt_draw(struct tui *t, int y);

#endif

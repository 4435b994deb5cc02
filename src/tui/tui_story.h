/*
 * tui_story.h — the tab's simulated controller (--controller), fed
 * by tui.c's loop: each notification (paused or not: the controller does
 * not pause), then tui_ctl_tabs_advance() after each wake-up, which runs
 * every tab's timers due and says whether anything happened;
 * tui_ctl_tabs_wait_ms() bounds the loop's sleep (-1: no timer).
 * tui_ctl_expire() drops what is kept of deleted objects whose rows the
 * model freed.
 */
#ifndef KINF_TUI_STORY_H
#define KINF_TUI_STORY_H

#include "tui/tui_view.h"

/* NULL: opts are bad (never: the command checked them). */
struct tui_ctl *tui_ctl_new(const struct controller_opts *opts);
void tui_ctl_free(struct tui_ctl *ctl);	/* NULL: no-op */
void tui_ctl_note(struct tui_ctl *ctl, const struct notification *n);
void tui_ctl_expire(struct tui_ctl *ctl, const struct model *m);
/*
 * Bumped by every record about key (NULL: about any key), for the views
 * that show it to rebuild; NULL ctl: 0.  With --enqueue-owner an
 * object's deltas are covered by its owner's Reconciles: only the latter
 * tells of them.
 */
uint64_t tui_ctl_generation(const struct tui_ctl *ctl, const char *key);
/* Every tab's timers run (t->dirty when something happened); the least
 * wait of every tab's (-1: none). */
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

#endif

/*
 * tui_health.c — the informer's own activity: what it is doing and since
 * when, its resourceVersion, how often it listed, watched, relisted (and
 * why), hit 410, failed, backed off, got bookmarks and resynced; deltas
 * per second, the FIFO's depth, the resync times and the last error.
 * Everything comes from informer_get_stats(), sampled once a second.
 * A figure that does not fit beside the others goes on the next line,
 * never cut; the error wraps at words, and what does not fit its lines
 * or the pane ends in the ellipsis.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "tui/tui_view.h"
#include "lib/util.h"

static void state_text(const struct tui *t, const struct informer_stats *st,
		       char *buf, size_t size)
{
	char d[32];

	switch (st->state) {
	case STATE_LISTING:
		if (st->relists && st->relist_reason[0])
			snprintf(buf, size, "relisting (%s), page %u", st->relist_reason,
				 st->list_page);
		else
			snprintf(buf, size, "listing, page %u", st->list_page);
		break;
	case STATE_WATCHING:
		format_ago(t, st->state_since_ms, d);
		snprintf(buf, size, "watching for %s", d);
		break;
	case STATE_BACKOFF:
		format_age(st->backoff_until_ms - t->now_wall, d);
		snprintf(buf, size, "backing off, retry in %s", d);
		break;
	default:
		snprintf(buf, size, "%s", informer_state_name(st->state));
		break;
	}
}

/*
 * The pane below its title, drawn as it is written: lines of items, each
 * item kept whole.  An item that does not fit beside the line's others
 * goes on below; the error wraps at words.
 */
struct health_flow {
	int y, bottom, x0, w;
	int x;			/* the columns of line y used; -1: no line begun */
	int attr;		/* the line's */
};

/* The last error wraps onto this many lines: a URL takes most of one. */
#define ERROR_LINES 5

static void line_add(struct health_flow *h, int attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void item_add(struct health_flow *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void wrap_add(struct health_flow *h, int attr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void item_put(struct health_flow *h, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* An item of the line begun, which ends in the ellipsis if its buffer cut it. */
static void item_put(struct health_flow *h, const char *fmt, va_list ap)
{
	char item[160];
	int n = vsnprintf(item, sizeof(item), fmt, ap);

	if (n > 0 && (size_t)n >= sizeof(item))
		text_mark_cut(item, sizeof(item));
	if (h->x && h->x + 2 + text_width(item) > h->w) {
		h->y++;	/* the rest of the line goes on below */
		h->x = 0;
	}
	if (h->y >= h->bottom)
		return;
	if (h->x)
		h->x += 2;
	h->x += draw_text(h->y, h->x0 + h->x, h->w - h->x, h->attr, item);
}

/* Ends the line begun, if any: what comes next starts below it. */
static void line_end(struct health_flow *h)
{
	if (h->x >= 0)
		h->y++;
	h->x = -1;
}

static void line_add(struct health_flow *h, int attr, const char *fmt, ...)
{
	va_list ap;

	line_end(h);
	h->x = 0;
	h->attr = attr;
	va_start(ap, fmt);
	item_put(h, fmt, ap);
	va_end(ap);
}

static void item_add(struct health_flow *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	item_put(h, fmt, ap);
	va_end(ap);
}

/* A text that wraps at words (an error), whole however long: the pane's
 * bottom cuts it as its lines would, with the mark. */
static void wrap_add(struct health_flow *h, int attr, const char *fmt, ...)
{
	va_list ap;

	line_end(h);
	va_start(ap, fmt);
	char *text = xvasprintf(fmt, ap);
	va_end(ap);
	struct pane_lines c = { h->y, h->bottom, h->x0, h->w, attr };
	text_wrap(text, h->w, h->bottom - h->y < ERROR_LINES ? h->bottom - h->y : ERROR_LINES,
		  pane_wrap, &c);
	h->y = c.y;
	free(text);
}

typedef unsigned long long ull;

/* What the reflector and the processor are doing, and have done. */
static void lines_informer(struct tui *t, struct health_flow *h)
{
	struct tab *tab = tui_tab(t);
	const struct informer_stats *st = &tab->m.stats;
	char a[32], b[32];
	char state[160];
	state_text(t, st, state, sizeof(state));
	line_add(h, st->state == STATE_BACKOFF ? A_BOLD | tui_color(t, PAIR_ERROR) : A_BOLD,
		 "state    %s", state);
	line_add(h, 0, "rv       %s", st->rv[0] ? st->rv : "-");
	item_add(h, "%s", st->synced ? "synced" : "not synced");
	line_add(h, 0, "lists %llu", (ull)st->lists);
	item_add(h, "relists %llu", (ull)st->relists);
	item_add(h, "410s %llu", (ull)st->expired);
	line_add(h, 0, "watches %llu", (ull)st->watches);
	item_add(h, "bookmarks %llu", (ull)st->bookmarks);
	line_add(h, st->errors ? tui_color(t, PAIR_ERROR) : 0, "errors %llu", (ull)st->errors);
	item_add(h, "backoffs %llu", (ull)st->backoffs);
	item_add(h, "renewed %llu", (ull)st->stalls);
	line_add(h, 0, "deltas/s %.1f", tab->m.deltas_per_s);
	item_add(h, "fifo %zu", st->fifo_depth);
	item_add(h, "cached %zu", st->cached);
	if (st->last_resync_ms)
		format_ago(t, st->last_resync_ms, a);
	else
		snprintf(a, sizeof(a), "never");
	line_add(h, 0, "resyncs %llu", (ull)st->resyncs);
	item_add(h, "last %s", a);
	if (st->next_resync_ms) {
		format_age(st->next_resync_ms - t->now_wall, b);
		item_add(h, "next %s", b);
	}
	if (tab->m.held_nr || t->paused)
		line_add(h, 0, "held %zu (paused)", tab->m.held_nr);
	if (st->refused)
		line_add(h, A_BOLD | tui_color(t, PAIR_ERROR),
			 "refused  retrying as client-go does");
	if (st->last_error[0]) {
		format_ago(t, st->last_error_ms, a);
		wrap_add(h, A_BOLD | tui_color(t, PAIR_ERROR), "error %s ago: %s", a,
			 st->last_error);
	}
	/* Alive, or only quiet? */
	if (st->watch_since_ms) {
		format_ago(t, st->watch_since_ms, a);
		line_add(h, 0, "watch    open %s", a);
		item_add(h, "of %ds", st->watch_timeout_s);
	} else {
		line_add(h, 0, "watch    none open");
	}
	if (st->watch_silent[0])
		wrap_add(h, A_BOLD | tui_color(t, PAIR_ERROR), "silent   %s", st->watch_silent);
	format_ago(t, st->last_event_ms, a);
	line_add(h, 0, "event    %s%s", a, st->last_event_ms ? " ago" : "");
	format_ago(t, st->last_bookmark_ms, a);
	item_add(h, "bookmark %s%s", a, st->last_bookmark_ms ? " ago" : "");
	if (st->bookmark_gap_ms) {
		format_age(st->bookmark_gap_ms, b);
		item_add(h, "every %s", b);
	}
	line_add(h, st->short_watches || st->rv_backwards ? tui_color(t, PAIR_ERROR) : 0,
		 "short watches %llu", (ull)st->short_watches);
	item_add(h, "rv back %llu", (ull)st->rv_backwards);
}

/* The last `V`, then the counters. */
static void lines_counts(struct tui *t, struct health_flow *h)
{
	struct tab *tab = tui_tab(t);
	const struct informer_stats *st = &tab->m.stats;
	char a[32];

	if (consumer_verifying(&t->cons, (size_t)(tab - t->tabs))) {
		line_add(h, 0, "verify   under way");
	} else if (tab->verify_ms) {
		format_ago(t, tab->verify_ms, a);
		wrap_add(h, tab->verify_bad ? A_BOLD | tui_color(t, PAIR_ERROR) : 0,
			 "verify   %s ago: %s", a, tab->verify_text);
	} else {
		line_add(h, 0, "verify   V checks the cache");
	}
	line_add(h, 0, "backlog  %zu", st->backlog);
	if (st->backlog && st->backlog_since_ms) {
		format_ago(t, st->backlog_since_ms, a);
		item_add(h, "oldest %s", a);
	}
	line_add(h, 0, "events %llu", (ull)st->events);
	item_add(h, "pages %llu", (ull)st->pages);
	item_add(h, "429s %llu", (ull)st->throttled);
	line_add(h, 0, "Added %llu", (ull)st->deltas[DELTA_ADDED]);
	item_add(h, "Updated %llu", (ull)st->deltas[DELTA_UPDATED]);
	item_add(h, "Deleted %llu", (ull)st->deltas[DELTA_DELETED]);
	/* As --types counts them: a list is a list, a resync a resync,
	 * whichever FIFO queued it (1.36's atomic one: ReplacedAll, SyncAll). */
	line_add(h, 0, "Replaced %llu",
		 (ull)(st->deltas[DELTA_REPLACED] + st->deltas[DELTA_REPLACED_ALL]));
	item_add(h, "Sync %llu", (ull)(st->deltas[DELTA_SYNC] + st->deltas[DELTA_SYNC_ALL]));
}

static void health_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct health_flow h = { r->y + 1, r->y + r->h, r->x + 1, r->w - 1, -1, 0 };

	draw_title(t, r, focused, " informer", NULL);
	lines_informer(t, &h);
	lines_counts(t, &h);
}

const struct view_ops health_view = {
	.draw = health_draw,
};

/*
 * tui_log.c — the delta stream of the current resource: one line per
 * delta, coloured by type, saying where it came from (initial list,
 * relist n, watch, resync) and whether it is a tombstone, with the
 * informer's activity (lists, watches, 410s, backoff) between them.
 *
 * The unchanged objects of a relist (and a resync's Sync deltas) are one
 * line, "relist #3: 1998 unchanged", that Enter expands and collapses
 * (see log_group in tui_model.h), so a relist of thousands does not bury
 * the tombstone it brought.  The `/` filter and the `n` namespace apply
 * here as in the table: a delta line shows when its object's key (or,
 * for a label selector, its cached object) matches; a group when one of
 * its deltas does; activity lines always.
 *
 * The lines shown are an index over the model's log, kept in step by
 * appending while the log only grows, rebuilt when it changed otherwise.
 * The cursor follows the newest line until it is moved away; Enter opens
 * the object's detail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "tui/tui_log.h"
#include "tui/tui_detail.h"
#include "tui/tui_table.h"
#include "lib/util.h"

/*
 * A line of the delta pane: a log entry (item -1), one of a group's
 * deltas (item >= 0), or the note that a group kept no more.
 */
#define LINE_NOT_KEPT (-2)
struct log_line {
	uint64_t seq;
	int item;
};

struct log_lines {
	struct log_line *v;
	size_t nr, alloc;
};

/* The delta pane's own state, one a tab (tab->pane[PANE_LOG]). */
struct log_state {
	struct scroll scroll;	/* over lines */
	bool follow;		/* the cursor stays on the newest entry */
	struct log_lines lines;
	uint64_t seen_total, seen_changes;	/* the model's, at the last */
	uint64_t seen_filter_gen;	/* t->filter_gen the lines are of */
	bool reveal;		/* scroll the cursor's line to the top */
	int height;		/* lines shown last frame (for PgUp/PgDn) */
};

static inline struct log_state *ls(const struct tab *tab)
{
	return tab->pane[PANE_LOG];
}

/* ---- which lines are shown ------------------------------------------------ */

static bool key_shown(const struct tui *t, const struct tab *tab, const char *key)
{
	if (order_by_namespace(t, tab)) {
		size_t n = strlen(t->ns_filter);
		if (strncmp(key, t->ns_filter, n) || key[n] != '/')
			return false;
	}
	if (tab->filter.sel) {
		const struct row *r = model_row(&tab->m, key);
		return r && filter_match_row(&tab->filter, r);
	}
	return filter_match_key(&tab->filter, key);
}

/*
 * How many of a group's kept deltas are shown: counted once per filter
 * (generation) and then only for the deltas added since.  The count is
 * 1-based in the generation so that 0 means never counted.
 */
static size_t group_shown(const struct tui *t, const struct tab *tab, struct log_group *g)
{
	if (!order_filtering(t, tab))
		return g->nr;
	if (g->match_gen != t->filter_gen + 1 || g->match_upto > g->nr) {
		g->match_gen = t->filter_gen + 1;
		g->match_upto = g->match_nr = 0;
	}
	for (; g->match_upto < g->nr; g->match_upto++)
		g->match_nr += key_shown(t, tab, g->items[g->match_upto].key);
	return g->match_nr;
}

static bool entry_shown(const struct tui *t, const struct tab *tab, struct log_entry *e)
{
	if (!order_filtering(t, tab))
		return true;
	if (e->match_gen != t->filter_gen + 1) {
		e->match_gen = t->filter_gen + 1;
		e->match = key_shown(t, tab, e->text);
	}
	return e->match;
}

static void lines_push(struct tab *tab, uint64_t seq, int item)
{
	struct log_lines *l = &ls(tab)->lines;
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = (struct log_line){ seq, item };
}

static void entry_lines(const struct tui *t, struct tab *tab, struct log_entry *e)
{
	switch (e->kind) {
	case LOG_ACTIVITY:
		lines_push(tab, e->seq, -1);
		break;
	case LOG_DELTA:
		if (entry_shown(t, tab, e))
			lines_push(tab, e->seq, -1);
		break;
	case LOG_GROUP: {
		struct log_group *g = e->group;
		if (order_filtering(t, tab) && !group_shown(t, tab, g))
			break;
		lines_push(tab, e->seq, -1);
		if (!g->expanded)
			break;
		for (size_t i = 0; i < g->nr; i++)
			if (key_shown(t, tab, g->items[i].key))
				lines_push(tab, e->seq, (int)i);
		if (g->count > g->nr)
			lines_push(tab, e->seq, LINE_NOT_KEPT);
		break;
	}
	}
}

static size_t line_find(const struct tab *tab, struct log_line at)
{
	size_t lo = 0, hi = ls(tab)->lines.nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct log_line *l = &ls(tab)->lines.v[mid];
		if (l->seq < at.seq || (l->seq == at.seq && l->item < at.item))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Brings the lines in step with the log; the cursor stays on its line. */
static void lines_refresh(struct tui *t, struct tab *tab)
{
	struct model *m = &tab->m;
	struct log_lines *l = &ls(tab)->lines;

	bool full = ls(tab)->seen_filter_gen != t->filter_gen ||	/* a filter changed */
		    m->log_changes != ls(tab)->seen_changes;

	if (!full && m->log_total == ls(tab)->seen_total)
		return;
	struct log_line at = { 0, 0 };
	bool had = ls(tab)->scroll.cur < l->nr;
	if (had)
		at = l->v[ls(tab)->scroll.cur];

	uint64_t first = m->log_nr ? model_log_at(m, 0)->seq : m->log_total + 1;
	if (full) {
		l->nr = 0;
		for (uint64_t seq = first; seq <= m->log_total; seq++)
			entry_lines(t, tab, model_log_seq(m, seq));
	} else {
		/* Appends only: drop what left the ring, add what came. */
		size_t gone = 0;
		while (gone < l->nr && l->v[gone].seq < first)
			gone++;
		if (gone) {
			memmove(l->v, l->v + gone, (l->nr - gone) * sizeof(*l->v));
			l->nr -= gone;
		}
		uint64_t from = ls(tab)->seen_total + 1 > first ? ls(tab)->seen_total + 1 : first;
		for (uint64_t seq = from; seq <= m->log_total; seq++)
			entry_lines(t, tab, model_log_seq(m, seq));
	}
	ls(tab)->seen_filter_gen = t->filter_gen;
	ls(tab)->seen_changes = m->log_changes;
	ls(tab)->seen_total = m->log_total;

	if (ls(tab)->follow) {
		ls(tab)->scroll.cur = l->nr ? l->nr - 1 : 0;
	} else if (had) {
		size_t i = line_find(tab, at);
		ls(tab)->scroll.cur = i < l->nr ? i : (l->nr ? l->nr - 1 : 0);
	}
}

/* ---- drawing ---------------------------------------------------------------- */

/* The time and a space: where the type column starts, on every line. */
#define CLOCK_COLS 13

/* The widest key and resourceVersion of the delta lines on screen. */
struct delta_cols {
	int key, rv;
};

/*
 * "KEY  rv N  HOW" in w columns, the key and the RV padded to the
 * columns' widths when the whole line fits so.  Else what does not fit
 * gives way whole, the least telling first: the origin, then the
 * resourceVersion (for a tombstone, whose origin says it is one, the
 * other way round); the key goes last, shortened to end in the ellipsis.
 */
static void draw_delta_fields(int y, int x, int w, int attr, const char *key,
			      const char *rv, const char *how, bool tombstone,
			      const struct delta_cols *cols)
{
	char rvs[80];
	int kw = text_width(key);

	if (w <= 0)
		return;
	snprintf(rvs, sizeof(rvs), "rv %-*s", cols->rv < 64 ? cols->rv : 0, rv);
	int need_how = 2 + text_width(how);
	if (cols->key > kw && cols->key + 2 + (int)strlen(rvs) + need_how <= w)
		kw = cols->key;		/* the columns line up */
	else if (kw + 2 + (int)strlen(rvs) + need_how > w)
		snprintf(rvs, sizeof(rvs), "rv %s", rv);
	int need_rv = 2 + (int)strlen(rvs);
	bool show_rv = true, show_how = true;
	bool *first = tombstone ? &show_rv : &show_how;
	bool *second = tombstone ? &show_how : &show_rv;

	if (kw + need_rv + need_how > w)
		*first = false;
	if (kw + (show_rv ? need_rv : 0) + (show_how ? need_how : 0) > w)
		*second = false;
	if (kw > w)
		kw = w;
	int used = draw_text(y, x, kw, attr, key);
	used = kw > used ? kw : used;	/* the column's padding */
	if (show_rv)
		used += 2 + draw_text(y, x + used + 2, w - used - 2, attr, rvs);
	if (show_how)
		draw_text(y, x + used + 2, w - used - 2, attr, how);
}

/* Type, then the fields, from x to the pane's right edge. */
static void draw_delta(const struct tui *t, int y, int x, int right, int base, bool sel,
		       const struct hist_entry *d, const char *key, const struct delta_cols *cols)
{
	char how[64];
	const char *type = delta_type_name(d->type);
	int tw = text_width(type);

	if (x >= right)
		return;
	/* A column as wide as the widest name (ReplacedAll): the keys line up. */
	draw_text(y, x, tw < right - x ? tw : right - x,
		  base | (sel ? 0 : delta_attr(t, d->type)), type);
	x += delta_type_width() + 1;
	if (x >= right)
		return;
	hist_describe(d, how, sizeof(how));
	draw_delta_fields(y, x, right - x, base, key, d->rv[0] ? d->rv : "-", how, d->tombstone,
			  cols);
}

/* The delta of line at of the pane, and its object's key; NULL: none. */
static const struct hist_entry *line_delta(const struct tab *tab, size_t at, const char **key)
{
	const struct log_line *line = &ls(tab)->lines.v[at];
	const struct log_entry *e = model_log_seq(&tab->m, line->seq);

	if (e && e->kind == LOG_DELTA) {
		*key = e->text;
		return &e->d;
	}
	if (e && e->kind == LOG_GROUP && line->item >= 0) {
		*key = e->group->items[line->item].key;
		return &e->group->items[line->item].d;
	}
	return NULL;
}

/* The columns of the delta lines from the top, height of them: their widest. */
static struct delta_cols visible_cols(struct tab *tab, int height)
{
	struct delta_cols cols = { 0, 1 };

	for (int i = 0; i < height; i++) {
		size_t at = ls(tab)->scroll.top + (size_t)i;
		if (at >= ls(tab)->lines.nr)
			break;
		const char *key;
		const struct hist_entry *d = line_delta(tab, at, &key);
		if (!d)
			continue;
		int kw = text_width(key), rw = (int)strlen(d->rv);
		cols.key = kw > cols.key ? kw : cols.key;
		cols.rv = rw > cols.rv ? rw : cols.rv;
	}
	return cols;
}

static void log_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct tab *tab = tui_tab(t);
	struct model *m = &tab->m;
	char title[128];

	ls(tab)->height = r->h - 1;
	lines_refresh(t, tab);
	if (ls(tab)->reveal) {
		/* A group just opened: its line on top, its deltas below. */
		ls(tab)->scroll.top = ls(tab)->scroll.cur;
		ls(tab)->reveal = false;
	}
	scroll_fix(&ls(tab)->scroll, ls(tab)->lines.nr, ls(tab)->height);

	snprintf(title, sizeof(title), " deltas  %zu shown", ls(tab)->lines.nr);
	draw_title(t, r, focused, title, ls(tab)->follow ? "following" : "");

	struct delta_cols cols = visible_cols(tab, ls(tab)->height);
	for (int i = 0; i < ls(tab)->height; i++) {
		size_t at = ls(tab)->scroll.top + (size_t)i;
		if (at >= ls(tab)->lines.nr)
			break;
		const struct log_line *line = &ls(tab)->lines.v[at];
		const struct log_entry *e = model_log_seq(m, line->seq);
		if (!e)
			continue;
		bool sel = focused && at == ls(tab)->scroll.cur;
		int base = sel ? A_REVERSE : A_NORMAL;
		int y = r->y + 1 + i, x = r->x + CLOCK_COLS, end = r->x + r->w;
		char clock[16], buf[512];
		const char *key;
		const struct hist_entry *d = line_delta(tab, at, &key);

		if (sel)
			mvhline(y, r->x, ' ' | (chtype)base, r->w);
		format_clock(d ? d->time_ms : e->time_ms, clock);
		draw_text(y, r->x, r->w, base | A_DIM, clock);
		if (d)
			draw_delta(t, y, x, end, base, sel, d, key, &cols);
		if (d || x >= end)
			continue;
		const struct log_group *g = e->group;
		if (e->kind == LOG_ACTIVITY) {
			snprintf(buf, sizeof(buf), "-- %s", e->text);
			draw_text(y, x, end - x, base | A_BOLD | tui_color(t, PAIR_ACTIVITY), buf);
		} else if (line->item == LINE_NOT_KEPT) {
			snprintf(buf, sizeof(buf), "  %s %zu more, not kept", draw_ellipsis(),
				 g->count - g->nr);
			draw_text(y, x, end - x, base | A_DIM, buf);
		} else {	/* a group's own line */
			const char *mark = g->expanded ? (t->utf8 ? "▾" : "-") : (t->utf8 ? "▸" : "+");
			int n = snprintf(buf, sizeof(buf), "%s %s: %zu unchanged", mark, g->label,
					 g->count);
			if (order_filtering(t, tab))
				snprintf(buf + n, sizeof(buf) - (size_t)n, " (%zu match)",
					 group_shown(t, tab, e->group));
			draw_text(y, x, end - x, base | (sel ? 0 : delta_attr(t, DELTA_SYNC)), buf);
		}
	}
}

const char *log_selected_key(struct tab *tab)
{
	const char *key;

	if (ls(tab)->scroll.cur >= ls(tab)->lines.nr)
		return NULL;
	return line_delta(tab, ls(tab)->scroll.cur, &key) ? key : NULL;
}

static bool log_request(struct tui *t, enum request req, int key)
{
	struct tab *tab = tui_tab(t);
	size_t nr = ls(tab)->lines.nr;

	if (scroll_request(&ls(tab)->scroll, req, nr, ls(tab)->height)) {
		ls(tab)->follow = nr && ls(tab)->scroll.cur == nr - 1;
		return true;
	}
	if (req == REQ_ENTER) {
		if (ls(tab)->scroll.cur >= nr)
			return true;
		const struct log_line *line = &ls(tab)->lines.v[ls(tab)->scroll.cur];
		struct log_entry *e = model_log_seq(&tab->m, line->seq);
		const char *k = log_selected_key(tab);
		if (k) {
			detail_open(t, t->cur, k, DETAIL_HISTORY);
		} else if (e && e->kind == LOG_GROUP) {
			model_group_toggle(&tab->m, e);
			/* Stay on the group's line, wherever following was. */
			ls(tab)->follow = false;
			ls(tab)->reveal = e->group->expanded;
		}
		return true;
	}
	return false;
}

static void log_wheel(struct tui *t, int lines)
{
	struct tab *tab = tui_tab(t);
	size_t nr = ls(tab)->lines.nr;

	scroll_by(&ls(tab)->scroll, lines, nr);
	scroll_fix(&ls(tab)->scroll, nr, ls(tab)->height);
	ls(tab)->follow = nr && ls(tab)->scroll.cur == nr - 1;
}

/* Line 0 is the title. */
static void log_click(struct tui *t, int line)
{
	struct log_state *st = ls(tui_tab(t));

	if (line >= 1) {
		st->scroll.cur = st->scroll.top + (size_t)(line - 1);
		st->follow = false;
	}
}

void log_cleared(struct tab *tab)
{
	ls(tab)->scroll.cur = ls(tab)->scroll.top = 0;
	ls(tab)->follow = true;
}

static void *log_view_new(struct tui *t, struct tab *tab)
{
	struct log_state *st = xcalloc(1, sizeof(*st));

	st->follow = true;
	st->seen_filter_gen = t->filter_gen;
	return st;
}

static void log_view_free(void *state)
{
	struct log_state *st = state;

	free(st->lines.v);
	free(st);
}

const struct view_ops log_view = {
	.keymap = KEYMAP_MAIN,
	.new = log_view_new,
	.free = log_view_free,
	.draw = log_draw,
	.request = log_request,
	.wheel = log_wheel,
	.click = log_click,
};

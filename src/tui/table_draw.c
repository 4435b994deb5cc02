/*
 * table_draw.c — the table as a view (tui_view.h's table_view): its state
 * made and freed, drawn (only the rows on screen: O(rows shown × log n)),
 * and its keys.  The kind's columns, then the resourceVersion, the last
 * delta and how long ago it came.  Rows that just changed carry a mark
 * in the first column (+ added, * changed); deleted rows stay a few
 * seconds, dimmed, marked x (tombstones: ?).  table_state.h says how the
 * order is kept.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "lib/util.h"
#include "tui/table_cells.h"
#include "tui/table_state.h"
#include "tui/tui_detail.h"
#include "tui/tui_table.h"

static void *table_view_new(struct tui *t, struct tab *tab)
{
	struct table_state *st = xcalloc(1, sizeof(*st));

	tab->pane[PANE_TABLE] = st;
	st->t = t;
	table_cells_init(st, tab);
	table_order_init(t, tab);
	return st;
}

/* The rows are the model's: only the state goes. */
static void table_view_free(void *state)
{
	struct table_state *st = state;

	if (st) {
		table_order_release(st);
		table_cells_release(st);
	}
	free(st);
}

/* ---- drawing ---------------------------------------------------------------- */

/*
 * Which columns give way, first to last, when the screen is too narrow
 * for all: RESTARTS, then NODE, then the other details, AGE, and RV.
 * NAME and STATUS never go; NAME is shortened (ending in the ellipsis)
 * instead, down to NAME_MIN columns, before LAST, DELTA and READY go,
 * and further only when nothing else is left.  NAME is never wider than
 * half the table (name_cap()): one long name does not push every row's
 * RESTARTS, NODE, AGE and RV off the screen.
 */
static const char *const give_way[] = {
	"RESTARTS", "NODE", "IP", "NOMINATED NODE", "READINESS GATES",
	"UP-TO-DATE", "AVAILABLE", "ROLES", "VERSION", "TYPE", "DATA",
	"REASON", "OBJECT", "AGE", "RV",
	/* NAME shrinks to NAME_MIN here */
	"LAST", "DELTA", "READY", "MESSAGE",
};
#define GIVE_WAY_NAME 15	/* the index above where NAME shrinks */
#define NAME_MIN 16
#define CELL_MAX 40		/* a kind's cell wider than this ends in the ellipsis */

/* The widest NAME in avail columns: half of them, NAME_MIN at least. */
static int name_cap(int avail)
{
	return avail / 2 > NAME_MIN ? avail / 2 : NAME_MIN;
}

static int give_way_rank(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(give_way); i++)
		if (!strcmp(give_way[i], name))
			return (int)i;
	return 12;	/* another kind's column: before AGE */
}

struct col {
	int id;		/* SORT_* */
	const char *name;
	int width;
	bool right;
	bool shown;
};

static void row_mark(const struct tui *t, const struct row *r, char mark[2], int *attr)
{
	mark[1] = '\0';
	*attr = A_NORMAL;
	if (r->gone) {
		mark[0] = r->tombstone ? '?' : 'x';
		*attr = A_DIM | tui_color(t, PAIR_DELETED);
	} else if (row_changed_recently(r)) {
		/* New to the cache (added, or first listed) or changed. */
		mark[0] = row_hist_total(r) == 1 || r->last_type == DELTA_ADDED ? '+' : '*';
		*attr = A_BOLD | tui_color(t, PAIR_MARK);
	} else {
		mark[0] = ' ';
	}
}

/* Narrows *width towards min, by what *total is over avail at most. */
static void shrink(int *width, int min, int *total, int avail)
{
	int cut = *width - min;

	if (cut > *total - avail)
		cut = *total - avail;
	if (cut > 0) {
		*width -= cut;
		*total -= cut;
	}
}

/*
 * Fits the columns into avail columns: the natural widths (of the header
 * and the visible cells) first; then columns give way in give_way's
 * order, NAME shrinking at its place in it.
 */
static void fit_columns(struct col *cols, size_t nc, int name_col, int ns_col, int avail)
{
	int total = 0;

	for (size_t c = 0; c < nc; c++)
		total += cols[c].width + 1;
	/* Ranks, then drop or shrink in rank order until it fits. */
	for (int rank = 0; rank < (int)ARRAY_SIZE(give_way) && total > avail; rank++) {
		if (rank == GIVE_WAY_NAME)
			shrink(&cols[name_col].width, NAME_MIN, &total, avail);
		for (size_t c = 0; c < nc && total > avail; c++) {
			if (!cols[c].shown || (int)c == name_col || (int)c == ns_col ||
			    !strcmp(cols[c].name, "STATUS") || give_way_rank(cols[c].name) != rank)
				continue;
			cols[c].shown = false;
			total -= cols[c].width + 1;
		}
	}
	/* Still too wide: the namespace, then the name, shorter still. */
	if (ns_col >= 0)
		shrink(&cols[ns_col].width, 6, &total, avail);
	shrink(&cols[name_col].width, 6, &total, avail);
}

/* The title bar: the resource, its counts, what narrows it, the sort. */
static void table_title(struct tui *t, struct tab *tab, const struct rect *r, bool focused)
{
	char title[512], right[128];
	bool by_ns = order_by_namespace(t, tab);

	int n = snprintf(title, sizeof(title), " %s  %zu object%s", tab->m.name,
			 tab->m.present, tab->m.present == 1 ? "" : "s");

	if (tab->m.gone)
		n += snprintf(title + n, sizeof(title) - (size_t)n, " (%zu gone)", tab->m.gone);
	if (by_ns)
		n += snprintf(title + n, sizeof(title) - (size_t)n, "  namespace %s", t->ns_filter);
	if (filter_active(&tab->filter))
		n += snprintf(title + n, sizeof(title) - (size_t)n, "  filter '%s'",
			      tab->filter.text);
	if (by_ns || filter_active(&tab->filter))
		n += snprintf(title + n, sizeof(title) - (size_t)n, ": %zu", order_shown_nr(tab));
	snprintf(title + n, sizeof(title) - (size_t)n, "  sort %s%s",
		 order_column_name(tab, ts(tab)->sort),
		 ts(tab)->sort_desc ? (t->utf8 ? " ▼" : " desc") : "");
	snprintf(right, sizeof(right), "%s rv %s",
		 tab->m.stats.synced ? "synced" : informer_state_name(tab->m.stats.state),
		 tab->m.stats.rv[0] ? tab->m.stats.rv : "-");
	draw_title(t, r, focused, title, right);
}

/* What column id shows of row (ago: its LAST, formatted). */
static const char *cell_text(const struct tab *tab, const struct row *row, int id, const char *ago)
{
	switch (id) {
	case SORT_NAMESPACE: return row->obj->ns;
	case SORT_NAME: return row->obj->name;
	case SORT_RV: return row->obj->rv;
	case SORT_DELTA: return delta_type_name(row->last_type);
	case SORT_LAST: return ago;
	/* none: scrolled three times over in visible_rows(), next frame's */
	default: return row->has_cells ? cells_at(cells_of(ts(tab), row), (size_t)(id - SORT__FIXED)) : "";
	}
}

/*
 * The columns in screen order, as wide as their header and the visible
 * rows' cells (rows[0, nr)), fitted into width.  Returns how many.
 */
static size_t table_columns(struct tui *t, struct tab *tab, struct col *cols,
			    struct row *const *rows, size_t nr, int width)
{
	int ids[MAX_SORT];
	size_t nc = order_screen_order(t, tab, ids, MAX_SORT);
	int name_col = -1, ns_col = -1;

	for (size_t c = 0; c < nc; c++) {
		cols[c] = (struct col){ ids[c], order_column_name(tab, ids[c]), 0, false, true };
		cols[c].width = (int)strlen(cols[c].name);
		cols[c].right = ids[c] == SORT_RV || ids[c] == SORT_LAST;
		if (ids[c] == SORT_NAME)
			name_col = (int)c;
		if (ids[c] == SORT_NAMESPACE)
			ns_col = (int)c;
	}
	for (size_t i = 0; i < nr; i++) {
		struct row *row = rows[i];
		char ago[32];
		format_ago(t, row_last_ms(row), ago);
		for (size_t c = 0; c < nc; c++) {
			int w = text_width(cell_text(tab, row, cols[c].id, ago));
			if (cols[c].id >= SORT__FIXED && w > CELL_MAX)
				w = CELL_MAX;
			if (w > cols[c].width)
				cols[c].width = w;
		}
	}
	if (cols[name_col].width > name_cap(width))
		cols[name_col].width = name_cap(width);
	fit_columns(cols, nc, name_col, ns_col, width);
	return nc;
}

/* The column headers on line y. */
static void table_header(const struct col *cols, size_t nc, const struct rect *r, int y)
{
	int x = r->x + 2;

	move(y, r->x);
	for (size_t c = 0; c < nc && x < r->x + r->w; c++) {
		if (!cols[c].shown)
			continue;
		int w = cols[c].width;
		if (x + w > r->x + r->w)
			w = r->x + r->w - x;
		int hw = (int)strlen(cols[c].name);
		draw_text(y, cols[c].right && hw < w ? x + w - hw : x, w, A_BOLD, cols[c].name);
		x += cols[c].width + 1;
	}
}

/* One row on line y: its mark, then its cells. */
static void table_row(struct tui *t, struct tab *tab, const struct col *cols, size_t nc,
		      size_t i, struct row *row, const struct rect *r, int y, bool focused)
{
	char mark[2], ago[32];
	int mark_attr;
	bool sel = i == ts(tab)->scroll.cur;
	int base = sel ? (focused ? A_REVERSE : A_BOLD) : A_NORMAL;
	if (row->gone)
		base |= A_DIM;

	row_mark(t, row, mark, &mark_attr);
	if (sel)
		mvhline(y, r->x, ' ' | (chtype)base, r->w);
	draw_text(y, r->x, 1, mark_attr | (sel ? base : 0), mark);
	int x = r->x + 2;
	format_ago(t, row_last_ms(row), ago);
	for (size_t c = 0; c < nc && x < r->x + r->w; c++) {
		if (!cols[c].shown)
			continue;
		const char *text = cell_text(tab, row, cols[c].id, ago);
		int attr = base;
		if (cols[c].id == SORT_DELTA && !sel)
			attr |= delta_attr(t, row->last_type);
		int w = cols[c].width;
		if (x + w > r->x + r->w)
			w = r->x + r->w - x;
		int len = text_width(text);
		int tx = cols[c].right && len < w ? x + w - len : x;
		draw_text(y, tx, w - (tx - x), attr, text);
		x += cols[c].width + 1;
	}
}

/*
 * The rows on screen, [first, first + max), into rows; returns how many.
 * Their AGE moves on: their cells are made again first.  Sorted by a
 * cell, a row made again may move, and the row after it take its line:
 * that line is made again in turn, until it holds a row already made (a
 * row is made once a frame, so this ends).  The cursor follows its row,
 * which may scroll the screen: then again for the new lines.
 */
static size_t visible_rows(struct tui *t, struct tab *tab, struct row **rows, size_t max)
{
	size_t first, nr = 0;

	for (int again = 0; again < 3; again++) {
		first = ts(tab)->scroll.top;
		for (size_t i = first; i < first + max;) {
			struct row *row = order_row_at(tab, i);
			if (!row)
				break;
			order_row_cells(t, tab, row, 1000);
			i += order_row_at(tab, i) == row;
		}
		table_refresh(t, tab);
		if (ts(tab)->scroll.top == first)
			break;
	}
	first = ts(tab)->scroll.top;
	for (size_t i = first; i < first + max && (rows[nr] = order_row_at(tab, i)); i++)
		nr++;
	return nr;
}

static void table_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct tab *tab = tui_tab(t);
	struct col cols[MAX_SORT];
	size_t max = (size_t)(r->h - 2 > 0 ? r->h - 2 : 0);
	struct row **rows = xcalloc(max + 1, sizeof(*rows));

	ts(tab)->height = r->h - 2;
	model_marks_expire(&tab->m, t->now_mono ? t->now_mono : mono_ms());
	table_refresh(t, tab);
	size_t nr = visible_rows(t, tab, rows, max);
	table_title(t, tab, r, focused);
	/* r->w less the mark and a margin */
	size_t nc = table_columns(t, tab, cols, rows, nr, r->w - 2);
	table_header(cols, nc, r, r->y + 1);

	if (!nr) {
		bool narrowed = order_filtering(t, tab);
		const char *msg = narrowed ? "no object matches the filter" :
				  tab->m.stats.synced ? "no objects" : "waiting for the first list…";
		if (!t->utf8 && !tab->m.stats.synced && !narrowed)
			msg = "waiting for the first list...";
		draw_text(r->y + 2, r->x + 2, r->w - 2, A_DIM, msg);
	}
	for (size_t i = 0; i < nr; i++)
		table_row(t, tab, cols, nc, ts(tab)->scroll.top + i, rows[i], r,
			  r->y + 2 + (int)i, focused);
	free(rows);
}

static bool table_request(struct tui *t, enum request req, int key)
{
	struct tab *tab = tui_tab(t);

	if (scroll_request(&ts(tab)->scroll, req, order_shown_nr(tab), ts(tab)->height)) {
		order_sel_note(tab);
		return true;
	}
	if (req == REQ_ENTER) {
		struct row *r = table_selected(tab);
		if (r)
			detail_open(t, t->cur, row_key_of(r), DETAIL_HISTORY);
		return true;
	}
	return false;
}

static void table_wheel(struct tui *t, int lines)
{
	struct tab *tab = tui_tab(t);
	scroll_by(&ts(tab)->scroll, lines, order_shown_nr(tab));
	scroll_fix(&ts(tab)->scroll, order_shown_nr(tab), ts(tab)->height);
	order_sel_note(tab);
}

/* Line 0 is the title, line 1 the column header. */
static void table_click(struct tui *t, int line)
{
	struct tab *tab = tui_tab(t);
	struct table_state *st = ts(tab);

	if (line >= 2) {
		st->scroll.cur = st->scroll.top + (size_t)(line - 2);
		scroll_fix(&st->scroll, order_shown_nr(tab), st->height);
		order_sel_note(tab);
	}
}

const struct view_ops table_view = {
	.keymap = KEYMAP_MAIN,
	.new = table_view_new,
	.free = table_view_free,
	.draw = table_draw,
	.request = table_request,
	.wheel = table_wheel,
	.click = table_click,
};

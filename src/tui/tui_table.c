/*
 * tui_table.c — the Indexer as a live table: the kind's columns, then the
 * resourceVersion, the last delta and how long ago it came.  Rows that
 * just changed carry a mark in the first column (+ added, * changed);
 * deleted rows stay a few seconds, dimmed, marked x (tombstones: ?).
 *
 * Only the visible rows are drawn and only their cells computed, so a
 * table of 100,000 objects scrolls as fast as one of ten; the sorted,
 * filtered index is rebuilt when rows come or go (or, when the order
 * depends on them, when rows change), at most as often as its own cost
 * allows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>
#include <json-c/json.h>

#include "output/columns.h"
#include "informer/session.h"
#include "lib/strbuf.h"
#include "tui/tui_view.h"
#include "lib/util.h"

/* ---- the kind's columns --------------------------------------------------- */

static size_t names_len(const char *const *names)
{
	size_t n = 0;
	while (names[n])
		n++;
	return n;
}

/*
 * The row's kind cells, computed once per object version, and again when
 * older than max_age ms (a visible row's AGE moves on; sorting does not
 * need that).
 */
static char **row_cells(struct tab *tab, struct row *r, int64_t max_age)
{
	const char *const *names = columns_live_headers(tab->crds, tab->m.kind);
	size_t nr = names_len(names);
	int64_t now_mono = mono_ms();

	if (r->cells && r->cells_obj == r->obj &&
	    (max_age < 0 || now_mono - r->cells_mono < max_age))
		return r->cells;
	r->cells_mono = now_mono;
	for (size_t i = 0; i < r->cells_nr; i++)
		free(r->cells[i]);
	free(r->cells);
	kobj_unref(r->cells_obj);
	r->cells = xcalloc(nr, sizeof(*r->cells));
	r->cells_nr = nr;
	r->cells_obj = kobj_ref(r->obj);
	struct json_object *tree = kobj_tree(r->obj);
	if (tree) {
		struct strbuf sb = STRBUF_INIT;
		int64_t now = wall_ms();
		for (size_t i = 0; i < nr; i++) {
			strbuf_reset(&sb);
			if (columns_cell(tab->crds, tab->m.kind, names[i], tree, now, &sb) == 0)
				r->cells[i] = xstrdup(strbuf_str(&sb));
		}
		strbuf_release(&sb);
		json_object_put(tree);
	}
	for (size_t i = 0; i < nr; i++)
		if (!r->cells[i])
			r->cells[i] = xstrdup("");
	return r->cells;
}

#define MAX_SORT 24

/* ---- sorting ------------------------------------------------------------- */

/*
 * A column's identity, which is also what the table is sorted by: the
 * fixed ones, then the kind's (SORT__FIXED + its index).  On screen they
 * come in this order: NAMESPACE (when shown), NAME, the kind's, RV,
 * DELTA, LAST.
 */
enum {
	SORT_NAME,	/* 0: what a zeroed tab sorts by */
	SORT_NAMESPACE,
	SORT_RV,
	SORT_DELTA,
	SORT_LAST,	/* most recent delta first */
	SORT__FIXED
};
static const char *const fixed_sort_names[] = { "NAME", "NAMESPACE", "RV", "DELTA", "LAST" };

/* The table's own state, one a tab (tab->pane[PANE_TABLE]). */
struct table_state {
	struct row_index index;	/* the rows shown, filtered and sorted */
	bool index_dirty;
	int64_t index_at;	/* monotonic, last rebuild */
	int64_t index_cost;	/* ms the last rebuild took */
	uint64_t seen_structure, seen_changes;	/* the model's, at the rebuild */
	uint64_t seen_filter_gen;	/* t->filter_gen the index is of */
	struct scroll scroll;
	int sort;		/* column: SORT_* */
	bool sort_desc;
	int height;		/* rows shown last frame (for PgUp/PgDn) */
};

static inline struct table_state *ts(const struct tab *tab)
{
	return tab->pane[PANE_TABLE];
}

static bool show_namespace(const struct tui *t, const struct tab *tab)
{
	return tab->m.namespaced && !t->session->cluster.scope_ns;
}

/* The columns' identities in screen order; returns how many. */
static size_t screen_order(const struct tui *t, const struct tab *tab, int *ids, size_t max)
{
	size_t n = 0, kind_nr = names_len(columns_live_headers(tab->crds, tab->m.kind));

	if (show_namespace(t, tab) && n < max)
		ids[n++] = SORT_NAMESPACE;
	ids[n++] = SORT_NAME;
	for (size_t i = 0; i < kind_nr && n < max - 3; i++)
		ids[n++] = SORT__FIXED + (int)i;
	ids[n++] = SORT_RV;
	ids[n++] = SORT_DELTA;
	ids[n++] = SORT_LAST;
	return n;
}

static const char *column_name(const struct tab *tab, int id)
{
	if (id < SORT__FIXED)
		return fixed_sort_names[id];
	return columns_live_headers(tab->crds, tab->m.kind)[id - SORT__FIXED];
}

static const char *sort_name(const struct tab *tab)
{
	return column_name(tab, ts(tab)->sort);
}

static int cmp_numeric_or_text(const char *a, const char *b)
{
	char *ea, *eb;
	double x = strtod(a, &ea), y = strtod(b, &eb);

	if (*a && *b && !*ea && !*eb)
		return x < y ? -1 : x > y;
	return strverscmp(a, b);
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct tab *tab = ctx;
	const struct row *a = *(struct row *const *)pa, *b = *(struct row *const *)pb;
	int c = 0;

	switch (ts(tab)->sort) {
	case SORT_NAME:
		c = strverscmp(a->obj->name, b->obj->name);
		break;
	case SORT_NAMESPACE:
		c = strverscmp(a->obj->ns, b->obj->ns);
		if (!c)
			c = strverscmp(a->obj->name, b->obj->name);
		break;
	case SORT_LAST:
		c = a->last_ms > b->last_ms ? -1 : a->last_ms < b->last_ms;
		break;
	case SORT_DELTA:
		c = (int)a->last_type - (int)b->last_type;
		break;
	case SORT_RV: {
		unsigned long long x = strtoull(a->obj->rv, NULL, 10);
		unsigned long long y = strtoull(b->obj->rv, NULL, 10);
		c = x < y ? -1 : x > y;
		break;
	}
	default: {
		size_t i = (size_t)(ts(tab)->sort - SORT__FIXED);
		if (i < a->cells_nr && i < b->cells_nr)
			c = cmp_numeric_or_text(a->cells[i], b->cells[i]);
		break;
	}
	}
	if (!c)
		c = strverscmp(a->key, b->key);
	return ts(tab)->sort_desc ? -c : c;
}

struct row *table_selected(struct tab *tab)
{
	if (ts(tab)->scroll.cur >= ts(tab)->index.nr)
		return NULL;
	return ts(tab)->index.v[ts(tab)->scroll.cur];
}

void table_rebuild(struct tui *t, struct tab *tab)
{
	struct row *selected = table_selected(tab);	/* compared, never read */
	size_t iter = 0;
	struct hashmap_entry *e;
	int64_t start = mono_ms();

	ts(tab)->index.nr = 0;
	while ((e = hashmap_next(&tab->m.rows, &iter))) {
		struct row *r = e->value;
		if (!filter_match_row(&tab->filter, r) ||
		    (t->ns_filter[0] && tab->m.namespaced && strcmp(r->obj->ns, t->ns_filter)))
			continue;
		if (ts(tab)->sort >= SORT__FIXED)
			row_cells(tab, r, -1);
		ALLOC_GROW(ts(tab)->index.v, ts(tab)->index.nr + 1, ts(tab)->index.alloc);
		ts(tab)->index.v[ts(tab)->index.nr++] = r;
	}
	if (ts(tab)->index.nr > 1)
		qsort_r(ts(tab)->index.v, ts(tab)->index.nr, sizeof(*ts(tab)->index.v),
			cmp_rows, tab);

	/*
	 * The cursor stays on its object when the object is still listed,
	 * unless it is on the first line: then it stays there, so that the
	 * top of the table (the newest, when sorted by LAST) stays in view.
	 */
	if (ts(tab)->scroll.cur == 0)
		selected = NULL;
	for (size_t i = 0; selected && i < ts(tab)->index.nr; i++) {
		if (ts(tab)->index.v[i] == selected) {
			ts(tab)->scroll.cur = i;
			break;
		}
	}
	scroll_fix(&ts(tab)->scroll, ts(tab)->index.nr, ts(tab)->height);
	ts(tab)->index_dirty = false;
	ts(tab)->seen_structure = tab->m.structure;
	ts(tab)->seen_changes = tab->m.changes;
	ts(tab)->index_at = mono_ms();
	ts(tab)->index_cost = ts(tab)->index_at - start;
}

void table_refresh(struct tui *t, struct tab *tab, bool force)
{
	if (ts(tab)->seen_filter_gen != t->filter_gen) {	/* a filter changed */
		ts(tab)->seen_filter_gen = t->filter_gen;
		ts(tab)->index_dirty = true;
	}
	/* Which changes move rows: the name order moves only when rows come
	 * or go, other orders and label filters also when a row changes. */
	int sort = ts(tab)->sort;
	bool order_follows_changes = (sort != SORT_NAME && sort != SORT_NAMESPACE) ||
				     tab->filter.sel;
	bool needed = ts(tab)->index_dirty || tab->m.structure != ts(tab)->seen_structure ||
		      (order_follows_changes && tab->m.changes != ts(tab)->seen_changes);

	if (!needed)
		return;
	if (!force && !ts(tab)->index_dirty) {
		int64_t spacing = ts(tab)->index_cost * 4;
		if (mono_ms() - ts(tab)->index_at < spacing)
			return;	/* the next tick catches up */
	}
	table_rebuild(t, tab);
}

static void sort_set(struct tui *t, struct tab *tab, int id, bool desc)
{
	ts(tab)->sort = id;
	ts(tab)->sort_desc = desc;
	ts(tab)->index_dirty = true;
	tui_message(t, "sorted by %s%s", sort_name(tab), desc ? ", reversed" : "");
}

/* NAMESPACE when the table shows it, else NAME. */
static void table_sort_default(struct tui *t, struct tab *tab)
{
	ts(tab)->sort = show_namespace(t, tab) ? SORT_NAMESPACE : SORT_NAME;
	ts(tab)->sort_desc = false;
}

void table_cycle_sort(struct tui *t, struct tab *tab, int step)
{
	int ids[MAX_SORT];
	size_t n = screen_order(t, tab, ids, MAX_SORT), at = 0;

	for (size_t i = 0; i < n; i++)
		if (ids[i] == ts(tab)->sort)
			at = i;
	at = (at + n + (size_t)(step % (int)n + (int)n)) % n;
	sort_set(t, tab, ids[at], false);
}

void table_reverse_sort(struct tui *t, struct tab *tab)
{
	sort_set(t, tab, ts(tab)->sort, !ts(tab)->sort_desc);
}

bool table_sort_letter(struct tui *t, struct tab *tab, char letter)
{
	int ids[MAX_SORT], match[MAX_SORT];
	size_t n = screen_order(t, tab, ids, MAX_SORT), nm = 0;

	for (size_t i = 0; i < n; i++)
		if (column_name(tab, ids[i])[0] == letter)
			match[nm++] = ids[i];
	if (!nm)
		return false;
	/* Again: the next column with that initial, after the last the first. */
	size_t pick = 0;
	for (size_t i = 0; i < nm; i++)
		if (match[i] == ts(tab)->sort)
			pick = (i + 1) % nm;
	sort_set(t, tab, match[pick], false);
	return true;
}

void table_invalidate(struct tab *tab)
{
	ts(tab)->index_dirty = true;
}

void table_to_top(struct tab *tab)
{
	ts(tab)->scroll.cur = ts(tab)->scroll.top = 0;
}

static void *table_view_new(struct tui *t, struct tab *tab)
{
	tab->pane[PANE_TABLE] = xcalloc(1, sizeof(struct table_state));
	ts(tab)->index_dirty = true;
	ts(tab)->seen_filter_gen = t->filter_gen;
	table_sort_default(t, tab);
	return tab->pane[PANE_TABLE];
}

static void table_view_free(void *state)
{
	struct table_state *st = state;

	free(st->index.v);
	free(st);
}

/* ---- drawing ---------------------------------------------------------------- */

/*
 * Which columns give way, first to last, when the screen is too narrow
 * for all: RESTARTS, then NODE, then the other details, AGE, and RV.
 * NAME and STATUS never go; NAME is shortened (ending in the ellipsis)
 * instead, down to NAME_MIN columns, before LAST, DELTA and READY go,
 * and further only when nothing else is left.
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
	if (r->gone_mono) {
		mark[0] = r->tombstone ? '?' : 'x';
		*attr = A_DIM | tui_color(t, PAIR_DELETED);
	} else if (r->changed_mono && t->now_mono - r->changed_mono < CHANGED_MARK_MS) {
		/* New to the cache (added, or first listed) or changed. */
		mark[0] = r->hist_total == 1 || r->last_type == DELTA_ADDED ? '+' : '*';
		*attr = A_BOLD | tui_color(t, PAIR_MARK);
	} else {
		mark[0] = ' ';
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
		if (rank == GIVE_WAY_NAME && cols[name_col].width > NAME_MIN) {
			int cut = cols[name_col].width - NAME_MIN;
			if (cut > total - avail)
				cut = total - avail;
			cols[name_col].width -= cut;
			total -= cut;
		}
		for (size_t c = 0; c < nc && total > avail; c++) {
			if (!cols[c].shown || (int)c == name_col || (int)c == ns_col ||
			    !strcmp(cols[c].name, "STATUS") || give_way_rank(cols[c].name) != rank)
				continue;
			cols[c].shown = false;
			total -= cols[c].width + 1;
		}
	}
	/* Still too wide: the namespace, then the name, shorter still. */
	int *last_resort[] = { ns_col >= 0 ? &cols[ns_col].width : NULL, &cols[name_col].width };
	for (size_t i = 0; i < ARRAY_SIZE(last_resort) && total > avail; i++) {
		if (!last_resort[i] || *last_resort[i] <= 6)
			continue;
		int cut = *last_resort[i] - 6;
		if (cut > total - avail)
			cut = total - avail;
		*last_resort[i] -= cut;
		total -= cut;
	}
}

/* The title bar: the resource, its counts, what narrows it, the sort. */
static void table_title(struct tui *t, struct tab *tab, const struct rect *r, bool focused)
{
	char title[512], right[128];
	bool by_ns = t->ns_filter[0] && tab->m.namespaced;

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
		n += snprintf(title + n, sizeof(title) - (size_t)n, ": %zu", ts(tab)->index.nr);
	snprintf(title + n, sizeof(title) - (size_t)n, "  sort %s%s", sort_name(tab),
		 ts(tab)->sort_desc ? (t->utf8 ? " ▼" : " desc") : "");
	snprintf(right, sizeof(right), "%s rv %s",
		 tab->m.stats.synced ? "synced" : informer_state_name(tab->m.stats.state),
		 tab->m.stats.rv[0] ? tab->m.stats.rv : "-");
	draw_title(t, r, focused, title, right);
}

/* What column id shows of row (ago: its LAST, formatted). */
static const char *cell_text(const struct row *row, int id, char **cells, const char *ago)
{
	switch (id) {
	case SORT_NAMESPACE: return row->obj->ns;
	case SORT_NAME: return row->obj->name;
	case SORT_RV: return row->obj->rv;
	case SORT_DELTA: return delta_type_name(row->last_type);
	case SORT_LAST: return ago;
	default: return cells[id - SORT__FIXED];
	}
}

/*
 * The columns in screen order, as wide as their header and the visible
 * rows' cells [first, last), fitted into width.  Returns how many.
 */
static size_t table_columns(struct tui *t, struct tab *tab, struct col *cols,
			    size_t first, size_t last, int width)
{
	int ids[MAX_SORT];
	size_t nc = screen_order(t, tab, ids, MAX_SORT);
	int name_col = -1, ns_col = -1;

	for (size_t c = 0; c < nc; c++) {
		cols[c] = (struct col){ ids[c], column_name(tab, ids[c]), 0, false, true };
		cols[c].width = (int)strlen(cols[c].name);
		cols[c].right = ids[c] == SORT_RV || ids[c] == SORT_LAST;
		if (ids[c] == SORT_NAME)
			name_col = (int)c;
		if (ids[c] == SORT_NAMESPACE)
			ns_col = (int)c;
	}
	for (size_t i = first; i < last; i++) {
		struct row *row = ts(tab)->index.v[i];
		char **cells = row_cells(tab, row, 1000);
		char ago[32];
		format_ago(t, row->last_ms, ago);
		for (size_t c = 0; c < nc; c++) {
			int w = text_width(cell_text(row, cols[c].id, cells, ago));
			if (cols[c].id >= SORT__FIXED && w > CELL_MAX)
				w = CELL_MAX;
			if (w > cols[c].width)
				cols[c].width = w;
		}
	}
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
		      size_t i, const struct rect *r, int y, bool focused)
{
	struct row *row = ts(tab)->index.v[i];
	char **cells = row_cells(tab, row, 1000);
	char mark[2], ago[32];
	int mark_attr;
	bool sel = i == ts(tab)->scroll.cur;
	int base = sel ? (focused ? A_REVERSE : A_BOLD) : A_NORMAL;
	if (row->gone_mono)
		base |= A_DIM;

	row_mark(t, row, mark, &mark_attr);
	if (sel)
		mvhline(y, r->x, ' ' | (chtype)base, r->w);
	draw_text(y, r->x, 1, mark_attr | (sel ? base : 0), mark);
	int x = r->x + 2;
	format_ago(t, row->last_ms, ago);
	for (size_t c = 0; c < nc && x < r->x + r->w; c++) {
		if (!cols[c].shown)
			continue;
		const char *text = cell_text(row, cols[c].id, cells, ago);
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

static void table_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct tab *tab = tui_tab(t);
	struct col cols[MAX_SORT];

	ts(tab)->height = r->h - 2;
	table_refresh(t, tab, false);
	scroll_fix(&ts(tab)->scroll, ts(tab)->index.nr, ts(tab)->height);
	table_title(t, tab, r, focused);

	size_t first = ts(tab)->scroll.top;
	size_t last = first + (size_t)(ts(tab)->height > 0 ? ts(tab)->height : 0);
	if (last > ts(tab)->index.nr)
		last = ts(tab)->index.nr;
	/* r->w less the mark and a margin */
	size_t nc = table_columns(t, tab, cols, first, last, r->w - 2);
	table_header(cols, nc, r, r->y + 1);

	if (!ts(tab)->index.nr) {
		bool narrowed = filter_active(&tab->filter) ||
				(t->ns_filter[0] && tab->m.namespaced);
		const char *msg = narrowed ? "no object matches the filter" :
				  tab->m.stats.synced ? "no objects" : "waiting for the first list…";
		if (!t->utf8 && !tab->m.stats.synced && !narrowed)
			msg = "waiting for the first list...";
		draw_text(r->y + 2, r->x + 2, r->w - 2, A_DIM, msg);
		return;
	}
	for (size_t i = first; i < last; i++)
		table_row(t, tab, cols, nc, i, r, r->y + 2 + (int)(i - first), focused);
}

static bool table_request(struct tui *t, enum request req, int key)
{
	struct tab *tab = tui_tab(t);

	if (scroll_request(&ts(tab)->scroll, req, ts(tab)->index.nr, ts(tab)->height))
		return true;
	if (req == REQ_ENTER) {
		struct row *r = table_selected(tab);
		if (r)
			detail_open(t, t->cur, r->key, false);
		return true;
	}
	return false;
}

static void table_wheel(struct tui *t, int lines)
{
	struct tab *tab = tui_tab(t);
	scroll_by(&ts(tab)->scroll, lines, ts(tab)->index.nr);
	scroll_fix(&ts(tab)->scroll, ts(tab)->index.nr, ts(tab)->height);
}

/* Line 0 is the title, line 1 the column header. */
static void table_click(struct tui *t, int line)
{
	struct table_state *st = ts(tui_tab(t));

	if (line >= 2)
		st->scroll.cur = st->scroll.top + (size_t)(line - 2);
}

const struct view_ops table_view = {
	.name = "table",
	.keymap = KEYMAP_MAIN,
	.new = table_view_new,
	.free = table_view_free,
	.draw = table_draw,
	.request = table_request,
	.wheel = table_wheel,
	.click = table_click,
};

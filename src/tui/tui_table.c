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
	const char *const *names = columns_live_headers(tab->m.kind);
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
			if (columns_cell(tab->m.kind, names[i], tree, now, &sb) == 0)
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

/* ---- sorting ------------------------------------------------------------- */

enum {
	SORT_NAME,
	SORT_LAST,	/* most recent delta first */
	SORT_DELTA,
	SORT_RV,
	SORT__FIXED	/* then the kind's columns */
};
static const char *const fixed_sort_names[] = { "NAME", "LAST", "DELTA", "RV" };

static size_t sort_count(const struct tab *tab)
{
	return SORT__FIXED + names_len(columns_live_headers(tab->m.kind));
}

static const char *sort_name(const struct tab *tab)
{
	if (tab->sort < SORT__FIXED)
		return fixed_sort_names[tab->sort];
	return columns_live_headers(tab->m.kind)[tab->sort - SORT__FIXED];
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

	switch (tab->sort) {
	case SORT_NAME:
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
		size_t i = (size_t)(tab->sort - SORT__FIXED);
		if (i < a->cells_nr && i < b->cells_nr)
			c = cmp_numeric_or_text(a->cells[i], b->cells[i]);
		break;
	}
	}
	if (!c)
		c = strverscmp(a->key, b->key);
	return tab->sort_desc ? -c : c;
}

struct row *table_selected(struct tab *tab)
{
	if (tab->table.cur >= tab->index.nr)
		return NULL;
	return tab->index.v[tab->table.cur];
}

void table_rebuild(struct tui *t, struct tab *tab)
{
	struct row *selected = table_selected(tab);	/* compared, never read */
	size_t iter = 0;
	struct hashmap_entry *e;
	int64_t start = mono_ms();

	tab->index.nr = 0;
	while ((e = hashmap_next(&tab->m.rows, &iter))) {
		struct row *r = e->value;
		if (!row_matches(r, tab->filter))
			continue;
		if (tab->sort >= SORT__FIXED)
			row_cells(tab, r, -1);
		ALLOC_GROW(tab->index.v, tab->index.nr + 1, tab->index.alloc);
		tab->index.v[tab->index.nr++] = r;
	}
	if (tab->index.nr > 1)
		qsort_r(tab->index.v, tab->index.nr, sizeof(*tab->index.v), cmp_rows, tab);

	/*
	 * The cursor stays on its object when the object is still listed,
	 * unless it is on the first line: then it stays there, so that the
	 * top of the table (the newest, when sorted by LAST) stays in view.
	 */
	if (tab->table.cur == 0)
		selected = NULL;
	for (size_t i = 0; selected && i < tab->index.nr; i++) {
		if (tab->index.v[i] == selected) {
			tab->table.cur = i;
			break;
		}
	}
	scroll_fix(&tab->table, tab->index.nr, tab->table_height);
	tab->index_dirty = false;
	tab->seen_structure = tab->m.structure;
	tab->seen_changes = tab->m.changes;
	tab->index_at = mono_ms();
	tab->index_cost = tab->index_at - start;
	(void)t;
}

void table_refresh(struct tui *t, struct tab *tab, bool force)
{
	/* Which changes move rows: the name order moves only when rows come
	 * or go, other orders and label filters also when a row changes. */
	bool order_follows_changes = tab->sort != SORT_NAME ||
				     str_starts_with(tab->filter, "l:");
	bool needed = tab->index_dirty || tab->m.structure != tab->seen_structure ||
		      (order_follows_changes && tab->m.changes != tab->seen_changes);

	if (!needed)
		return;
	if (!force && !tab->index_dirty) {
		int64_t spacing = tab->index_cost * 4;
		if (mono_ms() - tab->index_at < spacing)
			return;	/* the next tick catches up */
	}
	table_rebuild(t, tab);
}

void table_cycle_sort(struct tui *t, struct tab *tab, bool reverse)
{
	if (reverse) {
		tab->sort_desc = !tab->sort_desc;
	} else {
		tab->sort = (int)((size_t)(tab->sort + 1) % sort_count(tab));
		tab->sort_desc = false;
	}
	tab->index_dirty = true;
	tui_message(t, "sorted by %s%s", sort_name(tab), tab->sort_desc ? ", reversed" : "");
}

void table_release(struct tab *tab)
{
	free(tab->index.v);
	memset(&tab->index, 0, sizeof(tab->index));
}

/* ---- drawing ---------------------------------------------------------------- */

#define MAX_COLS 16

struct col {
	const char *name;
	int width;
	bool right;
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

static void table_draw(struct tui *t, const struct rect *r, bool focused)
{
	struct tab *tab = tui_tab(t);
	const char *const *kind_names = columns_live_headers(tab->m.kind);
	size_t kind_nr = names_len(kind_names);
	bool show_ns = tab->m.namespaced && !t->session->cluster.scope_ns;
	char title[512], right[128];

	tab->table_height = r->h - 2;
	table_refresh(t, tab, false);
	scroll_fix(&tab->table, tab->index.nr, tab->table_height);

	int n = snprintf(title, sizeof(title), " %s  %zu object%s", tab->m.name,
			 tab->m.present, tab->m.present == 1 ? "" : "s");
	if (tab->m.gone)
		n += snprintf(title + n, sizeof(title) - (size_t)n, " (%zu gone)", tab->m.gone);
	if (tab->filter[0])
		n += snprintf(title + n, sizeof(title) - (size_t)n, "  filter '%s': %zu",
			      tab->filter, tab->index.nr);
	snprintf(title + n, sizeof(title) - (size_t)n, "  sort %s%s", sort_name(tab),
		 tab->sort_desc ? (t->utf8 ? " ▼" : " desc") : "");
	snprintf(right, sizeof(right), "%s rv %s",
		 tab->m.stats.synced ? "synced" : informer_state_name(tab->m.stats.state),
		 tab->m.stats.rv[0] ? tab->m.stats.rv : "-");
	draw_title(t, r, focused, title, right);

	/* Columns: widths from the header and the visible rows. */
	struct col cols[MAX_COLS];
	size_t nc = 0;
	size_t first = tab->table.top;
	size_t last = first + (size_t)(tab->table_height > 0 ? tab->table_height : 0);
	if (last > tab->index.nr)
		last = tab->index.nr;

	int ns_w = 9, name_w = 4, cell_w[MAX_COLS] = { 0 };
	for (size_t i = 0; i < kind_nr && i < MAX_COLS; i++)
		cell_w[i] = (int)strlen(kind_names[i]);
	for (size_t i = first; i < last; i++) {
		struct row *row = tab->index.v[i];
		int w = (int)strlen(row->obj->name);
		if (w > name_w)
			name_w = w;
		w = (int)strlen(row->obj->ns);
		if (w > ns_w)
			ns_w = w;
		char **cells = row_cells(tab, row, 1000);
		for (size_t c = 0; c < kind_nr && c < MAX_COLS; c++) {
			w = (int)strlen(cells[c]);
			if (w > cell_w[c])
				cell_w[c] = w;
		}
	}
	if (ns_w > 24)
		ns_w = 24;
	if (show_ns)
		cols[nc++] = (struct col){ "NAMESPACE", ns_w, false };
	size_t name_col = nc;
	cols[nc++] = (struct col){ "NAME", name_w, false };
	size_t kind_first = nc;
	for (size_t c = 0; c < kind_nr && nc < MAX_COLS - 3; c++)
		cols[nc++] = (struct col){ kind_names[c], cell_w[c] > 24 ? 24 : cell_w[c], false };
	size_t kind_end = nc;
	cols[nc++] = (struct col){ "RV", 8, true };
	cols[nc++] = (struct col){ "DELTA", 8, false };
	cols[nc++] = (struct col){ "LAST", 6, true };

	/*
	 * Fit: names identify objects, so kind columns go (the last first)
	 * before NAME is cut; NAME takes whatever is left over.
	 */
	int avail = r->w - 2;	/* the mark and a margin */
	int total;
	for (;;) {
		total = 0;
		for (size_t c = 0; c < nc; c++)
			total += cols[c].width + 1;
		if (total <= avail || kind_end == kind_first)
			break;
		memmove(&cols[kind_end - 1], &cols[kind_end], (nc - kind_end) * sizeof(*cols));
		kind_end--;
		nc--;
	}
	total = 0;
	for (size_t c = 0; c < nc; c++)
		total += cols[c].width + 1;
	cols[name_col].width += avail - total;
	if (cols[name_col].width < 4)
		cols[name_col].width = 4;

	int y = r->y + 1;
	int x = r->x + 2;
	move(y, r->x);
	for (size_t c = 0; c < nc && x < r->x + r->w; c++) {
		int w = cols[c].width;
		if (x + w > r->x + r->w)
			w = r->x + r->w - x;
		draw_text(y, cols[c].right ? x + w - (int)strlen(cols[c].name) : x, w, A_BOLD,
			  cols[c].name);
		x += cols[c].width + 1;
	}

	if (!tab->index.nr) {
		const char *msg = tab->filter[0] ? "no object matches the filter" :
				  tab->m.stats.synced ? "no objects" : "waiting for the first list…";
		if (!t->utf8 && !tab->m.stats.synced && !tab->filter[0])
			msg = "waiting for the first list...";
		draw_text(r->y + 2, r->x + 2, r->w - 2, A_DIM, msg);
		return;
	}

	for (size_t i = first; i < last; i++) {
		struct row *row = tab->index.v[i];
		char **cells = row_cells(tab, row, 1000);
		char mark[2], rv[32], ago[32];
		int mark_attr;
		bool sel = i == tab->table.cur;
		int base = sel ? (focused ? A_REVERSE : A_BOLD) : A_NORMAL;
		if (row->gone_mono)
			base |= A_DIM;

		y = r->y + 2 + (int)(i - first);
		row_mark(t, row, mark, &mark_attr);
		if (sel)
			mvhline(y, r->x, ' ' | (chtype)base, r->w);
		draw_text(y, r->x, 1, mark_attr | (sel ? base : 0), mark);
		x = r->x + 2;
		snprintf(rv, sizeof(rv), "%s", row->obj->rv);
		format_ago(t, row->last_ms, ago);
		for (size_t c = 0; c < nc && x < r->x + r->w; c++) {
			const char *text;
			int attr = base;
			if (show_ns && c == 0)
				text = row->obj->ns;
			else if (c == name_col)
				text = row->obj->name;
			else if (c >= kind_first && c < kind_end)
				text = cells[c - kind_first];
			else if (!strcmp(cols[c].name, "RV"))
				text = rv;
			else if (!strcmp(cols[c].name, "DELTA")) {
				text = delta_type_name(row->last_type);
				if (!sel)
					attr |= delta_attr(t, row->last_type);
			} else
				text = ago;
			int w = cols[c].width;
			if (x + w > r->x + r->w)
				w = r->x + r->w - x;
			int len = (int)strlen(text);
			int tx = cols[c].right && len < w ? x + w - len : x;
			draw_text(y, tx, w - (tx - x), attr, text);
			x += cols[c].width + 1;
		}
	}
}

static bool table_key(struct tui *t, int key)
{
	struct tab *tab = tui_tab(t);

	if (scroll_key(&tab->table, key, tab->index.nr, tab->table_height))
		return true;
	if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		struct row *r = table_selected(tab);
		if (r)
			detail_open(t, t->cur, r->key);
		return true;
	}
	return false;
}

static void table_wheel(struct tui *t, int lines)
{
	struct tab *tab = tui_tab(t);
	scroll_by(&tab->table, lines, tab->index.nr);
	scroll_fix(&tab->table, tab->index.nr, tab->table_height);
}

const struct view_ops table_view = {
	.name = "table",
	.draw = table_draw,
	.key = table_key,
	.wheel = table_wheel,
};

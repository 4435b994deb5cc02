/*
 * tui_table.c — the Indexer as a live table: its order and filter, every
 * row in the sort's order in a tree, each delta moving its row, a new
 * sort answered with its first page and built in the loop's idle slices.
 * table_state.h says how; table_cells.c makes the rows' cells and keys,
 * table_draw.c draws the rows on screen.
 */
#include "tui/tui_table.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "informer/session.h"
#include "lib/keysort.h"
#include "lib/scratch.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "lib/valtab.h"
#include "tui/table_cells.h"
#include "tui/table_state.h"

static const char *const fixed_sort_names[] = { "NAME", "NAMESPACE", "RV", "DELTA", "LAST" };

static bool show_namespace(const struct tui *t, const struct tab *tab)
{
	return tab->m.namespaced && !t->session->cluster.scope_ns;
}

size_t order_screen_order(const struct tui *t, const struct tab *tab, int *ids, size_t max)
{
	size_t n = 0, kind_nr = ts(tab)->names_nr;

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

const char *order_column_name(const struct tab *tab, int id)
{
	if (id < SORT__FIXED)
		return fixed_sort_names[id];
	return ts(tab)->names[id - SORT__FIXED];
}

/*
 * The text a row sorts by is not kept (it was 16 bytes of fields and a
 * 32-byte malloc chunk a row): it is made again, as far as a comparison
 * or a piece needs it, from what the row already holds, its object's
 * namespace and name or its cells.  At most SORT_TEXT_MAX bytes: names
 * are at most 253 bytes (a namespace 63), which no run of digits makes
 * longer than this; a longer text (a hostile server's) is cut, the same
 * way for every use, so that the order stays one total order (the key
 * decides past the cut).
 */
#define SORT_TEXT_MAX 1024

/* Appends text, up to its NUL or stop, to buf[len, limit) with each run
 * of digits as '0', its length, its digits; returns the new length
 * (limit when cut). */
static size_t add_natural(char *buf, size_t len, size_t limit, const char *text, char stop)
{
	while (*text && *text != stop && len < limit) {
		if (!isdigit((unsigned char)*text)) {
			buf[len++] = *text++;
			continue;
		}
		while (*text == '0' && isdigit((unsigned char)text[1]))
			text++;
		size_t n = 0;
		while (isdigit((unsigned char)text[n]))
			n++;
		buf[len++] = '0';
		if (len < limit)
			buf[len++] = (char)(n > 255 ? 255 : n);
		for (size_t i = 0; i < n && len < limit; i++)
			buf[len++] = text[i];
		text += n;
	}
	return len;
}

/*
 * The text of a name column's key, NAMESPACE (the namespace, a NUL, the
 * name) or NAME, from a row's key text, "namespace/name" (or "name"), not
 * from its object: one scattered read a row fewer in a pass over 100,000
 * (neither may hold a '/').  See sort_text().
 */
static size_t name_text(int sort, const char *key, char *buf, size_t limit)
{
	const char *slash = strchr(key, '/');
	const char *name = slash ? slash + 1 : key;
	size_t len = 0;

	if (sort == SORT_NAMESPACE) {
		len = slash ? add_natural(buf, 0, limit, key, '/') : 0;
		if (len < limit)
			buf[len++] = '\0';
	}
	return add_natural(buf, len, limit, name, '\0');
}

/*
 * The text of row r's key for the table's sort, into buf, its first
 * limit bytes at most (a piece needs no more than its own): the name
 * (NAMESPACE: the namespace, a NUL, the name) or a kind's cell that is
 * not a number, with each run of digits made into '0', its length, its
 * digits without leading zeros, so that bytes sort "pod-9" before
 * "pod-10" as strverscmp would.  Empty for the other columns.
 */
static size_t sort_text(const struct table_state *st, const struct row *r, char *buf,
			size_t limit)
{
	switch (st->sort) {
	case SORT_NAMESPACE:
	case SORT_NAME:
		return name_text(st->sort, row_key_of(r), buf, limit);
	case SORT_LAST:
	case SORT_DELTA:
	case SORT_RV:
		return 0;
	default: {
		const char *cell = cells_at(cells_of(st, r), (size_t)(st->sort - SORT__FIXED));
		uint64_t num;
		if (cells_number(cell, &num))
			return 0;
		return add_natural(buf, 0, limit, cell, '\0');
	}
	}
}

/*
 * The fixed part of row r's key for the table's sort, read from the row
 * (kept nowhere: it is one read of the row, or of its object's
 * resourceVersion): whether it sorts as text (a kind's cell that is not
 * a number; else 0), then *num (RV, DELTA, LAST, a kind's cell that
 * reads as a number), then sort_text().  A kind's cell from its cells,
 * which must be made (a column not kept as keys: see cmp_keys()).
 */
static bool sort_num(const struct table_state *st, const struct row *r, uint64_t *num)
{
	*num = 0;
	switch (st->sort) {
	case SORT_NAMESPACE:
	case SORT_NAME:
		return false;
	case SORT_LAST:	/* most recent first */
		*num = ~(uint64_t)row_last_ms(r);
		return false;
	case SORT_DELTA:
		*num = r->last_type;
		return false;
	case SORT_RV:
		*num = strtoull(r->obj->rv, NULL, 10);
		return false;
	default:	/* numbers first, by value; then text */
		return !cells_number(cells_at(cells_of(st, r), (size_t)(st->sort - SORT__FIXED)), num);
	}
}

static int cmp_bytes(const char *x, size_t xn, const char *y, size_t yn)
{
	size_t n = xn < yn ? xn : yn;
	int c = n ? memcmp(x, y, n) : 0;

	return c ? c : (xn > yn) - (xn < yn);
}

static int cmp_text(const struct table_state *st, const struct row *a, const struct row *b)
{
	char x[SORT_TEXT_MAX], y[SORT_TEXT_MAX];
	size_t xn = sort_text(st, a, x, sizeof(x));
	size_t yn = sort_text(st, b, y, sizeof(y));

	return cmp_bytes(x, xn, y, yn);
}

/*
 * Two of a kind's cells as a sort orders them: numbers first, by value;
 * then texts, in natural order; equal texts in that order (leading
 * zeros) compare equal, the row's key deciding.  A value kept in a
 * valtab has what its text reads as in aux and aux_flag (keys_set()).
 */
static int cmp_values(const struct valtab_val *a, const struct valtab_val *b, void *ctx)
{
	char x[SORT_TEXT_MAX], y[SORT_TEXT_MAX];
	int c = (a->aux_flag > b->aux_flag) - (a->aux_flag < b->aux_flag);

	(void)ctx;
	if (!c)
		c = (a->aux > b->aux) - (a->aux < b->aux);
	if (c || !a->aux_flag)
		return c;
	return cmp_bytes(x, add_natural(x, 0, sizeof(x), a->text, '\0'),
			 y, add_natural(y, 0, sizeof(y), b->text, '\0'));
}

/* The kind's column the table is sorted by, when it is kept as keys
 * (struct table_state's key_vals): its index; else -1. */
static int key_col(const struct table_state *st)
{
	size_t c = (size_t)(st->sort - SORT__FIXED);

	if (st->sort < SORT__FIXED || c >= st->key_nr || st->key_vals[c].full)
		return -1;
	return (int)c;
}

/* The table's order: a total order, since the keys (namespace/name) are. */
static int cmp_keys(const struct table_state *st, const struct row *a, const struct row *b)
{
	int kc = key_col(st), c;

	if (kc >= 0) {
		uint32_t x = a->kind_key[kc], y = b->kind_key[kc];
		if (x == y || !x || !y)	/* (none without: keys_have()) */
			c = (x > y) - (x < y);
		else
			c = cmp_values(st->key_vals[kc].vals[x], st->key_vals[kc].vals[y], NULL);
	} else {
		uint64_t xn, yn;
		bool xt = sort_num(st, a, &xn), yt = sort_num(st, b, &yn);
		c = (xt > yt) - (xt < yt);
		if (!c)
			c = (xn > yn) - (xn < yn);
		if (!c)
			c = cmp_text(st, a, b);
	}
	if (!c)
		c = strcmp(row_key_of(a), row_key_of(b));
	return st->sort_desc ? -c : c;
}

static int cmp_nodes(const struct ostree_node *a, const struct ostree_node *b, void *ctx)
{
	return cmp_keys(ctx, row_of(a), row_of(b));
}

/*
 * A new sort is a keysort (lib/keysort.h) of the rows by the pieces of
 * their keys, in cmp_keys()'s order: the rank, the number, the text seven
 * bytes at a time, then the row's key (unique) the same way.  Only rows
 * tied on a piece are read for the next one.
 */
enum {
	STAGE_RANK,
	STAGE_NUM,
	STAGE_TEXT,			/* + i: the text from byte 7 i */
	STAGE_ORD = 1u << 29,		/* a kept kind's cell: its value's place */
	STAGE_KEY = 1u << 30,		/* + i: the row's key from byte 7 i */
};

static uint64_t sort_piece(const void *p, uint32_t stage, void *ctx)
{
	const struct table_state *st = ctx;
	const struct row *r = p;
	uint64_t num;
	bool text = stage <= STAGE_NUM ? sort_num(st, r, &num) : false;

	if (stage == STAGE_RANK)
		return text;
	if (stage == STAGE_NUM)
		return num;
	if (stage == STAGE_ORD)	/* the first piece only: order_keys() makes it */
		return st->key_ord[r->kind_key[key_col(st)]];
	if (stage < STAGE_KEY) {
		/* The text up to the end of this piece and one byte past,
		 * so that the piece says whether it goes on. */
		size_t off = (size_t)(stage - STAGE_TEXT) * KEYSORT_TEXT_STEP;
		char buf[SORT_TEXT_MAX];
		size_t limit = off + KEYSORT_TEXT_STEP + 1;
		size_t len = sort_text(st, r, buf, limit < sizeof(buf) ? limit : sizeof(buf));
		return keysort_text(buf, len, off);
	}
	return keysort_str(row_key_of(r), (size_t)(stage - STAGE_KEY) * KEYSORT_TEXT_STEP);
}

static uint32_t sort_next(uint32_t stage, uint64_t piece, void *ctx)
{
	const struct table_state *st = ctx;

	if (stage == STAGE_ORD)	/* equal values: the keys decide */
		return STAGE_KEY;
	/* Tied on a number: no text (RV, DELTA, LAST; a kind's cell read
	 * as a number, whose num is not 0 but for one NaN: a text's is), so
	 * the key next, not a pass over the run finding every text empty. */
	if (stage == STAGE_NUM && (st->sort < SORT__FIXED || piece))
		return STAGE_KEY;
	if (stage < STAGE_TEXT)
		return stage + 1;
	if (keysort_text_more(piece))
		return stage + 1;
	/* The texts end here, equal: the keys decide; equal keys are one row. */
	return stage < STAGE_KEY ? STAGE_KEY : KEYSORT_DONE;
}

static void sort_prefetch(const void *p, uint32_t stage, int level, void *ctx)
{
	const struct table_state *st = ctx;
	const struct row *r = p;

	if (level == 0) {
		__builtin_prefetch(r);
		__builtin_prefetch(&r->order);
	} else if (stage >= STAGE_KEY) {
		__builtin_prefetch(row_key_of(r) + (stage - STAGE_KEY) * KEYSORT_TEXT_STEP);
	} else if (stage >= STAGE_TEXT) {	/* sort_text()'s */
		__builtin_prefetch(st->sort >= SORT__FIXED ? (const void *)cells_of(st, r) :
				   (const void *)row_key_of(r));
	}
}

/* cmp_keys() ascending, whichever way the table is sorted. */
static int sort_cmp(const void *a, const void *b, void *ctx)
{
	const struct table_state *st = ctx;
	int c = cmp_keys(st, a, b);

	return st->sort_desc ? -c : c;
}

/*
 * What a pass over every row (a new filter, sort or namespace) has found
 * of each label set so far: a label filter is matched once per distinct
 * set, not once per row (the pods of one ReplicaSet share theirs).  A set
 * is known by its address: objects with the same labels point into one
 * interned copy (informer/kobj.h), alive while the rows hold their
 * objects, so within one pass an address is one set.  Direct-mapped; a
 * collision only matches the set again.
 */
#define LABEL_MEMO 1024

struct label_memo {
	const char *labels[LABEL_MEMO];
	bool match[LABEL_MEMO];
};

/* What the filter and the namespace let through; memo NULL: no memo. */
struct shown_ctx {
	const struct tui *t;
	const struct tab *tab;
	struct label_memo *memo;
};

bool order_by_namespace(const struct tui *t, const struct tab *tab)
{
	return t->ns_filter[0] && tab->m.namespaced;
}

bool order_filtering(const struct tui *t, const struct tab *tab)
{
	return filter_active(&tab->filter) || order_by_namespace(t, tab);
}

static bool row_shown(const struct tui *t, const struct tab *tab, const struct row *r)
{
	if (order_by_namespace(t, tab) && strcmp(r->obj->ns, t->ns_filter))
		return false;
	return filter_match_row(&tab->filter, r);
}

static bool node_shown(struct ostree_node *n, void *ctx)
{
	const struct shown_ctx *c = ctx;
	const struct row *r = row_of(n);

	if (!c->memo || !c->tab->filter.sel || !r->obj)
		return row_shown(c->t, c->tab, r);
	if (order_by_namespace(c->t, c->tab) && strcmp(r->obj->ns, c->t->ns_filter))
		return false;
	const char *labels = r->obj->labels;
	size_t h = (size_t)(((uintptr_t)labels * 0x9e3779b97f4a7c15ULL) >> 54) % LABEL_MEMO;
	if (c->memo->labels[h] != labels) {
		c->memo->labels[h] = labels;
		c->memo->match[h] = filter_match_row(&c->tab->filter, r);
	}
	return c->memo->match[h];
}

/* The flag as it is (set by the filter already). */
static bool node_flag(struct ostree_node *n, void *ctx)
{
	(void)ctx;
	return n->shown;
}

/* A pass's context, with a memo when a label filter is set; shown_done() after. */
static void shown_begin(struct shown_ctx *c, const struct tui *t, const struct tab *tab)
{
	c->t = t;
	c->tab = tab;
	c->memo = tab->filter.sel ? xcalloc(1, sizeof(*c->memo)) : NULL;
}

static void shown_done(struct shown_ctx *c)
{
	free(c->memo);
}

static void pending_note(struct pending *pend, struct row *r)
{
	ALLOC_GROW(pend->changed, pend->changed_nr + 1, pend->changed_alloc);
	pend->changed[pend->changed_nr++] = r;
}

static void pending_free(struct pending *pend)
{
	if (!pend)
		return;
	free(pend->changed);	/* the arrays are st->mem's */
	free(pend->page);
	free(pend);
}

static void pending_finish(struct tui *t, struct tab *tab);
static void order_restale(struct table_state *st);

/* Whether what a filter asks of a row is all in its key. */
static bool filter_by_key(const struct tui *t, const struct tab *tab)
{
	return filter_active(&tab->filter) && !tab->filter.sel && !order_by_namespace(t, tab);
}

/*
 * A pass of the filter over many rows: what it reads of a row is its key
 * (filter_by_key()), or its object's namespace and labels (a label set
 * matched once, struct label_memo); flag_addr() is where, to be fetched
 * a few rows ahead.
 */
struct flag_ctx {
	struct shown_ctx sc;
	bool by_key;
};

static void flag_begin(struct flag_ctx *c, const struct tui *t, const struct tab *tab)
{
	c->by_key = filter_by_key(t, tab);
	shown_begin(&c->sc, t, tab);
}

static const void *flag_addr(const struct flag_ctx *c, const struct row *r)
{
	if (c->by_key)
		return row_key_of(r);
	/* The member, not the object: it may be in the struct's next line. */
	return c->sc.tab->filter.sel ? (const void *)&r->obj->labels : (const void *)&r->obj->ns;
}

static bool flag_ask(const struct flag_ctx *c, struct row *r)
{
	return c->by_key ? filter_match_key(&c->sc.tab->filter, row_key_of(r)) :
	       node_shown(&r->order, (void *)&c->sc);
}

/* Row r's shown flag set by the filter; returns it. */
static bool flag_set(const struct flag_ctx *c, struct row *r)
{
	return r->order.shown = flag_ask(c, r);
}

/* Row r changed or came while a filtered page is up: its flag and the count. */
static void pending_flag(const struct tui *t, const struct tab *tab, struct row *r)
{
	struct pending *pend = ts(tab)->pend;
	bool on = row_shown(t, tab, r);

	if (on != r->order.shown)
		pend->shown = on ? pend->shown + 1 : pend->shown - 1;
	r->order.shown = on;
}

/*
 * keys_make() for a row out of the tree or not moved by them (not
 * sorted by a kept column, or a page under way): a column that filled
 * its table is sorted the old way from now on, so a tree sorted by it is
 * built again.
 */
static void keys_update(struct tab *tab, struct row *r)
{
	if (keys_make(tab, r) && ts(tab)->sort >= SORT__FIXED)
		order_restale(ts(tab));
}

/*
 * The keys of the rows that have none made, from sync on, until until
 * (monotonic ms; < 0: all); returns whether some may be left.  The sort
 * by a kept column makes those still left (order_keys()), so a row the
 * set's iteration misses as rows come and go costs only that sort.
 */
static bool keys_sweep(struct tab *tab, int64_t until)
{
	struct table_state *st = ts(tab);
	size_t n = 0;
	struct row *r;

	st->keys_live = true;
	while ((r = model_next_row(&tab->m, &st->sweep_iter))) {
		if (!keys_have(st, r))
			keys_update(tab, r);
		if (until >= 0 && ++n % 64 == 0 && mono_ms() >= until)
			return true;
	}
	st->keys_swept = true;
	return false;
}

/* Places row r (out of the tree) by its current key and filter; none
 * while the tree is to be built again. */
static void order_insert(struct tui *t, struct tab *tab, struct row *r)
{
	if (key_col(ts(tab)) >= 0 && !keys_have(ts(tab), r))
		keys_update(tab, r);
	if (ts(tab)->order_stale)
		return;
	ostree_insert(&ts(tab)->order, &r->order, row_shown(t, tab, r));
}

const char *order_row_cells(struct tui *t, struct tab *tab, struct row *r, int64_t max_age)
{
	int64_t now = t->now_mono ? t->now_mono : mono_ms();

	const char *cells = cells_current(ts(tab), r);

	if (cells && (max_age < 0 || cells_age(cells, now) < max_age))
		return cells;
	/* With a page under way, placed by its new cells after the build. */
	bool moves = !ts(tab)->pend && r->order.linked && ts(tab)->sort >= SORT__FIXED;
	if (moves)
		ostree_remove(&ts(tab)->order, &r->order);
	cells_make(tab, r, now);
	if (ts(tab)->keys_live)
		keys_update(tab, r);
	if (ts(tab)->pend)
		pending_note(ts(tab)->pend, r);
	else if (moves)
		order_insert(t, tab, r);
	return cells_of(ts(tab), r);
}

/* The model's row_hook: each delta moves its row, O(log n). */
static void table_row_hook(struct model *m, struct row *r, bool freeing)
{
	struct tab *tab = (struct tab *)((char *)m - offsetof(struct tab, m));
	struct table_state *st = ts(tab);

	if (st->pend && freeing)	/* items[] must not point at it */
		pending_finish(st->t, tab);
	if (freeing) {
		keys_unref(st, r);
		cells_drop(st, r);
	} else {
		if (st->cells_live)
			cells_make(tab, r, st->t->now_mono ? st->t->now_mono : mono_ms());
		if (st->keys_live)
			keys_update(tab, r);
	}
	if (st->pend) {
		pending_note(st->pend, r);
		if (st->pend->filtered)
			pending_flag(st->t, tab, r);
		return;
	}
	if (freeing || st->order_stale) {	/* stale: built again before it is read */
		if (r->order.linked)
			ostree_remove(&st->order, &r->order);
		if (st->sel == r)
			st->sel = NULL;
		return;
	}
	/* A row's namespace and name never change: sorted by them, it stays. */
	if (r->order.linked && (st->sort == SORT_NAME || st->sort == SORT_NAMESPACE)) {
		ostree_set_shown(&st->order, &r->order, row_shown(st->t, tab, r));
		return;
	}
	if (r->order.linked)
		ostree_remove(&st->order, &r->order);
	order_insert(st->t, tab, r);
}

#define KEY_AHEAD 16	/* rows read ahead of the one whose key is made */

/*
 * A sort's arrays for every row (each may be NULL: not wanted), from the
 * table's scratch; no sort may be pending (its arrays are the same).
 * items and tmp: a row each, and one more; runs: keysort_window()'s.
 */
static void sort_mem(struct tab *tab, struct keysort_item **items, struct keysort_item **tmp,
		     struct keysort_run **runs)
{
	struct table_state *st = ts(tab);
	size_t n = model_row_count(&tab->m) + 1, runs_nr = n / 2 + 1;
	char *mem = scratch_get(&st->mem, 2 * n * sizeof(**items) + runs_nr * sizeof(**runs));

	*items = (struct keysort_item *)mem;
	if (tmp)
		*tmp = (struct keysort_item *)mem + n;
	if (runs)
		*runs = (struct keysort_run *)((struct keysort_item *)mem + 2 * n);
}

/*
 * Every row into items[].p (room for every row), in the rows' order in
 * memory (the slab's walk), not the set's (a hash's, which reads each
 * row's slot and then the row, both scattered); returns how many.  The
 * rows' objects and keys were made mostly in the same order, so a pass
 * reads them more nearly in turn too.  The walk reads a bit a row and
 * the rows in turn: 0.3 ms at 100,000 rows, where the set's order, then a
 * radix sort of it by address, took 15-20.
 */
static size_t rows_by_address(struct tab *tab, struct keysort_item *items)
{
	struct row *row;
	size_t nr = 0, iter = 0;

	while ((row = model_next_row_in_memory(&tab->m, &iter)))
		items[nr++] = (struct keysort_item){ 0, row };
	return nr;
}

/*
 * The first pass of order_keys(): each row's cells made when they are to
 * be sorted by and are not current, then what its key is read through
 * into items[i].key: its key's text (NAME, NAMESPACE), its cells (a
 * kind's column) or its object (RV).  DELTA and LAST are in the row:
 * their pieces are made here.  The rows are read in memory order, a few
 * ahead.
 */
static void keys_rows(struct tab *tab, struct keysort_item *items, size_t nr)
{
	struct table_state *st = ts(tab);
	int64_t now = st->t->now_mono ? st->t->now_mono : mono_ms();

	for (size_t i = 0; i < nr; i++) {
		struct row *r = items[i].p;
		if (i + KEY_AHEAD < nr) {
			__builtin_prefetch(items[i + KEY_AHEAD].p);
			__builtin_prefetch(&((const struct row *)items[i + KEY_AHEAD].p)->order);
		}
		switch (st->sort) {
		case SORT_NAME:
		case SORT_NAMESPACE:
			items[i].key = (uintptr_t)row_key_of(r);
			break;
		case SORT_RV:
			items[i].key = (uintptr_t)r->obj;
			break;
		case SORT_DELTA:
		case SORT_LAST:
			sort_num(st, r, &items[i].key);
			break;
		default:
			/* Not order_row_cells(): a row is not moved in a tree about to
			 * go.  Cells there but not current are made in the last
			 * pass, which has them fetched (their version is in them). */
			if (!r->has_cells)
				cells_make(tab, r, now);
			items[i].key = (uintptr_t)cells_of(st, r);
			break;
		}
	}
}

/* RV's second pass: each object's resourceVersion's text, a few ahead. */
static void keys_rv(struct keysort_item *items, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (i + KEY_AHEAD < nr)
			__builtin_prefetch((const void *)(uintptr_t)items[i + KEY_AHEAD].key);
		items[i].key = (uintptr_t)((const struct kobj *)(uintptr_t)items[i].key)->rv;
	}
}

/*
 * The last pass: each row's first piece, from
 * the text the passes before found (items[i].key), the texts and the rows
 * a few ahead fetched meanwhile.  Whether a kind's cells are all texts or
 * all numbers into *all_text and *all_num.
 */
static void keys_text(struct tab *tab, struct keysort_item *items, size_t nr, uint32_t stage,
		      bool *all_text, bool *all_num)
{
	struct table_state *st = ts(tab);
	int64_t now = st->t->now_mono ? st->t->now_mono : mono_ms();
	char buf[KEYSORT_TEXT_STEP + 1];

	for (size_t i = 0; i < nr; i++) {
		struct row *r = items[i].p;
		const char *text = (const char *)(uintptr_t)items[i].key;
		if (i + KEY_AHEAD < nr) {
			/* A text, or a row's cells from their version just before */
			__builtin_prefetch((const char *)(uintptr_t)items[i + KEY_AHEAD].key -
					   sizeof(uint64_t));
			__builtin_prefetch(items[i + KEY_AHEAD].p);
		}
		switch (st->sort) {
		case SORT_NAME:
		case SORT_NAMESPACE:
			items[i].key = keysort_text(buf, name_text(st->sort, text, buf, sizeof(buf)), 0);
			break;
		case SORT_RV:	/* sort_num()'s, from the text at hand */
			items[i].key = strtoull(text, NULL, 10);
			break;
		default: {
			uint64_t num;
			/* The cells keys_rows() found: their version is in them. */
			if (cells_head(text)->version != r->version)
				cells_make(tab, r, now);
			bool is_text = sort_num(st, r, &num);
			items[i].key = is_text ? sort_piece(r, STAGE_TEXT, st) :
				       stage == STAGE_NUM ? num : 0;
			*all_text &= is_text;
			*all_num &= !is_text;
			break;
		}
		}
	}
}

/*
 * order_keys() of a kept kind's column c: the rows' value ids (made for
 * the rows that have none yet), then the few distinct values sorted, and
 * each row's first piece its value's place: a pass over the rows and
 * one over the items, no read of a cell or an object.  Returns how many,
 * or 0 when the column's values filled their table meanwhile (then sorted
 * the old way).
 */
static size_t order_kept_keys(struct tab *tab, size_t c, struct keysort_item *items)
{
	struct table_state *st = ts(tab);
	size_t nr = rows_by_address(tab, items);

	st->keys_live = true;
	for (size_t i = 0; i < nr; i++) {
		struct row *r = items[i].p;
		if (i + KEY_AHEAD < nr)
			__builtin_prefetch((const char *)items[i + KEY_AHEAD].p +
					   offsetof(struct row, kind_key));
		if (!keys_have(st, r))
			keys_make(tab, r);
		items[i].key = r->kind_key[c];
	}
	if (st->key_vals[c].full)
		return 0;
	st->key_ord = xrealloc(st->key_ord, valtab_ids(&st->key_vals[c]) * sizeof(*st->key_ord));
	valtab_order(&st->key_vals[c], cmp_values, NULL, st->key_ord);
	st->key_ord[0] = 0;	/* a row left without keys (keys_make()), first */
	for (size_t i = 0; i < nr; i++)
		items[i].key = st->key_ord[items[i].key];
	return nr;
}

/*
 * Every row into items[] with the first piece of its key made (and its
 * cells when they are to be sorted by); returns how many, and the stage
 * of that piece in *stage.  In passes, one per level of what the key is
 * read through (the row, then its key's text, cells or object, then the
 * object's resourceVersion): the rows are scattered in memory, and a
 * level's prefetch needs its address known a few rows ahead, which in
 * one pass waits for the level before.  In one pass, every row's key
 * text took 22-29 ms of CPU at 100,000 rows; in two, 5-10.
 */
static size_t order_keys(struct tab *tab, struct keysort_item *items, uint32_t *stage)
{
	struct table_state *st = ts(tab);
	bool kind = st->sort >= SORT__FIXED, all_text = true, all_num = true;
	int kc = key_col(st);
	size_t nr;

	if (kc >= 0 && (nr = order_kept_keys(tab, (size_t)kc, items))) {
		*stage = STAGE_ORD;
		return nr;
	}
	/* Where the keys first differ: a number's rank is 0 and its text
	 * empty; a name's rank and number 0; a kind's cell, below. */
	*stage = st->sort == SORT_NAME || st->sort == SORT_NAMESPACE ? STAGE_TEXT : STAGE_NUM;
	if (kind)
		st->cells_live = true;
	nr = rows_by_address(tab, items);
	keys_rows(tab, items, nr);
	if (st->sort == SORT_RV)
		keys_rv(items, nr);
	if (st->sort != SORT_DELTA && st->sort != SORT_LAST)
		keys_text(tab, items, nr, *stage, &all_text, &all_num);
	/* A kind's column of texts only (or numbers only) is tied on the
	 * rank (and on the number): no pass for those.  Both: by rank. */
	if (kind && all_text) {
		*stage = STAGE_TEXT;
	} else if (kind && !all_num) {
		*stage = STAGE_RANK;
		for (size_t i = 0; i < nr; i++)
			items[i].key = sort_piece(items[i].p, STAGE_RANK, st);
	}
	return nr;
}

/*
 * The tree of items[0, nr), sorted ascending, in the table's direction;
 * spare: the sort's tmp, done with, for the nodes in order.
 */
static void order_link(struct tui *t, struct tab *tab, const struct keysort_item *items, size_t nr,
		       struct keysort_item *spare, bool flags_set)
{
	struct table_state *st = ts(tab);
	struct ostree_node **nodes = (struct ostree_node **)spare;
	struct shown_ctx sc;

	/* Reversed: cmp_keys() is a total order, so its reverse is exact. */
	for (size_t i = 0; i < nr; i++) {
		struct row *r = items[st->sort_desc ? nr - 1 - i : i].p;
		nodes[i] = &r->order;
	}
	/* No filter: every row is shown, no need to ask each; flags_set:
	 * each row's flag is already the filter's (a filtered page's). */
	ostree_pred_fn *pred = flags_set ? node_flag : order_filtering(t, tab) ? node_shown : NULL;
	shown_begin(&sc, t, tab);
	/* Every row the tree holds is in items: relinked, not unlinked first. */
	ostree_relink(&st->order, nodes, nr, pred, &sc);
	shown_done(&sc);
	st->order_stale = st->filter_stale = false;
}

static const struct keysort_ops sort_ops = { sort_piece, sort_next, sort_cmp, sort_prefetch, NULL };

/* Every row in the sort's order again, at once. */
static void order_build(struct tui *t, struct tab *tab)
{
	struct table_state *st = ts(tab);
	struct keysort_item *items, *tmp;
	struct keysort_ops ops = sort_ops;
	uint32_t stage;

	ops.ctx = st;
	sort_mem(tab, &items, &tmp, NULL);
	size_t nr = order_keys(tab, items, &stage);
	keysort_from(items, tmp, nr, stage, &ops);
	order_link(t, tab, items, nr, tmp, false);
}

#define PAGE_MIN_ROWS 4096	/* fewer: the whole sort costs no more than a page */

/*
 * Whether a new sort can be answered with its first page: the cursor on
 * the top row (else the page is around its row's new place, which the
 * whole order gives), and enough rows for it to matter.
 */
static bool page_will_do(const struct tab *tab)
{
	const struct table_state *st = ts(tab);

	return st->height > 0 && !st->scroll.cur && model_row_count(&tab->m) >= PAGE_MIN_ROWS;
}

static void pending_filter(struct tui *t, struct tab *tab);

/* A new sort, its first page only: struct pending. */
static void order_page(struct tui *t, struct tab *tab)
{
	struct table_state *st = ts(tab);
	struct pending *pend = xcalloc(1, sizeof(*pend));
	struct keysort_ops ops = sort_ops;
	uint32_t stage;

	ops.ctx = st;
	sort_mem(tab, &pend->items, &pend->tmp, &pend->runs);
	pend->nr = order_keys(tab, pend->items, &stage);
	pend->known = (size_t)st->height < pend->nr ? (size_t)st->height : pend->nr;
	/* The page is the order's first rows: the array's last when reversed. */
	size_t lo = st->sort_desc ? pend->nr - pend->known : 0;
	keysort_window(pend->items, pend->tmp, pend->nr, stage, &ops, lo, lo + pend->known,
		       pend->runs, &pend->runs_nr);
	st->pend = pend;
	st->order_stale = false;
	pending_filter(t, tab);
}

/*
 * The filter asked of every row while a sort is pending (the tree is not
 * read meanwhile, and its build keeps the flags): each row's shown flag,
 * and how many are shown.  In memory order, what each row's is read from
 * fetched KEY_AHEAD rows before it is asked: through a ring of the last
 * rows, since the sort's arrays (filter_rows()'s two passes) are the
 * pending sort's, and rows may have come since they were sized.
 */
static void pending_flags(struct tui *t, struct tab *tab)
{
	struct pending *pend = ts(tab)->pend;
	struct row *ring[KEY_AHEAD], *r;
	size_t iter = 0, n = 0;
	struct flag_ctx c;

	flag_begin(&c, t, tab);
	pend->shown = 0;
	while ((r = model_next_row_in_memory(&tab->m, &iter))) {
		if (n >= KEY_AHEAD)	/* the row read KEY_AHEAD rows ago */
			pend->shown += flag_set(&c, ring[n % KEY_AHEAD]);
		__builtin_prefetch(flag_addr(&c, r));
		ring[n++ % KEY_AHEAD] = r;
	}
	for (size_t i = n > KEY_AHEAD ? n - KEY_AHEAD : 0; i < n; i++)
		pend->shown += flag_set(&c, ring[i % KEY_AHEAD]);
	shown_done(&c.sc);
}

/* Whether a run of items holds a shown row. */
static bool run_shows(const struct keysort_item *items, const struct keysort_run *run)
{
	for (size_t i = run->off; i < run->off + run->n; i++)
		if (((const struct row *)items[i].p)->order.shown)
			return true;
	return false;
}

/*
 * A filtered page: the first shown rows in the sort's order, as many as
 * the screen holds (fewer when fewer are shown), into pend->page.  The
 * items are read from the top (from the end when reversed); a run that
 * keysort_window() left and that holds a shown row is sorted when the
 * walk comes to it (in any order, keysort_run() says), one with none
 * is stepped over whole.  The runs are in the order of their places, so
 * one index follows the walk.
 */
static void pending_page(struct tab *tab)
{
	struct table_state *st = ts(tab);
	struct pending *pend = st->pend;
	struct keysort_ops ops = sort_ops;
	size_t want = (size_t)st->height < pend->shown ? (size_t)st->height : pend->shown;
	size_t nr = pend->nr, ri = 0;
	bool desc = st->sort_desc;

	ops.ctx = st;
	pend->page = xrealloc(pend->page, (want ? want : 1) * sizeof(*pend->page));
	pend->page_nr = 0;
	for (size_t j = 0; j < nr && pend->page_nr < want;) {
		size_t at = desc ? nr - 1 - j : j;
		struct keysort_run *run = NULL;
		/* The next run the walk comes to, the ones behind it passed. */
		for (; ri < pend->runs_nr; ri++) {
			run = &pend->runs[desc ? pend->runs_nr - 1 - ri : ri];
			if (desc ? run->off <= at : run->off + run->n > at)
				break;
		}
		if (ri == pend->runs_nr || (desc ? run->off + run->n <= at : run->off > at))
			run = NULL;	/* at is in no run: in its place */
		if (run && run->stage != RUN_SORTED) {
			if (!run_shows(pend->items, run)) {
				j += run->n;
				continue;
			}
			keysort_run(pend->items, pend->tmp, run, &ops);
			run->stage = RUN_SORTED;
		}
		if (j + KEY_AHEAD < nr)
			__builtin_prefetch(&((const struct row *)
					     pend->items[desc ? at - KEY_AHEAD : at + KEY_AHEAD].p)->order);
		struct row *r = pend->items[at].p;
		if (r->order.shown)
			pend->page[pend->page_nr++] = r;
		j++;
	}
}

/*
 * The filter as it is now, for a sort that is a page: every row's flag
 * set and the first shown rows found, or with no filter none to set (the
 * page is then the top rows, as keysort_window() left them).
 */
static void pending_filter(struct tui *t, struct tab *tab)
{
	struct pending *pend = ts(tab)->pend;

	pend->filtered = order_filtering(t, tab);
	if (pend->filtered) {
		pending_flags(t, tab);
		pending_page(tab);
	}
	ts(tab)->filter_stale = false;
}

/*
 * Sorts the runs the page left, until budget_ms have passed (< 0: all);
 * then, when none is left, builds the tree and places the rows that
 * changed meanwhile.  Returns whether some of it is left.
 */
static bool pending_step(struct tui *t, struct tab *tab, int64_t budget_ms)
{
	struct table_state *st = ts(tab);
	struct pending *pend = st->pend;
	struct keysort_ops ops = sort_ops;
	int64_t until = mono_ms() + budget_ms;

	ops.ctx = st;
	while (pend->runs_done < pend->runs_nr) {
		const struct keysort_run *run = &pend->runs[pend->runs_done++];
		if (run->stage == RUN_SORTED)
			continue;
		keysort_run(pend->items, pend->tmp, run, &ops);
		if (budget_ms >= 0 && mono_ms() >= until)
			return true;
	}
	/* A row changed meanwhile may be out of place in items (the others'
	 * keys are still those the sort was made of): all such rows leave
	 * the tree before any is placed again by its new key. */
	st->pend = NULL;
	order_link(t, tab, pend->items, pend->nr, pend->tmp, pend->filtered);
	for (size_t i = 0; i < pend->changed_nr; i++)
		if (pend->changed[i]->order.linked)
			ostree_remove(&st->order, &pend->changed[i]->order);
	for (size_t i = 0; i < pend->changed_nr; i++)
		if (!pend->changed[i]->order.linked)
			order_insert(t, tab, pend->changed[i]);
	pending_free(pend);
	t->dirty = true;
	return false;
}

static void pending_finish(struct tui *t, struct tab *tab)
{
	if (ts(tab)->pend)
		pending_step(t, tab, -1);
}

/* The sort is to be made again: a page under way is dropped. */
static void order_restale(struct table_state *st)
{
	pending_free(st->pend);
	st->pend = NULL;
	st->order_stale = true;
}

bool table_paging(const struct tab *tab)
{
	return ts(tab) && ts(tab)->pend;
}

bool table_pending(const struct tui *t)
{
	for (size_t i = 0; i < t->nr; i++)
		if (ts(&t->tabs[i])->pend || keys_due(&t->tabs[i]))
			return true;
	return false;
}

void table_work(struct tui *t, int budget_ms)
{
	for (size_t i = 0; i < t->nr; i++)
		if (ts(&t->tabs[i])->pend && pending_step(t, &t->tabs[i], budget_ms))
			return;
	/* Then the kind's keys, a sort's being done. */
	for (size_t i = 0; i < t->nr; i++) {
		if (keys_due(&t->tabs[i]) &&
		    keys_sweep(&t->tabs[i], budget_ms < 0 ? -1 : mono_ms() + budget_ms))
			return;
	}
}

/* A sort's arrays are given back this long after the last sort or filter:
 * the keys of a burst (s, s, s; a filter typed) find them made. */
#define SORT_MEM_KEEP_MS 10000

void table_tick(struct tui *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		struct table_state *st = ts(&t->tabs[i]);
		if (st && !st->pend)
			scratch_release_idle(&st->mem, SORT_MEM_KEEP_MS);
	}
}

/* Fewer shown than 1 in this many rows: a narrowing filter asks them
 * through the tree, which skips the subtrees with none shown. */
#define FILTER_FEW 8

/* Fewer flags than this changed: each is set in the tree (O(log n)), not
 * every count made again (O(n), the tree's order: scattered). */
#define FILTER_FEW_CHANGED(nr) ((nr) / 32)

/*
 * The filter asked of every row, or of the shown ones only when it
 * narrows: in two passes in the rows' order in memory, the rows (for the
 * address of what the filter reads: flag_addr()) then what they point
 * at, each a few ahead, and the counts made again after, bottom up from
 * the nodes in memory order (ostree_recount_nodes()).  The tree's order
 * (ostree_refilter()) reads each row and then its key, both scattered,
 * one after the other: 20-28 ms of CPU at 100,000 rows for a text, 55
 * for a label filter.
 */
static void filter_rows(struct tui *t, struct tab *tab, bool narrows)
{
	struct table_state *st = ts(tab);
	size_t k = 0, changed = 0, linked = 0;
	struct keysort_item *items, *tmp;
	struct flag_ctx c;

	flag_begin(&c, t, tab);
	sort_mem(tab, &items, &tmp, NULL);
	size_t nr = rows_by_address(tab, items);
	bool all = !narrows || st->order.all_shown;	/* stale flags: ask every row */
	/* The tree's nodes in memory order, and room to count them again. */
	struct ostree_node **nodes = (struct ostree_node **)tmp, **queue = nodes + nr;

	for (size_t i = 0; i < nr; i++) {
		struct row *r = items[i].p;
		if (i + KEY_AHEAD < nr)
			__builtin_prefetch(&((const struct row *)items[i + KEY_AHEAD].p)->order);
		if (r->order.linked)
			nodes[linked++] = &r->order;
		if (r->order.linked && (all || r->order.shown))
			items[k++] = (struct keysort_item){ (uintptr_t)flag_addr(&c, r), r };
	}
	for (size_t i = 0; i < k; i++) {
		struct row *r = items[i].p;
		if (i + KEY_AHEAD < k) {
			__builtin_prefetch((const void *)(uintptr_t)items[i + KEY_AHEAD].key);
			__builtin_prefetch(&((struct row *)items[i + KEY_AHEAD].p)->order, 1);
		}
		bool shown = flag_ask(&c, r);
		if (all)
			r->order.shown = shown;
		else if (!shown)	/* narrows: from shown to hidden only */
			items[changed++].p = r;
	}
	if (all)
		ostree_recount_nodes(&st->order, nodes, linked, queue);
	else if (changed < FILTER_FEW_CHANGED(st->order.nr))
		for (size_t i = 0; i < changed; i++)
			ostree_set_shown(&st->order, &((struct row *)items[i].p)->order, false);
	else {
		for (size_t i = 0; i < changed; i++)
			((struct row *)items[i].p)->order.shown = false;
		ostree_recount_nodes(&st->order, nodes, linked, queue);
	}
	shown_done(&c.sc);
}

size_t order_shown_nr(const struct tab *tab)
{
	const struct pending *pend = ts(tab)->pend;

	/* A page: the tree is the old order's; with no filter every row is
	 * shown. */
	if (pend)
		return pend->filtered ? pend->shown : model_row_count(&tab->m);
	return ostree_count(&ts(tab)->order);
}

struct row *order_row_at(struct tab *tab, size_t i)
{
	struct pending *pend = ts(tab)->pend;

	if (pend && pend->filtered && i < pend->page_nr)
		return pend->page[i];
	if (pend && pend->filtered && i >= pend->shown)
		return NULL;
	if (pend && !pend->filtered && i < pend->known)
		return pend->items[ts(tab)->sort_desc ? pend->nr - 1 - i : i].p;
	if (pend)
		pending_finish(ts(tab)->t, tab);
	return row_of(ostree_select(&ts(tab)->order, i));
}

void order_sel_note(struct tab *tab)
{
	ts(tab)->sel = ts(tab)->scroll.cur ? order_row_at(tab, ts(tab)->scroll.cur) : NULL;
}

/*
 * Whether the filter now shows no row the flags' filter hid: the same
 * namespace, and a text found in every key the last one was found in
 * (typing on: "pod-1" after "pod-").  Then only the shown rows are
 * looked at again.
 */
static bool filter_narrows(const struct table_state *st, const struct tui *t,
			   const struct tab *tab)
{
	return st->flags_literal && tab->filter.literal && !strcmp(st->flags_ns, t->ns_filter) &&
	       strcasestr(tab->filter.text, st->flags_text);
}

/* What the flags are of, for filter_narrows(). */
static void flags_note(struct table_state *st, const struct tui *t, const struct tab *tab)
{
	st->flags_literal = tab->filter.literal || !filter_active(&tab->filter);
	snprintf(st->flags_text, sizeof(st->flags_text), "%s", tab->filter.text);
	snprintf(st->flags_ns, sizeof(st->flags_ns), "%s", t->ns_filter);
}

/*
 * Every row's shown flag set by the new filter: none to set when it was
 * cleared (Esc); only the shown rows' when it narrows and few are shown
 * (the tree skips the subtrees with none); else every row's, or the
 * shown ones', in memory order.
 */
static void filter_apply(struct tui *t, struct tab *tab)
{
	struct table_state *st = ts(tab);
	bool narrows = filter_narrows(st, t, tab);

	if (!order_filtering(t, tab)) {
		ostree_show_all(&st->order);	/* Esc: no pass */
	} else if (narrows && ostree_count(&st->order) < st->order.nr / FILTER_FEW) {
		struct shown_ctx sc;
		shown_begin(&sc, t, tab);
		ostree_refilter_shown(&st->order, node_shown, &sc);
		shown_done(&sc);
	} else {
		filter_rows(t, tab, narrows);
	}
	st->filter_stale = false;
}

struct row *table_selected(struct tab *tab)
{
	return order_row_at(tab, ts(tab)->scroll.cur);
}

void table_refresh(struct tui *t, struct tab *tab)
{
	struct table_state *st = ts(tab);

	if (st->seen_filter_gen != t->filter_gen) {	/* a filter changed */
		st->seen_filter_gen = t->filter_gen;
		st->filter_stale = true;
	}
	if (st->pend && st->scroll.cur)	/* the page no longer does */
		pending_finish(t, tab);
	if (st->order_stale && page_will_do(tab)) {
		order_page(t, tab);
	} else if (st->order_stale) {
		order_build(t, tab);
	} else if (st->filter_stale && st->pend) {
		pending_filter(t, tab);
	} else if (st->filter_stale) {
		filter_apply(t, tab);
	}
	flags_note(st, t, tab);
	/*
	 * The cursor stays on its object when the object is still listed,
	 * unless it is on the first line: then it stays there, so that the
	 * top of the table (the newest, when sorted by LAST) stays in view.
	 */
	if (st->scroll.cur && st->sel && st->sel->order.linked && st->sel->order.shown)
		st->scroll.cur = ostree_rank(&st->order, &st->sel->order);
	scroll_fix(&st->scroll, order_shown_nr(tab), st->height);
	order_sel_note(tab);
}

static void sort_set(struct tui *t, struct tab *tab, int id, bool desc)
{
	ts(tab)->sort = id;
	ts(tab)->sort_desc = desc;
	order_restale(ts(tab));
	tui_message(t, "sorted by %s%s", order_column_name(tab, id), desc ? ", reversed" : "");
}

void table_cycle_sort(struct tui *t, struct tab *tab, int step)
{
	int ids[MAX_SORT];
	size_t n = order_screen_order(t, tab, ids, MAX_SORT), at = 0;

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
	size_t n = order_screen_order(t, tab, ids, MAX_SORT), nm = 0;

	for (size_t i = 0; i < n; i++)
		if (order_column_name(tab, ids[i])[0] == letter)
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
	ts(tab)->filter_stale = true;
}

void table_to_top(struct tab *tab)
{
	ts(tab)->scroll.cur = ts(tab)->scroll.top = 0;
	ts(tab)->sel = NULL;
}

void tui_namespace_show(struct tui *t, const char *ns)
{
	if (!strcmp(ns, t->ns_filter))
		return;
	if (t->ns_filter[0])
		snprintf(t->ns_prev, sizeof(t->ns_prev), "%s", t->ns_filter);
	snprintf(t->ns_filter, sizeof(t->ns_filter), "%s", ns);
	t->filter_gen++;
	for (size_t i = 0; i < t->nr; i++)
		table_to_top(&t->tabs[i]);
}

void table_order_init(struct tui *t, struct tab *tab)
{
	struct table_state *st = ts(tab);

	ostree_init(&st->order, cmp_nodes, st);
	st->order_stale = true;
	st->seen_filter_gen = t->filter_gen;
	st->sort = show_namespace(t, tab) ? SORT_NAMESPACE : SORT_NAME;
	tab->m.row_hook = table_row_hook;
}

void table_order_release(struct table_state *st)
{
	pending_free(st->pend);
	scratch_release(&st->mem);
	free(st->key_ord);
}

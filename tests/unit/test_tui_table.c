/*
 * test_tui_table.c — the table's order: a new sort answered with its first
 * page, then finished in slices while deltas arrive, ends in the order a
 * full sort of the same rows gives; the page is that order's first rows.
 * A filter set meanwhile pages the shown rows, with exact counts.  The
 * kind's columns kept as keys (made in idle slices, then with each
 * delta) sort as the cells made afresh from each object do.
 *
 * The table's three files are included whole, so that the order (a
 * static tree), the cells' map and the rows drawn can be read; the
 * archive's copies are then not linked.
 */
#include "tui/table_cells.c"
#include "tui/tui_table.c"
#include "tui/table_draw.c"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "informer/session.h"
#include "model_fake.h"
#include "unit.h"

#define ROWS 6000	/* over PAGE_MIN_ROWS: a page */

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* When set (seconds since the epoch), pods are made that long before it
 * less their id % 150 seconds: AGEs of 0 to 149 s, every one moving on
 * each second. */
static time_t born_s;

static struct kobj *pod(unsigned id, unsigned rv)
{
	static const char *const phases[] = { "Running", "Running", "Running", "Pending", "Failed" };
	char born[64] = "";
	if (born_s) {
		time_t at = born_s - (time_t)(id % 150);
		struct tm tm;
		strftime(born, sizeof(born), "\"creationTimestamp\":\"%Y-%m-%dT%H:%M:%SZ\",",
			 gmtime_r(&at, &tm));
	}
	/* RESTARTS a number, NODE in natural order (node-2 before node-10) */
	char *json = xasprintf("{\"metadata\":{%s\"name\":\"pod-%u\",\"namespace\":\"ns-%u\","
			       "\"labels\":{\"app\":\"a%u\"},"
			       "\"resourceVersion\":\"%u\"},\"spec\":{\"nodeName\":\"node-%u\","
			       "\"containers\":[{\"name\":\"c\"}]},"
			       "\"status\":{\"phase\":\"%s\",\"containerStatuses\":[{\"name\":\"c\","
			       "\"ready\":%s,\"restartCount\":%u}]}}",
			       born, id, id % 7, rnd(3), rv, rnd(12), phases[rnd(5)], rnd(2) ? "true" : "false",
			       rnd(3) ? 0 : rnd(15));
	struct errbuf err;
	struct kobj *obj = kobj_from_json(json, strlen(json), 0, &err);
	free(json);
	return obj;
}

static void apply(struct model *m, enum notify_kind kind, enum delta_type type,
		  struct kobj *obj, struct kobj *old)
{
	struct notification n;

	memset(&n, 0, sizeof(n));
	n.kind = kind;
	n.delta.type = type;
	n.delta.source = SOURCE_WATCH;
	n.delta.obj = obj;
	n.delta.time_ms = wall_ms() + rnd(100000);	/* LAST: distinct times */
	n.old = old;
	n.resource = "pods";
	model_apply(m, &n);
}

struct fixture {
	struct session session;
	struct tui t;
	struct tab tab;
	struct kobj *objs[ROWS + 200];
	unsigned rv;
};

static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->t.session = &f->session;
	f->t.tabs = &f->tab;
	f->t.nr = 1;
	f->t.now_mono = mono_ms();
	struct model *m = &f->tab.m;
	model_fake(m);
	m->hist_states = 0;	/* as the bench's --history 0 */
	table_view.new(&f->t, &f->tab);
	ts(&f->tab)->height = 40;
	for (unsigned i = 0; i < ROWS; i++) {
		f->objs[i] = pod(i, ++f->rv);
		apply(m, NOTIFY_ADD, DELTA_ADDED, kobj_ref(f->objs[i]), NULL);
	}
	table_refresh(&f->t, &f->tab);
	table_work(&f->t, -1);
}

static void fixture_release(struct fixture *f)
{
	table_view.free(f->tab.pane[PANE_TABLE]);
	f->tab.m.row_hook = NULL;
	model_release(&f->tab.m);
	for (size_t i = 0; i < ROWS + 200; i++)
		kobj_unref(f->objs[i]);
}

/* Some of each: updates (new RV, phase, node), adds, deletes. */
static void deltas(struct fixture *f, unsigned nr)
{
	for (unsigned k = 0; k < nr; k++) {
		unsigned i = rnd(ROWS + 200), what = rnd(4);
		struct kobj *old = f->objs[i];
		if (what == 3 && old) {
			apply(&f->tab.m, NOTIFY_DELETE, DELTA_DELETED, kobj_ref(old), NULL);
			kobj_unref(old);
			f->objs[i] = NULL;
			continue;
		}
		f->objs[i] = pod(i, ++f->rv);
		apply(&f->tab.m, old ? NOTIFY_UPDATE : NOTIFY_ADD, old ? DELTA_UPDATED : DELTA_ADDED,
		      kobj_ref(f->objs[i]), old ? kobj_ref(old) : NULL);
		kobj_unref(old);
	}
}

/* A row as a full sort sees it: a kind's cell made afresh from its
 * object, not what the table kept of it. */
struct ref_row {
	struct row *r;
	char *cell;	/* the sort's column's, when a kind's */
};

static int cmp_rows_q(const void *a, const void *b, void *ctx)
{
	const struct table_state *st = ctx;
	const struct ref_row *x = a, *y = b;
	char xb[SORT_TEXT_MAX], yb[SORT_TEXT_MAX];
	uint64_t xn, yn;

	if (!x->cell)
		return cmp_keys(st, x->r, y->r);
	bool xt = !cells_number(x->cell, &xn), yt = !cells_number(y->cell, &yn);
	int c = (xt > yt) - (xt < yt);
	if (!c)
		c = (xn > yn) - (xn < yn);
	if (!c && xt)
		c = cmp_bytes(xb, add_natural(xb, 0, sizeof(xb), x->cell, '\0'),
			      yb, add_natural(yb, 0, sizeof(yb), y->cell, '\0'));
	if (!c)
		c = strcmp(row_key_of(x->r), row_key_of(y->r));
	return st->sort_desc ? -c : c;
}

/* Row r's cells made afresh, each column's kept key checked against them;
 * its cell of the sort's column (a kind's) into *cell, allocated. */
static bool keys_are_fresh(struct fixture *f, struct row *r, char **cell, char *why, size_t size)
{
	struct table_state *st = ts(&f->tab);
	struct strbuf pack = STRBUF_INIT;
	bool ok = true;

	cells_pack(&f->tab, r, &pack);
	*cell = st->sort >= SORT__FIXED ? xstrdup(cells_at(pack.buf, (size_t)(st->sort - SORT__FIXED))) :
		NULL;
	for (size_t c = 0; ok && st->keys_live && c < st->key_nr; c++) {
		uint32_t id = r->kind_key[c];
		const char *want = cells_at(pack.buf, c);
		if (!id || strcmp(st->key_vals[c].vals[id]->text, want)) {
			snprintf(why, size, "%s: column %zu kept '%s', its cell '%s'", row_key_of(r), c,
				 id ? st->key_vals[c].vals[id]->text : "(none)", want);
			ok = false;
		}
	}
	strbuf_release(&pack);
	return ok;
}

/*
 * Whether the tree is sound and holds every row once, in the order a full
 * sort of the rows by their current keys gives (a kind's cells made
 * afresh); and whether, once kept, every row's keys are its cells'.
 */
static bool order_is_full_sort(struct fixture *f, char *why, size_t size)
{
	struct table_state *st = ts(&f->tab);
	size_t n = model_row_count(&f->tab.m), nr = 0, iter = 0, at = 0;
	struct ref_row *want = xmalloc((n + 1) * sizeof(*want));
	struct row *r;
	bool ok = true;

	while ((r = model_next_row(&f->tab.m, &iter))) {
		want[nr].r = r;
		if (!keys_are_fresh(f, r, &want[nr++].cell, why, size))
			ok = false;
	}
	qsort_r(want, nr, sizeof(*want), cmp_rows_q, st);
	if (ok && ostree_check(&st->order, why, size) < 0)
		ok = false;
	for (struct ostree_node *o = ostree_first(&st->order); ok && o; o = ostree_next(o), at++)
		if (at >= nr || row_of(o) != want[at].r) {
			snprintf(why, size, "row %zu: %s, want %s", at, row_key_of(row_of(o)),
				 at < nr ? row_key_of(want[at].r) : "none");
			ok = false;
		}
	if (ok && at != nr) {
		snprintf(why, size, "%zu rows in the tree, %zu in the model", at, nr);
		ok = false;
	}
	for (size_t i = 0; i < nr; i++)
		free(want[i].cell);
	free(want);
	return ok;
}

/* The page the frame draws: the first rows of the order, read from it. */
static bool page_is_first_rows(struct fixture *f, struct row **page, size_t known)
{
	for (size_t i = 0; i < known; i++)
		if (order_row_at(&f->tab, i) != page[i])
			return false;
	return true;
}

TEST(a_page_then_slices_under_deltas_end_in_the_full_order)
{
	static struct fixture f;
	char why[256] = "";
	size_t pages = 0, page_ok = 0, full_ok = 0, sorts = 0;

	fixture_init(&f);
	/* Every column in turn, each way round: NAME, the pod's columns, RV... */
	for (int step = 0; step < 26; step++) {
		struct table_state *st = ts(&f.tab);
		if (step == 13)
			table_reverse_sort(&f.t, &f.tab);
		else
			table_cycle_sort(&f.t, &f.tab, 1);
		deltas(&f, 20);		/* between the key and the frame */
		table_refresh(&f.t, &f.tab);
		sorts++;
		if (st->pend) {
			pages++;
			size_t known = st->pend->known;
			struct row *page[64];
			for (size_t i = 0; i < known && i < 64; i++)
				page[i] = order_row_at(&f.tab, i);
			/* What the page showed is what a full sort puts first. */
			deltas(&f, 0);
			table_work(&f.t, -1);
			ts(&f.tab)->order_stale = true;
			order_build(&f.t, &f.tab);
			page_ok += page_is_first_rows(&f, page, known < 64 ? known : 64);
			/* Again, now with deltas between the slices. */
			order_restale(st);
			table_refresh(&f.t, &f.tab);
			while (table_pending(&f.t)) {
				deltas(&f, 5);
				table_work(&f.t, 0);
			}
		}
		full_ok += order_is_full_sort(&f, why, sizeof(why));
	}
	CHECK_INT(pages, sorts);
	CHECK_INT(page_ok, pages);
	CHECKF(full_ok == sorts, "%zu of %zu: %s", full_ok, sorts, why);
	fixture_release(&f);
}

TEST(a_row_freed_during_a_page_finishes_the_sort_first)
{
	static struct fixture f;
	char why[256] = "";

	fixture_init(&f);
	deltas(&f, 400);	/* some deleted: gone rows to expire */
	table_cycle_sort(&f.t, &f.tab, 2);
	table_refresh(&f.t, &f.tab);
	CHECK(table_pending(&f.t));
	CHECK(model_expire(&f.tab.m, mono_ms() + 2 * GONE_SHOW_MS));
	CHECK(!table_pending(&f.t));
	CHECKF(order_is_full_sort(&f, why, sizeof(why)), "%s", why);
	fixture_release(&f);
}

/*
 * Whether every row's shown flag is what the filter says of it now, and
 * the tree's counts agree (the title's count, a row's rank).
 */
static bool filter_is_exact(struct fixture *f, char *why, size_t size)
{
	struct table_state *st = ts(&f->tab);
	size_t iter = 0, want = 0;
	struct row *r;

	if (ostree_check(&st->order, why, size) < 0)
		return false;
	while ((r = model_next_row(&f->tab.m, &iter))) {
		bool shown = row_shown(&f->t, &f->tab, r);
		bool flag = st->order.all_shown || r->order.shown;
		want += shown;
		if (!r->order.linked || flag != shown) {
			snprintf(why, size, "%s: shown %d, want %d", row_key_of(r), flag, shown);
			return false;
		}
	}
	if (ostree_count(&st->order) != want) {
		snprintf(why, size, "count %zu, want %zu", ostree_count(&st->order), want);
		return false;
	}
	return true;
}

#define OTHERS 100	/* rows named otherwise: fewer than FILTER_FEW_CHANGED */

static void filter_type(struct fixture *f, const char *text)
{
	struct errbuf err;

	CHECKF(filter_set(&f->tab.filter, text, &err) == 0, "%s", text);
	f->t.filter_gen++;
	table_refresh(&f->t, &f->tab);
}

/*
 * A typed filter, one character at a time with deltas between, through
 * each way the flags are set: every row in memory order (a new text, or
 * one narrowing with the flags stale after Esc), the shown rows in memory
 * order with few flags changed (set in the tree) or many (counts made
 * again), few shown (through the tree), a regex and a label filter (the
 * tree, every row).
 */
TEST(a_typed_filter_under_deltas_shows_what_a_full_filter_shows)
{
	static struct fixture f;
	static const char *const typed[] = {
		"", "o", "od", "p", "po", "pod", "pod-", "pod-1", "pod-12", "pod-123", "", "pod-", "pod-5",
		"ns-3", "ns-3/", "ns-3/pod-1", "pod-[0-9]*7$", "l:app=none", "l:app=a1", "1", "12", "",
	};
	struct kobj *others[OTHERS];
	char why[256] = "";
	size_t exact = 0;

	fixture_init(&f);
	/* A few rows "od" hides and "o" does not: few flags changed. */
	for (unsigned i = 0; i < OTHERS; i++) {
		char *json = xasprintf("{\"metadata\":{\"name\":\"other-%u\",\"namespace\":"
				       "\"ns-0\",\"resourceVersion\":\"%u\"}}", i, ++f.rv);
		struct errbuf err;
		others[i] = kobj_from_json(json, strlen(json), 0, &err);
		free(json);
		apply(&f.tab.m, NOTIFY_ADD, DELTA_ADDED, kobj_ref(others[i]), NULL);
	}
	for (size_t i = 0; i < ARRAY_SIZE(typed); i++) {
		deltas(&f, 30);
		filter_type(&f, typed[i]);
		bool ok = filter_is_exact(&f, why, sizeof(why));
		CHECKF(ok, "'%s': %s", typed[i], why);
		exact += ok;
		deltas(&f, 30);		/* each delta's flag, the filter's */
		ok = filter_is_exact(&f, why, sizeof(why));
		CHECKF(ok, "'%s' after deltas: %s", typed[i], why);
	}
	CHECK_INT(exact, ARRAY_SIZE(typed));
	fixture_release(&f);
	for (unsigned i = 0; i < OTHERS; i++)
		kobj_unref(others[i]);
}

/* How many rows the filter and the namespace show now. */
static size_t shown_want(struct fixture *f)
{
	size_t iter = 0, nr = 0;
	struct row *r;

	while ((r = model_next_row(&f->tab.m, &iter)))
		nr += row_shown(&f->t, &f->tab, r);
	return nr;
}

/*
 * A filter typed while a new sort is a page (or a sort made under a
 * filter) keeps it a page: the first shown rows, found by sorting only
 * the runs they are in, with the count exact at every step, deltas
 * between; the tree built after in slices is the full order with every
 * flag the filter's, and the page its first shown rows.  Each column,
 * each way round, through a text that shows most rows, one that shows
 * few, none, a regex, a label filter, a namespace, and Esc.
 */
TEST(a_filter_while_a_sort_is_a_page_pages_the_shown_rows)
{
	static struct fixture f;
	static const char *const typed[] = {
		"p", "pod-1", "pod-12", "pod-5999", "zz", "pod-[0-9]*7$", "l:app=a2", "ns-3/",
		"", "l:app!=a0",
	};
	char why[256] = "";
	size_t rounds = 0, paged = 0, counts_ok = 0, page_ok = 0, full_ok = 0, exact = 0;

	fixture_init(&f);
	for (int step = 0; step < 20; step++) {
		struct table_state *st = ts(&f.tab);
		const char *text = typed[step % ARRAY_SIZE(typed)];
		table_cycle_sort(&f.t, &f.tab, 1);
		if (step >= 10)
			table_reverse_sort(&f.t, &f.tab);
		snprintf(f.t.ns_filter, sizeof(f.t.ns_filter), "%s", step % 7 == 3 ? "ns-2" : "");
		deltas(&f, 20);
		table_refresh(&f.t, &f.tab);
		/* Typed: two filters in turn while the page is up. */
		filter_type(&f, step % 2 ? "po" : "");
		filter_type(&f, text);
		rounds++;
		paged += st->pend != NULL;
		if (!st->pend)
			continue;
		counts_ok += order_shown_nr(&f.tab) == shown_want(&f);
		size_t nr = order_shown_nr(&f.tab) < 40 ? order_shown_nr(&f.tab) : 40;
		struct row *page[40];
		for (size_t i = 0; i < nr; i++)
			page[i] = order_row_at(&f.tab, i);
		CHECK(st->pend != NULL);	/* the page was enough */
		table_work(&f.t, -1);
		page_ok += page_is_first_rows(&f, page, nr) && ostree_count(&st->order) == order_shown_nr(&f.tab);
		exact += filter_is_exact(&f, why, sizeof(why));
		/* Again, with deltas between the slices: the count stays exact. */
		order_restale(st);
		table_refresh(&f.t, &f.tab);
		bool counted = true;
		while (table_pending(&f.t)) {
			deltas(&f, 5);
			counted &= order_shown_nr(&f.tab) == shown_want(&f);
			table_work(&f.t, 0);
		}
		counts_ok += counted;
		full_ok += order_is_full_sort(&f, why, sizeof(why)) &&
			   filter_is_exact(&f, why, sizeof(why));
	}
	CHECK_INT(paged, rounds);
	CHECK_INT(counts_ok, 2 * paged);
	CHECK_INT(page_ok, paged);
	CHECKF(exact == paged, "%zu of %zu: %s", exact, paged, why);
	CHECKF(full_ok == paged, "%zu of %zu: %s", full_ok, paged, why);
	f.t.ns_filter[0] = '\0';
	fixture_release(&f);
}

/* Rows whose cells the table keeps (those drawn: none here). */
static size_t rows_with_cells(struct fixture *f)
{
	size_t iter = 0, nr = 0;
	struct row *r;

	while ((r = model_next_row(&f->tab.m, &iter)))
		nr += r->has_cells;
	return nr;
}

/*
 * From sync on, the kind's cells are kept as keys, made in the loop's
 * idle slices (deltas between) and with each delta after; a sort by any
 * column (a page or the whole at once, each way round), with deltas
 * placed in it after, is the order of the cells made afresh, and no
 * row's cells are kept for it.
 */
TEST(the_kinds_keys_made_in_slices_and_with_deltas_sort_as_fresh_cells)
{
	static struct fixture f;
	char why[256] = "";
	size_t slices = 0, sorts = 0, full_ok = 0, pages = 0;

	fixture_init(&f);
	CHECK(!table_pending(&f.t));	/* not synced: none made yet */
	f.tab.m.stats.synced = true;
	while (table_pending(&f.t)) {
		table_work(&f.t, 0);
		deltas(&f, 3);
		slices++;
	}
	CHECK(slices > 10);
	CHECKF(order_is_full_sort(&f, why, sizeof(why)), "swept: %s", why);
	for (int step = 0; step < 18; step++) {
		struct table_state *st = ts(&f.tab);
		if (step == 9)
			table_reverse_sort(&f.t, &f.tab);
		else
			table_cycle_sort(&f.t, &f.tab, 1);
		st->scroll.cur = st->scroll.top = (size_t)(step % 3 == 2 ? 5 : 0);
		deltas(&f, 20);
		table_refresh(&f.t, &f.tab);
		pages += st->pend != NULL;
		while (table_pending(&f.t)) {
			deltas(&f, 5);
			table_work(&f.t, 0);
		}
		deltas(&f, 50);		/* each placed by its kept keys */
		sorts++;
		full_ok += order_is_full_sort(&f, why, sizeof(why));
	}
	CHECKF(full_ok == sorts, "%zu of %zu: %s", full_ok, sorts, why);
	CHECK(pages > 0 && pages < sorts);
	CHECK(!ts(&f.tab)->cells_live);
	CHECK_INT(rows_with_cells(&f), 0);
	fixture_release(&f);
}

/*
 * With no column kept as keys (a kind with more columns than KEYS_MAX, or
 * one whose values filled their table), a sort by a kind's column is made
 * from the rows' cells, made for every row from then on (cells_live) and
 * kept beside the rows (struct cells): every sort the full order under
 * deltas, every row with its own cells, a freed row's let go of.  Cells
 * carry the version and the time they were made of.
 */
TEST(the_cells_kept_beside_the_rows_sort_a_column_not_kept)
{
	static struct fixture f;
	char why[256] = "";
	size_t sorts = 0, full_ok = 0, iter = 0, own = 0, rows = 0;
	struct row *r;

	fixture_init(&f);
	struct table_state *st = ts(&f.tab);
	st->key_nr = 0;		/* none kept */

	r = model_next_row(&f.tab.m, &iter);
	cells_set(st, r, "1/1\0Running\0", 12, 123400);
	CHECK(cells_current(st, r));
	CHECK(!memcmp(cells_of(st, r), "1/1\0Running\0", 13));
	CHECK_INT(cells_age(cells_of(st, r), 125400), 2000);
	apply(&f.tab.m, NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(r->obj), kobj_ref(r->obj));
	CHECK(r->has_cells && !cells_current(st, r));	/* made of the last version */
	cells_set(st, r, "", 0, 200000);
	CHECK(cells_current(st, r) && !*cells_of(st, r));
	cells_make(&f.tab, r, f.t.now_mono);	/* its own again */

	f.tab.m.stats.synced = true;
	for (int step = 0; step < 12; step++) {
		table_cycle_sort(&f.t, &f.tab, 1);
		deltas(&f, 20);
		table_refresh(&f.t, &f.tab);
		while (table_pending(&f.t)) {
			deltas(&f, 5);
			table_work(&f.t, 0);
		}
		deltas(&f, 50);
		sorts++;
		full_ok += order_is_full_sort(&f, why, sizeof(why));
	}
	CHECKF(full_ok == sorts, "%zu of %zu: %s", full_ok, sorts, why);
	CHECK(st->cells_live);
	/* The gone rows freed, and their cells with them. */
	CHECK(f.tab.m.gone > 0);
	CHECK(model_expire(&f.tab.m, mono_ms() + GONE_SHOW_MS + 1000));
	iter = 0;
	while ((r = model_next_row(&f.tab.m, &iter))) {
		rows++;
		own += r->has_cells && cells_slot(&st->cells, r)->row == r;
	}
	CHECK_INT(own, rows);
	CHECK_INT(st->cells.nr, rows);
	fixture_release(&f);
}

/*
 * Sorted by AGE, the rows on screen made their cells again a second on:
 * each moves (its AGE is its key), and the rows that take their places
 * on screen have their cells made too before they are drawn.
 */
TEST(rows_moved_into_the_screen_by_their_neighbours_cells_have_cells)
{
	static struct fixture f;
	struct row *rows[40];
	size_t nr, bare = 0, stale = 0;

	born_s = time(NULL);
	fixture_init(&f);
	f.tab.m.stats.synced = true;
	table_work(&f.t, -1);		/* the keys, from the cells of now */
	CHECK(table_sort_letter(&f.t, &f.tab, 'A'));
	CHECK_STR(order_column_name(&f.tab, ts(&f.tab)->sort), "AGE");
	ts(&f.tab)->scroll.cur = ts(&f.tab)->scroll.top = 2000;
	table_refresh(&f.t, &f.tab);
	table_work(&f.t, -1);
	CHECK_INT(rows_with_cells(&f), 0);
	/* A second on, each row's AGE is another: made again, it moves. */
	sleep(1);
	f.t.now_mono += 2000;
	nr = visible_rows(&f.t, &f.tab, rows, 40);
	CHECK_INT(nr, 40);
	for (size_t i = 0; i < nr; i++) {
		bare += !rows[i]->has_cells;
		stale += rows[i]->has_cells &&
			 cells_age(cells_of(ts(&f.tab), rows[i]), f.t.now_mono) >= 1000;
	}
	CHECK_INT(bare, 0);
	CHECK_INT(stale, 0);
	fixture_release(&f);
	born_s = 0;
}

int main(void)
{
	RUN(a_page_then_slices_under_deltas_end_in_the_full_order);
	RUN(a_row_freed_during_a_page_finishes_the_sort_first);
	RUN(a_typed_filter_under_deltas_shows_what_a_full_filter_shows);
	RUN(a_filter_while_a_sort_is_a_page_pages_the_shown_rows);
	RUN(the_kinds_keys_made_in_slices_and_with_deltas_sort_as_fresh_cells);
	RUN(rows_moved_into_the_screen_by_their_neighbours_cells_have_cells);
	RUN(the_cells_kept_beside_the_rows_sort_a_column_not_kept);
	return unit_done();
}

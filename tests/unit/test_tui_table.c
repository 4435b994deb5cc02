/*
 * test_tui_table.c — the table's order: a new sort answered with its first
 * page, then finished in slices while deltas arrive, ends in the order a
 * full sort of the same rows gives; the page is that order's first rows.
 *
 * tui_table.c is included whole, so that its order (a static tree) can be
 * read; the archive's copy of it is then not linked.
 */
#include "tui/tui_table.c"

#include <stdio.h>
#include <string.h>

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

static struct kobj *pod(unsigned id, unsigned rv)
{
	static const char *const phases[] = { "Running", "Running", "Running", "Pending", "Failed" };
	char *json = xasprintf("{\"metadata\":{\"name\":\"pod-%u\",\"namespace\":\"ns-%u\","
			       "\"resourceVersion\":\"%u\"},\"spec\":{\"nodeName\":\"node-%u\"},"
			       "\"status\":{\"phase\":\"%s\"}}",
			       id, id % 7, rv, rnd(3), phases[rnd(5)]);
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
	table_refresh(&f->t, &f->tab, false);
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

static int cmp_rows_q(const void *a, const void *b, void *ctx)
{
	return cmp_keys(ctx, *(struct row *const *)a, *(struct row *const *)b);
}

/*
 * Whether the tree is sound and holds every row once, in the order a full
 * sort of the rows by their current keys gives.
 */
static bool order_is_full_sort(struct fixture *f, char *why, size_t size)
{
	struct table_state *st = ts(&f->tab);
	size_t n = model_row_count(&f->tab.m), nr = 0, iter = 0, at = 0;
	struct row **want = xmalloc((n + 1) * sizeof(*want)), *r;
	bool ok = true;

	while ((r = model_next_row(&f->tab.m, &iter))) {
		sort_key(st, r);
		want[nr++] = r;
	}
	qsort_r(want, nr, sizeof(*want), cmp_rows_q, st);
	if (ostree_check(&st->order, why, size) < 0)
		ok = false;
	for (struct ostree_node *o = ostree_first(&st->order); ok && o; o = ostree_next(o), at++)
		if (at >= nr || row_of(o) != want[at]) {
			snprintf(why, size, "row %zu: %s, want %s", at, row_of(o)->key,
				 at < nr ? want[at]->key : "none");
			ok = false;
		}
	if (ok && at != nr) {
		snprintf(why, size, "%zu rows in the tree, %zu in the model", at, nr);
		ok = false;
	}
	free(want);
	return ok;
}

/* The page the frame draws: the first rows of the order, read from it. */
static bool page_is_first_rows(struct fixture *f, struct row **page, size_t known)
{
	for (size_t i = 0; i < known; i++)
		if (row_at(&f->tab, i) != page[i])
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
		table_refresh(&f.t, &f.tab, false);
		sorts++;
		if (st->pend) {
			pages++;
			size_t known = st->pend->known;
			struct row *page[64];
			for (size_t i = 0; i < known && i < 64; i++)
				page[i] = row_at(&f.tab, i);
			/* What the page showed is what a full sort puts first. */
			deltas(&f, 0);
			table_work(&f.t, -1);
			ts(&f.tab)->order_stale = true;
			order_build(&f.t, &f.tab);
			page_ok += page_is_first_rows(&f, page, known < 64 ? known : 64);
			/* Again, now with deltas between the slices. */
			order_restale(st);
			table_refresh(&f.t, &f.tab, false);
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
	table_refresh(&f.t, &f.tab, false);
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
			snprintf(why, size, "%s: shown %d, want %d", r->key, flag, shown);
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
	table_refresh(&f->t, &f->tab, false);
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
		"ns-3", "ns-3/", "ns-3/pod-1", "pod-[0-9]*7$", "l:app=none", "1", "12", "",
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

int main(void)
{
	RUN(a_page_then_slices_under_deltas_end_in_the_full_order);
	RUN(a_row_freed_during_a_page_finishes_the_sort_first);
	RUN(a_typed_filter_under_deltas_shows_what_a_full_filter_shows);
	return unit_done();
}

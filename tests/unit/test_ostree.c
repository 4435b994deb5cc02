/*
 * test_ostree.c — the order-statistic treap against the obvious model: a
 * sorted array of the shown values, after random inserts, removals, key
 * changes and shown flags, checked by rank, select and the invariants.
 */
#include <stdint.h>

#include "lib/ostree.h"
#include "unit.h"

#define ITEMS 600

struct item {
	struct ostree_node node;	/* first: the casts below */
	int key;
	int id;			/* breaks ties: the order is total */
	bool in;
	bool shown;
};

static struct item items[ITEMS];

static int cmp(const struct ostree_node *a, const struct ostree_node *b, void *ctx)
{
	const struct item *x = (const struct item *)a, *y = (const struct item *)b;

	(void)ctx;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_items(const void *pa, const void *pb)
{
	return cmp(*(struct ostree_node *const *)pa, *(struct ostree_node *const *)pb, NULL);
}

static uint64_t rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* The model: the shown items, sorted; returns how many. */
static size_t model_sorted(struct item **out)
{
	size_t n = 0;

	for (size_t i = 0; i < ITEMS; i++)
		if (items[i].in && items[i].shown)
			out[n++] = &items[i];
	qsort(out, n, sizeof(*out), cmp_items);
	return n;
}

/* Every rank and select of t against the model; false on a miss. */
static bool agrees(const struct ostree *t)
{
	struct item *sorted[ITEMS];
	size_t n = model_sorted(sorted);
	char why[128];

	CHECKF(ostree_check(t, why, sizeof(why)) == 0, "invariant: %s", why);
	CHECK_INT(ostree_count(t), n);
	size_t bad_select = 0, bad_rank = 0;
	for (size_t k = 0; k < n; k++) {
		struct ostree_node *got = ostree_select(t, k);
		bad_select += got != &sorted[k]->node;
		bad_rank += got && ostree_rank(t, got) != k;
	}
	CHECK_INT(bad_select, 0);
	CHECK_INT(bad_rank, 0);
	CHECK(ostree_select(t, n) == NULL);
	return !bad_select && !bad_rank && ostree_count(t) == n;
}

TEST(empty_tree)
{
	struct ostree t;

	ostree_init(&t, cmp, NULL);
	CHECK_INT(ostree_count(&t), 0);
	CHECK(ostree_select(&t, 0) == NULL);
	CHECK(ostree_first(&t) == NULL);
}

TEST(random_operations_match_a_sorted_array)
{
	struct ostree t;
	bool ok = true;

	memset(items, 0, sizeof(items));
	ostree_init(&t, cmp, NULL);
	for (int i = 0; i < ITEMS; i++)
		items[i].id = i;
	for (int step = 0; step < 20000 && ok; step++) {
		struct item *it = &items[rnd(ITEMS)];
		switch (rnd(4)) {
		case 0:	/* insert, or remove */
			if (it->in) {
				ostree_remove(&t, &it->node);
				it->in = false;
			} else {
				it->key = (int)rnd(100);	/* many equal keys */
				it->shown = rnd(3) != 0;
				ostree_insert(&t, &it->node, it->shown);
				it->in = true;
			}
			break;
		case 1:	/* a key changes: out, then in again */
			if (!it->in)
				break;
			ostree_remove(&t, &it->node);
			it->key = (int)rnd(100);
			ostree_insert(&t, &it->node, it->shown);
			break;
		case 2:	/* the filter changes its mind */
			if (!it->in)
				break;
			it->shown = !it->shown;
			ostree_set_shown(&t, &it->node, it->shown);
			break;
		default: {	/* a hidden node's rank: the shown before it */
			if (!it->in)
				break;
			size_t before = 0;
			for (size_t i = 0; i < ITEMS; i++)
				if (items[i].in && items[i].shown && cmp(&items[i].node, &it->node, NULL) < 0)
					before++;
			if (ostree_rank(&t, &it->node) != before)
				ok = false;
			break;
		}
		}
		if (step % 500 == 0)
			ok = ok && agrees(&t);
	}
	CHECK(ok);
	CHECK(agrees(&t));
}

static bool even_keys(struct ostree_node *n, void *ctx)
{
	(void)ctx;
	return ((struct item *)n)->key % 2 == 0;
}

static int asked_hidden;

static bool fourth_keys(struct ostree_node *n, void *ctx)
{
	(void)ctx;
	asked_hidden += !n->shown;
	return ((struct item *)n)->key % 4 == 0;
}

/* ITEMS items of random keys, their nodes in nodes in order, t empty. */
static void random_items(struct ostree *t, struct ostree_node **nodes)
{
	memset(items, 0, sizeof(items));
	ostree_init(t, cmp, NULL);
	for (int i = 0; i < ITEMS; i++) {
		items[i] = (struct item){ .key = (int)rnd(50), .id = i, .in = true };
		nodes[i] = &items[i].node;
	}
	qsort(nodes, ITEMS, sizeof(*nodes), cmp_items);
}

TEST(build_and_refilter)
{
	struct ostree t;
	struct ostree_node *nodes[ITEMS];

	random_items(&t, nodes);
	ostree_relink(&t, nodes, ITEMS, NULL, NULL);
	for (int i = 0; i < ITEMS; i++)
		items[i].shown = true;
	CHECK(agrees(&t));

	ostree_refilter(&t, even_keys, NULL);
	for (int i = 0; i < ITEMS; i++)
		items[i].shown = items[i].key % 2 == 0;
	CHECK(agrees(&t));

	/* Narrowed: only the shown are asked again. */
	ostree_refilter_shown(&t, fourth_keys, NULL);
	for (int i = 0; i < ITEMS; i++)
		items[i].shown = items[i].key % 4 == 0;
	CHECK(agrees(&t));
	CHECK_INT(asked_hidden, 0);

	/* Built hidden as the filter says, then kept up one by one. */
	ostree_relink(&t, nodes, ITEMS, even_keys, NULL);
	for (int i = 0; i < ITEMS; i++)
		items[i].shown = items[i].key % 2 == 0;
	CHECK(agrees(&t));
	for (int i = 0; i < 200; i++) {
		struct item *it = &items[rnd(ITEMS)];
		ostree_remove(&t, &it->node);
		it->key = (int)rnd(50);
		it->shown = it->key % 2 == 0;
		ostree_insert(&t, &it->node, it->shown);
	}
	CHECK(agrees(&t));
}

/*
 * Relinked over itself: the tree of the same nodes in a new order (some
 * removed from it meanwhile, their keys changed), its old links
 * overwritten rather than undone, is the new order, counts and all, and
 * keeps up one by one after.
 */
TEST(relinked_over_its_own_nodes_in_a_new_order)
{
	struct ostree t;
	struct ostree_node *nodes[ITEMS];

	random_items(&t, nodes);
	ostree_relink(&t, nodes, ITEMS, NULL, NULL);
	for (int round = 0; round < 5; round++) {
		/* Some out of the tree, as a table's rows changed while its
		 * new sort was made; every key anew. */
		for (int i = 0; i < ITEMS / 10; i++) {
			struct item *it = &items[rnd(ITEMS)];
			if (it->node.linked)
				ostree_remove(&t, &it->node);
		}
		for (int i = 0; i < ITEMS; i++) {
			items[i].key = (int)rnd(50);
			items[i].in = true;
			items[i].shown = round % 2 ? items[i].key % 2 == 0 : true;
		}
		qsort(nodes, ITEMS, sizeof(*nodes), cmp_items);
		ostree_relink(&t, nodes, ITEMS, round % 2 ? even_keys : NULL, NULL);
		CHECK(agrees(&t));
		for (int i = 0; i < 100; i++) {
			struct item *it = &items[rnd(ITEMS)];
			ostree_remove(&t, &it->node);
			it->key = (int)rnd(50);
			it->shown = round % 2 ? it->key % 2 == 0 : true;
			ostree_insert(&t, &it->node, it->shown);
		}
		CHECK(agrees(&t));
	}
}

/* A filter cleared shows all at once; the flags come back when needed. */
TEST(show_all_then_filter_again)
{
	struct ostree t;
	struct ostree_node *nodes[ITEMS];

	random_items(&t, nodes);
	ostree_relink(&t, nodes, ITEMS, even_keys, NULL);
	ostree_show_all(&t);
	for (int i = 0; i < ITEMS; i++)
		items[i].shown = true;
	CHECK(agrees(&t));
	/* Moved while all are shown: still all shown, in order. */
	for (int i = 0; i < 100; i++) {
		struct item *it = &items[rnd(ITEMS)];
		ostree_remove(&t, &it->node);
		it->key = (int)rnd(50);
		ostree_insert(&t, &it->node, true);
	}
	CHECK(agrees(&t));
	/* A narrowing filter after it asks every node, whatever its stale flag. */
	ostree_refilter_shown(&t, fourth_keys, NULL);
	for (int i = 0; i < ITEMS; i++)
		items[i].shown = items[i].key % 4 == 0;
	CHECK(agrees(&t));
	/* One node hidden while all are shown: the others stay shown. */
	ostree_show_all(&t);
	for (int i = 0; i < ITEMS; i++)
		items[i].shown = true;
	items[7].shown = false;
	ostree_set_shown(&t, &items[7].node, false);
	CHECK(agrees(&t));
	items[9].shown = false;
	ostree_remove(&t, &items[9].node);
	ostree_insert(&t, &items[9].node, false);
	CHECK(agrees(&t));
}

/* Flags set by the caller in its own order, then the counts made again. */
/*
 * Counted bottom up from the nodes in the array's order (a table's rows
 * in memory order): the same counts, after flags set directly, after
 * show_all, and with nodes taken out and put back one by one between.
 */
TEST(flags_set_directly_then_counted_from_the_leaves)
{
	struct ostree t;
	struct ostree_node *nodes[ITEMS], *in_array[ITEMS], *queue[ITEMS];

	random_items(&t, nodes);
	ostree_relink(&t, nodes, ITEMS, even_keys, NULL);
	for (int round = 0; round < 4; round++) {
		if (round == 2)
			ostree_show_all(&t);
		for (int i = 0; i < 50; i++) {
			struct item *it = &items[rnd(ITEMS)];
			ostree_remove(&t, &it->node);
			it->key = (int)rnd(50);
			ostree_insert(&t, &it->node, it->node.shown);
		}
		size_t nr = 0;
		for (int i = 0; i < ITEMS; i++) {	/* in the array's order, not the tree's */
			items[i].shown = rnd(3) == 0;
			items[i].node.shown = items[i].shown;
			in_array[nr++] = &items[i].node;
		}
		ostree_recount_nodes(&t, in_array, nr, queue);
		CHECK(agrees(&t));
	}
}

/* The priorities keep it shallow even when the keys come sorted. */
TEST(sorted_inserts_stay_shallow)
{
	struct ostree t;
	int depth = 0;

	memset(items, 0, sizeof(items));
	ostree_init(&t, cmp, NULL);
	for (int i = 0; i < ITEMS; i++) {
		items[i] = (struct item){ .key = i, .id = i, .in = true, .shown = true };
		ostree_insert(&t, &items[i].node, true);
	}
	for (int i = 0; i < ITEMS; i++) {
		int d = 0;
		for (struct ostree_node *n = &items[i].node; n->up; n = n->up)
			d++;
		if (d > depth)
			depth = d;
	}
	CHECKF(depth < 40, "depth %d for %d sorted inserts", depth, ITEMS);
	CHECK(agrees(&t));
}

/* The deepest node of t. */
static int depth_of(void)
{
	int depth = 0;

	for (int i = 0; i < ITEMS; i++) {
		int d = 0;
		for (struct ostree_node *n = &items[i].node; n->up; n = n->up)
			d++;
		if (d > depth)
			depth = d;
	}
	return depth;
}

/*
 * Priorities come from the nodes' addresses: nodes in address order built
 * in that order (as the TUI's rows of a first list, one slab after the
 * other) must still make a shallow tree, each build with a new seed.
 */
TEST(address_ordered_build_stays_shallow)
{
	struct ostree t;
	struct ostree_node *nodes[ITEMS];

	memset(items, 0, sizeof(items));
	ostree_init(&t, cmp, NULL);
	for (int i = 0; i < ITEMS; i++) {
		items[i] = (struct item){ .key = i, .id = i, .in = true, .shown = true };
		nodes[i] = &items[i].node;
	}
	for (int round = 0; round < 3; round++) {
		ostree_relink(&t, nodes, ITEMS, NULL, NULL);
		int depth = depth_of();
		CHECKF(depth < 40, "depth %d for a build of %d nodes", depth, ITEMS);
		CHECK(agrees(&t));
	}
}

/* What a row pays for its place in the order (three links, two counts). */
TEST(node_is_32_bytes)
{
	CHECKF(sizeof(void *) != 8 || sizeof(struct ostree_node) == 32,
	       "a node takes %zu bytes", sizeof(struct ostree_node));
}

int main(void)
{
	RUN(empty_tree);
	RUN(random_operations_match_a_sorted_array);
	RUN(build_and_refilter);
	RUN(relinked_over_its_own_nodes_in_a_new_order);
	RUN(show_all_then_filter_again);
	RUN(flags_set_directly_then_counted_from_the_leaves);
	RUN(sorted_inserts_stay_shallow);
	RUN(address_ordered_build_stays_shallow);
	RUN(node_is_32_bytes);
	return unit_done();
}

/* ostree.c — an order-statistic treap of intrusive nodes; see ostree.h. */
#include "lib/ostree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

static inline uint32_t cnt(const struct ostree_node *n)
{
	return n ? n->count : 0;
}

static inline uint32_t tot(const struct ostree_node *n)
{
	return n ? n->total : 0;
}

static inline void pull(struct ostree_node *n)
{
	n->count = cnt(n->l) + cnt(n->r) + (n->shown ? 1 : 0);
	n->total = tot(n->l) + tot(n->r) + 1;
}

/* What select and rank count: the shown nodes, or all (all_shown). */
static inline uint32_t seen(const struct ostree *t, const struct ostree_node *n)
{
	return t->all_shown ? tot(n) : cnt(n);
}

static inline bool is_shown(const struct ostree *t, const struct ostree_node *n)
{
	return t->all_shown || n->shown;
}

static void fix_counts(struct ostree_node *n, ostree_pred_fn *pred, void *ctx);

static bool show(struct ostree_node *n, void *ctx)
{
	(void)n;
	(void)ctx;
	return true;
}

/* The flags made true again, as all_shown says they are. */
static void materialize(struct ostree *t)
{
	if (!t->all_shown)
		return;
	fix_counts(t->root, show, NULL);
	t->all_shown = false;
}

/* xorshift64: a new seed, drawn only while the tree is empty. */
static void next_seed(struct ostree *t)
{
	uint64_t x = t->seed;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->seed = x;
}

/*
 * n's priority: its address and the seed through a 64-bit mix (a
 * bijection, so no two nodes tie).  Made each time it is needed, as cheap
 * as reading it back and 8 bytes less a node.
 */
static inline uint64_t prio(const struct ostree *t, const struct ostree_node *n)
{
	uint64_t x = (uint64_t)(uintptr_t)n ^ t->seed;

	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	x ^= x >> 33;
	return x;
}

void ostree_init(struct ostree *t, ostree_cmp_fn *cmp, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->cmp = cmp;
	t->ctx = ctx;
	t->seed = 0x9e3779b97f4a7c15ULL;
}

/* Puts c where p was under p's parent (or at the root). */
static void replace_child(struct ostree *t, struct ostree_node *p, struct ostree_node *c)
{
	struct ostree_node *g = p->up;

	if (c)
		c->up = g;
	if (!g)
		t->root = c;
	else if (g->l == p)
		g->l = c;
	else
		g->r = c;
}

/* Lifts x above its parent, keeping the order and the counts. */
static void rotate_up(struct ostree *t, struct ostree_node *x)
{
	struct ostree_node *p = x->up;

	replace_child(t, p, x);
	if (p->l == x) {
		p->l = x->r;
		if (p->l)
			p->l->up = p;
		x->r = p;
	} else {
		p->r = x->l;
		if (p->r)
			p->r->up = p;
		x->l = p;
	}
	p->up = x;
	pull(p);
	pull(x);
}

static void add_up(struct ostree_node *n, int delta, int total_delta)
{
	for (; n; n = n->up) {
		n->count = (uint32_t)((int64_t)n->count + delta);
		n->total = (uint32_t)((int64_t)n->total + total_delta);
	}
}

void ostree_insert(struct ostree *t, struct ostree_node *n, bool shown)
{
	struct ostree_node *p = NULL, **at = &t->root;

	if (!shown)
		materialize(t);
	while (*at) {
		p = *at;
		at = t->cmp(n, p, t->ctx) < 0 ? &p->l : &p->r;
	}
	n->l = n->r = NULL;
	n->up = p;
	n->shown = shown;
	n->count = shown ? 1 : 0;
	n->total = 1;
	n->linked = true;
	*at = n;
	add_up(p, shown ? 1 : 0, 1);
	while (n->up && prio(t, n->up) < prio(t, n))
		rotate_up(t, n);
	t->nr++;
}

void ostree_remove(struct ostree *t, struct ostree_node *n)
{
	/* Down until it has one child at most, the higher priority rising. */
	while (n->l && n->r)
		rotate_up(t, prio(t, n->l) > prio(t, n->r) ? n->l : n->r);
	struct ostree_node *p = n->up;
	replace_child(t, n, n->l ? n->l : n->r);
	add_up(p, n->shown ? -1 : 0, -1);
	n->l = n->r = n->up = NULL;
	n->linked = false;
	t->nr--;
}

void ostree_set_shown(struct ostree *t, struct ostree_node *n, bool shown)
{
	if (!shown)
		materialize(t);
	if (n->shown == shown)
		return;
	n->shown = shown;
	add_up(n, shown ? 1 : -1, 0);
}

struct ostree_node *ostree_select(const struct ostree *t, size_t k)
{
	struct ostree_node *n = t->root;

	if (k >= ostree_count(t))
		return NULL;
	while (n) {
		size_t lc = seen(t, n->l);
		if (k < lc) {
			n = n->l;
		} else if (is_shown(t, n) && k == lc) {
			return n;
		} else {
			k -= lc + (is_shown(t, n) ? 1 : 0);
			n = n->r;
		}
	}
	return NULL;	/* unreachable while the counts are right */
}

size_t ostree_rank(const struct ostree *t, const struct ostree_node *n)
{
	size_t r = seen(t, n->l);

	for (; n->up; n = n->up)
		if (n->up->r == n)
			r += seen(t, n->up->l) + (is_shown(t, n->up) ? 1 : 0);
	return r;
}

static void fix_counts(struct ostree_node *n, ostree_pred_fn *pred, void *ctx)
{
	if (!n)
		return;
	/* The right child is read after the whole left subtree: fetched now,
	 * its miss overlaps that walk (the nodes are scattered in memory). */
	if (n->r)
		__builtin_prefetch(n->r);
	fix_counts(n->l, pred, ctx);
	if (pred)
		n->shown = pred(n, ctx);
	fix_counts(n->r, pred, ctx);
	pull(n);
}

/*
 * The Cartesian tree of the sorted nodes by priority, with a stack of the
 * rightmost path: each node pops the lower-priority ones, which become
 * its left subtree.  Every node is pushed and popped once, and its counts
 * are made as it is popped: its subtree is whole then (what it popped
 * when pushed, and the node popped just before it), and it was touched
 * lately, where a walk of the tree after would fetch every node again.
 */
void ostree_relink(struct ostree *t, struct ostree_node **nodes, size_t nr,
		   ostree_pred_fn *pred, void *pctx)
{
	struct ostree_node **stack = nr ? xmalloc(nr * sizeof(*stack)) : NULL;
	size_t top = 0;

	t->root = NULL;
	t->nr = 0;
	t->all_shown = false;
	next_seed(t);
	for (size_t i = 0; i < nr; i++) {
		struct ostree_node *n = nodes[i], *last = NULL;
		n->l = n->r = n->up = NULL;
		n->shown = pred ? pred(n, pctx) : true;
		n->linked = true;
		while (top && prio(t, stack[top - 1]) < prio(t, n)) {
			last = stack[--top];
			pull(last);
		}
		n->l = last;
		if (last)
			last->up = n;
		if (top) {
			stack[top - 1]->r = n;
			n->up = stack[top - 1];
		}
		stack[top++] = n;
	}
	t->root = top ? stack[0] : NULL;
	t->nr = nr;
	while (top)
		pull(stack[--top]);
	free(stack);
}

void ostree_refilter(struct ostree *t, ostree_pred_fn *pred, void *ctx)
{
	t->all_shown = false;
	fix_counts(t->root, pred, ctx);
}

/* While ostree_recount_nodes() counts: one of the node's two children is. */
#define ONE_DONE (1u << 31)

#define QUEUE_AHEAD 8	/* queued nodes whose parent is fetched ahead */

void ostree_recount_nodes(struct ostree *t, struct ostree_node *const *nodes, size_t nr,
			  struct ostree_node **queue)
{
	size_t q = 0;

	t->all_shown = false;
	for (size_t i = 0; i < nr; i++) {
		struct ostree_node *n = nodes[i];
		n->count = n->shown ? 1 : 0;
		n->total = 1;
		if (!n->l && !n->r)
			queue[q++] = n;
	}
	/* A node queued is counted: it adds itself to its parent, which is
	 * counted once each of its children has. */
	for (size_t i = 0; i < q; i++) {
		struct ostree_node *n = queue[i], *p = n->up;
		if (i + QUEUE_AHEAD < q)
			__builtin_prefetch(queue[i + QUEUE_AHEAD]->up, 1);
		if (!p)
			continue;
		p->count += n->count;
		p->total += n->total;
		if ((p->l && p->r) && !(p->count & ONE_DONE)) {
			p->count |= ONE_DONE;
			continue;
		}
		p->count &= ~ONE_DONE;
		queue[q++] = p;
	}
}

void ostree_show_all(struct ostree *t)
{
	t->all_shown = true;
}

static void narrow(struct ostree_node *n, ostree_pred_fn *pred, void *ctx)
{
	if (!n || !n->count)
		return;
	narrow(n->l, pred, ctx);
	if (n->shown)
		n->shown = pred(n, ctx);
	narrow(n->r, pred, ctx);
	pull(n);
}

void ostree_refilter_shown(struct ostree *t, ostree_pred_fn *pred, void *ctx)
{
	if (t->all_shown)	/* the flags are stale: every node is asked */
		ostree_refilter(t, pred, ctx);
	else
		narrow(t->root, pred, ctx);
}

struct ostree_node *ostree_first(const struct ostree *t)
{
	struct ostree_node *n = t->root;

	while (n && n->l)
		n = n->l;
	return n;
}

struct ostree_node *ostree_next(const struct ostree_node *n)
{
	if (n->r) {
		n = n->r;
		while (n->l)
			n = n->l;
		return (struct ostree_node *)n;
	}
	while (n->up && n->up->r == n)
		n = n->up;
	return n->up;
}

static int check_node(const struct ostree *t, const struct ostree_node *n,
		      size_t *seen, char *buf, size_t size)
{
	if (!n)
		return 0;
	if (!n->linked)
		return snprintf(buf, size, "a node in the tree is not marked linked"), -1;
	if ((n->l && n->l->up != n) || (n->r && n->r->up != n))
		return snprintf(buf, size, "a child's up is not its parent"), -1;
	if ((n->l && prio(t, n->l) > prio(t, n)) || (n->r && prio(t, n->r) > prio(t, n)))
		return snprintf(buf, size, "a child's priority is above its parent's"), -1;
	if ((n->l && t->cmp(n->l, n, t->ctx) >= 0) || (n->r && t->cmp(n, n->r, t->ctx) >= 0))
		return snprintf(buf, size, "a child is on the wrong side"), -1;
	if (check_node(t, n->l, seen, buf, size) < 0 || check_node(t, n->r, seen, buf, size) < 0)
		return -1;
	if (n->count != cnt(n->l) + cnt(n->r) + (n->shown ? 1 : 0))
		return snprintf(buf, size, "count %u is not its subtree's", n->count), -1;
	if (n->total != tot(n->l) + tot(n->r) + 1)
		return snprintf(buf, size, "total %u is not its subtree's", n->total), -1;
	(*seen)++;
	return 0;
}

int ostree_check(const struct ostree *t, char *buf, size_t size)
{
	size_t seen = 0;
	const struct ostree_node *prev = NULL;

	if (t->root && t->root->up)
		return snprintf(buf, size, "the root has a parent"), -1;
	if (check_node(t, t->root, &seen, buf, size) < 0)
		return -1;
	if (seen != t->nr)
		return snprintf(buf, size, "%zu nodes linked, nr says %zu", seen, t->nr), -1;
	/* Neighbours only compare within a subtree above; the whole order too. */
	for (const struct ostree_node *n = ostree_first(t); n; n = ostree_next(n)) {
		if (prev && t->cmp(prev, n, t->ctx) >= 0)
			return snprintf(buf, size, "in-order walk is not sorted"), -1;
		prev = n;
	}
	return 0;
}

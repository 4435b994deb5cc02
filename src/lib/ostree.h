/*
 * ostree.h — an order-statistic tree: a treap (a binary search tree whose
 * random priorities keep it balanced in expectation) of intrusive nodes,
 * each counting the *shown* nodes of its subtree.
 *
 * A node is embedded in the caller's struct (container_of gets it back),
 * so that ordering n things costs 32 bytes each and copies none of them.
 * A node's priority is not stored but made from its address and the
 * tree's seed (a 64-bit mix, so as random as a drawn one, and independent
 * of the keys): it is fixed while the node is in the tree, which is all a
 * treap asks of it.
 * A node is in the tree or not; shown or hidden while in it.  Hidden
 * nodes keep their place in the order but are skipped by rank and select:
 * that is how a filter narrows a sorted table without a second copy.
 *
 * Costs, n nodes, expected (the priorities are random; the depth is
 * O(log n) whatever the order of insertion):
 *
 *   insert, remove, set_shown, rank, select   O(log n)
 *   build from a sorted array                 O(n)
 *   refilter (every node's shown flag)        O(n), one call of pred each
 *   recount (after flags set by the caller)   O(n)
 *   show all                                  O(1)
 *
 * The order is the caller's cmp, which must be a strict total order on
 * the nodes in the tree (ties broken, e.g. by a unique key) and must not
 * change while a node is in the tree: to move a node whose key changes,
 * remove it (removal never compares, so the key may already have changed,
 * or its text been freed), then insert it again.
 *
 * Not thread-safe: the owner locks (or, as the TUI, uses one thread).
 */
#ifndef KINF_OSTREE_H
#define KINF_OSTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most OSTREE_MAX nodes in a tree: total's 30 bits. */
#define OSTREE_MAX ((1u << 30) - 1)

struct ostree_node {
	struct ostree_node *l, *r, *up;
	uint32_t count;		/* shown nodes in this subtree, itself included */
	uint32_t total : 30;	/* nodes in this subtree, shown or not */
	bool shown : 1;
	bool linked : 1;	/* in a tree */
};

typedef int ostree_cmp_fn(const struct ostree_node *a, const struct ostree_node *b,
			  void *ctx);
typedef bool ostree_pred_fn(struct ostree_node *n, void *ctx);

struct ostree {
	struct ostree_node *root;
	ostree_cmp_fn *cmp;
	void *ctx;
	size_t nr;		/* nodes in the tree, shown or hidden */
	/*
	 * Every node counts as shown, whatever its flag (ostree_show_all():
	 * a filter cleared costs no pass).  The flags are then stale: the
	 * first call that needs them (a refilter, a node linked or flagged
	 * hidden) sets them all again first.
	 */
	bool all_shown;
	/* Mixed into every node's priority; drawn again when the tree is
	 * linked anew (ostree_relink()), never while it has nodes. */
	uint64_t seed;
};

/* An empty tree ordered by cmp(a, b, ctx).  It owns no memory. */
void ostree_init(struct ostree *t, ostree_cmp_fn *cmp, void *ctx);

/* Shown nodes in the tree. */
static inline size_t ostree_count(const struct ostree *t)
{
	return t->root ? t->all_shown ? t->root->total : t->root->count : 0;
}

/* Links n, which must not be in a tree. */
void ostree_insert(struct ostree *t, struct ostree_node *n, bool shown);
/* Unlinks n, which must be in t; compares nothing. */
void ostree_remove(struct ostree *t, struct ostree_node *n);
void ostree_set_shown(struct ostree *t, struct ostree_node *n, bool shown);

/* The shown node with k shown nodes before it, or NULL when k >= count. */
struct ostree_node *ostree_select(const struct ostree *t, size_t k);
/* How many shown nodes come before n (which may be hidden). */
size_t ostree_rank(const struct ostree *t, const struct ostree_node *n);

/*
 * Links nodes[0, nr), which must be sorted by t's order and include
 * every node t holds, each shown as pred(node, ctx) says (NULL: all
 * shown).  O(n): the nodes' old links are overwritten rather than undone
 * first (a walk that unlinks every node, scattered in memory, would be
 * most of the time at 100,000).
 */
void ostree_relink(struct ostree *t, struct ostree_node **nodes, size_t nr,
		   ostree_pred_fn *pred, void *pctx);
/* Shows every node: O(1) (see all_shown). */
void ostree_show_all(struct ostree *t);
/* Sets every node's shown flag to pred(node, ctx).  O(n). */
void ostree_refilter(struct ostree *t, ostree_pred_fn *pred, void *ctx);
/*
 * The same for a pred that shows no node the last one hid (a filter
 * narrowed: "pod-1" after "pod-"): only the shown nodes are asked, and
 * subtrees with none are skipped.  O(shown + their paths).
 */
void ostree_refilter_shown(struct ostree *t, ostree_pred_fn *pred, void *ctx);

/*
 * Every count made again from the nodes' shown flags as they are, after
 * the caller set them itself (n->shown); every flag must have been set
 * when all_shown was (they were stale).  O(n), bottom up from the leaves
 * rather than in the tree's order: nodes[0, nr) are every node of t, in
 * the order the caller reads them fastest (memory order); queue has room
 * for nr.  Each node is then read once in that order and once when its
 * subtree is counted, and many such reads are independent (fetched
 * ahead), where a walk of the tree waits for each left child in turn.
 */
void ostree_recount_nodes(struct ostree *t, struct ostree_node *const *nodes, size_t nr,
			  struct ostree_node **queue);

/* In order, hidden nodes too: the first node, and the one after n. */
struct ostree_node *ostree_first(const struct ostree *t);
struct ostree_node *ostree_next(const struct ostree_node *n);

/*
 * Checks every invariant (order, priorities, counts, links); returns 0,
 * or -1 with why in buf.  O(n): for tests.
 */
int ostree_check(const struct ostree *t, char *buf, size_t size);

#endif

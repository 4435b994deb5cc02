/*
 * table_state.h — the TUI table's state, one a tab, and how every key
 * costs the same at 100,000 rows as at ten, under a thousand deltas a
 * second:
 *
 *   - The order is an order-statistic treap (lib/ostree.h) whose nodes
 *     are embedded in the model's rows: it points into the model, which
 *     points into the Indexer's objects; no row or object is copied.  It
 *     holds every row, and the filter (`/`, `n`) is a shown flag per node
 *     with the shown count of each subtree, so that the k-th row on
 *     screen is found by rank in O(log n), skipping the hidden ones, and
 *     the title's counts are exact at every frame.
 *   - Each delta moves its row: out of the tree and in again with its new
 *     key and flag, O(log n) (the model's row_hook, below).  Nothing is
 *     ever sorted again because rows changed.
 *   - A comparison never reads JSON: a key is read from the row (its key,
 *     last delta and time), its object's resourceVersion, its kind's kept
 *     key (below) or its cells, as far as the comparison needs
 *     (sort_num(), sort_text()); nothing of it is stored per row but the
 *     kept keys.  Sorted by NAMESPACE or NAME (the default), an update
 *     leaves its row in place.
 *   - The kind's cells (READY, STATUS...) cost a read of the object: a
 *     pod's one scan of its text (output/pod_scan.h: 4 us for one of
 *     kube-sim's, against 13 for the tree of the members the cells read,
 *     kobj_tree_pick, what any other kind still costs), most of what a
 *     delta costs the TUI: they are kept for the rows drawn only (packed,
 *     one allocation a row, no reference to the object).  To sort by
 *     one, each row keeps instead a 16-bit id per column of its cell's
 *     text in a table of the column's distinct values (lib/valtab.h: a
 *     few hundred texts over 100,000 rows; 2 bytes a row a column, in
 *     the row's slab item).  They are made from sync on in the loop's
 *     idle slices, then by each delta for its row, so that a sort by
 *     one orders the few values and then the rows by their value's place
 *     in one radix pass, with no read of an object.  A column with more
 *     distinct values than ids (or past the first KEYS_MAX) is sorted by
 *     its cells: the first such sort makes every row's (O(n) reads, once
 *     a session), then each delta its row's.
 *   - A new sort (s, S, <, >, Shift+letter) builds the tree again: each
 *     row's key made again, then a radix sort of 16-byte items (a 64-bit
 *     piece of the key and the row, lib/keysort.h): the first piece of
 *     every row, then the next piece for the rows tied on it only (a
 *     text seven bytes at a time, the row's key last), and a linear
 *     build.  O(n × pieces), no comparison callback but for runs of a
 *     few rows, no allocation per row; one order is kept, not one per
 *     column, since one more would cost 40 bytes a row.
 *   - The screen shows one page of it: with the cursor on top, a new
 *     sort is answered with its first page (the first piece of every row,
 *     then only the tied runs the page's rows are in), drawn at once; the
 *     other runs and the tree's build follow in slices of the loop's idle
 *     time, and the rows that change meanwhile are placed after the build
 *     (struct pending).  The key pass reads the rows in their order in
 *     memory, names from the row's key, not from its object, and in a
 *     pass per level of pointers (the rows, then the texts they point
 *     at), so that each read is fetched ahead.  With a filter (set before
 *     the sort or typed while it is a page), every row's flag is set in
 *     one pass and the page is the first shown rows: the runs they are in
 *     are sorted as a walk from the top meets them, the others left to
 *     the slices.
 *   - A filter cleared shows every row at once (ostree_show_all(), O(1):
 *     the flags are set again by the next filter).  A new filter sets
 *     every flag in one pass, O(n): the rows in memory order, then what
 *     the filter reads of each (its key; its object's namespace and
 *     labels), and the counts are made again after, or only the flags
 *     that changed are set when few did.  A text without regex syntax is
 *     found with strcasestr, not regexec; a label filter is matched once
 *     per distinct label set.
 *
 * Drawing reads only the rows on screen: O(rows shown × log n).
 *
 * The table is three files over this state: tui_table.c (the order, the
 * filter, a new sort's first page and the slices after it), table_cells.c
 * (the kind's cells of a row and its kept keys) and table_draw.c (the
 * view: its state made and freed, drawing, keys).
 * Everything runs on the terminal thread.
 */
#ifndef KINF_TABLE_STATE_H
#define KINF_TABLE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/keysort.h"
#include "lib/ostree.h"
#include "lib/scratch.h"
#include "lib/strbuf.h"
#include "lib/valtab.h"
#include "tui/tui_view.h"

#define MAX_SORT 24
#define KEYS_MAX 8	/* a kind's columns kept as keys, at most */

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

/*
 * The kind's cells of the rows that have them, by row: each packed
 * "READY\0STATUS\0...\0" (cells_make()), after a struct cells_head in
 * its allocation.  Read through cells_of(), cells_current() and
 * cells_age().  A map beside the rows, not a pointer in each: most rows
 * never have cells (only those drawn, or every row once sorted by a
 * column not kept as keys), and the pointer was a word of every row's
 * (a pod row's slab item 72 bytes without it, 80 with).  row.has_cells
 * says which rows have an entry, so that the others cost no probe.
 * Open addressing by the row's address, linear probing, at most half
 * full, deletion by backward shift.  No reference to the object the
 * cells were made of: an old version is not kept alive for its cells.
 */
struct cells {
	struct cells_slot {
		const struct row *row;	/* NULL: free */
		char *text;		/* the allocation: struct cells_head, then the cells */
	} *slots;
	size_t cap, nr;			/* cap: 0 or a power of two */
};

struct cells_head {
	unsigned version;	/* the row's, when they were made */
	uint32_t ds;		/* monotonic 1/10 s, when they were made: AGE moves on */
};

/* The table's own state, one a tab (tab->pane[PANE_TABLE]). */
struct table_state {
	struct tui *t;		/* for the namespace filter */
	/* Every row of the model in the sort's order; the filtered out hidden. */
	struct ostree order;
	bool order_stale;	/* the sort changed: build it again before reading */
	bool filter_stale;	/* a filter changed: set every flag again */
	/*
	 * The kind's columns' headers (between NAME and RV), names_nr of
	 * them: what each row's cells are of, fixed for the table's life
	 * (see "the kind's columns" above).
	 */
	const char *const *names;
	size_t names_nr;
	/*
	 * Every row's cells are made with each delta, from the first sort by
	 * one of the kind's columns that is not kept as keys (below) on;
	 * until then only the rows drawn have theirs (a cell costs a parse of
	 * the object: most of what a delta would cost the TUI).
	 */
	bool cells_live;
	struct cells cells;	/* the rows' cells, of the rows that have them */
	/*
	 * The kind's columns kept as sort keys: each row's kind_key[c] is the
	 * id of its cell's text in key_vals[c] (2 bytes a row a column, not
	 * the cells' ~50), so that a sort by one is a pass over the rows and
	 * a sort of the few distinct texts (struct keys, below): the first
	 * key_nr of names (0: none kept).  From sync on (or the first sort
	 * by one), keys_live: each delta makes its row's keys, and the
	 * loop's idle slices make the others' (keys_sweep()) until
	 * keys_swept.  A column whose values filled their table is sorted
	 * the old way (cells_live).
	 */
	size_t key_nr;
	struct valtab key_vals[KEYS_MAX];
	bool keys_live, keys_swept;
	size_t sweep_iter;
	uint32_t *key_ord;		/* valtab_order()'s, of the sort's column */
	struct strbuf cells_scratch;	/* keys_make()'s cells, not kept */
	uint64_t seen_filter_gen;	/* t->filter_gen the flags are of */
	/* The text filter ("": none) and the namespace the flags are of. */
	bool flags_literal;
	char flags_text[256], flags_ns[256];
	/* The row under the cursor when it last moved or a frame was drawn:
	 * the cursor follows it as rows move.  NULL: none. */
	struct row *sel;
	struct scroll scroll;
	int sort;		/* column: SORT_* */
	bool sort_desc;
	int height;		/* rows shown last frame (for PgUp/PgDn) */
	struct strbuf cells_text;	/* cells_make()'s: an object's text unpacked */
	/* A new sort whose first page is known and whose order is not yet
	 * built (NULL: none); see struct pending. */
	struct pending *pend;
	/*
	 * The arrays of a sort (its items, tmp and runs) and of a filter
	 * (its items: never while a sort is pending), kept while keys come
	 * and given back a while after (table_tick()); see lib/scratch.h.
	 */
	struct scratch mem;
};

/*
 * A new sort answered with its first page: the screen needs the rows it
 * shows, not all 100,000 in order, so the sort sorts a window, the page
 * (keysort_window()), and the frame is drawn from it; the rest of the
 * order (the runs of rows tied past the page, then the tree's build) is
 * made in slices of the loop's idle time (table_work()).
 *
 * Meanwhile: the tree holds the old order, unread (its structure only, so
 * that the build can empty it); every row is shown (a page is made only
 * with no filter, so the title's counts are the model's, exact); a row
 * that changes (a delta, its cells made again) is not moved but noted in
 * changed, and placed by its new key after the build, as a delta is.  A
 * row is never freed meanwhile: the hook finishes the sort first.  What
 * needs a row past the page, the cursor moved, a filter, finishes it
 * first; a new sort drops it.
 */
struct pending {
	struct keysort_item *items, *tmp;	/* the rows, ascending */
	size_t nr;
	size_t known;		/* the page: this many rows from the top are in place */
	/* Left by keysort_window(), in the order of their places, from
	 * runs_done on; one a filtered page sorted is RUN_SORTED. */
	struct keysort_run *runs;
	size_t runs_nr, runs_done;
	struct row **changed;	/* changed since their keys were made; repeats allowed */
	size_t changed_nr, changed_alloc;
	/*
	 * With a filter (or a namespace): every row's shown flag is set by it
	 * (the tree's flags, which its build keeps), shown of them, and the
	 * page is the first page_nr shown rows in order.
	 */
	bool filtered;
	size_t shown;
	struct row **page;
	size_t page_nr;
};

#define RUN_SORTED KEYSORT_DONE	/* a run's stage, once a filtered page sorted it */

static inline struct table_state *ts(const struct tab *tab)
{
	return tab->pane[PANE_TABLE];
}

static inline struct row *row_of(const struct ostree_node *n)
{
	return n ? (struct row *)((char *)n - offsetof(struct row, order)) : NULL;
}

#endif

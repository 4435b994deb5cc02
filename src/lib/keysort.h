/*
 * keysort.h — sorting many things by keys made of 64-bit pieces, without
 * a comparison callback per pair: an LSD radix sort of 16-byte items
 * (a key and a pointer), then, for each run of equal keys only, the next
 * piece of the key of each of the run's items, sorted the same way.
 *
 * Why: a table of 100,000 rows is sorted at each key press.  qsort with
 * a comparator reads the rows (scattered in memory) O(n log n) times;
 * here each row is read once per piece its run needs, and the sorting
 * itself reads a contiguous array of items.  Most keys are decided by
 * their first piece or two.
 *
 * A key is a sequence of pieces: stage 0 first, then whatever
 * next(stage, piece) says for a run whose items all had that piece.  So
 * that a text is cut into pieces in its order (a shorter text first when
 * it is a prefix of a longer one, even one followed by NUL bytes), use
 * keysort_text(): seven bytes and how many are left, at most 8, so that
 * a run tied on a piece that ends its texts holds equal texts.
 *
 * No allocation: the caller passes the items and room for as many.  Not
 * thread-safe per call (no state is shared between calls).
 */
#ifndef KINF_KEYSORT_H
#define KINF_KEYSORT_H

#include <stddef.h>
#include <stdint.h>

struct keysort_item {
	uint64_t key;
	void *p;
};

/* Sorts a[0, n) by key, ascending, stable.  tmp: room for n items. */
void keysort_radix(struct keysort_item *a, struct keysort_item *tmp, size_t n);

#define KEYSORT_DONE UINT32_MAX	/* next(): items tied here are equal */

struct keysort_ops {
	/* The piece of p's key at stage. */
	uint64_t (*piece)(const void *p, uint32_t stage, void *ctx);
	/* The stage after one whose tied items all had piece, or KEYSORT_DONE. */
	uint32_t (*next)(uint32_t stage, uint64_t piece, void *ctx);
	/*
	 * The whole order (negative, 0, positive), for runs too short to be
	 * worth a radix pass: it must agree with the pieces.  NULL: none.
	 */
	int (*cmp)(const void *a, const void *b, void *ctx);
	/*
	 * A hint that piece(p, stage) comes soon: level 0 a few items ahead
	 * (p's own memory), level 1 fewer (what p points to, p in the cache
	 * by then).  The items are scattered in memory: waiting for each in
	 * turn is most of a sort's time.  NULL: none.
	 */
	void (*prefetch)(const void *p, uint32_t stage, int level, void *ctx);
	void *ctx;
};

/*
 * Sorts a[0, n) (their p; key is overwritten) by the pieces of their
 * keys, from stage 0.  tmp: room for n items.  Items whose pieces are all
 * equal keep their order.
 */
void keysort(struct keysort_item *a, struct keysort_item *tmp, size_t n,
	     const struct keysort_ops *ops);
/*
 * The same from stage, with each a[i].key already piece(a[i].p, stage):
 * for a caller that can make the first piece while the item is at hand
 * (and knows the stages before are all equal), one pass over the items
 * fewer.
 */
void keysort_from(struct keysort_item *a, struct keysort_item *tmp, size_t n,
		  uint32_t stage, const struct keysort_ops *ops);

/*
 * A run of items tied on their pieces so far, left for later by
 * keysort_window(): a[off, off + n) is to be sorted from stage.
 */
struct keysort_run {
	size_t off, n;
	uint32_t stage;
};

/*
 * keysort_from() for positions [lo, hi) only: afterwards a[lo, hi) hold
 * the items a full sort would put there, in its order, and every item is
 * in the run of positions it belongs to.  Why: a table shows one page of
 * a sort; the rest can wait.  A run of tied items that lies wholly
 * outside [lo, hi) is not sorted past the pieces it is tied on but
 * written to runs (room for n / 2 + 1: a run has two items or more, and
 * runs do not overlap); *runs_nr says how many.  keysort_run() on each,
 * in any order, with a and tmp as they were (the items' p still valid),
 * ends in keysort_from()'s order.
 */
void keysort_window(struct keysort_item *a, struct keysort_item *tmp, size_t n,
		    uint32_t stage, const struct keysort_ops *ops, size_t lo, size_t hi,
		    struct keysort_run *runs, size_t *runs_nr);
/* Sorts one run keysort_window() left: a and tmp are the whole arrays. */
void keysort_run(struct keysort_item *a, struct keysort_item *tmp,
		 const struct keysort_run *run, const struct keysort_ops *ops);

/*
 * The piece of text s (len bytes) from byte off: s[off, off + 7) as the
 * high 7 bytes, big-endian, 0-padded, and in the low byte how many bytes
 * are left from off, at most 8 (8: the text goes on past this piece).
 * Pieces compare as the texts do (memcmp, then the shorter first).
 */
uint64_t keysort_text(const char *s, size_t len, size_t off);
#define KEYSORT_TEXT_STEP 7
/* The same of a NUL-terminated s that is at least off bytes long: it reads
 * no byte past the NUL (no strlen of the whole). */
uint64_t keysort_str(const char *s, size_t off);
/* Whether a run tied on this text piece goes on to the next (off + 7). */
static inline int keysort_text_more(uint64_t piece)
{
	return (piece & 0xff) == 8;
}

/* A signed integer as a key that sorts as the integers do. */
static inline uint64_t keysort_i64(int64_t v)
{
	return (uint64_t)v ^ (1ULL << 63);
}

#endif

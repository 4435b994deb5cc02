/* keysort.c — radix sorts of keys in 64-bit pieces; see keysort.h. */
#include "lib/keysort.h"

#include <stdbool.h>
#include <string.h>

#define SMALL 24	/* a run this short is sorted by insertion */
#define PREFETCH_FAR 16	/* items ahead, for ops->prefetch() */
#define PREFETCH_NEAR 8

static void insertion_by_key(struct keysort_item *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct keysort_item x = a[i];
		size_t j = i;
		while (j && a[j - 1].key > x.key) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

void keysort_radix(struct keysort_item *a, struct keysort_item *tmp, size_t n)
{
	size_t count[8][256];
	struct keysort_item *src = a, *dst = tmp;

	if (n <= SMALL) {
		insertion_by_key(a, n);
		return;
	}
	/* Every byte's histogram in one pass; a byte all items share costs
	 * no pass (the first bytes of most keys, all of a constant one). */
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < 8; b++)
			count[b][(a[i].key >> (b * 8)) & 0xff]++;
	for (unsigned b = 0; b < 8; b++) {
		size_t *c = count[b], sum = 0;
		if (c[(a[0].key >> (b * 8)) & 0xff] == n)
			continue;
		for (unsigned v = 0; v < 256; v++) {
			size_t k = c[v];
			c[v] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i].key >> (b * 8)) & 0xff]++] = src[i];
		struct keysort_item *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

static void insertion_by_cmp(struct keysort_item *a, size_t n, const struct keysort_ops *ops)
{
	for (size_t i = 1; i < n; i++) {
		struct keysort_item x = a[i];
		size_t j = i;
		while (j && ops->cmp(a[j - 1].p, x.p, ops->ctx) > 0) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

/*
 * What keysort_window() sorts now, and where it writes the runs it
 * leaves; NULL (every other entry point): everything is sorted.
 */
struct window {
	size_t lo, hi;
	struct keysort_run *runs;
	size_t nr;
};

static void sort_stage(struct keysort_item *a, struct keysort_item *tmp, size_t n,
		       size_t base, uint32_t stage, const struct keysort_ops *ops,
		       struct window *w);

/*
 * a's keys are the pieces of stage: sorts by them, then each tied run on,
 * but for a run wholly outside w's window, which is left in w->runs.
 * base: where a is in the whole array.
 */
static void sort_pieces(struct keysort_item *a, struct keysort_item *tmp, size_t n,
			size_t base, uint32_t stage, const struct keysort_ops *ops,
			struct window *w)
{
	keysort_radix(a, tmp, n);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && a[j].key == a[i].key; j++)
			;
		if (j - i < 2)
			continue;
		uint32_t next = ops->next(stage, a[i].key, ops->ctx);
		if (next == KEYSORT_DONE)
			continue;
		if (w && (base + j <= w->lo || base + i >= w->hi))
			w->runs[w->nr++] = (struct keysort_run){ base + i, j - i, next };
		else
			sort_stage(a + i, tmp + i, j - i, base + i, next, ops, w);
	}
}

/* The depth is the number of pieces a run tied on: a few per key. */
static void sort_stage(struct keysort_item *a, struct keysort_item *tmp, size_t n,
		       size_t base, uint32_t stage, const struct keysort_ops *ops,
		       struct window *w)
{
	if (n < 2)
		return;
	if (n <= SMALL && ops->cmp) {
		insertion_by_cmp(a, n, ops);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (ops->prefetch && i + PREFETCH_FAR < n)
			ops->prefetch(a[i + PREFETCH_FAR].p, stage, 0, ops->ctx);
		if (ops->prefetch && i + PREFETCH_NEAR < n)
			ops->prefetch(a[i + PREFETCH_NEAR].p, stage, 1, ops->ctx);
		a[i].key = ops->piece(a[i].p, stage, ops->ctx);
	}
	sort_pieces(a, tmp, n, base, stage, ops, w);
}

void keysort(struct keysort_item *a, struct keysort_item *tmp, size_t n,
	     const struct keysort_ops *ops)
{
	sort_stage(a, tmp, n, 0, 0, ops, NULL);
}

void keysort_from(struct keysort_item *a, struct keysort_item *tmp, size_t n,
		  uint32_t stage, const struct keysort_ops *ops)
{
	if (n > 1)
		sort_pieces(a, tmp, n, 0, stage, ops, NULL);
}

void keysort_window(struct keysort_item *a, struct keysort_item *tmp, size_t n,
		    uint32_t stage, const struct keysort_ops *ops, size_t lo, size_t hi,
		    struct keysort_run *runs, size_t *runs_nr)
{
	struct window w = { lo, hi, runs, 0 };

	if (n > 1)
		sort_pieces(a, tmp, n, 0, stage, ops, &w);
	*runs_nr = w.nr;
}

void keysort_run(struct keysort_item *a, struct keysort_item *tmp,
		 const struct keysort_run *run, const struct keysort_ops *ops)
{
	sort_stage(a + run->off, tmp + run->off, run->n, run->off, run->stage, ops, NULL);
}

uint64_t keysort_text(const char *s, size_t len, size_t off)
{
	uint64_t k = 0;
	size_t left = len > off ? len - off : 0;

	for (size_t i = 0; i < KEYSORT_TEXT_STEP; i++)
		k = k << 8 | (i < left ? (unsigned char)s[off + i] : 0);
	return k << 8 | (left > 8 ? 8 : left);
}

uint64_t keysort_str(const char *s, size_t off)
{
	uint64_t k = 0;
	size_t left = 0;

	s += off;
	while (left < 8 && s[left])
		left++;
	for (size_t i = 0; i < KEYSORT_TEXT_STEP; i++)
		k = k << 8 | (i < left ? (unsigned char)s[i] : 0);
	return k << 8 | left;
}

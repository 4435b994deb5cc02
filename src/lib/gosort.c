/*
 * gosort.c — Go's sort.Sort, step for step; see gosort.h.
 *
 * Indexes are ptrdiff_t, as Go's ints: the partition loops run an index
 * one below a range's start.
 */
#include "lib/gosort.h"

#include <stdint.h>

typedef ptrdiff_t idx;

enum hint { HINT_UNKNOWN, HINT_INCREASING, HINT_DECREASING };

#define LESS(o, i, j) ((o)->less((o)->ctx, (size_t)(i), (size_t)(j)))
#define SWAP(o, i, j) ((o)->swap((o)->ctx, (size_t)(i), (size_t)(j)))

/* bits.Len: the bits needed for x, 0 for 0. */
static int bit_len(size_t x)
{
	int n = 0;

	for (; x; x >>= 1)
		n++;
	return n;
}

static void insertion_sort(const struct gosort_ops *o, idx a, idx b)
{
	for (idx i = a + 1; i < b; i++)
		for (idx j = i; j > a && LESS(o, j, j - 1); j--)
			SWAP(o, j, j - 1);
}

/* The heap property on [lo, hi) of the heap whose root is at first. */
static void sift_down(const struct gosort_ops *o, idx lo, idx hi, idx first)
{
	for (idx root = lo;;) {
		idx child = 2 * root + 1;
		if (child >= hi)
			return;
		if (child + 1 < hi && LESS(o, first + child, first + child + 1))
			child++;
		if (!LESS(o, first + root, first + child))
			return;
		SWAP(o, first + root, first + child);
		root = child;
	}
}

static void heap_sort(const struct gosort_ops *o, idx a, idx b)
{
	idx hi = b - a;

	for (idx i = (hi - 1) / 2; i >= 0; i--)
		sift_down(o, i, hi, a);
	for (idx i = hi - 1; i >= 0; i--) {
		SWAP(o, a, a + i);
		sift_down(o, 0, i, a);
	}
}

/* One partition around the pivot; *already: nothing had to move. */
static idx partition(const struct gosort_ops *o, idx a, idx b, idx pivot, bool *already)
{
	idx i = a + 1, j = b - 1;

	SWAP(o, a, pivot);
	while (i <= j && LESS(o, i, a))
		i++;
	while (i <= j && !LESS(o, j, a))
		j--;
	*already = i > j;
	if (i > j) {
		SWAP(o, j, a);
		return j;
	}
	SWAP(o, i, j);
	for (i++, j--;; i++, j--) {
		while (i <= j && LESS(o, i, a))
			i++;
		while (i <= j && !LESS(o, j, a))
			j--;
		if (i > j)
			break;
		SWAP(o, i, j);
	}
	SWAP(o, j, a);
	return j;
}

/* [a, b) into what equals the pivot, then what is greater. */
static idx partition_equal(const struct gosort_ops *o, idx a, idx b, idx pivot)
{
	idx i = a + 1, j = b - 1;

	SWAP(o, a, pivot);
	for (;; i++, j--) {
		while (i <= j && !LESS(o, a, i))
			i++;
		while (i <= j && LESS(o, a, j))
			j--;
		if (i > j)
			return i;
		SWAP(o, i, j);
	}
}

/* Moves what is out of place, at most 5 pairs; true if [a, b) is sorted. */
static bool partial_insertion_sort(const struct gosort_ops *o, idx a, idx b)
{
	idx i = a + 1;

	for (int step = 0; step < 5; step++) {
		while (i < b && !LESS(o, i, i - 1))
			i++;
		if (i == b)
			return true;
		if (b - a < 50)
			return false;
		SWAP(o, i, i - 1);
		/* Go's loop runs down to 1, not to a */
		if (i - a >= 2)
			for (idx j = i - 1; j >= 1 && LESS(o, j, j - 1); j--)
				SWAP(o, j, j - 1);
		if (b - i >= 2)
			for (idx j = i + 1; j < b && LESS(o, j, j - 1); j++)
				SWAP(o, j, j - 1);
	}
	return false;
}

/* Three swaps near the middle, placed by Go's 64-bit xorshift seeded with the length. */
static void break_patterns(const struct gosort_ops *o, idx a, idx b)
{
	idx len = b - a;

	if (len < 8)
		return;
	uint64_t random = (uint64_t)len;
	uint64_t mask = ((uint64_t)1 << bit_len((size_t)len)) - 1;
	for (idx at = a + (len / 4) * 2 - 1; at <= a + (len / 4) * 2 + 1; at++) {
		random ^= random << 13;
		random ^= random >> 7;
		random ^= random << 17;
		idx other = (idx)(random & mask);
		if (other >= len)
			other -= len;
		SWAP(o, at, a + other);
	}
}

static void order2(const struct gosort_ops *o, idx *x, idx *y, int *swaps)
{
	if (LESS(o, *y, *x)) {
		idx t = *x;
		*x = *y;
		*y = t;
		(*swaps)++;
	}
}

static idx median(const struct gosort_ops *o, idx a, idx b, idx c, int *swaps)
{
	order2(o, &a, &b, swaps);
	order2(o, &b, &c, swaps);
	order2(o, &a, &b, swaps);
	return b;
}

static idx choose_pivot(const struct gosort_ops *o, idx a, idx b, enum hint *hint)
{
	idx l = b - a, i = a + l / 4, j = a + l / 4 * 2, k = a + l / 4 * 3;
	int swaps = 0;

	if (l >= 8) {
		if (l >= 50) {		/* Tukey's ninther */
			i = median(o, i - 1, i, i + 1, &swaps);
			j = median(o, j - 1, j, j + 1, &swaps);
			k = median(o, k - 1, k, k + 1, &swaps);
		}
		j = median(o, i, j, k, &swaps);
	}
	*hint = swaps == 0 ? HINT_INCREASING : swaps == 12 ? HINT_DECREASING : HINT_UNKNOWN;
	return j;
}

static void reverse_range(const struct gosort_ops *o, idx a, idx b)
{
	for (idx i = a, j = b - 1; i < j; i++, j--)
		SWAP(o, i, j);
}

static void pdqsort(const struct gosort_ops *o, idx a, idx b, int limit)
{
	bool balanced = true, partitioned = true;

	for (;;) {
		idx len = b - a;
		if (len <= 12) {
			insertion_sort(o, a, b);
			return;
		}
		if (!limit) {
			heap_sort(o, a, b);
			return;
		}
		if (!balanced) {
			break_patterns(o, a, b);
			limit--;
		}
		enum hint hint;
		idx pivot = choose_pivot(o, a, b, &hint);
		if (hint == HINT_DECREASING) {
			reverse_range(o, a, b);
			pivot = (b - 1) - (pivot - a);
			hint = HINT_INCREASING;
		}
		if (balanced && partitioned && hint == HINT_INCREASING &&
		    partial_insertion_sort(o, a, b))
			return;
		if (a > 0 && !LESS(o, a - 1, pivot)) {
			a = partition_equal(o, a, b, pivot);
			continue;
		}
		idx mid = partition(o, a, b, pivot, &partitioned);
		idx left = mid - a, right = b - mid;
		if (left < right) {
			balanced = left >= len / 8;
			pdqsort(o, a, mid, limit);
			a = mid + 1;
		} else {
			balanced = right >= len / 8;
			pdqsort(o, mid + 1, b, limit);
			b = mid;
		}
	}
}

void gosort(const struct gosort_ops *ops, size_t n)
{
	if (n > 1)
		pdqsort(ops, 0, (idx)n, bit_len(n));
}

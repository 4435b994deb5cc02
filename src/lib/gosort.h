/*
 * gosort.h — Go's sort.Sort, the very order it leaves: the
 * pattern-defeating quicksort Go's sort package uses since Go 1.19
 * (insertion sort up to 12 elements, median-of-three or Tukey's ninther
 * pivots, a partial insertion sort for runs already sorted, a partition
 * of equal elements, xorshift pattern breaking seeded by the length, and
 * heapsort when pivots keep going bad), with the xorshift of Go 1.24 and
 * later (shifts 13, 7, 17; 13, 17, 5 before): kubectl 1.33's and later's.
 * kubectl 1.32 and earlier, built with Go 1.23, leave ties elsewhere once
 * a long list's partitions fall out of balance.
 *
 * Why: kubectl's --sort-by is sort.Sort over a Less that is no strict
 * order (two objects without the field are each less than the other),
 * so where ties and missing values land is the algorithm's, and
 * matching kubectl byte for byte means running the same algorithm, with
 * the same calls to less and swap in the same order.
 *
 * The caller's less(i, j) and swap(i, j) work on its own array; no
 * allocation; not thread-safe per call only in what ctx shares.
 */
#ifndef KINF_GOSORT_H
#define KINF_GOSORT_H

#include <stdbool.h>
#include <stddef.h>

struct gosort_ops {
	bool (*less)(void *ctx, size_t i, size_t j);
	void (*swap)(void *ctx, size_t i, size_t j);
	void *ctx;
};

/* Sorts elements [0, n) as sort.Sort(data) with data.Len() == n. */
void gosort(const struct gosort_ops *ops, size_t n);

#endif

/*
 * test_gosort.c — lib/gosort leaves every input in the order Go's
 * sort.Sort leaves it (the orders in tests/fixtures/gosort/orders.inc,
 * made by Go itself, gen.go beside them), under kubectl's --sort-by Less,
 * which is no strict order: where ties and missing values land is the
 * algorithm's own.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/gosort.h"
#include "lib/util.h"
#include "unit.h"

static const char *const orders[] = {
#include "../fixtures/gosort/orders.inc"
};

/* kubectl's Less over ints: below 0 is missing; ties by v/10 */
static bool less(void *ctx, size_t i, size_t j)
{
	const long *v = ctx;

	if (v[i] < 0)
		return true;
	if (v[j] < 0)
		return false;
	return v[i] / 10 < v[j] / 10;
}

static void swap(void *ctx, size_t i, size_t j)
{
	long *v = ctx, t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/* The numbers after word ("IN" or "OUT") up to '|' or the end. */
static size_t numbers(const char *s, const char *word, long *out)
{
	size_t n = 0;
	char *end;

	s = strstr(s, word) + strlen(word);
	for (long x = strtol(s, &end, 10); end != s; x = strtol(s, &end, 10)) {
		out[n++] = x;
		s = end;
	}
	return n;
}

TEST(orders_are_go_sort_sorts)
{
	static long in[1000], out[1000];

	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		size_t n = numbers(orders[i], "IN", in), m = numbers(orders[i], "OUT", out);
		CHECK_INT(n, m);
		gosort(&(struct gosort_ops){ less, swap, in }, n);
		CHECKF(!memcmp(in, out, n * sizeof(*in)), "input %zu (%zu values): %s", i, n,
		       orders[i]);
	}
}

int main(void)
{
	RUN(orders_are_go_sort_sorts);
	return unit_done();
}

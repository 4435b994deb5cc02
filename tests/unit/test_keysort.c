/*
 * test_keysort.c — the radix sorts against qsort on random keys: ties,
 * negative numbers, texts that are prefixes of others or hold NUL bytes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/keysort.h"
#include "unit.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* An integer key and where it was, so that stability shows. */
struct ival {
	int64_t v;
	size_t at;
};

static int cmp_ival(const void *pa, const void *pb)
{
	const struct ival *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* n values among spread distinct ones around 0 (spread 0: any 64 bits). */
static int radix_against_qsort(size_t n, uint64_t spread)
{
	struct ival *v = malloc(n * sizeof(*v)), *want = malloc(n * sizeof(*want));
	struct keysort_item *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*tmp));
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = rnd64();
		v[i].v = spread ? (int64_t)(r % spread) - (int64_t)(spread / 2) : (int64_t)r;
		v[i].at = i;
		a[i] = (struct keysort_item){ keysort_i64(v[i].v), &v[i] };
	}
	if (n)
		memcpy(want, v, n * sizeof(*v));
	keysort_radix(a, tmp, n);
	qsort(want, n, sizeof(*want), cmp_ival);
	/* The same values in the same places: stable, as the places break ties. */
	for (size_t i = 0; i < n; i++) {
		const struct ival *x = a[i].p;
		bad |= a[i].key != keysort_i64(want[i].v) || x->at != want[i].at;
	}
	free(v);
	free(want);
	free(a);
	free(tmp);
	return bad;
}

TEST(radix_sorts_as_qsort_does)
{
	static const size_t sizes[] = { 0, 1, 2, 7, 24, 25, 100, 1000, 50000 };
	static const uint64_t spreads[] = { 0, 1, 3, 50, 1000, 1ULL << 40 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		for (size_t j = 0; j < sizeof(spreads) / sizeof(*spreads); j++)
			CHECKF(!radix_against_qsort(sizes[i], spreads[j]),
			       "%zu keys among %llu values out of order", sizes[i],
			       (unsigned long long)spreads[j]);
}

/* A record sorted by a number, then a text (with NULs), then a unique id. */
struct rec {
	int64_t num;
	char text[24];
	size_t len;
	char id[24];
};

static int cmp_rec(const struct rec *a, const struct rec *b)
{
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->text, b->text, n);
	if (c || a->len != b->len)
		return c ? c : a->len < b->len ? -1 : 1;
	return strcmp(a->id, b->id);
}

static int cmp_rec_q(const void *a, const void *b)
{
	return cmp_rec(*(const struct rec *const *)a, *(const struct rec *const *)b);
}

static int cmp_rec_ks(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return cmp_rec(a, b);
}

enum { ST_NUM, ST_TEXT, ST_ID = 1000 };

static uint64_t rec_piece(const void *p, uint32_t stage, void *ctx)
{
	const struct rec *r = p;

	(void)ctx;
	if (stage == ST_NUM)
		return keysort_i64(r->num);
	if (stage < ST_ID)
		return keysort_text(r->text, r->len, (stage - ST_TEXT) * KEYSORT_TEXT_STEP);
	return keysort_text(r->id, strlen(r->id), (stage - ST_ID) * KEYSORT_TEXT_STEP);
}

static uint32_t rec_next(uint32_t stage, uint64_t piece, void *ctx)
{
	(void)ctx;
	if (stage == ST_NUM || keysort_text_more(piece))
		return stage + 1;
	return stage < ST_ID ? ST_ID : KEYSORT_DONE;
}

/* Texts from a small alphabet with NULs, of lengths 0-23: many prefixes. */
static int pieces_against_qsort(size_t n, bool with_cmp)
{
	struct rec *recs = calloc(n, sizeof(*recs));
	struct rec **want = malloc(n * sizeof(*want));
	struct keysort_item *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*tmp));
	struct keysort_ops ops = { rec_piece, rec_next, with_cmp ? cmp_rec_ks : NULL, NULL, NULL };
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		struct rec *r = &recs[i];
		r->num = (int64_t)(rnd64() % 5) - 2;
		r->len = rnd64() % 24;
		for (size_t k = 0; k < r->len; k++)
			r->text[k] = "\0\1ab"[rnd64() % 4];
		snprintf(r->id, sizeof(r->id), "id-%zu", n - i);
		want[i] = r;
		a[i] = (struct keysort_item){ 0, r };
	}
	keysort(a, tmp, n, &ops);
	qsort(want, n, sizeof(*want), cmp_rec_q);
	for (size_t i = 0; i < n; i++)
		bad |= a[i].p != want[i];
	free(recs);
	free(want);
	free(a);
	free(tmp);
	return bad;
}

TEST(pieces_sort_as_the_whole_order)
{
	static const size_t sizes[] = { 0, 1, 2, 30, 500, 20000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		CHECKF(!pieces_against_qsort(sizes[i], false), "%zu records, pieces only",
		       sizes[i]);
		CHECKF(!pieces_against_qsort(sizes[i], true), "%zu records, cmp for short runs",
		       sizes[i]);
	}
}

TEST(text_pieces_order_prefixes_first)
{
	/* "ab" < "ab\0" < "ab\0\0" < "ab\1": a prefix first, whatever follows. */
	CHECK(keysort_text("ab", 2, 0) < keysort_text("ab\0", 3, 0));
	CHECK(keysort_text("ab\0", 3, 0) < keysort_text("ab\0\0", 4, 0));
	CHECK(keysort_text("ab\0\0", 4, 0) < keysort_text("ab\1", 3, 0));
	/* Past seven bytes both go on, tied, to the next piece. */
	CHECK(keysort_text("abcdefgh", 8, 0) == keysort_text("abcdefgzzz", 10, 0));
	CHECK(keysort_text_more(keysort_text("abcdefgh", 8, 0)));
	CHECK(!keysort_text_more(keysort_text("abcdefg", 7, 0)));
	CHECK(keysort_text("abcdefgh", 8, 7) < keysort_text("abcdefgzzz", 10, 7));
}

TEST(str_pieces_are_text_pieces)
{
	static const char *const strs[] = { "", "a", "abcdefg", "abcdefgh", "ns-1/pod-12345678" };

	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		for (size_t off = 0; off <= strlen(strs[i]); off += KEYSORT_TEXT_STEP)
			CHECKF(keysort_str(strs[i], off) == keysort_text(strs[i], strlen(strs[i]), off),
			       "\"%s\" from %zu", strs[i], off);
}

TEST(from_a_stage_with_its_pieces_made)
{
	enum { N = 3000 };
	struct rec *recs = calloc(N, sizeof(*recs));
	struct keysort_item *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	struct keysort_item *tmp = malloc(N * sizeof(*tmp));
	struct keysort_ops ops = { rec_piece, rec_next, NULL, NULL, NULL };
	size_t same = 0;

	for (size_t i = 0; i < N; i++) {
		recs[i].num = 7;	/* stage 0 all equal: from the text on */
		recs[i].len = rnd64() % 20;
		for (size_t k = 0; k < recs[i].len; k++)
			recs[i].text[k] = "\0ab"[rnd64() % 3];
		snprintf(recs[i].id, sizeof(recs[i].id), "%zu", i);
		a[i] = (struct keysort_item){ 0, &recs[i] };
		b[i] = (struct keysort_item){ rec_piece(&recs[i], ST_TEXT, NULL), &recs[i] };
	}
	keysort(a, tmp, N, &ops);
	keysort_from(b, tmp, N, ST_TEXT, &ops);
	for (size_t i = 0; i < N; i++)
		same += a[i].p == b[i].p;
	CHECK_INT(same, N);
	free(recs);
	free(a);
	free(b);
	free(tmp);
}

/*
 * A window's positions hold the full sort's items in its order before the
 * runs it left are sorted; after them (in any order: here last first),
 * every position does.
 */
static int window_against_full(size_t n, size_t lo, size_t hi, size_t *left)
{
	struct rec *recs = calloc(n, sizeof(*recs));
	struct keysort_item *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	struct keysort_item *tmp = malloc(n * sizeof(*tmp));
	struct keysort_run *runs = malloc((n / 2 + 1) * sizeof(*runs));
	struct keysort_ops ops = { rec_piece, rec_next, cmp_rec_ks, NULL, NULL };
	size_t runs_nr = 0;
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		struct rec *r = &recs[i];
		r->num = (int64_t)(rnd64() % 3);
		r->len = rnd64() % 16;
		for (size_t k = 0; k < r->len; k++)
			r->text[k] = "ab"[rnd64() % 2];
		snprintf(r->id, sizeof(r->id), "id-%zu", rnd64() % 1000000);
		snprintf(r->id + strlen(r->id), sizeof(r->id) - strlen(r->id), "-%zu", i);
		a[i] = (struct keysort_item){ 0, r };
		b[i] = (struct keysort_item){ rec_piece(r, ST_NUM, NULL), r };
	}
	keysort(a, tmp, n, &ops);
	keysort_window(b, tmp, n, ST_NUM, &ops, lo, hi, runs, &runs_nr);
	for (size_t i = lo; i < hi && i < n; i++)
		bad |= a[i].p != b[i].p;
	for (size_t i = 0; i < runs_nr; i++) {
		bad |= runs[i].off < hi && runs[i].off + runs[i].n > lo;	/* outside */
		bad |= runs[i].n < 2 || runs[i].off + runs[i].n > n;
	}
	for (size_t i = runs_nr; i--;)
		keysort_run(b, tmp, &runs[i], &ops);
	for (size_t i = 0; i < n; i++)
		bad |= (a[i].p != b[i].p) << 1;
	*left = runs_nr;
	free(recs);
	free(a);
	free(b);
	free(tmp);
	free(runs);
	return bad;
}

TEST(a_window_first_then_the_runs_it_left)
{
	static const size_t cases[][3] = {
		{ 20000, 0, 44 }, { 20000, 19956, 20000 }, { 20000, 9000, 9100 },
		{ 20000, 0, 20000 }, { 500, 0, 1 }, { 30, 0, 10 }, { 1, 0, 1 }, { 0, 0, 0 },
	};
	size_t left_any = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		size_t left = 0;
		int bad = window_against_full(cases[i][0], cases[i][1], cases[i][2], &left);
		CHECKF(!(bad & 1), "%zu items, [%zu, %zu): the window as the full sort's",
		       cases[i][0], cases[i][1], cases[i][2]);
		CHECKF(!(bad & 2), "%zu items, [%zu, %zu): after the runs, the full sort",
		       cases[i][0], cases[i][1], cases[i][2]);
		left_any += left;
	}
	/* The window did leave work for later (else it proves nothing). */
	CHECK(left_any > 0);
}

int main(void)
{
	RUN(radix_sorts_as_qsort_does);
	RUN(pieces_sort_as_the_whole_order);
	RUN(text_pieces_order_prefixes_first);
	RUN(a_window_first_then_the_runs_it_left);
	RUN(str_pieces_are_text_pieces);
	RUN(from_a_stage_with_its_pieces_made);
	return unit_done();
}

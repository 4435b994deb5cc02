/*
 * test_slab.c — the fixed-size allocator against the obvious model (a
 * table of the items handed out): random allocs and frees across many
 * chunks, each item zeroed, aligned, inside one of the slab's chunks,
 * distinct from every other live item, and untouched by other items'
 * traffic; freed items reused before a new chunk is taken; the walk in
 * memory order yields every live item once, and no other.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/slab.h"
#include "unit.h"

#define ITEM 44		/* rounded up to 48 */
#define SLOTS (3 * SLAB_CHUNK + 77)

static void *held[SLOTS];

static bool zeroed(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static bool in_chunks(const struct slab *s, const char *p)
{
	for (size_t i = 0; i < s->chunks_nr; i++)
		if (p >= s->chunks[i] && p < s->chunks[i] + SLAB_CHUNK * s->size)
			return (size_t)(p - s->chunks[i]) % s->size == 0;
	return false;
}

/* Every live item still holds the byte pattern of its slot. */
static size_t damaged(const struct slab *s)
{
	size_t bad = 0;

	for (size_t i = 0; i < SLOTS; i++) {
		if (!held[i])
			continue;
		unsigned char want[ITEM];
		memset(want, (int)(i & 0xff) | 1, sizeof(want));
		bad += memcmp(held[i], want, ITEM) != 0 || !in_chunks(s, held[i]);
	}
	return bad;
}

TEST(random_allocs_and_frees_keep_items_apart)
{
	struct slab s;
	size_t not_zero = 0, misaligned = 0;

	slab_init(&s, ITEM);
	CHECK_INT(s.size, 48);
	for (int round = 0; round < 20000; round++) {
		size_t i = unit_rand() % SLOTS;
		if (held[i]) {
			slab_free(&s, held[i]);
			held[i] = NULL;
			continue;
		}
		held[i] = slab_alloc(&s);
		not_zero += !zeroed(held[i], s.size);
		misaligned += (uintptr_t)held[i] % 8 != 0;
		memset(held[i], (int)(i & 0xff) | 1, ITEM);
	}
	CHECK_INT(not_zero, 0);
	CHECK_INT(misaligned, 0);
	CHECK_INT(damaged(&s), 0);
	/* Never more chunks than the most items live at once could need. */
	CHECK(s.chunks_nr <= (SLOTS + SLAB_CHUNK - 1) / SLAB_CHUNK);
	slab_release(&s);
	CHECK(s.chunks == NULL);
	memset(held, 0, sizeof(held));
}

TEST(a_freed_item_is_reused_before_a_new_chunk)
{
	struct slab s;
	void *a, *b, *c;

	slab_init(&s, 1);
	CHECK_INT(s.size, sizeof(void *));
	for (size_t i = 0; i < SLAB_CHUNK; i++)
		held[i] = slab_alloc(&s);
	CHECK_INT(s.chunks_nr, 1);
	a = held[3];
	b = held[SLAB_CHUNK - 1];
	slab_free(&s, a);
	slab_free(&s, b);
	c = slab_alloc(&s);
	CHECK(c == b);		/* the most recently freed first */
	CHECK(slab_alloc(&s) == a);
	CHECK_INT(s.chunks_nr, 1);
	CHECK(slab_alloc(&s) != NULL);
	CHECK_INT(s.chunks_nr, 2);
	slab_release(&s);
	memset(held, 0, sizeof(held));
}

/*
 * Every live item's id leads back to it, ids are distinct and dense (below
 * the chunks' items), and a chunk's first and last items are its ids'
 * ends.  Items of 8 bytes too: malloc's header between two chunks is then
 * two items' worth, so that an item taken for the chunk before is caught.
 */
static void check_ids(size_t size)
{
	struct slab s;
	size_t wrong = 0, dup = 0, out = 0;
	static unsigned char used[SLOTS + SLAB_CHUNK];

	slab_init(&s, size);
	for (size_t i = 0; i < SLOTS; i++)
		held[i] = slab_alloc(&s);
	for (int round = 0; round < 20000; round++) {
		size_t i = unit_rand() % SLOTS;
		if (held[i] && unit_rand() % 3 == 0) {
			slab_free(&s, held[i]);
			held[i] = NULL;
		} else if (!held[i]) {
			held[i] = slab_alloc(&s);
		}
	}
	memset(used, 0, sizeof(used));
	for (size_t i = 0; i < SLOTS; i++) {
		if (!held[i])
			continue;
		uint32_t id = slab_id(&s, held[i]);
		if (id >= s.chunks_nr * SLAB_CHUNK || id >= sizeof(used)) {
			out++;
			continue;
		}
		wrong += slab_at(&s, id) != held[i];
		dup += used[id]++ != 0;
	}
	for (size_t c = 0; c < s.chunks_nr; c++) {
		wrong += slab_id(&s, s.chunks[c]) != c * SLAB_CHUNK;
		wrong += slab_id(&s, s.chunks[c] + (SLAB_CHUNK - 1) * s.size) != (c + 1) * SLAB_CHUNK - 1;
	}
	CHECKF(out == 0 && wrong == 0 && dup == 0, "items of %zu bytes: %zu ids out of range, "
	       "%zu wrong, %zu twice", s.size, out, wrong, dup);
	CHECK(s.chunks_nr > 2);
	slab_release(&s);
	memset(held, 0, sizeof(held));
}

TEST(an_item_s_id_leads_back_to_it)
{
	check_ids(ITEM);
	check_ids(1);
}

/* Whether p is a live item of held[], and which: SLOTS when none. */
static size_t slot_of(const void *p)
{
	for (size_t i = 0; i < SLOTS; i++)
		if (held[i] == p)
			return i;
	return SLOTS;
}

TEST(the_walk_in_memory_order_yields_the_live_items_once)
{
	struct slab s;
	static unsigned char seen[SLOTS];
	size_t walked = 0, stray = 0, twice = 0, backwards = 0, missed = 0, iter = 0;
	const char *last = NULL;
	void *p;

	slab_init(&s, ITEM);
	iter = 0;
	CHECK(slab_next(&s, &iter) == NULL);	/* no chunk yet */
	for (int round = 0; round < 20000; round++) {
		size_t i = unit_rand() % SLOTS;
		if (held[i] && unit_rand() % 2) {
			slab_free(&s, held[i]);
			held[i] = NULL;
		} else if (!held[i]) {
			held[i] = slab_alloc(&s);
		}
	}
	iter = 0;
	while ((p = slab_next(&s, &iter))) {
		size_t i = slot_of(p);
		walked++;
		stray += i == SLOTS;
		twice += i < SLOTS && seen[i]++;
		backwards += last && (const char *)p <= last;
		last = p;
	}
	for (size_t i = 0; i < SLOTS; i++)
		missed += held[i] && !seen[i];
	CHECKF(!stray && !twice && !backwards && !missed,
	       "%zu walked: %zu not live, %zu twice, %zu out of order, %zu live missed",
	       walked, stray, twice, backwards, missed);
	CHECK(slab_next(&s, &iter) == NULL);	/* and stays at the end */
	slab_release(&s);
	memset(held, 0, sizeof(held));
}

int main(void)
{
	RUN(random_allocs_and_frees_keep_items_apart);
	RUN(a_freed_item_is_reused_before_a_new_chunk);
	RUN(an_item_s_id_leads_back_to_it);
	RUN(the_walk_in_memory_order_yields_the_live_items_once);
	return unit_done();
}

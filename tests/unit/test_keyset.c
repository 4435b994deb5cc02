/*
 * test_keyset.c — the set of self-keyed items against the obvious model
 * (a flag per item): random adds and removes through growth, shrinking and
 * backward shifts, then every key looked up, and iteration visiting each
 * member once.
 */
#include <stdio.h>
#include <string.h>

#include "lib/keyset.h"
#include "lib/slab.h"
#include "lib/util.h"
#include "unit.h"

#define ITEMS 3000

struct item {
	char key[24];
	bool in;
	bool seen;
};

/* Each from the slab the set's slots name them in. */
static struct item *items[ITEMS];
static struct slab slab;

/* ITEMS items from a new slab, a few freed and taken again between them,
 * so that ids and addresses are not in step. */
static void items_new(void)
{
	void *spare[64];

	slab_init(&slab, sizeof(struct item));
	for (size_t i = 0; i < ITEMS; i++) {
		if (i % 97 == 5)
			for (size_t j = 0; j < 64; j++)
				spare[j] = slab_alloc(&slab);
		items[i] = slab_alloc(&slab);
		if (i % 97 == 5)
			for (size_t j = 0; j < 64; j += 2)
				slab_free(&slab, spare[j]);
	}
}

static const char *item_key(const void *p)
{
	return ((const struct item *)p)->key;
}

static uint32_t rnd(void)
{
	static uint32_t x = 2463534242u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/* Every item is found when in, and only then; the count agrees. */
static void check_all(const struct keyset *set)
{
	size_t in = 0, wrong = 0;

	for (size_t i = 0; i < ITEMS; i++) {
		void *got = keyset_get(set, items[i]->key);
		in += items[i]->in;
		wrong += got != (items[i]->in ? items[i] : NULL);
	}
	CHECK_INT(wrong, 0);
	CHECK_INT(keyset_len(set), in);
}

TEST(random_adds_and_removes_agree_with_a_model)
{
	items_new();
	struct keyset set = KEYSET_INIT(item_key, &slab);

	for (size_t i = 0; i < ITEMS; i++)
		snprintf(items[i]->key, sizeof(items[i]->key), "ns-%zu/pod-%zu", i % 7, i);
	for (int round = 0; round < 4; round++) {
		/* Fill to most, then empty to few: the table grows and shrinks. */
		unsigned want = round % 2 ? 5 : 95;
		for (int step = 0; step < 4 * ITEMS; step++) {
			struct item *it = items[rnd() % ITEMS];
			bool add = rnd() % 100 < want;
			if (add && !it->in) {
				keyset_add(&set, it);
				it->in = true;
			} else if (!add) {
				CHECK(keyset_remove(&set, it->key) == (it->in ? it : NULL));
				it->in = false;
			}
		}
		check_all(&set);
	}
	CHECK(keyset_get(&set, "ns-0/absent") == NULL);
	CHECK(keyset_remove(&set, "ns-0/absent") == NULL);
	CHECK_INT(sizeof(*set.slots), 4);	/* an id, not a pointer */
	keyset_release(&set);
	slab_release(&slab);
}

TEST(next_visits_each_member_once_and_an_emptied_set_owns_nothing)
{
	items_new();
	struct keyset set = KEYSET_INIT(item_key, &slab);
	size_t iter = 0, visits = 0, wrong = 0;
	struct item *it;

	for (size_t i = 0; i < ITEMS; i++)
		snprintf(items[i]->key, sizeof(items[i]->key), "k%zu", i);
	for (size_t i = 0; i < ITEMS; i += 3) {
		keyset_add(&set, items[i]);
		items[i]->in = true;
	}
	while ((it = keyset_next(&set, &iter))) {
		wrong += !it->in || it->seen;
		it->seen = true;
		visits++;
	}
	CHECK_INT(wrong, 0);
	CHECK_INT(visits, keyset_len(&set));
	for (size_t i = 0; i < ITEMS; i += 3)
		CHECK(keyset_remove(&set, items[i]->key) == items[i]);
	CHECK(set.slots == NULL);
	CHECK_INT(set.cap, 0);
	keyset_release(&set);
	slab_release(&slab);
}

int main(void)
{
	RUN(random_adds_and_removes_agree_with_a_model);
	RUN(next_visits_each_member_once_and_an_emptied_set_owns_nothing);
	return unit_done();
}

/*
 * test_idtable.c — the table of ids in its three kinds (a set of ids, ids
 * by a key kept beside each, ids whose key is read back) against the
 * obvious model, a flag per item: random adds and removes through growth,
 * shrinking and backward shifts, every item looked up after each round,
 * and iteration visiting each member once.
 */
#include <stdio.h>
#include <string.h>

#include "lib/hashmap.h"
#include "lib/idtable.h"
#include "lib/slab.h"
#include "lib/util.h"
#include "unit.h"

#define ITEMS 3000

struct item {
	char key[24];
	bool in;
	bool seen;
};

/* Each from one slab, whose ids the tables hold. */
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
		snprintf(items[i]->key, sizeof(items[i]->key), "ns-%zu/pod-%zu", i % 7, i);
		if (i % 97 == 5)
			for (size_t j = 0; j < 64; j += 2)
				slab_free(&slab, spare[j]);
	}
}

static bool key_is(uint32_t id, const void *key, void *ctx)
{
	(void)ctx;
	return !strcmp(((struct item *)slab_at(&slab, id))->key, key);
}

static unsigned rehashes;

static uint32_t key_hash(const struct idtable *t, uint32_t id)
{
	(void)t;
	rehashes++;
	return hashmap_hash(((struct item *)slab_at(&slab, id))->key);
}

enum kind { IDSET, KEYED, REHASH };

static uint32_t id_of(const struct item *it)
{
	return slab_id(&slab, it);
}

/* The item's id if the table has it, else IDTABLE_NONE. */
static uint32_t find(const struct idtable *t, enum kind k, const struct item *it)
{
	if (k == IDSET)
		return idset_has(t, id_of(it)) ? id_of(it) : IDTABLE_NONE;
	return idtable_find(t, hashmap_hash(it->key), key_is, it->key, NULL);
}

static void add(struct idtable *t, enum kind k, const struct item *it)
{
	if (k == IDSET)
		idset_add(t, id_of(it));
	else
		idtable_insert(t, hashmap_hash(it->key), id_of(it));
}

static bool del(struct idtable *t, enum kind k, const struct item *it)
{
	if (k == IDSET)
		return idset_remove(t, id_of(it));
	return idtable_remove(t, hashmap_hash(it->key), key_is, it->key, NULL) != IDTABLE_NONE;
}

static struct idtable table_of(enum kind k)
{
	return k == IDSET ? (struct idtable)IDTABLE_INIT
	     : k == KEYED ? (struct idtable)IDTABLE_KEYED_INIT
			  : (struct idtable)IDTABLE_REHASH_INIT(key_hash);
}

/* Every item is found when in, and only then; the count agrees. */
static void check_all(const struct idtable *t, enum kind k)
{
	size_t in = 0, wrong = 0;

	for (size_t i = 0; i < ITEMS; i++) {
		in += items[i]->in;
		wrong += find(t, k, items[i]) != (items[i]->in ? id_of(items[i]) : IDTABLE_NONE);
	}
	CHECKF(wrong == 0, "kind %d: %zu items found wrong", k, wrong);
	CHECK_INT(idtable_len(t), in);
}

TEST(random_adds_and_removes_agree_with_a_model)
{
	for (enum kind k = IDSET; k <= REHASH; k++) {
		items_new();
		struct idtable t = table_of(k);

		for (int round = 0; round < 4; round++) {
			/* Fill to most, then empty to few: the table grows and shrinks. */
			unsigned want = round % 2 ? 5 : 95;
			for (int step = 0; step < 4 * ITEMS; step++) {
				struct item *it = items[unit_rand() % ITEMS];
				bool in = unit_rand() % 100 < want;
				if (in && !it->in) {
					add(&t, k, it);
					it->in = true;
				} else if (!in) {
					CHECK(del(&t, k, it) == it->in);
					it->in = false;
				}
			}
			check_all(&t, k);
		}
		struct item absent = { .key = "ns-0/absent" };
		if (k != IDSET) {
			CHECK(idtable_find(&t, hashmap_hash(absent.key), key_is, absent.key, NULL) == IDTABLE_NONE);
			CHECK(idtable_remove(&t, hashmap_hash(absent.key), key_is, absent.key, NULL) == IDTABLE_NONE);
		}
		CHECK((t.hashes != NULL) == (k == KEYED));	/* 4 bytes a slot but keyed */
		idtable_release(&t);
		slab_release(&slab);
	}
	CHECK(rehashes > 0);	/* the read-back kind hashed its keys again */
}

TEST(next_visits_each_member_once_and_an_emptied_table_owns_nothing)
{
	for (enum kind k = IDSET; k <= REHASH; k++) {
		items_new();
		struct idtable t = table_of(k);
		size_t iter = 0, visits = 0, wrong = 0;
		uint32_t id;

		for (size_t i = 0; i < ITEMS; i += 3) {
			add(&t, k, items[i]);
			items[i]->in = true;
		}
		while ((id = idtable_next(&t, &iter)) != IDTABLE_NONE) {
			struct item *it = slab_at(&slab, id);
			wrong += !it->in || it->seen;
			it->seen = true;
			visits++;
		}
		CHECK_INT(wrong, 0);
		CHECK_INT(visits, idtable_len(&t));
		for (size_t i = 0; i < ITEMS; i += 3)
			CHECK(del(&t, k, items[i]));
		CHECK(t.ids == NULL);
		CHECK_INT(t.cap, 0);
		CHECK(t.keyed == (k == KEYED) && (t.rehash != NULL) == (k == REHASH));
		idtable_release(&t);
		slab_release(&slab);
	}
}

int main(void)
{
	RUN(random_adds_and_removes_agree_with_a_model);
	RUN(next_visits_each_member_once_and_an_emptied_table_owns_nothing);
	return unit_done();
}

/* keyset.c — a hash set of items keyed by their own key; see keyset.h. */
#include "lib/keyset.h"

#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"
#include "lib/util.h"

#define MIN_CAP 8u

void keyset_release(struct keyset *set)
{
	free(set->slots);
	set->slots = NULL;
	set->cap = set->nr = 0;
}

/* The item of a slot that is not free. */
static inline void *item_of(const struct keyset *set, uint32_t slot)
{
	return slab_at(set->slab, slot - 1);
}

static inline const char *key_of(const struct keyset *set, uint32_t slot)
{
	return set->key(item_of(set, slot));
}

/* The slot holding key's item, or the free slot that ends its run. */
static uint32_t *probe(const struct keyset *set, const char *key, uint32_t hash)
{
	uint32_t mask = set->cap - 1;

	for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
		uint32_t *slot = &set->slots[i];

		if (!*slot || !strcmp(key_of(set, *slot), key))
			return slot;
	}
}

void *keyset_get(const struct keyset *set, const char *key)
{
	uint32_t *slot;

	if (!set->nr)
		return NULL;
	slot = probe(set, key, hashmap_hash(key));
	return *slot ? item_of(set, *slot) : NULL;
}

static void resize(struct keyset *set, uint32_t cap)
{
	uint32_t *old = set->slots;
	uint32_t old_cap = set->cap;

	set->slots = xcalloc(cap, sizeof(*set->slots));
	set->cap = cap;
	for (uint32_t i = 0; i < old_cap; i++) {
		if (old[i]) {
			const char *key = key_of(set, old[i]);
			*probe(set, key, hashmap_hash(key)) = old[i];
		}
	}
	free(old);
}

void keyset_add(struct keyset *set, void *item)
{
	const char *key = set->key(item);

	/* Keep the load at most 3/4 so that probe runs stay short. */
	if ((set->nr + 1) * 4 > set->cap * 3)
		resize(set, set->cap ? set->cap * 2 : MIN_CAP);
	*probe(set, key, hashmap_hash(key)) = slab_id(set->slab, item) + 1;
	set->nr++;
}

void *keyset_remove(struct keyset *set, const char *key)
{
	if (!set->nr)
		return NULL;
	uint32_t *slot = probe(set, key, hashmap_hash(key));
	uint32_t mask = set->cap - 1, i, j;

	if (!*slot)
		return NULL;
	void *item = item_of(set, *slot);
	/*
	 * Backward shift, as in hashmap.c: a later member of the run moves
	 * into the hole when the hole lies between its home and its slot.
	 */
	i = (uint32_t)(slot - set->slots);
	for (j = (i + 1) & mask; set->slots[j]; j = (j + 1) & mask) {
		uint32_t home = hashmap_hash(key_of(set, set->slots[j])) & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			set->slots[i] = set->slots[j];
			i = j;
		}
	}
	set->slots[i] = 0;
	set->nr--;
	/* An emptied set owns nothing, like a new one; a sparse one shrinks. */
	if (!set->nr)
		keyset_release(set);
	else if (set->cap > MIN_CAP && set->nr * 8 < set->cap)
		resize(set, set->cap / 2);
	return item;
}

void *keyset_next(const struct keyset *set, size_t *iter)
{
	while (*iter < set->cap) {
		uint32_t slot = set->slots[(*iter)++];

		if (slot)
			return item_of(set, slot);
	}
	return NULL;
}

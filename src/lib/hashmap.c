/* hashmap.c — open-addressing string map; see hashmap.h. */
#include "lib/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#define MIN_CAP 8u

uint32_t hashmap_hash(const char *key)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		h ^= *p;
		h *= 16777619u;
	}
	return h;
}

void hashmap_release(struct hashmap *map)
{
	free(map->slots);
	map->slots = NULL;
	map->cap = map->nr = 0;
}

/*
 * The slot of the entry match() takes for hash, or the free slot that
 * ends hash's run.  Inlined with hashmap_find()'s match, a call of
 * strcmp().
 */
static inline struct hashmap_entry *probe(const struct hashmap *map, uint32_t hash,
					  hashmap_match_fn *match, const void *ctx)
{
	uint32_t mask = map->cap - 1;

	for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
		struct hashmap_entry *e = &map->slots[i];

		if (!e->key || (e->hash == hash && match(e, ctx)))
			return e;
	}
}

static bool no_match(const struct hashmap_entry *e, const void *ctx)
{
	return false;
}

static bool same_key(const struct hashmap_entry *e, const void *key)
{
	return !strcmp(e->key, key);
}

struct hashmap_entry *hashmap_find_by(const struct hashmap *map, uint32_t hash,
				      hashmap_match_fn *match, const void *ctx)
{
	struct hashmap_entry *e;

	if (!map->nr)
		return NULL;
	e = probe(map, hash, match, ctx);
	return e->key ? e : NULL;
}

struct hashmap_entry *hashmap_find(const struct hashmap *map, const char *key)
{
	return hashmap_find_by(map, hashmap_hash(key), same_key, key);
}

void *hashmap_get(const struct hashmap *map, const char *key)
{
	struct hashmap_entry *e = hashmap_find(map, key);

	return e ? e->value : NULL;
}

static void resize(struct hashmap *map, uint32_t cap)
{
	struct hashmap_entry *old = map->slots;
	uint32_t old_cap = map->cap;

	map->slots = xcalloc(cap, sizeof(*map->slots));
	map->cap = cap;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].key)
			*probe(map, old[i].hash, no_match, NULL) = old[i];
	free(old);
}

struct hashmap_entry *hashmap_insert(struct hashmap *map, const char *key,
				     void *value)
{
	return hashmap_insert_hashed(map, hashmap_hash(key), key, value);
}

struct hashmap_entry *hashmap_insert_hashed(struct hashmap *map, uint32_t hash,
					    const char *key, void *value)
{
	struct hashmap_entry *e;

	/* Keep the load at most 3/4 so that probe runs stay short. */
	if ((map->nr + 1) * 4 > map->cap * 3)
		resize(map, map->cap ? map->cap * 2 : MIN_CAP);
	e = probe(map, hash, no_match, NULL);
	e->key = key;
	e->value = value;
	e->hash = hash;
	map->nr++;
	return e;
}

bool hashmap_remove(struct hashmap *map, const char *key,
		    struct hashmap_entry *removed)
{
	struct hashmap_entry *e = hashmap_find(map, key);

	if (!e)
		return false;
	if (removed)
		*removed = *e;
	hashmap_remove_entry(map, e);
	return true;
}

void hashmap_remove_entry(struct hashmap *map, struct hashmap_entry *e)
{
	uint32_t mask = map->cap - 1, i, j;

	/*
	 * Backward shift: pull later members of the probe run into the hole
	 * when the hole lies between their home slot and where they sit, so
	 * that lookups never need tombstones.
	 */
	i = (uint32_t)(e - map->slots);
	for (j = (i + 1) & mask; map->slots[j].key; j = (j + 1) & mask) {
		uint32_t home = map->slots[j].hash & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			map->slots[i] = map->slots[j];
			i = j;
		}
	}
	map->slots[i].key = NULL;
	map->slots[i].value = NULL;
	map->nr--;
	/* An emptied map owns nothing, like a new one; a sparse one shrinks. */
	if (!map->nr)
		hashmap_release(map);
	else if (map->cap > MIN_CAP && map->nr * 8 < map->cap)
		resize(map, map->cap / 2);
}

struct hashmap_entry *hashmap_next(const struct hashmap *map, size_t *iter)
{
	while (*iter < map->cap) {
		struct hashmap_entry *e = &map->slots[(*iter)++];

		if (e->key)
			return e;
	}
	return NULL;
}

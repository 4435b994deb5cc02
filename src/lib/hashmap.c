/* hashmap.c — entries in an array, found through an idtable; see hashmap.h. */
#include "lib/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

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
	free(map->v);
	idtable_release(&map->ids);
	*map = (struct hashmap)HASHMAP_INIT;
}

/* What a lookup looks for: the caller's match, its argument. */
struct lookup {
	const struct hashmap *map;
	hashmap_match_fn *match;
	const void *ctx;
};

/* idtable's match: the ids under the hash looked for, each one's entry matched. */
static bool entry_is(uint32_t id, const void *key, void *ctx)
{
	const struct lookup *l = ctx;

	return l->match(&l->map->v[id], l->ctx);
}

static bool same_id(uint32_t id, const void *key, void *ctx)
{
	return id == *(const uint32_t *)key;
}

static bool same_key(const struct hashmap_entry *e, const void *key)
{
	return !strcmp(e->key, key);
}

struct hashmap_entry *hashmap_find_by(const struct hashmap *map, uint32_t hash,
				      hashmap_match_fn *match, const void *ctx)
{
	struct lookup l = { map, match, ctx };
	uint32_t id = idtable_find(&map->ids, hash, entry_is, NULL, &l);

	return id == IDTABLE_NONE ? NULL : &map->v[id];
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

struct hashmap_entry *hashmap_insert(struct hashmap *map, const char *key,
				     void *value)
{
	return hashmap_insert_hashed(map, hashmap_hash(key), key, value);
}

struct hashmap_entry *hashmap_insert_hashed(struct hashmap *map, uint32_t hash,
					    const char *key, void *value)
{
	uint32_t id = map->nr;

	ALLOC_GROW(map->v, map->nr + 1, map->alloc);
	map->v[map->nr++] = (struct hashmap_entry){ .key = key, .value = value, .hash = hash };
	map->ids.keyed = true;	/* (a zeroed map's table is a set) */
	idtable_insert(&map->ids, hash, id);
	return &map->v[id];
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
	uint32_t id = (uint32_t)(e - map->v), last = map->nr - 1;

	idtable_remove(&map->ids, e->hash, same_id, &id, NULL);
	if (id != last) {
		map->v[id] = map->v[last];
		idtable_renumber(&map->ids, map->v[id].hash, last, id);
	}
	map->nr--;
	/* An emptied map owns nothing, like a new one; a sparse one shrinks. */
	if (!map->nr) {
		hashmap_release(map);
	} else if (map->alloc > 16 && map->nr * 4 < map->alloc) {
		map->alloc /= 2;
		map->v = xrealloc(map->v, map->alloc * sizeof(*map->v));
	}
}

struct hashmap_entry *hashmap_next(const struct hashmap *map, size_t *iter)
{
	return *iter < map->nr ? &map->v[(*iter)++] : NULL;
}

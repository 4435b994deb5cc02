/*
 * idtable.c — a hash table of 32-bit ids; see idtable.h.
 */
#include "lib/idtable.h"

#include <stdlib.h>

#include "lib/util.h"

#define MIN_CAP 4

void idtable_release(struct idtable *t)
{
	free(t->ids);
	t->ids = t->hashes = NULL;
	t->cap = t->nr = 0;
}

/* The hash of id, where none is kept beside it. */
static uint32_t hash_of(const struct idtable *t, uint32_t id)
{
	return t->rehash ? t->rehash(t, id) : idset_hash(id);
}

static uint32_t hash_at(const struct idtable *t, uint32_t i)
{
	return t->hashes ? t->hashes[i] : hash_of(t, t->ids[i]);
}

/*
 * The slot holding key, or the free slot that ends its probe run.  Where
 * a hash is read back, the key compared costs less than hashing it again.
 */
static uint32_t probe(const struct idtable *t, uint32_t hash,
		      idtable_match_fn *match, const void *key, void *ctx)
{
	uint32_t mask = t->cap - 1;

	for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
		uint32_t id = t->ids[i];

		if (id == IDTABLE_NONE)
			return i;
		if (t->rehash ? match(id, key, ctx)
			      : hash_at(t, i) == hash && (!match || match(id, key, ctx)))
			return i;
	}
}

static void put(struct idtable *t, uint32_t hash, uint32_t id)
{
	uint32_t mask = t->cap - 1, i = hash & mask;

	while (t->ids[i] != IDTABLE_NONE)
		i = (i + 1) & mask;
	t->ids[i] = id;
	if (t->hashes)
		t->hashes[i] = hash;
}

static void resize(struct idtable *t, uint32_t cap)
{
	struct idtable old = *t;

	t->ids = xmalloc((size_t)cap * (t->keyed ? 2 : 1) * sizeof(*t->ids));
	t->hashes = t->keyed ? t->ids + cap : NULL;
	t->cap = cap;
	for (uint32_t i = 0; i < cap; i++)
		t->ids[i] = IDTABLE_NONE;
	/* t itself, not the copy, to rehash: the caller's hash may find what holds t */
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.ids[i] != IDTABLE_NONE)
			put(t, old.hashes ? old.hashes[i] : hash_of(t, old.ids[i]), old.ids[i]);
	free(old.ids);
}

uint32_t idtable_find(const struct idtable *t, uint32_t hash,
		      idtable_match_fn *match, const void *key, void *ctx)
{
	if (!t->nr)
		return IDTABLE_NONE;
	return t->ids[probe(t, hash, match, key, ctx)];
}

void idtable_insert(struct idtable *t, uint32_t hash, uint32_t id)
{
	/* Keep the load at most 3/4 so that probe runs stay short. */
	if ((t->nr + 1) * 4 > t->cap * 3)
		resize(t, t->cap ? t->cap * 2 : MIN_CAP);
	put(t, hash, id);
	t->nr++;
}

uint32_t idtable_remove(struct idtable *t, uint32_t hash,
			idtable_match_fn *match, const void *key, void *ctx)
{
	uint32_t mask = t->cap - 1, i, j, id;

	if (!t->nr)
		return IDTABLE_NONE;
	i = probe(t, hash, match, key, ctx);
	id = t->ids[i];
	if (id == IDTABLE_NONE)
		return IDTABLE_NONE;
	/*
	 * Backward shift: pull later members of the probe run into the hole
	 * when the hole lies between their home slot and where they sit, so
	 * that lookups never need tombstones.
	 */
	for (j = (i + 1) & mask; t->ids[j] != IDTABLE_NONE; j = (j + 1) & mask) {
		uint32_t home = hash_at(t, j) & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->ids[i] = t->ids[j];
			if (t->hashes)
				t->hashes[i] = t->hashes[j];
			i = j;
		}
	}
	t->ids[i] = IDTABLE_NONE;
	t->nr--;
	/* An emptied table owns nothing, like a new one; a sparse one shrinks. */
	if (!t->nr)
		idtable_release(t);
	else if (t->cap > MIN_CAP && t->nr * 8 < t->cap)
		resize(t, t->cap / 2);
	return id;
}

void idtable_renumber(struct idtable *t, uint32_t hash, uint32_t from, uint32_t to)
{
	uint32_t mask = t->cap - 1, i = hash & mask;

	while (t->ids[i] != from)
		i = (i + 1) & mask;
	t->ids[i] = to;
}

uint32_t idtable_next(const struct idtable *t, size_t *iter)
{
	while (*iter < t->cap) {
		uint32_t id = t->ids[(*iter)++];

		if (id != IDTABLE_NONE)
			return id;
	}
	return IDTABLE_NONE;
}

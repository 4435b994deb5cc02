/*
 * idtable.c — a hash table of 32-bit ids; see idtable.h.
 */
#include "lib/idtable.h"

#include <stdlib.h>

#include "lib/util.h"

#define MIN_CAP 4

void idtable_release(struct idtable *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->nr = 0;
}

/* The slot holding key, or the free slot that ends its probe run. */
static struct idtable_slot *probe(const struct idtable *t, uint32_t hash,
				  idtable_match_fn *match, const void *key,
				  void *ctx)
{
	uint32_t mask = t->cap - 1;

	for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
		struct idtable_slot *s = &t->slots[i];

		if (s->id == IDTABLE_NONE ||
		    (s->hash == hash && (!match || match(s->id, key, ctx))))
			return s;
	}
}

static struct idtable_slot *free_slot(const struct idtable *t, uint32_t hash)
{
	uint32_t mask = t->cap - 1, i = hash & mask;

	while (t->slots[i].id != IDTABLE_NONE)
		i = (i + 1) & mask;
	return &t->slots[i];
}

static void resize(struct idtable *t, uint32_t cap)
{
	struct idtable_slot *old = t->slots;
	uint32_t old_cap = t->cap;

	t->slots = xmalloc(cap * sizeof(*t->slots));
	for (uint32_t i = 0; i < cap; i++)
		t->slots[i].id = IDTABLE_NONE;
	t->cap = cap;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].id != IDTABLE_NONE)
			*free_slot(t, old[i].hash) = old[i];
	free(old);
}

uint32_t idtable_find(const struct idtable *t, uint32_t hash,
		      idtable_match_fn *match, const void *key, void *ctx)
{
	if (!t->nr)
		return IDTABLE_NONE;
	return probe(t, hash, match, key, ctx)->id;
}

void idtable_insert(struct idtable *t, uint32_t hash, uint32_t id)
{
	struct idtable_slot *s;

	/* Keep the load at most 3/4 so that probe runs stay short. */
	if ((t->nr + 1) * 4 > t->cap * 3)
		resize(t, t->cap ? t->cap * 2 : MIN_CAP);
	s = free_slot(t, hash);
	s->hash = hash;
	s->id = id;
	t->nr++;
}

uint32_t idtable_remove(struct idtable *t, uint32_t hash,
			idtable_match_fn *match, const void *key, void *ctx)
{
	struct idtable_slot *s;
	uint32_t mask = t->cap - 1, i, j, id;

	if (!t->nr)
		return IDTABLE_NONE;
	s = probe(t, hash, match, key, ctx);
	id = s->id;
	if (id == IDTABLE_NONE)
		return IDTABLE_NONE;
	/*
	 * Backward shift: pull later members of the probe run into the hole
	 * when the hole lies between their home slot and where they sit, so
	 * that lookups never need tombstones.
	 */
	i = (uint32_t)(s - t->slots);
	for (j = (i + 1) & mask; t->slots[j].id != IDTABLE_NONE; j = (j + 1) & mask) {
		uint32_t home = t->slots[j].hash & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->slots[i] = t->slots[j];
			i = j;
		}
	}
	t->slots[i].id = IDTABLE_NONE;
	t->nr--;
	/* An emptied table owns nothing, like a new one; a sparse one shrinks. */
	if (!t->nr)
		idtable_release(t);
	else if (t->cap > MIN_CAP && t->nr * 8 < t->cap)
		resize(t, t->cap / 2);
	return id;
}

uint32_t idtable_next(const struct idtable *t, size_t *iter)
{
	while (*iter < t->cap) {
		uint32_t id = t->slots[(*iter)++].id;

		if (id != IDTABLE_NONE)
			return id;
	}
	return IDTABLE_NONE;
}

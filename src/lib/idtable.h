/*
 * idtable.h — a hash table of 32-bit ids: open addressing, linear probing,
 * deletion by backward shift (no tombstones), load between 1/8 and 3/4.
 * kinf's one hash table: lib/hashmap.h keeps its entries in an array and
 * finds them through one.
 *
 * A slot of a set is 4 bytes, the id, against 24 for a pointer and its
 * key: this is what lets the Indexer name an object in every index it is
 * in for a few bytes (store.c).  The table holds ids only; what an id stands
 * for, and so what a lookup compares, is the caller's: a match function
 * says whether an id is the one looked for.  Three uses:
 *
 *   a set of ids      idset_add / idset_remove / idset_has: the hash is
 *                     idset_hash(id), a bijection, so equal hashes are
 *                     equal ids and no match function is needed;
 *   ids by a key      (IDTABLE_KEYED_INIT) idtable_find / _insert /
 *                     _remove with the key's hash, kept beside each id
 *                     (8 bytes a slot), and a match function that compares
 *                     the key with what the id stands for;
 *   ids of things that hold their key   (IDTABLE_REHASH_INIT(fn)) as the
 *                     keyed use, but 4 bytes a slot: a slot's hash is
 *                     fn(table, id), the key read back and hashed again
 *                     (when the table grows, or an id moves into a hole),
 *                     and a lookup compares keys alone.  For large sets
 *                     whose members hold their key already: the TUI's rows
 *                     (tui_model.h), 100,000 in 512 KiB.
 *
 * A zeroed struct (IDTABLE_INIT) is an empty set that owns no memory; an
 * emptied table returns to that (keeping its kind).  Not thread-safe: the
 * owner locks.
 */
#ifndef KINF_IDTABLE_H
#define KINF_IDTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IDTABLE_NONE UINT32_MAX		/* not an id: a free slot */

struct idtable;
/* Whether id is what key names; NULL: equal hashes suffice. */
typedef bool idtable_match_fn(uint32_t id, const void *key, void *ctx);
/* The hash of what id stands for: its key's, as the caller hashed it. */
typedef uint32_t idtable_hash_fn(const struct idtable *t, uint32_t id);

struct idtable {
	uint32_t *ids;		/* cap slots */
	uint32_t *hashes;	/* keyed: each slot's hash, after ids; else NULL */
	uint32_t cap;		/* 0 or a power of two */
	uint32_t nr;
	bool keyed;
	idtable_hash_fn *rehash;	/* hashes read back; NULL: as keyed says */
};

#define IDTABLE_INIT { 0 }
#define IDTABLE_KEYED_INIT { .keyed = true }
#define IDTABLE_REHASH_INIT(fn) { .rehash = (fn) }

void idtable_release(struct idtable *t);

static inline size_t idtable_len(const struct idtable *t)
{
	return t->nr;
}

/* The id under key, or IDTABLE_NONE. */
uint32_t idtable_find(const struct idtable *t, uint32_t hash,
		      idtable_match_fn *match, const void *key, void *ctx);
/* Adds id, which must be absent, under hash. */
void idtable_insert(struct idtable *t, uint32_t hash, uint32_t id);
/* Removes the id under key and returns it; IDTABLE_NONE when there is none. */
uint32_t idtable_remove(struct idtable *t, uint32_t hash,
			idtable_match_fn *match, const void *key, void *ctx);

/* The slot of id `from`, found under hash, names id `to` instead. */
void idtable_renumber(struct idtable *t, uint32_t hash, uint32_t from, uint32_t to);

/*
 * Iterates, in no particular order, without changing the table:
 *   size_t iter = 0; uint32_t id;
 *   while ((id = idtable_next(t, &iter)) != IDTABLE_NONE) ...
 */
uint32_t idtable_next(const struct idtable *t, size_t *iter);

/* A set of ids. */
static inline uint32_t idset_hash(uint32_t id)
{
	return id * 0x9e3779b1u;	/* odd: a bijection of 32-bit ids */
}

static inline bool idset_has(const struct idtable *set, uint32_t id)
{
	return idtable_find(set, idset_hash(id), NULL, NULL, NULL) != IDTABLE_NONE;
}

/* Adds id if absent. */
static inline void idset_add(struct idtable *set, uint32_t id)
{
	if (!idset_has(set, id))
		idtable_insert(set, idset_hash(id), id);
}

static inline bool idset_remove(struct idtable *set, uint32_t id)
{
	return idtable_remove(set, idset_hash(id), NULL, NULL, NULL) != IDTABLE_NONE;
}

#endif

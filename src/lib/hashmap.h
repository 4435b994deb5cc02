/*
 * hashmap.h — a small string-keyed hash table, FNV-1a.  Keys of other
 * kinds use the same table through hashmap_find_by().
 *
 * The entries lie in one array, in the order they were added but for
 * removals (the last entry moves into the hole); an idtable (lib/
 * idtable.h, its keyed form: 8 bytes a slot) finds them by hash.  One
 * hash table, then, for the whole of kinf: the probing, the growing and
 * the backward-shift deletion are idtable's.
 *
 * The map stores pointers and owns neither keys nor values: a key must
 * stay valid, unchanged, for as long as its entry is in the map (callers
 * usually point it into the value).  The caller may point an entry's key
 * at an equal string, as when the value's copy of it is replaced.  A
 * zeroed struct (HASHMAP_INIT) is an empty map that owns no memory;
 * hashmap_release() returns it to that.
 *
 * Entry pointers are valid until the next insert or remove.  Not
 * thread-safe: the owner locks.
 */
#ifndef KINF_HASHMAP_H
#define KINF_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/idtable.h"

struct hashmap_entry {
	const char *key;
	void *value;
	uint32_t hash;
};

struct hashmap {
	struct hashmap_entry *v;	/* nr entries, alloc room */
	uint32_t nr, alloc;
	struct idtable ids;	/* keyed: v's indexes by their entries' hashes */
};

#define HASHMAP_INIT { 0 }

/* Frees the table (not the keys or values) and empties the map. */
void hashmap_release(struct hashmap *map);

static inline size_t hashmap_len(const struct hashmap *map)
{
	return map->nr;
}

/* The entry under key, or NULL. */
struct hashmap_entry *hashmap_find(const struct hashmap *map, const char *key);
void *hashmap_get(const struct hashmap *map, const char *key);

/* Adds key (which must be absent) → value; returns the new entry. */
struct hashmap_entry *hashmap_insert(struct hashmap *map, const char *key,
				     void *value);

/*
 * Removes key.  Returns false if absent; otherwise copies the removed
 * entry to *removed (when not NULL) so the caller can free its key and
 * value.
 */
bool hashmap_remove(struct hashmap *map, const char *key,
		    struct hashmap_entry *removed);

/*
 * Iterates, in no particular order, without changing the map:
 *   size_t iter = 0; struct hashmap_entry *e;
 *   while ((e = hashmap_next(map, &iter))) ...
 */
struct hashmap_entry *hashmap_next(const struct hashmap *map, size_t *iter);

/*
 * Keys of any kind (bytes with a length, lib/intern.c): the caller
 * hashes, and match(e, ctx) says whether an entry is the one looked for,
 * reading its key (or its value) as it knows it.  The key is then only
 * a non-NULL pointer the map keeps, never reads.  hashmap_find(),
 * _insert() and _remove() are these with FNV-1a and strcmp().
 */
typedef bool hashmap_match_fn(const struct hashmap_entry *e, const void *ctx);
struct hashmap_entry *hashmap_find_by(const struct hashmap *map, uint32_t hash,
				      hashmap_match_fn *match, const void *ctx);
/* Adds an entry (whose key must be absent) under hash. */
struct hashmap_entry *hashmap_insert_hashed(struct hashmap *map, uint32_t hash,
					    const char *key, void *value);
/* Removes e (a pointer into the map: hashmap_find_by()'s). */
void hashmap_remove_entry(struct hashmap *map, struct hashmap_entry *e);

uint32_t hashmap_hash(const char *key);

#endif

/*
 * keyset.h — a hash set of items that carry their own string key and live
 * in one slab (lib/slab.h): open addressing, linear probing, FNV-1a
 * (hashmap_hash()), deletion by backward shift, as lib/hashmap does, but
 * a slot is the item's 32-bit slab id alone (4 bytes, where a hashmap
 * entry is 24 and a pointer 8): the key is read from the item through the
 * set's key function, and hashed again when the table grows or an item
 * moves back into a hole.  For large sets whose items already hold their
 * key, such as the TUI's rows (1 MiB at 100,000, where a hashmap's
 * entries took 6).
 *
 * The set owns neither items nor keys nor the slab, which must outlive
 * it.  An item's key must stay valid and unchanged while the item is in
 * the set (it may move to an equal string).  A zeroed struct with key and
 * slab set (KEYSET_INIT(fn, slab)) is an empty set that owns no memory;
 * keyset_release() returns it to that.
 *
 * Not thread-safe: the owner locks.
 */
#ifndef KINF_KEYSET_H
#define KINF_KEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/slab.h"

typedef const char *keyset_key_fn(const void *item);

struct keyset {
	uint32_t *slots;	/* 0: free; else 1 + an item's slab id */
	uint32_t cap;		/* 0 or a power of two */
	uint32_t nr;
	keyset_key_fn *key;
	const struct slab *slab;	/* the items' (borrowed) */
};

#define KEYSET_INIT(fn, sl) { .key = (fn), .slab = (sl) }

/* Frees the table (not the items) and empties the set; key stays. */
void keyset_release(struct keyset *set);

static inline size_t keyset_len(const struct keyset *set)
{
	return set->nr;
}

/* The item whose key is key, or NULL. */
void *keyset_get(const struct keyset *set, const char *key);

/* Adds item, which must be allocated from the set's slab and whose key
 * must be absent: O(log chunks) for its id, then a probe. */
void keyset_add(struct keyset *set, void *item);

/* Removes the item whose key is key; returns it, or NULL if absent. */
void *keyset_remove(struct keyset *set, const char *key);

/*
 * Iterates, in no particular order, without changing the set:
 *   size_t iter = 0; void *item;
 *   while ((item = keyset_next(set, &iter))) ...
 */
void *keyset_next(const struct keyset *set, size_t *iter);

#endif

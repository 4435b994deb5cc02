/*
 * keyset.h — a hash set of items that carry their own string key: open
 * addressing, linear probing, FNV-1a (hashmap_hash()), deletion by
 * backward shift, as lib/hashmap does, but a slot is the item's pointer
 * alone (8 bytes, where a hashmap entry is 24): the key is read from the
 * item through the set's key function, and hashed again when the table
 * grows or an item moves back into a hole.  For large sets whose items
 * already hold their key, such as the TUI's rows (4 MiB less than a
 * hashmap at 100,000).
 *
 * The set owns neither items nor keys.  An item's key must stay valid
 * and unchanged while the item is in the set (it may move to an equal
 * string).  A zeroed struct with key set (KEYSET_INIT(fn)) is an empty
 * set that owns no memory; keyset_release() returns it to that.
 *
 * Not thread-safe: the owner locks.
 */
#ifndef KINF_KEYSET_H
#define KINF_KEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef const char *keyset_key_fn(const void *item);

struct keyset {
	void **slots;		/* NULL: free slot */
	uint32_t cap;		/* 0 or a power of two */
	uint32_t nr;
	keyset_key_fn *key;
};

#define KEYSET_INIT(fn) { .key = (fn) }

/* Frees the table (not the items) and empties the set; key stays. */
void keyset_release(struct keyset *set);

static inline size_t keyset_len(const struct keyset *set)
{
	return set->nr;
}

/* The item whose key is key, or NULL. */
void *keyset_get(const struct keyset *set, const char *key);

/* Adds item, whose key must be absent. */
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

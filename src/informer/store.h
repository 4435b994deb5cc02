/*
 * store.h — the Indexer: client-go's ThreadSafeStore with its indexers.
 *
 * A map key → kobj plus named indexes (index name → value → set of keys),
 * kept exact on every add, update and delete: an update removes the old
 * object's index values and adds the new one's.
 *
 * Built-in indexes (INDEX_* below) are always present:
 *   namespace  metadata.namespace ("" objects are not indexed)
 *   label      "key=value" for every label
 *   node       spec.nodeName
 *   owner      ownerReferences[].uid
 *
 * Thread safety: every function is safe to call from any thread (one
 * read-write lock inside).  Nothing here blocks except on that lock.
 *
 * Ownership: the store holds one reference to each stored kobj.  store_add
 * takes a new reference of its own (the caller keeps its); the getters
 * return new references the caller must kobj_unref().
 */
#ifndef KINF_STORE_H
#define KINF_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "informer/kobj.h"

#define INDEX_NAMESPACE "namespace"
#define INDEX_LABEL "label"
#define INDEX_NODE "node"
#define INDEX_OWNER "owner"

struct store;

/* An array of kobj references returned by the listing functions. */
struct kobj_list {
	struct kobj **v;
	size_t nr;
};
/* Unrefs every object and frees the array. */
void kobj_list_release(struct kobj_list *list);

struct store *store_new(void);
void store_free(struct store *store);

/* Adds or replaces (updates) the object under obj->key. */
void store_add(struct store *store, struct kobj *obj);
/* Removes key; returns false if it was absent. */
bool store_delete(struct store *store, const char *key);

/* A new reference to the object under key, or NULL. */
struct kobj *store_get(struct store *store, const char *key);
bool store_has(struct store *store, const char *key);
size_t store_len(struct store *store);

/* Every object (unordered), each a new reference. */
void store_list(struct store *store, struct kobj_list *out);

/*
 * The objects whose index `index` has `value`.  Returns -1 and fills err
 * when no such index exists.
 */
int store_by_index(struct store *store, const char *index, const char *value,
		   struct kobj_list *out, struct errbuf *err);

/* Sum of json_len over the stored objects (for memory reports). */
size_t store_json_bytes(struct store *store);

#endif

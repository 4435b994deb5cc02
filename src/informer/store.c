/*
 * store.c — the Indexer; see store.h.
 *
 * DESIGN (threads): one pthread rwlock guards everything below.  Readers
 * (get, list, by_index) share it; add, update and delete take it alone.
 * The lock prefers writers, so that a busy reader (a TUI redrawing the
 * table) cannot starve the informer's processor.  Nothing is called out
 * of this module with the lock held, and references that drop to zero are
 * dropped after unlocking, so freeing never lengthens the critical section.
 *
 * Layout: items maps a key (the store's own copy, shared by every index
 * that names the object) to the object.  Each index maps a value (owned)
 * to the set of keys having it: a hashmap whose keys are those shared
 * copies and whose values are unused.  Empty sets are freed at once, as
 * client-go does, or churn over many values would leak.
 */
#include "informer/store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"

/*
 * A built-in index: the values are extracted into the kobj when made.
 * `values` gives a packed list; for a single-valued index it gives the
 * one value, which may be "": client-go's MetaNamespaceIndexFunc indexes
 * a cluster-scoped object under the empty namespace.
 */
struct index_def {
	const char *name;
	const char *(*values)(const struct kobj *obj);
	bool single;
};

static const char *namespace_values(const struct kobj *obj) { return obj->ns; }
static const char *label_values(const struct kobj *obj) { return obj->labels; }
static const char *node_values(const struct kobj *obj) { return obj->node; }
static const char *owner_values(const struct kobj *obj) { return obj->owners; }

static const struct index_def index_defs[] = {
	{ INDEX_NAMESPACE, namespace_values, true },
	{ INDEX_LABEL, label_values, false },
	{ INDEX_NODE, node_values, false },
	{ INDEX_OWNER, owner_values, false },
};

#define NR_INDEXES ARRAY_SIZE(index_defs)

struct store {
	pthread_rwlock_t lock;
	struct hashmap items;			/* key → struct kobj * */
	struct hashmap indexes[NR_INDEXES];	/* value → struct hashmap * */
	size_t json_bytes;
};

struct store *store_new(void)
{
	struct store *store = xcalloc(1, sizeof(*store));
	pthread_rwlockattr_t attr;

	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&store->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	return store;
}

void store_free(struct store *store)
{
	struct hashmap_entry *e;
	size_t iter;

	if (!store)
		return;
	for (size_t i = 0; i < NR_INDEXES; i++) {
		for (iter = 0; (e = hashmap_next(&store->indexes[i], &iter));) {
			hashmap_release(e->value);
			free(e->value);
			free((char *)e->key);
		}
		hashmap_release(&store->indexes[i]);
	}
	for (iter = 0; (e = hashmap_next(&store->items, &iter));) {
		kobj_unref(e->value);
		free((char *)e->key);
	}
	hashmap_release(&store->items);
	pthread_rwlock_destroy(&store->lock);
	free(store);
}

static void index_insert(struct hashmap *index, const char *value,
			 const char *key)
{
	struct hashmap *set = hashmap_get(index, value);

	if (!set) {
		set = xcalloc(1, sizeof(*set));
		hashmap_insert(index, xstrdup(value), set);
	}
	/* A packed list may repeat a value (two owner refs to one uid). */
	if (!hashmap_find(set, key))
		hashmap_insert(set, key, NULL);
}

static void index_erase(struct hashmap *index, const char *value,
			const char *key)
{
	struct hashmap_entry removed;
	struct hashmap *set = hashmap_get(index, value);

	if (!set || !hashmap_remove(set, key, NULL) || hashmap_len(set))
		return;
	hashmap_remove(index, value, &removed);
	free((char *)removed.key);
	hashmap_release(set);
	free(set);
}

/*
 * Moves key from old's index values to new's (either may be NULL): values
 * both have are left alone, so an update that changes no label touches
 * no set.
 */
static void index_move(struct store *store, const char *key,
		       const struct kobj *old, const struct kobj *new)
{
	for (size_t i = 0; i < NR_INDEXES; i++) {
		const char *ov = old ? index_defs[i].values(old) : "";
		const char *nv = new ? index_defs[i].values(new) : "";
		const char *p;

		if (index_defs[i].single) {
			if (old && new && !strcmp(ov, nv))
				continue;
			if (old)
				index_erase(&store->indexes[i], ov, key);
			if (new)
				index_insert(&store->indexes[i], nv, key);
			continue;
		}
		for (p = ov; *p; p += strlen(p) + 1)
			if (!packed_contains(nv, p))
				index_erase(&store->indexes[i], p, key);
		for (p = nv; *p; p += strlen(p) + 1)
			if (!packed_contains(ov, p))
				index_insert(&store->indexes[i], p, key);
	}
}

void store_add(struct store *store, struct kobj *obj)
{
	struct kobj *old = NULL;
	struct hashmap_entry *e;
	const char *key;

	kobj_ref(obj);
	pthread_rwlock_wrlock(&store->lock);
	e = hashmap_find(&store->items, obj->key);
	if (e) {
		old = e->value;
		e->value = obj;
		key = e->key;
		store->json_bytes -= old->json_len;
	} else {
		key = xstrdup(obj->key);
		hashmap_insert(&store->items, key, obj);
	}
	store->json_bytes += obj->json_len;
	index_move(store, key, old, obj);
	pthread_rwlock_unlock(&store->lock);
	kobj_unref(old);
}

void store_update(struct store *store, struct kobj *obj)
{
	store_add(store, obj);
}

bool store_delete(struct store *store, const char *key)
{
	struct hashmap_entry removed;
	bool found;

	pthread_rwlock_wrlock(&store->lock);
	found = hashmap_remove(&store->items, key, &removed);
	if (found) {
		struct kobj *old = removed.value;

		store->json_bytes -= old->json_len;
		index_move(store, removed.key, old, NULL);
	}
	pthread_rwlock_unlock(&store->lock);
	if (found) {
		kobj_unref(removed.value);
		free((char *)removed.key);
	}
	return found;
}

struct kobj *store_get(struct store *store, const char *key)
{
	struct kobj *obj;

	pthread_rwlock_rdlock(&store->lock);
	obj = hashmap_get(&store->items, key);
	if (obj)
		kobj_ref(obj);
	pthread_rwlock_unlock(&store->lock);
	return obj;
}

bool store_has(struct store *store, const char *key)
{
	bool found;

	pthread_rwlock_rdlock(&store->lock);
	found = hashmap_find(&store->items, key) != NULL;
	pthread_rwlock_unlock(&store->lock);
	return found;
}

size_t store_len(struct store *store)
{
	size_t nr;

	pthread_rwlock_rdlock(&store->lock);
	nr = hashmap_len(&store->items);
	pthread_rwlock_unlock(&store->lock);
	return nr;
}

void kobj_list_release(struct kobj_list *list)
{
	for (size_t i = 0; i < list->nr; i++)
		kobj_unref(list->v[i]);
	free(list->v);
	list->v = NULL;
	list->nr = 0;
}

void store_list(struct store *store, struct kobj_list *out)
{
	struct hashmap_entry *e;
	size_t iter = 0;

	pthread_rwlock_rdlock(&store->lock);
	out->nr = 0;
	out->v = xmalloc(hashmap_len(&store->items) * sizeof(*out->v));
	while ((e = hashmap_next(&store->items, &iter)))
		out->v[out->nr++] = kobj_ref(e->value);
	pthread_rwlock_unlock(&store->lock);
}

void store_keys(struct store *store, char ***keys, size_t *nr)
{
	struct hashmap_entry *e;
	size_t iter = 0;

	pthread_rwlock_rdlock(&store->lock);
	*nr = 0;
	*keys = xmalloc(hashmap_len(&store->items) * sizeof(**keys));
	while ((e = hashmap_next(&store->items, &iter)))
		(*keys)[(*nr)++] = xstrdup(e->key);
	pthread_rwlock_unlock(&store->lock);
}

int store_by_index(struct store *store, const char *index, const char *value,
		   struct kobj_list *out, struct errbuf *err)
{
	struct hashmap_entry *e;
	struct hashmap *set;
	size_t i, iter = 0;

	out->v = NULL;
	out->nr = 0;
	for (i = 0; i < NR_INDEXES; i++)
		if (!strcmp(index_defs[i].name, index))
			break;
	if (i == NR_INDEXES) {
		char names[128] = "";
		for (size_t k = 0; k < NR_INDEXES; k++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 k ? ", " : "", index_defs[k].name);
		errbuf_set(err, "no index named '%s' (the indexes: %s)", index, names);
		return -1;
	}
	pthread_rwlock_rdlock(&store->lock);
	set = hashmap_get(&store->indexes[i], value);
	if (set) {
		out->v = xmalloc(hashmap_len(set) * sizeof(*out->v));
		while ((e = hashmap_next(set, &iter)))
			out->v[out->nr++] =
				kobj_ref(hashmap_get(&store->items, e->key));
	}
	pthread_rwlock_unlock(&store->lock);
	return 0;
}

const char *const *store_index_names(void)
{
	static const char *const names[NR_INDEXES + 1] = {
		INDEX_NAMESPACE, INDEX_LABEL, INDEX_NODE, INDEX_OWNER, NULL,
	};

	return names;
}

size_t store_json_bytes(struct store *store)
{
	size_t bytes;

	pthread_rwlock_rdlock(&store->lock);
	bytes = store->json_bytes;
	pthread_rwlock_unlock(&store->lock);
	return bytes;
}

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
 * Layout: every stored object has an id, a slot in objs, from its add to
 * its delete (an update keeps it).  items finds a key's id; each index
 * maps a value (owned) to the set of ids having it.  An id costs a set
 * 4 bytes a slot, where a set of keys cost 24 and each key its own copy:
 * at 100,000 pods in 6 index values each, 5 MiB against 70.  Empty sets
 * are freed at once, as client-go does, or churn over many values would
 * leak.
 *
 * Follows client-go's threadSafeMap and storeIndex
 * (tools/cache/thread_safe_store.go: Add/Update via updateIndices,
 * Delete, ByIndex).
 */
#include "informer/store.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"
#include "lib/idtable.h"

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

/* The ids of the objects having one index value. */
struct index_set {
	struct idtable ids;
	char value[];		/* the index's key for this set */
};

/*
 * A slot of objs: the object, or when free the next free id, tagged by
 * its low bit (an object's address is even).
 */
union slot {
	struct kobj *obj;
	uintptr_t next_free;
};

struct store {
	pthread_rwlock_t lock;
	union slot *objs;			/* by id */
	size_t nr_objs, alloc_objs;		/* slots used, allocated */
	uint32_t free_id;			/* IDTABLE_NONE: none */
	struct idtable items;			/* key → id */
	struct hashmap indexes[NR_INDEXES];	/* value → struct index_set * */
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
	store->free_id = IDTABLE_NONE;
	store->items = (struct idtable)IDTABLE_KEYED_INIT;
	return store;
}

static bool slot_free(const union slot *s)
{
	return s->next_free & 1;
}

void store_free(struct store *store)
{
	struct hashmap_entry *e;
	size_t iter;

	if (!store)
		return;
	for (size_t i = 0; i < NR_INDEXES; i++) {
		for (iter = 0; (e = hashmap_next(&store->indexes[i], &iter));) {
			struct index_set *set = e->value;

			idtable_release(&set->ids);
			free(set);
		}
		hashmap_release(&store->indexes[i]);
	}
	for (size_t id = 0; id < store->nr_objs; id++)
		if (!slot_free(&store->objs[id]))
			kobj_unref(store->objs[id].obj);
	free(store->objs);
	idtable_release(&store->items);
	pthread_rwlock_destroy(&store->lock);
	free(store);
}

static struct kobj *obj_at(const struct store *store, uint32_t id)
{
	return store->objs[id].obj;
}

static bool key_is(uint32_t id, const void *key, void *store)
{
	return !strcmp(obj_at(store, id)->key, key);
}

static uint32_t find_id(struct store *store, const char *key)
{
	return idtable_find(&store->items, hashmap_hash(key), key_is, key, store);
}

/* A slot for obj: a freed one if any, else a new one. */
static uint32_t take_id(struct store *store, struct kobj *obj)
{
	uint32_t id = store->free_id;

	if (id != IDTABLE_NONE) {
		store->free_id = (uint32_t)(store->objs[id].next_free >> 1);
	} else {
		if (store->nr_objs >= IDTABLE_NONE)
			die("the cache holds more objects than it can name");
		ALLOC_GROW(store->objs, store->nr_objs + 1, store->alloc_objs);
		id = (uint32_t)store->nr_objs++;
	}
	store->objs[id].obj = obj;
	return id;
}

static void put_id(struct store *store, uint32_t id)
{
	store->objs[id].next_free = ((uintptr_t)store->free_id << 1) | 1;
	store->free_id = id;
}

static void index_insert(struct hashmap *index, const char *value, uint32_t id)
{
	struct index_set *set = hashmap_get(index, value);

	if (!set) {
		size_t len = strlen(value);

		set = xcalloc(1, sizeof(*set) + len + 1);
		memcpy(set->value, value, len + 1);
		hashmap_insert(index, set->value, set);
	}
	/* A packed list may repeat a value (two owner refs to one uid). */
	idset_add(&set->ids, id);
}

static void index_erase(struct hashmap *index, const char *value, uint32_t id)
{
	struct index_set *set = hashmap_get(index, value);

	if (!set || !idset_remove(&set->ids, id) || idtable_len(&set->ids))
		return;
	hashmap_remove(index, value, NULL);
	free(set);
}

/*
 * Moves id from old's index values to new's (either may be NULL): values
 * both have are left alone, so an update that changes no label touches
 * no set.
 */
static void index_move(struct store *store, uint32_t id,
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
				index_erase(&store->indexes[i], ov, id);
			if (new)
				index_insert(&store->indexes[i], nv, id);
			continue;
		}
		for (p = ov; *p; p += strlen(p) + 1)
			if (!packed_contains(nv, p))
				index_erase(&store->indexes[i], p, id);
		for (p = nv; *p; p += strlen(p) + 1)
			if (!packed_contains(ov, p))
				index_insert(&store->indexes[i], p, id);
	}
}

void store_add(struct store *store, struct kobj *obj)
{
	struct kobj *old = NULL;
	uint32_t id;

	kobj_ref(obj);
	pthread_rwlock_wrlock(&store->lock);
	id = find_id(store, obj->key);
	if (id != IDTABLE_NONE) {
		old = obj_at(store, id);
		store->objs[id].obj = obj;
		store->json_bytes -= old->json_len;
	} else {
		id = take_id(store, obj);
		idtable_insert(&store->items, hashmap_hash(obj->key), id);
	}
	store->json_bytes += obj->json_len;
	index_move(store, id, old, obj);
	pthread_rwlock_unlock(&store->lock);
	kobj_unref(old);
}

bool store_delete(struct store *store, const char *key)
{
	struct kobj *old = NULL;
	uint32_t id;

	pthread_rwlock_wrlock(&store->lock);
	id = idtable_remove(&store->items, hashmap_hash(key), key_is, key, store);
	if (id != IDTABLE_NONE) {
		old = obj_at(store, id);
		store->json_bytes -= old->json_len;
		index_move(store, id, old, NULL);
		put_id(store, id);
	}
	pthread_rwlock_unlock(&store->lock);
	kobj_unref(old);
	return old != NULL;
}

struct kobj *store_get(struct store *store, const char *key)
{
	struct kobj *obj;

	uint32_t id;

	pthread_rwlock_rdlock(&store->lock);
	id = find_id(store, key);
	obj = id != IDTABLE_NONE ? kobj_ref(obj_at(store, id)) : NULL;
	pthread_rwlock_unlock(&store->lock);
	return obj;
}

bool store_has(struct store *store, const char *key)
{
	bool found;

	pthread_rwlock_rdlock(&store->lock);
	found = find_id(store, key) != IDTABLE_NONE;
	pthread_rwlock_unlock(&store->lock);
	return found;
}

size_t store_len(struct store *store)
{
	size_t nr;

	pthread_rwlock_rdlock(&store->lock);
	nr = idtable_len(&store->items);
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
	pthread_rwlock_rdlock(&store->lock);
	out->nr = 0;
	out->v = xmalloc(idtable_len(&store->items) * sizeof(*out->v));
	for (size_t id = 0; id < store->nr_objs; id++)
		if (!slot_free(&store->objs[id]))
			out->v[out->nr++] = kobj_ref(store->objs[id].obj);
	pthread_rwlock_unlock(&store->lock);
}

int store_by_index(struct store *store, const char *index, const char *value,
		   struct kobj_list *out, struct errbuf *err)
{
	struct index_set *set;
	size_t i, iter = 0;
	uint32_t id;

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
		out->v = xmalloc(idtable_len(&set->ids) * sizeof(*out->v));
		while ((id = idtable_next(&set->ids, &iter)) != IDTABLE_NONE)
			out->v[out->nr++] = kobj_ref(obj_at(store, id));
	}
	pthread_rwlock_unlock(&store->lock);
	return 0;
}

size_t store_json_bytes(struct store *store)
{
	size_t bytes;

	pthread_rwlock_rdlock(&store->lock);
	bytes = store->json_bytes;
	pthread_rwlock_unlock(&store->lock);
	return bytes;
}

/*
 * delta_fifo.c — client-go's DeltaFIFO: a queue of keys, each holding its
 * pending deltas; see fifo.h.  Runs under fifo.c's lock (fifo_impl.h).
 *
 * Invariant, as in client-go: a key is in `items` exactly when it is in
 * the ring, and its list is never empty — only Pop takes an entry out,
 * and deduplication never empties a list.  So the ring can hold the
 * entries themselves rather than keys to look up again.
 */
#include "informer/fifo_impl.h"

#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"

struct entry {
	struct deltas deltas;
	char key[];
};

struct delta_fifo {
	struct fifo base;
	struct hashmap items;		/* key → struct entry *, key in entry */
	struct entry **ring;		/* queue order; alloc a power of two */
	size_t head, nr, alloc;
};

static struct delta_fifo *of(struct fifo *fifo)
{
	return (struct delta_fifo *)fifo;
}

static struct entry *ring_at(struct delta_fifo *df, size_t i)
{
	return df->ring[(df->head + i) & (df->alloc - 1)];
}

static void ring_resize(struct delta_fifo *df, size_t alloc)
{
	struct entry **ring = xmalloc(alloc * sizeof(*ring));

	for (size_t i = 0; i < df->nr; i++)
		ring[i] = ring_at(df, i);
	free(df->ring);
	df->ring = ring;
	df->alloc = alloc;
	df->head = 0;
}

static void ring_push(struct delta_fifo *df, struct entry *e)
{
	if (df->nr == df->alloc)
		ring_resize(df, df->alloc ? df->alloc * 2 : 16);
	df->ring[(df->head + df->nr++) & (df->alloc - 1)] = e;
}

static struct entry *ring_shift(struct delta_fifo *df)
{
	struct entry *e = df->ring[df->head];

	df->head = (df->head + 1) & (df->alloc - 1);
	df->nr--;
	/* Give back the room a big list took once it has drained. */
	if (df->alloc > 1024 && df->nr < df->alloc / 8)
		ring_resize(df, df->alloc / 2);
	return e;
}

static struct fifo *delta_fifo_alloc(void)
{
	return &((struct delta_fifo *)xcalloc(1, sizeof(struct delta_fifo)))->base;
}

static void delta_fifo_free(struct fifo *fifo)
{
	struct delta_fifo *df = of(fifo);

	while (df->nr) {
		struct entry *e = ring_shift(df);

		deltas_release(&e->deltas);
		free(e);
	}
	free(df->ring);
	hashmap_release(&df->items);
	free(df);
}

/*
 * client-go's queueActionLocked: appends a delta to obj's key, queuing the
 * key if it was not.  Of two consecutive Deleted the one that knows more
 * stays (isDeletionDup): the older, unless the older is a tombstone.
 * Returns false when the new delta was the one dropped.
 */
static bool queue_action(struct delta_fifo *df, enum delta_type type,
			 enum delta_source source, bool tombstone,
			 struct kobj *obj)
{
	struct entry *e = hashmap_get(&df->items, obj->key);
	struct delta d;

	if (!e) {
		size_t len = strlen(obj->key) + 1;

		e = xcalloc(1, sizeof(*e) + len);
		memcpy(e->key, obj->key, len);
		hashmap_insert(&df->items, e->key, e);
		ring_push(df, e);
	} else if (type == DELTA_DELETED &&
		   e->deltas.v[e->deltas.nr - 1].type == DELTA_DELETED) {
		struct delta *last = &e->deltas.v[e->deltas.nr - 1];

		if (!last->tombstone)
			return false;
		/* Made first: obj may be the very object last holds. */
		d = fifo_delta(&df->base, type, source, tombstone, obj);
		kobj_unref(last->obj);
		*last = d;
		return true;
	}
	d = fifo_delta(&df->base, type, source, tombstone, obj);
	deltas_push(&e->deltas, &d);
	return true;
}

static void delta_fifo_event(struct fifo *fifo, enum delta_type type, struct kobj *obj)
{
	struct delta_fifo *df = of(fifo);

	/* A Delete of a key neither known nor queued: a relist reported it gone. */
	if (type == DELTA_DELETED && !hashmap_find(&df->items, obj->key) &&
	    !(fifo->known && store_has(fifo->known, obj->key)))
		return;
	queue_action(df, type, SOURCE_WATCH, false, obj);
}

static void tombstone(struct fifo *fifo, struct kobj *obj)
{
	queue_action(of(fifo), DELTA_DELETED, SOURCE_LIST, true, obj);
}

static size_t delta_fifo_replace(struct fifo *fifo, struct kobj **items,
				 size_t nr, const char *rv, size_t *initial)
{
	struct delta_fifo *df = of(fifo);
	struct hashmap listed = HASHMAP_INIT;
	size_t queued_deletions = 0, tombstones = 0, queued, known_gone;

	for (size_t i = 0; i < nr; i++) {
		if (!hashmap_find(&listed, items[i]->key))
			hashmap_insert(&listed, items[i]->key, NULL);
		queue_action(df, DELTA_REPLACED, SOURCE_LIST, false, items[i]);
	}

	/*
	 * Queued keys the list lacks: the tombstone carries the newest queued
	 * state.  A key whose last delta is a real deletion keeps it (the
	 * dedup drops the tombstone) but, as in client-go, still counts
	 * towards the initial population.  Tombstoning an existing key never
	 * adds to the ring, so walking it meanwhile is safe.
	 */
	queued = df->nr;
	for (size_t i = 0; i < queued; i++) {
		struct entry *e = ring_at(df, i);

		if (hashmap_find(&listed, e->key))
			continue;
		queued_deletions++;
		if (queue_action(df, DELTA_DELETED, SOURCE_LIST, true,
				 e->deltas.v[e->deltas.nr - 1].obj))
			tombstones++;
	}

	/* Known keys the list lacks and nothing queued: the cached state. */
	known_gone = fifo_tombstone_known(fifo, &listed, &df->items, tombstone);
	queued_deletions += known_gone;
	tombstones += known_gone;

	*initial = hashmap_len(&listed) + queued_deletions;
	hashmap_release(&listed);
	return tombstones;
}

static size_t delta_fifo_resync(struct fifo *fifo)
{
	struct delta_fifo *df = of(fifo);
	struct kobj_list known;
	size_t queued = 0;

	if (!fifo->known)
		return 0;
	store_list(fifo->known, &known);
	for (size_t i = 0; i < known.nr; i++)
		/* A queued delta is newer than the cache: don't resync over it. */
		if (!hashmap_find(&df->items, known.v[i]->key) &&
		    queue_action(df, DELTA_SYNC, SOURCE_RESYNC, false, known.v[i]))
			queued++;
	kobj_list_release(&known);
	return queued;
}

static size_t delta_fifo_len(struct fifo *fifo)
{
	return of(fifo)->nr;
}

/* One key at a time: the DeltaFIFO has no batch pop. */
static size_t delta_fifo_take(struct fifo *fifo, struct deltas *out,
			      size_t max, size_t initial)
{
	struct delta_fifo *df = of(fifo);
	struct entry *e = ring_shift(df);

	hashmap_remove(&df->items, e->key, NULL);
	*out = e->deltas;
	free(e);
	return 1;
}

const struct fifo_ops delta_fifo_ops = {
	.alloc = delta_fifo_alloc,
	.free = delta_fifo_free,
	.event = delta_fifo_event,
	.replace = delta_fifo_replace,
	.resync = delta_fifo_resync,
	.len = delta_fifo_len,
	.take = delta_fifo_take,
};

/*
 * real_fifo.c — client-go's RealFIFO (tools/cache/the_real_fifo.go):
 * every delta is its own entry, in the order it came, nothing merged; see
 * fifo.h.  Runs under fifo.c's lock (fifo_impl.h).
 *
 * Two generations behind two ops tables:
 *   real_fifo_ops    1.33-1.35 (InOrderInformers): Replace queues the
 *                    tombstones, then a Replaced delta per item, as
 *                    RealFIFO.Replace does; Resync a Sync delta per cached
 *                    key that has nothing queued.
 *   atomic_fifo_ops  1.36 (AtomicFIFO): Replace queues one ReplacedAll
 *                    holding the whole list, Resync one SyncAll; the
 *                    informer reconciles them against the Indexer when
 *                    popped (controller.go processReplacedAllInfo), so the
 *                    queue never reads the Indexer; a watch's bookmark is
 *                    a Bookmark delta (EmitDeltaTypeBookmark).
 * Both pop in batches when asked (1.35's InOrderInformersBatchProcess,
 * RealFIFO.PopBatch): consecutive entries of distinct keys, ReplacedAll,
 * SyncAll and Bookmark always alone.
 */
#include "informer/fifo_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"
#include "lib/util.h"

struct real_fifo {
	struct fifo base;
	struct delta *ring;		/* alloc a power of two */
	size_t head, nr, alloc;
};

static struct real_fifo *of(struct fifo *fifo)
{
	return (struct real_fifo *)fifo;
}

static struct delta *ring_at(struct real_fifo *rf, size_t i)
{
	return &rf->ring[(rf->head + i) & (rf->alloc - 1)];
}

static void ring_resize(struct real_fifo *rf, size_t alloc)
{
	struct delta *ring = xmalloc(alloc * sizeof(*ring));

	for (size_t i = 0; i < rf->nr; i++)
		ring[i] = *ring_at(rf, i);
	free(rf->ring);
	rf->ring = ring;
	rf->alloc = alloc;
	rf->head = 0;
}

/* A new delta at the ring's end; obj may be NULL (a delta of all, a bookmark). */
static struct delta *push(struct real_fifo *rf, enum delta_type type,
			  enum delta_source source, bool tombstone, struct kobj *obj)
{
	struct delta *d;

	if (rf->nr == rf->alloc)
		ring_resize(rf, rf->alloc ? rf->alloc * 2 : 16);
	d = ring_at(rf, rf->nr++);
	*d = fifo_delta(&rf->base, type, source, tombstone, obj);
	return d;
}

static struct fifo *real_fifo_alloc(void)
{
	return &((struct real_fifo *)xcalloc(1, sizeof(struct real_fifo)))->base;
}

static void real_fifo_free(struct fifo *fifo)
{
	struct real_fifo *rf = of(fifo);

	for (size_t i = 0; i < rf->nr; i++)
		delta_release(ring_at(rf, i));
	free(rf->ring);
	free(rf);
}

/* Unlike the DeltaFIFO, client-go's RealFIFO queues every deletion. */
static void real_fifo_event(struct fifo *fifo, enum delta_type type, struct kobj *obj)
{
	push(of(fifo), type, SOURCE_WATCH, false, obj);
}

/* The newest queued delta of one key. */
struct queued {
	struct kobj *obj;	/* the ring holds its reference */
	enum delta_type type;
};

static void tombstone(struct fifo *fifo, struct kobj *obj)
{
	push(of(fifo), DELTA_DELETED, SOURCE_LIST, true, obj);
}

static size_t real_fifo_replace(struct fifo *fifo, struct kobj **items,
				size_t nr, const char *rv, size_t *initial)
{
	struct real_fifo *rf = of(fifo);
	struct hashmap listed = HASHMAP_INIT, last = HASHMAP_INIT;
	struct queued *queued = xmalloc((rf->nr + 1) * sizeof(*queued));
	size_t nr_queued = 0, tombstones = 0;

	for (size_t i = 0; i < nr; i++)
		if (!hashmap_find(&listed, items[i]->key))
			hashmap_insert(&listed, items[i]->key, NULL);

	/* Keys in the queue by first appearance, each with its newest delta. */
	for (size_t i = 0; i < rf->nr; i++) {
		struct delta *d = ring_at(rf, i);
		struct queued *q = hashmap_get(&last, d->obj->key);

		if (!q) {
			q = &queued[nr_queued++];
			hashmap_insert(&last, d->obj->key, q);
		}
		q->obj = d->obj;
		q->type = d->type;
	}

	/*
	 * Every tombstone goes before the listed objects: queued keys the list
	 * lacks and not already ending in a deletion, carrying their newest
	 * queued state, then known keys that are neither listed nor queued.
	 */
	for (size_t i = 0; i < nr_queued; i++) {
		if (queued[i].type == DELTA_DELETED ||
		    hashmap_find(&listed, queued[i].obj->key))
			continue;
		push(rf, DELTA_DELETED, SOURCE_LIST, true, queued[i].obj);
		tombstones++;
	}
	tombstones += fifo_tombstone_known(fifo, &listed, &last, tombstone);
	for (size_t i = 0; i < nr; i++)
		push(rf, DELTA_REPLACED, SOURCE_LIST, false, items[i]);

	/* client-go counts the whole queue, whatever was in it before. */
	*initial = rf->nr;
	hashmap_release(&last);
	hashmap_release(&listed);
	free(queued);
	return tombstones;
}

static size_t real_fifo_resync(struct fifo *fifo)
{
	struct real_fifo *rf = of(fifo);
	struct hashmap in_queue = HASHMAP_INIT;
	struct kobj_list known;
	size_t queued = 0;

	if (!fifo->known)
		return 0;
	for (size_t i = 0; i < rf->nr; i++) {
		const char *key = ring_at(rf, i)->obj->key;

		if (!hashmap_find(&in_queue, key))
			hashmap_insert(&in_queue, key, NULL);
	}
	store_list(fifo->known, &known);
	for (size_t i = 0; i < known.nr; i++)
		if (!hashmap_find(&in_queue, known.v[i]->key)) {
			push(rf, DELTA_SYNC, SOURCE_RESYNC, false, known.v[i]);
			queued++;
		}
	kobj_list_release(&known);
	hashmap_release(&in_queue);
	return queued;
}

static size_t real_fifo_len(struct fifo *fifo)
{
	return of(fifo)->nr;
}

/* PopBatch's batchable types: not the atomic FIFO's, which have no key. */
static bool batchable(const struct delta *d)
{
	return d->type != DELTA_REPLACED_ALL && d->type != DELTA_SYNC_ALL &&
	       d->type != DELTA_BOOKMARK;
}

/*
 * RealFIFO.PopBatch: from the head, while under max (and under initial,
 * when the initial list is still being popped), until a key comes twice
 * or an unbatchable delta (which, at the head, is popped alone).
 */
static size_t real_fifo_take(struct fifo *fifo, struct deltas *out,
			     size_t max, size_t initial)
{
	struct real_fifo *rf = of(fifo);
	struct hashmap keys = HASHMAP_INIT;
	size_t n = 0;

	if (max < 1)
		max = 1;
	if (initial && initial < max)
		max = initial;
	while (n < max && rf->nr) {
		struct delta *d = ring_at(rf, 0);

		if (n && (!batchable(d) || hashmap_find(&keys, d->obj->key)))
			break;
		if (max > 1 && batchable(d))
			hashmap_insert(&keys, d->obj->key, NULL);
		/* The delta's references move to out. */
		deltas_push(out, d);
		rf->head = (rf->head + 1) & (rf->alloc - 1);
		rf->nr--;
		n++;
		if (!batchable(d))
			break;
	}
	hashmap_release(&keys);
	if (rf->alloc > 1024 && rf->nr < rf->alloc / 8)
		ring_resize(rf, rf->alloc / 2);
	return n;
}

/* ---- the atomic RealFIFO (1.36) ------------------------------------------ */

static size_t atomic_fifo_replace(struct fifo *fifo, struct kobj **items,
				  size_t nr, const char *rv, size_t *initial)
{
	struct real_fifo *rf = of(fifo);
	struct delta *d = push(rf, DELTA_REPLACED_ALL, SOURCE_LIST, false, NULL);

	d->all = xmalloc((nr ? nr : 1) * sizeof(*d->all));
	d->nr_all = nr;
	for (size_t i = 0; i < nr; i++)
		d->all[i] = kobj_ref(items[i]);
	snprintf(d->rv, sizeof(d->rv), "%s", rv);
	/* client-go counts the queue: this one delta, and what came before. */
	*initial = rf->nr;
	/* Tombstones are made when it is popped; none queued here. */
	return 0;
}

static size_t atomic_fifo_resync(struct fifo *fifo)
{
	push(of(fifo), DELTA_SYNC_ALL, SOURCE_RESYNC, false, NULL);
	return 1;
}

/* RealFIFO.Bookmark with EmitDeltaTypeBookmark: a delta of its own. */
static void atomic_fifo_bookmark(struct fifo *fifo, const char *rv)
{
	struct delta *d = push(of(fifo), DELTA_BOOKMARK, SOURCE_WATCH, false, NULL);

	snprintf(d->rv, sizeof(d->rv), "%s", rv);
}

const struct fifo_ops real_fifo_ops = {
	.alloc = real_fifo_alloc,
	.free = real_fifo_free,
	.event = real_fifo_event,
	.replace = real_fifo_replace,
	.resync = real_fifo_resync,
	.len = real_fifo_len,
	.take = real_fifo_take,
};

const struct fifo_ops atomic_fifo_ops = {
	.alloc = real_fifo_alloc,
	.free = real_fifo_free,
	.event = real_fifo_event,
	.replace = atomic_fifo_replace,
	.bookmark = atomic_fifo_bookmark,
	.resync = atomic_fifo_resync,
	.len = real_fifo_len,
	.take = real_fifo_take,
	.tombstones_when_popped = true,
};

/*
 * fifo.c — the queue interface: locking, waiting, closing and HasSynced
 * bookkeeping shared by both variants, which it dispatches to through
 * their ops tables; see fifo.h and fifo_impl.h.
 *
 * DESIGN (threads): one mutex per fifo guards the variant's queue and the
 * fields of struct fifo.  Producers (the reflector thread, the resync
 * timer) take it for each operation; the consumer takes it in fifo_pop()
 * and keeps it while `process` runs, so that popping an entry and applying
 * it to the Indexer are one step to Replace and Resync, which read the
 * Indexer under this same mutex.  Lock order is always fifo, then store;
 * the store never calls back.  fifo_pop() waits on `cond`, which every
 * queuing operation and fifo_close() broadcast.
 */
#include "informer/fifo.h"

#include <stdlib.h>
#include <string.h>

#include "informer/fifo_impl.h"

static const struct fifo_ops *const kinds[] = {
	[FIFO_DELTA] = &delta_fifo_ops,
	[FIFO_REAL] = &real_fifo_ops,
	[FIFO_ATOMIC] = &atomic_fifo_ops,
};

struct fifo *fifo_new(enum fifo_kind kind, struct store *known_objects)
{
	const struct fifo_ops *ops = kinds[kind];
	struct fifo *fifo = ops->alloc();

	fifo->ops = ops;
	fifo->known = known_objects;
	pthread_mutex_init(&fifo->lock, NULL);
	pthread_cond_init(&fifo->cond, NULL);
	return fifo;
}

void fifo_free(struct fifo *fifo)
{
	if (!fifo)
		return;
	pthread_cond_destroy(&fifo->cond);
	pthread_mutex_destroy(&fifo->lock);
	fifo->ops->free(fifo);
}

/* Ends every producing operation: wakes poppers if anything is queued. */
static void unlock_and_wake(struct fifo *fifo)
{
	if (fifo->ops->len(fifo))
		pthread_cond_broadcast(&fifo->cond);
	pthread_mutex_unlock(&fifo->lock);
}

static void watch_event(struct fifo *fifo, enum delta_type type,
			struct kobj *obj)
{
	pthread_mutex_lock(&fifo->lock);
	/* Any watch event before the first list counts as populating. */
	fifo->populated = true;
	if (type == DELTA_DELETED)
		fifo->ops->delete(fifo, obj);
	else
		fifo->ops->queue(fifo, type, obj);
	unlock_and_wake(fifo);
}

void fifo_add(struct fifo *fifo, struct kobj *obj)
{
	watch_event(fifo, DELTA_ADDED, obj);
}

void fifo_update(struct fifo *fifo, struct kobj *obj)
{
	watch_event(fifo, DELTA_UPDATED, obj);
}

void fifo_delete(struct fifo *fifo, struct kobj *obj)
{
	watch_event(fifo, DELTA_DELETED, obj);
}

/* Compares the list with the Indexer as it is before the list applies. */
static void count_listed(struct fifo *fifo, struct kobj **items, size_t nr,
			 struct replace_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->listed = nr;
	for (size_t i = 0; i < nr; i++) {
		struct kobj *known;

		known = fifo->known ? store_get(fifo->known, items[i]->key) :
				      NULL;
		if (!known)
			stats->added++;
		else if (strcmp(known->rv, items[i]->rv))
			stats->changed++;
		else
			stats->unchanged++;
		kobj_unref(known);
	}
}

void fifo_replace(struct fifo *fifo, struct kobj **items, size_t nr,
		  unsigned list_no, struct replace_stats *stats)
{
	size_t tombstones, initial = 0;

	pthread_mutex_lock(&fifo->lock);
	if (stats)
		count_listed(fifo, items, nr, stats);
	fifo->list_no = list_no;
	tombstones = fifo->ops->replace(fifo, items, nr, &initial);
	if (!fifo->populated) {
		fifo->populated = true;
		fifo->initial_population = initial;
	}
	if (stats)
		stats->deleted = tombstones;
	unlock_and_wake(fifo);
}

size_t fifo_resync(struct fifo *fifo)
{
	size_t queued;

	pthread_mutex_lock(&fifo->lock);
	queued = fifo->ops->resync(fifo);
	unlock_and_wake(fifo);
	return queued;
}

void fifo_set_batch(struct fifo *fifo, size_t max)
{
	pthread_mutex_lock(&fifo->lock);
	fifo->batch = max;
	pthread_mutex_unlock(&fifo->lock);
}

int fifo_pop(struct fifo *fifo, fifo_process_fn *process, void *ctx)
{
	struct deltas deltas = { 0 };

	size_t taken;

	pthread_mutex_lock(&fifo->lock);
	while (!fifo->closed && !fifo->ops->len(fifo))
		pthread_cond_wait(&fifo->cond, &fifo->lock);
	/* Closed: what is queued is still handed out, then -1 (client-go's Pop). */
	if (!fifo->ops->len(fifo)) {
		pthread_mutex_unlock(&fifo->lock);
		return -1;
	}
	taken = fifo->ops->take(fifo, &deltas, fifo->batch, fifo->initial_population);
	process(ctx, &deltas);
	/* After processing, as 1.36 does: synced means handled, not taken. */
	fifo->initial_population -= taken < fifo->initial_population ?
				    taken : fifo->initial_population;
	pthread_mutex_unlock(&fifo->lock);
	/* The objects are immutable: dropping them needs no lock. */
	deltas_release(&deltas);
	return 0;
}

void fifo_close(struct fifo *fifo)
{
	pthread_mutex_lock(&fifo->lock);
	fifo->closed = true;
	pthread_cond_broadcast(&fifo->cond);
	pthread_mutex_unlock(&fifo->lock);
}

bool fifo_has_synced(struct fifo *fifo)
{
	bool synced;

	pthread_mutex_lock(&fifo->lock);
	synced = fifo->populated && !fifo->initial_population;
	pthread_mutex_unlock(&fifo->lock);
	return synced;
}

size_t fifo_len(struct fifo *fifo)
{
	size_t nr;

	pthread_mutex_lock(&fifo->lock);
	nr = fifo->ops->len(fifo);
	pthread_mutex_unlock(&fifo->lock);
	return nr;
}

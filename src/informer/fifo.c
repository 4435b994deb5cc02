/*
 * fifo.c — the queue interface: locking, waiting, closing and HasSynced
 * bookkeeping shared by both variants, which it dispatches to through
 * their ops tables; see fifo.h and fifo_impl.h.
 *
 * DESIGN (threads): one mutex per fifo guards the variant's queue and the
 * fields of struct fifo.  Producers (the reflector's thread, a resync)
 * take it for each operation; the consumer takes it in fifo_pop()
 * and keeps it while `process` runs, so that popping an entry and applying
 * it to the Indexer are one step to Replace and Resync, which read the
 * Indexer under this same mutex.  Lock order is always fifo, then store;
 * the store never calls back.  fifo_pop() waits on `cond`, which every
 * queuing operation broadcasts unless a producer holds the wake-ups
 * (fifo_hold: then fifo_unhold does, once), fifo_close() and
 * fifo_wake() always; fifo_pop_until() waits on it with a deadline.
 * A replay's pacer (fifo_set_pacer) adds a gate, `allow`: fifo_pop()
 * also waits while it has popped that many, and a producer that set the
 * gate waits on `popped`, which each pop broadcasts while a gate is up,
 * until the consumer reached it or has nothing left.  The pacer's calls
 * are made without the lock.
 */
#include "informer/fifo.h"

#include <stdlib.h>
#include <string.h>

#include "informer/fifo_impl.h"
#include "lib/hashmap.h"
#include "lib/util.h"

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
	fifo->allow = UINT64_MAX;
	pthread_mutex_init(&fifo->lock, NULL);
	cond_init_monotonic(&fifo->cond);
	pthread_cond_init(&fifo->popped, NULL);
	return fifo;
}

void fifo_set_clock(struct fifo *fifo, int64_t (*now)(void *ctx), void *ctx)
{
	fifo->now = now;
	fifo->now_ctx = ctx;
}

void fifo_free(struct fifo *fifo)
{
	if (!fifo)
		return;
	pthread_cond_destroy(&fifo->cond);
	pthread_cond_destroy(&fifo->popped);
	pthread_mutex_destroy(&fifo->lock);
	free(fifo->place);
	fifo->ops->free(fifo);
}

void fifo_set_pacer(struct fifo *fifo, const struct fifo_pacer *pacer, void *ctx)
{
	fifo->pacer = pacer;
	fifo->pacer_ctx = ctx;
}

/* A producing operation's place in the consumer's pace (fifo_set_pacer). */
struct op_pace {
	int64_t due;		/* pops recorded for it; -1: none */
	bool last;		/* no count follows */
	uint64_t pops;		/* when it happened */
};

/*
 * Begins every producing operation: takes the lock, past a replay's
 * gate.  Before the lock, the count a replay recorded for the operation;
 * with it, the consumer may pop up to that count and no further, and the
 * operation waits until it has, or cannot (nothing queued: a replay that
 * went otherwise never waits for ever).
 */
static void op_begin(struct fifo *fifo, struct op_pace *op)
{
	op->due = -1;
	op->last = false;
	if (fifo->pacer && fifo->pacer->next)
		op->due = fifo->pacer->next(fifo->pacer_ctx, &op->last);
	pthread_mutex_lock(&fifo->lock);
	if (op->due >= 0) {
		fifo->allow = (uint64_t)op->due;
		pthread_cond_broadcast(&fifo->cond);
		while (!fifo->closed && fifo->pops < fifo->allow && fifo->ops->len(fifo))
			pthread_cond_wait(&fifo->popped, &fifo->lock);
	}
	op->pops = fifo->pops;
}

/*
 * Ends every producing operation: wakes poppers if anything is queued
 * and no producer holds the wake-ups (fifo_hold), and lets go of the
 * lock.  Then the count is told to a recorder, and the gate lifted
 * after a replay's last.
 */
static void op_end(struct fifo *fifo, struct op_pace *op)
{
	if (!fifo->held) {
		fifo->place_known = false;	/* queued outside a hold: from nowhere known */
		if (fifo->ops->len(fifo))
			pthread_cond_broadcast(&fifo->cond);
	}
	pthread_mutex_unlock(&fifo->lock);
	if (op->due >= 0 && op->last) {
		pthread_mutex_lock(&fifo->lock);
		fifo->allow = UINT64_MAX;
		pthread_cond_broadcast(&fifo->cond);
		pthread_mutex_unlock(&fifo->lock);
	}
	if (fifo->pacer && fifo->pacer->mark)
		fifo->pacer->mark(fifo->pacer_ctx, op->pops);
}

void fifo_hold(struct fifo *fifo)
{
	pthread_mutex_lock(&fifo->lock);
	fifo->held++;
	fifo->place_known = false;
	pthread_mutex_unlock(&fifo->lock);
}

void fifo_unhold(struct fifo *fifo, const struct fifo_place *at)
{
	pthread_mutex_lock(&fifo->lock);
	if (fifo->held)
		fifo->held--;
	if (fifo->held) {
		pthread_mutex_unlock(&fifo->lock);
		return;
	}
	if (fifo->ops->len(fifo)) {
		pthread_cond_broadcast(&fifo->cond);
	} else if (fifo->place_wanted) {
		fifo->woken = true;
		pthread_cond_broadcast(&fifo->cond);
	}
	if (!fifo->place)
		fifo->place = xmalloc(sizeof(*fifo->place));
	*fifo->place = *at;
	fifo->place_known = true;
	fifo->place_wanted = false;
	pthread_mutex_unlock(&fifo->lock);
}

bool fifo_drained_at(struct fifo *fifo, struct fifo_place *at)
{
	bool known;

	pthread_mutex_lock(&fifo->lock);
	known = fifo->place_known && !fifo->ops->len(fifo);
	if (known)
		*at = *fifo->place;
	fifo->place_wanted = !known;
	pthread_mutex_unlock(&fifo->lock);
	return known;
}

static void watch_event(struct fifo *fifo, enum delta_type type,
			struct kobj *obj)
{
	struct op_pace op;

	op_begin(fifo, &op);
	/* Any watch event before the first list counts as populating. */
	fifo->populated = true;
	fifo->ops->event(fifo, type, obj);
	op_end(fifo, &op);
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

struct relist_sample *relist_sample_dup(const struct relist_sample *s)
{
	struct relist_sample *d;

	if (!s)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	for (int c = 0; c < RELIST__CLASSES; c++) {
		d->nr[c] = s->nr[c];
		for (size_t i = 0; i < s->nr[c]; i++) {
			d->v[c][i].key = xstrdup(s->v[c][i].key);
			d->v[c][i].old_rv = xstrdup_or_null(s->v[c][i].old_rv);
			d->v[c][i].new_rv = xstrdup_or_null(s->v[c][i].new_rv);
		}
	}
	return d;
}

void relist_sample_free(struct relist_sample *s)
{
	if (!s)
		return;
	for (int c = 0; c < RELIST__CLASSES; c++)
		for (size_t i = 0; i < s->nr[c]; i++) {
			free(s->v[c][i].key);
			free(s->v[c][i].old_rv);
			free(s->v[c][i].new_rv);
		}
	free(s);
}

static void sample_add(struct replace_stats *stats, enum relist_class c,
		       const char *key, const char *old_rv, const char *new_rv)
{
	struct relist_sample *s = stats->sample;

	if (s->nr[c] == RELIST_SAMPLE_MAX)
		return;
	s->v[c][s->nr[c]++] = (struct relist_key){
		xstrdup(key), xstrdup_or_null(old_rv), xstrdup_or_null(new_rv),
	};
}

/*
 * Compares the list with the Indexer as it is before the list applies.
 * Deleted: the known keys the list lacks (fifo_replace() adds the
 * tombstones of keys only queued, which are not sampled).
 */
static void count_listed(struct fifo *fifo, struct kobj **items, size_t nr,
			 struct replace_stats *stats)
{
	struct hashmap listed = HASHMAP_INIT;
	struct kobj_list known = { 0 };

	memset(stats, 0, sizeof(*stats));
	stats->listed = nr;
	if (!fifo->known || !store_len(fifo->known)) {
		stats->added = nr;
		return;
	}
	stats->sample = xcalloc(1, sizeof(*stats->sample));
	for (size_t i = 0; i < nr; i++) {
		struct kobj *was = store_get(fifo->known, items[i]->key);

		if (!was) {
			stats->added++;
			sample_add(stats, RELIST_ADDED, items[i]->key, NULL, items[i]->rv);
		} else if (strcmp(was->rv, items[i]->rv)) {
			stats->changed++;
			sample_add(stats, RELIST_CHANGED, items[i]->key, was->rv, items[i]->rv);
		} else {
			stats->unchanged++;
		}
		kobj_unref(was);
		if (!hashmap_find(&listed, items[i]->key))
			hashmap_insert(&listed, items[i]->key, items[i]);
	}
	store_list(fifo->known, &known);
	for (size_t i = 0; i < known.nr; i++) {
		if (hashmap_find(&listed, known.v[i]->key))
			continue;
		stats->known_gone++;
		sample_add(stats, RELIST_DELETED, known.v[i]->key, known.v[i]->rv, NULL);
	}
	kobj_list_release(&known);
	hashmap_release(&listed);
}

void fifo_replace(struct fifo *fifo, struct kobj **items, size_t nr,
		  const char *rv, unsigned list_no, struct replace_stats *stats)
{
	size_t tombstones, initial = 0;
	struct op_pace op;

	op_begin(fifo, &op);
	if (stats)
		count_listed(fifo, items, nr, stats);
	fifo->list_no = list_no;
	tombstones = fifo->ops->replace(fifo, items, nr, rv ? rv : "", &initial);
	if (!fifo->populated) {
		fifo->populated = true;
		fifo->initial_population = initial;
	}
	/*
	 * The tombstones queued now; the atomic FIFO makes its own when the
	 * ReplacedAll is popped: the known keys the list lacks, as now.
	 */
	if (stats)
		stats->deleted = fifo->ops->tombstones_when_popped ? stats->known_gone
								   : tombstones;
	op_end(fifo, &op);
}

void fifo_bookmark(struct fifo *fifo, const char *rv)
{
	struct op_pace op;

	if (!fifo->ops->bookmark)
		return;
	op_begin(fifo, &op);
	/* Unlike an event, it does not populate (RealFIFO.Bookmark). */
	fifo->ops->bookmark(fifo, rv);
	op_end(fifo, &op);
}

size_t fifo_resync(struct fifo *fifo)
{
	size_t queued;

	pthread_mutex_lock(&fifo->lock);
	queued = fifo->ops->resync(fifo);
	/* Sync deltas change no object of the Indexer: the place stays known. */
	if (!fifo->held && fifo->ops->len(fifo))
		pthread_cond_broadcast(&fifo->cond);
	pthread_mutex_unlock(&fifo->lock);
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
	int rc;

	while ((rc = fifo_pop_until(fifo, process, ctx, 0)) == 1)
		;	/* a fifo_wake() for someone else's deadline */
	return rc;
}

/* Under fifo->lock: whether a pop may take an entry now. */
static bool poppable(struct fifo *fifo)
{
	/* a replay's gate holds entries back until their producer catches up */
	return fifo->ops->len(fifo) && fifo->pops < fifo->allow;
}

int fifo_pop_until(struct fifo *fifo, fifo_process_fn *process, void *ctx,
		   int64_t deadline_ms)
{
	struct deltas deltas = { 0 };
	size_t taken;

	pthread_mutex_lock(&fifo->lock);
	while (!fifo->closed && !poppable(fifo) && !fifo->woken) {
		if (!deadline_ms)
			pthread_cond_wait(&fifo->cond, &fifo->lock);
		else if (cond_wait_until(&fifo->cond, &fifo->lock, deadline_ms))
			break;
	}
	if (!fifo->closed && !poppable(fifo)) {
		fifo->woken = false;
		pthread_mutex_unlock(&fifo->lock);
		return 1;
	}
	fifo->woken = false;
	/* Closed: what is queued is still handed out, then -1 (client-go's Pop). */
	if (!fifo->ops->len(fifo)) {
		pthread_mutex_unlock(&fifo->lock);
		return -1;
	}
	bool initial = !fifo->populated || fifo->initial_population;
	taken = fifo->ops->take(fifo, &deltas, fifo->batch, fifo->initial_population);
	fifo->pops++;
	for (size_t i = 0; i < deltas.nr; i++)
		deltas.v[i].initial_list = initial;
	process(ctx, &deltas);
	/* After processing, as 1.36 does: synced means handled, not taken. */
	fifo->initial_population -= taken < fifo->initial_population ?
				    taken : fifo->initial_population;
	if (fifo->allow != UINT64_MAX)
		pthread_cond_broadcast(&fifo->popped);
	pthread_mutex_unlock(&fifo->lock);
	/* The objects are immutable: dropping them needs no lock. */
	deltas_release(&deltas);
	return 0;
}

void fifo_wake(struct fifo *fifo)
{
	pthread_mutex_lock(&fifo->lock);
	fifo->woken = true;
	pthread_cond_broadcast(&fifo->cond);
	pthread_mutex_unlock(&fifo->lock);
}

void fifo_close(struct fifo *fifo)
{
	pthread_mutex_lock(&fifo->lock);
	fifo->closed = true;
	pthread_cond_broadcast(&fifo->cond);
	pthread_cond_broadcast(&fifo->popped);	/* a gated producer waits no more */
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

/*
 * fifo_impl.h — the contract between fifo.c and the queue variants behind
 * it (delta_fifo.c, real_fifo.c), and the helpers the variants share
 * (fifo_impl.c).  Not for other modules: they use fifo.h.
 *
 * fifo.c owns the lock, the condition variable, closing, Pop's waiting and
 * the populated / initial-population bookkeeping; a variant owns only its
 * queue and implements the operations below.  Every op is called with
 * fifo->lock held and must neither block nor unlock.  fifo.c wakes poppers
 * after each op, so ops need not signal.
 */
#ifndef KINF_FIFO_IMPL_H
#define KINF_FIFO_IMPL_H

#include <pthread.h>

#include "informer/delta.h"
#include "informer/store.h"

struct fifo_place;
struct hashmap;

/* The part every variant embeds first. */
struct fifo {
	const struct fifo_ops *ops;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct store *known;	/* may be NULL: nothing known */
	bool closed;
	bool woken;		/* fifo_wake() since the last fifo_pop_until() */
	bool populated;
	size_t initial_population;
	unsigned list_no;	/* of the last Replace; tags later deltas */
	size_t batch;		/* most entries one pop may take; 0 or 1: one */
	unsigned held;		/* fifo_hold()s not yet undone by fifo_unhold() */
	struct fifo_place *place;	/* fifo_unhold()'s, while place_known (owned) */
	bool place_known;
	bool place_wanted;	/* fifo_drained_at() found none: wake at the next */
	int64_t (*now)(void *ctx);	/* fifo_set_clock(); NULL: mono_ms() */
	void *now_ctx;
	/* fifo_set_pacer(); NULL: none */
	const struct fifo_pacer *pacer;
	void *pacer_ctx;
	uint64_t pops;		/* fifo_pop()s that handed something out */
	uint64_t allow;		/* a replay's gate: pops may not pass it */
	pthread_cond_t popped;	/* broadcast after each pop, for a gated producer */
};

struct fifo_ops {
	struct fifo *(*alloc)(void);	/* zeroed but for the variant's own */
	void (*free)(struct fifo *fifo);	/* drops what is queued too */
	/* A watch event: Added, Updated or Deleted. */
	void (*event)(struct fifo *fifo, enum delta_type type, struct kobj *obj);
	/*
	 * Queues the list's deltas; returns the tombstones queued and sets
	 * *initial to what the first Replace would count as the initial
	 * population (fifo.c decides whether this is the first).
	 */
	size_t (*replace)(struct fifo *fifo, struct kobj **items, size_t nr,
			  const char *rv, size_t *initial);
	/* A watch's bookmark (fifo_bookmark); NULL: ignored. */
	void (*bookmark)(struct fifo *fifo, const char *rv);
	/* Returns how many deltas it queued. */
	size_t (*resync)(struct fifo *fifo);
	size_t (*len)(struct fifo *fifo);
	/*
	 * Moves the oldest entries' deltas to out (empty, not NULL); len > 0.
	 * At most `max` entries (a batch: at least one) and at most
	 * `initial` when that is not 0, so that a batch never straddles the
	 * end of the initial list.  Returns how many entries it took.
	 */
	size_t (*take)(struct fifo *fifo, struct deltas *out, size_t max,
		       size_t initial);
	/*
	 * The tombstones of a Replace are made when its ReplacedAll is
	 * popped, against the Indexer then (the atomic FIFO): replace()
	 * returns none, and a relist's count of them is an estimate.
	 */
	bool tombstones_when_popped;
};

extern const struct fifo_ops delta_fifo_ops;
extern const struct fifo_ops real_fifo_ops;
extern const struct fifo_ops atomic_fifo_ops;

/* A delta holding a new reference to obj, stamped with the time now. */
struct delta fifo_delta(struct fifo *fifo, enum delta_type type,
			enum delta_source source, bool tombstone,
			struct kobj *obj);

/*
 * Relist tombstones for what the cache knows but nobody mentioned: calls
 * tombstone() with the cached state of every known key that is in neither
 * listed nor queued (maps keyed by object key), and returns how many.
 */
size_t fifo_tombstone_known(struct fifo *fifo, const struct hashmap *listed,
			    const struct hashmap *queued,
			    void (*tombstone)(struct fifo *fifo, struct kobj *obj));

#endif

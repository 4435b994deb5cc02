/*
 * fifo_impl.h — what fifo.c shares with the queue variants behind it
 * (delta_fifo.c, real_fifo.c).  Not for other modules: they use fifo.h.
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

#include "fifo.h"

/* The part every variant embeds first. */
struct fifo {
	const struct fifo_ops *ops;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct store *known;	/* may be NULL: nothing known */
	bool closed;
	bool populated;
	size_t initial_population;
	unsigned list_no;	/* of the last Replace; tags later deltas */
};

struct fifo_ops {
	struct fifo *(*alloc)(void);	/* zeroed but for the variant's own */
	void (*free)(struct fifo *fifo);	/* drops what is queued too */
	/* Added or Updated from a watch. */
	void (*queue)(struct fifo *fifo, enum delta_type type,
		      struct kobj *obj);
	void (*delete)(struct fifo *fifo, struct kobj *obj);
	/*
	 * Queues the list's deltas; returns the tombstones queued and sets
	 * *initial to what the first Replace would count as the initial
	 * population (fifo.c decides whether this is the first).
	 */
	size_t (*replace)(struct fifo *fifo, struct kobj **items, size_t nr,
			  size_t *initial);
	void (*resync)(struct fifo *fifo);
	size_t (*len)(struct fifo *fifo);
	/* Moves the oldest entry's deltas to out (empty, not NULL); len > 0. */
	void (*take)(struct fifo *fifo, struct deltas *out);
};

extern const struct fifo_ops delta_fifo_ops;
extern const struct fifo_ops real_fifo_ops;

/* A delta holding a new reference to obj, stamped with the time now. */
struct delta fifo_delta(struct fifo *fifo, enum delta_type type,
			enum delta_source source, bool tombstone,
			struct kobj *obj);

#endif

/*
 * workqueue.h — client-go's rate-limited delaying work queue, for the
 * simulated controller: a queue of keys, with the rules that decide when
 * a change of an object is merged into work already pending.
 *
 * Three sets, as client-go's Typed queue keeps them:
 *   queue       the keys waiting for a worker, in order; each is dirty
 *               and not processing;
 *   dirty       every key that needs processing;
 *   processing  the keys a worker holds between Get and Done.
 *
 *   Add     a dirty key is not added again (WQ_COALESCED); otherwise it
 *           becomes dirty, and is queued unless a worker holds it
 *           (WQ_DIRTY: it is queued again at Done) (WQ_NEW).
 *   Get     the oldest queued key: no longer dirty, now processing.
 *   Done    no longer processing; queued again when it became dirty
 *           meanwhile.
 *   AddAfter     a key added once its delay has passed (0 or less: now);
 *                a key already waiting keeps the earlier of its times.
 *   AddRateLimited  AddAfter with ratelimit.h's When(); Forget and
 *                NumRequeues are the rate limiter's.
 *
 * Follows client-go v0.36.2 (kubernetes v1.36.2) util/workqueue:
 * queue.go Typed.Add/Get/Done/ShutDown, delaying_queue.go AddAfter and
 * waitingLoop's insert, rate_limiting_queue.go AddRateLimited/Forget/
 * NumRequeues, and metrics.go for the metrics below.  Pinned by
 * tests/unit/test_workqueue.c against client-go's queue_test.go cases.
 *
 * Metrics, as client-go's defaultQueueMetrics counts them:
 *   depth     +1 at each Add that is not coalesced, -1 at each Get
 *   adds      Adds that were not coalesced
 *   retries   every AddAfter (AddRateLimited and a requeue-after too)
 *   queue_duration  from a key's first Add to its Get
 *   work_duration   from Get to Done
 *   longest_running_processor  the oldest Get not yet Done, at now
 *
 * Time is the caller's: every call that depends on it takes now, in ms
 * on the simulation's clock, and the queue never reads a clock or
 * sleeps; nothing is ever "due" until a caller moves time on with
 * workqueue_pop_ready().
 *
 * Single-threaded by design: the simulated controller is a discrete-event
 * simulation on a virtual clock, whose "workers" are events, not threads,
 * so that a replay gives the same answer every time.  No locks; the owner
 * calls from one thread.
 *
 * Ownership: keys are copied in.  A key returned by workqueue_get() stays
 * valid until its workqueue_done().
 */
#ifndef KINF_WORKQUEUE_H
#define KINF_WORKQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an Add did, and AddAfter's WQ_WAITING. */
enum wq_add {
	WQ_NEW,		/* queued */
	WQ_COALESCED,	/* already dirty: nothing changed */
	WQ_DIRTY,	/* a worker holds it: queued again at Done */
	WQ_WAITING,	/* AddAfter: waiting for its time */
	WQ_SHUT,	/* shutting down: ignored */
};
const char *wq_add_name(enum wq_add how);	/* "new", "coalesced", ... */

/*
 * The histograms' buckets, as client-go's prometheus provider has them
 * (ExponentialBuckets(10e-9, 10, 10)): bucket k counts the durations of
 * at most 10^(k-8) s and more than the bucket before's bound; longer
 * ones are counted only in the totals.
 */
#define WQ_BUCKETS 10

struct workqueue_metrics {
	int64_t depth;
	uint64_t adds, retries;
	uint64_t queue_count, work_count;
	uint64_t queue_buckets[WQ_BUCKETS], work_buckets[WQ_BUCKETS];
	int64_t queue_sum_ms, queue_max_ms;
	int64_t work_sum_ms, work_max_ms;
	int64_t longest_running_ms;	/* 0: nothing processing */
	int64_t unfinished_ms;		/* the sum of every running one's age */
	size_t waiting;			/* AddAfter keys not yet due */
};

struct workqueue;

struct workqueue *workqueue_new(void);
void workqueue_free(struct workqueue *q);	/* NULL: no-op */

enum wq_add workqueue_add(struct workqueue *q, const char *key, int64_t now);
/* The oldest queued key, or NULL when none is (Get never blocks here). */
const char *workqueue_get(struct workqueue *q, int64_t now);
/* true when the key became dirty meanwhile and was queued again. */
bool workqueue_done(struct workqueue *q, const char *key, int64_t now);
void workqueue_shut_down(struct workqueue *q);
size_t workqueue_len(const struct workqueue *q);
bool workqueue_is_dirty(const struct workqueue *q, const char *key);
bool workqueue_is_processing(const struct workqueue *q, const char *key);
/* Dirty, processing or waiting: the queue still has a use for the key. */
bool workqueue_knows(const struct workqueue *q, const char *key);

enum wq_add workqueue_add_after(struct workqueue *q, const char *key,
				int64_t delay_ms, int64_t now);
/* The earliest time a waiting key is due, or -1 when none waits. */
int64_t workqueue_next_ready(struct workqueue *q);
/*
 * Adds every waiting key due at or before now, earliest first (ties in
 * the order they were asked), calling added(ctx, key, how) after each.
 */
void workqueue_pop_ready(struct workqueue *q, int64_t now,
			 void (*added)(void *ctx, const char *key, enum wq_add how,
				       int64_t due),
			 void *ctx);

/* Returns the delay asked of the rate limiter. */
int64_t workqueue_add_rate_limited(struct workqueue *q, const char *key, int64_t now);
void workqueue_forget(struct workqueue *q, const char *key);
unsigned workqueue_num_requeues(const struct workqueue *q, const char *key);

void workqueue_get_metrics(const struct workqueue *q, int64_t now,
			   struct workqueue_metrics *out);

#endif

/*
 * workqueue.h — the simulated controller's work queue, of either kind
 * controller-runtime builds by default: a queue of keys, with the rules
 * that decide when a change of an object is merged into work already
 * pending.
 *
 *   WQ_CLASSIC   client-go's rate-limited delaying queue, with
 *                DefaultTypedControllerRateLimiter (controller-runtime
 *                v0.15 to v0.22);
 *   WQ_PRIORITY  controller-runtime's priority queue, with a per-item
 *                exponential limiter only (v0.23 and later).
 *
 * WQ_CLASSIC keeps three sets, as client-go's Typed queue keeps them:
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
 *   AddAfter     a key added once its delay has passed; a key already
 *                waiting keeps the earlier of its times.
 *   AddRateLimited  AddAfter with ratelimit.h's When(); Forget and
 *                NumRequeues are the rate limiter's.
 *
 * WQ_PRIORITY keeps each key it holds either ready or waiting, and a key
 * a worker holds (Get to Done) apart: a new Add of it makes a new entry,
 * ready but not handed out until Done.
 *   ready    ordered by priority (higher first), then by the order in
 *            which each entry was added, became ready, or was raised;
 *   waiting  ordered by the time it is due.
 *   AddWithOpts  (workqueue_add_with) a key neither ready nor waiting is
 *            added with the priority given, ready or waiting for its
 *            delay (a rate-limited add: the limiter's delay, or the
 *            delay given when shorter).  A ready key stays ready
 *            (WQ_COALESCED), whatever delay is asked; a waiting key
 *            added with no delay becomes ready at once and its timer is
 *            gone (WQ_EARLY); with a delay it keeps the earlier time.  A
 *            higher priority raises the key's and moves it to the end of
 *            its new priority; a lower one is ignored.
 *   Get      the first ready key no worker holds.
 *   Done     lets the worker's key go (it may be ready again already).
 *   A waiting key that comes due becomes ready, at the end of its
 *   priority.
 * Follows controller-runtime v0.24.1 pkg/controller/priorityqueue
 * (priorityqueue.go: lockedAddWithOpts, handleWaitingItems,
 * handleReadyItems, lessReady, lessWaiting; metrics.go).
 *
 * WQ_CLASSIC follows client-go v0.36.2 (kubernetes v1.36.2) util/workqueue:
 * queue.go Typed.Add/Get/Done, delaying_queue.go AddAfter and
 * waitingLoop's insert, rate_limiting_queue.go AddRateLimited/Forget/
 * NumRequeues, and metrics.go for the metrics below.  Pinned by
 * tests/unit/test_workqueue.c against client-go's queue_test.go cases.
 *
 * Metrics, as client-go's defaultQueueMetrics counts them:
 *   depth     +1 at each Add that is not coalesced, -1 at each Get
 *   adds      Adds that were not coalesced
 *   retries   every AddAfter (AddRateLimited and a requeue-after too)
 * (WQ_PRIORITY, as its own metrics.go counts: depth and adds when a key
 * becomes ready, retries for a delay over 0 only),
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
 * Ownership: keys are copied in.  A key returned by workqueue_get_priority() stays
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
	WQ_EARLY,	/* WQ_PRIORITY: a waiting key made ready, its timer gone */
	WQ_NONE,	/* nothing added (and how many the others are) */
};
const char *wq_add_name(enum wq_add how);	/* "new", "coalesced", ... */

enum wq_kind { WQ_CLASSIC, WQ_PRIORITY };

/* controller-runtime's handler.LowPriority: initial-list and unchanged-RV events */
#define WQ_LOW_PRIORITY (-100)

/*
 * The histograms' buckets, as controller-runtime's metrics provider has
 * them (ExponentialBuckets(10e-9, 10, 12) since v0.17, 10 before): bucket
 * k counts the durations of at most 10^(k-8) s and more than the bucket
 * before's bound; longer ones are counted only in the totals.
 */
#define WQ_BUCKETS 12

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

struct workqueue *workqueue_new(enum wq_kind kind);
void workqueue_free(struct workqueue *q);	/* NULL: no-op */

/*
 * The oldest queued key (WQ_PRIORITY: the first by priority), or NULL
 * when none is (Get never blocks here); *priority (may be NULL): its
 * priority (WQ_CLASSIC: 0).  GetWithPriority.
 */
const char *workqueue_get_priority(struct workqueue *q, int64_t now, int *priority);
/* true when the key became dirty meanwhile and was queued again. */
bool workqueue_done(struct workqueue *q, const char *key, int64_t now);
size_t workqueue_len(const struct workqueue *q);
bool workqueue_is_dirty(const struct workqueue *q, const char *key);
bool workqueue_is_processing(const struct workqueue *q, const char *key);
/* Dirty, processing or waiting: the queue still has a use for the key. */
bool workqueue_knows(const struct workqueue *q, const char *key);

/* The earliest time a waiting key is due, or -1 when none waits. */
int64_t workqueue_next_ready(struct workqueue *q);
/*
 * Adds every waiting key due at or before now, earliest first (ties in
 * the order they were asked), calling added(ctx, key, how) after each
 * (added may be NULL).
 */
void workqueue_pop_ready(struct workqueue *q, int64_t now,
			 void (*added)(void *ctx, const char *key, enum wq_add how),
			 void *ctx);

/* What controller-runtime's AddWithOpts takes. */
struct wq_opts {
	int64_t after_ms;	/* > 0: the key waits this long */
	bool rate_limited;	/* the limiter's delay (or after_ms when shorter) */
	int priority;		/* WQ_PRIORITY only */
};
/*
 * AddWithOpts: WQ_PRIORITY's own; WQ_CLASSIC's as controller-runtime's
 * wrapper maps it (rate_limited: AddRateLimited, else after_ms > 0:
 * AddAfter, else Add).  *delay (may be NULL): the delay asked, 0 none.
 */
enum wq_add workqueue_add_with(struct workqueue *q, const char *key,
			       const struct wq_opts *o, int64_t now, int64_t *delay);

void workqueue_forget(struct workqueue *q, const char *key);
unsigned workqueue_num_requeues(const struct workqueue *q, const char *key);

void workqueue_get_metrics(const struct workqueue *q, int64_t now,
			   struct workqueue_metrics *out);

#endif

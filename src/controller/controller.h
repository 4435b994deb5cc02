/*
 * controller.h — a simulated controller-runtime controller on top of an
 * informer's notifications: predicates, handler, workqueue and workers,
 * and what each Reconcile would have read.  For `kinf watch --controller`
 * and `kinf replay --controller`.
 *
 * A discrete-event simulation on a virtual clock, single-threaded.  The
 * consumer hands it every notification it drains (controller_note); each
 * carries the producer's clock (delta.clock_ms: monotonic ms live, the
 * recording's time on a replay), so the simulation's time, and every
 * answer it gives, depend only on the notifications and the options:
 * a replay gives the same records every time (of one resource: kinf
 * does not fix the order in which several informers' notifications
 * interleave, and a notification older than the clock is taken at the
 * clock's time).  Between notifications the
 * consumer moves time on with controller_advance(), to its own clock
 * (opts.now) when it has one, and asks controller_wait_ms() how long it
 * may sleep before the next timer (a Reconcile ending, a delayed add).
 *
 * What is simulated, in the order controller-runtime does it:
 *   1. the event: Add -> Create, Update -> Update, Delete -> Delete (a
 *      tombstone: DeleteStateUnknown); resync-only updates are Updates;
 *   2. the predicates (predicate.h): the event filter's (every source's,
 *      WithEventFilter) first, then the source's own: For()'s for the
 *      controller's kind, Owns()'s for the others.  A drop is a Filtered
 *      record;
 *   3. the handler (handler.h): each key it makes is Added to the queue
 *      (workqueue.h, of the kind opts.runtime_minor's controller-runtime
 *      makes by default): an Enqueued record, new, coalesced or dirty.
 *      With the priority queue (v0.23+) a Create of the initial list and
 *      an Update whose resourceVersion did not change (a resync's, a
 *      relist's unchanged object) are Added at WQ_LOW_PRIORITY.  Its
 *      adds pass through a buffer (AddWithOpts, handleAddBuffer): those
 *      of one list's Replace or one resync in the same ms reach the
 *      workers together, highest priority first;
 *   4. once every source has synced (opts.sources informers said
 *      ACT_SYNCED: controller-runtime's Start waits for each source's
 *      WaitForSync before it starts a worker), at the next tick of
 *      client-go's WaitForCacheSync (every 100 ms from opts.start_ms,
 *      the manager's wait for its caches), and from v0.23 one tick
 *      later (the Kind source's wait for its handler to have had the
 *      initial list), opts.workers workers
 *      (MaxConcurrentReconciles) Get keys; each
 *      Reconcile reads the key's newest object the handlers were handed
 *      by then (the cache as they saw it) and lasts a time drawn from
 *      [reconcile_min_ms, reconcile_max_ms] by a PRNG seeded with
 *      opts.seed; a ReconcileStart record names the RV read and the
 *      states the key had that no Reconcile read (unseen states);
 *   5. at its end (ReconcileDone), as reconcileHandler, with the outcome
 *      the script (outcome.h) gives the Reconcile when it starts, else an
 *      error drawn with error_rate, else requeue_after_ms, else success:
 *      an error or a Requeue is AddRateLimited, a terminal error is not
 *      requeued, a RequeueAfter is Forget and AddAfter, a success Forget;
 *      each add at the priority the key was handed out with.  Then Done,
 *      which queues the key again if it became dirty meanwhile.  A
 *      status write (outcome.h) is a success whose write comes back, at
 *      once, as an Update of the object the Reconcile read with a new
 *      resourceVersion ("105+w1": simulated, no server saw it) and the
 *      same generation, labels and annotations: the predicates judge it
 *      as a status change, so without one the key is reconciled again and
 *      again (the hot loop), with generation it is filtered.  A drain (a
 *      replay's end) writes nothing: no event follows a recording.
 * What is not: the Reconcile's own writes and their watch events (but
 * the scripted status write), the informer cache's lag behind the
 * server, leader election, and a real
 * scheduler's order between workers that end at the same ms (kinf takes
 * the lowest worker first, then delayed adds).
 *
 * Follows controller-runtime v0.24.1 pkg/internal/controller/controller.go
 * (Start, startEventSourcesAndQueueLocked, processNextWorkItem,
 * reconcileHandler), pkg/handler/eventhandler.go (the low priority),
 * pkg/builder/controller.go (which predicates a source gets) and
 * pkg/internal/source event_handler.go; v0.15 to v0.22 differ in the
 * queue only (pkg/controller/controller.go NewTypedUnmanaged's default);
 * see workqueue.h, predicate.h and handler.h for theirs.
 *
 * Records go to opts.record as they happen; their pointers live for the
 * call only.  Single-threaded: one thread calls everything.
 * Ownership: the controller takes references to the objects it keeps.
 */
#ifndef KINF_CONTROLLER_H
#define KINF_CONTROLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/outcome.h"
#include "controller/predicate.h"
#include "controller/workqueue.h"

struct notification;

/* The controller-runtime versions kinf knows: v0.15 (client-go 1.27) to v0.24 (1.36). */
#define CONTROLLER_RUNTIME_OLDEST 15
#define CONTROLLER_RUNTIME_NEWEST 24

enum ctl_record_type {
	CTL_FILTERED,
	CTL_ENQUEUED,
	CTL_RECONCILE_START,
	CTL_RECONCILE_DONE,
	CTL_NEVER_RECONCILED,	/* at the end: states left unread */
	CTL_STILL_QUEUED,	/* at the end: states left unread, the key queued or running */
	CTL_DIVERGED,		/* a check found the key's cache not the server's */
	CTL__TYPES
};
/*
 * "Filtered", "Enqueued", "ReconcileStart", "ReconcileDone",
 * "NeverReconciled", "StillQueued", "Diverged"
 */
const char *ctl_record_name(enum ctl_record_type type);

/* A state of a key that no Reconcile read, and why. */
struct ctl_unseen {
	const char *rv;
	const char *reason;	/* "coalesced while queued", "filtered by generation" */
};

struct ctl_record {
	enum ctl_record_type type;
	int64_t clock_ms;		/* the simulation's time */
	const char *key;		/* the request's key */
	/* Filtered, and Enqueued for an event: the object's own key (not
	 * the request's with --enqueue-owner); else NULL. */
	const char *object;
	/* The delta behind it, or NULL (a timer: a delayed add's end). */
	const char *delta;		/* "Added", "Updated", ... */
	/*
	 * ... and the event controller-runtime's handler was given for it:
	 * "Create", "Update" or "Delete"; initial: a Create of the initial list.
	 */
	const char *event;
	bool initial;
	const char *rv;			/* its object's resourceVersion */
	bool state_unknown;		/* a tombstone's Delete */
	const char *predicate;		/* Filtered: the term that dropped it */
	enum wq_add how;		/* Enqueued */
	bool priority_queue;		/* the queue has priorities: priority says */
	int priority;			/* Enqueued, ReconcileStart */
	int64_t after_ms;		/* Enqueued WQ_WAITING: the delay */
	/* Enqueued: "event", "status-write", "requeue-after", "rate-limited", "delayed" */
	const char *cause;
	unsigned worker;		/* ReconcileStart/Done: 1.. */
	unsigned number;		/* ReconcileStart/Done: the n-th Reconcile */
	const char *read_rv;		/* ReconcileStart: NULL when not in the cache */
	size_t deltas;			/* ReconcileStart: events that asked for it */
	const struct ctl_unseen *unseen;	/* ReconcileStart, NeverReconciled */
	size_t nr_unseen;
	/* ReconcileDone: outcome_name()'s */
	const char *result;
	const char *error;		/* ReconcileDone: NULL, or the error */
	int64_t took_ms;		/* ReconcileDone */
	int64_t requeue_ms;		/* ReconcileDone: the delay asked, or -1 */
	unsigned requeues;		/* ReconcileDone: NumRequeues after it */
	bool dirty;			/* ReconcileDone: queued again at Done */
	/* Diverged: "missing", "extra" or "stale"; the RVs (NULL: none), lost or lagging */
	const char *verify_class;
	const char *server_rv, *cache_rv;
	bool lost;
	const char *kind;		/* the controller's kind (opts.kind), or NULL */
};
typedef void ctl_record_fn(void *ctx, const struct ctl_record *r);

struct controller_opts {
	unsigned workers;		/* 0: 1 */
	int64_t reconcile_min_ms, reconcile_max_ms;
	int64_t requeue_after_ms;	/* 0: none */
	double error_rate;		/* 0..1 */
	uint64_t seed;
	/* What the Reconciles return, scripted (borrowed), or NULL. */
	struct outcome_script *outcomes;
	struct predicates predicates;		/* For()'s: the controller's kind */
	struct predicates owns_predicates;	/* Owns()'s: the owned kinds */
	struct predicates event_filter;		/* WithEventFilter: every kind */
	const char *owner;		/* --enqueue-owner KIND[.GROUP], or NULL */
	/* The owner kind's group when owner names none (the For informer's). */
	const char *owner_group;
	unsigned runtime_minor;		/* controller-runtime v0.N, 15..24; 0: 24 */
	unsigned sources;		/* informers to sync before workers start; 0: none */
	/*
	 * The clock when the manager started (kinf's start live, 0 on a
	 * replay: the recording's): its cache-sync polls tick from there.
	 */
	int64_t start_ms;
	/* Its kind, for its records when several controllers run (borrowed); or NULL. */
	const char *kind;
	/*
	 * The consumer's clock for controller_advance(): controller_live_clock
	 * live; NULL: none (a replay).
	 */
	int64_t (*now)(void *ctx);
	void *now_ctx;
	ctl_record_fn *record;
	void *record_ctx;
};

struct controller_stats {
	uint64_t deltas, filtered, reconciles, errors, requeues;
	uint64_t results[OUTCOME__COUNT];	/* Reconciles ended, by outcome */
	uint64_t enqueued[WQ_NONE];	/* by enum wq_add: new, coalesced, dirty, after */
	size_t keys_unseen;		/* keys with a state no Reconcile read */
	uint64_t lost;			/* states a check found lost (controller_diverged) */
	uint64_t unseen;		/* such states */
	unsigned running;		/* Reconciles now */
	bool started;			/* the workers started: every source synced */
	const char *kind;		/* opts.kind */
	unsigned runtime_minor;
	bool priority_queue;
	unsigned buckets;		/* the histograms' buckets: 12, 10 before v0.17 */
	int64_t clock_ms;
	struct workqueue_metrics wq;
};

/* What the TUI shows of one key. */
struct ctl_key_info {
	bool running, queued;
	size_t nr_pending;		/* states received, not yet read */
};

struct controller;

/* -1 and err when an option is bad (the owner kind). */
struct controller *controller_new(const struct controller_opts *opts, struct errbuf *err);
void controller_free(struct controller *c);	/* NULL: no-op */

/* One drained notification (of activity ones, ACT_SYNCED only counts). */
void controller_note(struct controller *c, const struct notification *n);
/*
 * A check (verify.h) found key divergent: class "missing", "extra" or
 * "stale", server_rv the server's (NULL: extra), cache_rv the cache's
 * (NULL: missing).  A Diverged record; when lost (the informer has passed
 * the server's RV, or caught up for an extra key), the state the informer
 * will never hand over joins the key's unseen ones, reason "lost", once
 * (the server's RV, or "deleted" for an extra key): no Reconcile reads it,
 * and the end says so.
 */
void controller_diverged(struct controller *c, const char *key, const char *verify_class,
			 const char *server_rv, const char *cache_rv, bool lost);
/* Runs every timer due up to opts.now() (nothing without now). */
void controller_advance(struct controller *c);
/* ms until the next timer on opts.now's clock; -1: none, or no clock. */
int64_t controller_wait_ms(struct controller *c);
/* opts.now of a live controller: mono_ms(), ctx unused. */
int64_t controller_live_clock(void *ctx);
/*
 * The end.  With drain (a replay), the running Reconciles end and the
 * queued keys are reconciled, as time goes on with no more events
 * (delayed adds are left waiting); then a NeverReconciled record for
 * each key whose last states no Reconcile read.
 */
void controller_finish(struct controller *c, bool drain);

void controller_get_stats(const struct controller *c, struct controller_stats *out);

/* What one worker runs: a Reconcile ending at ends_ms. */
struct ctl_worker_info {
	const char *key;		/* valid until time moves on */
	unsigned number;		/* the n-th Reconcile */
	int64_t ends_ms;		/* the simulation's clock */
};
/* The workers (opts.workers, 1 when 0). */
unsigned controller_workers(const struct controller *c);
/* false when worker w (0..) is idle or out of range. */
bool controller_worker_info(const struct controller *c, unsigned w,
			    struct ctl_worker_info *out);
/* false when the controller never heard of key. */
bool controller_key_info(const struct controller *c, const char *key,
			 struct ctl_key_info *out);

#endif

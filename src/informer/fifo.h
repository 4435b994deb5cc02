/*
 * fifo.h — the queue between the Reflector and the informer's processor.
 *
 * Two implementations behind one interface, chosen when made:
 *
 *   FIFO_DELTA  client-go's DeltaFIFO.  A queue of keys; each key holds the
 *               list of its pending deltas, oldest first, and is queued once
 *               however many it gathers.  Only two consecutive Deleted
 *               deltas collapse (the one that knows more is kept: the
 *               older, unless it is a tombstone and the newer is not).
 *   FIFO_REAL   client-go 1.33-1.35's RealFIFO: one entry per delta,
 *               nothing merged; on Replace the tombstones are queued
 *               before the Replaced deltas.
 *   FIFO_ATOMIC client-go 1.36's atomic RealFIFO: as FIFO_REAL, but a
 *               Replace is one ReplacedAll delta and a Resync one SyncAll,
 *               reconciled by the consumer when popped (see real_fifo.c).
 *
 * FIFO_DELTA and FIFO_REAL read the Indexer (known_objects) to find keys
 * that vanished from a list and to resync; none writes it.
 *
 * Populated / HasSynced: the first Replace (or any Add/Update/Delete before
 * it) marks the queue populated; the first Replace records how many entries
 * it queued, and has_synced() is true once those have all been popped.  As
 * in client-go, the DeltaFIFO counts the distinct listed keys plus the
 * tombstones it queued; the RealFIFO counts its whole queue after the
 * Replace.  Resync populates nothing.
 *
 * Closing: fifo_close() stops the waiting, not the queue.  A closed queue
 * still hands out every entry it holds, one fifo_pop() at a time, and
 * fifo_pop() returns -1 only once it is closed and empty, as client-go's
 * Pop returns ErrFIFOClosed only when its queue is empty.  Queueing after
 * fifo_close() is not refused: what is queued is handed out the same way.
 *
 * Threads: every function is thread-safe.  fifo_pop() blocks until an entry
 * is ready or the queue is closed and empty, and calls `process` with the
 * queue's lock held, so that taking an entry out and applying it to the
 * Indexer are one step to anyone calling Resync or Replace.  `process` must
 * not call back into the fifo.
 *
 * Ownership: the fifo takes a new reference to every object handed to it;
 * the caller keeps its own.
 */
#ifndef KINF_FIFO_H
#define KINF_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "informer/delta.h"
#include "informer/store.h"

enum fifo_kind { FIFO_DELTA, FIFO_REAL, FIFO_ATOMIC };

/* The classes of a relist's keys that tell what the gap hid. */
enum relist_class { RELIST_ADDED, RELIST_CHANGED, RELIST_DELETED, RELIST__CLASSES };
#define RELIST_SAMPLE_MAX 10

/*
 * The first RELIST_SAMPLE_MAX keys of each class, in list order (the
 * deleted: in the Indexer's order), each with the resourceVersion it had
 * before (changed, deleted) and after (added, changed).
 */
struct relist_key {
	char *key, *old_rv, *new_rv;	/* an absent side: NULL */
};
struct relist_sample {
	struct relist_key v[RELIST__CLASSES][RELIST_SAMPLE_MAX];
	size_t nr[RELIST__CLASSES];
};
struct relist_sample *relist_sample_dup(const struct relist_sample *s);
void relist_sample_free(struct relist_sample *s);	/* NULL: no-op */

/* What one Replace found, compared with what was known before it. */
struct replace_stats {
	size_t listed;		/* objects in the list */
	size_t added;		/* listed, not known before */
	size_t changed;		/* listed, known with another resourceVersion */
	size_t unchanged;	/* listed, known with the same resourceVersion */
	size_t deleted;		/* known or queued, absent: tombstones queued */
	size_t known_gone;	/* known, absent from the list */
	/*
	 * Which keys: set when fifo_replace() is asked for stats and the
	 * list changed anything known.  Owned by whoever holds the stats
	 * (relist_sample_free()).
	 */
	struct relist_sample *sample;
	/* Filled by the reflector: how long no watch delivered (0: unknown). */
	int64_t disconnected_ms;
};

struct fifo;

/*
 * known_objects (borrowed; it must outlive the fifo) may be NULL: nothing
 * is known, so Replace tombstones only queued keys and Resync does nothing.
 */
struct fifo *fifo_new(enum fifo_kind kind, struct store *known_objects);
void fifo_free(struct fifo *fifo);

/*
 * Watch events.  The DeltaFIFO drops the Delete of a key neither known
 * nor queued (a relist already reported it); the RealFIFO, like
 * client-go's, queues every Delete.
 */
void fifo_add(struct fifo *fifo, struct kobj *obj);
void fifo_update(struct fifo *fifo, struct kobj *obj);
void fifo_delete(struct fifo *fifo, struct kobj *obj);

/*
 * A complete list at rv: a Replaced delta for each of items[0..nr), and a
 * tombstoned Deleted delta for every key known or queued but not listed
 * (the atomic FIFO: one ReplacedAll, holding rv).
 * list_no tags the deltas (0 for the initial list, n for the n-th relist).
 * Fills *stats when not NULL, with a sample of the keys when anything was
 * known before (a relist); the caller frees stats->sample.
 */
void fifo_replace(struct fifo *fifo, struct kobj **items, size_t nr,
		  const char *rv, unsigned list_no, struct replace_stats *stats);

/*
 * A watch's bookmark at rv (client-go's Bookmark, which the reflector
 * calls on every bookmark of the watch phase, not on a streaming list's).
 * Only FIFO_ATOMIC queues it, as one DELTA_BOOKMARK that no batch
 * shares; it populates nothing.  The others ignore it, as client-go's
 * DeltaFIFO and non-atomic RealFIFO do.
 */
void fifo_bookmark(struct fifo *fifo, const char *rv);

/* A Sync delta for every known key that has nothing queued. */
/* Returns how many deltas it queued (the atomic FIFO: one SyncAll). */
size_t fifo_resync(struct fifo *fifo);

/*
 * Pop hands out up to max entries at once (client-go 1.35's PopBatch;
 * the RealFIFOs only): 0 or 1 is one at a time.
 */
void fifo_set_batch(struct fifo *fifo, size_t max);

/*
 * Waits for the oldest entry, removes it and calls process(ctx, deltas)
 * with the lock held.  FIFO_DELTA hands one key's deltas; the RealFIFOs
 * one delta, or a batch of deltas of distinct keys (fifo_set_batch).
 * Returns 0, or -1 once the queue is closed and empty.
 * The deltas stay the fifo's and are dropped when process returns:
 * process takes its own reference to any object it keeps (or steals one
 * by setting that delta's obj to NULL).
 */
typedef void fifo_process_fn(void *ctx, struct deltas *deltas);
int fifo_pop(struct fifo *fifo, fifo_process_fn *process, void *ctx);
/*
 * fifo_pop() that also gives up, having taken nothing, once mono_ms()
 * reaches deadline_ms (0: never) or fifo_wake() was called since the
 * last call: then 1.  For a consumer with timed work of its own (the
 * informer's resync) between pops.
 */
int fifo_pop_until(struct fifo *fifo, fifo_process_fn *process, void *ctx,
		   int64_t deadline_ms);
/* Makes the waiter in fifo_pop_until() return 1 (to look at its deadline again). */
void fifo_wake(struct fifo *fifo);

/*
 * Where the producer stands in what it reads, for the flight recorder's
 * checkpoints: the exchange x (the tap's number, http.h) and the bytes
 * of its body up to which everything it queued came (FIFO_PLACE_END:
 * all of it), with the resourceVersion it had reached there.
 */
#define FIFO_PLACE_END UINT64_MAX
struct fifo_place {
	uint64_t x, off;
	char rv[64];		/* RV_SIZE (activity.h) */
};
/*
 * A producer about to queue many entries in a row (a batch of watch
 * events) may hold the wake-ups: until the matching fifo_unhold(),
 * queueing wakes no one in fifo_pop(); fifo_unhold() wakes them once if
 * anything is queued.  Holds nest.  What is queued meanwhile is poppable
 * by a popper that was awake anyway: holding changes when poppers wake,
 * never what they take.
 *
 * The last fifo_unhold() also says where the producer stands: every
 * entry it queued came from before `at`, and nothing after.  The place
 * is forgotten by fifo_hold() and by any queueing outside a hold, so it
 * is known only while it is true.
 */
void fifo_hold(struct fifo *fifo);
void fifo_unhold(struct fifo *fifo, const struct fifo_place *at);
/*
 * The consumer, between two pops: true with *at when nothing is queued
 * and the producer's place is known, so that the Indexer is what the
 * producer's input up to there made it (process() runs under the lock
 * a pop takes).  false otherwise; the next fifo_unhold() that leaves
 * the queue empty then wakes fifo_pop_until() (1), so that the consumer
 * looks again.
 */
bool fifo_drained_at(struct fifo *fifo, struct fifo_place *at);
/*
 * Wakes every waiter in fifo_pop(): each then takes what is still queued,
 * or returns -1 when nothing is.  Never blocks on the consumer.
 */
void fifo_close(struct fifo *fifo);

/*
 * The clock that stamps each delta's clock_ms, read in the thread that
 * queues it (the reflector's: a replay's clock is per thread).  Call
 * before anything is queued.  Default: mono_ms().
 */
void fifo_set_clock(struct fifo *fifo, int64_t (*now)(void *ctx), void *ctx);

/*
 * The producer's pacer: what ties a recording to the consumer's pace.
 * A DeltaFIFO merges an object's deltas while its key waits, so what
 * the consumer is handed depends on how far it had popped when each
 * delta was queued.  Live, mark() is told that count for
 * every queueing operation of the reflector (watch events, Replace,
 * bookmarks; not a resync), after the operation; a recorder keeps it.
 * A replay's next() gives the count recorded for the operation about to
 * happen (-1: none; *last: no count follows it), and the operation then
 * waits until the consumer has popped that many entries, or nothing is
 * left to pop, while fifo_pop() hands out no entry past that count until
 * the operation is done.  After the last count, or once closed, popping
 * is free again.  Both are called without the fifo's lock, on the
 * producer's thread.  Set before anything is queued; NULL: none.
 */
struct fifo_pacer {
	void (*mark)(void *ctx, uint64_t pops);
	int64_t (*next)(void *ctx, bool *last);
};
void fifo_set_pacer(struct fifo *fifo, const struct fifo_pacer *pacer, void *ctx);

bool fifo_has_synced(struct fifo *fifo);
/* Keys (DeltaFIFO) or entries (RealFIFO) waiting. */
size_t fifo_len(struct fifo *fifo);

#endif

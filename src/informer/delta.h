/*
 * delta.h — what the FIFO queues and the informer hands to listeners:
 * one change of one object, with where it came from.
 */
#ifndef KINF_DELTA_H
#define KINF_DELTA_H

#include <stdbool.h>
#include <stdint.h>

#include "informer/kobj.h"

enum delta_type {
	DELTA_ADDED,
	DELTA_UPDATED,
	DELTA_DELETED,
	DELTA_REPLACED,		/* from a list (Replace) */
	DELTA_SYNC,		/* from a resync */
	/*
	 * client-go 1.36's atomic RealFIFO (AtomicFIFO): a whole list is one
	 * ReplacedAll delta (all[] holds the items, obj is NULL), a resync one
	 * SyncAll (no object).  The informer reconciles them when popped; the
	 * notifications it makes carry these types.
	 */
	DELTA_REPLACED_ALL,
	DELTA_SYNC_ALL,
	/*
	 * 1.36's atomic FIFO only (EmitDeltaTypeBookmark): a watch's bookmark,
	 * queued in order with the events.  No object (obj NULL), its RV in
	 * rv; it ends a batch, and when popped it only sets the Indexer's
	 * last-sync resourceVersion: no handler is called.
	 */
	DELTA_BOOKMARK,
	DELTA__COUNT
};

/* "Added", "Updated", … as client-go spells them; parse returns -1 if unknown. */
const char *delta_type_name(enum delta_type type);
int delta_type_parse(const char *name);

/* Why the reflector produced the delta. */
enum delta_source {
	SOURCE_LIST,		/* a LIST (or streaming list) fed to Replace */
	SOURCE_WATCH,		/* a watch event */
	SOURCE_RESYNC,		/* the resync timer */
	SOURCE__COUNT
};
const char *delta_source_name(enum delta_source source);

/* A member added here must be kept by informer.c's struct queued too. */
struct delta {
	enum delta_type type;
	enum delta_source source;
	/* Which list made it: 0 the initial list, n the n-th relist. */
	unsigned list_no;
	/*
	 * A Deleted delta made by Replace for a key the list no longer has:
	 * client-go's DeletedFinalStateUnknown.  obj is the last state known.
	 */
	bool tombstone;
	/*
	 * client-go's isInInitialList: the FIFO had not synced when it popped
	 * the delta.  Set by fifo_pop() for everything one pop hands out (a
	 * DeltaFIFO key's every delta, a RealFIFO batch), as Pop and PopBatch
	 * compute it once; a late listener's replay has it too.
	 */
	bool initial_list;
	struct kobj *obj;	/* one reference, owned by the delta */
	int64_t time_ms;	/* wall clock when queued */
	/*
	 * The producer's clock when queued (fifo_set_clock): monotonic ms
	 * live, the recording's time on a replay; what a simulation on the
	 * deltas (controller.h) reads, so that a replay repeats itself.
	 */
	int64_t clock_ms;
	/* DELTA_REPLACED_ALL in the FIFO: the list, a reference each, owned. */
	struct kobj **all;
	size_t nr_all;
	char rv[64];		/* DELTA_REPLACED_ALL: the list's resourceVersion; DELTA_BOOKMARK: its */
};

/* One key's pending deltas, oldest first. */
struct deltas {
	struct delta *v;
	size_t nr, alloc;
};

/* Takes delta's references (obj, all[]): the caller's copy holds none after. */
void deltas_push(struct deltas *d, const struct delta *delta);
/* Drops the delta's references (obj, and all[] of a ReplacedAll). */
void delta_release(struct delta *delta);
void deltas_release(struct deltas *d);

#endif

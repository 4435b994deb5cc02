/*
 * informer.h — a shared informer: one Reflector, one FIFO, one Indexer
 * and the listeners that consume it, for one resource.
 *
 *   Reflector ──► FIFO ──pop──► HandleDeltas ──► Indexer
 *                                    └──► listeners (each its own buffer)
 *
 * HandleDeltas, for each delta oldest first: Deleted removes the key from
 * the Indexer and notifies NOTIFY_DELETE; any other type adds or updates
 * the Indexer and notifies NOTIFY_ADD or NOTIFY_UPDATE.  Sync deltas, and
 * Replaced deltas whose resourceVersion equals the cached one, go only to
 * listeners due for resync; everything else goes to every listener.
 *
 * Listeners: each has an unbounded buffer, so a slow consumer never blocks
 * the reflector or another listener.  The consumer drains its buffer from
 * its own thread with listener_drain(); when a buffer goes from empty to
 * non-empty the listener's wake-up fd (see listener_wake_fd) becomes
 * readable, so one thread can poll() the fds of many listeners together
 * with a terminal or a signal fd.  A listener added after the informer
 * started first receives a NOTIFY_ADD for every cached object.
 *
 * Besides object notifications the buffer carries NOTIFY_ACTIVITY entries:
 * what the reflector did (listed, watch opened or ended, relist and why,
 * backoff, resync), for notice lines on stderr and the TUI's health pane.
 *
 * Threads: informer_start() starts two: the reflector's (reflector.h:
 * LIST and WATCH, the bytes decoded into objects, onto the FIFO) and the
 * processor (pops the FIFO into the Indexer and the listeners' buffers,
 * and resyncs between pops when a resync period is set).  Their bytes
 * move on the kclient's transport thread (transport.h), one per cluster,
 * shared by every informer on it.  Every function here is thread-safe.
 * informer_stop() stops and joins the two; src/README.md draws the map.
 *
 * Ownership: a notification holds one reference to obj and old; the
 * consumer releases them with notification_release().
 */
#ifndef KINF_INFORMER_H
#define KINF_INFORMER_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>

#include "informer/activity.h"
#include "informer/delta.h"
#include "informer/fifo.h"
#include "informer/store.h"

struct kclient;

enum notify_kind {
	NOTIFY_ADD,
	NOTIFY_UPDATE,
	NOTIFY_DELETE,
	NOTIFY_ACTIVITY,
	/*
	 * A Bookmark delta popped (the atomic FIFO's; no handler is called):
	 * delta.obj is NULL and activity holds its RV (an ACT_BOOKMARK).
	 * Only to listeners that asked (listener_want_bookmarks()).
	 */
	NOTIFY_BOOKMARK,
};

/* A member added here must be kept by informer.c's struct queued too. */
struct notification {
	/* The delta that caused it (type, source, list_no, tombstone, time). */
	struct delta delta;	/* delta.obj is the new (or last) state */
	struct kobj *old;	/* NOTIFY_UPDATE: the cached object it replaced */
	struct activity_info *activity;	/* NOTIFY_ACTIVITY; owned */
	const char *resource;	/* the informer's resource, "pods"; static */
	const char *obj_kind;	/* its kind, "Pod" */
	const char *group;	/* its API group, "" for the core group */
	enum notify_kind kind;
	/* True for Sync, or Replaced with an unchanged RV (resync-only). */
	bool resync_only;
	/* A late listener's catch-up add of a cached object. */
	bool replay;
};
void notification_release(struct notification *n);

struct informer;
struct listener;

/*
 * opts is copied, but what its pointers point to (the resource, the
 * namespace and selector strings) is borrowed and kept, as client is:
 * they must outlive the informer.
 */
struct informer *informer_new(struct kclient *client,
			      const struct informer_opts *opts);
void informer_free(struct informer *inf);	/* stops first if running */

/*
 * Adds a listener with its own resync period (0 for none; clamped to at
 * least 1 s and to at least the informer's period, as client-go does).
 * May be called before or after informer_start().
 */
struct listener *informer_add_listener(struct informer *inf, int64_t resync_ms);

int informer_start(struct informer *inf, struct errbuf *err);
void informer_stop(struct informer *inf);

bool informer_has_synced(struct informer *inf);
/* Blocks until synced (true), or timeout_ms passes (0: forever) or the
 * informer stops or its reflector gives up (false). */
bool informer_wait_synced(struct informer *inf, int64_t timeout_ms);
struct store *informer_store(struct informer *inf);	/* borrowed */
/*
 * Every cached object (store_list), taken between two HandleDeltas steps:
 * whatever the snapshot lacks was removed by a delete already in every
 * listener's buffer.  `kinf verify` relies on it.
 */
void informer_list_cached(struct informer *inf, struct kobj_list *out);
void informer_get_stats(struct informer *inf, struct informer_stats *out);
const struct api_resource *informer_resource(struct informer *inf);
/*
 * The FIFO says synced but the informer has not yet handed its listeners
 * the "synced" notice: a moment between a pop and the notice, which one
 * who waits for every delta to be taken (a replay's end) waits out too.
 */
bool informer_sync_unsaid(struct informer *inf);
/* Queue a resync now (the TUI's `r`), whether or not one is due. */
void informer_resync_now(struct informer *inf);

/*
 * Who takes checkpoints of the Indexer (the flight recorder).  The
 * processor asks wanted(h) between two pops (it must be cheap); when yes
 * and the FIFO is drained at a known place of what the reflector read
 * (fifo_drained_at()), other than the last one taken, take(h, at, objs)
 * gets every cached object: a copy of pointers, whose references it
 * takes over.  open() is called by informer_set_checkpoints() with the
 * informer's stream (its requests' path, as the client's tap names it),
 * its objects' apiVersion and kind, and a wake(arg) that makes a waiting
 * processor ask again; close(h)
 * once the processor has ended (informer_free()), after which wake is
 * not to be called.
 */
struct checkpoint_sink {
	void *(*open)(void *ctx, const char *stream, const char *api_version, const char *kind,
		      void (*wake)(void *arg), void *arg);
	bool (*wanted)(void *h);
	void (*take)(void *h, const struct fifo_place *at, struct kobj_list *objs);
	void (*close)(void *h);
};
/* Before informer_start(); sink is borrowed, as ctx. */
void informer_set_checkpoints(struct informer *inf, const struct checkpoint_sink *sink,
			      void *ctx);

/*
 * From now on l also gets NOTIFY_BOOKMARK: what `--types Bookmark` shows.
 * Others never see one, so that they see handler calls only.
 */
void listener_want_bookmarks(struct listener *l);

/* A readable fd while the listener's buffer is non-empty. */
int listener_wake_fd(struct listener *l);
/*
 * Moves up to max buffered notifications into out[] and returns how many;
 * never blocks.  The caller releases each with notification_release().
 */
size_t listener_drain(struct listener *l, struct notification *out, size_t max);
size_t listener_pending(struct listener *l);

#endif

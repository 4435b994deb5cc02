/*
 * activity.h — what an informer tells about itself, apart from objects:
 * activity records (what the reflector did), the informer's state and its
 * counters, and the options that say what one informer watches.
 *
 * Below both the reflector, which produces these, and the informer, which
 * passes them to listeners (NOTIFY_ACTIVITY) and to stats readers; so the
 * reflector needs nothing of informer.h.  Plain data; functions for the
 * name tables and for copying a record (a relist's key sample is on the
 * heap).
 */
#ifndef KINF_ACTIVITY_H
#define KINF_ACTIVITY_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>

#include "informer/delta.h"
#include "informer/fifo.h"
#include "informer/profile.h"

struct api_resource;
struct rest_limiter;

/* What the reflector did; a NOTIFY_ACTIVITY carries one. */
enum activity {
	ACT_LIST_START,		/* list (or relist) begun */
	ACT_LIST_PAGE,		/* a page arrived: .count objects so far */
	ACT_LIST_DONE,		/* listed .count objects at .rv */
	ACT_LIST_FALLBACK,	/* continue token expired: full list */
	ACT_WATCH_OPEN,		/* watching from .rv */
	ACT_WATCH_END,		/* the server ended the watch cleanly */
	ACT_WATCH_EXPIRED,	/* 410: the RV is too old, relisting */
	ACT_WATCH_STALLED,	/* no byte for too long: renewed (.message) */
	ACT_ERROR,		/* a failure; .message says which */
	ACT_BACKOFF,		/* waiting .delay_ms before retrying */
	ACT_RELISTED,		/* a relist's summary in .replace */
	ACT_RESYNC,		/* resync: .count Sync deltas queued */
	ACT_SYNCED,		/* HasSynced became true */
	ACT_BOOKMARK,		/* a bookmark moved the RV to .rv */
	ACT_WARNING,		/* worth knowing, nothing failed: .message */
	ACT__COUNT
};
const char *activity_name(enum activity act);

/* Room for a resourceVersion (opaque: aggregated APIs may use long ones). */
#define RV_SIZE 64

struct activity_info {
	enum activity act;
	unsigned list_no;
	size_t count;
	int64_t delay_ms;
	char rv[RV_SIZE];
	char message[256];
	struct replace_stats replace;	/* ACT_RELISTED, with its key sample */
};
/* A copy on the heap, key sample and all; activity_free() frees it. */
struct activity_info *activity_dup(const struct activity_info *a);
void activity_free(struct activity_info *a);	/* NULL: no-op */

/* The informer's state, for the health pane and `-v` notices. */
enum informer_state {
	STATE_STARTING,
	STATE_LISTING,
	STATE_WATCHING,
	STATE_BACKOFF,
	STATE_STOPPED,
};
const char *informer_state_name(enum informer_state state);

struct informer_stats {
	enum informer_state state;
	int64_t state_since_ms;		/* wall clock */
	int64_t backoff_until_ms;	/* wall clock, STATE_BACKOFF */
	unsigned list_page;		/* STATE_LISTING: page in progress */
	char rv[RV_SIZE];		/* last synced resourceVersion */
	/*
	 * The Indexer's LastStoreSyncResourceVersion (1.36's atomic FIFO;
	 * "" with the others, as client-go without AtomicFIFO): the RV of the
	 * last delta applied, a list's, an object's or a Bookmark's.
	 */
	char store_rv[RV_SIZE];
	bool synced;
	uint64_t lists, pages, list_fallbacks, watches;
	uint64_t relists, expired, stalls, errors, backoffs, bookmarks;
	uint64_t resyncs, throttled;	/* throttled: 429 answers */
	uint64_t deltas[DELTA__COUNT];	/* popped, by type */
	uint64_t events;		/* watch events received */
	int64_t last_list_ms, last_resync_ms, next_resync_ms;
	int64_t last_error_ms;
	/* Watch health (wall clock; 0: never). */
	int64_t last_event_ms;		/* an ADDED, MODIFIED or DELETED */
	int64_t last_bookmark_ms;
	int64_t bookmark_gap_ms;	/* between the last two bookmarks */
	int64_t watch_since_ms;		/* the open watch's start; 0: none */
	int watch_timeout_s;		/* its timeoutSeconds */
	uint64_t short_watches;		/* ended at once without events */
	uint64_t rv_backwards;		/* events older than the RV before */
	/*
	 * The last list or watch was refused (400, 401, 403, 404): retried,
	 * as client-go does; and whether apimachinery's IsNotFound reads the
	 * refusal as one (http_answer_is()), as kubectl's --ignore-not-found.
	 */
	bool refused, refused_not_found;
	/* A replay: the recording stopped in the middle of a list (no list, no relist). */
	bool recording_ended;
	/* The open watch's silence warning (no event, no bookmark); "": none. */
	char watch_silent[160];
	/* The listener furthest behind: notifications queued, and when
	 * the oldest of them was queued (wall clock; 0: none queued). */
	size_t backlog;
	int64_t backlog_since_ms;
	char last_error[256];
	char relist_reason[128];
	size_t fifo_depth;
	size_t cached;
	size_t cached_json_bytes;
};

#define PAGE_SIZE_NONE UINT_MAX

struct informer_opts {
	const struct api_resource *resource;	/* borrowed; must outlive */
	const char *ns;			/* NULL or "": all namespaces */
	const char *label_selector;	/* NULL: none */
	const char *field_selector;
	enum fifo_kind fifo;
	unsigned kobj_flags;		/* KOBJ_KEEP_MANAGED_FIELDS */
	/* the REST client's rate limit, borrowed (http.h); NULL: none */
	struct rest_limiter *limiter;
	int64_t resync_ms;		/* informer's resync check period; 0 off */
	/*
	 * LIST limit.  0: client-go's rules (pages of 500 when listing at RV
	 * "0" or "", none when relisting at a known RV, which the watch cache
	 * serves whole); PAGE_SIZE_NONE: never paginate; else always this.
	 */
	unsigned page_size;
	bool streaming_list;		/* try sendInitialEvents first */
	/* A failed streaming list falls back to LIST on any error (1.29+), else on 422. */
	bool watch_list_any_fallback;
	size_t batch;			/* pops take up to this many (RealFIFOs) */
	enum backoff_rule backoff;
	bool hold_rv_of_adds;		/* profile.h */
	bool list_retries_h2_lost;	/* profile.h */
	bool watch_reads_status;	/* profile.h */
	int64_t stall_ms;		/* silence rules; 0: defaults (see reflector.h) */
	int64_t renew_ms;		/* --renew-silent (kinf's own); 0: never */
};

#endif

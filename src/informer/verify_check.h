/*
 * verify_check.h — one verification of a live informer's cache, the
 * machinery around the pure comparison of informer/verify.h, shared by
 * `kinf verify`, `kinf watch --verify-every` and the TUI's `V`:
 *
 *   1. verify_check_begin(): forget the deletions seen so far, then a
 *      quorum LIST (resourceVersion unset, pages of 500 with continue, asked
 *      as a PartialObjectMetadataList: metadata only, kinf's own request) with
 *      the informer's own namespace and selectors; L is its resourceVersion.
 *   2. verify_check_caught_up(), until true or the lag wait runs out: the
 *      reflector's resourceVersion (moved by every event and bookmark) has
 *      reached L and the FIFO is empty, so every change up to L is in the
 *      Indexer.  Meanwhile the caller feeds each notification of a listener
 *      of the informer to verify_check_note(), which remembers the keys
 *      deleted and at which resourceVersion: a key deleted after L is then
 *      the cache being ahead, not a missing key.
 *   3. verify_check_snapshot() takes the Indexer's objects; the caller then
 *      drains its listener into verify_check_note() once more (a delete
 *      the snapshot reflects is in the buffer by then), and
 *      verify_check_finish() compares.
 *
 * Not thread-safe: one thread (the caller's) drives a check.  The LIST
 * blocks that thread; the informer goes on meanwhile.
 */
#ifndef KINF_VERIFY_CHECK_H
#define KINF_VERIFY_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "informer/session.h"
#include "informer/store.h"
#include "informer/verify.h"
#include "lib/hashmap.h"

struct notification;

struct verify_check {
	struct session *session;
	size_t index;			/* the informer's, in the session */
	struct hashmap gone;		/* key → "key\0rv" of deleted keys */
	/* The server's side, from verify_check_begin(). */
	struct verify_entry *server;
	size_t nserver;
	char *list_rv;
	struct kobj_list cached;	/* verify_check_snapshot()'s */
};

void verify_check_init(struct verify_check *vc, struct session *s, size_t index);
void verify_check_release(struct verify_check *vc);

/* Every notification of a listener of the informer, in order. */
void verify_check_note(struct verify_check *vc, const struct notification *n);

/* Step 1: the LIST.  -1 with err (the server's answer, or no answer). */
int verify_check_begin(struct verify_check *vc, struct errbuf *err);
/*
 * Step 2: 1 when the informer has caught up with L, 0 not yet, -1 when
 * its resourceVersion or L is no number (then only waiting helps).
 */
int verify_check_caught_up(struct verify_check *vc);
/* Step 3: the snapshot, then (after the last notes) the report. */
void verify_check_snapshot(struct verify_check *vc);
void verify_check_finish(struct verify_check *vc, bool caught_up,
			 struct verify_report *out);

#endif

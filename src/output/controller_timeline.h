/*
 * controller_timeline.h — `--timeline FILE`: the simulated controller's
 * story of every state, for a reader or a trace viewer.
 *
 * A state is one resourceVersion of an object as the handlers were given
 * it.  Each goes: arrived (its event) -> filtered by a predicate, or
 * enqueued (new, coalesced, dirty, ...) -> covered by Reconcile #n, the
 * first of its key to start after it -> read by it, or unseen (why: the
 * reasons of controller.h) -> or, at the end, never reconciled or still
 * queued.  A lost state (a check found it, controller_diverged) arrives
 * when the check found it.
 *
 * Two formats, by the file's name:
 *   *.json   the Chrome trace event format (a JSON array, which Perfetto
 *            and chrome://tracing open; a file cut short still opens):
 *            process "workers", a track per worker (per controller's,
 *            named by its kind, when several run), each Reconcile a
 *            slice; process "keys", a track per key, each state a slice
 *            from its arrival to the Reconcile that covered it (or the
 *            end), named by its RV and fate;
 *   else     NDJSON, a line per state once its fate is known: key,
 *            resourceVersion, event, arrived, fate, how or predicate,
 *            reconcile, coveredAt, seen, reason.
 * Times: RFC 3339 in NDJSON; microseconds on the simulation's clock in
 * the trace.
 *
 * The timeline is fed the controller's records as they come (in the
 * order controller.h emits them) and writes as it goes; at the end,
 * timeline_finish() writes what is left and closes the file.
 *
 * Single-threaded: the controller's thread calls everything.
 * Ownership: it copies what it keeps of a record.
 */
#ifndef KINF_CONTROLLER_TIMELINE_H
#define KINF_CONTROLLER_TIMELINE_H

#include <stdint.h>

#include "lib/util.h"

struct ctl_record;
struct timeline;

/* Creates path (mode 0600, never through a link); NULL with err. */
struct timeline *timeline_open(const char *path, int64_t base_ms, struct errbuf *err);
void timeline_record(struct timeline *t, const struct ctl_record *r);
/*
 * Writes the states still open (the end's records came before) and
 * closes the file; -1 with err when a write failed.  Frees t.
 */
int timeline_finish(struct timeline *t, struct errbuf *err);

#endif

/*
 * reflector.h — client-go's Reflector: ListAndWatch, forever, until
 * stopped, feeding a FIFO.
 *
 * One loop, on its own thread:
 *
 *   list   paged LIST (limit, continue), resourceVersion "0" first, then
 *          the last synced RV, "" once that RV was found too old; a
 *          continue token that expires falls back to one full list.  The
 *          list goes into the FIFO with one Replace.
 *          (With streaming_list, a watch with sendInitialEvents=true is
 *          tried first; its initial events end with a bookmark annotated
 *          k8s.io/initial-events-end, awaited for a bounded time, and a
 *          server without the feature gets a plain LIST from then on.)
 *   watch  from the last RV, allowWatchBookmarks, timeoutSeconds random in
 *          [300, 600).  Events become Add/Update/Delete; bookmarks only move
 *          the RV; every event moves it.  A watch the server ends cleanly
 *          is reopened at once from the last RV.  A silent watch is left
 *          alone, as client-go leaves it: its timeoutSeconds ends it, and
 *          over HTTP/2 the transport's health check closes a dead
 *          connection (transport.h).  A watch without an event or a
 *          bookmark for stall_ms (default 75 s: the apiserver's bookmark
 *          minute and a margin) is reported once (ACT_WARNING and
 *          stats.watch_silent), never acted on.  Only with renew_ms
 *          (--renew-silent, kinf's own) is a watch silent (no byte) that
 *          long renewed: a new watch from the same RV replaces it.
 *   errors 410 (HTTP, or an ERROR event with code 410) relists.  The REST
 *          client retries a request that got no answer and a 429 or 5xx
 *          with an integer Retry-After, 10 times; a watch whose retries
 *          ran out without an answer is an empty watch, ended cleanly.  A
 *          429 backs off and re-watches.  Anything else (an HTTP/2 stream
 *          that broke with no EOF included), and a "very short watch"
 *          (under 1 s since the first try, no events), ends the cycle:
 *          wait 800 ms doubling to 30 s with full jitter (reset after 2
 *          min without trouble), then list again.
 *
 * Threads: reflector_start() starts the thread; reflector_stop() sets the
 * stop flag (which also aborts a transfer in progress through libcurl's
 * progress callback), wakes any sleep, and joins.  Refusals (400, 401,
 * 403, 404) are retried with backoff forever, before the first list and
 * after it, as client-go's Run retries them, each failure's message
 * ending "; retrying as client-go does".  The stats are guarded
 * by a mutex; reflector_get_stats() may be called from any thread.  The
 * activity hook runs on the reflector's thread and must not block.
 */
#ifndef KINF_REFLECTOR_H
#define KINF_REFLECTOR_H

#include "informer/activity.h"
#include "informer/fifo.h"
#include "informer/reflector_hooks.h"

struct kclient;

/*
 * A watch without an event or a bookmark this long is reported (the
 * apiserver's bookmark period, a minute, and a margin); informer_opts.
 * stall_ms sets it.  Neither a watch nor a list is ever given up for its
 * silence or its length: client-go sets no limit of its own on either.
 */
#define REFLECTOR_DEFAULT_SILENCE_MS 75000

struct reflector;

/* opts and the resource it names are borrowed and must outlive r. */
struct reflector *reflector_new(struct kclient *client,
				const struct informer_opts *opts,
				struct fifo *fifo,
				const struct reflector_hooks *hooks);
/* The collection's path: what its requests are tapped as (stream_opts.record_as). */
const char *reflector_path(const struct reflector *r);
int reflector_start(struct reflector *r, struct errbuf *err);
void reflector_stop(struct reflector *r);
void reflector_free(struct reflector *r);

/* Fills out: the reflector's part (state, RV, list/watch counters), the rest 0. */
void reflector_get_stats(struct reflector *r, struct informer_stats *out);

#endif

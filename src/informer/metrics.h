/*
 * metrics.h — the canary's figures: what a session's informers report,
 * as Prometheus text for /metrics, and whether they are healthy, for
 * /healthz (`watch --metrics`, `tui --metrics`).
 *
 * The figures come from two places, both on the consuming thread
 * (informer/consumer.h calls the hooks): informer_get_stats(), taken once
 * a second, and the notifications the consumer drains (deltas by type and
 * by the handler they reached, lists by cause, watch ends by reason,
 * verify reports).  metrics_tick() publishes them into a copy the server's
 * thread reads; ages (last event, bookmark, the watch's) are worked out
 * when a page is asked for.
 *
 * Threads: metrics_note(), metrics_verified(), metrics_tick() and
 * metrics_next_ms() are for the consuming thread only; metrics_serve()
 * for any thread (the HTTP server's); metrics_count_dump() and
 * metrics_set_workqueue() too.  One mutex guards
 * the published copy; nobody holds it while formatting, and the informers'
 * own locks are taken only by metrics_tick(), once a second.
 */
#ifndef KINF_METRICS_H
#define KINF_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "informer/informer.h"
#include "informer/session.h"
#include "informer/verify.h"
#include "lib/httpd.h"
#include "lib/strbuf.h"

/* How often the consuming thread publishes informer_get_stats(). */
#define METRICS_PUBLISH_MS 1000
/* Published figures older than this: the consuming thread is stuck. */
#define METRICS_STALE_MS 10000

struct metrics;

/*
 * A controller view's workqueue, as client-go's util/workqueue reports it,
 * exported under its names with kinf_'s prefix: kinf_workqueue_depth
 * (gauge), _adds_total and _retries_total (counters),
 * _queue_duration_seconds and _work_duration_seconds (histograms, with
 * controller-runtime's buckets: 10^(k-8) s for k in 0..11, 0..9 before
 * v0.17),
 * _unfinished_work_seconds and _longest_running_processor_seconds
 * (gauges).  client-go labels them by the queue's name; kinf by resource
 * and cluster, as every figure.  The hook for `--controller`.
 */
#define METRICS_WQ_BUCKETS 12
struct metrics_histogram {
	uint64_t count;
	double sum_s;
	unsigned nbuckets;			/* those exported: 12, or 10 */
	uint64_t buckets[METRICS_WQ_BUCKETS];	/* each its own, not cumulative */
};
struct metrics_workqueue {
	uint64_t depth, adds, retries;
	struct metrics_histogram queue_duration, work_duration;
	double unfinished_work_s, longest_running_s;
	/*
	 * The controller's own, as controller-runtime's metrics name them
	 * (kinf_controller_ for controller_runtime_): Reconciles by result
	 * (a terminal error is an error, and counted apart too), workers
	 * busy and allowed; and kinf's: updates the predicates dropped,
	 * states no Reconcile read, keys with such states.
	 */
	uint64_t reconcile_success, reconcile_error, reconcile_requeue;
	uint64_t reconcile_requeue_after, terminal_errors;
	uint64_t active_workers, max_workers;
	uint64_t filtered, unseen_states, keys_unseen;
};

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);	/* NULL: no-op */

/* Each hook below is a no-op when m is NULL. */

/* Counts informer i's notification (a delta by handler, or an activity). */
void metrics_note(struct metrics *m, size_t i, const struct notification *n);
/* Informer i's check ended with report r (NULL: it could not be made). */
void metrics_verified(struct metrics *m, size_t i, const struct verify_report *r);
/*
 * Publishes the figures of s's informers (its nr may have grown) when
 * METRICS_PUBLISH_MS have passed since the last time, or now with force.
 */
void metrics_tick(struct metrics *m, struct session *s, bool force);
/* ms until metrics_tick() has something to do; -1 when m is NULL. */
int64_t metrics_next_ms(const struct metrics *m);

/* A flight-recorder dump was written (the recorder's hook). */
void metrics_count_dump(struct metrics *m);
/* Informer i's controller view reports its workqueue (the hook of --controller). */
void metrics_set_workqueue(struct metrics *m, size_t i, const struct metrics_workqueue *wq);

/*
 * httpd_handler_fn for /metrics (the Prometheus text exposition format,
 * 0.0.4) and /healthz ("ok" when every informer is synced and its watch
 * healthy; else 503 and why, a line each); ctx is the struct metrics.
 */
void metrics_serve(void *ctx, const char *path, struct httpd_reply *reply);

#endif

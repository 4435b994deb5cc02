/*
 * controller_report.h — how the simulated controller's records
 * (controller/controller.h) and its summary read: as lines and as NDJSON.
 * printer.c writes them (printer_controller, printer_controller_summary).
 *
 * Lines, after the time (HH:MM:SS.mmm, local) and the record's type:
 *   Filtered        shop/web-1  Updated rv 108 dropped by generation
 *   Enqueued        shop/web-1  new (Added rv 100)
 *   Enqueued        shop/web-1  dirty (Updated rv 101): a Reconcile runs
 *   Enqueued        shop/web-1  after 5ms (rate-limited)
 *   ReconcileStart  shop/web-1  reconcile shop/web-1 read rv 105 (#2, worker 1,
 *                   3 deltas); rv 101 and 103 were never seen by a
 *                   Reconcile (coalesced while queued)
 *   ReconcileDone   shop/web-1  success after 1s (#2, worker 1)
 *   NeverReconciled shop/web-1  rv 108 never reconciled: filtered by generation
 *
 * NDJSON, members in this order after {"time":…,"type":…,"key":…}:
 *   Filtered         object, delta, event, initialList, resourceVersion,
 *                    predicate
 *   Enqueued         how ("new", "coalesced", "dirty", "after"), cause
 *                    ("event", "requeue-after", "rate-limited", "delayed"),
 *                    priority (the priority queue's), afterMs (how
 *                    "after"), and for an event: object, delta, event,
 *                    initialList, resourceVersion, deleteStateUnknown
 *   ReconcileStart   reconcile (its number), worker, readResourceVersion
 *                    (null: not in the cache), deltas, unseen
 *   ReconcileDone    reconcile, worker, result ("success", "error",
 *                    "requeue-after"), error (or null), durationMs,
 *                    requeueAfterMs (or null), requeues, dirty
 *   NeverReconciled  unseen
 * unseen: [{"resourceVersion":…,"reason":…}].  time: RFC 3339 UTC with
 * milliseconds, the simulation's clock plus base_ms.
 *
 * The summary, a notice line (kinf: controller: …) or a ControllerSummary
 * record: deltas, filtered, enqueued {new, coalesced, dirty, after},
 * reconciles, errors, requeues, keysWithUnseenStates, unseenStates,
 * running, and workqueue with client-go's metric names: depth, adds,
 * queue_duration and work_duration ({count, sumSeconds, maxSeconds}),
 * retries, longest_running_processor and unfinished_work_seconds
 * (seconds).
 */
#ifndef KINF_CONTROLLER_REPORT_H
#define KINF_CONTROLLER_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctl_record;
struct ctl_unseen;
struct controller_stats;
struct strbuf;

/*
 * A record in the line output's columns: its clock (time), what goes in
 * the RV column (rv: an event's resourceVersion, or the one a Reconcile
 * read; may stay empty) and the text of the last column; the record's
 * type and key are its other columns.  Raw: the caller escapes them.
 */
void controller_record_cells(const struct ctl_record *r, int64_t base_ms,
			     struct strbuf *time, struct strbuf *rv, struct strbuf *text);
#define CTL_TYPE_WIDTH 15	/* "NeverReconciled" */
void controller_record_json(const struct ctl_record *r, int64_t base_ms, struct strbuf *sb);
/*
 * "rv 101 and 103 were never seen by a Reconcile (coalesced while
 * queued)", a group per reason; at_end: "rv 108 never reconciled: why".
 */
void controller_unseen_text(const struct ctl_unseen *u, size_t n, bool at_end,
			    struct strbuf *sb);
/* The summary's text, without "kinf: " or a newline. */
void controller_summary_text(const struct controller_stats *st, struct strbuf *sb);
void controller_summary_json(const struct controller_stats *st, int64_t base_ms,
			     struct strbuf *sb);

#endif

/*
 * printer.h — `kinf watch` output: each notification an informer hands
 * its listener becomes one record on stdout, in one of the formats below;
 * what the informer did (NOTIFY_ACTIVITY) becomes a notice line on a
 * separate stream (stderr), so that stdout stays clean for pipes.
 *
 * Formats (-o), one struct printer_ops each in printer.c:
 *
 * line (default) — one aligned line per delta:
 *     TIME          TYPE      KIND  KEY                       RV      STATUS
 *     10:04:05.123  Replaced  Pod   shop/web-1                4512    Running 1/1 (initial)
 *   time as HH:MM:SS.mmm local time, the delta type (Added, Updated,
 *   Deleted, Replaced, Sync), the kind (only with show_kind), the key
 *   (namespace/name, or name), the object's resourceVersion, the kind's
 *   short status (see columns.h), then markers:
 *     (tombstone)   a Deleted delta a relist made for a vanished key; the
 *                   object is the last state known
 *     (initial)     from the initial list (list number 0)
 *     (relist #n)   from the n-th relist
 *     (resync)      resync-only: a Sync, or a Replaced with the cached RV
 *     (replay)      a late listener's catch-up add of a cached object
 *   Columns are two spaces apart.  With opts.resources, the initial
 *   list's lines are held until every resource has synced (or 20,000
 *   wait), then printed with the widths they need, header first; after
 *   that a KIND or KEY wider than its column is cut with "…" ("~" in
 *   ASCII) so that the columns stay aligned, and the RV column (which
 *   only grows) widens.  Markers follow the status; a blank status keeps
 *   its place, so a marker never reads as part of the RV.  The header is
 *   printed once, before the first line, unless no_headers.  With color, the type
 *   is green (Added), yellow (Updated), red (Deleted), blue (Replaced) or
 *   grey (Sync).  With diff, an update is followed by its changed fields,
 *   one per line indented four spaces (diff_human() in diff.h; noise left
 *   out), or "(no field changed)" when nothing but noise changed and the
 *   delta is not resync-only.
 *
 * wide — line plus AGE and the kind's wide columns as label=value words
 *   (pods: "ip=10.1.0.5 node=worker-1"; see columns_wide_detail()).
 *
 * object — each delta's object in one of kubectl's formats (format.h),
 *   as `kubectl get -w -o FORMAT` prints them: yaml documents separated
 *   by "---", a jsonpath template's text per object, custom columns under
 *   one header.  No delta type, as kubectl; a template error stops the
 *   watch (printer_notification returns -1, errno EINVAL, the message in
 *   printer_error()).
 *
 * name — kubectl's -o name: "pod/web-1", "deployment.apps/web": the kind
 *   in lower case (the resource name when the kind is unknown), then the
 *   API group unless it is the core group.  No delta type, as kubectl.
 *
 * json — NDJSON, one object per line, members in this order:
 *     time                RFC 3339 UTC with milliseconds: when the delta was
 *                         queued
 *     type                "Added" "Updated" "Deleted" "Replaced" "Sync"
 *     resource            the informer's resource, "pods"
 *     kind                "Pod" ("" when unknown)
 *     namespace           "" for cluster-scoped objects
 *     name
 *     key                 "namespace/name", or "name"
 *     resourceVersion     of the object (for a tombstone: the last known)
 *     oldResourceVersion  only on updates: the cached object's
 *     initialList         true for deltas of the initial list
 *     tombstone           true for a relist's Deleted of a vanished key
 *     resync              true when resync-only (see above)
 *     source              "list", "watch" or "resync"
 *     listNumber          the list the delta came from or follows: 0 the
 *                         initial list, n the n-th relist
 *     object              the object as kinf holds it (managedFields
 *                         dropped unless kept)
 *     diff                only with diff on updates: RFC 6902 JSON Patch
 *                         from the cached old object to this one, each
 *                         remove and replace with the "old" value, the
 *                         resourceVersion left out (see diff.h)
 *   With events, a relist also writes a record on stdout (instead of its
 *   notice):
 *     {"time":…,"type":"Relist","resource":"pods","listNumber":2,
 *      "reason":"watch expired: …","listed":101,"added":1,"changed":3,
 *      "deleted":2,"unchanged":95,"disconnectedMs":42013,
 *      "keys":{"added":[{"key":…,"resourceVersion":…}],
 *              "changed":[{"key":…,"oldResourceVersion":…,"resourceVersion":…}],
 *              "deleted":[{"key":…,"oldResourceVersion":…}]}}
 *   (deleted: the tombstones queued; reason "" when unknown; keys: up to
 *   RELIST_SAMPLE_MAX of each class).
 *   And each check of watch --verify-every writes a record (instead of
 *   its notice), the members of verify_report.h's json after these:
 *     {"time":…,"type":"Verify","resource":"pods","equal":false,…,
 *      "missing":[{"key":"default/x","serverResourceVersion":"120"}],…}
 *
 * Notices, one line each, on opts.notices:
 *     kinf: pods: listed 120 objects at rv 4512 (3 pages)
 *     kinf: pods: watch ended by server, re-watching from rv 4600
 *     kinf: pods: watch expired (too old resource version), relisting
 *     kinf: pods: relist #2 (watch expired: …): disconnected 42.0 s:
 *                 3 changed, 1 added, 2 deleted (tombstones), 95 unchanged
 *                 [with verbose: ; changed KEY (rv A -> B), …; deleted …]
 *     kinf: pods: backing off 1.6s: <why>
 *     kinf: pods: error: <message>
 *     kinf: pods: synced: 120 objects cached      (HasSynced became true)
 *     kinf: pods: verify: cache equals the server (120 objects)
 *     kinf: pods: verify: 1 missing, 0 extra, 1 stale: default/x (missing), …
 *   and for resync, stalls and continue-token fallbacks; with verbose
 *   also list starts, list pages, watch opens and bookmarks.  With progress
 *   (the notice stream is a terminal) a long list shows a live line of
 *   objects and pages so far, rewritten in place and cleared before any
 *   other output.
 *
 * Writing: each record is built in a strbuf and written with one fwrite()
 * then fflush(), so a reader like jq sees it at once.  Any write error on
 * stdout (EPIPE when the reader went away: the caller ignores SIGPIPE)
 * makes printer_notification() return -1; the caller then stops quietly
 * (status 0 when the reader closed).  Errors writing notices are ignored.
 *
 * Threads: a printer belongs to the one thread that owns stdout.
 * Ownership: the printer never keeps a notification or its objects.
 */
#ifndef KINF_PRINTER_H
#define KINF_PRINTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct notification;
struct verify_report;

enum output_format {
	OUTPUT_LINE,
	OUTPUT_WIDE,
	OUTPUT_JSON,
	OUTPUT_NAME,
	OUTPUT_OBJECT,	/* opts.format: yaml, jsonpath=, custom-columns= */
	OUTPUT__COUNT
};

/* "line", "wide", "json", "name"; parse returns -1 if unknown. */
const char *output_format_name(enum output_format format);
int output_format_parse(const char *name);

struct printer_opts {
	FILE *out;		/* records; NULL: stdout */
	FILE *notices;		/* activity notices (stderr); NULL: none */
	bool color;		/* ANSI colours on line and wide output */
	bool diff;		/* what changed, on updates */
	bool no_headers;	/* no header line (line and wide) */
	bool show_kind;		/* a KIND column (line and wide) */
	bool events;		/* json: Relist records on stdout */
	bool verbose;		/* every activity notice */
	bool progress;		/* a live line while listing (a terminal) */
	bool ascii;		/* no UTF-8 (LANG=C): "->" and "~" for "→" and "…" */
	/*
	 * line and wide: how many resources are watched.  The initial list's
	 * lines are then held until each has synced, so that the columns fit
	 * them all; 0: print at once.
	 */
	size_t resources;
	struct format *format;	/* OUTPUT_OBJECT's (format.h); borrowed; NULL: json */
	int64_t now_ms;		/* "now" for AGE; 0: the wall clock */
};

struct printer;

struct printer *printer_new(enum output_format format,
			    const struct printer_opts *opts);
void printer_free(struct printer *p);	/* NULL is a no-op */

/*
 * Writes one notification (buffered).  Returns 0, or -1 when stdout
 * failed (errno says why: EPIPE when the reader went away).
 */
int printer_notification(struct printer *p, const struct notification *n);
/*
 * A verify check's report (watch --verify-every): a Verify record with
 * json and events, else a notice.  0 or -1 as above.
 */
int printer_verify(struct printer *p, const char *resource,
		   const struct verify_report *r);
/*
 * watch -v's periodic health notice for one informer: its state, the
 * open watch's age against its timeoutSeconds, the last event and
 * bookmark and the bookmark interval, very short watches, resourceVersions
 * that went back, the listener's backlog.  now: the wall clock.
 */
struct informer_stats;
int printer_health(struct printer *p, const char *resource,
		   const struct informer_stats *st, int64_t now);
/*
 * watch --controller: one of the simulated controller's records
 * (controller/controller.h) as a line (line, wide) or, with json and
 * events, an NDJSON record (output/controller_report.h says how each
 * reads); other formats print none.  base_ms + the record's clock is
 * the time shown.  0 or -1 as above.
 */
struct ctl_record;
struct controller_stats;
int printer_controller(struct printer *p, const struct ctl_record *r, int64_t base_ms);
/* Its summary: a notice, or with json and events a ControllerSummary record. */
int printer_controller_summary(struct printer *p, const struct controller_stats *st,
			       int64_t base_ms);
/* Flushes what printer_notification() buffered; 0 or -1 as above. */
int printer_flush(struct printer *p);
/* The message of the last template error (OUTPUT_OBJECT), or "". */
const char *printer_error(const struct printer *p);
/* Prints any lines still held, then flushes: before the end. */
int printer_finish(struct printer *p);

#endif

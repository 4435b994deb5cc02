/*
 * printer.h — `kinf watch` output: each notification an informer hands
 * its listener becomes one record on stdout, in the -o format chosen;
 * what the informer did (NOTIFY_ACTIVITY) becomes a notice line on a
 * separate stream (stderr), so that stdout stays clean for pipes.
 *
 * What each format prints — the line's columns and markers, wide's
 * label=value words, the NDJSON members, the Relist and Verify records,
 * the notices — is user documentation and lives in man/kinf.1 (WATCH
 * OPTIONS, JSON OUTPUT); the formats are one struct printer_ops each in
 * printer.c.  The status and wide columns come from columns.h.
 *
 * Line and wide hold the initial list's lines while opts.resources have
 * not all synced (at most 20,000 lines), so that the column widths fit
 * them; later a KIND or KEY too wide is cut and the RV column widens.
 * Custom columns hold the initial list's rows so too (format_hold()).
 *
 * Writing: each record is built in a strbuf and written with one fwrite()
 * then fflush(), so a reader like jq sees it at once.  Any write error on
 * stdout (EPIPE when the reader went away: the caller ignores SIGPIPE)
 * makes printer_notification() return -1; the caller then stops quietly
 * (status 0 when the reader closed).  An OUTPUT_OBJECT template that
 * fails on an object does the same with errno EINVAL, the message in
 * printer_error().  Errors writing notices are ignored.
 *
 * Threads: a printer belongs to the one thread that owns stdout.
 * Ownership: the printer never keeps a notification or its objects;
 * opts' format and crds are borrowed and must outlive it.
 */
#ifndef KINF_PRINTER_H
#define KINF_PRINTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct crd_columns;
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
	bool terminal;		/* stdout is a terminal: name escapes as line does */
	/*
	 * line and wide: how many resources are watched.  The initial list's
	 * lines are then held until each has synced, so that the columns fit
	 * them all; 0: print at once.
	 */
	size_t resources;
	struct format *format;	/* OUTPUT_OBJECT's (format.h); borrowed; NULL: json */
	/* Custom resources' columns (columns.h); borrowed; NULL: none known. */
	const struct crd_columns *crds;
	int64_t now_ms;		/* "now" for AGE; 0: the wall clock */
	/* line and wide: a controller's records come too (the TYPE column's width) */
	bool controller;
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
 * The flight recorder wrote a dump (watch --flight-recorder): with json
 * and events, a FlightDump record (reason, path); else nothing (the
 * command says it on stderr).  0 or -1 as above.
 */
int printer_flight_dump(struct printer *p, const char *path, const char *reason);
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

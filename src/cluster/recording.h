/*
 * recording.h — what a server sent, kept in a file (`kinf watch --record`)
 * and sent again from it (`kinf replay`).
 *
 * A recording holds the reflectors' requests only: each list page, watch
 * and resourceVersion probe, as an exchange of one stream (the collection
 * it asks, the stream_opts.record_as of its request): the request's path
 * and query, the status, Content-Type and Retry-After of the answer, the
 * body's pieces as they were received, each with its time, and how the
 * transfer ended (cleanly, or the error libcurl or kinf gave).  No
 * request header is written, so neither are credentials; the bodies are
 * the objects as the server sent them (a Secret's data included, as
 * -o json shows it).  The file is created 0600.
 *
 * The format (man kinf, RECORDINGS): gzip'd JSON lines.  The first is the
 * header: {"kinfRecording":1, ...}, with what the recording session was
 * (its resources as discovery described them, namespace, selectors,
 * client-go profile).  Then one record per line, in the order they
 * happened, each with "t" (ms since the recording began) and "x" (the
 * exchange's number):
 *
 *   {"t":0,"x":1,"stream":"/api/v1/namespaces/default/pods","get":"...?limit=500"}
 *   {"t":3,"x":1,"status":200,"contentType":"application/json"}
 *   {"t":3,"x":1,"data":"{\"kind\":\"PodList\",..."}
 *   {"t":5,"x":1,"end":0}			(or "end":-1,"error":"...")
 *   {"t":5,"x":1,"q":0}	(the consumer's pace: see kclient_mark())
 *
 * A recorder taps the live client (recorder_tap, a kclient_tap of
 * http.h); a loaded recording is what replay.h answers from.
 *
 * Threads: a recorder is written from every reflector thread at once
 * (a lock orders the lines).  A loaded recording is read-only.
 */
#ifndef KINF_RECORDING_H
#define KINF_RECORDING_H

#include <json-c/json.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct api_resource;		/* discovery.h */
struct kclient;
struct http_response;		/* http.h */
struct strbuf;

/* ---- the header --------------------------------------------------------- */

/*
 * What the recording session was: the header's fields, which a replay
 * needs to run the same informers.  recorder_open() writes them (the
 * caller's, read only; kinf and started it sets itself);
 * recording_get_info() reads them back, and they are the recording's
 * then, as long as it lives (a replay frees it with itself).
 */
struct recording_info {
	const char *kinf;		/* the version that recorded */
	const char *started;		/* RFC 3339, UTC */
	const char *server;
	const char *ns;			/* NULL: every namespace */
	const char *label_selector;	/* NULL: none */
	const char *field_selector;	/* NULL: none */
	const char *client_go;		/* the client-go profile's version */
	const char *fifo;		/* the queue, as fifo_kind_name() names it */
	bool streaming_list;
	/*
	 * Writing: the wall time (ms) of t = 0, written as "started"; 0:
	 * now.  A flight dump's is the recorder's start, so that its records'
	 * times and its trigger's are on one timeline.
	 */
	int64_t started_wall_ms;
	/* Each as discovery described it. */
	const struct api_resource *const *resources;
	size_t nr;
};

/* ---- writing ------------------------------------------------------------ */

struct recorder;

/* Creates path (0600, truncated) and writes the header.  NULL with err. */
struct recorder *recorder_open(const char *path, const struct recording_info *info,
			       struct errbuf *err);
/* Finishes the file; -1 with err when it could not be written whole. */
int recorder_close(struct recorder *rec, struct errbuf *err);
/*
 * The recorder as a client's tap: kclient_set_tap(client, &recorder_tap,
 * rec) records every request that names a stream.
 */
extern const struct kclient_tap recorder_tap;

/* An answer's head, and how a transfer ended (http.h's terms). */
struct recorded_answer {
	long status;			/* 0: none came */
	const char *content_type;	/* "" or NULL: none */
	int64_t retry_after_ms;		/* -1: none */
};
struct recorded_end {
	int rc;			/* 0, or -1 with: */
	const char *error;
	bool refused, timed_out, no_answer, no_answer_timeout, stream_broken;
	const char *stream_error;	/* with stream_broken: Go's words, or NULL */
	bool stopped;		/* kinf was stopping: the stream's recording ends */
};
/* How a tap's end (kclient_tap.end) is recorded: by the recorder and the flight. */
struct recorded_end recorded_end_of(int rc, const char *error,
				    const struct http_response *resp, bool stopped);
/*
 * The records as lines (each ending in a newline), appended to sb, for
 * another writer of the format (the flight recorder, flight.h): t is ms
 * since the recording began, x the exchange's number.
 */
void recording_line_header(struct strbuf *sb, const struct recording_info *info);
void recording_line_begin(struct strbuf *sb, int64_t t, unsigned x, const char *stream,
			  const char *path);
/*
 * A begin the flight recorder made up (informer/flight.h): the same
 * record with "reconstructed":true, for an exchange that is not what the
 * server sent, or that goes on from a point the recording lost.
 */
void recording_line_reconstructed(struct strbuf *sb, int64_t t, unsigned x,
				  const char *stream, const char *path);
void recording_line_status(struct strbuf *sb, int64_t t, unsigned x,
			   const struct recorded_answer *a);
void recording_line_data(struct strbuf *sb, int64_t t, unsigned x, const char *data,
			 size_t len);
void recording_line_end(struct strbuf *sb, int64_t t, unsigned x, const struct recorded_end *e);
/*
 * A flight dump's trigger: {"t":T,"trigger":REASON,"time":RFC3339,
 * "keys":[{"key":K,"class":"missing"|"extra"|"stale"},...]}, no "x".
 * keys: borrowed, NULL for [].
 */
void recording_line_trigger(struct strbuf *sb, int64_t t, const char *reason, const char *time,
			    struct json_object *keys);

/* ---- reading ------------------------------------------------------------ */

struct recording;

/*
 * Reads a whole recording, a record at a time, every member type-checked
 * and no line over 64 MiB: it is outside input.  NULL with err naming
 * the file and line.  _fd reads fd (and closes it), path its name.
 */
struct recording *recording_load(const char *path, struct errbuf *err);
struct recording *recording_load_fd(int fd, const char *path, struct errbuf *err);
void recording_free(struct recording *rec);
/* Whether it holds no request at all (kinf stopped before the first). */
bool recording_empty(const struct recording *rec);
/*
 * The i-th stream (from 0) in the order they began, and in *exchanges
 * how many exchanges it has; NULL past the last.  Borrowed.
 */
const char *recording_stream(const struct recording *rec, size_t i, size_t *exchanges);
/* The header as read (borrowed). */
struct json_object *recording_header(const struct recording *rec);
/*
 * The i-th stream (from 0) that begins with a reconstructed exchange (a
 * flight dump's checkpoint), or NULL past the last: its name, borrowed.
 */
const char *recording_reconstructed(const struct recording *rec, size_t i);
/* A flight dump's trigger record as read (borrowed), or NULL: none. */
struct json_object *recording_trigger(const struct recording *rec);
/*
 * Keeps what happened up to t (ms of the recording) only: later pieces
 * and exchanges dropped, an exchange still open at t stopped there (as a
 * recording cut by kinf's exit).  Before replay_new().
 */
void recording_cut(struct recording *rec, int64_t t);
/*
 * The header's fields; -1 with err when it names no resource, or one
 * without its name, kind or version (what a replay cannot run).  Before
 * replay_new(): the fields are made here, and the replay only reads.
 */
int recording_get_info(struct recording *rec, struct recording_info *info,
		       struct errbuf *err);

#endif

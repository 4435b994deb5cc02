/*
 * http.h — talking to a kube-apiserver over libcurl.
 *
 * A kclient holds everything needed to reach one cluster as one user:
 * server URL, TLS material (CA, client certificate and key, held in memory
 * as PEM blobs, never written to disk), and the credential source (token,
 * token file re-read when it changes, basic auth, exec plugin re-run on
 * 401 or expiry).  TLS verification is on unless the kubeconfig says
 * insecure-skip-tls-verify.  Every request carries User-Agent kinf/VERSION
 * and Accept-Encoding (libcurl decodes gzip).  Credentials never appear in
 * messages, nor in the -v trace (Authorization headers are redacted).
 *
 * HTTP/2 over TLS when the server offers it (ALPN), else HTTP/1.1, as
 * client-go; every request of a kclient goes through its transport
 * (transport.h), so that over HTTP/2 they all share one connection, whose
 * health is checked as client-go checks it.  DISABLE_HTTP2,
 * HTTP2_READ_IDLE_TIMEOUT_SECONDS and HTTP2_PING_TIMEOUT_SECONDS are read
 * from the environment as client-go reads them.  TCP keepalive notices a
 * peer that stopped answering within 50 s, on any HTTP version.
 *
 * Threads: a kclient is shared by every reflector thread; kclient_get()
 * and kclient_stream() may be called from any thread at once (each call
 * has its own easy handle; the transport's thread moves the bytes, the
 * caller's thread parses them).  Both block for the length of the
 * transfer.  The setters are for before the first request.
 *
 * Errors: -1 means the request did not complete at the transport level
 * (cannot connect, TLS failure, stopped, stalled, ...); err says why in
 * one line naming the cause (server, CA, host name).  Any HTTP status,
 * 4xx and 5xx included, is a completed request: 0, and the caller reads
 * resp->status.
 */
#ifndef KINF_HTTP_H
#define KINF_HTTP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/strbuf.h"
#include "lib/util.h"

struct rest_config;		/* kubeconfig.h */
struct kclient;

struct kclient *kclient_new(const struct rest_config *cfg, struct errbuf *err);
void kclient_free(struct kclient *client);
/* The server URL, e.g. "https://127.0.0.1:6443". */
const char *kclient_server(const struct kclient *client);
/*
 * Limits for kclient_get() (the whole request, its retries included) and
 * for connecting in either call (--request-timeout, and shell
 * completion's short fuse).  0 restores the defaults: no limit on the
 * request, 10 s to connect; a negative one limits nothing, but every
 * query says it ("timeout=-1s"), as client-go's.  kclient_stream() callers that make one
 * request of it (a LIST) pass kclient_timeout() as stream_opts.timeout_ms;
 * a watch does not, as kubectl's --request-timeout does not end one.
 */
void kclient_set_timeout(struct kclient *client, int64_t ms);
int64_t kclient_timeout(const struct kclient *client);
/*
 * Print a redacted request/response trace to stderr (-v); below 0 (-q),
 * not even what client-go logs at klog's level 0: a long throttle, the
 * server's warnings.
 */
void kclient_set_verbose(struct kclient *client, int level);
/* With -v, one line of the trace: what a lower layer did ("discovery: ..."). */
void kclient_note(struct kclient *client, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

enum http_version {
	HTTP_VERSION_AUTO,	/* HTTP/2 if the server agrees in the TLS handshake */
	HTTP_VERSION_1_1,	/* HTTP/1.1 only (also DISABLE_HTTP2 in the environment) */
	/* HTTP/2 or fail (over plain http: HTTP/2 with prior knowledge) */
	HTTP_VERSION_2,
};
void kclient_set_http_version(struct kclient *client, enum http_version v);
/*
 * client-go 1.36's CA rotation (transport/ca_rotation.go): a CA read from
 * a file (rest_config.ca_file) is read again as a request is made, once
 * the last read is 5 minutes old (KINF_CERT_CHECK_SECONDS, the tests'
 * hook), counted from kclient_new(); new content that holds a certificate
 * is what new connections trust, while those open go on.  Off: the CA
 * read at start, as before 1.36.
 */
void kclient_set_ca_reload(struct kclient *client, bool on);

struct http_response {
	long status;		/* HTTP status, 0 if none was read */
	struct strbuf body;	/* kclient_get only */
	int64_t retry_after_ms;	/* Retry-After header, -1 if absent */
	char content_type[128];
	/* On 401 and 403: who asked, "user 'admin' (bearer token)". */
	char who[160];
	/* The connection was refused (nothing listens): a retriable failure. */
	bool refused;
	/* stream_opts.timeout_ms ran out (then err names it). */
	bool timed_out;
	/*
	 * No status came: the connection broke, was closed or timed out
	 * before the answer's head (an EOF, a reset, a timeout, the health
	 * check's close), which client-go's REST client retries
	 * (http_no_answer_retriable()).  Not a refused connection.
	 */
	bool no_answer;
	/*
	 * ... because a timer ran out (connecting, the TLS handshake): Go's
	 * IsTimeout, which Watch retries and a GET (Do) does not, where it
	 * retries an EOF or a reset (http_no_answer_retriable() and not this).
	 */
	bool no_answer_timeout;
	/*
	 * An HTTP/2 stream that broke with an error Go's transport does not
	 * report as an EOF: the health check found the connection dead (no
	 * answer to a PING: with no status, no_answer is set too), or the
	 * server reset the stream.  client-go's StreamWatcher turns such a
	 * read error into an ERROR event (500), and rest.Request.Watch does
	 * not retry it; an EOF or a reset TCP connection only ends the
	 * stream.  request() (a LIST) retries a lost connection from 1.32.
	 */
	bool stream_broken;
	/*
	 * With stream_broken, what Go's HTTP/2 transport says of it:
	 * "stream error: stream ID 3; INTERNAL_ERROR; received from peer",
	 * or "http2: client connection lost".
	 */
	char stream_error[96];
	/*
	 * A replay (recording.h): the recording stops in this transfer, cut
	 * by kinf, not ended by the server.  Never set live.
	 */
	bool recording_ended;
};
void http_response_release(struct http_response *resp);

/* GET path ("/api/v1/pods?limit=500"): whole body into resp->body. */
int kclient_get(struct kclient *client, const char *path,
		struct http_response *resp, struct errbuf *err);
/*
 * The same with an Accept header of the caller's (NULL: application/json)
 * and, as client-go's discovery client makes its requests, a limit for a
 * client with none of its own (kclient_set_timeout()): within_ms, said in
 * the query ("timeout=32s"); 0: none.  Throttled by limiter, when not
 * NULL (rest_limiter_new()).
 */
struct rest_limiter;
int kclient_get_accept(struct kclient *client, const char *path, const char *accept,
		       int64_t within_ms, struct rest_limiter *limiter,
		       struct http_response *resp, struct errbuf *err);

/*
 * Receives each piece of a streamed body as it arrives (chunk boundaries
 * fall anywhere).  Return 0 to go on, -1 to abort the transfer (then
 * kclient_stream returns -1 with err "aborted").
 */
typedef int http_data_fn(void *ctx, const char *data, size_t len);

struct stream_opts {
	/* Set it to stop the transfer at once (see stop_fd). */
	atomic_bool *stop;
	/*
	 * Readable when *stop was set (see stop_fd() in stop.h), so a quiet
	 * transfer wakes for it without polling.  -1 or 0 when there is none
	 * (then the stop flag is looked at once a second).
	 */
	int stop_fd;
	/*
	 * A file whose reader is watched (`get -w`'s stdout): when it hangs
	 * up or fails (a pipe whose reader left: `| head -1`), the transfer
	 * stops at once, as on *stop.  0: none.
	 */
	int hangup_fd;
	/*
	 * A transfer that receives no byte for this long is torn down as dead
	 * (-1, err starting with "stalled").  0: no limit.
	 */
	int64_t idle_timeout_ms;
	/* Whole request limit, the retries and their waits included; 0: none. */
	int64_t timeout_ms;
	/* The query's "timeout=": 0, the client's (kclient_set_timeout()). */
	int64_t query_timeout_ms;
	/*
	 * Retry what http_rest_retriable() says to, up to this many times
	 * (HTTP_MAX_RETRIES as the REST client), each after the answer's
	 * Retry-After (cut short by *stop).  0: the caller reads every
	 * status itself, as the reflector does to count and report its waits.
	 */
	unsigned retries;
	/*
	 * Called tick_ms after the transfer starts, data or not, on the
	 * caller's thread; it returns the ms until it wants to be called
	 * again, or -1 to end the transfer (-1, err "aborted").  For "still
	 * waiting" warnings and silence rules.  NULL: none.
	 */
	int64_t (*tick)(void *tick_ctx);
	void *tick_ctx;
	int64_t tick_ms;
	/* The Accept header's value; NULL: "application/json". */
	const char *accept;
	/*
	 * The stream of a recording this request belongs to (the
	 * reflector's collection path), or NULL: with a tap set (a
	 * recorder), the exchange is tapped; on a replay client, it is
	 * answered from the recording (recording.h).  Other requests are
	 * neither.
	 */
	const char *record_as;
	/*
	 * Set to the tap's number for a tapped exchange (the begin hook's)
	 * before any of its data is handed on, and left as it was for one
	 * not tapped; NULL: not wanted.  What the reflector tells its FIFO
	 * it has read up to (fifo_unhold()).
	 */
	unsigned *tap_x;
	/*
	 * The REST client's rate limit this request takes its tokens from
	 * (see rest_limiter_new()); NULL: none.
	 */
	struct rest_limiter *limiter;
	/*
	 * This call tries again a request the caller made before (the
	 * reflector's retries of a watch): its first try is throttled too.
	 */
	bool retry;
};

/*
 * client-go's client-side rate limit, rest.Config's QPS and Burst at
 * their defaults: 5 requests a second in bursts of 10 (flowcontrol's
 * token bucket, lib/token_bucket.h), shared by the requests of one REST
 * client: the informers' dynamic client, kubectl's client of one type.
 * Each try of a request that names one waits for its token first
 * (rest.Request's tryThrottle; -v tells a wait over 50 ms, where
 * client-go logs at V(3)), but a watch's first try: rest.Request.Watch
 * leaves watches unthrottled and throttles only their retries
 * (with_retry.go's Before).  A first try's wait comes before its
 * request timeout starts, as client-go's.  Thread-safe.
 */
struct rest_limiter;
struct rest_limiter *rest_limiter_new(void);
void rest_limiter_free(struct rest_limiter *l);
/* Full again, as a new REST client's (kubectl's get makes one per type). */
void rest_limiter_refill(struct rest_limiter *l);

/*
 * Whether a Content-Type names JSON (application/json, or
 * application/...+json; none at all counts as JSON, as client-go takes it).
 */
bool http_json_media_type(const char *type);

/*
 * What a reflector's request asks, read from its path's query: a watch
 * (watch=true), a streaming list (a watch with sendInitialEvents=true),
 * or a LIST (any page).  A replay answers a request only with a recorded
 * answer to a request of its kind.
 */
enum request_kind { REQUEST_UNKNOWN, REQUEST_LIST, REQUEST_WATCH, REQUEST_STREAMING_LIST };
enum request_kind request_kind_of(const char *path);
/* "LIST", "watch", "streaming list" ("request" for REQUEST_UNKNOWN). */
const char *request_kind_name(enum request_kind kind);

/*
 * GET path and hand the body to on_data as it streams in.  The status is
 * known before the first on_data call (resp->status); for a non-2xx status
 * the body is gathered into resp->body instead of being handed to on_data.
 */
int kclient_stream(struct kclient *client, const char *path,
		   const struct stream_opts *opts, http_data_fn *on_data,
		   void *ctx, struct http_response *resp, struct errbuf *err);

/*
 * Requests the calling thread makes from now on without a stop of their
 * own (stream_opts.stop NULL: a verify check's LIST, discovery's GETs) end
 * at once, -1 with err "stopped", when stop is requested; NULL: none.  For
 * a worker thread (lib/worker.h) whose owner may give up on its job.
 * Per thread; stop must outlive the requests.
 */
struct stop;
void kclient_set_thread_stop(struct stop *stop);

/*
 * The client's clock, monotonic ms: the machine's, or on a replay client
 * the recorded time the calling thread has reached.
 */
int64_t kclient_now_ms(const struct kclient *client);
/* stop_sleep() on the client's clock: true when stopped. */
bool kclient_sleep(struct kclient *client, struct stop *stop, int64_t ms);

/*
 * The consumer's pace, for a recording (fifo.h's pacer): kclient_mark()
 * tells the tap, if it keeps marks, that stream's reflector queued an
 * entry when its consumer had popped `pops`; kclient_next_mark() gives
 * what a replay recorded for that stream's next entry (-1: nothing;
 * *last: nothing after it), in order.  Live, next is always -1.
 */
void kclient_mark(struct kclient *client, const char *stream, uint64_t pops);
int64_t kclient_next_mark(struct kclient *client, const char *stream, bool *last);

/* ---- a stream's tap (a recorder, recording.h) ---- */

/*
 * Sees every exchange of kclient_stream() that names a stream
 * (stream_opts.record_as): its start, the answer's head, each piece of
 * the body as it came (a non-2xx answer's gathered body as one piece,
 * after the others) and how the request ended.  The calls of one
 * exchange come from its requesting thread, in that order; those of
 * several exchanges come from several threads at once.
 */
struct kclient_tap {
	/* A new exchange of stream for path; returns its number. */
	unsigned (*begin)(void *ctx, const char *stream, const char *path);
	/* resp's status, Content-Type and Retry-After are known. */
	void (*head)(void *ctx, unsigned x, const struct http_response *resp);
	void (*data)(void *ctx, unsigned x, const char *data, size_t len);
	/*
	 * kclient_stream() returned rc (error: err's message when -1);
	 * stopped: the caller's stop flag was set.
	 */
	void (*end)(void *ctx, unsigned x, int rc, const char *error,
		    const struct http_response *resp, bool stopped);
	/*
	 * kclient_mark(): stream's reflector queued an entry when its
	 * consumer had popped `pops` (fifo.h, the pacer).  NULL: not kept.
	 */
	void (*mark)(void *ctx, const char *stream, uint64_t pops);
};
/* Taps every stream the client is asked for (before the first request). */
void kclient_set_tap(struct kclient *client, const struct kclient_tap *tap, void *ctx);

/* ---- backends ---- */

/*
 * What answers a client's requests and keeps its time: libcurl against
 * the server (kclient_new(), here), or a recording (replay_client_new(),
 * recording.h).  The kclient_* calls go through it; the tap, the name
 * and the -v trace's level are the client's, whatever its backend.  Each
 * function is called as the kclient_* call it serves: from any thread at
 * once, blocking as that call says.  stream and get are set.
 */
struct kclient_ops {
	/* kclient_stream() */
	int (*stream)(struct kclient *client, const char *path,
		      const struct stream_opts *opts, http_data_fn *on_data, void *ctx,
		      struct http_response *resp, struct errbuf *err);
	/* kclient_get_accept() */
	int (*get)(struct kclient *client, const char *path, const char *accept,
		   int64_t within_ms, struct rest_limiter *limiter,
		   struct http_response *resp, struct errbuf *err);
	/* kclient_now_ms() and kclient_sleep(); NULL: the machine's clock */
	int64_t (*now_ms)(const struct kclient *client);
	bool (*sleep)(struct kclient *client, struct stop *stop, int64_t ms);
	/* kclient_next_mark(); NULL: none (-1) */
	int64_t (*next_mark)(struct kclient *client, const char *stream, bool *last);
	/* Frees what the backend holds, from kclient_free(); NULL: nothing. */
	void (*release)(struct kclient *client);
};
/*
 * A client answered by ops, over the backend's data (borrowed: it must
 * outlive the client); what: its name in messages (kclient_server()).
 */
struct kclient *kclient_new_backend(const struct kclient_ops *ops, void *data,
				    const char *what);
/* The data a client of kclient_new_backend() was given. */
void *kclient_backend_data(const struct kclient *client);

/* A member (e.g. "message") of resp's body when that is a Status, as a copy to free; else NULL. */
char *http_status_member(const struct http_response *resp, const char *name);

/*
 * One line for a non-2xx answer: the Status object's message when the body
 * is one ("pods is forbidden: User ..."), else the status line.  `what`
 * names the request for context (e.g. "list pods").
 */
void http_status_message(const struct http_response *resp, const char *what,
			 struct errbuf *err);
/* The answer's body is a Status whose reason is `reason` ("Expired"). */
bool http_status_reason_is(const struct http_response *resp, const char *reason);
/*
 * apimachinery's errors.IsX, which client-go and kubectl decide by: the
 * reason a Status says, or its code with a reason apimachinery does not
 * know (IsTooManyRequests: its code whatever the reason).
 */
enum api_error {
	API_NOT_FOUND,		/* IsNotFound: kubectl's --ignore-not-found */
	API_EXPIRED,		/* IsResourceExpired || IsGone: the reflector's relist at "" */
	API_TOO_MANY_REQUESTS,	/* IsTooManyRequests: the reflector's re-watch after backoff */
};
/* Of a Status (an ERROR event's, one in a 200 answer). */
bool http_status_is(struct json_object *status, enum api_error what);
/* Of a non-2xx answer (never a 2xx): its Status when the body is one that failed, else its code. */
bool http_answer_is(const struct http_response *resp, enum api_error what);
/*
 * Of a non-2xx answer by its code alone, whatever its body says: the
 * NewGenericServerResponse error that client-go's watch request (1.31
 * and older) reads in place of the Status.
 */
bool http_code_is(const struct http_response *resp, enum api_error what);

/*
 * What client-go's REST client retries by itself (with_retry.go
 * IsNextRetry, checkWait): a 429 or any 5xx that says Retry-After (kinf's
 * one-answer requests also wait out a 429 without it, a second), at most
 * HTTP_MAX_RETRIES times for one request.
 */
#define HTTP_MAX_RETRIES 10
bool http_rest_retriable(const struct http_response *resp);
/* The wait before retrying such an answer: its Retry-After, else a second. */
int64_t http_retry_delay_ms(const struct http_response *resp);
/*
 * A request that got no answer (resp->no_answer): client-go's REST client
 * (rest.Request.Watch and request(), with with_retry.go's IsNextRetry)
 * takes it as an artificial "Retry-After: 1" and tries again, up to
 * HTTP_MAX_RETRIES times, before its caller (the reflector) sees the
 * error: Watch an EOF, a reset or a timeout, a GET (Do, a LIST's page
 * too) an EOF or a reset only.  The wait is HTTP_NO_ANSWER_RETRY_MS.
 */
#define HTTP_NO_ANSWER_RETRY_MS 1000
bool http_no_answer_retriable(const struct http_response *resp, int rc);

/*
 * Go's url.QueryEscape of s[0..len) into sb: letters, digits and "-._~"
 * as they are, a space as '+', every other byte percent-encoded.
 */
void url_query_escape(struct strbuf *sb, const char *s, size_t len);

/*
 * A name or namespace as one segment of a request's path, escaped as Go
 * escapes a URL's path for client-go: all but letters, digits and
 * "-._~$&+,:;=@" ('/' never comes: url_segment_refused() says so).
 */
void url_path_escape(struct strbuf *sb, const char *s);

/*
 * Why client-go's Request.Name and Namespace refuse s as a path segment
 * (apimachinery's IsValidPathSegmentName), as Go prints the list:
 * "[may not be '..']", "[may not contain '/' may not contain '%']"; NULL
 * when it takes it.
 */
const char *url_segment_refused(const char *s);
/*
 * Appends "?name=value" to an empty query, "&name=value" to one begun,
 * value escaped as Go's url.QueryEscape escapes it (a space as '+').
 */
void url_query_add(struct strbuf *q, const char *name, const char *value);

#endif

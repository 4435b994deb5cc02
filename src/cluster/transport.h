/*
 * transport.h — the one thread that moves every byte of a kclient.
 *
 * As Go's http.Transport under client-go, a transport owns the
 * connections to one server: every request of a kclient (each reflector's
 * LIST and WATCH, discovery, get) runs as one transfer of a single libcurl
 * multi handle, driven by the transport's own thread.  Over HTTP/2 they
 * all multiplex on one TCP connection (CURLOPT_PIPEWAIT makes the second
 * request wait for the first connection's ALPN answer instead of opening
 * its own); over HTTP/1.1 each concurrent request has its connection, as
 * with client-go.  libcurl cannot share one HTTP/2 connection between
 * multi handles, nor drive one multi handle from several threads, hence
 * the thread.
 *
 * A transfer's bytes are handed to the thread that started it: the
 * connection thread appends them to the transfer's buffer and wakes the
 * caller (while more bytes are readable at once, every 64 KiB or 2 ms
 * rather than every TLS record; as soon as none are), which takes them
 * with xfer_take() and parses them on its own
 * thread (a 450 MB list is parsed by its reflector, not by the thread
 * every other watch depends on).  A caller that falls behind by more than
 * XFER_HIGH_WATER bytes pauses its transfer (CURL_WRITEFUNC_PAUSE: over
 * HTTP/2 only that stream's flow-control window closes; the others go
 * on) until it has taken the backlog.
 *
 * Connection health, as client-go's HTTP/2 health check
 * (apimachinery util/net http.go: ReadIdleTimeout 30 s, PingTimeout 15 s):
 * an HTTP/2 connection that carries transfers (answered or still waiting:
 * one sent on a connection it reuses is known by the connection's local
 * address) and has received nothing for
 * read_idle_ms is sent an HTTP/2 PING frame; if still nothing arrives
 * within ping_timeout_ms, the connection is dead: the transport shuts its
 * socket down, every transfer on it fails at once (xfer_news.conn_dead),
 * and the next requests open a new connection.  No request is added: the
 * server sees the frames Go's http2 transport sends.
 *
 * libcurl cannot send that PING on a connection of a multi handle, nor
 * tell of its ACK: h2ping.h writes the frame behind libcurl's back, and
 * hears the answer in the kernel's count of the socket's bytes.  Through
 * an https:// proxy no frame can be written: kclient turns the check off
 * there.  HTTP/1.1 connections are not checked, as in client-go; TCP
 * keepalive (see http.c) covers a vanished peer.
 *
 * A new connection's TLS handshake has tls_handshake_timeout_ms, as Go's
 * TLSHandshakeTimeout: libcurl tells when one begins (xfer_tls_began()),
 * and the transport fails the transfer that waits on it past the limit.
 * transport_close_all() closes every connection at once, as the dialer of
 * client-go's certificate rotation does when the client certificate
 * changes; a caller's timer (opts.tick) and a hook as each handshake
 * begins (opts.handshake) run on the connection thread for that check.
 *
 * DESIGN (threads): callers start, take, wait, cancel and free transfers
 * from any thread, each transfer used by one caller thread.  The
 * connection thread alone calls libcurl on the multi handle and on easy
 * handles between xfer_start() and the moment the transfer is done.
 * Only that thread touches the connections' TLS sessions and sockets, the
 * health check's PINGs included.
 * tp->lock guards the queue of new transfers and each transfer's shared
 * fields (marked "under tp->lock"); libcurl is never called with it held,
 * since curl_easy_pause() calls the write callback at once.  The header
 * hook runs on the connection thread with tp->lock held.
 */
#ifndef KINF_TRANSPORT_H
#define KINF_TRANSPORT_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/strbuf.h"

/* Bytes a caller may leave untaken before its transfer is paused. */
#define XFER_HIGH_WATER (1 << 20)

struct transport;

struct transport_opts {
	/* HTTP/2 health check; read_idle_ms 0 turns it off. */
	int64_t read_idle_ms;
	int64_t ping_timeout_ms;
	/*
	 * Go's TLSHandshakeTimeout: a transfer whose connection's TLS
	 * handshake has not ended this long after it began fails
	 * (xfer_news.tls_timeout), the connection closed; 0: no limit.
	 */
	int64_t tls_handshake_timeout_ms;
	/*
	 * A notice for the -v trace ("ping sent", "ping answered", "...:
	 * closing it"), on the connection thread.
	 */
	void (*note)(void *ctx, const char *msg);
	void *ctx;
	/*
	 * A timer of the caller's, on the connection thread: called first
	 * tick_first_ms after the start (none when tick is NULL), then again
	 * after the ms it returns (-1: never).  It may call
	 * transport_close_all() on tp.
	 */
	int64_t (*tick)(void *ctx, struct transport *tp);
	int64_t tick_first_ms;
	/*
	 * Called on the connection thread as a new connection's TLS
	 * handshake begins (NULL: nothing); it may call
	 * transport_close_all() on tp, which closes that connection too.
	 * false fails the handshake (CURLE_SSL_CERTPROBLEM).
	 */
	bool (*handshake)(void *ctx, struct transport *tp);
};

struct transport;
struct xfer;

/* Starts the connection thread; NULL, with errno set, if it cannot. */
struct transport *transport_new(const struct transport_opts *opts);
/*
 * Closes every connection, as client-go's connrotation.Dialer.CloseAll
 * closes them when the client certificate changes: each transfer running
 * ends (xfer_news.closed_all), as on a connection the server closed (an
 * EOF, no lost connection), and an idle connection is not used again.
 * why goes to the -v trace.  From any thread; done by the connection
 * thread as soon as it gets to it.
 */
void transport_close_all(struct transport *tp, const char *why);
/* Every transfer must have been freed.  Joins the thread. */
void transport_free(struct transport *tp);

/*
 * One header line as received (with its CR LF), on the connection thread,
 * with tp->lock held: keep it short, never call back into the transport.
 * false ends the transfer (libcurl's CURLE_WRITE_ERROR).
 */
typedef bool xfer_header_fn(void *arg, const char *line, size_t len);

/*
 * Hands easy, fully set up except its header and write callbacks (the
 * transport's own), to the connection thread.  The easy handle is the
 * transport's until the transfer is done.  NULL, with errno set, when
 * there is no descriptor for the transfer's wake-up pipe: the request
 * fails as one whose socket could not be had.
 */
struct xfer *xfer_start(struct transport *tp, CURL *easy, xfer_header_fn *on_header,
			void *arg);

struct xfer_news {
	bool done;
	CURLcode result;	/* when done; CURLE_ABORTED_BY_CALLBACK after xfer_cancel */
	/* The transport closed the transfer's connection: it stayed silent after a ping. */
	bool conn_dead;
	/* Its connection's TLS handshake outlasted tls_handshake_timeout_ms. */
	bool tls_timeout;
	/* transport_close_all() closed its connection. */
	bool closed_all;
	bool http2;		/* the response came over HTTP/2 */
	int64_t last_byte_ms;	/* mono_ms() of the last byte, or of the start */
};

/*
 * What arrived since the last call (nothing once cancelled), the
 * transfer's to keep and valid until the next call or xfer_free(), and
 * where the transfer stands.  Never blocks.  Taking a backlog resumes a
 * paused transfer.
 */
const struct strbuf *xfer_take(struct xfer *x, struct xfer_news *news);
/*
 * Sleeps until the transfer has news for xfer_take(), fd (if >= 0)
 * becomes readable, hup_fd (if >= 0) hangs up or fails (a pipe
 * whose reader left), or timeout_ms passes (-1: no limit).
 */
void xfer_wait(struct xfer *x, int fd, int hup_fd, int timeout_ms);
/* Ends the transfer as soon as the connection thread gets to it. */
void xfer_cancel(struct xfer *x);
/*
 * The TLS handshake of a connection easy's transfer opens begins (from a
 * libcurl SSL_CTX callback, on the connection thread): its timeout runs,
 * and opts.handshake's answer is returned (false: fail the handshake).
 */
bool xfer_tls_began(CURL *easy);
/* Once done (xfer_news.done): frees x; its easy handle is the caller's again. */
void xfer_free(struct xfer *x);

#endif

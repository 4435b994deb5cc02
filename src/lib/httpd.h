/*
 * httpd.h — a small HTTP server for a few read-only pages (the canary's
 * /metrics and /healthz), on libmicrohttpd: kinf parses no HTTP itself.
 *
 * httpd_new() binds and listens before it returns, so a bad address or a
 * port in use is an error the caller reports before anything else starts;
 * then libmicrohttpd's own thread serves, calling the handler for each
 * GET or HEAD.  Other methods get 405 without the handler.
 *
 * Slow clients (slowloris) hold no one else out: a connection lives 10 s
 * at most, headers included, an address holds 8, the server 256.
 *
 * Threads: the handler runs on libmicrohttpd's thread, one request at a
 * time, and must not block for long; a second thread ends connections
 * past their lifetime.  httpd_free() stops both (waits for the request
 * being answered) and closes the socket.
 */
#ifndef KINF_HTTPD_H
#define KINF_HTTPD_H

#include "lib/strbuf.h"
#include "lib/util.h"

/* What the handler fills in: status 200 and text/plain unless it says. */
struct httpd_reply {
	unsigned status;
	const char *content_type;	/* static */
	struct strbuf body;
};

typedef void httpd_handler_fn(void *ctx, const char *path, struct httpd_reply *reply);

struct httpd;

/*
 * Binds addr and serves through fn(ctx) until httpd_free().  -1 with err
 * ("address already in use", ...).  ctx is borrowed and must outlive h.
 * addr: "PORT" (on 127.0.0.1), ":PORT" (every interface, IPv6 and IPv4),
 * "HOST:PORT", "[IPv6]:PORT"; the host an address, not a name.
 */
struct httpd *httpd_new(const char *addr, httpd_handler_fn *fn, void *ctx,
			struct errbuf *err);
/* The port bound (useful with port 0). */
unsigned httpd_port(const struct httpd *h);
void httpd_free(struct httpd *h);	/* NULL: no-op */

#endif

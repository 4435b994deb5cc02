/*
 * httpd.c — see httpd.h.
 *
 * DESIGN (threads): libmicrohttpd runs one internal thread that accepts,
 * reads and answers (MHD_USE_INTERNAL_POLLING_THREAD), so the handler is
 * never called twice at once.  This file binds the socket itself, so
 * that the error of a bad address or a busy port is errno's, said before
 * the server starts; libmicrohttpd takes the socket over.
 *
 * A server that every pod may reach (the README's in-cluster :9090) must
 * outlast slowloris: clients that send a request a byte at a time to
 * hold every connection.  libmicrohttpd's timeout is one of idleness, so
 * each connection also has a lifetime, HTTPD_LIFETIME_S from its accept
 * to its close, headers, handler and answer included (the answers are a
 * few kilobytes, and each closes its connection); an address holds
 * HTTPD_PER_ADDRESS connections at most, and the server HTTPD_MAX.  The
 * lifetime is kept by a second thread, the reaper: libmicrohttpd's
 * thread tells it each connection's start and close (the notify
 * callback, under h->lock), and it shuts down, never closes, the socket
 * of one past its time, which libmicrohttpd then sees end and closes.
 * libmicrohttpd says a connection closed before it closes its socket, so
 * the reaper never touches a descriptor number that was reused.
 */
#include "lib/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <microhttpd.h>

/* A slow or idle client may not hold the server: see DESIGN. */
#define HTTPD_TIMEOUT_S 5		/* idle */
#define HTTPD_LIFETIME_S 10
#define HTTPD_PER_ADDRESS 8
#define HTTPD_MAX 256

struct httpd {
	struct MHD_Daemon *daemon;
	httpd_handler_fn *fn;
	void *ctx;
	unsigned port;
	/* the reaper's: each open connection's socket and deadline */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;
	pthread_t reaper;
	struct live {
		int fd;			/* -1: a free slot */
		int64_t deadline;	/* mono_ms() */
	} live[HTTPD_MAX];
};

static int parse_port(const char *s, unsigned *port)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

/* Splits "HOST:PORT", "[V6]:PORT", ":PORT" and "PORT"; host "" for ":PORT". */
static int split_addr(const char *addr, char *host, size_t size, const char **port)
{
	const char *colon;

	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');
		if (!close || close[1] != ':' || (size_t)(close - addr - 1) >= size)
			return -1;
		snprintf(host, size, "%.*s", (int)(close - addr - 1), addr + 1);
		*port = close + 2;
		return 0;
	}
	colon = strrchr(addr, ':');
	if (!colon) {
		snprintf(host, size, "127.0.0.1");
		*port = addr;
		return 0;
	}
	if (memchr(addr, ':', (size_t)(colon - addr)) || (size_t)(colon - addr) >= size)
		return -1;	/* an IPv6 address wants brackets */
	snprintf(host, size, "%.*s", (int)(colon - addr), addr);
	*port = colon + 1;
	return 0;
}

/* addr as httpd_new() takes it into *sa; -1 with err. */
static int parse_addr(const char *addr, struct sockaddr_storage *sa,
		      socklen_t *len, struct errbuf *err)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *port_s;
	unsigned port;

	memset(sa, 0, sizeof(*sa));
	if (split_addr(addr, host, sizeof(host), &port_s) < 0 || parse_port(port_s, &port) < 0)
		goto bad;
	struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	if (!*host) {		/* every interface, IPv4 too through a dual-stack socket */
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_any;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
	} else if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof(*in4);
	} else if (addr[0] == '[' && inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
	} else {
		goto bad;
	}
	return 0;
bad:
	errbuf_set(err, "bad address '%s': want PORT, :PORT, HOST:PORT or [IPV6]:PORT", addr);
	return -1;
}

/* A socket listening on addr; -1 with err.  ":PORT" falls back to IPv4 only. */
static int listen_on(const char *addr, struct errbuf *err)
{
	struct sockaddr_storage sa;
	socklen_t len;
	int fd, one = 1, zero = 0;

	if (parse_addr(addr, &sa, &len, err) < 0)
		return -1;
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 && sa.ss_family == AF_INET6 && errno == EAFNOSUPPORT &&
	    IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)&sa)->sin6_addr)) {
		struct sockaddr_in *in4 = (struct sockaddr_in *)&sa;
		uint16_t port = ((struct sockaddr_in6 *)&sa)->sin6_port;
		memset(&sa, 0, sizeof(sa));
		in4->sin_family = AF_INET;
		in4->sin_port = port;
		len = sizeof(*in4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	if (fd < 0)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, 64) < 0)
		goto fail;
	return fd;
fail:
	errbuf_set(err, "cannot listen on '%s': %s", addr, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static enum MHD_Result queue_text(struct MHD_Connection *conn, unsigned status,
				  const char *type, const struct strbuf *body)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		body->len, body->buf, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	/* one request a connection: its lifetime bounds the whole of it */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	enum MHD_Result ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* MHD_AccessHandlerCallback: one call per request (GETs have no body). */
static enum MHD_Result access_cb(void *cls, struct MHD_Connection *conn,
				 const char *url, const char *method,
				 const char *version, const char *upload_data,
				 size_t *upload_data_size, void **req_cls)
{
	struct httpd *h = cls;
	struct httpd_reply reply = { .status = 200, .content_type = "text/plain; charset=utf-8",
				     .body = STRBUF_INIT };
	enum MHD_Result ret;

	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		reply.status = 405;
		strbuf_adds(&reply.body, "method not allowed\n");
	} else {
		h->fn(h->ctx, url, &reply);
	}
	ret = queue_text(conn, reply.status, reply.content_type, &reply.body);
	strbuf_release(&reply.body);
	return ret;
}

/* libmicrohttpd's own messages would go to stderr, which is the user's. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
}

/* MHD_NotifyConnectionCallback: a connection begins or ends. */
static void notify_cb(void *cls, struct MHD_Connection *conn, void **socket_context,
		      enum MHD_ConnectionNotificationCode code)
{
	struct httpd *h = cls;
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	int fd = info ? info->connect_fd : -1;

	if (fd < 0)
		return;
	pthread_mutex_lock(&h->lock);
	for (size_t i = 0; i < HTTPD_MAX; i++) {
		struct live *l = &h->live[i];
		if (code == MHD_CONNECTION_NOTIFY_STARTED && l->fd < 0) {
			*l = (struct live){ fd, mono_ms() + HTTPD_LIFETIME_S * 1000 };
			pthread_cond_signal(&h->wake);
			break;
		}
		if (code == MHD_CONNECTION_NOTIFY_CLOSED && l->fd == fd) {
			l->fd = -1;
			break;
		}
	}
	pthread_mutex_unlock(&h->lock);
}

/* The reaper: ends each connection that outlives HTTPD_LIFETIME_S. */
static void *reaper(void *arg)
{
	struct httpd *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		int64_t now = mono_ms(), next = now + HTTPD_LIFETIME_S * 1000;
		for (size_t i = 0; i < HTTPD_MAX; i++) {
			struct live *l = &h->live[i];
			if (l->fd < 0)
				continue;
			if (l->deadline <= now) {
				shutdown(l->fd, SHUT_RDWR);
				l->deadline = now + 1000;	/* until it is closed */
			}
			if (l->deadline < next)
				next = l->deadline;
		}
		cond_wait_until(&h->wake, &h->lock, next);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static void reaper_start(struct httpd *h)
{
	pthread_mutex_init(&h->lock, NULL);
	cond_init_monotonic(&h->wake);
	for (size_t i = 0; i < HTTPD_MAX; i++)
		h->live[i].fd = -1;
	if (pthread_create(&h->reaper, NULL, reaper, h))
		die("cannot start a thread: %s", strerror(errno));
}

static void reaper_stop(struct httpd *h)
{
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->reaper, NULL);
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
}

struct httpd *httpd_new(const char *addr, httpd_handler_fn *fn, void *ctx,
			struct errbuf *err)
{
	struct httpd *h = xcalloc(1, sizeof(*h));
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	int fd = listen_on(addr, err);

	if (fd < 0)
		goto fail;
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		h->port = ntohs(sa.ss_family == AF_INET6
				? ((struct sockaddr_in6 *)&sa)->sin6_port
				: ((struct sockaddr_in *)&sa)->sin_port);
	h->fn = fn;
	h->ctx = ctx;
	reaper_start(h);
	/* poll(), not select(): more connections than FD_SETSIZE's fds */
	h->daemon = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG,
				     0, NULL, NULL, access_cb, h,
				     MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
				     MHD_OPTION_NOTIFY_CONNECTION, notify_cb, h,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTPD_TIMEOUT_S,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTPD_MAX,
				     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)HTTPD_PER_ADDRESS,
				     MHD_OPTION_END);
	if (!h->daemon) {
		reaper_stop(h);
		close(fd);
		errbuf_set(err, "cannot serve on '%s'", addr);
		goto fail;
	}
	return h;
fail:
	free(h);
	return NULL;
}

unsigned httpd_port(const struct httpd *h)
{
	return h->port;
}

void httpd_free(struct httpd *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);	/* closes the socket it was given */
	reaper_stop(h);
	free(h);
}

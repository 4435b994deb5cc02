/*
 * transport.c — the connection thread and its multi handle; see transport.h.
 *
 * DESIGN (threads): see transport.h.  Ownership of a struct xfer: the
 * caller allocates it in xfer_start() and frees it in xfer_free(), once
 * `done`; in between the connection thread links it into `running` (a
 * list only that thread touches) and unlinks it before setting `done`.
 * The health check's pings are no transfers: the connection thread writes
 * them straight to the connection (h2ping.h).
 */
#include "cluster/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster/h2ping.h"
#include "cluster/tls_cert.h"
#include "lib/util.h"

/* Streams libcurl may open on one HTTP/2 connection (the server's limit also holds). */
#define MAX_STREAMS 1000L
/* The longest the connection thread sleeps when no timer is due. */
#define MAX_POLL_MS 60000
/* A ping that could not be written yet is tried again this often. */
#define PING_RETRY_MS 50
/*
 * Bytes that arrive while more are readable wake their caller in batches
 * of this much, or once nothing more is readable, or after HOLD_MS: a
 * list's 16 KiB TLS records otherwise cost the reflector a wake-up each
 * (with the decoder thread kinf had, 43,000 wake-ups for a 450 MB list).
 */
#define NOTIFY_BATCH (64 << 10)
#define HOLD_MS 2
/*
 * A finished transfer's two buffers wait for the next one: a LIST of
 * 200 pages is 200 transfers, and buffers grown afresh for each cost a
 * page fault every 4 KiB they pass through (seen as 30,000 faults, half
 * a second, in a verify of 100,000 pods).  Two buffers, one transfer's
 * pair, no larger than SPARE_MAX each.
 */
#define SPARES 2
#define SPARE_MAX (2 << 20)

struct xfer {
	struct transport *tp;
	CURL *easy;
	xfer_header_fn *on_header;
	void *arg;
	int wake[2];		/* [0] readable when there is news */

	struct strbuf taken;	/* the caller's: what xfer_take() returned */

	/* Under tp->lock. */
	struct strbuf pending;
	bool signalled;		/* a byte sits in wake[] */
	int64_t held_ms;	/* 0, or when the oldest bytes not signalled came */
	bool paused;		/* the write callback paused the transfer */
	bool resume;		/* the caller took the backlog: unpause */
	bool cancel;
	bool done;
	bool conn_dead;
	bool tls_timeout;
	bool closed_all;
	unsigned close_seq;	/* tp->close_seq when it was taken in */
	bool http2;
	CURLcode result;
	struct xfer *next_new;	/* tp->incoming */

	/* Written under tp->lock, read by the connection thread without it. */
	_Atomic int64_t last_byte_ms;
	atomic_bool http2_seen;

	/* Connection thread only: which connection carries it (local address). */
	char local_ip[48];
	long local_port;	/* 0: not known yet */
	int64_t tls_began;	/* 0: no handshake of its own under way */
	bool removing;
	struct xfer *next;	/* tp->running */
};

/*
 * An HTTP/2 connection libcurl has open, as the health check sees it.  One
 * with no transfer on it is kept, idle and unchecked (a PING is written
 * through a transfer), so that a request later sent on it is known to be
 * on HTTP/2 before any answer: Go's check watches the connection, not
 * what answered.
 */
struct conn {
	char local_ip[48];
	long local_port;
	/* When it last received anything: a transfer's byte, or the kernel's count. */
	int64_t last_rx;
	int64_t ping_at;	/* 0: no ping outstanding; else when it fell due */
	bool ping_sent;		/* the PING frame is written (else it waits its turn) */
	uint64_t rx_bytes;	/* the socket's bytes received just before the ping */
	bool unpingable;	/* a TLS library kinf cannot write a frame through */
	bool busy;		/* a running transfer is on it (conn_scan) */
	curl_socket_t fd;	/* libcurl's socket for it, or CURL_SOCKET_BAD */
	bool closed;		/* libcurl closed fd (closesocket_cb) */
};

struct transport {
	struct transport_opts opts;
	CURLM *multi;
	pthread_t thread;

	pthread_mutex_t lock;
	struct xfer *incoming;	/* under lock, newest first */
	bool quit;		/* under lock */
	/*
	 * Under lock: transport_close_all()'s count of calls, and the why of
	 * the last not yet acted on.  A transfer taken in before a call (its
	 * close_seq an older count) is ended by it.
	 */
	unsigned close_seq;
	char *close_all;
	struct strbuf spare[SPARES];	/* under lock: empty buffers to reuse */
	size_t nr_spare;

	/* Connection thread only. */
	unsigned closed_seq;	/* the last close_seq acted on */
	int64_t tick_at;	/* when opts.tick falls due (mono_ms()); 0: never */
	struct xfer *running;
	bool holding;		/* some transfer may have bytes not signalled */
	struct conn *conns;
	size_t nr_conns, alloc_conns;

	/* The sockets libcurl has open (under lock), so a dead one can be shut down. */
	curl_socket_t *socks;
	size_t nr_socks, alloc_socks;
};

/* ---- waking the caller ---------------------------------------------------- */

/* Under tp->lock. */
static void notify(struct xfer *x)
{
	x->held_ms = 0;
	if (x->signalled)
		return;
	x->signalled = true;
	if (write(x->wake[1], "", 1) < 0) {
		/* A full pipe is readable already. */
	}
}

static void drain(int fd)
{
	char buf[64];
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* ---- libcurl's callbacks, on the connection thread ------------------------ */

static size_t write_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	struct xfer *x = userp;
	struct transport *tp = x->tp;
	size_t len = size * nmemb;
	int64_t now = mono_ms();

	pthread_mutex_lock(&tp->lock);
	atomic_store(&x->last_byte_ms, now);
	if (x->cancel) {
		pthread_mutex_unlock(&tp->lock);
		return len;
	}
	if (x->pending.len >= XFER_HIGH_WATER) {
		/* libcurl keeps this piece and hands it again after the unpause. */
		x->paused = true;
		notify(x);
		pthread_mutex_unlock(&tp->lock);
		return CURL_WRITEFUNC_PAUSE;
	}
	strbuf_add(&x->pending, data, len);
	if (x->pending.len >= NOTIFY_BATCH || x->signalled) {
		notify(x);
	} else if (!x->held_ms) {
		x->held_ms = now;
		tp->holding = true;
	}
	pthread_mutex_unlock(&tp->lock);
	return len;
}

/*
 * Which connection the transfer is on: its local address (libcurl 7.88 has no
 * connection id, and CURLINFO_ACTIVESOCKET knows a transfer's socket only
 * after it ended); the health check groups transfers by it.
 */
static void local_end(struct xfer *x)
{
	char *ip = NULL;
	long port = 0;

	if (curl_easy_getinfo(x->easy, CURLINFO_LOCAL_PORT, &port) == CURLE_OK && port > 0 &&
	    curl_easy_getinfo(x->easy, CURLINFO_LOCAL_IP, &ip) == CURLE_OK && ip) {
		x->local_port = port;
		snprintf(x->local_ip, sizeof(x->local_ip), "%s", ip);
	}
}

static size_t header_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	struct xfer *x = userp;
	struct transport *tp = x->tp;
	size_t len = size * nmemb;

	local_end(x);
	pthread_mutex_lock(&tp->lock);
	atomic_store(&x->last_byte_ms, mono_ms());
	if (len > 5 && !strncmp(data, "HTTP/", 5)) {
		/* A status line ("HTTP/2 200"): a new response begins. */
		x->http2 = len > 7 && data[5] == '2';
		atomic_store(&x->http2_seen, x->http2);
	}
	bool keep = !x->on_header || x->cancel || x->on_header(x->arg, data, len);
	notify(x);
	pthread_mutex_unlock(&tp->lock);
	return keep ? len : 0;
}

/* libcurl's socket() and close(), so that the transport knows the open sockets. */
static curl_socket_t opensocket_cb(void *userp, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct transport *tp = userp;
	curl_socket_t fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
	if (fd == CURL_SOCKET_BAD)
		return fd;
	pthread_mutex_lock(&tp->lock);
	ALLOC_GROW(tp->socks, tp->nr_socks + 1, tp->alloc_socks);
	tp->socks[tp->nr_socks++] = fd;
	pthread_mutex_unlock(&tp->lock);
	return fd;
}

static int closesocket_cb(void *userp, curl_socket_t fd)
{
	struct transport *tp = userp;
	pthread_mutex_lock(&tp->lock);
	for (size_t i = 0; i < tp->nr_socks; i++) {
		if (tp->socks[i] == fd) {
			tp->socks[i] = tp->socks[--tp->nr_socks];
			break;
		}
	}
	pthread_mutex_unlock(&tp->lock);
	/* (libcurl closes on the connection thread, which alone reads conns) */
	for (size_t i = 0; i < tp->nr_conns; i++)
		if (tp->conns[i].fd == fd)
			tp->conns[i].closed = true;
	return close(fd);
}

/* ---- the connection thread ------------------------------------------------ */

static void running_unlink(struct transport *tp, struct xfer *x)
{
	for (struct xfer **p = &tp->running; *p; p = &(*p)->next) {
		if (*p == x) {
			*p = x->next;
			return;
		}
	}
}

static void note(struct transport *tp, const char *fmt, ...) PRINTF(2, 3);
static void note(struct transport *tp, const char *fmt, ...)
{
	if (!tp->opts.note)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	tp->opts.note(tp->opts.ctx, msg);
	free(msg);
}

/* The transfer is over: the caller may take its last bytes and free it. */
static void finish(struct transport *tp, struct xfer *x, CURLcode result)
{
	curl_multi_remove_handle(tp->multi, x->easy);
	running_unlink(tp, x);
	pthread_mutex_lock(&tp->lock);
	/* its connection closed by transport_close_all(), whoever saw it first */
	x->closed_all = x->close_seq != tp->close_seq;
	x->done = true;
	x->result = result;
	notify(x);
	pthread_mutex_unlock(&tp->lock);
}

static void add_easy(struct transport *tp, struct xfer *x)
{
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_OPENSOCKETFUNCTION, opensocket_cb);
	curl_easy_setopt(x->easy, CURLOPT_OPENSOCKETDATA, tp);
	curl_easy_setopt(x->easy, CURLOPT_CLOSESOCKETFUNCTION, closesocket_cb);
	curl_easy_setopt(x->easy, CURLOPT_CLOSESOCKETDATA, tp);
	x->next = tp->running;
	tp->running = x;
	if (curl_multi_add_handle(tp->multi, x->easy) != CURLM_OK) {
		running_unlink(tp, x);
		pthread_mutex_lock(&tp->lock);
		x->done = true;
		x->result = CURLE_FAILED_INIT;
		notify(x);
		pthread_mutex_unlock(&tp->lock);
	}
}

/* Takes new transfers in, and acts on cancels and unpauses. */
static bool take_requests(struct transport *tp)
{
	pthread_mutex_lock(&tp->lock);
	struct xfer *fresh = tp->incoming;
	tp->incoming = NULL;
	bool quit = tp->quit;
	/* on no connection yet: one closed before now is none of theirs */
	for (struct xfer *x = fresh; x; x = x->next_new)
		x->close_seq = tp->close_seq;
	pthread_mutex_unlock(&tp->lock);

	/* Oldest first, as they were started. */
	struct xfer *rev = NULL;
	while (fresh) {
		struct xfer *n = fresh->next_new;
		fresh->next_new = rev;
		rev = fresh;
		fresh = n;
	}
	while (rev) {
		struct xfer *n = rev->next_new;
		add_easy(tp, rev);
		rev = n;
	}

	for (struct xfer *x = tp->running, *next; x; x = next) {
		next = x->next;
		bool resume = false;
		pthread_mutex_lock(&tp->lock);
		/* (A transfer cancelled before it was added ends here too.) */
		x->removing |= x->cancel;
		if (x->resume && !x->removing) {
			resume = true;
			x->resume = false;
			x->paused = false;
		}
		pthread_mutex_unlock(&tp->lock);
		if (x->removing)
			finish(tp, x, CURLE_ABORTED_BY_CALLBACK);
		else if (resume)
			curl_easy_pause(x->easy, CURLPAUSE_CONT);
	}
	return quit;
}

static void read_results(struct transport *tp)
{
	CURLMsg *msg;
	int left;
	while ((msg = curl_multi_info_read(tp->multi, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		struct xfer *x = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		if (x)
			finish(tp, x, msg->data.result);
	}
}

/* ---- HTTP/2 health check --------------------------------------------------- */

static bool same_conn(const char *ip, long port, const char *ip2, long port2)
{
	return port == port2 && !strcmp(ip, ip2);
}

/* The socket libcurl has open for the connection whose local end is ip:port. */
static curl_socket_t socket_of(struct transport *tp, const char *ip, long port)
{
	curl_socket_t found = CURL_SOCKET_BAD;
	pthread_mutex_lock(&tp->lock);
	for (size_t i = 0; i < tp->nr_socks && found == CURL_SOCKET_BAD; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		char host[48];
		if (getsockname(tp->socks[i], (struct sockaddr *)&ss, &len) < 0 ||
		    getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), NULL, 0,
				NI_NUMERICHOST))
			continue;
		long p = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
						  : ntohs(((struct sockaddr_in *)&ss)->sin_port);
		if (same_conn(host, p, ip, port))
			found = tp->socks[i];
	}
	pthread_mutex_unlock(&tp->lock);
	return found;
}

static struct conn *conn_find(struct transport *tp, const char *ip, long port)
{
	for (size_t i = 0; i < tp->nr_conns; i++)
		if (same_conn(tp->conns[i].local_ip, tp->conns[i].local_port, ip, port))
			return &tp->conns[i];
	return NULL;
}

static void conn_drop(struct transport *tp, struct conn *c)
{
	*c = tp->conns[--tp->nr_conns];
}

/* Brings the connection table up to date with the running HTTP/2 transfers. */
static void conn_scan(struct transport *tp)
{
	for (size_t i = 0; i < tp->nr_conns; i++)
		tp->conns[i].busy = false;
	for (struct xfer *x = tp->running; x; x = x->next) {
		/* A reused connection is known at once, before any answer. */
		if (!x->local_port)
			local_end(x);
		if (!x->local_port)
			continue;
		struct conn *c = conn_find(tp, x->local_ip, x->local_port);
		if (c)
			atomic_store(&x->http2_seen, true);
		else if (!atomic_load(&x->http2_seen))
			continue;
		int64_t last = atomic_load(&x->last_byte_ms);
		if (!c) {
			ALLOC_GROW(tp->conns, tp->nr_conns + 1, tp->alloc_conns);
			c = &tp->conns[tp->nr_conns++];
			*c = (struct conn){ .local_port = x->local_port, .last_rx = last };
			snprintf(c->local_ip, sizeof(c->local_ip), "%s", x->local_ip);
			c->fd = socket_of(tp, c->local_ip, c->local_port);
		}
		if (last > c->last_rx)
			c->last_rx = last;
		c->busy = true;
	}
	for (size_t i = tp->nr_conns; i-- > 0;) {
		struct conn *c = &tp->conns[i];
		if (c->busy)
			continue;
		if (c->closed || c->fd == CURL_SOCKET_BAD) {
			conn_drop(tp, c);
		} else {	/* idle: checked again from its next transfer's start */
			c->ping_at = 0;
			c->ping_sent = false;
		}
	}
}

/* Any running transfer on c: its easy handle leads to the connection's TLS. */
static struct xfer *xfer_on(struct transport *tp, const struct conn *c)
{
	for (struct xfer *x = tp->running; x; x = x->next)
		if (same_conn(x->local_ip, x->local_port, c->local_ip, c->local_port) &&
		    !x->removing)
			return x;
	return NULL;
}


/*
 * The connection is lost: every transfer on it fails now, as every stream
 * of Go's does.  They are ended here, not left to libcurl's read of the
 * end: libcurl 8 sends a request that had no answer on a reused
 * connection again, on a new one, where Go fails it.
 */
static void conn_kill(struct transport *tp, struct conn *c, const char *why)
{
	note(tp, "%s: closing it", why);
	/* libcurl still owns (and will close) the socket: it finds it ended. */
	if (c->fd != CURL_SOCKET_BAD && !c->closed)
		shutdown(c->fd, SHUT_RDWR);
	for (struct xfer *x = tp->running, *n; x; x = n) {
		n = x->next;
		if (!same_conn(x->local_ip, x->local_port, c->local_ip, c->local_port))
			continue;
		pthread_mutex_lock(&tp->lock);
		x->conn_dead = true;
		pthread_mutex_unlock(&tp->lock);
		finish(tp, x, CURLE_RECV_ERROR);
	}
	conn_drop(tp, c);
}

/*
 * Whether anything arrived on c since its ping, from the kernel's count of
 * bytes received: the PING's ACK reaches no callback of libcurl's (see
 * h2ping.h).  Counting the socket's bytes, rather than TLS records seen
 * through SSL_set_msg_callback(), works for h2c as for TLS, leaves
 * libcurl's own message callback (-v -v) alone, and counts what arrived
 * while libcurl does not read (every stream paused), as Go's reader never
 * stops.  Any frame counts, not only the ACK: a server that answers
 * frames but not PINGs is not one this check is for.
 */
static bool conn_answered(const struct conn *c, bool have_ti, const struct tcp_info *ti)
{
	if (c->ping_sent && have_ti && ti->tcpi_bytes_received > c->rx_bytes)
		return true;
	/* A transfer's byte after the ping fell due (the kernel's count may be missing). */
	return c->last_rx >= c->ping_at;
}

/* The health check of one connection; returns when it is due again (ms from now, -1: closed). */
static int64_t conn_check(struct transport *tp, struct conn *c, int64_t now)
{
	const struct transport_opts *o = &tp->opts;
	curl_socket_t fd = CURL_SOCKET_BAD;
	struct tcp_info ti;
	bool have_ti = false;

	/* The kernel is asked only when the transfers alone say the connection is quiet. */
	if (c->ping_at || now - c->last_rx >= o->read_idle_ms) {
		fd = c->closed ? CURL_SOCKET_BAD : c->fd;
		have_ti = h2ping_tcp_info(fd, &ti) == 0;
		/* "Nothing read" counts every byte, PING ACKs and all, as Go counts every frame. */
		if (have_ti && now - (int64_t)ti.tcpi_last_data_recv > c->last_rx)
			c->last_rx = now - (int64_t)ti.tcpi_last_data_recv;
	}
	if (c->ping_at && conn_answered(c, have_ti, &ti)) {
		if (c->ping_sent)
			note(tp, "ping answered in %.3f s", (double)(now - c->ping_at) / 1000);
		c->ping_at = 0;
		c->ping_sent = false;
	}
	if (c->ping_at && now - c->ping_at >= o->ping_timeout_ms) {
		char *why = xasprintf("silent for %.1f s, %.1f s after a ping%s",
				      (double)(now - c->last_rx) / 1000,
				      (double)(now - c->ping_at) / 1000,
				      c->ping_sent ? "" : " that could not be written");
		conn_kill(tp, c, why);
		free(why);
		return -1;
	}
	if (!c->ping_at && now - c->last_rx >= o->read_idle_ms && !c->unpingable)
		c->ping_at = now;
	if (c->ping_at && !c->ping_sent && have_ti) {
		uint64_t before = ti.tcpi_bytes_received;
		struct xfer *x = xfer_on(tp, c);
		switch (x ? h2ping_write(tp->multi, x->easy, fd, &ti) : PING_LATER) {
		case PING_SENT:
			c->ping_sent = true;
			c->rx_bytes = before;
			note(tp, "quiet for %.1f s: ping sent", (double)(now - c->last_rx) / 1000);
			break;
		case PING_LATER:
			break;
		case PING_BROKEN:
			conn_kill(tp, c, "a ping could not be written whole");
			return -1;
		case PING_CANNOT:
			note(tp, "cannot write a ping through this libcurl's TLS library: "
			     "the connection goes unchecked");
			c->unpingable = true;
			c->ping_at = 0;
			break;
		}
	}
	if (c->unpingable)
		return -1;
	if (!c->ping_at)
		return c->last_rx + o->read_idle_ms - now;
	int64_t due = c->ping_at + o->ping_timeout_ms - now;
	return c->ping_sent || due < PING_RETRY_MS ? due : PING_RETRY_MS;
}

/* Pings and verdicts; returns how long until the next one is due (ms, -1: none). */
static int64_t health_check(struct transport *tp)
{
	int64_t next = -1;

	if (tp->opts.read_idle_ms <= 0)
		return -1;
	conn_scan(tp);
	int64_t now = mono_ms();
	for (size_t i = tp->nr_conns; i-- > 0;) {
		if (!tp->conns[i].busy)
			continue;
		int64_t due = conn_check(tp, &tp->conns[i], now);
		if (due < 0)
			continue;
		if (next < 0 || due < next)
			next = due;
	}
	return next;
}

/* ---- closing every connection, and the caller's timer ---------------------- */

/*
 * Every socket libcurl has now is shut down, here: libcurl finds them
 * ended, and opens new connections; a request started after this call
 * goes on one of those.
 */
void transport_close_all(struct transport *tp, const char *why)
{
	pthread_mutex_lock(&tp->lock);
	tp->close_seq++;
	free(tp->close_all);
	tp->close_all = xstrdup(why);
	for (size_t i = 0; i < tp->nr_socks; i++)
		shutdown(tp->socks[i], SHUT_RDWR);
	pthread_mutex_unlock(&tp->lock);
	curl_multi_wakeup(tp->multi);
}

/*
 * The rest of transport_close_all()'s work: each transfer started before
 * it ends here, not by libcurl's read of the end, which libcurl 8 answers
 * by sending a request again where Go fails it.
 */
static void close_all_now(struct transport *tp)
{
	pthread_mutex_lock(&tp->lock);
	unsigned seq = tp->close_seq;
	char *why = tp->close_all;
	tp->close_all = NULL;
	pthread_mutex_unlock(&tp->lock);
	if (seq == tp->closed_seq)
		return;
	tp->closed_seq = seq;
	note(tp, "%s: closing every connection", why);
	free(why);
	for (struct xfer *x = tp->running, *n; x; x = n) {
		n = x->next;
		if (x->close_seq != seq)
			finish(tp, x, CURLE_RECV_ERROR);
	}
	tp->nr_conns = 0;
}

/* Runs opts.tick when due; returns how long until it next is (ms, -1: never). */
static int64_t run_tick(struct transport *tp)
{
	if (!tp->tick_at)
		return -1;
	int64_t now = mono_ms();
	if (now < tp->tick_at)
		return tp->tick_at - now;
	int64_t next = tp->opts.tick(tp->opts.ctx, tp);
	tp->tick_at = next < 0 ? 0 : mono_ms() + next;
	return next;
}

/*
 * A connection speaks HTTP/2 from its handshake on, answer or none: Go's
 * health check watches it from then, and so the transport does once ALPN
 * said h2 (a server that never answers the first request is found out).
 */
static void handshake_done(struct xfer *x)
{
	if (!tls_alpn_h2(x->easy))
		return;
	local_end(x);
	atomic_store(&x->http2_seen, true);
}

/*
 * Go's TLSHandshakeTimeout: a handshake under way that long fails its
 * transfer, and libcurl closes the connection it leaves half made.
 * Returns when the next one falls due (ms from now), or -1.
 */
static int64_t handshake_check(struct transport *tp)
{
	int64_t limit = tp->opts.tls_handshake_timeout_ms, next = -1, now = mono_ms();

	for (struct xfer *x = tp->running, *n; x; x = n) {
		n = x->next;
		curl_off_t done_us = 0;
		if (!x->tls_began)
			continue;
		if (curl_easy_getinfo(x->easy, CURLINFO_APPCONNECT_TIME_T, &done_us) == CURLE_OK &&
		    done_us > 0) {
			x->tls_began = 0;
			handshake_done(x);
			continue;
		}
		if (limit <= 0)
			continue;
		int64_t left = x->tls_began + limit - now;
		if (left > 0) {
			next = next < 0 || left < next ? left : next;
			continue;
		}
		pthread_mutex_lock(&tp->lock);
		x->tls_timeout = true;
		pthread_mutex_unlock(&tp->lock);
		finish(tp, x, CURLE_OPERATION_TIMEDOUT);
	}
	return next;
}

bool xfer_tls_began(CURL *easy)
{
	struct xfer *x = NULL;
	if (curl_easy_getinfo(easy, CURLINFO_PRIVATE, &x) != CURLE_OK || !x)
		return true;
	x->tls_began = mono_ms();
	return !x->tp->opts.handshake || x->tp->opts.handshake(x->tp->opts.ctx, x->tp);
}

/*
 * Whether to run libcurl again before signalling the bytes held back:
 * while more are readable and none waited HOLD_MS.  Otherwise wakes
 * every caller with bytes held.  A wakeup this poll may have eaten is
 * not lost: the loop takes requests before it sleeps.
 */
static bool hold_on(struct transport *tp)
{
	int ready = 0;
	bool expired = false;
	int64_t now = mono_ms();

	if (!tp->holding)
		return false;
	for (struct xfer *x = tp->running; x; x = x->next) {
		pthread_mutex_lock(&tp->lock);
		expired |= x->held_ms && now - x->held_ms >= HOLD_MS;
		pthread_mutex_unlock(&tp->lock);
	}
	if (!expired && curl_multi_poll(tp->multi, NULL, 0, 0, &ready) == CURLM_OK && ready > 0)
		return true;
	for (struct xfer *x = tp->running; x; x = x->next) {
		pthread_mutex_lock(&tp->lock);
		if (x->held_ms)
			notify(x);
		pthread_mutex_unlock(&tp->lock);
	}
	tp->holding = false;
	return true;
}

static void *connection_thread(void *arg)
{
	struct transport *tp = arg;

	thread_name("kinf-http");
	for (;;) {
		/* before the requests that come after it: they go on new connections */
		close_all_now(tp);
		if (take_requests(tp) && !tp->running)
			break;
		int still;
		curl_multi_perform(tp->multi, &still);
		read_results(tp);
		int64_t tls_wait = handshake_check(tp);
		if (hold_on(tp))
			continue;
		int64_t wait = health_check(tp), tick_wait = run_tick(tp);
		if (tls_wait >= 0 && (wait < 0 || tls_wait < wait))
			wait = tls_wait;
		if (tick_wait >= 0 && (wait < 0 || tick_wait < wait))
			wait = tick_wait;
		if (wait < 0 || wait > MAX_POLL_MS)
			wait = MAX_POLL_MS;
		/* libcurl shortens the wait for its own timers; a caller's wakeup ends it. */
		curl_multi_poll(tp->multi, NULL, 0, (int)wait + 1, NULL);
	}
	return NULL;
}

/* ---- the callers' side ---------------------------------------------------- */

struct transport *transport_new(const struct transport_opts *opts)
{
	struct transport *tp = xcalloc(1, sizeof(*tp));
	tp->opts = *opts;
	tp->multi = curl_multi_init();
	if (!tp->multi)
		out_of_memory(0);
	curl_multi_setopt(tp->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	curl_multi_setopt(tp->multi, CURLMOPT_MAX_CONCURRENT_STREAMS, MAX_STREAMS);
	pthread_mutex_init(&tp->lock, NULL);
	if (tp->opts.tick)
		tp->tick_at = mono_ms() + tp->opts.tick_first_ms;
	int rc = pthread_create(&tp->thread, NULL, connection_thread, tp);
	if (rc) {
		curl_multi_cleanup(tp->multi);
		pthread_mutex_destroy(&tp->lock);
		free(tp);
		errno = rc;
		return NULL;
	}
	return tp;
}

void transport_free(struct transport *tp)
{
	if (!tp)
		return;
	pthread_mutex_lock(&tp->lock);
	tp->quit = true;
	pthread_mutex_unlock(&tp->lock);
	curl_multi_wakeup(tp->multi);
	pthread_join(tp->thread, NULL);
	curl_multi_cleanup(tp->multi);
	pthread_mutex_destroy(&tp->lock);
	while (tp->nr_spare)
		strbuf_release(&tp->spare[--tp->nr_spare]);
	free(tp->conns);
	free(tp->socks);
	free(tp->close_all);
	free(tp);
}

struct xfer *xfer_start(struct transport *tp, CURL *easy, xfer_header_fn *on_header,
			void *arg)
{
	int wake[2];
	if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) < 0)
		return NULL;
	struct xfer *x = xcalloc(1, sizeof(*x));
	x->wake[0] = wake[0];
	x->wake[1] = wake[1];
	x->tp = tp;
	x->easy = easy;
	x->on_header = on_header;
	x->arg = arg;
	atomic_init(&x->last_byte_ms, mono_ms());
	atomic_init(&x->http2_seen, false);
	curl_easy_setopt(easy, CURLOPT_PRIVATE, x);

	pthread_mutex_lock(&tp->lock);
	x->pending = tp->nr_spare ? tp->spare[--tp->nr_spare] : (struct strbuf)STRBUF_INIT;
	x->taken = tp->nr_spare ? tp->spare[--tp->nr_spare] : (struct strbuf)STRBUF_INIT;
	x->next_new = tp->incoming;
	tp->incoming = x;
	pthread_mutex_unlock(&tp->lock);
	curl_multi_wakeup(tp->multi);
	return x;
}

const struct strbuf *xfer_take(struct xfer *x, struct xfer_news *news)
{
	struct transport *tp = x->tp;
	bool wake = false;

	strbuf_reset(&x->taken);
	pthread_mutex_lock(&tp->lock);
	if (x->signalled) {
		drain(x->wake[0]);
		x->signalled = false;
	}
	if (x->pending.len && !x->cancel) {
		/* Swap: the two buffers take turns, nothing is copied. */
		struct strbuf tmp = x->taken;
		x->taken = x->pending;
		x->pending = tmp;
	}
	strbuf_reset(&x->pending);
	x->held_ms = 0;
	if (x->paused && !x->resume && !x->cancel) {
		x->resume = true;
		wake = true;
		/* Time spent paused was ours, not the server's. */
		atomic_store(&x->last_byte_ms, mono_ms());
	}
	news->done = x->done;
	news->result = x->result;
	news->conn_dead = x->conn_dead;
	news->tls_timeout = x->tls_timeout;
	news->closed_all = x->closed_all;
	news->http2 = x->http2;
	news->last_byte_ms = atomic_load(&x->last_byte_ms);
	pthread_mutex_unlock(&tp->lock);
	if (wake)
		curl_multi_wakeup(tp->multi);
	return &x->taken;
}

void xfer_wait(struct xfer *x, int fd, int hup_fd, int timeout_ms)
{
	struct pollfd pfd[3] = { { .fd = x->wake[0], .events = POLLIN } };
	nfds_t n = 1;
	int rc;

	if (fd >= 0)
		pfd[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (hup_fd >= 0)	/* no events: POLLERR and POLLHUP come anyway */
		pfd[n++] = (struct pollfd){ .fd = hup_fd, .events = 0 };
	do
		rc = poll(pfd, n, timeout_ms);
	while (rc < 0 && errno == EINTR);
}

void xfer_cancel(struct xfer *x)
{
	struct transport *tp = x->tp;
	pthread_mutex_lock(&tp->lock);
	bool first = !x->cancel && !x->done;
	x->cancel = true;
	strbuf_reset(&x->pending);
	pthread_mutex_unlock(&tp->lock);
	if (first)
		curl_multi_wakeup(tp->multi);
}

/* Keeps buf for the next transfer if there is room and it is not too large. */
static void keep_spare(struct transport *tp, struct strbuf *buf)
{
	if (buf->alloc && buf->alloc <= SPARE_MAX && tp->nr_spare < SPARES) {
		strbuf_reset(buf);
		tp->spare[tp->nr_spare++] = *buf;
	} else {
		strbuf_release(buf);
	}
}

void xfer_free(struct xfer *x)
{
	if (!x)
		return;
	close(x->wake[0]);
	close(x->wake[1]);
	pthread_mutex_lock(&x->tp->lock);
	keep_spare(x->tp, &x->pending);
	keep_spare(x->tp, &x->taken);
	pthread_mutex_unlock(&x->tp->lock);
	free(x);
}

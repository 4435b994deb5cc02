/*
 * http.c — requests to the apiserver over libcurl; see http.h.  The
 * client's calls go through its backend (struct kclient_ops): libcurl's
 * is here, the replay's in recording.c; the tap is every backend's.
 *
 * DESIGN (threads): any thread may call kclient_get()/kclient_stream().
 * Each request gets a fresh easy handle, set up on the calling thread and
 * handed to the client's transport (transport.h), whose one thread drives
 * every transfer of the client on one multi handle: that is what lets
 * them share one HTTP/2 connection.  The calling thread sleeps on its
 * transfer (and on the caller's stop fd, and no longer than its stall
 * deadline), takes the bytes as they come and hands them to on_data
 * itself, so parsing runs on the caller's thread.  The CURLSH shares the
 * DNS and TLS session caches (easy handles come and go) under one mutex
 * per curl_lock_data.  Credentials live in struct credential, which has
 * its own lock, and so does a rest_limiter: a thread takes its token
 * under it and waits for the token's time outside it.
 */
#include "cluster/http.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "cluster/credential.h"
#include "cluster/exec_credential.h"
#include "cluster/kubeconfig.h"
#include "cluster/proxy.h"
#include "cluster/tls_cert.h"
#include "cluster/transport.h"
#include "cluster/warning.h"
#include "lib/json_get.h"
#include "lib/stop.h"
#include "lib/termsafe.h"
#include "lib/token_bucket.h"

/*
 * Go's dialer as client-go sets it up (transport/cache.go): 30 s to
 * connect, and TCP keepalive after 30 s idle.  The Go that builds
 * client-go 1.32 and later (1.23+) then probes every 15 s, 9 times
 * (KeepAliveConfig's defaults), so a peer that is gone is noticed 165 s
 * after the last thing it acknowledged; older Go probed every 30 s (300
 * s).  No TCP user timeout: Go sets none, so unacknowledged data waits
 * out the kernel's retransmissions.  Over HTTP/2 the health check
 * (PINGs, below) finds a dead connection long before.
 */
#define CONNECT_TIMEOUT_MS 30000L
/*
 * ... then 10 s for the TLS handshake (cache.go's TLSHandshakeTimeout),
 * timed by the transport from the handshake's start.  libcurl's connect
 * timeout spans both: a TCP connect that took over 20 s leaves the
 * handshake less time than Go leaves it.
 */
#define TLS_HANDSHAKE_TIMEOUT_MS 10000
/* An idle connection is closed after 90 s (Go's IdleConnTimeout). */
#define IDLE_CONN_TIMEOUT_S 90L
#define KEEPALIVE_IDLE_S 30L
#define KEEPALIVE_INTERVAL_S 15L
#define KEEPALIVE_PROBES 9
/* client-go's HTTP/2 health check (apimachinery util/net http.go). */
#define READ_IDLE_TIMEOUT_S 30
#define PING_TIMEOUT_S 15
/* -v -v: how much of each piece of a body to show. */
#define TRACE_BODY_MAX 1024
/* kclient_get: a response that sends nothing for this long is dead. */
#define GET_IDLE_TIMEOUT_MS 60000
/* An error body is for a message, not to be stored whole. */
#define MAX_ERROR_BODY (1 << 20)
/* Go's http.Client: the tenth request's redirect is not followed. */
#define MAX_REDIRECT_REQUESTS 10
/* Without a stop fd, how often a quiet transfer looks at the stop flag. */
#define STOP_CHECK_MS 1000
/* A 429 without Retry-After is retried after this long. */
#define DEFAULT_RETRY_AFTER_MS 1000
/* The longest sleep when nothing else bounds it. */
#define MAX_WAIT_MS 60000

/*
 * Every backend's client: its ops, its name (cfg->server, all a client
 * of kclient_new_backend has of cfg), its trace level, limit and tap.
 * The rest, from cred on, is the libcurl backend's, and empty on a
 * client of another backend.
 */
/* A client certificate and key in PEM, as read_pair() reads them for libcurl. */
struct client_pair {
	struct strbuf cert, key;
};

struct kclient {
	const struct kclient_ops *ops;
	void *backend;			/* kclient_new_backend's data: borrowed */
	struct rest_config *cfg;	/* our copy */
	int verbose;
	/* kclient_get's whole-request limit, and a cap on connecting; 0: none. */
	int64_t timeout_ms;
	const struct kclient_tap *tap;	/* --record: borrowed, with its ctx */
	void *tap_ctx;

	struct credential *cred;
	char *url_base;		/* scheme://host:port/prefix, no trailing '/' */
	bool https;
	/* tls-server-name: "name:port:host:port"; read-only, shared by handles. */
	struct curl_slist *connect_to;
	char *host_header;	/* tls-server-name: "Host: host:port" */
	char *identity;		/* "user 'admin' (bearer token)" */
	enum http_version http_version;
	/*
	 * What every request goes through, in libcurl's words: proxy-url,
	 * else the environment's proxy for the server (proxy.h); NULL: none.
	 */
	char *proxy;
	int64_t ping_timeout_ms;	/* the HTTP/2 health check's, for messages */
	/* The server's warnings printed, each once, as kubectl prints them. */
	pthread_mutex_t warned_lock;
	char **warned;
	size_t nr_warned, alloc_warned;

	CURLSH *share;
	pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
	struct transport *tp;
	struct tls_verify_log *verify_log;
	/*
	 * The client certificate's files (cfg->client_cert_file), read again
	 * on the connection thread: how often, since when, when last and
	 * whether that read failed, and the reads that failed in a row.
	 * cert_err, the failed read's words, is under ca_lock: a request's
	 * error quotes it.
	 */
	int64_t cert_check_ms, cert_started_ms, cert_read_ms;
	bool cert_read_failed;
	unsigned cert_failures;
	char cert_err[sizeof(((struct errbuf *)0)->msg)];
	/*
	 * The CA new connections trust, as Go's CertPool takes it
	 * (go_cert_pool_pem()): cfg->ca's, until kclient_set_ca_reload()'s
	 * reads find another in the file; and when the file was last read.
	 */
	pthread_mutex_t ca_lock;
	bool ca_reload;
	struct blob ca;
	int64_t ca_read_ms;
	/* Go's system roots (SSL_CERT_FILE's, SSL_CERT_DIR's), when there is no CA */
	struct blob roots;
	/* the kubeconfig's pair when it is not read from files alone (Go's static one) */
	struct client_pair static_pair;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock_cb(CURL *h, curl_lock_data data, curl_lock_access access, void *userp)
{
	struct kclient *c = userp;
	pthread_mutex_lock(&c->share_locks[data]);
}

static void share_unlock_cb(CURL *h, curl_lock_data data, void *userp)
{
	struct kclient *c = userp;
	pthread_mutex_unlock(&c->share_locks[data]);
}

/* Splits the server URL so that tls-server-name can stand in for its host. */
static int server_url_setup(struct kclient *c, struct errbuf *err)
{
	const struct rest_config *cfg = c->cfg;
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
	int ret = -1;

	if (!u)
		out_of_memory(0);
	if (curl_url_set(u, CURLUPART_URL, cfg->server, 0) ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) ||
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) ||
	    curl_url_get(u, CURLUPART_PATH, &path, 0)) {
		errbuf_set(err, "server '%s' of cluster '%s' is not a valid URL", cfg->server,
			   cfg->cluster ? cfg->cluster : "");
		goto cleanup;
	}
	if (strcmp(scheme, "https") && strcmp(scheme, "http")) {
		errbuf_set(err, "server '%s' of cluster '%s' is not an http or https URL",
			   cfg->server, cfg->cluster ? cfg->cluster : "");
		goto cleanup;
	}
	size_t n = strlen(path);
	while (n && path[n - 1] == '/')
		path[--n] = '\0';
	if (cfg->proxy_url) {
		c->proxy = proxy_for_curl(cfg->proxy_url);
	} else {
		/* the real host, never tls-server-name; an IPv6 one without brackets */
		size_t hl = strlen(host);
		char *bare = host[0] == '[' && hl > 2 ? xstrndup(host + 1, hl - 2) : xstrdup(host);
		char *env = proxy_from_environment(scheme, bare, port);
		c->proxy = env ? proxy_for_curl(env) : NULL;
		free(env);
		free(bare);
	}
	if (cfg->tls_server_name && !strcmp(scheme, "https")) {
		/*
		 * libcurl verifies (and sends as SNI) the URL's host, so the URL
		 * names tls-server-name and CONNECT_TO dials the real host.
		 */
		c->url_base = xasprintf("https://%s:%s%s", cfg->tls_server_name, port, path);
		char *to = xasprintf("%s:%s:%s:%s", cfg->tls_server_name, port, host, port);
		c->connect_to = curl_slist_append(NULL, to);
		free(to);
		if (!c->connect_to)
			out_of_memory(0);
		c->host_header = xasprintf("Host: %s:%s", host, port);
	} else {
		/* client-go's requests carry their own query, never the server's. */
		c->url_base = xstrndup(cfg->server, strcspn(cfg->server, "?#"));
		n = strlen(c->url_base);
		while (n && c->url_base[n - 1] == '/')
			c->url_base[--n] = '\0';
	}
	ret = 0;
cleanup:
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_url_cleanup(u);
	return ret;
}

/* HTTP2_READ_IDLE_TIMEOUT_SECONDS and friends, read as client-go reads them. */
static int64_t env_seconds(const char *name, int64_t dflt)
{
	const char *s = getenv(name);
	char *end;
	if (!s || !*s)
		return dflt;
	long v = strtol(s, &end, 10);
	/* client-go keeps its default for a value it cannot read. */
	if (*end || v < 0)
		return dflt;
	return (int64_t)v;
}

static void transport_note(void *ctx, const char *msg);
static const struct kclient_ops live_ops;
static int read_pair(struct kclient *c, const struct blob *cert, const struct blob *key,
		     struct client_pair *pair, struct errbuf *err);
static void client_pair_release(struct client_pair *pair);

/*
 * client-go's certificate rotation (transport/cert_rotation.go), for a
 * client certificate and key read from files.  Every read goes through
 * cachingCertificateLoader: a read less than a second old stands, its
 * failure too.  They are read every CertCallbackRefreshDuration (5
 * minutes) from the transport's start, and as each new connection's
 * handshake asks for the certificate.  A new pair closes every
 * connection (connrotation's CloseAll), the one shaking hands too, so
 * that the next ones present it.  A read that fails keeps the pair
 * there was for the connections open; the 5-minute check is tried again
 * as its work queue's rate limiter retries (5 ms, doubled each time, at
 * most 1,000 s), and a handshake fails with the read's error, so that
 * no new connection is made until the files can be read.
 * KINF_CERT_CHECK_SECONDS sets the period: the tests' hook, as
 * client-go's tests set the variable.
 */
#define CERT_CHECK_S 300
#define CERT_CACHE_MS 1000
#define CERT_RETRY_FIRST_MS 5
#define CERT_RETRY_MAX_MS 1000000

/* The files as cachingCertificateLoader reads them; false when the read failed. */
static bool cert_load(struct kclient *c, struct transport *tp)
{
	struct errbuf err = { "" };
	bool rotated = false;
	int64_t now = mono_ms();

	if (c->cert_read_ms && now - c->cert_read_ms < CERT_CACHE_MS)
		return !c->cert_read_failed;
	c->cert_read_ms = now;
	c->cert_read_failed = credential_reload_cert_files(c->cred, &rotated, &err) < 0;
	if (c->cert_read_failed) {
		pthread_mutex_lock(&c->ca_lock);
		snprintf(c->cert_err, sizeof(c->cert_err), "%s", err.msg);
		pthread_mutex_unlock(&c->ca_lock);
		transport_note(c, err.msg);
		return false;
	}
	if (rotated)
		transport_close_all(tp, "the client certificate in its files changed");
	return true;
}

static int64_t cert_tick(void *ctx, struct transport *tp)
{
	struct kclient *c = ctx;
	int64_t now = mono_ms(), period = c->cert_check_ms;
	int64_t next = c->cert_started_ms + ((now - c->cert_started_ms) / period + 1) * period - now;

	if (!cert_load(c, tp)) {
		int64_t retry = c->cert_failures < 28 ? (int64_t)CERT_RETRY_FIRST_MS << c->cert_failures
						      : CERT_RETRY_MAX_MS;
		if (retry > CERT_RETRY_MAX_MS)
			retry = CERT_RETRY_MAX_MS;
		c->cert_failures++;
		return retry < next ? retry : next;
	}
	c->cert_failures = 0;
	return next;
}

static bool cert_handshake(void *ctx, struct transport *tp)
{
	return cert_load(ctx, tp);
}

struct kclient *kclient_new(const struct rest_config *cfg, struct errbuf *err)
{
	pthread_once(&global_once, global_init);
	if (global_rc) {
		errbuf_set(err, "cannot initialize libcurl: %s", curl_easy_strerror(global_rc));
		return NULL;
	}

	struct kclient *c = xcalloc(1, sizeof(*c));
	c->ops = &live_ops;
	c->cfg = rest_config_dup(cfg);
	c->cred = credential_new(c->cfg);
	c->identity = rest_config_identity(c->cfg);
	strbuf_init(&c->static_pair.cert, 0);
	strbuf_init(&c->static_pair.key, 0);
	for (size_t i = 0; i < ARRAY_SIZE(c->share_locks); i++)
		pthread_mutex_init(&c->share_locks[i], NULL);
	pthread_mutex_init(&c->warned_lock, NULL);
	pthread_mutex_init(&c->ca_lock, NULL);
	c->share = curl_share_init();
	if (!c->share)
		out_of_memory(0);
	curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock_cb);
	curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock_cb);
	curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
	curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	c->verify_log = tls_verify_log_new(xfer_tls_began);
	if (server_url_setup(c, err) < 0) {
		kclient_free(c);
		return NULL;
	}
	c->https = !strncmp(c->url_base, "https:", 6);
	/* client-go honours DISABLE_HTTP2 (any value) the same way. */
	const char *no_h2 = getenv("DISABLE_HTTP2");
	c->http_version = no_h2 && *no_h2 ? HTTP_VERSION_1_1 : HTTP_VERSION_AUTO;

	c->ping_timeout_ms = env_seconds("HTTP2_PING_TIMEOUT_SECONDS", PING_TIMEOUT_S) * 1000;
	struct transport_opts topts = {
		.read_idle_ms = env_seconds("HTTP2_READ_IDLE_TIMEOUT_SECONDS",
					    READ_IDLE_TIMEOUT_S) * 1000,
		.ping_timeout_ms = c->ping_timeout_ms,
		.tls_handshake_timeout_ms = TLS_HANDSHAKE_TIMEOUT_MS,
		.note = transport_note,
		.ctx = c,
	};
	/*
	 * Through an https:// proxy the server's TLS runs inside the proxy's,
	 * and the transport can write its PING only on the socket (transport.h):
	 * no health check there.
	 */
	if (c->proxy && !strncasecmp(c->proxy, "https:", 6))
		topts.read_idle_ms = 0;
	c->cert_check_ms = env_seconds("KINF_CERT_CHECK_SECONDS", CERT_CHECK_S) * 1000;
	if (c->cert_check_ms <= 0)
		c->cert_check_ms = CERT_CHECK_S * 1000;
	c->ca_read_ms = mono_ms();
	struct strbuf pem = STRBUF_INIT;
	if (c->cfg->ca.len && !go_cert_pool_pem(c->cfg->ca.data, c->cfg->ca.len, &pem)) {
		/* client-go's transport is never made ("unable to load root certificates") */
		errbuf_set(err, "cannot use the CA for server '%s': unable to load root "
			   "certificates: no certificate in it that Go reads (CA %s)",
			   c->cfg->server, c->cfg->ca_origin);
		kclient_free(c);
		return NULL;
	} else if (c->cfg->ca.len) {
		c->ca.data = strbuf_detach(&pem, &c->ca.len);
	} else if (!c->cfg->insecure) {
		go_system_roots(getenv("SSL_CERT_FILE"), getenv("SSL_CERT_DIR"), &pem);
		c->roots.data = strbuf_detach(&pem, &c->roots.len);
	}
	/*
	 * transport.TLSConfigFor: a pair not read from files alone is static,
	 * and one X509KeyPair refuses leaves client-go with no client at all.
	 */
	if (!c->cfg->client_cert_file &&
	    read_pair(c, &c->cfg->client_cert, &c->cfg->client_key, &c->static_pair, err) < 0) {
		kclient_free(c);
		return NULL;
	}
	if (c->cfg->client_cert_file) {
		c->cert_started_ms = c->cert_read_ms = mono_ms();
		topts.tick = cert_tick;
		topts.tick_first_ms = c->cert_check_ms;
		topts.handshake = cert_handshake;
	}
	c->tp = transport_new(&topts);
	if (!c->tp) {
		errbuf_set(err, "cannot start the connection thread: %s", strerror(errno));
		kclient_free(c);
		return NULL;
	}
	return c;
}

void kclient_free(struct kclient *c)
{
	if (!c)
		return;
	if (c->ops->release)
		c->ops->release(c);
	rest_config_free(c->cfg);
	free(c);
}

/* The libcurl backend's part of kclient_free(). */
static void live_release(struct kclient *c)
{
	/* The transport first: its thread may still run transfers that use the share. */
	transport_free(c->tp);
	curl_share_cleanup(c->share);
	for (size_t i = 0; i < ARRAY_SIZE(c->share_locks); i++)
		pthread_mutex_destroy(&c->share_locks[i]);
	pthread_mutex_destroy(&c->warned_lock);
	pthread_mutex_destroy(&c->ca_lock);
	blob_release(&c->ca);
	blob_release(&c->roots);
	client_pair_release(&c->static_pair);
	for (size_t i = 0; i < c->nr_warned; i++)
		free(c->warned[i]);
	free(c->warned);
	tls_verify_log_free(c->verify_log);
	credential_free(c->cred);
	free(c->url_base);
	curl_slist_free_all(c->connect_to);
	free(c->host_header);
	free(c->identity);
	free(c->proxy);
}

const char *kclient_server(const struct kclient *c)
{
	return c->cfg->server;
}

void kclient_set_verbose(struct kclient *c, int level)
{
	c->verbose = level;
}

void kclient_set_timeout(struct kclient *c, int64_t ms)
{
	c->timeout_ms = ms;
}

int64_t kclient_timeout(const struct kclient *c)
{
	return c->timeout_ms;
}

void kclient_set_http_version(struct kclient *c, enum http_version v)
{
	c->http_version = v;
}

void kclient_set_ca_reload(struct kclient *c, bool on)
{
	pthread_mutex_lock(&c->ca_lock);
	c->ca_reload = on && c->cfg->ca_file;
	pthread_mutex_unlock(&c->ca_lock);
}

/*
 * atomicTransportHolder.getTransport: once the last read is the period
 * old, the CA file is read again; a read that fails, finds the file
 * empty or unchanged, or finds no certificate in it, keeps the CA there
 * was.  With ca_lock held.
 */
static void ca_refresh(struct kclient *c)
{
	struct blob b = { 0 };
	struct strbuf pem = STRBUF_INIT;
	int64_t now = mono_ms();

	if (now - c->ca_read_ms < c->cert_check_ms)
		return;
	c->ca_read_ms = now;
	if (blob_read_file(&b, c->cfg->ca_file) < 0 || !b.len ||
	    !go_cert_pool_pem(b.data, b.len, &pem) ||
	    (pem.len == c->ca.len && !memcmp(pem.buf, c->ca.data, pem.len))) {
		blob_release(&b);
		strbuf_release(&pem);
		return;
	}
	blob_release(&b);
	blob_release(&c->ca);
	c->ca.data = strbuf_detach(&pem, &c->ca.len);
	kclient_note(c, "connection to server '%s': the CA file '%s' changed: new "
		     "connections trust what it holds", c->cfg->server, c->cfg->ca_file);
}

void kclient_note(struct kclient *c, const char *fmt, ...)
{
	if (c->verbose < 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	flockfile(stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
	va_end(ap);
}

static void transport_note(void *ctx, const char *msg)
{
	struct kclient *c = ctx;
	kclient_note(c, "connection to server '%s': %s", c->cfg->server, msg);
}

void http_response_release(struct http_response *resp)
{
	strbuf_release(&resp->body);
}

/* No answer yet: of the last, only the body's buffer is kept. */
static void response_reset(struct http_response *resp)
{
	struct strbuf body = resp->body;

	strbuf_reset(&body);
	*resp = (struct http_response){ .body = body, .retry_after_ms = -1 };
}

/* ---- one transfer ------------------------------------------------------- */

struct transfer {
	struct kclient *client;
	struct http_response *resp;
	http_data_fn *on_data;	/* NULL: everything into resp->body */
	void *ctx;
	/* What the request presents: its certificate is named in errors. */
	const struct credential_snapshot *snap;
	bool stopped, stalled, aborted;
	struct xfer_news news;		/* the transport's last, once done */
	bool type_checked, not_json;	/* the Content-Type of a 2xx */
	bool secrets;			/* it asks for Secrets: -v -v shows no body */
	bool malformed_header;		/* set on the connection thread */
	struct strbuf warnings;		/* the Warning headers' values, each NUL-ended */
	/* --http-version 2, and the server answered HTTP/1.1 (set on the connection thread) */
	atomic_bool not_http2;
	char curl_err[CURL_ERROR_SIZE];
};

static bool status_ok(long status)
{
	return status >= 200 && status <= 299;
}

/*
 * client-go's retryAfterSeconds: strconv.Atoi of the value, an optional
 * sign and decimal digits, nothing else.  An HTTP date, or a number too
 * large for an int, is no Retry-After at all; a negative one waits 0.
 */
static void parse_retry_after(struct http_response *resp, const char *v)
{
	const char *d = v + (*v == '+' || *v == '-');
	char *end;

	if (!isdigit((unsigned char)*d))
		return;
	errno = 0;
	long long secs = strtoll(v, &end, 10);
	if (*end || errno == ERANGE)
		return;
	if (secs < 0)
		secs = 0;
	/* Saturated where a clock plus it still fits (31 years). */
	resp->retry_after_ms = secs > 1000000000 ? INT64_C(1000000000000) : secs * 1000;
}

/* Header value of line if its name is `name` (case-insensitively), else NULL. */
static const char *header_value(const char *line, const char *name)
{
	size_t n = strlen(name);
	if (strncasecmp(line, name, n) || line[n] != ':')
		return NULL;
	line += n + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

/*
 * Whether a header line (its CR LF aside) holds a byte Go's textproto
 * refuses in a header: a control character other than HTAB.  Go then
 * fails the whole response ("malformed MIME header line"); libcurl would
 * take it.
 */
static bool header_malformed(const char *data, size_t len)
{
	while (len && (data[len - 1] == '\n' || data[len - 1] == '\r'))
		len--;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)data[i];
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return true;
	}
	return false;
}

/* On the connection thread (xfer_header_fn): one header line into resp. */
static bool header_hook(void *arg, const char *data, size_t len)
{
	struct transfer *t = arg;
	char line[1024];
	size_t n = len < sizeof(line) - 1 ? len : sizeof(line) - 1;

	if (header_malformed(data, len)) {
		t->malformed_header = true;
		return false;
	}

	memcpy(line, data, n);
	/* Go's textproto trims the value's spaces too. */
	while (n && isspace((unsigned char)line[n - 1]))
		n--;
	line[n] = '\0';

	const char *v;
	if (!strncmp(line, "HTTP/", 5)) {
		/* A new response: start over. */
		const char *sp = strchr(line, ' ');
		t->resp->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		t->resp->retry_after_ms = -1;
		t->resp->content_type[0] = '\0';
		atomic_store(&t->not_http2,
			     t->client->http_version == HTTP_VERSION_2 && line[5] != '2');
	} else if ((v = header_value(line, "Retry-After"))) {
		parse_retry_after(t->resp, v);
	} else if ((v = header_value(line, "Content-Type"))) {
		snprintf(t->resp->content_type, sizeof(t->resp->content_type), "%s", v);
	} else if ((v = header_value(line, "Warning"))) {
		strbuf_add(&t->warnings, v, strlen(v) + 1);
	}
	return true;
}

/* How long the field name at p is, when it names a credential and a ':' follows. */
static size_t secret_field(const char *p, size_t n)
{
	static const char *const names[] = { "authorization", "cookie" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		size_t len = strlen(names[i]);
		if (n > len && !strncasecmp(p, names[i], len) && p[len] == ':')
			return len;
	}
	return 0;
}

/* At "://": the length of a URL's user information and its '@', or 0. */
static size_t url_userinfo(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '@')
			return i + 1;
		if (strchr("/ \t'\"]?#", p[i]))
			return 0;
	}
	return 0;
}

/*
 * A trace line with what may be a credential cut out: the value of any
 * Authorization, Proxy-Authorization or Cookie field, as a header line or
 * inside one of libcurl's text lines (HTTP/2's "h2h3 [authorization: …]"),
 * up to the line's end or the ']' that closes it; and the user
 * information of a URL ("http://user:pass@proxy").  Then escaped for the
 * terminal (termsafe.h).
 */
static void trace_header(const char *prefix, const char *line, size_t len)
{
	struct strbuf redacted = STRBUF_INIT, safe = STRBUF_INIT;

	for (size_t i = 0; i < len;) {
		size_t name = secret_field(line + i, len - i), info;
		if (name) {
			strbuf_add(&redacted, line + i, name);
			strbuf_adds(&redacted, ": <redacted>");
			const char *close = memchr(line + i, ']', len - i);
			i = close ? (size_t)(close - line) : len;
		} else if (len - i > 3 && !memcmp(line + i, "://", 3) &&
			   (info = url_userinfo(line + i + 3, len - i - 3))) {
			strbuf_adds(&redacted, "://<redacted>@");
			i += 3 + info;
		} else {
			strbuf_addch(&redacted, line[i++]);
		}
	}
	strbuf_add_termsafe(&safe, redacted.buf, redacted.len, 0);
	fprintf(stderr, "%s%s\n", prefix, safe.buf);
	strbuf_release(&safe);
	strbuf_release(&redacted);
}

/*
 * Whether url asks for core v1 Secrets (a list, a watch, one of them):
 * their bodies hold the values, which kinf shows by their sizes wherever
 * kubectl does not show them (man kinf, SECURITY), -v -v included.
 */
static bool secrets_url(const char *url)
{
	const char *p = strstr(url, "/api/v1/");

	if (!p)
		return false;
	p += strlen("/api/v1/");
	if (str_starts_with(p, "namespaces/")) {
		p = strchr(p + strlen("namespaces/"), '/');
		if (!p)
			return false;
		p++;
	}
	return str_starts_with(p, "secrets") && strchr("/?", p[strlen("secrets")]);
}

/* -v -v: each piece of a body as it arrives, decoded, cut short. */
static void trace_body(const struct transfer *t, const char *data, size_t len)
{
	if (t->secrets) {
		fprintf(stderr, "< [%zu bytes] (of Secrets: not shown)\n", len);
		return;
	}

	struct strbuf safe = STRBUF_INIT;

	/* The server's bytes, on a terminal: escaped (termsafe.h). */
	strbuf_add_termsafe(&safe, data, len < TRACE_BODY_MAX ? len : TRACE_BODY_MAX, 0);
	flockfile(stderr);
	fprintf(stderr, "< [%zu bytes] %s%s\n", len, safe.buf,
		len > TRACE_BODY_MAX ? " ..." : "");
	funlockfile(stderr);
	strbuf_release(&safe);
}

/*
 * An answer kinf can read: application/json and its kin (";stream=watch",
 * aggregated discovery's parameters, application/...+json).  None at all
 * counts as JSON, as client-go takes it for the type it asked for
 * (rest.Request.transformResponse); anything else, a proxy's HTML page
 * say, has no decoder, as in client-go's Result.Into ("serializer for
 * text/html doesn't exist").
 */
bool http_json_media_type(const char *type)
{
	size_t n;

	while (*type == ' ' || *type == '\t')
		type++;
	n = strcspn(type, ";");
	while (n && (type[n - 1] == ' ' || type[n - 1] == '\t'))
		n--;
	if (!n || (n == 16 && !strncasecmp(type, "application/json", 16)))
		return true;
	return n > 17 && !strncasecmp(type, "application/", 12) &&
	       !strncasecmp(type + n - 5, "+json", 5);
}

/* Whether the query of path has param ("name=value", or "name=" for any value). */
static bool query_has(const char *path, const char *param)
{
	size_t n = strlen(param);

	for (const char *q = strchr(path, '?'); q; q = strchr(q, '&')) {
		q++;
		if (!strncmp(q, param, n))
			return true;
	}
	return false;
}

enum request_kind request_kind_of(const char *path)
{
	if (!query_has(path, "watch=true") && !query_has(path, "watch=1"))
		return REQUEST_LIST;
	return query_has(path, "sendInitialEvents=true") ? REQUEST_STREAMING_LIST
							 : REQUEST_WATCH;
}

const char *request_kind_name(enum request_kind kind)
{
	static const char *const names[] = {
		[REQUEST_UNKNOWN] = "request", [REQUEST_LIST] = "LIST",
		[REQUEST_WATCH] = "watch", [REQUEST_STREAMING_LIST] = "streaming list",
	};
	return names[kind];
}

/* Bytes of the body, on the caller's thread: to on_data, or into resp->body. */
static int deliver(struct transfer *t, const char *data, size_t len)
{
	if (t->client->verbose >= 2)
		trace_body(t, data, len);
	if (t->on_data && status_ok(t->resp->status)) {
		if (!t->type_checked) {
			/* Before the first byte is parsed: a page is not a list. */
			t->type_checked = true;
			if (!http_json_media_type(t->resp->content_type)) {
				t->not_json = true;
				return -1;
			}
		}
		return t->on_data(t->ctx, data, len);
	}
	if (t->on_data && t->resp->body.len + len > MAX_ERROR_BODY)
		return 0;	/* enough for a message */
	strbuf_add(&t->resp->body, data, len);
	return 0;
}

static int debug_cb(CURL *h, curl_infotype type, char *data, size_t size, void *userp)
{
	struct kclient *c = userp;
	const char *prefix;

	switch (type) {
	case CURLINFO_HEADER_OUT:
		prefix = "> ";
		break;
	case CURLINFO_HEADER_IN:
		prefix = "< ";
		break;
	case CURLINFO_TEXT:
		if (c->verbose < 3)
			return 0;
		prefix = "* ";
		break;
	default:
		return 0;
	}
	flockfile(stderr);
	const char *p = data, *end = data + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t shown = n;
		while (shown && p[shown - 1] == '\r')
			shown--;
		if (shown)
			trace_header(prefix, p, shown);
		p += n + (nl ? 1 : 0);
	}
	funlockfile(stderr);
	return 0;
}


/* An RFC 7230 token's character (Go's httpguts.IsTokenRune). */
static bool token_char(unsigned char ch)
{
	return isalnum(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/*
 * An as-user-extra key in its header's name, as client-go's
 * headerKeyEscape and Go's canonical header key make it: every byte
 * that is no token character, and '%', %-escaped; a letter first and
 * after each '-' in upper case, the others in lower.
 */
static void extra_key(struct strbuf *sb, const char *key)
{
	struct strbuf esc = STRBUF_INIT;

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		if (!token_char(*p) || *p == '%')
			strbuf_addf(&esc, "%%%02X", *p);
		else
			strbuf_addch(&esc, (char)*p);
	/* The prefix ends in '-': the key's first letter is upper case. */
	for (size_t i = 0; i < esc.len; i++) {
		unsigned char ch = (unsigned char)esc.buf[i];
		bool upper = i == 0 || esc.buf[i - 1] == '-';
		strbuf_addch(sb, (char)(upper ? toupper(ch) : tolower(ch)));
	}
	strbuf_release(&esc);
}

/*
 * A header as Go sends it, an empty value too ("Name:" is libcurl's way
 * of leaving a header out, "Name;" of sending it empty).
 */
static struct curl_slist *header_add(struct curl_slist *h, const char *name, const char *value)
{
	char *line = *value ? xasprintf("%s: %s", name, value) : xasprintf("%s;", name);
	h = curl_slist_append(h, line);
	free(line);
	return h;
}

/* snap NULL: no credential; host: the Host of tls-server-name. */
static struct curl_slist *request_headers(struct kclient *c, const struct credential_snapshot *snap,
					  bool host, const char *accept)
{
	struct curl_slist *h = NULL;
	char *a = xasprintf("Accept: %s", accept ? accept : "application/json");
	h = curl_slist_append(h, a);
	free(a);
	if (snap && snap->authorization) {
		a = xasprintf("Authorization: %s", snap->authorization);
		h = curl_slist_append(h, a);
		secret_free(a);
	}
	if (host && c->host_header)
		h = curl_slist_append(h, c->host_header);
	if (c->cfg->impersonate_user)
		h = header_add(h, "Impersonate-User", c->cfg->impersonate_user);
	if (c->cfg->impersonate_uid)
		h = header_add(h, "Impersonate-Uid", c->cfg->impersonate_uid);
	for (char **g = c->cfg->impersonate_groups; *g; g++)
		h = header_add(h, "Impersonate-Group", *g);
	for (char **e = c->cfg->impersonate_extra; e[0] && e[1]; e += 2) {
		struct strbuf name = STRBUF_INIT;
		strbuf_adds(&name, "Impersonate-Extra-");
		extra_key(&name, e[0]);
		h = header_add(h, name.buf, e[1]);
		strbuf_release(&name);
	}
	if (!h)
		out_of_memory(0);
	return h;
}

static void wipe_slist(struct curl_slist *h)
{
	for (struct curl_slist *p = h; p; p = p->next)
		explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(h);
}

/* Each new socket: what libcurl 7.88 cannot set, the probe count. */
static int sockopt_cb(void *userp, curl_socket_t fd, curlsocktype purpose)
{
	int probes = KEEPALIVE_PROBES;
	(void)userp;
	if (purpose != CURLSOCKTYPE_IPCXN)
		return CURL_SOCKOPT_OK;
	/* Best effort: a socket that refuses still works, with the kernel's default. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes));
	return CURL_SOCKOPT_OK;
}

static long curl_http_version(const struct kclient *c)
{
	switch (c->http_version) {
	case HTTP_VERSION_1_1:
		return CURL_HTTP_VERSION_1_1;
	case HTTP_VERSION_2:
		/* Plain http has no ALPN: HTTP/2 then means prior knowledge (h2c). */
		return c->https ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
	case HTTP_VERSION_AUTO:
		break;
	}
	/* HTTP/2 where TLS's ALPN agrees, else HTTP/1.1: client-go's default. */
	return CURL_HTTP_VERSION_2TLS;
}

/*
 * What every handle of the client shares.  cert and key
 * are the credential's when it has its own (an exec plugin's), else the
 * kubeconfig's; connections are reused only between handles that present
 * the same.
 */
static void setup_handle(struct kclient *c, CURL *h, const char *url, char *errbuf,
			 const struct credential_snapshot *snap, const struct client_pair *pair,
			 struct curl_slist *headers, int64_t timeout_ms)
{
	const struct rest_config *cfg = c->cfg;

	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_SHARE, c->share);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kinf/" KINF_VERSION);
	if (!cfg->disable_compression)
		/* Go's transport asks for gzip alone, and unpacks it itself. */
		curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip");
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, curl_http_version(c));
	/* Wait for the first connection's ALPN answer rather than open another. */
	if (c->http_version != HTTP_VERSION_1_1)
		curl_easy_setopt(h, CURLOPT_PIPEWAIT, 1L);
	if (errbuf)
		curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	long connect_ms = CONNECT_TIMEOUT_MS;
	if (c->timeout_ms > 0 && c->timeout_ms < connect_ms)
		connect_ms = (long)c->timeout_ms;
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, IDLE_CONN_TIMEOUT_S);
	if (timeout_ms > 0)
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, KEEPALIVE_IDLE_S);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, KEEPALIVE_INTERVAL_S);
	curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, sockopt_cb);
	/* A proxy's "200 Connection established" is not the answer. */
	curl_easy_setopt(h, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
	if (c->verbose >= 2) {
		curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, debug_cb);
		curl_easy_setopt(h, CURLOPT_DEBUGDATA, c);
		curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
	}

	if (c->connect_to)
		curl_easy_setopt(h, CURLOPT_CONNECT_TO, c->connect_to);
	/*
	 * Go's choice, not libcurl's own reading of the environment; and
	 * proxy-url is for every request, NO_PROXY or not, as in kubectl.
	 */
	curl_easy_setopt(h, CURLOPT_PROXY, c->proxy ? c->proxy : "");
	curl_easy_setopt(h, CURLOPT_NOPROXY, "");

	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, cfg->insecure ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, cfg->insecure ? 0L : 2L);
	pthread_mutex_lock(&c->ca_lock);
	if (c->ca_reload)
		ca_refresh(c);
	/*
	 * The kubeconfig's CA alone, as kubectl trusts only it (from 1.36 an
	 * empty CA file is a pool of none, and nothing is trusted); else Go's
	 * system roots.
	 */
	const struct blob *trusted = cfg->ca.len || c->ca_reload ? &c->ca : &c->roots;
	struct curl_blob ca = { trusted->data, trusted->len, CURL_BLOB_COPY };
	curl_easy_setopt(h, CURLOPT_CAINFO, NULL);
	curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
	if (trusted->len)
		curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
	pthread_mutex_unlock(&c->ca_lock);
	if (pair && pair->cert.len) {
		struct curl_blob cb = { pair->cert.buf, pair->cert.len, CURL_BLOB_COPY };
		struct curl_blob kb = { pair->key.buf, pair->key.len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cb);
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &kb);
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	}
	tls_watch_verify(h, c->verify_log);
}

static void client_pair_release(struct client_pair *pair)
{
	explicit_bzero(pair->key.buf, pair->key.len);
	strbuf_release(&pair->key);
	strbuf_release(&pair->cert);
}

/*
 * A client's certificate and key as Go's X509KeyPair takes them, in PEM
 * without headers for libcurl (go_key_pair_pem()); a pair Go refuses
 * fails with its words, before libcurl sees it: its OpenSSL would ask
 * the terminal for the passphrase of a block with Proc-Type headers (and
 * libcurl 7.88 crashes there).  -1 for such a pair, pair released.
 */
static int read_pair(struct kclient *c, const struct blob *cert, const struct blob *key,
		     struct client_pair *pair, struct errbuf *err)
{
	char buf[256];
	const char *why;

	if (!cert->len || !key->len)
		return 0;
	why = go_key_pair_pem(cert->data, cert->len, key->data, key->len, &pair->cert,
			      &pair->key, buf, sizeof(buf));
	if (!why)
		return 0;
	client_pair_release(pair);
	errbuf_set(err, "cannot use the client certificate for server '%s': %s (%s)",
		   c->cfg->server, why, c->identity);
	return -1;
}

/*
 * The pair a request presents: the snapshot's (an exec plugin's answer,
 * the files as last read), read into own, else the kubeconfig's static
 * one, read once by kclient_new().  NULL for a pair Go refuses.
 */
static const struct client_pair *request_pair(struct kclient *c,
					       const struct credential_snapshot *snap,
					       struct client_pair *own, struct errbuf *err)
{
	if (!snap->cert.len)
		return &c->static_pair;
	return read_pair(c, &snap->cert, &snap->key, own, err) < 0 ? NULL : own;
}

/* ---- transport errors, said so a person can act --------------------------- */


/* proxy-url for a message: without its user and password, if it has any. */
static char *proxy_for_message(const char *url)
{
	size_t start, n = url_userinfo_span(url, &start);

	return n ? xasprintf("%.*s%s", (int)start, url, url + start + n) : xstrdup(url);
}

enum error_detail {
	DETAIL_CURL,		/* libcurl's error buffer */
	DETAIL_ERRNO,		/* strerror of the socket's errno, else libcurl's */
};

static const struct {
	CURLcode code;
	const char *what;	/* "%s" is the server URL */
	enum error_detail detail;
	bool ca;		/* name the CA used */
	bool client_cert;	/* name whose certificate */
} transport_errors[] = {
	{ CURLE_COULDNT_RESOLVE_HOST, "cannot resolve the host of server '%s'", DETAIL_CURL, false, false },
	{ CURLE_COULDNT_RESOLVE_PROXY, "cannot resolve the proxy for server '%s'", DETAIL_CURL, false, false },
	{ CURLE_COULDNT_CONNECT, "cannot connect to server '%s'", DETAIL_ERRNO, false, false },
	{ CURLE_OPERATION_TIMEDOUT, "timed out talking to server '%s'", DETAIL_CURL, false, false },
	{ CURLE_PEER_FAILED_VERIFICATION, "cannot verify the certificate of server '%s'", DETAIL_CURL, true, false },
	{ CURLE_SSL_CACERT_BADFILE, "cannot use the CA for server '%s'", DETAIL_CURL, true, false },
	{ CURLE_SSL_CERTPROBLEM, "cannot use the client certificate for server '%s'", DETAIL_CURL, false, true },
	{ CURLE_SSL_CONNECT_ERROR, "TLS handshake with server '%s' failed", DETAIL_CURL, false, false },
	{ CURLE_GOT_NOTHING, "server '%s' closed the connection without answering", DETAIL_CURL, false, false },
	{ CURLE_RECV_ERROR, "connection to server '%s' broke", DETAIL_ERRNO, false, false },
	{ CURLE_SEND_ERROR, "connection to server '%s' broke", DETAIL_ERRNO, false, false },
	{ CURLE_PARTIAL_FILE, "server '%s' ended the response early", DETAIL_CURL, false, false },
	{ CURLE_HTTP2, "HTTP/2 error from server '%s'", DETAIL_CURL, false, false },
	{ CURLE_HTTP2_STREAM, "HTTP/2 stream from server '%s' broke", DETAIL_CURL, false, false },
	{ CURLE_UNSUPPORTED_PROTOCOL, "cannot talk to server '%s'", DETAIL_CURL, false, false },
	{ CURLE_URL_MALFORMAT, "bad URL for server '%s'", DETAIL_CURL, false, false },
};

/* Failures after which an out-of-date client certificate is the likely cause. */
static bool tls_failure(CURLcode rc)
{
	static const CURLcode codes[] = {
		CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_RECV_ERROR,
		CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM,
	};
	for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
		if (codes[i] == rc)
			return true;
	return false;
}

/*
 * A server certificate with no host in its subjectAltName (tls_cert.h),
 * or one out of its validity period, named: the server's (the
 * handshake recorded it) or our own client certificate.  Go and OpenSSL
 * say "certificate has expired" or "sslv3 alert certificate expired"
 * without saying whose.
 */
static bool certificate_error(struct kclient *c, CURLcode rc, const struct transfer *t,
			      struct errbuf *err)
{
	struct tls_verify_failure f;
	char when[160];
	bool have = rc == CURLE_PEER_FAILED_VERIFICATION && tls_verify_log_take(c->verify_log, &f);

	if (have && f.no_host_san) {
		errbuf_set(err, "the certificate of server '%s' (subject '%s') names no host "
			   "in a subjectAltName: client-go (Go) reads no Common Name, and refuses it",
			   c->cfg->server, f.cert.subject);
		return true;
	}
	if (have && cert_validity_problem(&f.cert, time(NULL), when, sizeof(when))) {
		if (f.depth == 0)
			errbuf_set(err, "the certificate of server '%s' (subject '%s') %s",
				   c->cfg->server, f.cert.subject, when);
		else
			errbuf_set(err, "the CA certificate '%s' in the chain of server '%s' %s",
				   f.cert.subject, c->cfg->server, when);
		return true;
	}
	if (!tls_failure(rc))
		return false;
	const struct blob *cert = t->snap && t->snap->cert.len ? &t->snap->cert
							       : &c->cfg->client_cert;
	struct cert_info ci;
	if (!cert->len || cert_info_from_pem(cert->data, cert->len, &ci) < 0 ||
	    !cert_validity_problem(&ci, time(NULL), when, sizeof(when)))
		return false;
	errbuf_set(err, "the client certificate '%s' of %s %s, so server '%s' refused it",
		   ci.subject, c->identity, when, c->cfg->server);
	return true;
}

/* Why cert_handshake() failed a handshake: the files' read. */
static void ssl_ctx_refusal(struct kclient *c, char *buf, size_t size)
{
	pthread_mutex_lock(&c->ca_lock);
	snprintf(buf, size, "%s", c->cert_err);
	pthread_mutex_unlock(&c->ca_lock);
}

static void transport_error(struct kclient *c, CURL *h, CURLcode rc, struct transfer *t,
			    struct errbuf *err)
{
	if (certificate_error(c, rc, t, err))
		return;

	const char *what = "request to server '%s' failed";
	enum error_detail detail = DETAIL_CURL;
	bool ca = false, client_cert = false;
	char head[256], detail_buf[sizeof(err->msg)], tail[384] = "";

	/*
	 * Nothing of an answer came: libcurl 7.88 says CURLE_GOT_NOTHING,
	 * 8.x over TLS a receive error (OpenSSL's "unexpected eof", its
	 * error code and all), and a reset says one too.  The same words
	 * for all of them, 7.88's, or the reset's errno.
	 */
	bool unanswered = rc == CURLE_RECV_ERROR && !t->resp->status;
	CURLcode words = unanswered ? CURLE_GOT_NOTHING : rc;
	for (size_t i = 0; i < ARRAY_SIZE(transport_errors); i++) {
		if (transport_errors[i].code != words)
			continue;
		what = transport_errors[i].what;
		detail = transport_errors[i].detail;
		ca = transport_errors[i].ca;
		client_cert = transport_errors[i].client_cert;
		break;
	}
	/* Each template has exactly one %s, the server. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(head, sizeof(head), what, c->cfg->server);
#pragma GCC diagnostic pop
	/* Through proxy-url, kinf itself only ever connects to the proxy. */
	if (rc == CURLE_COULDNT_CONNECT && c->cfg->proxy_url) {
		char *proxy = proxy_for_message(c->cfg->proxy_url);
		snprintf(head, sizeof(head), "cannot connect to proxy '%s' for server '%s'",
			 proxy, c->cfg->server);
		free(proxy);
	}

	long os_errno = 0;
	curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
	if ((detail == DETAIL_ERRNO || unanswered) && os_errno)
		snprintf(detail_buf, sizeof(detail_buf), "%s", strerror((int)os_errno));
	else if (unanswered)
		snprintf(detail_buf, sizeof(detail_buf), "Empty reply from server");
	else if (rc == CURLE_SSL_CERTPROBLEM && strstr(t->curl_err, "ssl ctx callback"))
		ssl_ctx_refusal(c, detail_buf, sizeof(detail_buf));
	else if (t->curl_err[0])
		snprintf(detail_buf, sizeof(detail_buf), "%s", t->curl_err);
	else
		snprintf(detail_buf, sizeof(detail_buf), "%s", curl_easy_strerror(rc));
	size_t n = strlen(detail_buf);
	while (n && (detail_buf[n - 1] == '\n' || detail_buf[n - 1] == '.'))
		detail_buf[--n] = '\0';

	if (ca)
		snprintf(tail, sizeof(tail), " (CA %s%s)",
			 c->cfg->ca_origin ? c->cfg->ca_origin : "from the system's trust store",
			 c->cfg->tls_server_name ? ", tls-server-name" : "");
	else if (client_cert)
		snprintf(tail, sizeof(tail), " (%s)", c->identity);
	errbuf_set(err, "%s: %s%s", head, detail_buf, tail);
}

/* ---- requests ----------------------------------------------------------- */

static const char *reason_phrase(long status)
{
	static const struct {
		long status;
		const char *text;
	} reasons[] = {
		{ 200, "OK" }, { 201, "Created" }, { 204, "No Content" },
		{ 301, "Moved Permanently" }, { 302, "Found" }, { 303, "See Other" },
		{ 307, "Temporary Redirect" }, { 308, "Permanent Redirect" },
		{ 400, "Bad Request" }, { 401, "Unauthorized" }, { 403, "Forbidden" },
		{ 404, "Not Found" }, { 405, "Method Not Allowed" }, { 406, "Not Acceptable" },
		{ 409, "Conflict" }, { 410, "Gone" }, { 413, "Request Entity Too Large" },
		{ 415, "Unsupported Media Type" }, { 422, "Unprocessable Entity" },
		{ 429, "Too Many Requests" }, { 500, "Internal Server Error" },
		{ 502, "Bad Gateway" }, { 503, "Service Unavailable" },
		{ 504, "Gateway Timeout" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(reasons); i++)
		if (reasons[i].status == status)
			return reasons[i].text;
	return "";
}

/*
 * -v: one line per request.  A transfer kinf itself ended (a stop: a
 * signal, --timeout) did not fail, and is not said to have.
 */
static void trace_request(struct kclient *c, const char *raw_url, const struct http_response *resp,
			  const struct transfer *t, int64_t started, int failed,
			  const struct errbuf *err)
{
	long long ms = (long long)(mono_ms() - started);
	const char *proto = t->news.http2 ? " (HTTP/2)" : "";

	if (c->verbose < 1)
		return;
	/* A redirect's URL is the server's: escaped (termsafe.h). */
	struct strbuf safe = STRBUF_INIT;
	strbuf_add_termsafe(&safe, raw_url, strlen(raw_url), 0);
	const char *url = safe.buf;
	if (t->stopped && resp->status)
		fprintf(stderr, "GET %s %ld %s in %lld ms%s, stopped\n", url, resp->status,
			reason_phrase(resp->status), ms, proto);
	else if (t->stopped)
		fprintf(stderr, "GET %s stopped after %lld ms\n", url, ms);
	else if (failed)
		fprintf(stderr, "GET %s failed after %lld ms: %s\n", url, ms, err->msg);
	else
		fprintf(stderr, "GET %s %ld %s in %lld ms%s\n", url, resp->status,
			reason_phrase(resp->status), ms, proto);
	strbuf_release(&safe);
}

/* How long to sleep on the transfer: until the stall deadline or the next tick, at most. */
static int wait_ms(const struct stream_opts *opts, int64_t last_byte_ms, int64_t next_tick_ms)
{
	int64_t wait = opts->stop_fd > 0 ? MAX_WAIT_MS : STOP_CHECK_MS, now = mono_ms();

	if (opts->idle_timeout_ms && last_byte_ms + opts->idle_timeout_ms - now + 1 < wait)
		wait = last_byte_ms + opts->idle_timeout_ms - now + 1;
	if (next_tick_ms && next_tick_ms - now < wait)
		wait = next_tick_ms - now;
	return wait < 0 ? 0 : (int)wait;
}

/*
 * Runs h on the transport and hands the body on as it comes, until the
 * transfer is done: curl_easy_perform(), but on the shared connection,
 * waking for a stop request or a stall.
 */
static CURLcode perform(struct kclient *c, CURL *h, struct transfer *t,
			const struct stream_opts *opts)
{
	struct xfer *x = xfer_start(c->tp, h, header_hook, t);
	struct xfer_news *news = &t->news;

	if (!x) {
		/* as Go's dial says it when no descriptor is left */
		snprintf(t->curl_err, sizeof(t->curl_err), "socket: %s", strerror(errno));
		return CURLE_COULDNT_CONNECT;
	}
	bool cancelled = false;
	int64_t next_tick_ms = opts->tick && opts->tick_ms > 0 ? mono_ms() + opts->tick_ms : 0;

	for (;;) {
		const struct strbuf *chunk = xfer_take(x, news);
		if (!cancelled && atomic_load(&t->not_http2)) {
			cancelled = true;
		} else if (chunk->len && !cancelled && deliver(t, chunk->buf, chunk->len) < 0) {
			t->aborted = true;
			cancelled = true;
		}
		if (news->done)
			break;
		if (!cancelled) {
			if ((opts->stop && atomic_load(opts->stop)) || fd_hung_up(opts->hangup_fd))
				t->stopped = true;
			else if (opts->idle_timeout_ms &&
				 mono_ms() - news->last_byte_ms > opts->idle_timeout_ms)
				t->stalled = true;
			cancelled = t->stopped || t->stalled;
		}
		if (!cancelled && next_tick_ms && mono_ms() >= next_tick_ms) {
			int64_t next = opts->tick(opts->tick_ctx);
			if (next < 0) {
				t->aborted = true;
				cancelled = true;
			} else {
				next_tick_ms = mono_ms() + (next > 0 ? next : 1);
			}
		}
		if (cancelled) {
			xfer_cancel(x);
			xfer_wait(x, -1, -1, -1);
			continue;
		}
		xfer_wait(x, opts->stop_fd > 0 ? opts->stop_fd : -1,
			  opts->hangup_fd > 0 ? opts->hangup_fd : -1,
			  wait_ms(opts, news->last_byte_ms, next_tick_ms));
	}
	xfer_free(x);
	return news->result;
}

/*
 * The server reset an HTTP/2 stream with an error code (RST_STREAM): Go's
 * transport reports a StreamError, which is no probable EOF; a connection
 * that closed under the stream is io.ErrUnexpectedEOF, which is one.
 * libcurl tells them apart only in its message: 7.88's "was not closed
 * cleanly: CODE", 8.x's "reset by server".
 */
static bool stream_reset(CURLcode rc, const char *curl_err)
{
	return rc == CURLE_HTTP2_STREAM &&
	       (strstr(curl_err, "not closed cleanly:") || strstr(curl_err, "reset by server"));
}

/* Go's names of the HTTP/2 error codes (http2.ErrCode's String). */
static const char *const h2_error_names[] = {
	"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
	"SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL",
	"COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY",
	"HTTP_1_1_REQUIRED",
};

/*
 * A reset stream in Go's words (its http2.StreamError), from libcurl's:
 * 7.88's "HTTP/2 stream 3 was not closed cleanly: INTERNAL_ERROR (err 2)",
 * 8.x's "HTTP/2 stream 3 reset by server (error 0x2 INTERNAL_ERROR)".
 */
static void stream_error_words(const char *curl_err, char *out, size_t size)
{
	unsigned id = 0, code = 0;
	const char *cut = strstr(curl_err, "(err ");

	if (sscanf(curl_err, "HTTP/2 stream %u", &id) != 1 ||
	    !(cut ? sscanf(cut, "(err %u)", &code) == 1 :
		    sscanf(curl_err, "HTTP/2 stream %*u reset by server (error 0x%x", &code) == 1)) {
		snprintf(out, size, "%.*s", (int)size - 1, curl_err);
		return;
	}
	if (code < ARRAY_SIZE(h2_error_names))
		snprintf(out, size, "stream error: stream ID %u; %s; received from peer", id,
			 h2_error_names[code]);
	else
		snprintf(out, size, "stream error: stream ID %u; unknown error code 0x%x; "
			 "received from peer", id, code);
}

/*
 * Whether the server's TLS sent an alert (OpenSSL's reasons for one
 * received: "sslv3 alert certificate expired", "tlsv13 alert certificate
 * required"): Go's "remote error: tls: ...", which is neither an EOF nor
 * a reset, and which no retry of client-go's takes.  A server refusing
 * a client certificate under TLS 1.3 sends it on the first read.
 */
static bool peer_alert(const char *curl_err)
{
	return strstr(curl_err, "sslv3 alert ") || strstr(curl_err, "tlsv1 alert ") ||
	       strstr(curl_err, "tlsv13 alert ");
}

/*
 * The transport errors client-go's utilnet.IsProbableEOF, IsConnectionReset
 * and IsTimeout recognise: the connection was closed or broke, or a
 * timeout ran out.  A TLS handshake too, when the server reset the
 * connection or closed it under the handshake (Go's "connection reset by
 * peer", its EOF; libcurl 7.88 says SSL_ERROR_SYSCALL for an EOF, 8.x
 * "unexpected eof"), and a connection reset as it was made (libcurl's
 * errno, or its words where the errno is not the reset's).  Not a refused
 * connection, a name failure, nor a handshake the server's TLS failed (an
 * alert, a certificate, no TLS).
 */
static bool reset_by_peer(CURL *h, const char *curl_err)
{
	long os_errno = 0;
	curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
	return os_errno == ECONNRESET || strcasestr(curl_err, "connection reset by peer");
}

static bool broke_unanswered(CURLcode rc, const char *curl_err, bool reset)
{
	if (peer_alert(curl_err))
		return false;
	switch (rc) {
	case CURLE_COULDNT_CONNECT:	/* reset as it connected: Go's dial error says so too */
		return reset;
	case CURLE_SSL_CONNECT_ERROR:
		return reset || strstr(curl_err, "SSL_ERROR_SYSCALL") ||
		       strstr(curl_err, "unexpected eof");
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

/* Go's http.Client follows these with a Location, the same GET again. */
static bool redirect_status(long status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/* Whether two absolute URLs have one scheme, host and port. */
static bool same_origin(const char *a, const char *b)
{
	static const CURLUPart parts[] = { CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT };
	CURLU *ua = curl_url(), *ub = curl_url();
	bool same = ua && ub && !curl_url_set(ua, CURLUPART_URL, a, 0) &&
		    !curl_url_set(ub, CURLUPART_URL, b, 0);

	for (size_t i = 0; same && i < ARRAY_SIZE(parts); i++) {
		char *pa = NULL, *pb = NULL;
		same = !curl_url_get(ua, parts[i], &pa, CURLU_DEFAULT_PORT) &&
		       !curl_url_get(ub, parts[i], &pb, CURLU_DEFAULT_PORT) && !strcasecmp(pa, pb);
		curl_free(pa);
		curl_free(pb);
	}
	curl_url_cleanup(ua);
	curl_url_cleanup(ub);
	return same;
}

/*
 * A header whose value holds a control character (a token, an
 * impersonated name): Go's transport refuses the request ("net/http:
 * invalid header field value for ..."), where libcurl would send the
 * bytes, a line break starting a header of the value's choosing.  The
 * error names the header, never the value.
 */
static bool header_refused(const struct kclient *c, const struct curl_slist *h,
			   struct errbuf *err)
{
	for (; h; h = h->next) {
		const char *colon = strchr(h->data, ':');
		for (const char *p = colon ? colon + 1 : h->data; *p; p++) {
			unsigned char ch = (unsigned char)*p;
			if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
				errbuf_set(err, "the %.*s header of %s holds a control character: "
					   "not sent, as Go refuses it (net/http: invalid header "
					   "field value)", (int)(colon ? colon - h->data : 0),
					   h->data, c->identity);
				return true;
			}
		}
	}
	return false;
}

/* A warning's text, once per client, as kubectl's deduplicating warning writer prints it. */
static void print_warning(void *ctx, const char *text)
{
	struct kclient *c = ctx;

	pthread_mutex_lock(&c->warned_lock);
	for (size_t i = 0; i < c->nr_warned; i++)
		if (!strcmp(c->warned[i], text)) {
			pthread_mutex_unlock(&c->warned_lock);
			return;
		}
	ALLOC_GROW(c->warned, c->nr_warned + 1, c->alloc_warned);
	c->warned[c->nr_warned++] = xstrdup(text);
	pthread_mutex_unlock(&c->warned_lock);

	/* The server's words, on a terminal: escaped (termsafe.h). */
	struct strbuf safe = STRBUF_INIT;
	strbuf_add_termsafe(&safe, text, strlen(text), 0);
	fprintf(stderr, "Warning: %s\n", safe.buf);
	strbuf_release(&safe);
}

static void print_warnings(struct kclient *c, const struct strbuf *values)
{
	if (c->verbose < 0)
		return;	/* -q */
	for (size_t at = 0; at < values->len; at += strlen(values->buf + at) + 1)
		warning_header_each(values->buf + at, print_warning, c);
}

/* One hop of a GET: where it was sent, and whence (Go's Referer), if redirected. */
struct hop {
	const char *url, *referer;
	bool home;		/* the server's own origin: its credential and Host go */
	char *next;		/* out: a redirect's target, to be freed */
};

/*
 * One request and its answer, to url.  on_data NULL: the body goes to
 * resp->body.  A redirect client-go follows sets hop->next.
 */
static int request_hop(struct kclient *c, struct hop *hop, const struct stream_opts *opts,
		       struct credential_snapshot *snap, http_data_fn *on_data, void *ctx,
		       struct http_response *resp, struct errbuf *err)
{
	int ret = -1;
	struct transfer t = {
		.client = c, .resp = resp, .on_data = on_data, .ctx = ctx, .snap = snap,
		.warnings = STRBUF_INIT, .secrets = secrets_url(hop->url),
	};

	response_reset(resp);

	struct curl_slist *headers = request_headers(c, hop->home ? snap : NULL, hop->home,
						     opts->accept);
	if (header_refused(c, headers, err)) {
		wipe_slist(headers);
		return -1;
	}
	struct client_pair own = { STRBUF_INIT, STRBUF_INIT };
	const struct client_pair *pair = request_pair(c, snap, &own, err);
	if (!pair) {
		wipe_slist(headers);
		return -1;
	}
	CURL *h = curl_easy_init();
	if (!h)
		out_of_memory(0);
	setup_handle(c, h, hop->url, t.curl_err, snap, pair, headers, opts->timeout_ms);
	client_pair_release(&own);
	if (hop->referer)
		curl_easy_setopt(h, CURLOPT_REFERER, hop->referer);
	int64_t started = mono_ms();
	CURLcode rc = perform(c, h, &t, opts);

	if (atomic_load(&t.not_http2)) {
		errbuf_set(err, "server '%s' answered over HTTP/1.1, and --http-version 2 "
			   "asks for HTTP/2", c->cfg->server);
	} else if (t.not_json) {
		errbuf_set(err, "server '%s' answered %ld with Content-Type '%s', not JSON",
			   c->cfg->server, resp->status, resp->content_type);
	} else if (t.malformed_header) {
		errbuf_set(err, "server '%s' sent a header line with a control character in it: "
			   "net/http: HTTP/1.x transport connection broken: malformed MIME header "
			   "line, as client-go's Go says", c->cfg->server);
	} else if (t.aborted) {
		/* on_data said stop, even if the last bytes ended the transfer. */
		errbuf_set(err, "aborted");
	} else if (rc == CURLE_OK) {
		long code = 0;
		char *next = NULL;
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		resp->status = code;
		if (redirect_status(code) && curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &next) == CURLE_OK &&
		    next)
			hop->next = xstrdup(next);
		if (status_ok(code) && resp->body.len && !http_json_media_type(resp->content_type))
			/* A whole body (kclient_get) that is not JSON. */
			errbuf_set(err, "server '%s' answered %ld with Content-Type '%s', not JSON",
				   c->cfg->server, code, resp->content_type);
		else
			ret = 0;
	} else if (t.stopped) {
		errbuf_set(err, "stopped");
	} else if (t.stalled) {
		errbuf_set(err, "stalled: nothing from server '%s' for %.1f s",
			   c->cfg->server, (double)opts->idle_timeout_ms / 1000);
	} else if (t.news.conn_dead) {
		errbuf_set(err, "connection to server '%s' went silent, even to a ping "
			   "for %.0f s: closed", c->cfg->server,
			   (double)c->ping_timeout_ms / 1000);
		/* Go's "http2: client connection lost": no EOF, answered or not. */
		resp->no_answer = resp->status == 0;
		resp->stream_broken = true;
		snprintf(resp->stream_error, sizeof(resp->stream_error),
			 "http2: client connection lost");
	} else if (t.news.closed_all) {
		errbuf_set(err, "connection to server '%s' closed: the client certificate "
			   "changed, and client-go closes every connection then", c->cfg->server);
		/* Go's "use of closed network connection": a probable EOF. */
		resp->no_answer = resp->status == 0;
	} else if (t.news.tls_timeout) {
		errbuf_set(err, "TLS handshake with server '%s' timed out: no answer for %d s "
			   "(Go's net/http: TLS handshake timeout)", c->cfg->server,
			   TLS_HANDSHAKE_TIMEOUT_MS / 1000);
		/* A timeout, as Go's error says (net.Error's Timeout()). */
		resp->no_answer = resp->no_answer_timeout = true;
		resp->timed_out = opts->timeout_ms > 0 && mono_ms() - started >= opts->timeout_ms;
	} else {
		bool peer_reset = reset_by_peer(h, t.curl_err);
		resp->refused = rc == CURLE_COULDNT_CONNECT && !peer_reset;
		/* A reset stream, answered or not, is an error no retry takes. */
		bool reset = stream_reset(rc, t.curl_err);
		resp->no_answer = resp->status == 0 && broke_unanswered(rc, t.curl_err, peer_reset) &&
				  !reset;
		resp->no_answer_timeout = resp->no_answer && rc == CURLE_OPERATION_TIMEDOUT;
		resp->stream_broken = resp->status != 0 && reset;
		if (resp->stream_broken)
			stream_error_words(t.curl_err, resp->stream_error,
					   sizeof(resp->stream_error));
		resp->timed_out = rc == CURLE_OPERATION_TIMEDOUT && opts->timeout_ms > 0 &&
				  mono_ms() - started >= opts->timeout_ms;
		transport_error(c, h, rc, &t, err);
	}
	trace_request(c, hop->url, resp, &t, started, ret < 0, err);
	print_warnings(c, &t.warnings);
	strbuf_release(&t.warnings);
	wipe_slist(headers);
	curl_easy_cleanup(h);
	return ret;
}

/* Go's time.Duration.String() of ms: "500ms", "5s", "1.5s", "1m30s", "1h0m0s", "-1s". */
static void go_duration(struct strbuf *sb, int64_t ms)
{
	if (ms < 0) {
		strbuf_addch(sb, '-');
		ms = -ms;
	}
	if (ms < 1000) {
		strbuf_addf(sb, "%lldms", (long long)ms);
		return;
	}
	if (ms >= 3600000)
		strbuf_addf(sb, "%lldh", (long long)(ms / 3600000));
	if (ms >= 60000)
		strbuf_addf(sb, "%lldm", (long long)(ms / 60000 % 60));
	strbuf_addf(sb, "%lld", (long long)(ms / 1000 % 60));
	if (ms % 1000) {
		char frac[8];
		snprintf(frac, sizeof(frac), "%03lld", (long long)(ms % 1000));
		for (size_t n = strlen(frac); n && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		strbuf_addf(sb, ".%s", frac);
	}
	strbuf_addch(sb, 's');
}

/*
 * The request's URL.  With --request-timeout client-go's Request puts
 * "timeout=5s" in every query, among the others in their sorted order
 * (a negative one too: then it sets no limit of its own).
 */
static char *request_url(const struct kclient *c, const char *path, int64_t timeout_ms)
{
	struct strbuf sb = STRBUF_INIT;
	const char *q = strchr(path, '?');

	strbuf_addf(&sb, "%s%s", c->url_base, *path == '/' ? "" : "/");
	if (!timeout_ms) {
		strbuf_adds(&sb, path);
		return strbuf_detach(&sb, NULL);
	}
	const char *at = q ? q + 1 : path + strlen(path);
	/* before the first parameter whose name sorts after "timeout" */
	while (*at) {
		size_t name = strcspn(at, "=&");
		int cmp = strncmp(at, "timeout", name < 7 ? name : 7);
		if (cmp > 0 || (cmp == 0 && name > 7))
			break;
		at += strcspn(at, "&");
		at += *at == '&';
	}
	strbuf_add(&sb, path, (size_t)(at - path));
	if (!q)
		strbuf_addch(&sb, '?');
	else if (at[-1] != '?' && at[-1] != '&')
		strbuf_addch(&sb, '&');
	strbuf_adds(&sb, "timeout=");
	go_duration(&sb, timeout_ms);
	if (*at)
		strbuf_addf(&sb, "&%s", at);
	return strbuf_detach(&sb, NULL);
}

/*
 * One GET, and the redirects Go's http.Client follows: at most 10
 * requests, each to the Location of the answer before.  client-go's
 * round trippers put the credential on each; kinf only on those to the
 * server's own origin, so that a redirect hands no token to another
 * host.  A 401 makes an exec plugin run again for the next request, and
 * is this request's answer: client-go's exec round tripper refreshes on
 * a 401 and hands it back, never retries (credential.h).
 */
static int request_once(struct kclient *c, const char *path, const struct stream_opts *opts,
			http_data_fn *on_data, void *ctx, struct http_response *resp,
			struct errbuf *err)
{
	char *url = request_url(c, path, opts->query_timeout_ms ? opts->query_timeout_ms :
				c->timeout_ms);
	char *referer = NULL;
	struct credential_snapshot snap;
	struct stream_opts hop_opts = *opts;
	int64_t deadline = opts->timeout_ms > 0 ? mono_ms() + opts->timeout_ms : 0;
	int ret;

	struct exec_wait wait = { .stop_fd = opts->stop_fd, .timeout_ms = c->timeout_ms };
	if (credential_get(c->cred, &snap, &wait, err) < 0) {
		free(url);
		return -1;
	}
	if (snap.close_all)
		transport_close_all(c->tp, "the exec plugin's client certificate changed");
	for (unsigned requests = 1;; requests++) {
		struct hop hop = {
			.url = url, .referer = referer, .home = same_origin(url, c->url_base),
		};
		ret = request_hop(c, &hop, &hop_opts, &snap, on_data, ctx, resp, err);
		if (ret < 0 || !hop.next)
			break;
		if (requests == MAX_REDIRECT_REQUESTS) {
			errbuf_set(err, "server '%s' redirected %s %u times: stopped there, as Go does",
				   c->cfg->server, path, requests);
			free(hop.next);
			ret = -1;
			break;
		}
		free(referer);
		/* Go's Referer: the URL before, but never from https to http. */
		referer = !strncmp(url, "https:", 6) && !strncmp(hop.next, "http:", 5) ? NULL : url;
		if (!referer)
			free(url);
		url = hop.next;
		if (deadline)
			hop_opts.timeout_ms = deadline - mono_ms() < 1 ? 1 : deadline - mono_ms();
	}
	free(referer);

	if (ret == 0 && resp->status == 401)
		credential_refresh(c->cred, &snap);
	credential_snapshot_release(&snap);
	if (ret == 0 && (resp->status == 401 || resp->status == 403))
		snprintf(resp->who, sizeof(resp->who), "%s", c->identity);
	free(url);
	return ret;
}

bool http_rest_retriable(const struct http_response *resp)
{
	return resp->status == 429 || (resp->status >= 500 && resp->retry_after_ms >= 0);
}

bool http_no_answer_retriable(const struct http_response *resp, int rc)
{
	return rc < 0 && resp->no_answer && !resp->timed_out;
}

int64_t http_retry_delay_ms(const struct http_response *resp)
{
	return resp->retry_after_ms >= 0 ? resp->retry_after_ms : DEFAULT_RETRY_AFTER_MS;
}

/* Sleeps ms, or less when *opts->stop is set; true when it was. */
static bool retry_sleep(const struct stream_opts *opts, int64_t ms)
{
	int64_t end = mono_ms() + ms;

	for (int64_t left = ms; left > 0; left = end - mono_ms()) {
		if (opts->stop && atomic_load(opts->stop))
			return true;
		struct pollfd pfd = { .fd = opts->stop_fd > 0 ? opts->stop_fd : -1, .events = POLLIN };
		int slice = opts->stop_fd > 0 || !opts->stop ? (int)left
			    : (int)(left < STOP_CHECK_MS ? left : STOP_CHECK_MS);
		if (poll(&pfd, 1, slice) > 0)
			return true;
	}
	return opts->stop && atomic_load(opts->stop);
}

/* kclient_set_thread_stop()'s, for requests that bring no stop of their own. */
static _Thread_local struct stop *thread_stop;

void kclient_set_thread_stop(struct stop *stop)
{
	thread_stop = stop;
}

/* ---- client-side throttling ------------------------------------------- */

/*
 * client-go's rest.DefaultQPS and DefaultBurst; the waits it logs at V(3)
 * and, once in 10 s for the whole process, at every verbosity.
 */
#define REST_QPS 5
#define REST_BURST 10
#define LONG_THROTTLE_MS 50
#define EXTRA_LONG_THROTTLE_MS 1000
#define THROTTLE_TOLD_EVERY_MS 10000

struct rest_limiter {
	pthread_mutex_t lock;
	struct token_bucket bucket;
};

struct rest_limiter *rest_limiter_new(void)
{
	struct rest_limiter *l = xcalloc(1, sizeof(*l));

	pthread_mutex_init(&l->lock, NULL);
	l->bucket = (struct token_bucket)TOKEN_BUCKET_INIT(REST_QPS, REST_BURST);
	return l;
}

void rest_limiter_free(struct rest_limiter *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void rest_limiter_refill(struct rest_limiter *l)
{
	pthread_mutex_lock(&l->lock);
	l->bucket.started = false;
	pthread_mutex_unlock(&l->lock);
}

/*
 * A wait over 50 ms, as client-go's tryThrottle logs it: with -v each one,
 * as its V(3); else one over a second, at most once in 10 s (its
 * globalThrottledLogger, whose level 0 every klog shows), but for -q.
 */
static void throttle_tell(struct kclient *c, int64_t wait, const char *path)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int64_t told_ms = INT64_MIN / 2;

	if (c->verbose < 0)
		return;
	if (c->verbose >= 1) {
		kclient_note(c, "waited %lld ms before sending %s: client-side throttling, "
			     "as client-go's", (long long)wait, path);
		return;
	}
	if (wait <= EXTRA_LONG_THROTTLE_MS)
		return;
	int64_t now = mono_ms();
	pthread_mutex_lock(&lock);
	bool tell = now - told_ms >= THROTTLE_TOLD_EVERY_MS;
	if (tell)
		told_ms = now;
	pthread_mutex_unlock(&lock);
	if (tell) {
		struct strbuf d = STRBUF_INIT;
		go_duration(&d, wait);
		fprintf(stderr, "kinf: waited %s before sending %s: client-side throttling, "
			"as client-go's (at most one such notice in 10s)\n", d.buf, path);
		strbuf_release(&d);
	}
}

/*
 * rest.Request's tryThrottle: 0 when the try may be sent, 1 when stopped
 * while waiting; -1 with err set when the wait would pass deadline (0:
 * none), where rate.Limiter.Wait fails at once and spends no token.
 */
static int throttle(struct kclient *c, const struct stream_opts *opts, const char *path,
		    int64_t deadline, struct errbuf *err)
{
	struct rest_limiter *l = opts->limiter;
	int64_t now = mono_ms();
	int64_t within = !deadline ? -1 : deadline > now ? deadline - now : 0;

	pthread_mutex_lock(&l->lock);
	int64_t wait = token_bucket_take(&l->bucket, now, within);
	pthread_mutex_unlock(&l->lock);
	if (wait < 0) {
		errbuf_set(err, "client rate limiter Wait returned an error: rate: Wait(n=1) "
			   "would exceed context deadline");
		return -1;
	}
	if (wait > LONG_THROTTLE_MS)
		throttle_tell(c, wait, path);
	return wait > 0 && retry_sleep(opts, wait);
}

static bool watch_path(const char *path)
{
	enum request_kind kind = request_kind_of(path);
	return kind == REQUEST_WATCH || kind == REQUEST_STREAMING_LIST;
}

/*
 * The libcurl backend's kclient_stream(): request_once() and the REST
 * client's retries (opts->retries), all within opts->timeout_ms, each
 * try throttled as rest_limiter_new() says.
 */
/* The request timeout's error; the try before's words, if any, after it, as Go's. */
static void timed_out(const struct kclient *c, const struct stream_opts *opts,
		      const char *before, struct errbuf *err)
{
	struct strbuf limit = STRBUF_INIT;
	char last[sizeof(err->msg)];

	snprintf(last, sizeof(last), "%s", before ? before : "");
	go_duration(&limit, opts->timeout_ms);
	errbuf_set(err, "no complete answer from server '%s' within the request timeout of %s%s%s%s",
		   c->cfg->server, limit.buf, *last ? " (the try before: " : "", last,
		   *last ? ")" : "");
	strbuf_release(&limit);
}

static int request(struct kclient *c, const char *path, const struct stream_opts *opts,
		   http_data_fn *on_data, void *ctx, struct http_response *resp,
		   struct errbuf *err)
{
	struct stream_opts once = *opts;

	if (!once.stop && thread_stop) {
		once.stop = &thread_stop->flag;
		once.stop_fd = stop_fd(thread_stop);
	}
	if (once.limiter && (once.retry || !watch_path(path)) && throttle(c, &once, path, 0, err)) {
		errbuf_set(err, "stopped");
		return -1;
	}
	int64_t deadline = opts->timeout_ms > 0 ? mono_ms() + opts->timeout_ms : 0;

	for (unsigned retries = 0;; retries++) {
		if (deadline) {
			once.timeout_ms = deadline - mono_ms();
			if (once.timeout_ms < 1)
				once.timeout_ms = 1;
		}
		int rc = request_once(c, path, &once, on_data, ctx, resp, err);
		if (rc < 0 && resp->timed_out)
			timed_out(c, opts, NULL, err);
		bool unanswered = http_no_answer_retriable(resp, rc) && !resp->no_answer_timeout;
		if ((rc < 0 && !unanswered) || retries >= opts->retries ||
		    (!unanswered && !http_rest_retriable(resp)))
			return rc;
		int64_t wait = unanswered ? HTTP_NO_ANSWER_RETRY_MS : http_retry_delay_ms(resp);
		if (deadline && mono_ms() + wait >= deadline) {
			/*
			 * client-go (from 1.33) sleeps to the deadline, and the
			 * retry's rate limiter then refuses: a timeout, not the
			 * answer in hand (a try unanswered is named, as Go's
			 * "error from a previous attempt").
			 */
			if (retry_sleep(&once, deadline - mono_ms()))
				return rc;
			response_reset(resp);
			resp->timed_out = true;
			timed_out(c, opts, unanswered ? err->msg : NULL, err);
			return -1;
		}
		if (unanswered)
			kclient_note(c, "retrying %s after %lld ms (no answer: %s; retry %u of %u)",
				     path, (long long)wait, err->msg, retries + 1, opts->retries);
		else
			kclient_note(c, "retrying %s after %lld ms (%ld, retry %u of %u)", path,
				     (long long)wait, resp->status, retries + 1, opts->retries);
		int throttled = retry_sleep(&once, wait) ? 1
				: once.limiter ? throttle(c, &once, path, deadline, err) : 0;
		if (throttled > 0)
			return rc;	/* stopped: the answer in hand */
		if (throttled < 0) {
			response_reset(resp);
			return -1;
		}
	}
}

static int live_get(struct kclient *c, const char *path, const char *accept,
		    int64_t within_ms, struct rest_limiter *limiter,
		    struct http_response *resp, struct errbuf *err)
{
	int64_t limit = c->timeout_ms ? c->timeout_ms : within_ms;
	struct stream_opts opts = {
		.idle_timeout_ms = GET_IDLE_TIMEOUT_MS,
		.timeout_ms = limit,
		.query_timeout_ms = limit,
		.retries = HTTP_MAX_RETRIES,
		.accept = accept,
		.limiter = limiter,
	};
	return request(c, path, &opts, NULL, NULL, resp, err);
}

/* libcurl against the server. */
static const struct kclient_ops live_ops = {
	.stream = request,
	.get = live_get,
	.release = live_release,
};

/* ---- every backend ------------------------------------------------------ */

struct kclient *kclient_new_backend(const struct kclient_ops *ops, void *data,
				    const char *what)
{
	struct kclient *c = xcalloc(1, sizeof(*c));

	c->ops = ops;
	c->backend = data;
	c->cfg = xcalloc(1, sizeof(*c->cfg));
	c->cfg->server = xstrdup(what);
	return c;
}

void *kclient_backend_data(const struct kclient *c)
{
	return c->backend;
}

int kclient_get_accept(struct kclient *c, const char *path, const char *accept,
		       int64_t within_ms, struct rest_limiter *limiter,
		       struct http_response *resp, struct errbuf *err)
{
	return c->ops->get(c, path, accept, within_ms, limiter, resp, err);
}

int kclient_get(struct kclient *c, const char *path, struct http_response *resp,
		struct errbuf *err)
{
	return kclient_get_accept(c, path, NULL, 0, NULL, resp, err);
}

/* A tapped stream's pieces: to the tap, then to the caller. */
struct stream_tap {
	struct kclient *client;
	unsigned x;
	bool head_seen;
	struct http_response *resp;
	http_data_fn *on_data;
	void *ctx;
};

static void tap_head(struct stream_tap *st)
{
	st->client->tap->head(st->client->tap_ctx, st->x, st->resp);
	st->head_seen = true;
}

static int tap_data(void *ctx, const char *data, size_t len)
{
	struct stream_tap *st = ctx;

	if (!st->head_seen)
		tap_head(st);
	st->client->tap->data(st->client->tap_ctx, st->x, data, len);
	return st->on_data(st->ctx, data, len);
}

int kclient_stream(struct kclient *c, const char *path, const struct stream_opts *opts,
		   http_data_fn *on_data, void *ctx, struct http_response *resp,
		   struct errbuf *err)
{
	if (!c->tap || !opts->record_as)
		return c->ops->stream(c, path, opts, on_data, ctx, resp, err);

	const struct kclient_tap *tap = c->tap;
	struct stream_tap st = {
		.client = c, .resp = resp, .on_data = on_data, .ctx = ctx,
	};
	st.x = tap->begin(c->tap_ctx, opts->record_as, path);
	if (opts->tap_x)
		*opts->tap_x = st.x;
	int rc = c->ops->stream(c, path, opts, tap_data, &st, resp, err);
	if (!st.head_seen && (resp->status || rc == 0))
		tap_head(&st);
	if (resp->body.len)	/* a non-2xx answer's body, gathered */
		tap->data(c->tap_ctx, st.x, resp->body.buf, resp->body.len);
	tap->end(c->tap_ctx, st.x, rc, err->msg, resp,
		 rc < 0 && opts->stop && atomic_load(opts->stop));
	return rc;
}

void kclient_set_tap(struct kclient *c, const struct kclient_tap *tap, void *ctx)
{
	c->tap = tap;
	c->tap_ctx = ctx;
}

int64_t kclient_now_ms(const struct kclient *c)
{
	return c->ops->now_ms ? c->ops->now_ms(c) : mono_ms();
}

bool kclient_sleep(struct kclient *c, struct stop *stop, int64_t ms)
{
	return c->ops->sleep ? c->ops->sleep(c, stop, ms) : stop_sleep(stop, ms);
}

void kclient_mark(struct kclient *c, const char *stream, uint64_t pops)
{
	if (c->tap && c->tap->mark)
		c->tap->mark(c->tap_ctx, stream, pops);
}

int64_t kclient_next_mark(struct kclient *c, const char *stream, bool *last)
{
	*last = false;
	return c->ops->next_mark ? c->ops->next_mark(c, stream, last) : -1;
}

/* ---- messages ----------------------------------------------------------- */

/* A string member of a Status object body (a non-empty one), or NULL. */
char *http_status_member(const struct http_response *resp, const char *name)
{
	if (!resp->body.len)
		return NULL;
	json_object *root = json_parse_deep(resp->body.buf);
	const char *v = json_get_text(root, name, "");
	char *value = NULL;
	if (!strcmp(json_get_text(root, "kind", ""), "Status") && *v)
		value = xstrdup(v);
	json_object_put(root);
	return value;
}

bool http_status_reason_is(const struct http_response *resp, const char *reason)
{
	char *r = http_status_member(resp, "reason");
	bool yes = r && !strcmp(r, reason);

	free(r);
	return yes;
}

/* metav1's StatusReasons that apimachinery knows (errors.go knownReasons) */
static const char *const known_reasons[] = {
	"Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict", "Gone",
	"Invalid", "ServerTimeout", "StoreReadError", "Timeout", "TooManyRequests",
	"BadRequest", "MethodNotAllowed", "NotAcceptable", "RequestEntityTooLarge",
	"UnsupportedMediaType", "InternalError", "Expired", "ServiceUnavailable",
};

static bool known_reason(const char *reason)
{
	for (size_t i = 0; i < ARRAY_SIZE(known_reasons); i++)
		if (!strcmp(reason, known_reasons[i]))
			return true;
	return false;
}

/* errors.go's IsX of an error with this reason and code */
static bool api_error_is(const char *reason, long long code, enum api_error what)
{
	switch (what) {
	case API_NOT_FOUND:
		return !strcmp(reason, "NotFound") || (!known_reason(reason) && code == 404);
	case API_EXPIRED:	/* IsResourceExpired || IsGone */
		return !strcmp(reason, "Expired") || !strcmp(reason, "Gone") ||
		       (!known_reason(reason) && code == 410);
	case API_TOO_MANY_REQUESTS:	/* the code whatever the reason, as it always did */
		return !strcmp(reason, "TooManyRequests") || code == 429;
	}
	return false;
}

bool http_status_is(struct json_object *status, enum api_error what)
{
	return api_error_is(json_get_str(status, "reason", ""),
			    json_get_int(json_get(status, "code")), what);
}

bool http_answer_is(const struct http_response *resp, enum api_error what)
{
	if (resp->status >= 200 && resp->status <= 299)
		return false;

	json_object *root = resp->body.len ? json_parse_deep(resp->body.buf) : NULL;
	bool yes = http_code_is(resp, what);

	if (!strcmp(json_get_text(root, "kind", ""), "Status") &&
	    !strcmp(json_get_str(root, "status", ""), "Failure"))
		yes = http_status_is(root, what);
	json_object_put(root);
	return yes;
}

bool http_code_is(const struct http_response *resp, enum api_error what)
{
	return (resp->status < 200 || resp->status > 299) && api_error_is("", resp->status, what);
}

void http_status_message(const struct http_response *resp, const char *what,
			 struct errbuf *err)
{
	char *msg = http_status_member(resp, "message");
	const char *reason = reason_phrase(resp->status);

	if (!what)
		what = "request";
	if (resp->status == 401) {
		/* "Unauthorized" alone does not say whose credentials failed. */
		errbuf_set(err, "%s: 401 Unauthorized: the server rejected the credentials "
			   "of %s", what, resp->who[0] ? resp->who : "this user");
	} else if (msg) {
		errbuf_set(err, "%s: %s (%ld)", what, msg, resp->status);
	} else if (resp->status == 403) {
		errbuf_set(err, "%s: 403 Forbidden for %s", what,
			   resp->who[0] ? resp->who : "this user");
	} else {
		errbuf_set(err, "%s: HTTP %ld%s%s", what, resp->status, *reason ? " " : "",
			   reason);
	}
	free(msg);
}

void url_query_escape(struct strbuf *sb, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)s; p < (const unsigned char *)s + len; p++) {
		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~') {
			strbuf_addch(sb, (char)*p);
		} else if (*p == ' ') {
			strbuf_addch(sb, '+');
		} else {
			char q[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			strbuf_add(sb, q, 3);
		}
	}
}

void url_path_escape(struct strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (isalnum(*p) || strchr("-._~$&+,:;=@", *p))
			strbuf_addch(sb, (char)*p);
		else
			strbuf_addf(sb, "%%%02X", *p);
}

const char *url_segment_refused(const char *s)
{
	bool slash = strchr(s, '/'), percent = strchr(s, '%');

	if (!strcmp(s, "."))
		return "[may not be '.']";
	if (!strcmp(s, ".."))
		return "[may not be '..']";
	if (slash && percent)
		return "[may not contain '/' may not contain '%']";
	if (slash)
		return "[may not contain '/']";
	return percent ? "[may not contain '%']" : NULL;
}

void url_query_add(struct strbuf *q, const char *name, const char *value)
{
	strbuf_addch(q, q->len ? '&' : '?');
	strbuf_adds(q, name);
	strbuf_addch(q, '=');
	url_query_escape(q, value, strlen(value));
}

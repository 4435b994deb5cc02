/*
 * http.c — requests to the apiserver over libcurl; see http.h.
 *
 * DESIGN (threads): any thread may call kclient_get()/kclient_stream().
 * Each transfer runs on a handle pair (an easy handle in its own multi
 * handle) taken from the client's pool of idle pairs (pool_lock) and given
 * back afterwards, so a reflector's next LIST or WATCH finds the
 * connection its last one left open in that multi handle's cache.  A pair
 * is used by one thread at a time.  The CURLSH shares the DNS and TLS
 * session caches under one mutex per curl_lock_data.  It does not share
 * the connection cache: libcurl does not support that across concurrent
 * threads — the pool is what keeps connections warm.  Credentials live in
 * struct credential, which has its own lock.
 *
 * Why a multi handle for one transfer: curl_easy_perform() waits up to a
 * second between progress callbacks, so a stop request would take that
 * long.  curl_multi_poll() instead also sleeps on the caller's stop fd,
 * and no longer than until the stall deadline: a quiet watch costs no
 * wake-ups at all, and a stop or a stall is noticed at once.
 */
#include "cluster/http.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/credential.h"
#include "cluster/kubeconfig.h"

/* --request-timeout's default, as `kinf --help` says. */
#define CONNECT_TIMEOUT_MS 10000L
/* A dead peer is noticed by TCP keepalive after about a minute, as in Go. */
#define KEEPALIVE_IDLE_S 30L
#define KEEPALIVE_INTERVAL_S 15L
/* -v -v: how much of each piece of a body to show. */
#define TRACE_BODY_MAX 1024
/* kclient_get: a response that sends nothing for this long is dead. */
#define GET_IDLE_TIMEOUT_MS 60000
/* An error body is for a message, not to be stored whole. */
#define MAX_ERROR_BODY (1 << 20)
#define MAX_IDLE_HANDLES 16
/* How often a transfer looks at its stop flag and its silence. */
/* Without a stop fd, how often a quiet transfer looks at the stop flag. */
#define STOP_CHECK_MS 1000
/* The longest sleep when nothing else bounds it (libcurl's own timers,
 * e.g. the transfer timeout, wake it sooner). */
#define MAX_WAIT_MS 60000

/* An easy handle and the multi handle that drives it (and caches its connections). */
struct handle {
	CURL *easy;
	CURLM *multi;
};

struct kclient {
	struct rest_config *cfg;	/* our copy */
	struct credential *cred;
	char *url_base;		/* scheme://host:port/prefix, no trailing '/' */
	/* tls-server-name: "name:port:host:port"; read-only, shared by handles. */
	struct curl_slist *connect_to;
	char *host_header;	/* tls-server-name: "Host: host:port" */
	char *identity;		/* "user 'admin' (bearer token)" */
	int verbose;
	/* kclient_get's whole-request limit, and a cap on connecting; 0: none. */
	int64_t timeout_ms;
	/* Without proxy-url: NO_PROXY plus loopback (see env_no_proxy). */
	char *no_proxy;

	CURLSH *share;
	pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];

	pthread_mutex_t pool_lock;
	struct handle idle[MAX_IDLE_HANDLES];
	size_t nr_idle;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;

/*
 * Go's proxy-from-environment, which kubectl uses, never sends localhost
 * or a loopback address through HTTPS_PROXY; libcurl would.  So loopback
 * joins whatever NO_PROXY says (a local kind or minikube cluster is then
 * reached directly, as by kubectl).
 */
static char *env_no_proxy(void)
{
	const char *env = getenv("NO_PROXY");
	if (!env || !*env)
		env = getenv("no_proxy");
	if (env && !strcmp(env, "*"))
		return xstrdup("*");
	return xasprintf("%s%slocalhost,127.0.0.0/8,::1", env && *env ? env : "",
			 env && *env ? "," : "");
}

static void global_init(void)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		die("cannot initialize libcurl");
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
		die("out of memory");
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
			die("out of memory");
		c->host_header = xasprintf("Host: %s:%s", host, port);
	} else {
		c->url_base = xstrdup(cfg->server);
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

struct kclient *kclient_new(const struct rest_config *cfg, struct errbuf *err)
{
	pthread_once(&global_once, global_init);

	struct kclient *c = xcalloc(1, sizeof(*c));
	c->cfg = rest_config_dup(cfg);
	if (server_url_setup(c, err) < 0) {
		rest_config_free(c->cfg);
		curl_slist_free_all(c->connect_to);
		free(c->url_base);
		free(c->host_header);
		free(c);
		return NULL;
	}
	c->cred = credential_new(c->cfg);
	c->identity = rest_config_identity(c->cfg);
	if (!c->cfg->proxy_url)
		c->no_proxy = env_no_proxy();
	pthread_mutex_init(&c->pool_lock, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(c->share_locks); i++)
		pthread_mutex_init(&c->share_locks[i], NULL);
	c->share = curl_share_init();
	if (!c->share)
		die("out of memory");
	curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock_cb);
	curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock_cb);
	curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
	curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	return c;
}

void kclient_free(struct kclient *c)
{
	if (!c)
		return;
	/* Handles first: they hold the share. */
	for (size_t i = 0; i < c->nr_idle; i++) {
		curl_multi_cleanup(c->idle[i].multi);
		curl_easy_cleanup(c->idle[i].easy);
	}
	curl_share_cleanup(c->share);
	for (size_t i = 0; i < ARRAY_SIZE(c->share_locks); i++)
		pthread_mutex_destroy(&c->share_locks[i]);
	pthread_mutex_destroy(&c->pool_lock);
	credential_free(c->cred);
	free(c->url_base);
	curl_slist_free_all(c->connect_to);
	free(c->host_header);
	free(c->identity);
	free(c->no_proxy);
	rest_config_free(c->cfg);
	free(c);
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

void http_response_release(struct http_response *resp)
{
	strbuf_release(&resp->body);
}

static struct handle handle_take(struct kclient *c)
{
	struct handle h = { NULL, NULL };
	pthread_mutex_lock(&c->pool_lock);
	if (c->nr_idle)
		h = c->idle[--c->nr_idle];
	pthread_mutex_unlock(&c->pool_lock);
	if (h.easy) {
		/* Options go; the connection cache (the multi's) stays: the point of the pool. */
		curl_easy_reset(h.easy);
		return h;
	}
	h.easy = curl_easy_init();
	h.multi = curl_multi_init();
	if (!h.easy || !h.multi)
		die("out of memory");
	return h;
}

static void handle_give_back(struct kclient *c, struct handle h)
{
	pthread_mutex_lock(&c->pool_lock);
	if (c->nr_idle < MAX_IDLE_HANDLES) {
		c->idle[c->nr_idle++] = h;
		h.easy = NULL;
	}
	pthread_mutex_unlock(&c->pool_lock);
	if (h.easy) {
		curl_multi_cleanup(h.multi);
		curl_easy_cleanup(h.easy);
	}
}

/* ---- one transfer ------------------------------------------------------- */

struct transfer {
	struct kclient *client;
	struct http_response *resp;
	http_data_fn *on_data;	/* NULL: everything into resp->body */
	void *ctx;
	atomic_bool *stop;
	int stop_fd;		/* > 0: readable once *stop is set */
	int64_t idle_ms;
	int64_t last_byte_ms;
	int64_t (*tick)(void *tick_ctx);
	void *tick_ctx;
	int64_t tick_ms, next_tick_ms;
	bool stopped, stalled, aborted;
	char curl_err[CURL_ERROR_SIZE];
};

static bool status_ok(long status)
{
	return status >= 200 && status <= 299;
}

static void parse_retry_after(struct http_response *resp, const char *v)
{
	char *end;
	long secs = strtol(v, &end, 10);
	if (end != v && (!*end || isspace((unsigned char)*end))) {
		resp->retry_after_ms = secs < 0 ? 0 : (int64_t)secs * 1000;
		return;
	}
	time_t when = curl_getdate(v, NULL);
	if (when != -1) {
		int64_t ms = (int64_t)when * 1000 - wall_ms();
		resp->retry_after_ms = ms < 0 ? 0 : ms;
	}
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

static size_t header_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	struct transfer *t = userp;
	size_t len = size * nmemb;
	char line[1024];
	size_t n = len < sizeof(line) - 1 ? len : sizeof(line) - 1;

	t->last_byte_ms = mono_ms();
	memcpy(line, data, n);
	while (n && (line[n - 1] == '\r' || line[n - 1] == '\n'))
		n--;
	line[n] = '\0';

	const char *v;
	if (!strncmp(line, "HTTP/", 5)) {
		/* A new response (after a proxy's CONNECT, say): start over. */
		const char *sp = strchr(line, ' ');
		t->resp->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		t->resp->retry_after_ms = -1;
		t->resp->content_type[0] = '\0';
	} else if ((v = header_value(line, "Retry-After"))) {
		parse_retry_after(t->resp, v);
	} else if ((v = header_value(line, "Content-Type"))) {
		snprintf(t->resp->content_type, sizeof(t->resp->content_type), "%s", v);
	}
	return len;
}

/* -v -v: each piece of a body as it arrives, decoded, cut short. */
static void trace_body(const char *data, size_t len)
{
	flockfile(stderr);
	fprintf(stderr, "< [%zu bytes] %.*s%s\n", len,
		(int)(len < TRACE_BODY_MAX ? len : TRACE_BODY_MAX), data,
		len > TRACE_BODY_MAX ? " ..." : "");
	funlockfile(stderr);
}

static size_t write_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	struct transfer *t = userp;
	size_t len = size * nmemb;

	t->last_byte_ms = mono_ms();
	if (t->client->verbose >= 2)
		trace_body(data, len);
	if (t->on_data && status_ok(t->resp->status)) {
		if (t->on_data(t->ctx, data, len) < 0) {
			t->aborted = true;
			return 0;	/* CURLE_WRITE_ERROR */
		}
		return len;
	}
	if (t->on_data && t->resp->body.len + len > MAX_ERROR_BODY)
		return len;	/* enough for a message */
	strbuf_add(&t->resp->body, data, len);
	return len;
}

static bool transfer_should_end(struct transfer *t)
{
	if (t->stop && atomic_load(t->stop))
		t->stopped = true;
	else if (t->idle_ms && mono_ms() - t->last_byte_ms > t->idle_ms)
		t->stalled = true;
	return t->stopped || t->stalled;
}

/* Inside libcurl's loop: ends a transfer at once while data flows. */
static int xferinfo_cb(void *userp, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	return transfer_should_end(userp) ? 1 : 0;
}

/* -v -v: the headers, with every credential replaced, and the bodies. */
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
		if (shown) {
			const char *colon = memchr(p, ':', shown);
			size_t name_len = colon ? (size_t)(colon - p) : 0;
			bool secret = (name_len == 13 && !strncasecmp(p, "Authorization", 13)) ||
				      (name_len == 19 && !strncasecmp(p, "Proxy-Authorization", 19));
			if (secret)
				fprintf(stderr, "%s%.*s: <redacted>\n", prefix, (int)name_len, p);
			else
				fprintf(stderr, "%s%.*s\n", prefix, (int)shown, p);
		}
		p += n + (nl ? 1 : 0);
	}
	funlockfile(stderr);
	return 0;
}

static struct curl_slist *request_headers(struct kclient *c, const struct credential_snapshot *snap)
{
	struct curl_slist *h = NULL;
	h = curl_slist_append(h, "Accept: application/json");
	if (snap->authorization) {
		char *a = xasprintf("Authorization: %s", snap->authorization);
		h = curl_slist_append(h, a);
		memset(a, 0, strlen(a));
		free(a);
	}
	if (c->host_header)
		h = curl_slist_append(h, c->host_header);
	if (c->cfg->impersonate_user) {
		char *v = xasprintf("Impersonate-User: %s", c->cfg->impersonate_user);
		h = curl_slist_append(h, v);
		free(v);
	}
	if (c->cfg->impersonate_uid) {
		char *v = xasprintf("Impersonate-Uid: %s", c->cfg->impersonate_uid);
		h = curl_slist_append(h, v);
		free(v);
	}
	for (char **g = c->cfg->impersonate_groups; *g; g++) {
		char *v = xasprintf("Impersonate-Group: %s", *g);
		h = curl_slist_append(h, v);
		free(v);
	}
	if (!h)
		die("out of memory");
	return h;
}

static void wipe_slist(struct curl_slist *h)
{
	for (struct curl_slist *p = h; p; p = p->next)
		memset(p->data, 0, strlen(p->data));
	curl_slist_free_all(h);
}

static void setup_handle(struct kclient *c, CURL *h, const char *url, struct transfer *t,
			 const struct credential_snapshot *snap, struct curl_slist *headers,
			 int64_t timeout_ms)
{
	const struct rest_config *cfg = c->cfg;

	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_SHARE, c->share);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kinf/" KINF_VERSION);
	if (!cfg->disable_compression)
		curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->curl_err);
	long connect_ms = CONNECT_TIMEOUT_MS;
	if (c->timeout_ms > 0 && c->timeout_ms < connect_ms)
		connect_ms = (long)c->timeout_ms;
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	if (timeout_ms > 0)
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, KEEPALIVE_IDLE_S);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, KEEPALIVE_INTERVAL_S);

	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, t);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, xferinfo_cb);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, t);
	if (c->verbose >= 2) {
		curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, debug_cb);
		curl_easy_setopt(h, CURLOPT_DEBUGDATA, c);
		curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
	}

	if (c->connect_to)
		curl_easy_setopt(h, CURLOPT_CONNECT_TO, c->connect_to);
	if (cfg->proxy_url) {
		curl_easy_setopt(h, CURLOPT_PROXY, cfg->proxy_url);
		/* proxy-url is for every request, NO_PROXY or not, as in kubectl. */
		curl_easy_setopt(h, CURLOPT_NOPROXY, "");
	} else {
		curl_easy_setopt(h, CURLOPT_NOPROXY, c->no_proxy);
	}

	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, cfg->insecure ? 0L : 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, cfg->insecure ? 0L : 2L);
	if (cfg->ca.len) {
		struct curl_blob ca = { cfg->ca.data, cfg->ca.len, CURL_BLOB_COPY };
		/* Only the kubeconfig's CA, as kubectl trusts only it. */
		curl_easy_setopt(h, CURLOPT_CAINFO, NULL);
		curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
		curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
	}
	const struct blob *cert = snap->cert.len ? &snap->cert : &cfg->client_cert;
	const struct blob *key = snap->cert.len ? &snap->key : &cfg->client_key;
	if (cert->len && key->len) {
		struct curl_blob cb = { cert->data, cert->len, CURL_BLOB_COPY };
		struct curl_blob kb = { key->data, key->len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cb);
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &kb);
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	}
}

/* ---- transport errors, said so a person can act --------------------------- */

/* proxy-url for a message: without its user and password, if it has any. */
static char *proxy_for_message(const char *url)
{
	const char *sep = strstr(url, "://");
	const char *auth = sep ? sep + 3 : url;
	size_t auth_len = strcspn(auth, "/?#");
	const char *at = NULL;
	for (const char *p = auth; p < auth + auth_len; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return xstrdup(url);
	return xasprintf("%.*s%s", (int)(auth - url), url, at + 1);
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

static void transport_error(struct kclient *c, CURL *h, CURLcode rc, struct transfer *t,
			    struct errbuf *err)
{
	const char *what = "request to server '%s' failed";
	enum error_detail detail = DETAIL_CURL;
	bool ca = false, client_cert = false;
	char head[256], detail_buf[CURL_ERROR_SIZE + 64], tail[384] = "";

	for (size_t i = 0; i < ARRAY_SIZE(transport_errors); i++) {
		if (transport_errors[i].code != rc)
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
	if (detail == DETAIL_ERRNO && os_errno)
		snprintf(detail_buf, sizeof(detail_buf), "%s", strerror((int)os_errno));
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

static void trace_request(struct kclient *c, const char *url, const struct http_response *resp,
			  int64_t started, int failed)
{
	if (c->verbose < 1)
		return;
	if (failed)
		fprintf(stderr, "GET %s failed in %lld ms\n", url,
			(long long)(mono_ms() - started));
	else
		fprintf(stderr, "GET %s %ld %s in %lld ms\n", url, resp->status,
			reason_phrase(resp->status), (long long)(mono_ms() - started));
}

/* How long perform() may sleep: until the stall deadline, at most. */
static int wait_ms(const struct transfer *t)
{
	int64_t wait = t->stop_fd > 0 ? MAX_WAIT_MS : STOP_CHECK_MS;
	if (t->idle_ms) {
		int64_t left = t->last_byte_ms + t->idle_ms - mono_ms() + 1;
		if (left < wait)
			wait = left < 0 ? 0 : left;
	}
	if (t->tick) {
		int64_t left = t->next_tick_ms - mono_ms();
		if (left < wait)
			wait = left < 0 ? 0 : left;
	}
	return (int)wait;
}

/* curl_easy_perform(), but waking for a stop request or a stall. */
static CURLcode perform(struct handle h, struct transfer *t)
{
	CURLcode rc = CURLE_OK;
	int running = 1;
	struct curl_waitfd stop_wait = { .fd = t->stop_fd, .events = CURL_WAIT_POLLIN };
	unsigned nr_extra = t->stop_fd > 0 ? 1 : 0;

	if (curl_multi_add_handle(h.multi, h.easy) != CURLM_OK)
		die("cannot start a transfer (libcurl multi handle)");
	while (running) {
		if (curl_multi_perform(h.multi, &running) != CURLM_OK) {
			rc = CURLE_OUT_OF_MEMORY;
			break;
		}
		if (!running)
			break;
		if (transfer_should_end(t)) {
			rc = CURLE_ABORTED_BY_CALLBACK;
			break;
		}
		if (t->tick && mono_ms() >= t->next_tick_ms) {
			int64_t next = t->tick(t->tick_ctx);
			if (next < 0) {
				t->aborted = true;
				rc = CURLE_ABORTED_BY_CALLBACK;
				break;
			}
			t->next_tick_ms = mono_ms() + (next > 0 ? next : 1);
		}
		if (curl_multi_poll(h.multi, nr_extra ? &stop_wait : NULL, nr_extra,
				    wait_ms(t), NULL) != CURLM_OK) {
			rc = CURLE_OUT_OF_MEMORY;
			break;
		}
	}
	if (!running) {
		int left;
		CURLMsg *msg;
		while ((msg = curl_multi_info_read(h.multi, &left)))
			if (msg->msg == CURLMSG_DONE && msg->easy_handle == h.easy)
				rc = msg->data.result;
	}
	/* Mid-transfer, this closes the connection: what a stop means. */
	curl_multi_remove_handle(h.multi, h.easy);
	return rc;
}

/*
 * One GET with its 401 retry.  on_data NULL: the body goes to resp->body.
 */
static int request(struct kclient *c, const char *path, const struct stream_opts *opts,
		   http_data_fn *on_data, void *ctx, struct http_response *resp,
		   struct errbuf *err)
{
	char *url = xasprintf("%s%s%s", c->url_base, *path == '/' ? "" : "/", path);
	int ret = -1;

	for (int attempt = 0;; attempt++) {
		struct credential_snapshot snap;
		struct transfer t = {
			.client = c, .resp = resp, .on_data = on_data, .ctx = ctx,
			.stop = opts->stop, .stop_fd = opts->stop_fd,
			.idle_ms = opts->idle_timeout_ms,
			.tick = opts->tick_ms > 0 ? opts->tick : NULL,
			.tick_ctx = opts->tick_ctx,
			.tick_ms = opts->tick_ms,
			.next_tick_ms = mono_ms() + opts->tick_ms,
		};

		strbuf_reset(&resp->body);
		resp->refused = false;
		resp->status = 0;
		resp->retry_after_ms = -1;
		resp->content_type[0] = '\0';
		resp->who[0] = '\0';
		if (credential_get(c->cred, &snap, err) < 0)
			break;

		struct handle h = handle_take(c);
		struct curl_slist *headers = request_headers(c, &snap);
		setup_handle(c, h.easy, url, &t, &snap, headers, opts->timeout_ms);
		int64_t started = mono_ms();
		t.last_byte_ms = started;
		CURLcode rc = perform(h, &t);

		if (rc == CURLE_OK) {
			long code = 0;
			curl_easy_getinfo(h.easy, CURLINFO_RESPONSE_CODE, &code);
			resp->status = code;
		}
		trace_request(c, url, resp, started, rc != CURLE_OK);
		if (rc == CURLE_OK) {
			ret = 0;
		} else if (t.aborted) {
			errbuf_set(err, "aborted");
		} else if (t.stopped) {
			errbuf_set(err, "stopped");
		} else if (t.stalled) {
			errbuf_set(err, "stalled: nothing from server '%s' for %.1f s",
				   c->cfg->server, (double)opts->idle_timeout_ms / 1000);
		} else {
			resp->refused = rc == CURLE_COULDNT_CONNECT;
			transport_error(c, h.easy, rc, &t, err);
		}
		wipe_slist(headers);
		handle_give_back(c, h);

		bool retry = ret == 0 && resp->status == 401 && attempt == 0 &&
			     credential_refresh(c->cred, &snap);
		credential_snapshot_release(&snap);
		if (!retry)
			break;
	}
	if (ret == 0 && (resp->status == 401 || resp->status == 403))
		snprintf(resp->who, sizeof(resp->who), "%s", c->identity);
	free(url);
	return ret;
}

int kclient_get(struct kclient *c, const char *path, struct http_response *resp,
		struct errbuf *err)
{
	struct stream_opts opts = {
		.idle_timeout_ms = GET_IDLE_TIMEOUT_MS,
		.timeout_ms = c->timeout_ms,
	};
	return request(c, path, &opts, NULL, NULL, resp, err);
}

int kclient_stream(struct kclient *c, const char *path, const struct stream_opts *opts,
		   http_data_fn *on_data, void *ctx, struct http_response *resp,
		   struct errbuf *err)
{
	return request(c, path, opts, on_data, ctx, resp, err);
}

/* ---- messages ----------------------------------------------------------- */

/* The message of a Status object body, or NULL. */
static char *status_object_message(const struct http_response *resp)
{
	if (!resp->body.len)
		return NULL;
	json_object *root = json_parse_deep(resp->body.buf), *v;
	char *msg = NULL;
	if (root && json_object_is_type(root, json_type_object) &&
	    json_object_object_get_ex(root, "kind", &v) &&
	    !strcmp(json_object_get_string(v), "Status") &&
	    json_object_object_get_ex(root, "message", &v) &&
	    *json_object_get_string(v))
		msg = xstrdup(json_object_get_string(v));
	json_object_put(root);
	return msg;
}

void http_status_message(const struct http_response *resp, const char *what,
			 struct errbuf *err)
{
	char *msg = status_object_message(resp);
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

void url_query_escape(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~') {
			strbuf_addch(sb, (char)*p);
		} else {
			char q[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			strbuf_add(sb, q, 3);
		}
	}
}

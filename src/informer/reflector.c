/*
 * reflector.c — ListAndWatch; see reflector.h for the rules it follows.
 *
 * DESIGN (threads): two threads per reflector.  The reflector's thread
 * runs reflector_main(): requests, libcurl transfers, the splitting of
 * the bytes into list items and watch lines, outcomes and backoff.  Its
 * decoder thread (lib/decoder.h) turns each item or line into a kobj and
 * hands it on (list items to the list being gathered, watch events to
 * the FIFO), so that the network and the CPU work overlap: while the
 * decoder makes objects of page N, page N+1 is on the wire.
 *
 * The list/watch state (last_rv, list_no, listed_once, the list being
 * gathered, the watch_state) belongs to the decoder while a transfer's
 * pieces are being decoded, and to the reflector's thread once it has
 * called decoder_drain(), which it does after every transfer and before
 * it reads any of that state; the decoder's lock orders the two.  During
 * a transfer the reflector's thread reads only atomics of it (the
 * streaming list's tick) and decoder_failed(), which makes it abort the
 * transfer when a piece ended the list or watch (a bad item, an ERROR
 * event): the same outcomes as decoding inline, found a few pieces later.
 * The stats are shared with readers under r->lock.  Both threads block
 * only in libcurl, stop_sleep() and the decoder's queue, and all of those
 * end at once on reflector_stop().  The FIFO and the hooks are
 * thread-safe.
 */
#include "informer/reflector.h"

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "lib/decoder.h"
#include "lib/json_stream.h"
#include "lib/stop.h"
#include "lib/strbuf.h"

#define BACKOFF_INITIAL_MS 800
#define BACKOFF_CAP_MS 30000
#define BACKOFF_RESET_MS 120000
#define WATCH_MIN_TIMEOUT_S 300
#define SHORT_WATCH_MS 1000
#define DEFAULT_PAGE_SIZE 500
/* client-go warns while a streaming list is silent this long, then again. */
#define WATCH_LIST_WARN_MS 10000

struct reflector {
	struct kclient *client;
	const struct informer_opts *opts;
	struct fifo *fifo;
	struct reflector_hooks hooks;
	char *path;			/* the collection's path */
	char *api_version;		/* "v1", "apps/v1" */
	struct kobj_type type;		/* given to list items */

	pthread_t thread;
	bool running;
	struct stop stop;
	struct decoder *decoder;

	/* Reflector thread only. */
	char last_rv[RV_SIZE];
	bool rv_unavailable;		/* last_rv was too old: list at "" */
	bool listed_once;
	unsigned list_no;
	bool watch_list_unsupported;
	bool paginated_result;		/* the first list at "0" came in pages */
	bool watching;			/* in the watch phase (hooks.watching) */
	bool reconnected;		/* the connection was lost: check the RV */
	/*
	 * When the last watch that worked ended, monotonic; 0: none yet.  A
	 * watch worked when it delivered events, or ended as a healthy watch
	 * ends (the server closed it cleanly, or kinf renewed it after its
	 * silence); not when it expired (410).  A relist reports the time
	 * since as its disconnected interval.
	 */
	int64_t watch_worked_until_ms;
	int64_t backoff_ms, last_backoff_ms, backoff_reset_ms;

	pthread_mutex_t lock;		/* guards stats */
	struct informer_stats stats;
};

/* What one attempt at a list or a watch came to. */
enum outcome {
	OK,		/* list done / watch ended cleanly: go on */
	EXPIRED,	/* 410, or a too large RV: relist */
	RETRY,		/* re-watch from the last RV (after a backoff) */
	FAILED,		/* end the cycle: backoff, relist */
	STOPPED,
	/* A streaming list that did not get to its end bookmark: */
	RESTREAM,	/* try it again at once */
	RESTREAM_LATER,	/* try it again after a backoff */
	FALLBACK,	/* list with a plain LIST instead */
};

/*
 * The reflector's clock, monotonic ms: the machine's, or a replay's
 * recorded time (http.h kclient_now_ms), so that what depends on time
 * (backoff resets, a very short watch, a silent watch renewed, the
 * disconnected interval) is decided on a replay as it was live.
 */
static int64_t now_ms(const struct reflector *r)
{
	return kclient_now_ms(r->client);
}

/* ---- stats and activity ------------------------------------------------ */

static void set_state(struct reflector *r, enum informer_state state)
{
	pthread_mutex_lock(&r->lock);
	if (r->stats.state != state) {
		r->stats.state = state;
		r->stats.state_since_ms = wall_ms();
	}
	pthread_mutex_unlock(&r->lock);
}

static void emit(struct reflector *r, enum activity act, const char *fmt, ...)
	PRINTF(3, 4);

static void emit_info(struct reflector *r, struct activity_info *info)
{
	info->list_no = r->list_no;
	if (!info->rv[0])
		snprintf(info->rv, sizeof(info->rv), "%s", r->last_rv);
	/* Both may quote the server: a notice is one line. */
	str_one_line(info->message);
	str_one_line(info->rv);
	if (r->hooks.activity)
		r->hooks.activity(r->hooks.ctx, info);
}

/* emit_info() with info->message from fmt (NULL: none). */
static void emit_infov(struct reflector *r, struct activity_info *info,
		       const char *fmt, va_list ap)
{
	if (fmt)
		vsnprintf(info->message, sizeof(info->message), fmt, ap);
	emit_info(r, info);
}

static void emit(struct reflector *r, enum activity act, const char *fmt, ...)
{
	struct activity_info info = { .act = act };
	va_list ap;

	va_start(ap, fmt);
	emit_infov(r, &info, fmt, ap);
	va_end(ap);
}

/*
 * After a list applied (fifo_replace() filled *rs): a relist's Relist
 * record, with its reason and how long no watch had worked.  Frees the
 * key sample either way.
 */
static void report_relist(struct reflector *r, struct replace_stats *rs)
{
	if (r->list_no > 0) {
		struct activity_info rel = { .act = ACT_RELISTED, .replace = *rs };

		if (r->watch_worked_until_ms)
			rel.replace.disconnected_ms = now_ms(r) - r->watch_worked_until_ms;
		pthread_mutex_lock(&r->lock);
		r->stats.relists++;
		snprintf(rel.message, sizeof(rel.message), "%s", r->stats.relist_reason);
		pthread_mutex_unlock(&r->lock);
		emit_info(r, &rel);	/* the informer copies what it keeps */
	}
	relist_sample_free(rs->sample);
	rs->sample = NULL;
}

/* Records a failure in the stats and tells the listeners. */
static void fail(struct reflector *r, const char *msg)
{
	pthread_mutex_lock(&r->lock);
	r->stats.errors++;
	r->stats.last_error_ms = wall_ms();
	snprintf(r->stats.last_error, sizeof(r->stats.last_error), "%s", msg);
	pthread_mutex_unlock(&r->lock);
	emit(r, ACT_ERROR, "%s", msg);
}

/*
 * Answers no retry will change: a bad selector (400), credentials the
 * server refuses (401, after the HTTP layer refreshed them), a verb it
 * forbids (403), a resource it doesn't serve (404).
 */
static bool hopeless(long status)
{
	return status == 400 || status == 401 || status == 403 || status == 404;
}

/* Ends the reflector: before it ever listed, there is nothing to show. */
static void give_up(struct reflector *r, const char *msg)
{
	pthread_mutex_lock(&r->lock);
	r->stats.errors++;
	r->stats.last_error_ms = wall_ms();
	snprintf(r->stats.last_error, sizeof(r->stats.last_error), "%s", msg);
	pthread_mutex_unlock(&r->lock);
	set_state(r, STATE_STOPPED);
	struct activity_info info = { .act = ACT_ERROR, .fatal = true };
	snprintf(info.message, sizeof(info.message), "%s", msg);
	emit_info(r, &info);
	atomic_store(&r->stop.flag, true);
}

#define STAT_INC(r, field)                                                 \
	do {                                                               \
		pthread_mutex_lock(&(r)->lock);                            \
		(r)->stats.field++;                                        \
		pthread_mutex_unlock(&(r)->lock);                          \
	} while (0)

static void set_rv(struct reflector *r, const char *rv)
{
	if (!rv || !*rv)
		return;
	snprintf(r->last_rv, sizeof(r->last_rv), "%s", rv);
	pthread_mutex_lock(&r->lock);
	snprintf(r->stats.rv, sizeof(r->stats.rv), "%s", rv);
	pthread_mutex_unlock(&r->lock);
}

/* ---- waiting ------------------------------------------------------------ */

/* Sleeps ms in STATE_BACKOFF; false when stopped meanwhile. */
static bool wait_backoff(struct reflector *r, int64_t ms, const char *why)
{
	pthread_mutex_lock(&r->lock);
	r->stats.backoffs++;
	r->stats.backoff_until_ms = wall_ms() + ms;
	pthread_mutex_unlock(&r->lock);
	set_state(r, STATE_BACKOFF);

	struct activity_info info = { .act = ACT_BACKOFF, .delay_ms = ms };
	snprintf(info.message, sizeof(info.message), "%s", why);
	emit_info(r, &info);
	return !kclient_sleep(r->client, &r->stop, ms);
}

/*
 * client-go's reflector backoff: 800 ms doubling to 30 s, each wait
 * jittered up to the delay again.  The reset differs by version (see
 * profile.h): ≤1.35's backoff manager resets after 2 min without a
 * backoff; 1.36's DelayWithReset every 2 min since the last reset.
 */
static bool backoff(struct reflector *r, const char *why)
{
	int64_t now = now_ms(r);
	if (r->opts->backoff == BACKOFF_RESET_PERIODIC) {
		if (now - r->backoff_reset_ms > BACKOFF_RESET_MS) {
			r->backoff_ms = 0;
			r->backoff_reset_ms = now;
		}
	} else if (r->last_backoff_ms && now - r->last_backoff_ms > BACKOFF_RESET_MS) {
		r->backoff_ms = 0;
	}
	r->backoff_ms = r->backoff_ms ? r->backoff_ms * 2 : BACKOFF_INITIAL_MS;
	if (r->backoff_ms > BACKOFF_CAP_MS)
		r->backoff_ms = BACKOFF_CAP_MS;
	r->last_backoff_ms = now;
	int64_t delay = r->backoff_ms + (int64_t)(rand_unit() * (double)r->backoff_ms);
	return wait_backoff(r, delay, why);
}

static bool throttled(struct reflector *r, const struct http_response *resp)
{
	char why[64];

	STAT_INC(r, throttled);
	snprintf(why, sizeof(why), "server asked to retry later (%ld)", resp->status);
	return wait_backoff(r, http_retry_delay_ms(resp), why);
}

/*
 * client-go's isTooLargeResourceVersionError: a Status whose causes
 * include ResourceVersionTooLarge, or (servers before 1.19) a timeout
 * whose message says "Too large resource version".
 */
static bool status_too_large(json_object *status)
{
	json_object *v, *details, *causes;

	if (json_object_object_get_ex(status, "details", &details) &&
	    json_object_object_get_ex(details, "causes", &causes) &&
	    json_object_is_type(causes, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(causes); i++) {
			json_object *c = json_object_array_get_idx(causes, i);
			if (json_object_object_get_ex(c, "reason", &v) &&
			    !strcmp(json_object_get_string(v), "ResourceVersionTooLarge"))
				return true;
			if (json_object_object_get_ex(c, "message", &v) &&
			    !strcmp(json_object_get_string(v), "Too large resource version"))
				return true;
		}
	}
	return json_object_object_get_ex(status, "code", &v) &&
	       json_object_get_int(v) == 504 &&
	       json_object_object_get_ex(status, "message", &v) &&
	       strstr(json_object_get_string(v), "Too large resource version");
}

static bool resp_too_large(const struct http_response *resp)
{
	if (resp->status != 504)
		return false;
	json_object *status = json_parse_deep(strbuf_str(&resp->body));
	bool yes = status && status_too_large(status);
	json_object_put(status);
	return yes;
}

/* ---- requests ----------------------------------------------------------- */

static void add_selectors(struct reflector *r, struct strbuf *q)
{
	if (r->opts->label_selector && *r->opts->label_selector)
		url_query_add(q, "labelSelector", r->opts->label_selector);
	if (r->opts->field_selector && *r->opts->field_selector)
		url_query_add(q, "fieldSelector", r->opts->field_selector);
}

static char *request_path(struct reflector *r, const struct strbuf *q)
{
	return xasprintf("%s%s", r->path, strbuf_str(q));
}

/* The Status reason of an error body ("Expired", "Gone"), if it is one. */
static bool status_is_expired(const struct http_response *resp)
{
	if (resp->status == 410)
		return true;
	return false;
}

/* ---- list --------------------------------------------------------------- */

static int64_t list_idle_ms(const struct reflector *r)
{
	return r->opts->stall_ms ? r->opts->stall_ms : REFLECTOR_DEFAULT_LIST_IDLE_MS;
}

static int64_t renew_ms(const struct reflector *r)
{
	return r->opts->stall_ms ? r->opts->stall_ms : REFLECTOR_DEFAULT_RENEW_MS;
}

struct list_state {
	struct reflector *r;
	struct kobj **items;	/* the decoder's until drained */
	size_t nr, alloc;
	struct errbuf err;
	bool bad;
	size_t sent;		/* items handed to the decoder */
};

/* The list splitter's item: to the decoder (the reflector's thread). */
static int on_list_item(void *ctx, const char *text, size_t len)
{
	struct list_state *ls = ctx;

	decoder_put(ls->r->decoder, text, len);
	ls->sent++;
	return 0;
}

/*
 * What a list hands on for obj: the object the informer already holds
 * when it is the same (hooks.same), else obj.  A relist of 100,000
 * unchanged pods then holds one copy of each, not two, and the long-lived
 * objects stay where they are in the heap instead of being replaced by
 * copies made in between the churn's.  Takes obj's reference over.
 */
static struct kobj *known_or(struct reflector *r, struct kobj *obj)
{
	struct kobj *known = r->hooks.same ? r->hooks.same(r->hooks.ctx, obj) : NULL;

	if (!known)
		return obj;
	kobj_unref(obj);
	return known;
}

/* One list item becomes a kobj (the decoder's thread). */
static int decode_list_item(void *ctx, const char *text, size_t len)
{
	struct list_state *ls = ctx;
	struct kobj *obj = kobj_from_list_item(text, len, &ls->r->type,
					       ls->r->opts->kobj_flags, &ls->err);
	if (!obj) {
		ls->bad = true;
		return -1;
	}
	ALLOC_GROW(ls->items, ls->nr + 1, ls->alloc);
	ls->items[ls->nr++] = known_or(ls->r, obj);
	return 0;
}

static void list_state_clear(struct list_state *ls)
{
	for (size_t i = 0; i < ls->nr; i++)
		kobj_unref(ls->items[i]);
	ls->nr = 0;
	ls->sent = 0;
}

struct splitter_ctx {
	struct list_splitter split;
	struct decoder *decoder;
	bool failed;
};

static int on_list_data(void *ctx, const char *data, size_t len)
{
	struct splitter_ctx *sc = ctx;
	if (list_splitter_feed(&sc->split, data, len) < 0) {
		sc->failed = true;
		return -1;
	}
	decoder_flush(sc->decoder);
	/* An item the decoder refused ends the list: stop reading it. */
	return decoder_failed(sc->decoder) ? -1 : 0;
}

/*
 * A 2xx answer that is not a list: a Status ("etcd is down" with a 200,
 * as a broken proxy or aggregated server sends), or any other document.
 * client-go's Result.Into turns a Status into its error (a 410 one is
 * "expired"); anything else decodes to an empty list there, which would
 * empty the cache, so kinf refuses it: a list always has "items".
 * Returns the Status's code (0 when it is no Status) and fills err.
 */
static long not_a_list(struct reflector *r, const char *rest, long status,
		       struct errbuf *err)
{
	json_object *root = json_parse_deep(rest), *v;
	const char *kind = "";
	long code = 0;

	if (root && json_object_object_get_ex(root, "kind", &v))
		kind = json_object_get_string(v);
	if (!strcmp(kind, "Status")) {
		const char *msg = json_object_object_get_ex(root, "message", &v)
			? json_object_get_string(v) : "";
		code = json_object_object_get_ex(root, "code", &v) ? json_object_get_int(v) : 0;
		errbuf_set(err, "list %s: %s (%ld, a Status in a %ld answer)",
			   r->opts->resource->name, *msg ? msg : "no message", code, status);
		if (!code)
			code = -1;
	} else {
		errbuf_set(err, "list %s: the answer is not a list (kind '%.60s', no items)",
			   r->opts->resource->name, kind);
	}
	json_object_put(root);
	return code;
}

/* Reads metadata.resourceVersion and .continue from the list's rest. */
static int list_metadata(const char *rest, char rv[RV_SIZE], char **cont)
{
	json_object *root = json_parse_deep(rest), *meta, *v;
	*cont = NULL;
	rv[0] = '\0';
	if (!root || !json_object_object_get_ex(root, "metadata", &meta)) {
		json_object_put(root);
		return -1;
	}
	if (json_object_object_get_ex(meta, "resourceVersion", &v))
		snprintf(rv, RV_SIZE, "%s", json_object_get_string(v));
	if (json_object_object_get_ex(meta, "continue", &v) &&
	    *json_object_get_string(v))
		*cont = xstrdup(json_object_get_string(v));
	json_object_put(root);
	return 0;
}

/*
 * One LIST, all its pages, into ls->items.  rv_out gets the list's RV.
 */
/*
 * client-go's paging rules: an explicit page size always; else pages of
 * 500, except for a relist at a known RV, which the watch cache serves in
 * one response (a limit would send it to etcd) — unless the first list
 * showed this server pages even at "0".
 */
static unsigned page_limit(struct reflector *r, const char *rv)
{
	if (r->opts->page_size == PAGE_SIZE_NONE)
		return 0;
	if (r->opts->page_size)
		return r->opts->page_size;
	if (r->paginated_result || !*rv || !strcmp(rv, "0"))
		return DEFAULT_PAGE_SIZE;
	return 0;
}

/*
 * A list not done after LIST_WARN_MS says so, and again every LIST_WARN_MS,
 * with what it has so far: client-go's list trace logs a list that took
 * longer than 10 s, kinf tells while it is still waiting.  The list's
 * clock runs across its pages.  The reflector's thread.
 */
#define LIST_WARN_MS 10000

struct list_clock {
	struct reflector *r;
	const struct list_state *ls;
	int64_t started, next_warn;	/* monotonic */
};

static int64_t list_tick(void *ctx)
{
	struct list_clock *c = ctx;
	int64_t now = now_ms(c->r);
	unsigned page;

	if (now >= c->next_warn) {
		pthread_mutex_lock(&c->r->lock);
		page = c->r->stats.list_page;
		pthread_mutex_unlock(&c->r->lock);
		emit(c->r, ACT_WARNING, "still listing after %llds: %zu objects so far, page %u",
		     (long long)((now - c->started) / 1000), c->ls->sent, page);
		while (c->next_warn <= now)
			c->next_warn += LIST_WARN_MS;
	}
	return c->next_warn - now;
}

static enum outcome list_pages(struct reflector *r, const char *rv,
			       struct list_state *ls, char rv_out[RV_SIZE])
{
	struct list_clock clock = { r, ls, now_ms(r), now_ms(r) + LIST_WARN_MS };
	unsigned limit = page_limit(r, rv);
	char *cont = NULL;
	bool full = false;	/* after an expired continue: no paging */
	unsigned retries = 0;	/* of this page, as the REST client counts */
	enum outcome ret = FAILED;
	struct stream_opts sopts = {
		.stop = &r->stop.flag,
		.stop_fd = stop_fd(&r->stop),
		.record_as = r->path,
		.abort_fd = decoder_fail_fd(r->decoder),
		.idle_timeout_ms = list_idle_ms(r),
		.tick = list_tick,
		.tick_ctx = &clock,
	};

	pthread_mutex_lock(&r->lock);
	r->stats.list_page = 0;
	pthread_mutex_unlock(&r->lock);

	for (;;) {
		struct strbuf q = STRBUF_INIT;
		if (!full && limit) {
			char num[16];
			snprintf(num, sizeof(num), "%u", limit);
			url_query_add(&q, "limit", num);
		}
		if (cont)
			url_query_add(&q, "continue", cont);
		else if (*rv)
			url_query_add(&q, "resourceVersion", rv);
		add_selectors(r, &q);
		char *path = request_path(r, &q);
		strbuf_release(&q);

		struct splitter_ctx sc = { .decoder = r->decoder };
		list_splitter_init(&sc.split, on_list_item, ls);
		struct http_response resp = { 0 };
		struct errbuf err = { "" };

		pthread_mutex_lock(&r->lock);
		r->stats.list_page++;
		pthread_mutex_unlock(&r->lock);

		sopts.tick_ms = clock.next_warn - now_ms(r);
		if (sopts.tick_ms < 1)
			sopts.tick_ms = 1;
		int rc = kclient_stream(r->client, path, &sopts, on_list_data, &sc, &resp, &err);
		free(path);

		if (stop_requested(&r->stop)) {
			ret = STOPPED;
		} else if (decoder_failed(r->decoder)) {
			decoder_drain(r->decoder);	/* ls->err is ours now */
			fail(r, ls->err.msg);
		} else if (rc < 0 && sc.split.too_large) {
			fail(r, "list response holds a piece larger than 16 MiB");
		} else if (rc < 0 && sc.failed && sc.split.not_json) {
			char begins[160], msg[200];
			json_describe_start(sc.split.head, sc.split.head_len, begins, sizeof(begins));
			snprintf(msg, sizeof(msg), "list response is not JSON: %s", begins);
			fail(r, msg);
		} else if (rc < 0 && sc.failed) {
			fail(r, "malformed list response");
		} else if (rc < 0) {
			fail(r, err.msg);
		} else if (resp_too_large(&resp)) {
			/*
			 * The server is behind our RV (restored from a backup?).
			 * Its 504 says Retry-After, which client-go's REST client
			 * would honour up to ten times; kinf relists at once.
			 */
			emit(r, ACT_WARNING, "the server's resourceVersion is behind %s: "
			     "listing at \"\" (too large resource version)",
			     *rv ? rv : "\"\"");
			ret = EXPIRED;
		} else if (http_rest_retriable(&resp) && retries < HTTP_MAX_RETRIES) {
			retries++;
			ret = throttled(r, &resp) ? RETRY : STOPPED;
		} else if (resp.status == 410 && cont) {
			/* The continue token expired: one full list instead. */
			STAT_INC(r, list_fallbacks);
			emit(r, ACT_LIST_FALLBACK, "continue token expired, listing in full");
			decoder_drain(r->decoder);
			list_state_clear(ls);
			free(cont);
			cont = NULL;
			full = true;
			ret = RETRY;
		} else if (status_is_expired(&resp)) {
			ret = EXPIRED;
		} else if (resp.status == 400 && r->listed_once && *rv && strcmp(rv, "0")) {
			/*
			 * The server refuses the RV it handed out ("must be a valid
			 * resource version"): listing at it again would fail forever,
			 * so list at "" as after an expired one.
			 */
			char what[128];
			snprintf(what, sizeof(what), "list %s", r->opts->resource->name);
			http_status_message(&resp, what, &err);
			fail(r, err.msg);
			ret = EXPIRED;
		} else if (resp.status < 200 || resp.status > 299) {
			char what[128];
			snprintf(what, sizeof(what), "list %s", r->opts->resource->name);
			http_status_message(&resp, what, &err);
			if (!r->listed_once && hopeless(resp.status)) {
				give_up(r, err.msg);
				ret = STOPPED;
			} else {
				fail(r, err.msg);
			}
		} else if (!list_splitter_done(&sc.split)) {
			fail(r, "list response ended early");
		} else if (!sc.split.has_items) {
			long code = not_a_list(r, list_splitter_rest(&sc.split), resp.status, &err);
			if (code == 410)
				ret = EXPIRED;
			else
				fail(r, err.msg);
		} else {
			free(cont);
			if (list_metadata(list_splitter_rest(&sc.split), rv_out, &cont) < 0) {
				fail(r, "list response without metadata");
			} else {
				STAT_INC(r, pages);
				struct activity_info info = { .act = ACT_LIST_PAGE, .count = ls->sent };
				emit_info(r, &info);
				if (cont && r->list_no == 0 && !strcmp(rv, "0"))
					r->paginated_result = true;
				retries = 0;
				ret = cont ? RETRY : OK;
			}
		}
		list_splitter_release(&sc.split);
		http_response_release(&resp);
		if (ret != RETRY)
			break;
		ret = FAILED;
	}
	free(cont);
	return ret;
}

/* "0" first, then the last synced RV, "" once that was too old. */
static const char *relist_rv(struct reflector *r)
{
	if (r->rv_unavailable)
		return "";
	return r->last_rv[0] ? r->last_rv : "0";
}

static enum outcome do_list(struct reflector *r)
{
	struct list_state ls = { .r = r };
	char rv[RV_SIZE];
	enum outcome ret;

	set_state(r, STATE_LISTING);
	emit(r, ACT_LIST_START, NULL);
	STAT_INC(r, lists);
	for (;;) {
		decoder_begin(r->decoder, decode_list_item, NULL, &ls);
		ret = list_pages(r, relist_rv(r), &ls, rv);
		/* The last pages may still be decoding: the items are ours after this. */
		decoder_drain(r->decoder);
		if (ret == OK && ls.bad) {
			fail(r, ls.err.msg);
			ret = FAILED;
		}
		if (ret != EXPIRED || r->rv_unavailable)
			break;
		/* Too old to list at: client-go lists again at "" at once. */
		STAT_INC(r, expired);
		r->rv_unavailable = true;
		list_state_clear(&ls);
	}
	if (ret == EXPIRED)
		fail(r, "list expired even without a resourceVersion");
	if (ret == OK) {
		/* Told before the Replace, so it precedes the deltas it makes. */
		struct activity_info info = { .act = ACT_LIST_DONE, .count = ls.nr };
		snprintf(info.rv, sizeof(info.rv), "%s", rv);
		emit_info(r, &info);

		/*
		 * The list is complete before its deltas can be popped: a
		 * reader that counts them (--max-deltas) must find it so.
		 */
		pthread_mutex_lock(&r->lock);
		r->stats.last_list_ms = wall_ms();
		pthread_mutex_unlock(&r->lock);
		struct replace_stats rs;
		fifo_replace(r->fifo, ls.items, ls.nr, r->list_no, &rs);
		if (r->hooks.replaced)
			r->hooks.replaced(r->hooks.ctx);
		r->listed_once = true;
		r->rv_unavailable = false;
		set_rv(r, rv);
		report_relist(r, &rs);
		r->list_no++;
	}
	list_state_clear(&ls);
	free(ls.items);
	return ret;
}

/* ---- watch -------------------------------------------------------------- */

/* The watch phase (client-go resyncs only then): tells the informer. */
static void set_watching(struct reflector *r, bool on)
{
	if (r->watching == on)
		return;
	r->watching = on;
	if (r->hooks.watching)
		r->hooks.watching(r->hooks.ctx, on);
}

struct watch_state {
	struct reflector *r;
	struct line_splitter lines;
	size_t events;
	_Atomic int64_t last_event_ms;	/* monotonic; set by the decoder */
	int64_t last_byte_ms;		/* monotonic; the reflector's thread */
	bool renewing;			/* silent too long: being replaced */
	enum outcome verdict;		/* set by an event that ends the watch */
	char message[sizeof(struct errbuf)];
	/* Streaming list: the initial events, until the end bookmark. */
	atomic_bool initial;
	struct list_state initial_items;
	atomic_size_t initial_count;	/* initial_items.nr, for the tick */
};

static const char *object_rv(json_object *obj)
{
	json_object *meta, *rv;
	if (json_object_object_get_ex(obj, "metadata", &meta) &&
	    json_object_object_get_ex(meta, "resourceVersion", &rv))
		return json_object_get_string(rv);
	return "";
}

static bool is_initial_events_end(json_object *obj)
{
	json_object *meta, *ann, *v;
	return json_object_object_get_ex(obj, "metadata", &meta) &&
	       json_object_object_get_ex(meta, "annotations", &ann) &&
	       json_object_object_get_ex(ann, "k8s.io/initial-events-end", &v) &&
	       !strcmp(json_object_get_string(v), "true");
}

static int end_watch(struct watch_state *ws, enum outcome verdict, const char *msg)
{
	ws->verdict = verdict;
	snprintf(ws->message, sizeof(ws->message), "%s", msg);
	return -1;
}

/* The streaming list is complete: its items go to the FIFO as one Replace. */
static void streaming_list_done(struct watch_state *ws, const char *rv)
{
	struct reflector *r = ws->r;
	struct list_state *ls = &ws->initial_items;
	struct activity_info info = { .act = ACT_LIST_DONE, .count = ls->nr };
	struct replace_stats rs;

	snprintf(info.rv, sizeof(info.rv), "%s", rv);
	snprintf(info.message, sizeof(info.message), "streaming list");
	emit_info(r, &info);

	pthread_mutex_lock(&r->lock);	/* before its deltas can be popped */
	r->stats.last_list_ms = wall_ms();
	r->stats.pages++;
	pthread_mutex_unlock(&r->lock);
	fifo_replace(r->fifo, ls->items, ls->nr, r->list_no, &rs);
	if (r->hooks.replaced)
		r->hooks.replaced(r->hooks.ctx);
	r->listed_once = true;
	r->rv_unavailable = false;
	set_rv(r, rv);
	ws->initial = false;
	report_relist(r, &rs);
	r->list_no++;
	list_state_clear(ls);
	set_state(r, STATE_WATCHING);
	set_watching(r, true);
}

static int on_watch_bookmark(struct watch_state *ws, json_object *obj)
{
	struct reflector *r = ws->r;
	const char *rv = object_rv(obj);

	if (ws->initial && is_initial_events_end(obj)) {
		streaming_list_done(ws, rv);
		return 0;
	}
	set_rv(r, rv);
	pthread_mutex_lock(&r->lock);
	int64_t now = wall_ms();
	r->stats.bookmarks++;
	if (r->stats.last_bookmark_ms)
		r->stats.bookmark_gap_ms = now - r->stats.last_bookmark_ms;
	r->stats.last_bookmark_ms = now;
	pthread_mutex_unlock(&r->lock);
	struct activity_info info = { .act = ACT_BOOKMARK };
	snprintf(info.rv, sizeof(info.rv), "%s", rv);
	emit_info(r, &info);
	return 0;
}

/*
 * An ERROR event ends the watch with its Status (reflector.go
 * handleAnyWatch returns apierrors.FromObject): 410 and a too large RV
 * relist; 429 backs off and re-watches from the last RV
 * (isWatchErrorRetriable); anything else ends the cycle.
 */
static int on_watch_error_event(struct watch_state *ws, json_object *obj)
{
	json_object *code, *msg;
	long c = json_object_object_get_ex(obj, "code", &code) ? json_object_get_int(code) : 0;
	const char *m = json_object_object_get_ex(obj, "message", &msg)
		? json_object_get_string(msg) : "watch error";
	char buf[256];

	snprintf(buf, sizeof(buf), "watch error event (code %ld): %s", c, m);
	if (c == 410)
		return end_watch(ws, EXPIRED, m);
	if (status_too_large(obj))
		return end_watch(ws, EXPIRED, buf);
	if (c == 429)
		return end_watch(ws, RETRY, buf);
	return end_watch(ws, FAILED, buf);
}

static bool parse_rv_number(const char *rv, unsigned long long *out);

/*
 * Watch health: when the last event came, and whether its RV went back.
 * An apiserver's watch hands out events in RV order; one older than the
 * event before it is a server bug (a watch cache that lost its place),
 * and client-go takes it without a word.  kinf counts it and says so.
 */
static void note_event_rv(struct reflector *r, const struct kobj *o)
{
	unsigned long long was, now;
	bool back = parse_rv_number(r->last_rv, &was) && parse_rv_number(o->rv, &now) &&
		    now < was;

	pthread_mutex_lock(&r->lock);
	r->stats.last_event_ms = wall_ms();
	if (back)
		r->stats.rv_backwards++;
	pthread_mutex_unlock(&r->lock);
	if (back)
		emit(r, ACT_WARNING, "resourceVersion went back on the watch: %s after %s (%s); "
		     "an apiserver bug: its watch cache may hand out old state", o->rv,
		     r->last_rv, o->key);
}

/* An event whose object kinf cannot read (no metadata, no name): skipped. */
static void skip_event(struct watch_state *ws, const char *type, const char *why)
{
	emit(ws->r, ACT_WARNING, "skipped a %s watch event: %s", type, why);
}

static int on_watch_line(void *ctx, const char *text, size_t len)
{
	struct watch_state *ws = ctx;
	struct reflector *r = ws->r;
	struct kobj_event ev;
	struct errbuf err = { "" };
	int ret = 0;

	/*
	 * What client-go's decoder (rest/watch/decoder.go) cannot decode, an
	 * unknown event type included, becomes an error event that ends the
	 * watch (apimachinery StreamWatcher.receive): the reflector relists.
	 */
	if (kobj_from_event(text, len, r->opts->kobj_flags, &ev, &err) < 0) {
		kobj_event_release(&ev);
		return end_watch(ws, FAILED, "cannot decode a watch event: not a JSON "
				 "object with a type and an object");
	}
	if (ev.type == KOBJ_EVENT_UNKNOWN) {
		char buf[96];
		snprintf(buf, sizeof(buf), "cannot decode a watch event: unknown type '%.40s'",
			 ev.type_name);
		kobj_event_release(&ev);
		return end_watch(ws, FAILED, buf);
	}
	ws->last_event_ms = now_ms(r);

	if (ev.type == KOBJ_EVENT_BOOKMARK) {
		ret = on_watch_bookmark(ws, ev.tree);
	} else if (ev.type == KOBJ_EVENT_ERROR) {
		ret = on_watch_error_event(ws, ev.tree);
	} else {
		struct kobj *o = ev.obj;
		const char *t = ev.type_name;
		if (!o) {
			/* meta.Accessor failed: client-go logs it and goes on. */
			skip_event(ws, t, ev.obj_err.msg);
			kobj_event_release(&ev);
			return 0;
		}
		if (ws->initial) {
			if (ev.type != KOBJ_EVENT_ADDED) {
				ret = end_watch(ws, FAILED, "unexpected event before the initial events ended");
			} else {
				ALLOC_GROW(ws->initial_items.items, ws->initial_items.nr + 1,
					   ws->initial_items.alloc);
				ws->initial_items.items[ws->initial_items.nr++] = known_or(r, kobj_ref(o));
				atomic_store(&ws->initial_count, ws->initial_items.nr);
			}
		} else {
			if (ev.type == KOBJ_EVENT_ADDED)
				fifo_add(r->fifo, o);
			else if (ev.type == KOBJ_EVENT_MODIFIED)
				fifo_update(r->fifo, o);
			else
				fifo_delete(r->fifo, o);
			note_event_rv(r, o);
			set_rv(r, o->rv);
		}
	}
	ws->events++;
	STAT_INC(r, events);
	kobj_event_release(&ev);
	return ret;
}

/*
 * Around each batch of watch lines the decoder decodes: the FIFO wakes
 * its consumer once at the end, not once an event, so that a burst costs
 * a wake-up per batch (what arrived in one read) instead of per event.
 */
static void on_watch_batch(void *ctx, bool start)
{
	struct watch_state *ws = ctx;

	if (start)
		fifo_hold(ws->r->fifo);
	else
		fifo_unhold(ws->r->fifo);
}

/* The line splitter's line: to the decoder (the reflector's thread). */
static int put_watch_line(void *ctx, const char *text, size_t len)
{
	struct watch_state *ws = ctx;

	decoder_put(ws->r->decoder, text, len);
	return 0;
}

static int on_watch_data(void *ctx, const char *data, size_t len)
{
	struct watch_state *ws = ctx;

	ws->last_byte_ms = now_ms(ws->r);
	if (line_splitter_feed(&ws->lines, data, len) < 0) {
		if (ws->lines.too_large)
			return end_watch(ws, RETRY, "watch event larger than 16 MiB");
		return -1;
	}
	decoder_flush(ws->r->decoder);
	/* An event ended the watch (ws->verdict): stop reading it. */
	return decoder_failed(ws->r->decoder) ? -1 : 0;
}

/* ACT_WATCH_END with how long the watch lasted and how many events it had. */
static void emit_watch_end(struct reflector *r, const struct watch_state *ws,
			   int64_t lasted_ms, const char *fmt, ...) PRINTF(4, 5);
static void emit_watch_end(struct reflector *r, const struct watch_state *ws,
			   int64_t lasted_ms, const char *fmt, ...)
{
	struct activity_info info = {
		.act = ACT_WATCH_END, .count = ws->events, .delay_ms = lasted_ms,
	};
	va_list ap;

	va_start(ap, fmt);
	emit_infov(r, &info, fmt, ap);
	va_end(ap);
}

/*
 * The watch's clock.  While a streaming list waits for its end bookmark,
 * client-go warns every 10 s without an event ("event bookmark expired");
 * it sets no deadline of its own: the watch's timeoutSeconds ends it.
 * Once watching, a watch silent (no byte) for renew_ms is ended to be
 * renewed (see reflector.h).  Returns when to look again, or -1.
 */
static int64_t watch_tick(void *ctx)
{
	struct watch_state *ws = ctx;
	int64_t now = now_ms(ws->r);

	if (ws->initial) {
		int64_t quiet = now - ws->last_event_ms;
		if (quiet < WATCH_LIST_WARN_MS)
			return WATCH_LIST_WARN_MS - quiet;
		emit(ws->r, ACT_WARNING, "streaming list: no event for %lld s, still waiting "
		     "for its end bookmark (%zu objects so far)",
		     (long long)(quiet / 1000), atomic_load(&ws->initial_count));
		return WATCH_LIST_WARN_MS;
	}
	int64_t silent = now - ws->last_byte_ms, limit = renew_ms(ws->r);
	if (silent < limit)
		return limit - silent;
	ws->renewing = true;
	return -1;
}

/*
 * A streaming list that ended before its end bookmark: what client-go's
 * watchList (1.29+) does next.  410 or a too large RV: again at once
 * from ""; 429, a refused connection or a 5xx with Retry-After: again
 * after a backoff; a clean end (not a very short one): again at once;
 * a 4xx refusal: LIST (and kinf remembers the server lacks the feature);
 * anything else: LIST, or with 1.28, end the cycle.
 */
static enum outcome streaming_list_outcome(struct reflector *r, struct watch_state *ws,
					   int rc, const struct http_response *resp,
					   const char *errmsg, int64_t lasted)
{
	char msg[sizeof(ws->message) + 64];
	bool refusal = resp->status >= 400 && resp->status < 500;

	if (ws->verdict == EXPIRED || resp->status == 410 || resp_too_large(resp)) {
		emit(r, ACT_WARNING, "streaming list: resourceVersion unavailable (%s), "
		     "again from \"\"", ws->verdict == EXPIRED ? ws->message : "HTTP status");
		r->rv_unavailable = true;
		return RESTREAM;
	}
	if (ws->verdict == RETRY || resp->refused || (rc == 0 && http_rest_retriable(resp))) {
		if (rc == 0 && http_rest_retriable(resp))
			return throttled(r, resp) ? RESTREAM : STOPPED;
		fail(r, ws->verdict == RETRY ? ws->message : errmsg);
		return RESTREAM_LATER;
	}
	if (ws->verdict == OK && rc == 0 && !refusal && resp->status >= 200 &&
	    resp->status <= 299) {
		if (ws->events || lasted >= SHORT_WATCH_MS) {
			emit(r, ACT_WARNING, "streaming list ended before its end bookmark "
			     "(%zu objects): again", ws->initial_items.nr);
			return RESTREAM;
		}
		snprintf(msg, sizeof(msg), "very short streaming list: ended at once without events");
	} else if (ws->verdict != OK) {
		snprintf(msg, sizeof(msg), "%s", ws->message);
	} else if (rc < 0) {
		snprintf(msg, sizeof(msg), "%s", errmsg);
	} else {
		struct errbuf err = { "" };
		char what[128];
		snprintf(what, sizeof(what), "list %s", r->opts->resource->name);
		http_status_message(resp, what, &err);
		snprintf(msg, sizeof(msg), "%s", err.msg);
	}
	if (!r->listed_once && hopeless(resp->status) && resp->status != 400) {
		/* Credentials, permissions, the resource: a LIST can't do better. */
		give_up(r, msg);
		return STOPPED;
	}
	fail(r, msg);
	if (refusal && (r->opts->watch_list_any_fallback || resp->status == 422)) {
		r->watch_list_unsupported = true;
		emit(r, ACT_WARNING, "the server refused the streaming list (%ld): "
		     "listing with LIST from now on", resp->status);
		return FALLBACK;
	}
	if (r->opts->watch_list_any_fallback)
		return FALLBACK;
	return FAILED;
}

/*
 * One watch, until it ends.  With `initial`, a streaming list
 * (sendInitialEvents) from the last RV or "", which becomes the watch
 * once its end bookmark came.
 */
static enum outcome do_watch(struct reflector *r, bool initial)
{
	struct watch_state ws = { .r = r, .verdict = OK, .initial = initial };
	struct strbuf q = STRBUF_INIT;
	int timeout_s = WATCH_MIN_TIMEOUT_S + (int)(rand_unit() * WATCH_MIN_TIMEOUT_S);
	char num[16];
	enum outcome ret;

	line_splitter_init(&ws.lines, put_watch_line, &ws);
	ws.initial_items.r = r;

	url_query_add(&q, "watch", "1");
	url_query_add(&q, "allowWatchBookmarks", "true");
	if (initial) {
		url_query_add(&q, "sendInitialEvents", "true");
		url_query_add(&q, "resourceVersionMatch", "NotOlderThan");
		url_query_add(&q, "resourceVersion", r->rv_unavailable ? "" : r->last_rv);
	} else {
		url_query_add(&q, "resourceVersion", r->last_rv);
	}
	snprintf(num, sizeof(num), "%d", timeout_s);
	url_query_add(&q, "timeoutSeconds", num);
	add_selectors(r, &q);
	char *path = request_path(r, &q);
	strbuf_release(&q);

	struct stream_opts sopts = {
		.stop = &r->stop.flag,
		.stop_fd = stop_fd(&r->stop),
		.record_as = r->path,
		.abort_fd = decoder_fail_fd(r->decoder),
		/* The initial events of a streaming list: as a list. */
		.idle_timeout_ms = initial ? list_idle_ms(r) : 0,
		/* The server ends it at timeoutSeconds; this is a safety net. */
		.timeout_ms = (int64_t)(timeout_s + 60) * 1000,
		.tick = watch_tick,
		.tick_ctx = &ws,
		.tick_ms = initial ? WATCH_LIST_WARN_MS : renew_ms(r),
	};
	struct http_response resp = { 0 };
	struct errbuf err = { "" };
	int64_t started = now_ms(r);

	ws.last_event_ms = ws.last_byte_ms = started;
	STAT_INC(r, watches);
	pthread_mutex_lock(&r->lock);
	r->stats.last_watch_ms = r->stats.watch_since_ms = wall_ms();
	r->stats.watch_timeout_s = timeout_s;
	pthread_mutex_unlock(&r->lock);
	if (initial) {
		set_state(r, STATE_LISTING);
		emit(r, ACT_LIST_START, "streaming list");
		STAT_INC(r, lists);
	} else {
		set_state(r, STATE_WATCHING);
		emit(r, ACT_WATCH_OPEN, NULL);
	}

	decoder_begin(r->decoder, on_watch_line, on_watch_batch, &ws);
	int rc = kclient_stream(r->client, path, &sopts, on_watch_data, &ws, &resp, &err);
	free(path);
	decoder_drain(r->decoder);	/* ws is ours again */
	int64_t lasted = now_ms(r) - started;
	bool healthy_end = false;	/* ended as a working watch ends */
	pthread_mutex_lock(&r->lock);
	r->stats.watch_since_ms = 0;
	pthread_mutex_unlock(&r->lock);

	if (stop_requested(&r->stop)) {
		ret = STOPPED;
	} else if (ws.initial) {
		ret = streaming_list_outcome(r, &ws, rc, &resp, err.msg, lasted);
	} else if (ws.verdict == EXPIRED) {
		STAT_INC(r, expired);
		pthread_mutex_lock(&r->lock);
		snprintf(r->stats.relist_reason, sizeof(r->stats.relist_reason),
			 "watch expired: %.100s", ws.message);
		pthread_mutex_unlock(&r->lock);
		emit(r, ACT_WATCH_EXPIRED, "%s", ws.message);
		ret = EXPIRED;
	} else if (ws.verdict != OK) {
		fail(r, ws.message);
		ret = ws.verdict;
	} else if (rc < 0 && ws.renewing) {
		STAT_INC(r, stalls);
		emit(r, ACT_WATCH_STALLED, "silent for %lld s",
		     (long long)(renew_ms(r) / 1000));
		healthy_end = true;
		ret = OK;
	} else if (rc < 0 && str_starts_with(err.msg, "stalled")) {
		STAT_INC(r, stalls);
		emit(r, ACT_WATCH_STALLED, "no data for %lld s",
		     (long long)(sopts.idle_timeout_ms / 1000));
		ret = RETRY;
	} else if (rc < 0 && resp.refused) {
		/* isWatchErrorRetriable: back off, then re-watch from the last RV. */
		fail(r, err.msg);
		r->reconnected = true;
		ret = RETRY;
	} else if (rc < 0 && (ws.events || lasted >= SHORT_WATCH_MS)) {
		/* The connection broke mid-watch: reopen from the last RV. */
		STAT_INC(r, watch_ends);
		emit_watch_end(r, &ws, lasted, "connection lost: %s", err.msg);
		r->reconnected = true;
		ret = OK;
	} else if (rc < 0) {
		fail(r, err.msg);
		ret = FAILED;
	} else if (resp.status == 410 || resp_too_large(&resp)) {
		STAT_INC(r, expired);
		emit(r, ACT_WATCH_EXPIRED, resp.status == 410 ? "HTTP 410" :
		     "too large resource version (HTTP 504)");
		ret = EXPIRED;
	} else if (http_rest_retriable(&resp)) {
		ret = throttled(r, &resp) ? OK : STOPPED;
	} else if (resp.status < 200 || resp.status > 299) {
		char what[128];
		snprintf(what, sizeof(what), "watch %s", r->opts->resource->name);
		http_status_message(&resp, what, &err);
		fail(r, err.msg);
		ret = FAILED;
	} else if (ws.events == 0 && lasted < SHORT_WATCH_MS) {
		STAT_INC(r, short_watches);
		fail(r, "very short watch: ended at once without events");
		ret = FAILED;
	} else {
		/* client-go's "Unexpected EOF during watch stream event decoding":
		 * the event comes again from the last RV, but say so. */
		STAT_INC(r, watch_ends);
		emit_watch_end(r, &ws, lasted, line_splitter_pending(&ws.lines)
			       ? "cut in the middle of an event" : NULL);
		healthy_end = true;
		ret = OK;
	}
	if (ret != STOPPED && ret != EXPIRED && !ws.initial && (ws.events || healthy_end))
		r->watch_worked_until_ms = now_ms(r);
	line_splitter_release(&ws.lines);
	list_state_clear(&ws.initial_items);
	free(ws.initial_items.items);
	http_response_release(&resp);
	return ret;
}

/* ---- the server's resourceVersion -------------------------------------- */

static void note_relist_reason(struct reflector *r, const char *reason);

static int on_probe_data(void *ctx, const char *data, size_t len)
{
	struct strbuf *sb = ctx;
	if (sb->len + len > 1 << 20)
		return -1;	/* one object and a list envelope: never this big */
	strbuf_add(sb, data, len);
	return 0;
}

static bool parse_rv_number(const char *rv, unsigned long long *out)
{
	char *end;
	if (!*rv || *rv < '0' || *rv > '9')
		return false;
	errno = 0;
	*out = strtoull(rv, &end, 10);
	return !*end && !errno;
}

/*
 * After the connection was lost or refused the server may be back from a
 * restore with a lower resourceVersion; a watch from ours would then wait
 * in silence until the server catches up (the watch cache holds it), and
 * the cache would stay stale.  One LIST of one object at "" (a quorum
 * read) tells the server's RV: if it is behind ours, relist at "" — what
 * client-go's list() does on a too large RV.  (kinf's own: client-go's
 * reflector re-watches from its RV and waits.)  RVs that are not numbers
 * are not compared.
 */
static enum outcome check_server_rv(struct reflector *r)
{
	struct strbuf body = STRBUF_INIT, q = STRBUF_INIT;
	struct http_response resp = { 0 };
	struct errbuf err = { "" };
	struct stream_opts sopts = {
		.stop = &r->stop.flag,
		.stop_fd = stop_fd(&r->stop),
		.record_as = r->path,
		.idle_timeout_ms = list_idle_ms(r),
	};
	unsigned long long ours, theirs;
	enum outcome ret = OK;
	char rv[RV_SIZE] = "";
	char *cont = NULL;

	url_query_add(&q, "limit", "1");
	char *path = request_path(r, &q);
	strbuf_release(&q);
	int rc = kclient_stream(r->client, path, &sopts, on_probe_data, &body, &resp, &err);
	free(path);
	if (stop_requested(&r->stop))
		ret = STOPPED;
	else if (rc == 0 && resp.status == 200 && list_metadata(strbuf_str(&body), rv, &cont) == 0 &&
		 parse_rv_number(rv, &theirs) && parse_rv_number(r->last_rv, &ours) &&
		 theirs < ours) {
		emit(r, ACT_WARNING, "the server's resourceVersion went back (%s, ours %s): "
		     "it was restored or replaced; relisting at \"\"", rv, r->last_rv);
		note_relist_reason(r, "the server's resourceVersion went back");
		r->rv_unavailable = true;
		ret = EXPIRED;
	}
	free(cont);
	strbuf_release(&body);
	http_response_release(&resp);
	return ret;
}

/* ---- the loop ----------------------------------------------------------- */

static void note_relist_reason(struct reflector *r, const char *reason)
{
	pthread_mutex_lock(&r->lock);
	snprintf(r->stats.relist_reason, sizeof(r->stats.relist_reason), "%s", reason);
	pthread_mutex_unlock(&r->lock);
}

/*
 * client-go's watchList loop: streaming lists until one reaches its end
 * bookmark (then the outcome of the watch it became), or until it must
 * give way to a LIST (FALLBACK) or end the cycle.
 */
static enum outcome streaming_list(struct reflector *r)
{
	unsigned lists_before = r->list_no;

	for (;;) {
		enum outcome o = do_watch(r, true);

		if (o == STOPPED || r->list_no != lists_before)
			return o;
		if (o == RESTREAM)
			continue;
		if (o == RESTREAM_LATER) {
			if (!backoff(r, "retrying the streaming list"))
				return STOPPED;
			continue;
		}
		return o;
	}
}

/* client-go's ListAndWatch: returns when the cycle must start over. */
static void list_and_watch(struct reflector *r)
{
	unsigned lists_before = r->list_no;
	enum outcome o = FAILED;

	if (r->opts->streaming_list && !r->watch_list_unsupported) {
		o = streaming_list(r);
		if (o == STOPPED || (o == FAILED && r->list_no == lists_before))
			goto out;
	}
	if (r->list_no == lists_before) {
		if (do_list(r) != OK)
			goto out;
		set_watching(r, true);
		o = do_watch(r, false);
	}
	for (;;) {
		switch (o) {
		case OK:
			break;		/* ended cleanly: re-watch from the RV */
		case RETRY:
			if (!backoff(r, "re-watching"))
				goto out;
			break;
		case FAILED: {
			char why[sizeof(r->stats.relist_reason)];
			pthread_mutex_lock(&r->lock);
			snprintf(why, sizeof(why), "watch failed: %.100s", r->stats.last_error);
			pthread_mutex_unlock(&r->lock);
			note_relist_reason(r, why);
			goto out;
		}
		default:		/* EXPIRED (do_watch noted why), STOPPED */
			goto out;
		}
		if (r->reconnected) {
			r->reconnected = false;
			if (check_server_rv(r) != OK)
				goto out;
		}
		o = do_watch(r, false);
	}
out:
	set_watching(r, false);
}

static void *reflector_main(void *arg)
{
	struct reflector *r = arg;

	for (;;) {
		list_and_watch(r);
		if (stop_requested(&r->stop))
			break;
		/* Sliding backoff between cycles, as wait.BackoffUntil does. */
		if (!backoff(r, "relisting"))
			break;
	}
	set_state(r, STATE_STOPPED);
	return NULL;
}

struct reflector *reflector_new(struct kclient *client,
				const struct informer_opts *opts,
				struct fifo *fifo,
				const struct reflector_hooks *hooks)
{
	struct reflector *r = xcalloc(1, sizeof(*r));
	r->client = client;
	r->opts = opts;
	r->fifo = fifo;
	if (hooks)
		r->hooks = *hooks;
	r->path = api_resource_path(opts->resource, opts->ns);
	const struct api_resource *res = opts->resource;
	r->api_version = *res->group ? xasprintf("%s/%s", res->group, res->version)
				     : xstrdup(res->version);
	r->type = (struct kobj_type){ .api_version = r->api_version, .kind = res->kind };
	stop_init(&r->stop);
	pthread_mutex_init(&r->lock, NULL);
	r->backoff_reset_ms = now_ms(r);
	r->stats.state = STATE_STARTING;
	r->stats.state_since_ms = wall_ms();
	return r;
}

int reflector_start(struct reflector *r, struct errbuf *err)
{
	if (!(r->decoder = decoder_new(&r->stop.flag, err)))
		return -1;
	int rc = pthread_create(&r->thread, NULL, reflector_main, r);
	if (rc) {
		errbuf_set(err, "cannot start the reflector thread: %s", strerror(rc));
		decoder_free(r->decoder);
		r->decoder = NULL;
		return -1;
	}
	r->running = true;
	return 0;
}

void reflector_stop(struct reflector *r)
{
	if (!r->running)
		return;
	stop_request(&r->stop);
	pthread_join(r->thread, NULL);
	decoder_free(r->decoder);
	r->decoder = NULL;
	r->running = false;
}

void reflector_free(struct reflector *r)
{
	if (!r)
		return;
	reflector_stop(r);
	stop_destroy(&r->stop);
	pthread_mutex_destroy(&r->lock);
	free(r->path);
	free(r->api_version);
	free(r);
}

void reflector_get_stats(struct reflector *r, struct informer_stats *out)
{
	pthread_mutex_lock(&r->lock);
	const struct informer_stats *s = &r->stats;
	out->state = s->state;
	out->state_since_ms = s->state_since_ms;
	out->backoff_until_ms = s->backoff_until_ms;
	out->list_page = s->list_page;
	memcpy(out->rv, s->rv, sizeof(out->rv));
	out->lists = s->lists;
	out->pages = s->pages;
	out->list_fallbacks = s->list_fallbacks;
	out->watches = s->watches;
	out->watch_ends = s->watch_ends;
	out->relists = s->relists;
	out->expired = s->expired;
	out->stalls = s->stalls;
	out->errors = s->errors;
	out->backoffs = s->backoffs;
	out->bookmarks = s->bookmarks;
	out->throttled = s->throttled;
	out->events = s->events;
	out->last_list_ms = s->last_list_ms;
	out->last_watch_ms = s->last_watch_ms;
	out->last_error_ms = s->last_error_ms;
	out->last_event_ms = s->last_event_ms;
	out->last_bookmark_ms = s->last_bookmark_ms;
	out->bookmark_gap_ms = s->bookmark_gap_ms;
	out->watch_since_ms = s->watch_since_ms;
	out->watch_timeout_s = s->watch_timeout_s;
	out->short_watches = s->short_watches;
	out->rv_backwards = s->rv_backwards;
	memcpy(out->last_error, s->last_error, sizeof(out->last_error));
	memcpy(out->relist_reason, s->relist_reason, sizeof(out->relist_reason));
	pthread_mutex_unlock(&r->lock);
}

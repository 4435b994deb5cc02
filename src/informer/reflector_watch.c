/*
 * reflector_watch.c — the reflector's WATCH: the request, the events to
 * the FIFO, the streaming list (sendInitialEvents) that becomes a watch,
 * and what the watch's end comes to.  All of it on the reflector's
 * thread: on_watch_data() splits what the transfer hands it into JSON
 * values as client-go's framer does, on_watch_event() decodes each into
 * an event and acts on it, and once
 * the transfer ended watch_outcome() decides what that comes to.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "informer/decode_error.h"
#include "informer/reflector_list.h"
#include "informer/reflector_watch.h"
#include "lib/hashmap.h"
#include "lib/idle.h"
#include "lib/json_get.h"
#include "lib/json_stream.h"
#include "lib/strbuf.h"

#define WATCH_MIN_TIMEOUT_S 300
#define SHORT_WATCH_MS 1000
/* client-go warns while a streaming list is silent this long, then again. */
#define WATCH_LIST_WARN_MS 10000

struct watch_state {
	struct reflector *r;
	struct value_splitter values;
	/*
	 * The tap's number of the attempt being read (http.h), and the bytes
	 * earlier attempts fed the splitter: where an event ends in its exchange.
	 */
	unsigned tap_x;
	uint64_t fed_before;
	size_t events;			/* since started_ms */
	/*
	 * When the watch began, monotonic: its request, or the end bookmark
	 * of the streaming list it was.
	 */
	int64_t started_ms;
	int64_t last_event_ms;		/* monotonic */
	int64_t last_byte_ms;		/* monotonic */
	bool renewing;			/* silent too long: being replaced */
	int timeout_s;			/* its timeoutSeconds */
	bool silence_told;		/* its silence was reported, not yet cleared */
	/*
	 * 1.36 (hold_rv_of_adds), a watch from "" or "0": ADDED events do
	 * not move the RV until another kind of event came.
	 */
	bool rv_held;
	enum outcome verdict;		/* set by an event that ends the watch */
	char message[sizeof(struct errbuf)];
	/*
	 * Streaming list: the initial events, until the end bookmark, as
	 * client-go's watchList keeps them in a temporary Store: by key
	 * (initial_keys: key → index in initial_items, the key pointing into
	 * the item).
	 */
	bool initial;
	struct list_state initial_items;
	struct hashmap initial_keys;
};

static const char *object_rv(json_object *obj)
{
	return json_get_text(json_get(obj, "metadata"), "resourceVersion", "");
}

static bool is_initial_events_end(json_object *obj)
{
	json_object *ann = json_get_path(obj, "metadata", "annotations", NULL);

	return !strcmp(json_get_text(ann, "k8s.io/initial-events-end", ""), "true");
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
	reflector_emit_info(r, &info);

	pthread_mutex_lock(&r->lock);	/* before its deltas can be popped */
	r->stats.last_list_ms = wall_ms();
	r->stats.pages++;
	pthread_mutex_unlock(&r->lock);
	fifo_replace(r->fifo, ls->items, ls->nr, rv, r->list_no, &rs);
	if (r->hooks.replaced)
		r->hooks.replaced(r->hooks.ctx);
	r->rv_unavailable = false;
	reflector_note_rv_back(r, rv, "the streaming list");
	reflector_set_rv(r, rv);
	ws->initial = false;
	reflector_report_relist(r, &rs);
	r->list_no++;
	reflector_list_state_clear(ls);
	hashmap_release(&ws->initial_keys);
	reflector_set_state(r, STATE_WATCHING);
	reflector_set_watching(r, true);
}

static int on_watch_bookmark(struct watch_state *ws, json_object *obj)
{
	struct reflector *r = ws->r;
	const char *rv = object_rv(obj);

	if (ws->initial && is_initial_events_end(obj)) {
		streaming_list_done(ws, rv);
		return 0;
	}
	/*
	 * watchList's handleListWatch hands a bookmark's RV to a local
	 * variable only, which the end bookmark's overwrites: a streaming
	 * list restarted before its end is asked from the RV it had.
	 */
	if (!ws->initial) {
		/*
		 * handleAnyWatch hands it to the store first (Bookmark: a delta
		 * of the atomic FIFO); a streaming list's temporary store
		 * takes none.
		 */
		fifo_bookmark(r->fifo, rv);
		ws->rv_held = false;
		reflector_note_rv_back(r, rv, "a bookmark");
		reflector_set_rv(r, rv);
	}
	pthread_mutex_lock(&r->lock);
	int64_t now = wall_ms();
	r->stats.bookmarks++;
	if (r->stats.last_bookmark_ms)
		r->stats.bookmark_gap_ms = now - r->stats.last_bookmark_ms;
	r->stats.last_bookmark_ms = now;
	pthread_mutex_unlock(&r->lock);
	struct activity_info info = { .act = ACT_BOOKMARK };
	snprintf(info.rv, sizeof(info.rv), "%s", rv);
	reflector_emit_info(r, &info);
	return 0;
}

/*
 * An ERROR event ends the watch with its Status (reflector.go
 * handleAnyWatch returns apierrors.FromObject), judged as apimachinery
 * judges it, by its reason (http_status_is()): expired (Expired, Gone, a
 * 410) and a too large RV relist; too many requests (TooManyRequests, a
 * 429) backs off and re-watches from the last RV (isWatchErrorRetriable);
 * anything else ends the cycle.
 */
static int on_watch_error_event(struct watch_state *ws, json_object *obj)
{
	long c = json_object_get_int(json_get(obj, "code"));
	const char *m = json_get_text(obj, "message", "watch error");
	char buf[256];

	snprintf(buf, sizeof(buf), "watch error event (code %ld): %s", c, m);
	if (http_status_is(obj, API_EXPIRED))
		return end_watch(ws, EXPIRED, m);
	if (reflector_status_too_large(obj))
		return end_watch(ws, EXPIRED, buf);
	if (http_status_is(obj, API_TOO_MANY_REQUESTS))
		return end_watch(ws, RETRY, buf);
	return end_watch(ws, FAILED, buf);
}

/*
 * Watch health: when the last event came, and whether its RV went back.
 * An apiserver's watch hands out events in RV order; one older than the
 * event before it is a server bug (a watch cache that lost its place),
 * and client-go takes it without a word.  kinf counts it and says so.
 */
static void note_event_rv(struct reflector *r, const struct kobj *o)
{
	unsigned long long was, now;
	bool back = reflector_parse_rv(r->last_rv, &was) && reflector_parse_rv(o->rv, &now) &&
		    now < was;

	pthread_mutex_lock(&r->lock);
	r->stats.last_event_ms = wall_ms();
	if (back)
		r->stats.rv_backwards++;
	pthread_mutex_unlock(&r->lock);
	if (back)
		reflector_emit(r, ACT_WARNING, "resourceVersion went back on the watch: "
			       "%s after %s (%s); an apiserver bug: its watch cache may hand "
			       "out old state", o->rv, r->last_rv, o->key);
}

/* The health pane's silence warning is over (an event came, or the watch ended). */
static void watch_silence_clear(struct reflector *r)
{
	pthread_mutex_lock(&r->lock);
	r->stats.watch_silent[0] = '\0';
	pthread_mutex_unlock(&r->lock);
}

/*
 * No event and no bookmark for silence_ms: the apiserver sends a bookmark
 * about once a minute to a watch that allows them, so the watch may be
 * dead.  client-go does nothing about it (its watch lasts until its
 * timeoutSeconds, or until HTTP/2's health check closes the connection);
 * kinf says so, once, and does nothing either.  Returns when to look again.
 */
static int64_t watch_silence(struct watch_state *ws, int64_t now)
{
	struct reflector *r = ws->r;
	int64_t quiet = now - ws->last_event_ms;
	char msg[sizeof(r->stats.watch_silent)];

	if (quiet < r->silence_ms)
		return r->silence_ms - quiet;
	if (ws->silence_told)
		return r->silence_ms;
	ws->silence_told = true;
	long long left = ws->timeout_s - (now - ws->started_ms) / 1000;
	snprintf(msg, sizeof(msg), "no event or bookmark for %lld s: the watch may be dead; "
		 "client-go would wait for its timeout (%lld s left)",
		 (long long)(quiet / 1000), left > 0 ? left : 0);
	pthread_mutex_lock(&r->lock);
	snprintf(r->stats.watch_silent, sizeof(r->stats.watch_silent), "%s", msg);
	pthread_mutex_unlock(&r->lock);
	reflector_emit(r, ACT_WARNING, "%s", msg);
	return r->silence_ms;
}

/* Drops the initial event under e's key; the last item takes its place. */
static void initial_remove(struct watch_state *ws, struct hashmap_entry *e)
{
	struct list_state *ls = &ws->initial_items;
	size_t i = (uintptr_t)e->value, last = ls->nr - 1;
	struct kobj *gone = ls->items[i];

	hashmap_remove(&ws->initial_keys, gone->key, NULL);
	if (i != last) {
		ls->items[i] = ls->items[last];
		hashmap_find(&ws->initial_keys, ls->items[i]->key)->value = (void *)(uintptr_t)i;
	}
	ls->nr--;
	kobj_unref(gone);
}

/*
 * An event before the end bookmark, into the temporary Store of
 * client-go's watchList (handleListWatch): ADDED and MODIFIED put the
 * object under its key, in place of a copy already there; DELETED takes
 * it out.  None of them fails the stream.
 */
static void initial_event(struct watch_state *ws, enum kobj_event_type type, struct kobj *o)
{
	struct list_state *ls = &ws->initial_items;
	struct hashmap_entry *e = hashmap_find(&ws->initial_keys, o->key);

	if (type == KOBJ_EVENT_DELETED) {
		if (e)
			initial_remove(ws, e);
	} else if (e) {
		size_t i = (uintptr_t)e->value;
		kobj_unref(ls->items[i]);
		ls->items[i] = reflector_known_or(ws->r, kobj_ref(o));
		e->key = ls->items[i]->key;	/* the same string, in the copy kept */
	} else {
		ALLOC_GROW(ls->items, ls->nr + 1, ls->alloc);
		ls->items[ls->nr] = reflector_known_or(ws->r, kobj_ref(o));
		hashmap_insert(&ws->initial_keys, ls->items[ls->nr]->key, (void *)(uintptr_t)ls->nr);
		ls->nr++;
	}
}

/* The watch ends on a value client-go refuses; told in client-go's words. */
static int end_undecodable(struct watch_state *ws, const char *text, size_t len,
			   const char *own)
{
	struct strbuf why = STRBUF_INIT;
	char buf[sizeof(ws->message)];

	if (!watch_decode_error(text, len, &why))
		strbuf_adds(&why, own);	/* valid to Go, not to kinf: not met */
	snprintf(buf, sizeof(buf), "cannot decode a watch event: %s", strbuf_str(&why));
	strbuf_release(&why);
	return end_watch(ws, FAILED, buf);
}

static int on_watch_event(void *ctx, const char *text, size_t len)
{
	struct watch_state *ws = ctx;
	struct reflector *r = ws->r;
	struct kobj_event ev;
	struct errbuf err = { "" };
	bool initial = ws->initial;
	int ret = 0;

	/*
	 * What client-go's decoder (rest/watch/decoder.go) cannot decode, an
	 * unknown event type included, becomes an error event that ends the
	 * watch (apimachinery StreamWatcher.receive): the reflector relists.
	 */
	int rc = kobj_from_event(text, len, r->opts->kobj_flags | KOBJ_ALLOW_UNNAMED, &ev, &err);
	if (rc < 0 || ev.type == KOBJ_EVENT_UNKNOWN) {
		kobj_event_release(&ev);
		/* a line that is not one value: framed as client-go's framer frames it */
		if (rc < 0 && !ws->values.framed)
			return JSON_PIECE_REFRAME;
		return end_undecodable(ws, text, len, err.msg[0] ? err.msg : "unknown type");
	}
	ws->last_event_ms = now_ms(r);
	if (ws->silence_told) {
		ws->silence_told = false;
		watch_silence_clear(r);
	}

	if (ev.type == KOBJ_EVENT_BOOKMARK) {
		ret = on_watch_bookmark(ws, ev.tree);
	} else if (ev.type == KOBJ_EVENT_ERROR) {
		ret = on_watch_error_event(ws, ev.tree);
	} else {
		struct kobj *o = ev.obj;
		if (!o) {
			/* meta.Accessor failed: client-go logs it and goes on. */
			reflector_emit(r, ACT_WARNING, "skipped a %s watch event: %s",
				       ev.type_name, ev.obj_err.msg);
			kobj_event_release(&ev);
			return 0;
		}
		reflector_check_name(r, o);
		if (ws->initial) {
			initial_event(ws, ev.type, o);
		} else {
			if (ev.type == KOBJ_EVENT_ADDED)
				fifo_add(r->fifo, o);
			else if (ev.type == KOBJ_EVENT_MODIFIED)
				fifo_update(r->fifo, o);
			else
				fifo_delete(r->fifo, o);
			note_event_rv(r, o);
			/* Every event's RV, "" too (setLastSyncResourceVersion). */
			ws->rv_held &= ev.type == KOBJ_EVENT_ADDED;
			if (!ws->rv_held)
				reflector_set_rv(r, o->rv);
		}
	}
	/*
	 * What the Indexer will hold once this line's entries are popped:
	 * an event's, a bookmark's RV, the end of a streaming list.  Not an
	 * ERROR, nor an event skipped or gathered for a streaming list.
	 */
	if (ev.type == KOBJ_EVENT_BOOKMARK ? !ws->initial
				       : ev.type != KOBJ_EVENT_ERROR && !initial)
		reflector_place(r, ws->tap_x, ws->values.value_end - ws->fed_before);
	ws->events++;
	if (initial && !ws->initial) {
		/*
		 * The end bookmark handed the stream over: client-go's watch()
		 * starts its clock and its count of events anew for it (a
		 * VeryShortWatchError is judged on the watch alone).
		 */
		ws->events = 0;
		ws->started_ms = now_ms(r);
	}
	STAT_INC(r, events);
	kobj_event_release(&ev);
	return ret;
}

/*
 * What the transfer handed on, split into values and each decoded.  The
 * FIFO wakes its consumer once at the end, not once an event, so that a
 * burst costs a wake-up per read instead of one per event.
 */
static int on_watch_data(void *ctx, const char *data, size_t len)
{
	struct watch_state *ws = ctx;
	int rc;

	ws->last_byte_ms = now_ms(ws->r);
	idle_work_begin();
	fifo_hold(ws->r->fifo);
	rc = value_splitter_feed(&ws->values, data, len);
	fifo_unhold(ws->r->fifo, &ws->r->place);
	idle_work_end(len);
	/*
	 * client-go's framer refuses a value over 16 MiB (ErrObjectTooLarge),
	 * and the StreamWatcher's error event ends the watch: a relist.  An
	 * event that ended the watch (ws->verdict) stops the reading too.
	 */
	if (rc < 0 && ws->values.too_large)
		return end_watch(ws, FAILED, "watch event larger than 16 MiB");
	return rc < 0 ? -1 : 0;
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
	reflector_emit_infov(r, &info, fmt, ap);
	va_end(ap);
}

/*
 * The watch's clock.  While a streaming list waits for its end bookmark,
 * client-go warns every 10 s without an event ("event bookmark expired");
 * it sets no deadline of its own: the watch's timeoutSeconds ends it.
 * Once watching, a watch without events is reported (watch_silence());
 * with --renew-silent, one silent (no byte) for renew_ms is ended to be
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
		reflector_emit(ws->r, ACT_WARNING, "streaming list: no event for %lld s, "
			       "still waiting for its end bookmark (%zu objects so far)",
			       (long long)(quiet / 1000), ws->initial_items.nr);
		return WATCH_LIST_WARN_MS;
	}
	int64_t next = watch_silence(ws, now);
	if (ws->r->renew_ms) {
		int64_t silent = now - ws->last_byte_ms, limit = ws->r->renew_ms;
		if (silent >= limit) {
			ws->renewing = true;
			return -1;
		}
		if (limit - silent < next)
			next = limit - silent;
	}
	return next;
}

/* The first tick: the streaming list's warning, or the watch's silence rules. */
static int64_t first_tick_ms(const struct reflector *r, bool initial)
{
	if (initial)
		return WATCH_LIST_WARN_MS;
	if (r->renew_ms && r->renew_ms < r->silence_ms)
		return r->renew_ms;
	return r->silence_ms;
}

/* A non-2xx answer's one line: "list pods: ... (429)", verb "list" or "watch". */
static void status_line(const struct reflector *r, const struct http_response *resp,
			const char *verb, struct errbuf *err)
{
	char what[128];

	snprintf(what, sizeof(what), "%s %s", verb, r->opts->resource->name);
	http_status_message(resp, what, err);
}

/*
 * The REST client's retries of a watch request that got no answer are
 * spent (watch_request() stops there), the last an EOF, a reset or a
 * timeout: rest.Request.Watch then hands back an empty watch, no error.
 */
static bool empty_watch(const struct http_response *resp, int rc)
{
	return http_no_answer_retriable(resp, rc) && !resp->stream_broken;
}

/*
 * What a watch request's failed answer is to the reflector: what its
 * Status says from 1.32, its HTTP code alone before (profile.h).
 */
static bool watch_answer_is(const struct reflector *r, const struct http_response *resp,
			    enum api_error what)
{
	return r->opts->watch_reads_status ? http_answer_is(resp, what) : http_code_is(resp, what);
}

/*
 * A streaming list that ended before its end bookmark: what client-go's
 * watchList (1.29+) does next.  410 or a too large RV: again at once
 * from ""; a 429 or a refused connection (isWatchErrorRetriable): again
 * after the reflector's backoff; a stream that ended, cleanly or broken
 * as an EOF (client-go's StreamWatcher takes it for the end of the
 * stream), or the empty watch of spent REST retries, and was not a very
 * short one: again at once; anything else, a 5xx whose Retry-After the
 * REST client waited out ten times and a 4xx refusal included: LIST, for
 * this ListAndWatch only (ListAndWatchWithContext's fallbackToList), or
 * with 1.28, end the cycle.
 */
static enum outcome streaming_list_outcome(struct reflector *r, struct watch_state *ws,
					   int rc, const struct http_response *resp,
					   const char *errmsg, int64_t lasted)
{
	struct errbuf err = { "" };
	const char *msg;
	bool refusal = resp->status >= 400 && resp->status < 500;

	/* isErrorRetriableWithSideEffectsFn: too many requests, then expired */
	if (rc == 0 && watch_answer_is(r, resp, API_TOO_MANY_REQUESTS)) {
		status_line(r, resp, "list", &err);
		STAT_INC(r, throttled);
		reflector_fail(r, err.msg);
		return RESTREAM_LATER;
	}
	if (ws->verdict == EXPIRED || watch_answer_is(r, resp, API_EXPIRED) ||
	    reflector_resp_too_large(resp)) {
		reflector_emit(r, ACT_WARNING, "streaming list: resourceVersion unavailable "
			       "(%s), again from \"\"",
			       ws->verdict == EXPIRED ? ws->message : "HTTP status");
		r->rv_unavailable = true;
		return RESTREAM;
	}
	if (ws->verdict == RETRY || resp->refused) {
		reflector_fail(r, ws->verdict == RETRY ? ws->message : errmsg);
		return RESTREAM_LATER;
	}
	if (ws->verdict == OK && (empty_watch(resp, rc) ||
				  (resp->status >= 200 && resp->status <= 299 && !resp->stream_broken))) {
		if (ws->events || lasted >= SHORT_WATCH_MS) {
			reflector_emit(r, ACT_WARNING, "streaming list %s before its end "
				       "bookmark (%zu objects): again", rc < 0 ? "broken" : "ended",
				       ws->initial_items.nr);
			return RESTREAM;
		}
		msg = "very short streaming list: ended at once without events";
	} else if (ws->verdict != OK) {
		msg = ws->message;
	} else if (rc < 0) {
		msg = errmsg;
	} else {
		status_line(r, resp, "list", &err);
		msg = err.msg;
	}
	if (refusal && (r->opts->watch_list_any_fallback || resp->status == 422)) {
		/*
		 * No error handler in client-go: ListAndWatch only logs it (a
		 * warning to 1.32, an error line in 1.33, V(4) "expected" from 1.34)
		 */
		char *why = http_status_member(resp, "message");
		/* (the next relist streams again) */
		reflector_emit(r, ACT_WARNING, "the server refused the streaming list (%ld): "
			       "listing with LIST this time%s%s",
			       resp->status, why ? ": " : "", why ? why : "");
		free(why);
		return FALLBACK;
	}
	reflector_fail_status(r, resp, msg);
	if (r->opts->watch_list_any_fallback)
		return FALLBACK;
	return FAILED;
}

/* A parameter as client-go's ListOptions has it: an empty one is left out. */
static void query_add_set(struct strbuf *q, const char *name, const char *value)
{
	if (value && *value)
		url_query_add(q, name, value);
}

/*
 * The watch's request: from the last RV, or a streaming list's.  Spelt
 * as client-go spells it: its parameter codec writes booleans as "true",
 * leaves empty parameters out, and url.Values.Encode() sorts the keys.
 */
static char *watch_path(struct reflector *r, bool initial, int timeout_s)
{
	struct strbuf q = STRBUF_INIT;
	const char *rv = initial && r->rv_unavailable ? "" : r->last_rv;
	char num[16];

	snprintf(num, sizeof(num), "%d", timeout_s);
	url_query_add(&q, "allowWatchBookmarks", "true");
	query_add_set(&q, "fieldSelector", r->opts->field_selector);
	query_add_set(&q, "labelSelector", r->opts->label_selector);
	query_add_set(&q, "resourceVersion", rv);
	if (initial) {
		url_query_add(&q, "resourceVersionMatch", "NotOlderThan");
		url_query_add(&q, "sendInitialEvents", "true");
	}
	url_query_add(&q, "timeoutSeconds", num);
	url_query_add(&q, "watch", "true");
	char *path = xasprintf("%s%s", r->path, strbuf_str(&q));
	strbuf_release(&q);
	return path;
}

/* The stats and the activity of a watch about to be opened. */
static void watch_opening(struct reflector *r, bool initial, int timeout_s)
{
	STAT_INC(r, watches);
	pthread_mutex_lock(&r->lock);
	r->stats.watch_since_ms = wall_ms();
	r->stats.watch_timeout_s = timeout_s;
	pthread_mutex_unlock(&r->lock);
	if (initial) {
		reflector_set_state(r, STATE_LISTING);
		reflector_emit(r, ACT_LIST_START, "streaming list");
		STAT_INC(r, lists);
	} else {
		reflector_set_state(r, STATE_WATCHING);
		reflector_emit(r, ACT_WATCH_OPEN, NULL);
	}
}

/* How one watch ended, once the transfer is over: what watch_outcome() reads. */
struct watch_end {
	struct reflector *r;
	struct watch_state *ws;
	int rc;				/* kclient_stream's */
	const struct http_response *resp;
	const char *errmsg;		/* the transfer's error, when rc < 0 */
	int64_t lasted;			/* ms */
	bool healthy;			/* it ended as a working watch ends */
};

static enum outcome end_expired_event(struct watch_end *e)
{
	struct reflector *r = e->r;

	STAT_INC(r, expired);
	reflector_note_relist_reason(r, "watch expired: %s", e->ws->message);
	reflector_emit(r, ACT_WATCH_EXPIRED, "%s", e->ws->message);
	return EXPIRED;
}

static enum outcome end_renewed(struct watch_end *e)
{
	STAT_INC(e->r, stalls);
	reflector_emit(e->r, ACT_WATCH_STALLED, "silent for %lld s; --renew-silent, kinf's own",
		       (long long)(e->r->renew_ms / 1000));
	e->healthy = true;
	return OK;
}

static enum outcome end_very_short(struct watch_end *e)
{
	STAT_INC(e->r, short_watches);
	reflector_fail(e->r, "very short watch: ended at once without events");
	return FAILED;
}

/*
 * Still no answer after the REST client's retries, the last an EOF, a
 * reset or a timeout: rest.Request.Watch returns watch.NewEmptyWatch(),
 * no error, and handleWatch sees it close at once.  Its clock started
 * before the first try, ten 1 s waits ago: no very short watch, and the
 * reflector watches again from the same RV.
 */
static enum outcome end_empty(struct watch_end *e)
{
	if (e->lasted < SHORT_WATCH_MS)
		return end_very_short(e);
	emit_watch_end(e->r, e->ws, e->lasted, "no answer after the REST client's %d retries "
		       "(%s): an empty watch", HTTP_MAX_RETRIES, e->errmsg);
	return OK;
}

/*
 * An HTTP/2 stream broke with an error that is no EOF (the connection's
 * PING went unanswered, the server reset the stream): StreamWatcher's
 * ERROR event, an InternalError (500) that handleWatch returns and the
 * reflector's watch() does not retry; or, before the answer, Watch()'s
 * error: the cycle ends, backoff, relist.  The event's message is
 * StreamWatcher's, around the words of Go's HTTP/2 transport.
 */
static enum outcome end_stream_broken(struct watch_end *e)
{
	char msg[sizeof(e->r->stats.last_error)];
	const char *why = *e->resp->stream_error ? e->resp->stream_error : e->errmsg;

	/* Before the answer: Watch() fails with the error itself. */
	if (e->resp->status)
		snprintf(msg, sizeof(msg), "watch error event (code 500): unable to decode an "
			 "event from the watch stream: %s", why);
	else
		snprintf(msg, sizeof(msg), "%s", e->errmsg);
	reflector_fail(e->r, msg);
	return FAILED;
}

/* The connection broke mid-watch: reopen from the last RV. */
static enum outcome end_connection_lost(struct watch_end *e)
{
	emit_watch_end(e->r, e->ws, e->lasted, "connection lost: %s", e->errmsg);
	return OK;
}

static enum outcome end_gone(struct watch_end *e)
{
	STAT_INC(e->r, expired);
	reflector_emit(e->r, ACT_WATCH_EXPIRED, e->resp->status == 410 ? "HTTP 410" :
		       "too large resource version (HTTP 504)");
	return EXPIRED;
}

/*
 * An answer that is too many requests (watch_answer_is(): a 429, or from
 * 1.32 a Status that says TooManyRequests), or a 5xx with Retry-After
 * that watch_request()'s retries did not get past: the first is
 * isWatchErrorRetriable (back off, re-watch from the last RV), the
 * second ends the cycle (backoff, relist).
 */
static enum outcome end_throttled(struct watch_end *e)
{
	struct errbuf err = { "" };

	status_line(e->r, e->resp, "watch", &err);
	reflector_fail(e->r, err.msg);
	return watch_answer_is(e->r, e->resp, API_TOO_MANY_REQUESTS) ? RETRY : FAILED;
}

static enum outcome end_bad_status(struct watch_end *e)
{
	struct errbuf err = { "" };

	status_line(e->r, e->resp, "watch", &err);
	reflector_fail_status(e->r, e->resp, err.msg);
	return FAILED;
}

/*
 * client-go's "Unexpected EOF during watch stream event decoding": the
 * event comes again from the last RV, but say so.
 */
static enum outcome end_closed(struct watch_end *e)
{
	emit_watch_end(e->r, e->ws, e->lasted, value_splitter_pending(&e->ws->values)
		       ? "cut in the middle of an event" : NULL);
	e->healthy = true;
	return OK;
}

/*
 * Decides, reports and returns what the watch that ended comes to: the
 * first case that applies, each named as client-go's reflector names it
 * (or as kinf does, for what client-go lacks).  Its report says so and
 * counts it; its outcome tells list_and_watch() what comes next.
 */
static enum outcome watch_outcome(struct watch_end *e)
{
	struct reflector *r = e->r;
	struct watch_state *ws = e->ws;
	const struct http_response *resp = e->resp;
	bool failed = e->rc < 0;
	bool brief = ws->events == 0 && e->lasted < SHORT_WATCH_MS;
	bool ok_json = resp->status >= 200 && resp->status <= 299 &&
		       http_json_media_type(resp->content_type);

	if (stop_requested(&r->stop))				/* stop requested */
		return STOPPED;
	if (resp->recording_ended)	/* replay: no end to report; the next request waits for the stop */
		return OK;
	if (ws->initial)					/* watch list */
		return streaming_list_outcome(r, ws, e->rc, resp, e->errmsg, e->lasted);
	if (ws->verdict == EXPIRED)				/* expired */
		return end_expired_event(e);
	if (ws->verdict != OK) {				/* watch error event */
		reflector_fail(r, ws->message);
		return ws->verdict;
	}
	if (failed && ws->renewing)		/* renewed after its silence (kinf's own) */
		return end_renewed(e);
	if (failed && resp->refused) {	/* isWatchErrorRetriable: back off, re-watch */
		reflector_fail(r, e->errmsg);
		return RETRY;
	}
	if (empty_watch(resp, e->rc))				/* empty watch (no answer) */
		return end_empty(e);
	if (failed && resp->stream_broken)			/* watch stream error */
		return end_stream_broken(e);
	if (failed && !brief)					/* connection lost */
		return end_connection_lost(e);
	/*
	 * A stream cut with nothing on it within a second: StreamWatcher
	 * takes the cut for the stream's end, handleWatch for a very short
	 * watch.  (An answer that is not JSON at all is no cut: Watch() fails.)
	 */
	if (failed && ok_json)
		return end_very_short(e);
	if (failed) {						/* failed to watch */
		reflector_fail(r, e->errmsg);
		return FAILED;
	}
	if (watch_answer_is(r, resp, API_TOO_MANY_REQUESTS))	/* too many requests */
		return end_throttled(e);
	if (resp->status == 410 || reflector_resp_too_large(resp))	/* gone, too large RV */
		return end_gone(e);
	if (http_rest_retriable(resp))				/* REST retries spent */
		return end_throttled(e);
	if (resp->status < 200 || resp->status > 299)		/* failed to watch (status) */
		return end_bad_status(e);
	if (brief)						/* very short watch */
		return end_very_short(e);
	return end_closed(e);					/* watch closed */
}

/*
 * The watch's request, retried as client-go's rest.Request.Watch retries
 * (with_retry.go IsNextRetry, up to maxRetries 10 in all): one that got
 * no answer (an EOF, a reset or a timeout is an artificial Retry-After:
 * 1), and a 429 or 5xx that says Retry-After (checkWait).  Only then does
 * the reflector see the failure.  No event came on such an attempt, so
 * the watch's state is as it was.
 */
static int watch_request(struct reflector *r, const char *path, const struct stream_opts *so,
			 struct watch_state *ws, struct http_response *resp, struct errbuf *err)
{
	struct stream_opts once = *so;

	for (unsigned attempt = 1;; attempt++) {
		ws->fed_before = ws->values.fed;	/* what earlier attempts brought */
		once.retry = attempt > 1;	/* throttled, where a first try is not */
		int rc = kclient_stream(r->client, path, &once, on_watch_data, ws, resp, err);
		bool status_retry = rc == 0 && rest_retries(resp);

		/* Watch's isErrRetryableFunc: an EOF or a timeout, no lost HTTP/2 connection. */
		if ((!status_retry && !empty_watch(resp, rc)) ||
		    attempt > HTTP_MAX_RETRIES || stop_requested(&r->stop))
			return rc;
		if (!(status_retry ? reflector_throttled(r, resp) : reflector_no_answer_wait(r, attempt)))
			return rc;
		http_response_release(resp);
		memset(resp, 0, sizeof(*resp));
		err->msg[0] = '\0';
		/*
		 * handleWatch's clock started before Watch() and its retries:
		 * only kinf's own silence report starts anew.
		 */
		ws->last_event_ms = ws->last_byte_ms = now_ms(r);
	}
}

enum outcome reflector_watch(struct reflector *r, bool initial)
{
	int timeout_s = WATCH_MIN_TIMEOUT_S + (int)(rand_unit() * WATCH_MIN_TIMEOUT_S);
	struct watch_state ws = {
		.r = r, .verdict = OK, .initial = initial, .timeout_s = timeout_s,
	};
	char *path = watch_path(r, initial, timeout_s);
	struct stream_opts sopts = {
		.stop = &r->stop.flag,
		.stop_fd = stop_fd(&r->stop),
		.record_as = r->path,
		.tap_x = &ws.tap_x,
		.limiter = r->opts->limiter,
		/*
		 * No idle limit, a streaming list's initial events included:
		 * client-go's watchList only warns (watch_tick).
		 */
		.idle_timeout_ms = 0,
		/*
		 * No deadline either: the server ends it at timeoutSeconds,
		 * and client-go sets none of its own.
		 */
		.tick = watch_tick,
		.tick_ctx = &ws,
		.tick_ms = first_tick_ms(r, initial),
	};
	struct http_response resp = { 0 };
	struct errbuf err = { "" };

	value_splitter_init(&ws.values, on_watch_event, &ws);
	ws.initial_items.r = r;
	ws.rv_held = !initial && r->opts->hold_rv_of_adds &&
		     (!r->last_rv[0] || !strcmp(r->last_rv, "0"));
	ws.last_event_ms = ws.last_byte_ms = ws.started_ms = now_ms(r);
	watch_opening(r, initial, timeout_s);

	int rc = watch_request(r, path, &sopts, &ws, &resp, &err);
	free(path);
	/*
	 * A stream that ends inside an event is an EOF to client-go's
	 * decoder, unless the event is no JSON already: its scanner stopped
	 * at the bad byte, an error event, a relist.
	 */
	if (ws.verdict == OK && value_splitter_broken(&ws.values))
		end_watch(&ws, FAILED, "cannot decode a watch event: malformed JSON");
	struct watch_end end = {
		.r = r, .ws = &ws, .rc = rc, .resp = &resp, .errmsg = err.msg,
		.lasted = now_ms(r) - ws.started_ms,
	};
	pthread_mutex_lock(&r->lock);
	r->stats.watch_since_ms = 0;
	r->stats.watch_silent[0] = '\0';
	pthread_mutex_unlock(&r->lock);

	enum outcome ret = watch_outcome(&end);
	if (ret != STOPPED && ret != EXPIRED && !ws.initial && (ws.events || end.healthy))
		r->watch_worked_until_ms = now_ms(r);
	value_splitter_release(&ws.values);
	reflector_list_state_clear(&ws.initial_items);
	free(ws.initial_items.items);
	hashmap_release(&ws.initial_keys);
	http_response_release(&resp);
	return ret;
}

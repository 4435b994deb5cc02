/*
 * reflector_list.c — the reflector's LIST: client-go's paging rules, the
 * pages through cluster/pager.h, what a failed list comes to, and the
 * list's items to the FIFO as one Replace.
 *
 * The pager hands each item's text to on_list_item() on the reflector's
 * thread as the body streams in, which decodes it into the list_state.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "cluster/pager.h"
#include "informer/reflector_list.h"
#include "lib/idle.h"
#include "lib/json_get.h"

#define DEFAULT_PAGE_SIZE 500

/*
 * A relist of 100,000 unchanged pods then holds one copy of each, not
 * two, and the long-lived objects stay where they are in the heap instead
 * of being replaced by copies made in between the churn's.
 */
struct kobj *reflector_known_or(struct reflector *r, struct kobj *obj)
{
	struct kobj *known = r->hooks.same ? r->hooks.same(r->hooks.ctx, obj) : NULL;

	if (!known)
		return obj;
	kobj_unref(obj);
	return known;
}

void reflector_list_state_clear(struct list_state *ls)
{
	for (size_t i = 0; i < ls->nr; i++)
		kobj_unref(ls->items[i]);
	ls->nr = 0;
}

/*
 * client-go's paging rules: an explicit page size always; else pages of
 * 500, except for a relist at a known RV, which the watch cache serves in
 * one response (a limit would send it to etcd) — unless a list at "0"
 * that worked showed this server pages even there.  Decided once a list,
 * from the RV it first asks for: list()'s pager keeps its PageSize for
 * the retry at "" after that RV proved too old or too large.
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
 * clock runs across its pages.
 */
#define LIST_WARN_MS 10000

/* One list_pages() call: what the pager's hooks work on. */
struct list_pass {
	struct reflector *r;
	struct list_state *ls;
	const char *rv;			/* asked for */
	char *rv_out;			/* RV_SIZE: the first page's */
	bool first_read;		/* rv_out holds it */
	unsigned no_answer_tries;	/* of the page being asked for */
	bool paginated;			/* a page had a continue token (pager's paginatedResult) */
};

/*
 * The pager's item becomes a kobj; one it cannot be ends the list.  A
 * null item is an empty object to the dynamic client (decodeToList),
 * given the list's kind: kept under the key "".
 */
static int on_list_item(void *ctx, const char *text, size_t len)
{
	struct list_state *ls = ((struct list_pass *)ctx)->ls;

	if (len == 4 && !memcmp(text, "null", 4)) {
		text = "{}";
		len = 2;
	}
	idle_work_begin();
	struct kobj *obj = kobj_from_list_item(text, len, &ls->r->type,
					       ls->r->opts->kobj_flags | KOBJ_ALLOW_UNNAMED,
					       &ls->err);
	if (obj) {
		reflector_check_name(ls->r, obj);
		ALLOC_GROW(ls->items, ls->nr + 1, ls->alloc);
		ls->items[ls->nr++] = reflector_known_or(ls->r, obj);
	}
	idle_work_end(len);
	return obj ? 0 : -1;
}

static void list_request(void *ctx, unsigned page)
{
	struct list_pass *lp = ctx;

	pthread_mutex_lock(&lp->r->lock);
	lp->r->stats.list_page = page;
	pthread_mutex_unlock(&lp->r->lock);
}

/*
 * A 2xx answer that is no list: a Status ("etcd is down" with a 200, as a
 * broken proxy or aggregated server sends) or another object.  client-go's
 * dynamic client reads it as a list of no items (Unstructured.ToList up
 * to 1.31, decodeToList from 1.32), with the RV of its metadata, and a
 * relist then deletes every cached object: kinf does the same, and says
 * so.
 */
static void told_no_items(struct reflector *r, json_object *doc)
{
	const char *kind = json_get_str(doc, "kind", "");

	if (!strcmp(kind, "Status"))
		reflector_emit(r, ACT_WARNING, "the list's answer is a Status (%d: %s): "
			       "client-go's dynamic client reads it as a list of no items",
			       json_object_get_int(json_get(doc, "code")),
			       json_get_text(doc, "message", "no message"));
	else
		reflector_emit(r, ACT_WARNING, "the list's answer is no list (kind '%.60s', no "
			       "items): client-go's dynamic client reads it as a list of no items",
			       kind);
}

static void list_page_read(void *ctx, const struct pager_page *p)
{
	struct list_pass *lp = ctx;
	struct reflector *r = lp->r;
	struct activity_info info = { .act = ACT_LIST_PAGE, .count = p->items };

	/* tools/pager: the list is the first page's RV, whatever later ones say */
	if (!lp->first_read)
		snprintf(lp->rv_out, RV_SIZE, "%s", p->rv);
	lp->first_read = true;
	lp->no_answer_tries = 0;
	STAT_INC(r, pages);
	reflector_emit_info(r, &info);
	if (p->no_items)
		told_no_items(r, p->no_items);
	if (p->cont)
		lp->paginated = true;
}

static int list_retry(void *ctx, const struct http_response *resp)
{
	struct list_pass *lp = ctx;

	/*
	 * request(): an EOF or a reset is retried 1 s later, a timeout is
	 * not (Do's isErrRetryableFunc); a lost HTTP/2 connection from 1.32 on.
	 */
	if (resp->no_answer && !resp->no_answer_timeout &&
	    (!resp->stream_broken || lp->r->opts->list_retries_h2_lost)) {
		lp->no_answer_tries++;
		return reflector_no_answer_wait(lp->r, lp->no_answer_tries) ? 1 : -1;
	}
	/*
	 * request() retries only what says Retry-After, a too large RV's
	 * 504 included (list_status() relists at "" once the retries are
	 * spent).  A 429 without it fails the list: the next one, after the
	 * backoff, starts again from its first page.
	 */
	if (!rest_retries(resp))
		return 0;
	return reflector_throttled(lp->r, resp) ? 1 : -1;
}

/* The continue token expired: one full list instead. */
static void list_restart(void *ctx)
{
	struct list_pass *lp = ctx;

	STAT_INC(lp->r, list_fallbacks);
	lp->first_read = false;	/* the full list's RV, then */
	reflector_emit(lp->r, ACT_LIST_FALLBACK, "continue token expired, listing in full");
	reflector_list_state_clear(lp->ls);
}

static void list_slow(void *ctx, int64_t elapsed_ms, size_t items, unsigned page)
{
	struct list_pass *lp = ctx;

	reflector_emit(lp->r, ACT_WARNING, "still listing after %llds: %zu objects so far, page %u",
		       (long long)(elapsed_ms / 1000), items, page);
}

/* A non-2xx answer to the list: relist at "", or fail the cycle. */
static enum outcome list_status(struct reflector *r, const char *rv,
				const struct http_response *resp, const char *msg)
{
	if (reflector_resp_too_large(resp)) {
		/*
		 * The server is behind our RV (restored from a backup?), and
		 * its 504's Retry-After was honoured ten times (list_retry()).
		 */
		reflector_emit(r, ACT_WARNING, "the server's resourceVersion is behind %s: "
			       "listing at \"\" (too large resource version)", *rv ? rv : "\"\"");
		return EXPIRED;
	}
	if (http_answer_is(resp, API_EXPIRED))	/* isExpiredError: the Status's reason decides */
		return EXPIRED;
	/*
	 * Anything else ends the cycle, a 400 included, before the first
	 * list or after it: client-go's Run lists again after the backoff,
	 * at the same RV, for ever.
	 */
	reflector_fail_status(r, resp, msg);
	return FAILED;
}

/* The reflector's words for what a list's body can be instead of a list. */
static const char *const list_body_errors[] = {
	[PAGER_TOO_LARGE_PIECE] = "list response holds a piece larger than 16 MiB",
	[PAGER_MALFORMED] = "malformed list response",
	[PAGER_ENDED_EARLY] = "list response ended early",
	[PAGER_NO_KIND] = "list response without a kind",
	[PAGER_ITEMS_NOT_ARRAY] = "list response whose items are no array",
};

/* How a list that did not end PAGER_OK ends the reflector's attempt. */
static enum outcome list_failed(struct reflector *r, struct list_pass *lp,
				const struct pager_result *res, struct errbuf *err)
{
	char msg[200];

	/*
	 * A replay whose recording stops in the middle of this list: no
	 * error the server never made, and no relist: the caller asks again,
	 * which waits for the stop, as after a watch the recording cut.
	 */
	if (res->resp.recording_ended && res->end != PAGER_STOPPED) {
		pthread_mutex_lock(&r->lock);
		r->stats.recording_ended = true;
		pthread_mutex_unlock(&r->lock);
		return RETRY;
	}
	if (res->end < ARRAY_SIZE(list_body_errors) && list_body_errors[res->end]) {
		reflector_fail(r, list_body_errors[res->end]);
		return FAILED;
	}
	switch (res->end) {
	case PAGER_STOPPED:
		return STOPPED;
	case PAGER_REFUSED:	/* an item that is no object (on_list_item()) */
		reflector_fail(r, lp->ls->err.msg);
		return FAILED;
	case PAGER_NOT_JSON:
		snprintf(msg, sizeof(msg), "list response is not JSON: %s", res->begins);
		reflector_fail(r, msg);
		return FAILED;
	case PAGER_STATUS:
		return list_status(r, lp->rv, &res->resp, err->msg);
	default:	/* PAGER_FAILED */
		reflector_fail(r, err->msg);
		return FAILED;
	}
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/*
 * One LIST, all its pages, into ls->items.  rv_out gets the list's RV,
 * *paginated whether a page had a continue token.
 */
static enum outcome list_pages(struct reflector *r, const char *rv, unsigned limit,
			       struct list_state *ls, char rv_out[RV_SIZE], bool *paginated)
{
	struct list_pass lp = { .r = r, .ls = ls, .rv = rv, .rv_out = rv_out };
	struct pager_opts po = {
		.path = r->path,
		.limit = limit,
		.rv = rv,
		.label_selector = nonempty(r->opts->label_selector),
		.field_selector = nonempty(r->opts->field_selector),
		.full_list_fallback = true,
		.dynamic = true,
		.warn_ms = LIST_WARN_MS,
		.stream = {
			.stop = &r->stop.flag,
			.stop_fd = stop_fd(&r->stop),
			.record_as = r->path,
			.tap_x = &ls->tap_x,
			.limiter = r->opts->limiter,
			/* None: client-go's list waits as long as it takes (list_slow() tells). */
		},
	};
	struct pager_hooks hooks = {
		.ctx = &lp,
		.item = on_list_item,
		.request = list_request,
		.page = list_page_read,
		.retry = list_retry,
		.restart = list_restart,
		.slow = list_slow,
	};
	struct pager_result res;
	struct errbuf err = { "" };
	char what[128];
	enum outcome ret = OK;

	snprintf(what, sizeof(what), "list %s", r->opts->resource->name);
	if (pager_list(r->client, &po, what, &hooks, &res, &err) < 0)
		ret = list_failed(r, &lp, &res, &err);
	pager_result_release(&res);
	*paginated = lp.paginated;
	return ret;
}

/* "0" first, then the last synced RV, "" once that was too old. */
static const char *relist_rv(struct reflector *r)
{
	if (r->rv_unavailable)
		return "";
	return r->last_rv[0] ? r->last_rv : "0";
}

enum outcome reflector_list(struct reflector *r)
{
	struct list_state ls = { .r = r };
	char rv[RV_SIZE];
	/* the RV asked first: a retry at "" keeps its page size and its rule */
	bool at_zero = !strcmp(relist_rv(r), "0"), paginated = false, again = false;
	unsigned limit = page_limit(r, relist_rv(r));
	enum outcome ret;

	reflector_set_state(r, STATE_LISTING);
	reflector_emit(r, ACT_LIST_START, NULL);
	STAT_INC(r, lists);
	for (;;) {
		ret = list_pages(r, relist_rv(r), limit, &ls, rv, &paginated);
		if (ret == RETRY) {	/* the recording ended (list_failed()) */
			reflector_list_state_clear(&ls);
			continue;
		}
		if (ret != EXPIRED || again)
			break;
		/*
		 * Too old to list at: client-go lists again at "" at once, and
		 * once, whatever it asked first: "" too (a list at "" whose
		 * continue token expired without the reason Expired, which its
		 * pager does not answer with a full list).
		 */
		STAT_INC(r, expired);
		r->rv_unavailable = true;
		again = true;
		reflector_list_state_clear(&ls);
	}
	if (ret == EXPIRED)
		reflector_fail(r, "list expired again at resourceVersion \"\"");
	if (ret == OK) {
		/*
		 * A list at "0" that came in pages: the watch cache is off, so
		 * every later list pages too.  Only a list that worked tells.
		 */
		if (at_zero && paginated)
			r->paginated_result = true;
		/* Told before the Replace, so it precedes the deltas it makes. */
		struct activity_info info = { .act = ACT_LIST_DONE, .count = ls.nr };
		snprintf(info.rv, sizeof(info.rv), "%s", rv);
		reflector_emit_info(r, &info);

		/*
		 * The list is complete before its deltas can be popped: a
		 * reader that counts them (--max-deltas) must find it so.
		 */
		pthread_mutex_lock(&r->lock);
		r->stats.last_list_ms = wall_ms();
		pthread_mutex_unlock(&r->lock);
		struct replace_stats rs;
		fifo_hold(r->fifo);
		fifo_replace(r->fifo, ls.items, ls.nr, rv, r->list_no, &rs);
		if (r->hooks.replaced)
			r->hooks.replaced(r->hooks.ctx);
		r->rv_unavailable = false;
		reflector_note_rv_back(r, rv, "the list");
		reflector_set_rv(r, rv);
		reflector_place(r, ls.tap_x, FIFO_PLACE_END);
		fifo_unhold(r->fifo, &r->place);
		reflector_report_relist(r, &rs);
		r->list_no++;
	}
	reflector_list_state_clear(&ls);
	free(ls.items);
	return ret;
}

/*
 * reflector_impl.h — the reflector itself and what its files share:
 * reflector.c (the loop, backoff and the public API) uses
 * reflector_watch.c (WATCH and the streaming list), which uses
 * reflector_list.c (LIST, through the pager); all three use
 * reflector_impl.c (stats, activity, waits).  Private to them; it does
 * not include the public reflector.h, which sits above it.
 *
 * Every function here runs on the reflector's thread; those that touch
 * stats take r->lock themselves.
 */
#ifndef KINF_REFLECTOR_IMPL_H
#define KINF_REFLECTOR_IMPL_H

#include <pthread.h>
#include <stdarg.h>

#include "cluster/http.h"
#include "informer/activity.h"
#include "informer/fifo.h"
#include "informer/kobj.h"
#include "informer/reflector_hooks.h"
#include "lib/stop.h"

struct json_object;

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

	/* Reflector thread only. */
	char last_rv[RV_SIZE];
	/*
	 * What it has read up to, as its FIFO is told (fifo_unhold()):
	 * the end of the last line or list whose entries it queued.
	 */
	struct fifo_place place;
	bool rv_unavailable;		/* last_rv was too old: list at "" */
	unsigned list_no;
	bool paginated_result;		/* a list at "0" that worked came in pages */
	bool watching;			/* in the watch phase (hooks.watching) */
	/*
	 * When the last watch that worked ended, monotonic; 0: none yet.  A
	 * watch worked when it delivered events, or ended as a healthy watch
	 * ends (the server closed it cleanly, or kinf renewed it after its
	 * silence); not when it expired (410).  A relist reports the time
	 * since as its disconnected interval.
	 */
	int64_t watch_worked_until_ms;
	int64_t backoff_ms, last_backoff_ms, backoff_reset_ms;
	/* opts->stall_ms, or reflector.h's defaults; renew_ms 0: never */
	int64_t silence_ms, renew_ms;

	pthread_mutex_t lock;		/* guards stats */
	struct informer_stats stats;
};

/* What one attempt at a list or a watch came to. */
enum outcome {
	OK,		/* list done / watch ended cleanly: go on */
	EXPIRED,	/* 410, or a too large RV: relist */
	RETRY,		/* re-watch from the last RV (after a backoff); a list: ask again at once */
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
static inline int64_t now_ms(const struct reflector *r)
{
	return kclient_now_ms(r->client);
}

#define STAT_INC(r, field)                                                 \
	do {                                                               \
		pthread_mutex_lock(&(r)->lock);                            \
		(r)->stats.field++;                                        \
		pthread_mutex_unlock(&(r)->lock);                          \
	} while (0)

/* ---- reflector_impl.c ---- */

void reflector_set_state(struct reflector *r, enum informer_state state);
/* An activity record to the hooks, fmt (NULL: none) its message. */
void reflector_emit(struct reflector *r, enum activity act, const char *fmt, ...)
	PRINTF(3, 4);
void reflector_emit_info(struct reflector *r, struct activity_info *info);
void reflector_emit_infov(struct reflector *r, struct activity_info *info,
			  const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* After a Replace: a relist's record (reason, disconnected time); frees rs->sample. */
void reflector_report_relist(struct reflector *r, struct replace_stats *rs);
/* A failure: counted, kept as the last error, told to the listeners. */
void reflector_fail(struct reflector *r, const char *msg);
/*
 * A failure whose answer was resp: reflector_fail(), and when its status
 * is a refusal (reflector_impl.c) with msg saying it is retried, and
 * stats.refused until a list succeeds.
 */
void reflector_fail_status(struct reflector *r, const struct http_response *resp,
			   const char *msg);
/* The last RV seen (ignores ""). */
void reflector_set_rv(struct reflector *r, const char *rv);
/* r->place: what it queued came from exchange x up to off, at the last RV. */
void reflector_place(struct reflector *r, unsigned x, uint64_t off);
/*
 * Before rv replaces the last RV: when both are numbers and rv is lower,
 * counts it (stats.rv_backwards) and warns, `what` naming where it came
 * from ("the list", "a bookmark").  Only says so: client-go takes every
 * RV as it comes, and acts only on a too large RV's error.
 */
void reflector_note_rv_back(struct reflector *r, const char *rv, const char *what);
/* Why the cycle ends in a relist (stats.relist_reason), from fmt. */
void reflector_note_relist_reason(struct reflector *r, const char *fmt, ...) PRINTF(2, 3);
/* The watch phase began or ended: tells hooks.watching on a change. */
void reflector_set_watching(struct reflector *r, bool on);
/* Sleeps ms in STATE_BACKOFF; false when stopped meanwhile. */
bool reflector_wait_backoff(struct reflector *r, int64_t ms, const char *why);
/*
 * The REST client's retry of a request that got no answer (http.h
 * http_no_answer_retriable()): waits HTTP_NO_ANSWER_RETRY_MS, attempt
 * (1-based) of HTTP_MAX_RETRIES; false when stopped meanwhile.
 */
bool reflector_no_answer_wait(struct reflector *r, unsigned attempt);
/*
 * What client-go's REST client retries by itself for the reflector
 * (with_retry.go checkWait): a 429 or a 5xx that says Retry-After.  A 429
 * without it reaches the reflector at once (kinf's other callers wait a
 * second, http.h).
 */
static inline bool rest_retries(const struct http_response *resp)
{
	return http_rest_retriable(resp) && resp->retry_after_ms >= 0;
}
/* Waits out a 429 (or a 5xx with Retry-After); false when stopped meanwhile. */
bool reflector_throttled(struct reflector *r, const struct http_response *resp);
/* client-go's isTooLargeResourceVersionError, of a Status / of a 504 answer. */
bool reflector_status_too_large(struct json_object *status);
bool reflector_resp_too_large(const struct http_response *resp);
/*
 * Warns of an object without metadata.name: client-go caches it under
 * the key MetaNamespaceKeyFunc gives it ("ns/" or ""), and so does kinf.
 */
void reflector_check_name(struct reflector *r, const struct kobj *obj);
/* An RV as a number; false when it is none (RVs are opaque strings). */
bool reflector_parse_rv(const char *rv, unsigned long long *out);

#endif

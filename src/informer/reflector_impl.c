/*
 * reflector_impl.c — what the reflector's files share: its stats, the
 * activity it reports, its waits, and the reading of answers that both
 * its LIST and its WATCH meet.
 *
 * DESIGN (threads; the whole picture is in reflector.c): these run on
 * the reflector's thread.  The stats are read by any thread: every write
 * to them takes r->lock.
 */
#include "informer/reflector_impl.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"

/* ---- stats and activity ------------------------------------------------ */

void reflector_set_state(struct reflector *r, enum informer_state state)
{
	pthread_mutex_lock(&r->lock);
	if (r->stats.state != state) {
		r->stats.state = state;
		r->stats.state_since_ms = wall_ms();
	}
	pthread_mutex_unlock(&r->lock);
}

void reflector_emit_info(struct reflector *r, struct activity_info *info)
{
	info->list_no = r->list_no;
	if (!info->rv[0])
		snprintf(info->rv, sizeof(info->rv), "%s", r->last_rv);
	/* Both may quote the server: a notice is one line. */
	termsafe_line(info->message, sizeof(info->message));
	termsafe_line(info->rv, sizeof(info->rv));
	if (r->hooks.activity)
		r->hooks.activity(r->hooks.ctx, info);
}

/* reflector_emit_info() with info->message from fmt (NULL: none). */
void reflector_emit_infov(struct reflector *r, struct activity_info *info,
			  const char *fmt, va_list ap)
{
	if (fmt)
		vsnprintf(info->message, sizeof(info->message), fmt, ap);
	reflector_emit_info(r, info);
}

void reflector_emit(struct reflector *r, enum activity act, const char *fmt, ...)
{
	struct activity_info info = { .act = act };
	va_list ap;

	va_start(ap, fmt);
	reflector_emit_infov(r, &info, fmt, ap);
	va_end(ap);
}

void reflector_report_relist(struct reflector *r, struct replace_stats *rs)
{
	pthread_mutex_lock(&r->lock);
	r->stats.refused = r->stats.refused_not_found = false;	/* let in at last */
	pthread_mutex_unlock(&r->lock);
	if (r->list_no > 0) {
		struct activity_info rel = { .act = ACT_RELISTED, .replace = *rs };

		if (r->watch_worked_until_ms)
			rel.replace.disconnected_ms = now_ms(r) - r->watch_worked_until_ms;
		pthread_mutex_lock(&r->lock);
		r->stats.relists++;
		snprintf(rel.message, sizeof(rel.message), "%s", r->stats.relist_reason);
		pthread_mutex_unlock(&r->lock);
		reflector_emit_info(r, &rel);	/* the informer copies what it keeps */
	}
	relist_sample_free(rs->sample);
	rs->sample = NULL;
}

void reflector_fail(struct reflector *r, const char *msg)
{
	pthread_mutex_lock(&r->lock);
	r->stats.errors++;
	r->stats.last_error_ms = wall_ms();
	if ((size_t)snprintf(r->stats.last_error, sizeof(r->stats.last_error), "%s", msg) >=
	    sizeof(r->stats.last_error))
		str_mark_cut(r->stats.last_error, sizeof(r->stats.last_error), "...");
	pthread_mutex_unlock(&r->lock);
	reflector_emit(r, ACT_ERROR, "%s", msg);
}

/*
 * A refusal: a request the server will not take (400: a bad selector, a
 * resourceVersion it does not know), credentials it refuses (401, after
 * the HTTP layer refreshed them), a verb it forbids (403), a resource it
 * doesn't serve (404).  client-go's Run retries them with backoff
 * forever, so events flow once RBAC is granted or the CRD installed:
 * so does kinf, saying so on every retry (REFUSED_RETRY).
 */
static bool refused_status(long status)
{
	return status == 400 || status == 401 || status == 403 || status == 404;
}
#define REFUSED_RETRY "; retrying as client-go does"

void reflector_fail_status(struct reflector *r, const struct http_response *resp,
			   const char *msg)
{
	char why[sizeof(r->stats.last_error)];
	bool not_found = refused_status(resp->status) && http_answer_is(resp, API_NOT_FOUND);

	if (!refused_status(resp->status)) {
		reflector_fail(r, msg);
		return;
	}
	snprintf(why, sizeof(why), "%.*s%s", (int)(sizeof(why) - sizeof(REFUSED_RETRY)),
		 msg, REFUSED_RETRY);
	pthread_mutex_lock(&r->lock);
	r->stats.refused = true;
	r->stats.refused_not_found = not_found;
	pthread_mutex_unlock(&r->lock);
	reflector_fail(r, why);
}

_Static_assert(sizeof(((struct fifo_place *)0)->rv) == RV_SIZE, "a place holds any RV kept");

void reflector_place(struct reflector *r, unsigned x, uint64_t off)
{
	r->place.x = x;
	r->place.off = off;
	memcpy(r->place.rv, r->last_rv, sizeof(r->place.rv));
}

void reflector_set_rv(struct reflector *r, const char *rv)
{
	if (!rv)
		rv = "";
	snprintf(r->last_rv, sizeof(r->last_rv), "%s", rv);
	pthread_mutex_lock(&r->lock);
	snprintf(r->stats.rv, sizeof(r->stats.rv), "%s", rv);
	pthread_mutex_unlock(&r->lock);
}

void reflector_note_rv_back(struct reflector *r, const char *rv, const char *what)
{
	unsigned long long was, now;

	if (!reflector_parse_rv(r->last_rv, &was) || !reflector_parse_rv(rv, &now) || now >= was)
		return;
	pthread_mutex_lock(&r->lock);
	r->stats.rv_backwards++;
	pthread_mutex_unlock(&r->lock);
	reflector_emit(r, ACT_WARNING, "resourceVersion went back: %s returned %s after %s; "
		       "the server was restored or replaced, or its cache is behind "
		       "(client-go takes it as it comes)", what, rv, r->last_rv);
}

void reflector_note_relist_reason(struct reflector *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&r->lock);
	if (vsnprintf(r->stats.relist_reason, sizeof(r->stats.relist_reason), fmt, ap) >=
	    (int)sizeof(r->stats.relist_reason))
		str_mark_cut(r->stats.relist_reason, sizeof(r->stats.relist_reason), "...");
	pthread_mutex_unlock(&r->lock);
	va_end(ap);
}

void reflector_set_watching(struct reflector *r, bool on)
{
	if (r->watching == on)
		return;
	r->watching = on;
	if (r->hooks.watching)
		r->hooks.watching(r->hooks.ctx, on);
}

/* ---- waiting ------------------------------------------------------------ */

bool reflector_wait_backoff(struct reflector *r, int64_t ms, const char *why)
{
	pthread_mutex_lock(&r->lock);
	r->stats.backoffs++;
	r->stats.backoff_until_ms = wall_ms() + ms;
	pthread_mutex_unlock(&r->lock);
	reflector_set_state(r, STATE_BACKOFF);

	struct activity_info info = { .act = ACT_BACKOFF, .delay_ms = ms };
	snprintf(info.message, sizeof(info.message), "%s", why);
	reflector_emit_info(r, &info);
	return !kclient_sleep(r->client, &r->stop, ms);
}

bool reflector_no_answer_wait(struct reflector *r, unsigned attempt)
{
	char why[112];

	snprintf(why, sizeof(why), "no answer from the server: retrying as client-go's "
		 "REST client does (%u of %d)", attempt, HTTP_MAX_RETRIES);
	return reflector_wait_backoff(r, HTTP_NO_ANSWER_RETRY_MS, why);
}

bool reflector_throttled(struct reflector *r, const struct http_response *resp)
{
	char why[64];

	STAT_INC(r, throttled);
	snprintf(why, sizeof(why), "server asked to retry later (%ld)", resp->status);
	return reflector_wait_backoff(r, http_retry_delay_ms(resp), why);
}

/*
 * client-go's isTooLargeResourceVersionError: a Status whose causes
 * include ResourceVersionTooLarge, or (servers before 1.19) a timeout
 * whose message says "Too large resource version".
 */
bool reflector_status_too_large(json_object *status)
{
	json_object *causes = json_get_path(status, "details", "causes", NULL);

	for (size_t i = 0; i < json_get_len(causes); i++) {
		json_object *c = json_object_array_get_idx(causes, i);
		if (!strcmp(json_get_text(c, "reason", ""), "ResourceVersionTooLarge") ||
		    !strcmp(json_get_text(c, "message", ""), "Too large resource version"))
			return true;
	}
	return json_object_get_int(json_get(status, "code")) == 504 &&
	       strstr(json_get_text(status, "message", ""), "Too large resource version");
}

bool reflector_resp_too_large(const struct http_response *resp)
{
	if (resp->status != 504)
		return false;
	json_object *status = json_parse_deep(strbuf_str(&resp->body));
	bool yes = status && reflector_status_too_large(status);
	json_object_put(status);
	return yes;
}

bool reflector_parse_rv(const char *rv, unsigned long long *out)
{
	char *end;
	if (!*rv || *rv < '0' || *rv > '9')
		return false;
	errno = 0;
	*out = strtoull(rv, &end, 10);
	return !*end && !errno;
}

void reflector_check_name(struct reflector *r, const struct kobj *obj)
{
	if (*obj->name)
		return;
	reflector_emit(r, ACT_WARNING, "an object with no metadata.name: cached under key "
		       "\"%s\", as client-go does", obj->key);
}

/* oneshot.c — a one-shot command's wait for its informers; see oneshot.h. */
#include "cli/oneshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "informer/informer.h"

/*
 * How often the informers' stats are read for a refusal while they sync
 * (the sync itself wakes the wait at once).
 */
#define REFUSAL_POLL_MS 50

/* What ends a refusal's message (informer/reflector.h): a retry not made here. */
static const char retry_tail[] = "; retrying as client-go does";

/* How much of msg to print: all but the retry it promises. */
static int without_retry(const char *msg)
{
	size_t n = strlen(msg);

	if (str_ends_with(msg, retry_tail))
		n -= sizeof(retry_tail) - 1;
	return (int)n;
}

/*
 * The informer's list cycle ended refused: it waits out the backoff with
 * a refusal as its last error.
 */
static bool cycle_refused(const struct informer_stats *st)
{
	return st->refused && st->state == STATE_BACKOFF &&
	       str_ends_with(st->last_error, retry_tail);
}

/*
 * *first: the first informer of s not settled yet (s->nr: every one has),
 * each refused one's message into refused[] once.  -1 with err when one
 * never will settle: it stopped.
 */
static int unsettled(struct session *s, char **refused, size_t *first, struct errbuf *err)
{
	struct informer_stats st;

	*first = s->nr;
	for (size_t i = 0; i < s->nr; i++) {
		if (refused[i] || informer_has_synced(s->informers[i]))
			continue;
		informer_get_stats(s->informers[i], &st);
		if (cycle_refused(&st)) {
			refused[i] = xstrndup(st.last_error, (size_t)without_retry(st.last_error));
			continue;
		}
		if (st.state == STATE_STOPPED) {
			if (st.last_error[0])
				snprintf(err->msg, sizeof(err->msg), "%.*s",
					 without_retry(st.last_error), st.last_error);
			else
				snprintf(err->msg, sizeof(err->msg),
					 "the %s informer stopped before it synced",
					 s->resources[i]->name);
			return -1;
		}
		if (*first == s->nr)
			*first = i;
	}
	return 0;
}

void oneshot_refusals_free(char **refused, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(refused[i]);
	free(refused);
}

int oneshot_wait_settled(struct session *s, int64_t timeout_ms, char ***refused,
			 struct errbuf *err)
{
	int64_t deadline = mono_ms() + timeout_ms;
	char **why = xcalloc(s->nr ? s->nr : 1, sizeof(*why));
	size_t first;

	for (;;) {
		if (unsettled(s, why, &first, err) < 0)
			goto fail;
		if (first == s->nr) {
			*refused = why;
			return 0;
		}
		int64_t slice = REFUSAL_POLL_MS;
		if (timeout_ms) {
			int64_t left = deadline - mono_ms();
			if (left <= 0)
				break;
			if (left < slice)
				slice = left;
		}
		informer_wait_synced(s->informers[first], slice);
	}
	struct informer_stats st;
	informer_get_stats(s->informers[first], &st);
	int n = without_retry(st.last_error);
	snprintf(err->msg, sizeof(err->msg), "the %s informer did not sync within %llds%s%.*s",
		 s->resources[first]->name, (long long)(timeout_ms / 1000), n ? ": " : "", n,
		 st.last_error);
fail:
	oneshot_refusals_free(why, s->nr);
	return -1;
}

int oneshot_wait_synced(struct session *s, int64_t timeout_ms, struct errbuf *err)
{
	char **refused;

	if (oneshot_wait_settled(s, timeout_ms, &refused, err) < 0)
		return -1;
	int ret = 0;
	for (size_t i = 0; i < s->nr && !ret; i++)
		if (refused[i]) {
			snprintf(err->msg, sizeof(err->msg), "%s", refused[i]);
			ret = -1;
		}
	oneshot_refusals_free(refused, s->nr);
	return ret;
}

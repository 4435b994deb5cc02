/* oneshot.c — a one-shot command's wait for its informers; see oneshot.h. */
#include "cli/oneshot.h"

#include <stdio.h>
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
 * *first: the first informer of s not synced yet (s->nr: every one has).
 * -1 with err when one never will: its cycle was refused, or it stopped.
 */
static int unsynced(struct session *s, size_t *first, struct errbuf *err)
{
	struct informer_stats st;

	*first = s->nr;
	for (size_t i = 0; i < s->nr; i++) {
		if (informer_has_synced(s->informers[i]))
			continue;
		if (*first == s->nr)
			*first = i;
		informer_get_stats(s->informers[i], &st);
		if (cycle_refused(&st) || (st.state == STATE_STOPPED && st.last_error[0])) {
			snprintf(err->msg, sizeof(err->msg), "%.*s", without_retry(st.last_error),
				 st.last_error);
			return -1;
		}
		if (st.state == STATE_STOPPED) {
			snprintf(err->msg, sizeof(err->msg), "the %s informer stopped before it synced",
				 s->resources[i]->name);
			return -1;
		}
	}
	return 0;
}

int oneshot_wait_synced(struct session *s, int64_t timeout_ms, struct errbuf *err)
{
	int64_t deadline = mono_ms() + timeout_ms;
	size_t first;

	for (;;) {
		if (unsynced(s, &first, err) < 0)
			return -1;
		if (first == s->nr)
			return 0;
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
	return -1;
}

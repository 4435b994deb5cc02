/*
 * activity.c — the names of activity records and informer states, as
 * notices, NDJSON and the TUI print them.
 */
#include "informer/activity.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

struct activity_info *activity_dup(const struct activity_info *a)
{
	struct activity_info *copy = xmalloc(sizeof(*copy));

	*copy = *a;
	copy->replace.sample = relist_sample_dup(a->replace.sample);
	return copy;
}

void activity_free(struct activity_info *a)
{
	if (!a)
		return;
	relist_sample_free(a->replace.sample);
	free(a);
}

static const char *const state_names[] = {
	[STATE_STARTING] = "starting",
	[STATE_LISTING] = "listing",
	[STATE_WATCHING] = "watching",
	[STATE_BACKOFF] = "backing off",
	[STATE_STOPPED] = "stopped",
};

const char *informer_state_name(enum informer_state state)
{
	return state_names[state];
}

static const char *const activity_names[ACT__COUNT] = {
	[ACT_LIST_START] = "list-start",
	[ACT_LIST_PAGE] = "list-page",
	[ACT_LIST_DONE] = "listed",
	[ACT_LIST_FALLBACK] = "list-fallback",
	[ACT_WATCH_OPEN] = "watch-open",
	[ACT_WATCH_END] = "watch-end",
	[ACT_WATCH_EXPIRED] = "watch-expired",
	[ACT_WATCH_STALLED] = "watch-stalled",
	[ACT_ERROR] = "error",
	[ACT_BACKOFF] = "backoff",
	[ACT_RELISTED] = "relisted",
	[ACT_RESYNC] = "resync",
	[ACT_SYNCED] = "synced",
	[ACT_BOOKMARK] = "bookmark",
	[ACT_WARNING] = "warning",
};

const char *activity_name(enum activity act)
{
	return activity_names[act];
}

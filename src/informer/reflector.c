/*
 * reflector.c — ListAndWatch: the loop, its backoff and the public API;
 * see reflector.h for the rules it follows.  The WATCH is in
 * reflector_watch.c, the LIST in reflector_list.c, the stats and the
 * activity they report in reflector_impl.c (reflector_impl.h says how
 * they use each other).
 *
 * DESIGN (threads): one thread per reflector, which runs
 * reflector_main(): requests, outcomes and backoff, and inside each
 * transfer the bytes the kclient's transport thread (transport.h) hands
 * it: split into list items and watch lines, each decoded into a kobj and
 * handed on (list items to the list being gathered, watch events to the
 * FIFO).  The network and the decoding overlap all the same: while the
 * reflector decodes page N, the transport thread receives page N+1, up to
 * XFER_HIGH_WATER ahead.  So the list/watch state (last_rv, list_no,
 * the list being gathered, the watch_state) is this thread's alone.  The stats are shared with readers under r->lock.  The thread
 * blocks only in the transfer's wait and stop_sleep(), both of which end
 * at once on reflector_stop().  The FIFO and the hooks are thread-safe.
 */
#include "informer/reflector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "informer/reflector_impl.h"
#include "informer/reflector_list.h"
#include "informer/reflector_watch.h"

#define BACKOFF_INITIAL_MS 800
#define BACKOFF_CAP_MS 30000
#define BACKOFF_RESET_MS 120000

/* ---- backoff ------------------------------------------------------------ */

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
	return reflector_wait_backoff(r, delay, why);
}

/* ---- the loop ----------------------------------------------------------- */

/*
 * client-go's watchList loop: streaming lists until one reaches its end
 * bookmark (then the outcome of the watch it became), or until it must
 * give way to a LIST (FALLBACK) or end the cycle.
 */
static enum outcome streaming_list(struct reflector *r)
{
	unsigned lists_before = r->list_no;

	for (;;) {
		enum outcome o = reflector_watch(r, true);

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

	/* Every cycle tries it again: client-go's fallbackToList is per call. */
	if (r->opts->streaming_list) {
		o = streaming_list(r);
		if (o == STOPPED || (o == FAILED && r->list_no == lists_before))
			goto out;
	}
	if (r->list_no == lists_before) {
		if (reflector_list(r) != OK)
			goto out;
		reflector_set_watching(r, true);
		o = reflector_watch(r, false);
	}
	for (;;) {
		switch (o) {
		case OK:
			break;		/* ended cleanly: re-watch from the RV */
		case RETRY:
			if (!backoff(r, "re-watching"))
				goto out;
			break;
		case FAILED:
			/* last_error: this thread's writing, read under the lock */
			reflector_note_relist_reason(r, "watch failed: %s", r->stats.last_error);
			goto out;
		default:		/* EXPIRED (reflector_watch() noted why), STOPPED */
			goto out;
		}
		o = reflector_watch(r, false);
	}
out:
	reflector_set_watching(r, false);
}

static void *reflector_main(void *arg)
{
	struct reflector *r = arg;

	thread_name("kinf-reflector");
	for (;;) {
		list_and_watch(r);
		if (stop_requested(&r->stop))
			break;
		/* Sliding backoff between cycles, as wait.BackoffUntil does. */
		if (!backoff(r, "relisting"))
			break;
	}
	reflector_set_state(r, STATE_STOPPED);
	return NULL;
}

/*
 * The consumer's pace rides with the recording of the collection's
 * stream: a recorder keeps it, a replay gives it back (fifo.h's pacer).
 */
static void pace_mark(void *ctx, uint64_t pops)
{
	struct reflector *r = ctx;

	kclient_mark(r->client, r->path, pops);
}

static int64_t pace_next(void *ctx, bool *last)
{
	struct reflector *r = ctx;

	return kclient_next_mark(r->client, r->path, last);
}

static const struct fifo_pacer pacer = { .mark = pace_mark, .next = pace_next };

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
	fifo_set_pacer(fifo, &pacer, r);
	const struct api_resource *res = opts->resource;
	r->api_version = api_group_version(res->group, res->version);
	r->type = (struct kobj_type){ .api_version = r->api_version, .kind = res->kind };
	r->silence_ms = opts->stall_ms ? opts->stall_ms : REFLECTOR_DEFAULT_SILENCE_MS;
	r->renew_ms = opts->renew_ms;
	stop_init(&r->stop);
	pthread_mutex_init(&r->lock, NULL);
	r->backoff_reset_ms = now_ms(r);
	r->stats.state = STATE_STARTING;
	r->stats.state_since_ms = wall_ms();
	return r;
}

const char *reflector_path(const struct reflector *r)
{
	return r->path;
}

int reflector_start(struct reflector *r, struct errbuf *err)
{
	int rc = pthread_create(&r->thread, NULL, reflector_main, r);
	if (rc) {
		errbuf_set(err, "cannot start the reflector thread: %s", strerror(rc));
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
	*out = r->stats;	/* the informer's members: never written here, 0 */
	pthread_mutex_unlock(&r->lock);
}

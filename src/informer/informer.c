/*
 * informer.c — the shared informer: processor, listeners, resync.
 *
 * DESIGN (threads and locks):
 *   - the reflector thread (reflector.c) fills the FIFO and calls
 *     on_activity(), which appends to every listener's buffer;
 *   - the processor thread pops the FIFO.  fifo_pop_until() calls
 *     handle_deltas() with the FIFO's lock held, and handle_deltas() takes
 *     inf->lock for the whole key, so "update the Indexer, then notify" is
 *     one step for informer_add_listener(), which replays the cache under
 *     the same lock.  Between pops it resyncs: client-go's resync timer
 *     lives in watchWithResync, running only during the watch phase and
 *     starting afresh with each, so on_watching() sets the next check
 *     (resync_due_ms) and wakes the processor, whose pop waits until then
 *     at most; when a listener is due it queues a resync with
 *     fifo_resync().  That is between two pops, as client-go's resync,
 *     which takes the FIFO's lock that Pop holds while processing, always
 *     is.  The same timed wait runs the process's idle hook (lib/idle.h);
 *     and, between two pops, a checkpoint of the Indexer for the flight
 *     recorder when it asks (checkpoint_if_wanted()): the FIFO drained
 *     at a place the reflector named, only this thread writing the
 *     Indexer, its objects are what the reflector's input made it;
 *   - consumers drain their listener from their own thread.
 * Lock order: FIFO lock → inf->lock → listener->lock.  The store has its
 * own lock and is taken under any of these, never the other way round.
 */
#include "informer/informer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "informer/reflector.h"
#include "lib/idle.h"

#define MIN_RESYNC_MS 1000

struct listener {
	struct informer *inf;
	pthread_mutex_t lock;
	/*
	 * The unbounded buffer (client-go's pendingNotifications): blocks,
	 * oldest first, so that it grows by a block, never copies what it
	 * holds, and gives each block back once drained.
	 */
	struct note_block *first, *last;
	size_t len;
	int pipe[2];			/* [0] readable while non-empty */
	bool signalled;
	/* Resync, under inf->lock. */
	int64_t resync_ms;		/* 0: never */
	int64_t next_resync_ms;		/* monotonic */
	bool resync_due;		/* in the current syncing set */
	bool bookmarks;			/* gets NOTIFY_BOOKMARK; under inf->lock */
};

struct informer {
	struct informer_opts opts;
	struct kclient *client;
	int64_t clock_base;	/* the client's clock when made: queued's clock_off */
	struct store *store;
	struct fifo *fifo;
	struct reflector *reflector;

	pthread_mutex_t lock;
	pthread_cond_t synced_cond;
	struct listener **listeners;
	size_t nr_listeners, alloc_listeners;
	bool started, stopped, synced;
	bool synced_said;		/* ACT_SYNCED is in the listeners' buffers */
	int64_t resync_check_ms;
	uint64_t deltas[DELTA__COUNT];
	char store_rv[RV_SIZE];		/* stats.store_rv; under lock */
	uint64_t resyncs;
	int64_t last_resync_ms, next_resync_ms;	/* wall clock */

	pthread_t processor;
	/*
	 * The next resync check, mono_ms(); 0 outside the reflector's watch
	 * phase (client-go's watchWithResync), and without a check period.
	 * Set by on_watching() for each new phase, then by the processor.
	 */
	_Atomic int64_t resync_due_ms;
	/* informer_set_checkpoints(); the processor's, but for sink_h's close */
	const struct checkpoint_sink *sink;
	void *sink_h;
	struct fifo_place sink_at;	/* of the last checkpoint taken */
	bool sink_took;
};

void notification_release(struct notification *n)
{
	kobj_unref(n->delta.obj);
	kobj_unref(n->old);
	activity_free(n->activity);
	n->delta.obj = n->old = NULL;
	n->activity = NULL;
}

/* ---- listeners ---------------------------------------------------------- */

/*
 * A notification as the buffer keeps it: what differs from one to the
 * next.  The resource's names are the informer's, and the delta of a
 * notification never holds a list (all), so a list of 100,000 objects
 * waiting for its listener costs 4.8 MB, not 9.6.
 */
struct queued {
	struct kobj *obj, *old;
	struct activity_info *activity;
	int64_t time_ms;
	/*
	 * delta.clock_ms less the informer's clock_base: 32 bits fill the
	 * padding, so the clock costs the buffer nothing (49 days of clock).
	 */
	uint32_t clock_off;
	unsigned list_no;
	unsigned char kind, type, source;
	bool tombstone, initial_list, resync_only, replay;
};

/* A block of the listener's buffer: v[head..tail) are waiting. */
#define NOTE_BLOCK 256
struct note_block {
	struct note_block *next;
	unsigned head, tail;
	struct queued v[NOTE_BLOCK];
};

static struct queued queued_of(const struct informer *inf, const struct notification *n)
{
	int64_t off = n->delta.clock_ms - inf->clock_base;

	return (struct queued){
		.obj = n->delta.obj,
		.old = n->old,
		.activity = n->activity,
		.time_ms = n->delta.time_ms,
		.clock_off = off < 0 ? 0 : off > UINT32_MAX ? UINT32_MAX : (uint32_t)off,
		.list_no = n->delta.list_no,
		.kind = (unsigned char)n->kind,
		.type = (unsigned char)n->delta.type,
		.source = (unsigned char)n->delta.source,
		.tombstone = n->delta.tombstone,
		.initial_list = n->delta.initial_list,
		.resync_only = n->resync_only,
		.replay = n->replay,
	};
}

static struct notification notification_of_queued(const struct informer *inf,
						   const struct queued *q)
{
	return (struct notification){
		.delta = {
			.type = (enum delta_type)q->type,
			.source = (enum delta_source)q->source,
			.list_no = q->list_no,
			.tombstone = q->tombstone,
			.initial_list = q->initial_list,
			.obj = q->obj,
			.time_ms = q->time_ms,
			.clock_ms = inf->clock_base + q->clock_off,
		},
		.old = q->old,
		.activity = q->activity,
		.resource = inf->opts.resource->name,
		.obj_kind = inf->opts.resource->kind,
		.group = inf->opts.resource->group,
		.kind = (enum notify_kind)q->kind,
		.resync_only = q->resync_only,
		.replay = q->replay,
	};
}

/* Appends n (taking its references) to l's buffer; never blocks. */
static void listener_push(struct listener *l, const struct notification *n)
{
	pthread_mutex_lock(&l->lock);
	if (!l->last || l->last->tail == NOTE_BLOCK) {
		struct note_block *b = xmalloc(sizeof(*b));

		b->next = NULL;
		b->head = b->tail = 0;
		if (l->last)
			l->last->next = b;
		else
			l->first = b;
		l->last = b;
	}
	l->last->v[l->last->tail++] = queued_of(l->inf, n);
	l->len++;
	if (!l->signalled) {
		char c = 1;
		/* Full pipe means it is already readable: nothing lost. */
		if (write(l->pipe[1], &c, 1) < 0 && errno != EAGAIN)
			warning("cannot wake a listener: %s", strerror(errno));
		l->signalled = true;
	}
	pthread_mutex_unlock(&l->lock);
}

size_t listener_drain(struct listener *l, struct notification *out, size_t max)
{
	size_t n = 0;
	pthread_mutex_lock(&l->lock);
	while (n < max && l->len) {
		struct note_block *b = l->first;

		out[n++] = notification_of_queued(l->inf, &b->v[b->head++]);
		l->len--;
		if (b->head < b->tail)
			continue;
		/* Drained: the last block is kept for what comes next. */
		if (b == l->last) {
			b->head = b->tail = 0;
		} else {
			l->first = b->next;
			free(b);
		}
	}
	if (!l->len && l->signalled) {
		char buf[64];
		while (read(l->pipe[0], buf, sizeof(buf)) > 0)
			;
		l->signalled = false;
	}
	pthread_mutex_unlock(&l->lock);
	return n;
}

size_t listener_pending(struct listener *l)
{
	pthread_mutex_lock(&l->lock);
	size_t n = l->len;
	pthread_mutex_unlock(&l->lock);
	return n;
}

void listener_want_bookmarks(struct listener *l)
{
	pthread_mutex_lock(&l->inf->lock);
	l->bookmarks = true;
	pthread_mutex_unlock(&l->inf->lock);
}

int listener_wake_fd(struct listener *l)
{
	return l->pipe[0];
}

static void listener_free(struct listener *l)
{
	struct notification n;
	while (listener_drain(l, &n, 1))
		notification_release(&n);
	close(l->pipe[0]);
	close(l->pipe[1]);
	pthread_mutex_destroy(&l->lock);
	free(l->first);
	free(l);
}

/* Sends one notification to every listener (or only those due for a
 * resync), each with references of its own.  Caller holds inf->lock. */
static void distribute(struct informer *inf, const struct notification *n)
{
	for (size_t i = 0; i < inf->nr_listeners; i++) {
		struct listener *l = inf->listeners[i];
		if (n->resync_only && !l->resync_due)
			continue;
		if (n->kind == NOTIFY_BOOKMARK && !l->bookmarks)
			continue;
		struct notification copy = *n;
		if (copy.delta.obj)
			kobj_ref(copy.delta.obj);
		if (copy.old)
			kobj_ref(copy.old);
		if (copy.activity)
			copy.activity = activity_dup(copy.activity);
		listener_push(l, &copy);
	}
}

/* ---- processing --------------------------------------------------------- */

/* A notification of the informer's resource, of d (NULL: of no delta). */
static struct notification notification_of(struct informer *inf, enum notify_kind kind,
					   const struct delta *d)
{
	return (struct notification){
		.delta = d ? *d : (struct delta){ 0 },
		.kind = kind,
		.resource = inf->opts.resource->name,
		.obj_kind = inf->opts.resource->kind,
		.group = inf->opts.resource->group,
	};
}

/*
 * Applies one object's delta to the Indexer and tells the listeners, as
 * client-go's processDeltas does: Deleted removes and notifies delete;
 * any other type updates (or adds, when the key is not cached).  An
 * update whose resourceVersion equals the cached one is resync-only
 * (sharedIndexInformer.OnUpdate), whatever the delta type.  Takes d's
 * object reference over.  Caller holds inf->lock.
 */
static void handle_delta(struct informer *inf, const struct delta *d)
{
	struct notification n = notification_of(inf, NOTIFY_ADD, d);
	struct kobj *old = store_get(inf->store, d->obj->key);

	if (d->type == DELTA_DELETED) {
		store_delete(inf->store, d->obj->key);
		n.kind = NOTIFY_DELETE;
	} else if (old) {
		store_add(inf->store, d->obj);
		n.kind = NOTIFY_UPDATE;
		n.old = old;
		old = NULL;
		n.resync_only = !strcmp(n.old->rv, d->obj->rv);
	} else {
		store_add(inf->store, d->obj);
	}
	distribute(inf, &n);
	kobj_unref(old);
	notification_release(&n);
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(struct kobj *const *)a)->key, (*(struct kobj *const *)b)->key);
}

/*
 * A ReplacedAll, reconciled against the Indexer (controller.go
 * processReplacedAllInfo): every cached key the list lacks is deleted
 * with a tombstone carrying its cached state, all of them first; then
 * each listed object, in list order, updates or adds.  client-go walks
 * the deletions in map order; here they go by key, so runs compare.
 */
static void handle_replaced_all(struct informer *inf, const struct delta *d)
{
	struct kobj **listed = NULL;
	struct kobj_list cached;
	size_t j = 0;

	/* Both by key, walked side by side: no set of 100,000 keys to build. */
	store_list(inf->store, &cached);
	if (cached.nr) {
		listed = xmalloc((d->nr_all ? d->nr_all : 1) * sizeof(*listed));
		memcpy(listed, d->all, d->nr_all * sizeof(*listed));
		qsort(listed, d->nr_all, sizeof(*listed), by_key);
		qsort(cached.v, cached.nr, sizeof(*cached.v), by_key);
	}
	for (size_t i = 0; i < cached.nr; i++) {
		const char *key = cached.v[i]->key;

		while (j < d->nr_all && strcmp(listed[j]->key, key) < 0)
			j++;
		if (j < d->nr_all && !strcmp(listed[j]->key, key))
			continue;
		struct delta gone = *d;
		gone.all = NULL;
		gone.nr_all = 0;
		gone.tombstone = true;
		gone.obj = kobj_ref(cached.v[i]);
		struct notification n = notification_of(inf, NOTIFY_DELETE, &gone);
		store_delete(inf->store, gone.obj->key);
		inf->deltas[DELTA_REPLACED_ALL]++;
		distribute(inf, &n);
		notification_release(&n);
	}
	kobj_list_release(&cached);
	free(listed);
	for (size_t i = 0; i < d->nr_all; i++) {
		struct delta one = *d;
		one.all = NULL;
		one.nr_all = 0;
		one.obj = kobj_ref(d->all[i]);
		inf->deltas[DELTA_REPLACED_ALL]++;
		handle_delta(inf, &one);
	}
}

/* A SyncAll (controller.go): OnUpdate(obj, obj) for every cached object. */
static void handle_sync_all(struct informer *inf, const struct delta *d)
{
	struct kobj_list cached;

	store_list(inf->store, &cached);
	qsort(cached.v, cached.nr, sizeof(*cached.v), by_key);
	for (size_t i = 0; i < cached.nr; i++) {
		struct delta one = *d;
		one.obj = cached.v[i];
		struct notification n = notification_of(inf, NOTIFY_UPDATE, &one);
		n.old = kobj_ref(cached.v[i]);
		n.resync_only = true;
		cached.v[i] = NULL;	/* the notification owns it now */
		inf->deltas[DELTA_SYNC_ALL]++;
		distribute(inf, &n);
		notification_release(&n);
	}
	kobj_list_release(&cached);
}

/* The Indexer's last-sync RV, which only 1.36's store keeps. */
static void set_store_rv(struct informer *inf, const char *rv)
{
	if (inf->opts.fifo == FIFO_ATOMIC)
		snprintf(inf->store_rv, sizeof(inf->store_rv), "%s", rv);
}

/*
 * A Bookmark (controller.go processDeltas): the Indexer takes its RV, no
 * handler is called; listeners that asked are told.
 */
static void handle_bookmark(struct informer *inf, const struct delta *d)
{
	struct activity_info info = { .act = ACT_BOOKMARK };
	struct notification n = notification_of(inf, NOTIFY_BOOKMARK, d);

	set_store_rv(inf, d->rv);
	snprintf(info.rv, sizeof(info.rv), "%s", d->rv);
	n.activity = &info;	/* each listener gets a copy */
	inf->deltas[DELTA_BOOKMARK]++;
	distribute(inf, &n);
}

/* client-go's HandleDeltas: runs under the FIFO's lock (see fifo_pop). */
static void handle_deltas(void *ctx, struct deltas *deltas)
{
	struct informer *inf = ctx;

	pthread_mutex_lock(&inf->lock);
	for (size_t i = 0; i < deltas->nr; i++) {
		struct delta *d = &deltas->v[i];

		if (d->type == DELTA_REPLACED_ALL) {
			handle_replaced_all(inf, d);
			set_store_rv(inf, d->rv);
		} else if (d->type == DELTA_BOOKMARK) {
			handle_bookmark(inf, d);
		} else if (d->type == DELTA_SYNC_ALL) {
			handle_sync_all(inf, d);
		} else {
			struct delta one = *d;
			d->obj = NULL;	/* handle_delta takes the reference */
			set_store_rv(inf, one.obj->rv);
			inf->deltas[one.type]++;
			handle_delta(inf, &one);
		}
	}
	pthread_mutex_unlock(&inf->lock);
}

static void on_activity(void *ctx, const struct activity_info *info)
{
	struct informer *inf = ctx;
	struct notification n = notification_of(inf, NOTIFY_ACTIVITY, NULL);

	n.activity = (struct activity_info *)info;	/* each listener gets a copy */
	pthread_mutex_lock(&inf->lock);
	distribute(inf, &n);
	pthread_mutex_unlock(&inf->lock);
}

/*
 * Marks the informer synced, once, when the FIFO says so.  Two threads
 * call it: the processor after each pop, and the reflector after each
 * Replace (on_replaced), because an initial list with nothing in it
 * leaves nothing to pop and the processor would never look.  inf->synced
 * is read and written under inf->lock only, as both threads may set it.
 * Lock order: fifo_has_synced() takes the FIFO's lock, so it is called
 * before inf->lock, never under it.
 */
static void check_synced(struct informer *inf)
{
	pthread_mutex_lock(&inf->lock);
	bool synced = inf->synced;
	pthread_mutex_unlock(&inf->lock);
	if (synced || !fifo_has_synced(inf->fifo))
		return;

	pthread_mutex_lock(&inf->lock);
	bool first = !inf->synced;
	inf->synced = true;
	pthread_cond_broadcast(&inf->synced_cond);
	pthread_mutex_unlock(&inf->lock);
	if (first) {
		struct activity_info info = { .act = ACT_SYNCED };
		info.count = store_len(inf->store);
		on_activity(inf, &info);
		pthread_mutex_lock(&inf->lock);
		inf->synced_said = true;
		pthread_mutex_unlock(&inf->lock);
	}
}

bool informer_sync_unsaid(struct informer *inf)
{
	if (!fifo_has_synced(inf->fifo))	/* before inf->lock: see check_synced */
		return false;
	pthread_mutex_lock(&inf->lock);
	bool unsaid = !inf->synced_said;
	pthread_mutex_unlock(&inf->lock);
	return unsaid;
}

/*
 * reflector_hooks.same: the cached object when a listed one is its copy.
 * client-go hands on the freshly decoded objects of a list (Reflector's
 * list: meta.ExtractListWithAlloc, then syncWith); what the informer
 * does with them, and what anyone can read of them, is the same with the
 * cached ones.
 */
static struct kobj *on_same(void *ctx, const struct kobj *listed)
{
	struct informer *inf = ctx;
	struct kobj *known = store_get(inf->store, listed->key);

	if (known && kobj_same(known, listed))
		return known;
	kobj_unref(known);
	return NULL;
}

static void on_replaced(void *ctx)
{
	check_synced(ctx);
}

/* ---- resync ------------------------------------------------------------- */

/*
 * client-go's shouldResync: marks the listeners whose period has passed
 * as the syncing set and schedules their next one.  Caller holds inf->lock.
 * Returns whether any is due; *next gets the earliest next due time.
 */
static bool pick_resyncing(struct informer *inf, int64_t now, bool force, int64_t *next)
{
	bool any = false;
	*next = 0;
	for (size_t i = 0; i < inf->nr_listeners; i++) {
		struct listener *l = inf->listeners[i];
		l->resync_due = false;
		if (!l->resync_ms && !force)
			continue;
		if (force || now >= l->next_resync_ms) {
			l->resync_due = true;
			any = true;
			if (l->resync_ms)
				l->next_resync_ms = now + l->resync_ms;
		}
		if (l->resync_ms && (!*next || l->next_resync_ms < *next))
			*next = l->next_resync_ms;
	}
	return any;
}

static void resync(struct informer *inf, bool force)
{
	int64_t now = mono_ms(), next;
	pthread_mutex_lock(&inf->lock);
	bool any = pick_resyncing(inf, now, force, &next);
	if (any) {
		inf->resyncs++;
		inf->last_resync_ms = wall_ms();
	}
	inf->next_resync_ms = next ? wall_ms() + (next - now) : 0;
	pthread_mutex_unlock(&inf->lock);
	if (!any)
		return;
	struct activity_info info = { .act = ACT_RESYNC };
	info.count = fifo_resync(inf->fifo);
	snprintf(info.message, sizeof(info.message), "%s",
		 delta_type_name(inf->opts.fifo == FIFO_ATOMIC ? DELTA_SYNC_ALL : DELTA_SYNC));
	on_activity(inf, &info);
}

/*
 * A resync check due by now: resyncs the listeners whose period has
 * passed, and sets the next check one period on (unless a new watch
 * phase, or its end, set another meanwhile).
 */
static void resync_if_due(struct informer *inf)
{
	int64_t due = atomic_load(&inf->resync_due_ms), now = mono_ms();

	if (!due || now < due)
		return;
	int64_t next = now + inf->resync_check_ms;
	if (!atomic_compare_exchange_strong(&inf->resync_due_ms, &due, next))
		return;
	resync(inf, false);
	pthread_mutex_lock(&inf->lock);
	if (atomic_load(&inf->resync_due_ms) == next)	/* the next check, as reported */
		inf->next_resync_ms = wall_ms() + (next - mono_ms());
	pthread_mutex_unlock(&inf->lock);
}

/* The reflector began (on) or ended (off) its watch phase. */
static void on_watching(void *ctx, bool on)
{
	struct informer *inf = ctx;

	if (!inf->resync_check_ms)
		return;
	pthread_mutex_lock(&inf->lock);
	bool stopped = inf->stopped;
	inf->next_resync_ms = on && !stopped ? wall_ms() + inf->resync_check_ms : 0;
	pthread_mutex_unlock(&inf->lock);
	atomic_store(&inf->resync_due_ms, on && !stopped ? mono_ms() + inf->resync_check_ms : 0);
	if (on)
		fifo_wake(inf->fifo);	/* a processor waiting with no deadline */
}

/* What the processor waits for besides the FIFO: the earlier of two deadlines. */
static int64_t processor_deadline(struct informer *inf)
{
	int64_t resync = atomic_load(&inf->resync_due_ms), idle = idle_due_ms();

	if (!resync || (idle && idle < resync))
		return idle;
	return resync;
}

/*
 * A checkpoint of the Indexer, when the sink wants one and the FIFO is
 * drained at a place other than the last one's: between two pops only
 * this thread changes the Indexer, so the objects listed are what the
 * reflector's input up to that place made it.
 */
static void checkpoint_if_wanted(struct informer *inf)
{
	struct fifo_place at;
	struct kobj_list objs;

	if (!inf->sink || !inf->sink->wanted(inf->sink_h) || !fifo_drained_at(inf->fifo, &at))
		return;
	if (inf->sink_took && at.x == inf->sink_at.x && at.off == inf->sink_at.off &&
	    !strcmp(at.rv, inf->sink_at.rv))
		return;
	inf->sink_at = at;
	inf->sink_took = true;
	store_list(inf->store, &objs);
	inf->sink->take(inf->sink_h, &at, &objs);
}

static void *processor_main(void *arg)
{
	struct informer *inf = arg;
	int rc;

	thread_name("kinf-processor");
	while ((rc = fifo_pop_until(inf->fifo, handle_deltas, inf,
				    processor_deadline(inf))) >= 0) {
		if (rc == 0)
			check_synced(inf);
		else
			idle_poll();
		/* After a pop too: a FIFO that is never empty still resyncs. */
		resync_if_due(inf);
		checkpoint_if_wanted(inf);
	}
	return NULL;
}

static void wake_processor(void *arg)
{
	fifo_wake(arg);
}

void informer_set_checkpoints(struct informer *inf, const struct checkpoint_sink *sink,
			      void *ctx)
{
	const struct api_resource *res = inf->opts.resource;
	char *api_version = api_group_version(res->group, res->version);

	inf->sink = sink;
	inf->sink_h = sink->open(ctx, reflector_path(inf->reflector), api_version, res->kind,
				 wake_processor, inf->fifo);
	free(api_version);
}

void informer_resync_now(struct informer *inf)
{
	resync(inf, true);
}

/* ---- life cycle --------------------------------------------------------- */

/*
 * The deltas' clock_ms: the client's clock, which on a replay is the
 * recorded time the reflector's thread has reached.
 */
static int64_t client_clock(void *ctx)
{
	return ctx ? kclient_now_ms(ctx) : mono_ms();
}

struct informer *informer_new(struct kclient *client, const struct informer_opts *opts)
{
	struct informer *inf = xcalloc(1, sizeof(*inf));
	inf->opts = *opts;
	inf->client = client;
	inf->clock_base = client_clock(client);
	inf->store = store_new();
	inf->fifo = fifo_new(opts->fifo, inf->store);
	fifo_set_clock(inf->fifo, client_clock, client);
	if (opts->fifo != FIFO_DELTA)
		fifo_set_batch(inf->fifo, opts->batch);
	inf->resync_check_ms = opts->resync_ms;
	pthread_mutex_init(&inf->lock, NULL);
	cond_init_monotonic(&inf->synced_cond);
	struct reflector_hooks hooks = {
		.activity = on_activity,
		.replaced = on_replaced,
		.same = on_same,
		.watching = on_watching,
		.ctx = inf,
	};
	inf->reflector = reflector_new(client, &inf->opts, inf->fifo, &hooks);
	return inf;
}

struct listener *informer_add_listener(struct informer *inf, int64_t resync_ms)
{
	struct listener *l = xcalloc(1, sizeof(*l));
	l->inf = inf;
	pthread_mutex_init(&l->lock, NULL);
	if (pipe2(l->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		die("cannot create a pipe: %s", strerror(errno));

	pthread_mutex_lock(&inf->lock);
	/*
	 * client-go's clamping of a listener's resync period
	 * (AddEventHandlerWithOptions), then determineResyncPeriod: an
	 * informer made without a resync period (check period 0) resyncs no
	 * listener, whatever it asks for.
	 */
	if (resync_ms > 0) {
		if (resync_ms < MIN_RESYNC_MS)
			resync_ms = MIN_RESYNC_MS;
		if (resync_ms < inf->resync_check_ms) {
			if (inf->started)
				resync_ms = inf->resync_check_ms;
			else
				inf->resync_check_ms = resync_ms;
		}
		if (!inf->resync_check_ms)
			resync_ms = 0;
	}
	l->resync_ms = resync_ms;
	l->next_resync_ms = resync_ms ? mono_ms() + resync_ms : 0;
	/*
	 * client-go's addListener puts a new listener in the syncing set; only
	 * a resync tick takes it out.  With no resync period there is no tick,
	 * so every listener then hears of every resync-only update: after a
	 * relist, OnUpdate for each unchanged object.
	 */
	l->resync_due = true;

	if (inf->started) {
		/* A late listener first hears of everything cached. */
		struct kobj_list all;
		store_list(inf->store, &all);
		for (size_t i = 0; i < all.nr; i++) {
			struct delta add = {
				.type = DELTA_ADDED,
				.source = SOURCE_LIST,
				/* addListener: isInInitialList true */
				.initial_list = true,
				.obj = all.v[i],
				.time_ms = wall_ms(),
				.clock_ms = client_clock(inf->client),
			};
			struct notification n = notification_of(inf, NOTIFY_ADD, &add);

			n.replay = true;
			all.v[i] = NULL;	/* the notification owns it now */
			listener_push(l, &n);
		}
		kobj_list_release(&all);
	}
	ALLOC_GROW(inf->listeners, inf->nr_listeners + 1, inf->alloc_listeners);
	inf->listeners[inf->nr_listeners++] = l;
	pthread_mutex_unlock(&inf->lock);
	return l;
}

int informer_start(struct informer *inf, struct errbuf *err)
{
	int rc;

	pthread_mutex_lock(&inf->lock);
	inf->started = true;
	int64_t now = mono_ms();
	for (size_t i = 0; i < inf->nr_listeners; i++) {
		struct listener *l = inf->listeners[i];

		if (l->resync_ms)
			l->next_resync_ms = now + l->resync_ms;
	}
	pthread_mutex_unlock(&inf->lock);

	rc = pthread_create(&inf->processor, NULL, processor_main, inf);
	if (rc) {
		errbuf_set(err, "cannot start the processor thread: %s", strerror(rc));
		goto not_started;
	}
	if (reflector_start(inf->reflector, err) < 0) {
		informer_stop(inf);
		return -1;
	}
	return 0;

not_started:
	/* Nothing left running: informer_stop() (and _free) must not join
	 * threads that were never created. */
	pthread_mutex_lock(&inf->lock);
	inf->stopped = true;
	pthread_cond_broadcast(&inf->synced_cond);
	pthread_mutex_unlock(&inf->lock);
	return -1;
}

void informer_stop(struct informer *inf)
{
	pthread_mutex_lock(&inf->lock);
	bool running = inf->started && !inf->stopped;
	inf->stopped = true;
	pthread_cond_broadcast(&inf->synced_cond);
	pthread_mutex_unlock(&inf->lock);
	if (!running)
		return;
	reflector_stop(inf->reflector);
	atomic_store(&inf->resync_due_ms, 0);	/* no resync while the rest is drained */
	fifo_close(inf->fifo);
	pthread_join(inf->processor, NULL);
}

void informer_free(struct informer *inf)
{
	if (!inf)
		return;
	informer_stop(inf);
	if (inf->sink)
		inf->sink->close(inf->sink_h);
	reflector_free(inf->reflector);
	for (size_t i = 0; i < inf->nr_listeners; i++)
		listener_free(inf->listeners[i]);
	free(inf->listeners);
	fifo_free(inf->fifo);
	store_free(inf->store);
	pthread_cond_destroy(&inf->synced_cond);
	pthread_mutex_destroy(&inf->lock);
	free(inf);
}

bool informer_has_synced(struct informer *inf)
{
	pthread_mutex_lock(&inf->lock);
	bool synced = inf->synced;
	pthread_mutex_unlock(&inf->lock);
	return synced;
}

bool informer_wait_synced(struct informer *inf, int64_t timeout_ms)
{
	int64_t deadline = mono_ms() + timeout_ms;

	pthread_mutex_lock(&inf->lock);
	while (!inf->synced && !inf->stopped) {
		if (!timeout_ms)
			pthread_cond_wait(&inf->synced_cond, &inf->lock);
		else if (cond_wait_until(&inf->synced_cond, &inf->lock, deadline))
			break;
	}
	bool synced = inf->synced;
	pthread_mutex_unlock(&inf->lock);
	return synced;
}

struct store *informer_store(struct informer *inf)
{
	return inf->store;
}

const struct api_resource *informer_resource(struct informer *inf)
{
	return inf->opts.resource;
}

void informer_list_cached(struct informer *inf, struct kobj_list *out)
{
	pthread_mutex_lock(&inf->lock);
	store_list(inf->store, out);
	pthread_mutex_unlock(&inf->lock);
}

void informer_get_stats(struct informer *inf, struct informer_stats *out)
{
	reflector_get_stats(inf->reflector, out);
	pthread_mutex_lock(&inf->lock);
	out->synced = inf->synced;
	out->resyncs = inf->resyncs;
	memcpy(out->deltas, inf->deltas, sizeof(out->deltas));
	memcpy(out->store_rv, inf->store_rv, sizeof(out->store_rv));
	out->last_resync_ms = inf->last_resync_ms;
	out->next_resync_ms = inf->next_resync_ms;
	for (size_t i = 0; i < inf->nr_listeners; i++) {
		struct listener *l = inf->listeners[i];

		pthread_mutex_lock(&l->lock);
		if (l->len > out->backlog) {
			out->backlog = l->len;
			out->backlog_since_ms = l->first->v[l->first->head].time_ms;
		}
		pthread_mutex_unlock(&l->lock);
	}
	pthread_mutex_unlock(&inf->lock);
	out->fifo_depth = fifo_len(inf->fifo);
	out->cached = store_len(inf->store);
	out->cached_json_bytes = store_json_bytes(inf->store);
}

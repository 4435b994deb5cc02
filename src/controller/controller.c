/* controller.c — see controller.h.  Single-threaded, no locks. */
#include "controller/controller.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/handler.h"
#include "informer/informer.h"
#include "lib/hashmap.h"
#include "lib/strbuf.h"

/* client-go's WaitForCacheSync polls this often (syncedPollPeriod). */
#define SYNC_POLL_MS 100

/* A state the handlers were handed for a key, not yet read. */
struct ctl_state {
	char *rv;
	/* why no Reconcile read it, when that is known: a predicate's drop, a loss */
	const char *why;
	bool lost;		/* never handed over: a check found it (controller_diverged) */
	bool while_running;	/* arrived while a Reconcile of the key ran */
};

struct ctl_key {
	char *key;
	struct kobj *cached;	/* the newest the handlers saw; NULL: none */
	struct ctl_state *v;	/* received since the last read, oldest first */
	size_t nr, alloc;
	size_t deltas;		/* events that Added it since its last Get */
	char *last_read_rv;
	uint64_t unseen;
	const char *obj_kind, *group;	/* its informer's (static), for a status write */
	unsigned writes;		/* status writes made up so far */
};

struct worker {
	char *key;		/* NULL: idle */
	int64_t started, ends;
	unsigned number;
	int priority;		/* the key's when it was handed out */
	struct outcome outcome;	/* scripted when it started, or OUTCOME_NONE */
};

/* One source's predicates (the event filter's, then its own), and the reasons. */
struct pred_set {
	struct predicates p;
	unsigned mask;
	char **reasons;		/* "filtered by generation", one a term */
};

struct controller {
	struct controller_opts o;
	struct handler handler;
	struct pred_set own, owned;	/* For()'s kind, Owns()' kinds */
	struct workqueue *q;
	const char **synced;	/* the sources (resources) that said ACT_SYNCED */
	size_t nr_synced, alloc_synced;
	struct hashmap keys;	/* key -> struct ctl_key */
	struct worker *workers;
	int64_t clock;
	uint64_t rng;
	bool draining;		/* controller_finish(drain): no more events */
	int64_t start_at;	/* when the workers start, once every source synced; -1: not set */
	/*
	 * The priority queue (v0.23+) has adds not flushed yet: its
	 * AddWithOpts appends to a buffer that a goroutine of its own moves
	 * into the queue, so the adds of a burst land at once, and an idle
	 * worker then gets the highest priority of them, not the first.  A
	 * burst is what one list's Replace or one resync hands over in the
	 * same ms (its listener calls the handler for each in a loop; a
	 * watch event comes after a read of the stream, and its adds have
	 * one priority anyway).  They are flushed when the clock moves past
	 * that ms, or a notification of another burst comes.
	 */
	bool buffered;
	enum delta_source burst_source;
	unsigned burst_list;
	struct controller_stats st;
	struct strbuf scratch;
};

static const char *const record_names[CTL__TYPES] = {
	[CTL_FILTERED] = "Filtered",
	[CTL_ENQUEUED] = "Enqueued",
	[CTL_RECONCILE_START] = "ReconcileStart",
	[CTL_RECONCILE_DONE] = "ReconcileDone",
	[CTL_NEVER_RECONCILED] = "NeverReconciled",
	[CTL_STILL_QUEUED] = "StillQueued",
	[CTL_DIVERGED] = "Diverged",
};

const char *ctl_record_name(enum ctl_record_type type)
{
	return (unsigned)type < CTL__TYPES ? record_names[type] : "Unknown";
}

/* splitmix64: small, seedable, the same sequence on every machine. */
static uint64_t rng_next(struct controller *c)
{
	uint64_t z = (c->rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(struct controller *c)
{
	return (double)(rng_next(c) >> 11) / (double)(1ULL << 53);
}

/* The builder's allPredicates: the global ones, then the source's. */
static int pred_set_init(struct pred_set *s, const struct predicates *global,
			 const struct predicates *own, struct errbuf *err)
{
	if (global->nr + own->nr > PREDICATE_TERMS_MAX) {
		errbuf_set(err, "too many predicates (at most %d terms for a kind)",
			   PREDICATE_TERMS_MAX);
		return -1;
	}
	s->p = *global;
	for (size_t i = 0; i < own->nr; i++)
		s->p.terms[s->p.nr++] = own->terms[i];
	s->mask = predicates_mask(&s->p);
	s->reasons = xcalloc(s->p.nr + 1, sizeof(*s->reasons));
	for (size_t i = 0; i < s->p.nr; i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_adds(&sb, "filtered by ");
		predicates_term_name(&s->p, i, &sb);
		s->reasons[i] = strbuf_detach(&sb, NULL);
	}
	return 0;
}

static void pred_set_release(struct pred_set *s)
{
	for (size_t i = 0; s->reasons && s->reasons[i]; i++)
		free(s->reasons[i]);
	free(s->reasons);
}

struct controller *controller_new(const struct controller_opts *opts, struct errbuf *err)
{
	struct controller *c = xcalloc(1, sizeof(*c));

	c->o = *opts;
	if (!c->o.workers)
		c->o.workers = 1;
	if (!c->o.runtime_minor)
		c->o.runtime_minor = CONTROLLER_RUNTIME_NEWEST;
	if (c->o.runtime_minor < CONTROLLER_RUNTIME_OLDEST ||
	    c->o.runtime_minor > CONTROLLER_RUNTIME_NEWEST) {
		errbuf_set(err, "controller-runtime v0.%u is not known (v0.%d to v0.%d)",
			   c->o.runtime_minor, CONTROLLER_RUNTIME_OLDEST, CONTROLLER_RUNTIME_NEWEST);
		goto fail;
	}
	if (opts->outcomes && outcome_script_has(opts->outcomes, OUTCOME_STATUS_WRITE) &&
	    c->o.reconcile_min_ms <= 0) {
		errbuf_set(err, "a status-write outcome needs a Reconcile time over 0 "
			   "(--reconcile-time): its event comes back as the Reconcile ends, "
			   "and without a predicate to drop it, for ever");
		goto fail;
	}
	if (handler_init(&c->handler, opts->owner, err) < 0)
		goto fail;
	if (!c->handler.owner_group && opts->owner_group)
		c->handler.owner_group = xstrdup(opts->owner_group);
	if (pred_set_init(&c->own, &opts->event_filter, &opts->predicates, err) < 0 ||
	    pred_set_init(&c->owned, &opts->event_filter, &opts->owns_predicates, err) < 0)
		goto fail;
	c->q = workqueue_new(c->o.runtime_minor >= 23 ? WQ_PRIORITY : WQ_CLASSIC);
	c->st.runtime_minor = c->o.runtime_minor;
	c->st.priority_queue = c->o.runtime_minor >= 23;
	c->st.buckets = c->o.runtime_minor >= 17 ? 12 : 10;
	c->st.started = !c->o.sources;
	c->start_at = -1;
	c->workers = xcalloc(c->o.workers, sizeof(*c->workers));
	c->rng = opts->seed;
	return c;

fail:
	/* What is not made yet is zeroed: its release does nothing. */
	pred_set_release(&c->own);
	handler_release(&c->handler);
	free(c);
	return NULL;
}

static void key_free(struct ctl_key *k)
{
	for (size_t i = 0; i < k->nr; i++)
		free(k->v[i].rv);
	free(k->v);
	kobj_unref(k->cached);
	free(k->last_read_rv);
	free(k->key);
	free(k);
}

void controller_free(struct controller *c)
{
	size_t iter = 0;
	struct hashmap_entry *e;

	if (!c)
		return;
	while ((e = hashmap_next(&c->keys, &iter)))
		key_free(e->value);
	hashmap_release(&c->keys);
	for (unsigned i = 0; i < c->o.workers; i++)
		free(c->workers[i].key);
	free(c->workers);
	pred_set_release(&c->own);
	pred_set_release(&c->owned);
	free(c->synced);
	workqueue_free(c->q);
	handler_release(&c->handler);
	strbuf_release(&c->scratch);
	free(c);
}

static struct ctl_key *key_of(struct controller *c, const char *key)
{
	struct ctl_key *k = hashmap_get(&c->keys, key);

	if (k)
		return k;
	k = xcalloc(1, sizeof(*k));
	k->key = xstrdup(key);
	hashmap_insert(&c->keys, k->key, k);
	return k;
}

static void emit(struct controller *c, struct ctl_record *r)
{
	r->clock_ms = c->clock;
	r->kind = c->o.kind;
	if (c->o.record)
		c->o.record(c->o.record_ctx, r);
}

static const char *reason_of(const struct ctl_state *s, bool newest)
{
	if (s->why)
		return s->why;
	if (newest)	/* at the end: still queued, or its Reconcile never came */
		return "no Reconcile read it before the end";
	return s->while_running ? "coalesced while a Reconcile ran" : "coalesced while queued";
}

/*
 * The key's states but its newest handed over (which a Reconcile reads
 * now, or none did), told as unseen unless a Reconcile read the same RV
 * already; all: that one too (at the end).  A lost state is never the one
 * read.  Empties the list.
 */
static size_t take_unseen(struct controller *c, struct ctl_key *k, bool all,
			  struct ctl_unseen **out)
{
	size_t n = 0, read = SIZE_MAX;

	for (size_t i = k->nr; !all && i-- > 0;)
		if (!k->v[i].lost) {
			read = i;
			break;
		}
	const char *newest = read != SIZE_MAX ? k->v[read].rv : NULL;

	*out = xcalloc(k->nr + 1, sizeof(**out));
	for (size_t i = 0; i < k->nr; i++) {
		const char *rv = k->v[i].rv;
		if (i == read)
			continue;
		bool dup = (!all && newest && !strcmp(rv, newest)) ||
			   (k->last_read_rv && !strcmp(rv, k->last_read_rv));
		for (size_t j = 0; j < n && !dup; j++)
			dup = !strcmp((*out)[j].rv, rv);
		if (!dup)
			(*out)[n++] = (struct ctl_unseen){ rv, reason_of(&k->v[i], i + 1 == k->nr) };
	}
	if (n && !k->unseen)
		c->st.keys_unseen++;
	k->unseen += n;
	c->st.unseen += n;
	return n;
}

static void states_clear(struct ctl_key *k)
{
	for (size_t i = 0; i < k->nr; i++)
		free(k->v[i].rv);
	k->nr = 0;
}

static int64_t draw_duration(struct controller *c)
{
	int64_t lo = c->o.reconcile_min_ms, hi = c->o.reconcile_max_ms;
	if (hi <= lo)
		return lo;
	return lo + (int64_t)(rng_next(c) % (uint64_t)(hi - lo + 1));
}

/* Gives queued keys to idle workers, each a ReconcileStart. */
static void start_workers(struct controller *c)
{
	for (unsigned w = 0; c->st.started && !c->buffered && w < c->o.workers &&
			     workqueue_len(c->q); w++) {
		struct worker *wk = &c->workers[w];
		int priority = 0;
		if (wk->key)
			continue;
		const char *key = workqueue_get_priority(c->q, c->clock, &priority);
		if (!key)	/* the priority queue's ready keys are all held */
			break;
		struct ctl_key *k = key_of(c, key);
		struct ctl_unseen *unseen;
		size_t n = take_unseen(c, k, false, &unseen);
		const char *read = k->cached ? k->cached->rv : NULL;
		struct ctl_record r = {
			.type = CTL_RECONCILE_START, .key = key, .worker = w + 1,
			.number = (unsigned)++c->st.reconciles, .read_rv = read,
			.deltas = k->deltas, .unseen = unseen, .nr_unseen = n,
			.priority_queue = c->st.priority_queue, .priority = priority,
		};
		emit(c, &r);
		free(unseen);
		free(k->last_read_rv);
		k->last_read_rv = read ? xstrdup(read) : NULL;
		k->deltas = 0;
		states_clear(k);
		wk->key = xstrdup(key);
		wk->number = r.number;
		wk->priority = priority;
		wk->outcome = c->o.outcomes ? outcome_next(c->o.outcomes, key, read)
					    : (struct outcome){ OUTCOME_NONE, 0 };
		wk->started = c->clock;
		wk->ends = c->clock + draw_duration(c);
		c->st.running++;
	}
}

/* A record's event: the delta behind it, and the event controller-runtime's handler gets. */
static void record_event(struct ctl_record *r, const struct notification *n)
{
	r->object = n->delta.obj->key;
	r->delta = delta_type_name(n->delta.type);
	r->event = n->kind == NOTIFY_ADD ? "Create" : n->kind == NOTIFY_UPDATE ? "Update" : "Delete";
	r->initial = n->kind == NOTIFY_ADD && n->delta.initial_list;
	r->rv = n->delta.obj->rv;
	r->state_unknown = n->delta.tombstone;
}

static void enqueued(struct controller *c, const char *key, enum wq_add how,
		     const char *cause, int64_t after, int priority,
		     const struct notification *n)
{
	struct ctl_record r = {
		.type = CTL_ENQUEUED, .key = key, .how = how, .cause = cause,
		.after_ms = after, .priority_queue = c->st.priority_queue,
		.priority = priority,
	};
	if (n)
		record_event(&r, n);
	if (how < WQ_NONE)
		c->st.enqueued[how]++;
	emit(c, &r);
}

static void note_event(struct controller *c, const struct notification *n, const char *cause);

/*
 * The Reconcile's status write coming back: an Update of the object it
 * read, its resourceVersion made up ("105+w1"), all else the same.
 */
static void status_write(struct controller *c, const char *key)
{
	struct ctl_key *k = key_of(c, key);
	struct errbuf err = { "" };
	struct json_object *tree, *meta;
	char rv[RV_SIZE];

	if (!k->cached || !(tree = kobj_tree(k->cached)))
		return;	/* gone meanwhile: nothing to write */
	snprintf(rv, sizeof(rv), "%.*s+w%u", (int)strcspn(k->cached->rv, "+"),
		 k->cached->rv, ++k->writes);
	if (json_object_object_get_ex(tree, "metadata", &meta))
		json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
	struct kobj *obj = kobj_from_tree(tree, 0, &err);
	json_object_put(tree);
	if (!obj)
		return;
	struct kobj *old = kobj_ref(k->cached);
	struct notification n = {
		.kind = NOTIFY_UPDATE, .obj_kind = k->obj_kind, .group = k->group,
		.delta = { .type = DELTA_UPDATED, .source = SOURCE_WATCH, .obj = obj,
			   .clock_ms = c->clock },
		.old = old,
	};
	note_event(c, &n, "status-write");
	kobj_unref(obj);
	kobj_unref(old);
}

/* What the Reconcile returns: its script's, else --error-rate, --requeue-after. */
static struct outcome outcome_of(struct controller *c, const struct worker *wk)
{
	if (wk->outcome.kind != OUTCOME_NONE)
		return wk->outcome;
	if (c->o.error_rate > 0 && rng_unit(c) < c->o.error_rate)
		return (struct outcome){ OUTCOME_ERROR, 0 };
	if (c->o.requeue_after_ms > 0)
		return (struct outcome){ OUTCOME_REQUEUE_AFTER, c->o.requeue_after_ms };
	return (struct outcome){ OUTCOME_SUCCESS, 0 };
}

/* reconcileHandler's ending, then Done. */
static void finish_reconcile(struct controller *c, struct worker *wk)
{
	struct ctl_record r = {
		.type = CTL_RECONCILE_DONE, .key = wk->key, .number = wk->number,
		.worker = (unsigned)(wk - c->workers) + 1, .took_ms = c->clock - wk->started,
		.requeue_ms = -1,
	};
	struct ctl_key *k = key_of(c, wk->key);
	struct outcome o = outcome_of(c, wk);
	struct wq_opts add = { .priority = wk->priority };
	enum wq_add how = WQ_NONE;
	const char *cause = "rate-limited";

	r.result = outcome_name(o.kind);
	c->st.results[o.kind]++;
	switch (o.kind) {
	case OUTCOME_ERROR:
	case OUTCOME_TERMINAL:
		r.error = wk->outcome.kind == OUTCOME_NONE ? "simulated error (--error-rate)"
			: o.kind == OUTCOME_TERMINAL ? "terminal error (--reconcile-outcome)"
			: "error (--reconcile-outcome)";
		c->st.errors++;
		if (o.kind == OUTCOME_TERMINAL)
			break;	/* a TerminalError is not requeued, nor forgotten */
		/* fall through */
	case OUTCOME_REQUEUE:
		add.rate_limited = true;
		how = workqueue_add_with(c->q, wk->key, &add, c->clock, &r.requeue_ms);
		c->st.requeues++;
		break;
	case OUTCOME_REQUEUE_AFTER:
		workqueue_forget(c->q, wk->key);
		add.after_ms = o.after_ms;
		how = workqueue_add_with(c->q, wk->key, &add, c->clock, NULL);
		r.requeue_ms = o.after_ms;
		cause = "requeue-after";
		c->st.requeues++;
		break;
	default:	/* a success, a status write */
		workqueue_forget(c->q, wk->key);
		break;
	}
	r.requeues = workqueue_num_requeues(c->q, wk->key);
	r.dirty = workqueue_done(c->q, wk->key, c->clock);
	emit(c, &r);
	if (how != WQ_NONE)
		enqueued(c, wk->key, how, cause, r.requeue_ms, wk->priority, NULL);
	if (o.kind == OUTCOME_STATUS_WRITE && !c->draining)
		status_write(c, wk->key);
	/*
	 * A deleted object whose deletion was reconciled, with nothing
	 * pending: forget it, so that churn does not grow the map forever.
	 */
	if (!k->cached && !k->nr && !workqueue_knows(c->q, k->key)) {
		hashmap_remove(&c->keys, k->key, NULL);
		key_free(k);
	}
	free(wk->key);
	wk->key = NULL;
	c->st.running--;
}

static void on_ready(void *ctx, const char *key, enum wq_add how)
{
	enqueued(ctx, key, how, "delayed", 0, 0, NULL);
}

/*
 * When the next timer is due, or -1 when none is: a Reconcile's end
 * (*wk: the worker that ends first, the lowest on a tie; or NULL), a
 * delayed add's (only if follow_delayed), the workers' start.
 */
static int64_t next_timer(struct controller *c, bool follow_delayed, struct worker **wk)
{
	int64_t ready = follow_delayed ? workqueue_next_ready(c->q) : -1;

	*wk = NULL;
	for (unsigned w = 0; w < c->o.workers; w++)
		if (c->workers[w].key && (!*wk || c->workers[w].ends < (*wk)->ends))
			*wk = &c->workers[w];
	int64_t next = *wk ? (*wk)->ends : -1;
	if (ready >= 0 && (next < 0 || ready < next))
		next = ready;
	if (c->start_at >= 0 && (next < 0 || c->start_at < next))
		next = c->start_at;
	return next;
}

/*
 * Runs the timers due up to t, in time order (delayed adds only if
 * follow_delayed), leaving the clock at the last one run; the caller
 * moves it on to t.
 */
static void run_until(struct controller *c, int64_t t, bool follow_delayed)
{
	if (t > c->clock)
		c->buffered = false;
	for (;;) {
		start_workers(c);
		struct worker *wk;
		int64_t next = next_timer(c, follow_delayed, &wk);
		if (next < 0 || next > t)
			break;
		if (next > c->clock)
			c->clock = next;
		if (c->start_at == next) {
			c->start_at = -1;
			c->st.started = true;
		} else if (wk && wk->ends == next) {
			finish_reconcile(c, wk);
		} else {
			workqueue_pop_ready(c->q, next, on_ready, c);
		}
	}
}

/* Runs what is due by t, then stands at t. */
static void advance_to(struct controller *c, int64_t t)
{
	run_until(c, t, true);
	if (t > c->clock)
		c->clock = t;
}

static enum handler_event event_of(const struct notification *n)
{
	return n->kind == NOTIFY_ADD ? HANDLER_CREATE :
	       n->kind == NOTIFY_UPDATE ? HANDLER_UPDATE : HANDLER_DELETE;
}

/* The cache as the handlers saw it, and the state received. */
static struct ctl_key *note_state(struct controller *c, const struct notification *n)
{
	struct ctl_key *k = key_of(c, n->delta.obj->key);

	kobj_unref(k->cached);
	k->cached = n->kind == NOTIFY_DELETE ? NULL : kobj_ref(n->delta.obj);
	k->obj_kind = n->obj_kind;
	k->group = n->group;
	ALLOC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr++] = (struct ctl_state){
		.rv = xstrdup(n->delta.obj->rv),
		.while_running = workqueue_is_processing(c->q, k->key),
	};
	return k;
}

/* The first predicate term of the source's set that drops an Update, or -1. */
static int filter(const struct controller *c, const struct pred_set *set,
		  const struct notification *n)
{
	struct pred_meta old, cur;
	int term;

	if (n->kind != NOTIFY_UPDATE || !set->p.nr)
		return -1;
	pred_meta_init(&old, n->old, set->mask);
	pred_meta_init(&cur, n->delta.obj, set->mask);
	old.deep_equal = cur.deep_equal = c->o.runtime_minor < 18;	/* then maps.Equal */
	term = predicates_update(&set->p, n->old ? &old : NULL, &cur);
	pred_meta_release(&old);
	pred_meta_release(&cur);
	return term;
}

/*
 * The priority queue's for an event (eventhandler.go): low for a Create
 * of the initial list (a late handler's catch-up adds are one too) and an
 * Update whose resourceVersion did not change; else 0.
 */
static int event_priority(const struct controller *c, const struct notification *n)
{
	if (!c->st.priority_queue)
		return 0;
	if (n->kind == NOTIFY_ADD && (n->delta.initial_list || n->replay))
		return WQ_LOW_PRIORITY;
	if (n->kind == NOTIFY_UPDATE && n->old && !strcmp(n->old->rv, n->delta.obj->rv))
		return WQ_LOW_PRIORITY;
	return 0;
}

/* A source synced; once all have, the workers start. */
static void note_synced(struct controller *c, const char *resource)
{
	for (size_t i = 0; i < c->nr_synced; i++)
		if (!strcmp(c->synced[i], resource))
			return;
	ALLOC_GROW(c->synced, c->nr_synced + 1, c->alloc_synced);
	c->synced[c->nr_synced++] = resource;
	if (c->nr_synced < c->o.sources || c->st.started || c->start_at >= 0)
		return;
	/*
	 * The manager's WaitForCacheSync checks at its start, then at every
	 * tick from it: the first tick with every source synced starts the
	 * controller.  From v0.23 its Kind source waits the same way for its
	 * handler to have had the initial list, which the check at once
	 * never finds: a tick more.
	 */
	if (c->o.now)
		advance_to(c, c->o.now(c->o.now_ctx));
	int64_t ticks = (c->clock - c->o.start_ms + SYNC_POLL_MS - 1) / SYNC_POLL_MS;
	c->start_at = c->o.start_ms + (ticks < 1 ? 1 : ticks) * SYNC_POLL_MS +
		      (c->o.runtime_minor >= 23 ? SYNC_POLL_MS : 0);
}

void controller_note(struct controller *c, const struct notification *n)
{
	if (n->kind == NOTIFY_ACTIVITY && n->activity && n->activity->act == ACT_SYNCED &&
	    n->resource)
		note_synced(c, n->resource);
	if (n->kind == NOTIFY_ACTIVITY || !n->delta.obj)
		return;
	advance_to(c, n->delta.clock_ms);
	if (c->buffered && (n->delta.source != c->burst_source || n->delta.list_no != c->burst_list)) {
		/* The flush, and what is due at once after it, before the next burst. */
		c->buffered = false;
		run_until(c, c->clock, true);
	}
	c->st.deltas++;
	note_event(c, n, "event");
}

/* An event through the predicates and the handler into the queue; cause: the Enqueued's. */
static void note_event(struct controller *c, const struct notification *n, const char *cause)
{
	struct handler_keys keys = { .nr = 0 };
	struct ctl_key *own = NULL;
	bool is_own;

	is_own = handler_requests(&c->handler, n->obj_kind, n->group, event_of(n),
				  n->delta.obj, n->old, &keys);
	if (is_own)
		own = note_state(c, n);
	const struct pred_set *set = is_own ? &c->own : &c->owned;
	int term = filter(c, set, n);
	if (term >= 0) {
		struct strbuf *sb = &c->scratch;
		strbuf_reset(sb);
		predicates_term_name(&set->p, (size_t)term, sb);
		struct ctl_record r = {
			.type = CTL_FILTERED, .key = n->delta.obj->key, .predicate = sb->buf,
		};
		record_event(&r, n);
		if (own)
			own->v[own->nr - 1].why = set->reasons[term];
		c->st.filtered++;
		emit(c, &r);
		handler_keys_release(&keys);
		return;
	}
	int priority = event_priority(c, n);
	for (size_t i = 0; i < keys.nr; i++) {
		struct wq_opts add = { .priority = priority };
		enum wq_add how = workqueue_add_with(c->q, keys.v[i], &add, c->clock, NULL);
		key_of(c, keys.v[i])->deltas++;
		enqueued(c, keys.v[i], how, cause, 0, priority, n);
	}
	if (keys.nr && c->st.priority_queue && n->delta.source != SOURCE_WATCH) {
		c->buffered = true;
		c->burst_source = n->delta.source;
		c->burst_list = n->delta.list_no;
	}
	handler_keys_release(&keys);
	start_workers(c);
}

void controller_diverged(struct controller *c, const char *key, const char *verify_class,
			 const char *server_rv, const char *cache_rv, bool lost)
{
	struct ctl_record r = {
		.type = CTL_DIVERGED, .key = key, .verify_class = verify_class,
		.server_rv = server_rv, .cache_rv = cache_rv, .lost = lost,
	};
	emit(c, &r);
	if (!lost)
		return;
	const char *rv = server_rv ? server_rv : "deleted";
	struct ctl_key *k = key_of(c, key);
	for (size_t i = 0; i < k->nr; i++)
		if (!strcmp(k->v[i].rv, rv))
			return;	/* a lasting divergence, told already */
	if (k->last_read_rv && !strcmp(k->last_read_rv, rv))
		return;
	ALLOC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr++] = (struct ctl_state){
		.rv = xstrdup(rv), .lost = true,
		.why = server_rv ? "lost: the informer never handed it over (verify)"
				 : "lost: the informer never handed the delete over (verify)",
	};
	c->st.lost++;
}

void controller_advance(struct controller *c)
{
	if (c->o.now)
		advance_to(c, c->o.now(c->o.now_ctx));
}

int64_t controller_wait_ms(struct controller *c)
{
	struct worker *wk;
	int64_t next = next_timer(c, true, &wk);

	if (!c->o.now)
		return -1;
	if (c->buffered)	/* flushed once the clock moves on */
		return 1;
	if (next < 0)
		return -1;
	int64_t now = c->o.now(c->o.now_ctx);
	return next > now ? next - now : 0;
}

int64_t controller_live_clock(void *ctx)
{
	return mono_ms();
}

static int cmp_keys(const void *a, const void *b)
{
	return strcmp((*(struct ctl_key *const *)a)->key, (*(struct ctl_key *const *)b)->key);
}

void controller_finish(struct controller *c, bool drain)
{
	struct ctl_key **v = xcalloc(hashmap_len(&c->keys) + 1, sizeof(*v));
	size_t nr = 0, iter = 0;
	struct hashmap_entry *e;

	if (drain) {
		c->draining = true;
		if (c->start_at < 0)	/* a recording may end before every source synced */
			c->st.started = true;
		run_until(c, INT64_MAX, false);
	}
	/* In key order, so that the end reads the same every time. */
	while ((e = hashmap_next(&c->keys, &iter)))
		v[nr++] = e->value;
	qsort(v, nr, sizeof(*v), cmp_keys);
	for (size_t i = 0; i < nr; i++) {
		struct ctl_unseen *unseen;
		size_t n = take_unseen(c, v[i], true, &unseen);
		if (n) {
			/* a key queued or being reconciled at exit had its Reconcile coming */
			struct ctl_record r = {
				.type = workqueue_knows(c->q, v[i]->key) ? CTL_STILL_QUEUED
									  : CTL_NEVER_RECONCILED,
				.key = v[i]->key, .unseen = unseen, .nr_unseen = n,
			};
			emit(c, &r);
		}
		free(unseen);
		states_clear(v[i]);
	}
	free(v);
}

void controller_get_stats(const struct controller *c, struct controller_stats *out)
{
	*out = c->st;
	out->clock_ms = c->clock;
	out->kind = c->o.kind;
	workqueue_get_metrics(c->q, c->clock, &out->wq);
}

bool controller_key_info(const struct controller *c, const char *key,
			 struct ctl_key_info *out)
{
	const struct ctl_key *k = hashmap_get(&c->keys, key);

	if (!k)
		return false;
	*out = (struct ctl_key_info){
		.running = workqueue_is_processing(c->q, key),
		.queued = workqueue_is_dirty(c->q, key),
		.nr_pending = k->nr,
	};
	return true;
}

unsigned controller_workers(const struct controller *c)
{
	return c->o.workers;
}

bool controller_worker_info(const struct controller *c, unsigned w,
			    struct ctl_worker_info *out)
{
	const struct worker *wk = w < c->o.workers ? &c->workers[w] : NULL;

	if (!wk || !wk->key)
		return false;
	*out = (struct ctl_worker_info){
		.key = wk->key, .number = wk->number,
		.ends_ms = wk->ends,
	};
	return true;
}

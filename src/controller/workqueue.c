/* workqueue.c — see workqueue.h.  Single-threaded: no locks. */
#include "controller/workqueue.h"

#include <stdlib.h>
#include <string.h>

#include "controller/ratelimit.h"
#include "lib/hashmap.h"
#include "lib/util.h"

/*
 * One key the queue knows: dirty (WQ_PRIORITY: ready), processing,
 * waiting, or a combination.  Freed once it is none of them and no heap
 * entry points at it.
 */
struct wq_item {
	char *key;
	bool dirty, processing, waiting;
	int64_t ready_at;	/* waiting: when it is due */
	int priority;		/* WQ_PRIORITY */
	uint64_t seq;		/* its live heap entry's (WQ_PRIORITY: AddedCounter) */
	unsigned heap_refs;	/* heap entries pointing here, stale or not */
	int64_t added_at;	/* metrics' addTimes; -1: none */
	int64_t started_at;	/* metrics' processingStartTimes; -1: none */
	/* processing: in the queue's list of them (metrics, without a walk of every key) */
	struct wq_item *run_prev, *run_next;
};

/*
 * A heap entry: waiting ones on (at, [priority,] seq), WQ_PRIORITY's
 * ready ones on (priority, seq).  Stale once its item moved on: entries
 * are never taken out of the middle, only found stale at the top.
 */
struct wq_entry {
	int64_t at;
	int priority;
	uint64_t seq;
	struct wq_item *item;
};

struct wq_heap {
	struct wq_entry *v;
	size_t nr, alloc;
	bool (*less)(const struct wq_entry *a, const struct wq_entry *b);
	bool (*stale)(const struct wq_entry *e);
};

struct workqueue {
	enum wq_kind kind;
	struct hashmap items;		/* key -> struct wq_item */
	struct wq_item **queue;		/* WQ_CLASSIC: queue[head..tail) */
	size_t head, tail, alloc;
	struct wq_heap waiting;
	struct wq_heap ready;		/* WQ_PRIORITY */
	size_t nr_ready;		/* WQ_PRIORITY: items ready */
	uint64_t seq;
	struct ratelimit rl;
	struct workqueue_metrics m;	/* counters (waiting too); the rest computed */
	struct wq_item *running;	/* the processing items, newest first */
};

static const char *const add_names[] = {
	[WQ_NEW] = "new", [WQ_COALESCED] = "coalesced", [WQ_DIRTY] = "dirty",
	[WQ_WAITING] = "after", [WQ_EARLY] = "early",
};

const char *wq_add_name(enum wq_add how)
{
	return (unsigned)how < ARRAY_SIZE(add_names) ? add_names[how] : "unknown";
}

static bool wait_less(const struct wq_entry *a, const struct wq_entry *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

/* lessReady: the higher priority first, then the lower AddedCounter. */
static bool ready_less(const struct wq_entry *a, const struct wq_entry *b)
{
	return a->priority > b->priority || (a->priority == b->priority && a->seq < b->seq);
}

/* lessWaiting: the earlier time first, then as lessReady. */
static bool wait_less_priority(const struct wq_entry *a, const struct wq_entry *b)
{
	return a->at < b->at || (a->at == b->at && ready_less(a, b));
}

static bool wait_stale(const struct wq_entry *e)
{
	const struct wq_item *it = e->item;
	return !it->waiting || it->ready_at != e->at || it->seq != e->seq ||
	       it->priority != e->priority;
}

static bool ready_stale(const struct wq_entry *e)
{
	const struct wq_item *it = e->item;
	return !it->dirty || it->seq != e->seq || it->priority != e->priority;
}

struct workqueue *workqueue_new(enum wq_kind kind)
{
	struct workqueue *q = xcalloc(1, sizeof(*q));

	q->kind = kind;
	q->waiting.less = kind == WQ_PRIORITY ? wait_less_priority : wait_less;
	q->waiting.stale = wait_stale;
	q->ready.less = ready_less;
	q->ready.stale = ready_stale;
	ratelimit_init(&q->rl, kind == WQ_CLASSIC);
	return q;
}

void workqueue_free(struct workqueue *q)
{
	size_t iter = 0;
	struct hashmap_entry *e;

	if (!q)
		return;
	while ((e = hashmap_next(&q->items, &iter))) {
		struct wq_item *it = e->value;
		free(it->key);
		free(it);
	}
	hashmap_release(&q->items);
	free(q->queue);
	free(q->waiting.v);
	free(q->ready.v);
	ratelimit_release(&q->rl);
	free(q);
}

static struct wq_item *item_of(const struct workqueue *q, const char *key)
{
	return hashmap_get(&q->items, key);
}

static struct wq_item *item_make(struct workqueue *q, const char *key)
{
	struct wq_item *it = item_of(q, key);

	if (it)
		return it;
	it = xcalloc(1, sizeof(*it));
	it->key = xstrdup(key);
	it->added_at = it->started_at = -1;
	hashmap_insert(&q->items, it->key, it);
	return it;
}

/* Drops an item nobody needs any more. */
static void item_maybe_free(struct workqueue *q, struct wq_item *it)
{
	if (it->dirty || it->processing || it->waiting || it->heap_refs)
		return;
	hashmap_remove(&q->items, it->key, NULL);
	free(it->key);
	free(it);
}

static void queue_push(struct workqueue *q, struct wq_item *it)
{
	if (q->head && q->tail == q->alloc) {	/* slide down before growing */
		memmove(q->queue, q->queue + q->head, (q->tail - q->head) * sizeof(*q->queue));
		q->tail -= q->head;
		q->head = 0;
	}
	ALLOC_GROW(q->queue, q->tail + 1, q->alloc);
	q->queue[q->tail++] = it;
}

/* client-go's Add. */
static enum wq_add classic_add(struct workqueue *q, const char *key, int64_t now)
{
	struct wq_item *it = item_make(q, key);

	if (it->dirty)
		return WQ_COALESCED;	/* the plain queue's Touch does nothing */
	q->m.adds++;
	q->m.depth++;
	if (it->added_at < 0)
		it->added_at = now;
	it->dirty = true;
	if (it->processing)
		return WQ_DIRTY;
	queue_push(q, it);
	return WQ_NEW;
}

/* A duration of ms into its histogram's bucket (WQ_BUCKETS). */
static void observe(uint64_t *buckets, int64_t ms)
{
	int64_t bound_ns = 10;

	for (int k = 0; k < WQ_BUCKETS; k++, bound_ns *= 10) {
		if (ms * 1000000 <= bound_ns) {
			buckets[k]++;
			return;
		}
	}
}

static struct wq_item *pq_take(struct workqueue *q);

const char *workqueue_get_priority(struct workqueue *q, int64_t now, int *priority)
{
	struct wq_item *it;

	if (q->kind == WQ_PRIORITY)
		it = pq_take(q);
	else
		it = q->head == q->tail ? NULL : q->queue[q->head++];
	if (!it)
		return NULL;
	if (priority)
		*priority = it->priority;
	q->m.depth--;
	it->started_at = now;
	if (it->added_at >= 0) {
		int64_t waited = now - it->added_at;
		q->m.queue_count++;
		q->m.queue_sum_ms += waited;
		observe(q->m.queue_buckets, waited);
		if (waited > q->m.queue_max_ms)
			q->m.queue_max_ms = waited;
		it->added_at = -1;
	}
	it->processing = true;
	it->dirty = false;
	it->run_prev = NULL;
	it->run_next = q->running;
	if (q->running)
		q->running->run_prev = it;
	q->running = it;
	return it->key;
}

bool workqueue_done(struct workqueue *q, const char *key, int64_t now)
{
	struct wq_item *it = item_of(q, key);

	if (!it)
		return false;
	if (it->started_at >= 0) {
		int64_t worked = now - it->started_at;
		q->m.work_count++;
		q->m.work_sum_ms += worked;
		observe(q->m.work_buckets, worked);
		if (worked > q->m.work_max_ms)
			q->m.work_max_ms = worked;
		it->started_at = -1;
	}
	if (it->processing) {
		if (it->run_prev)
			it->run_prev->run_next = it->run_next;
		else
			q->running = it->run_next;
		if (it->run_next)
			it->run_next->run_prev = it->run_prev;
	}
	it->processing = false;
	if (it->dirty) {	/* the priority queue's entry is ready already */
		if (q->kind == WQ_CLASSIC)
			queue_push(q, it);
		return true;
	}
	item_maybe_free(q, it);
	return false;
}

size_t workqueue_len(const struct workqueue *q)
{
	return q->kind == WQ_PRIORITY ? q->nr_ready : q->tail - q->head;
}

bool workqueue_is_dirty(const struct workqueue *q, const char *key)
{
	struct wq_item *it = item_of(q, key);
	return it && it->dirty;
}

bool workqueue_is_processing(const struct workqueue *q, const char *key)
{
	struct wq_item *it = item_of(q, key);
	return it && it->processing;
}

bool workqueue_knows(const struct workqueue *q, const char *key)
{
	return item_of(q, key) != NULL;
}

/* ---- the heaps ------------------------------------------------------------- */

/* A live entry for it, as it stands now. */
static void heap_push(struct wq_heap *h, struct wq_item *it)
{
	struct wq_entry e = { it->ready_at, it->priority, it->seq, it };
	size_t i;

	ALLOC_GROW(h->v, h->nr + 1, h->alloc);
	i = h->nr++;
	while (i && h->less(&e, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = e;
	it->heap_refs++;
}

static struct wq_entry heap_pop(struct wq_heap *h)
{
	struct wq_entry top = h->v[0], last = h->v[--h->nr];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->nr)
			break;
		if (c + 1 < h->nr && h->less(&h->v[c + 1], &h->v[c]))
			c++;
		if (!h->less(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->nr)
		h->v[i] = last;
	top.item->heap_refs--;
	return top;
}

/* Drops stale entries from the top, so v[0] is live (or none is). */
static void heap_trim(struct workqueue *q, struct wq_heap *h)
{
	while (h->nr && h->stale(&h->v[0])) {
		struct wq_entry e = heap_pop(h);
		item_maybe_free(q, e.item);
	}
}

/* ---- the delays -------------------------------------------------------------- */

/* The key waits until at (an entry for it, as it stands now). */
static void item_wait(struct workqueue *q, struct wq_item *it, int64_t at)
{
	if (!it->waiting)
		q->m.waiting++;
	it->waiting = true;
	it->ready_at = at;
	heap_push(&q->waiting, it);
}

/* client-go's AddAfter, for a delay over 0. */
static enum wq_add classic_add_after(struct workqueue *q, const char *key,
				     int64_t delay_ms, int64_t now)
{
	struct wq_item *it = item_make(q, key);

	q->m.retries++;
	if (it->waiting && it->ready_at <= now + delay_ms)
		return WQ_WAITING;	/* the earlier time stands */
	it->seq = q->seq++;
	item_wait(q, it, now + delay_ms);
	return WQ_WAITING;
}

/* ---- the priority queue ------------------------------------------------------ */

/* metrics.add: the key became ready. */
static void pq_ready(struct workqueue *q, struct wq_item *it, int64_t now)
{
	it->dirty = true;
	q->nr_ready++;
	q->m.adds++;
	q->m.depth++;
	if (it->added_at < 0)
		it->added_at = now;
	heap_push(&q->ready, it);
}

/* lockedAddWithOpts, for one key; *delay: the delay asked. */
static enum wq_add pq_add(struct workqueue *q, const char *key, const struct wq_opts *o,
			  int64_t now, int64_t *delay)
{
	int64_t after = o->after_ms > 0 ? o->after_ms : 0;
	struct wq_item *it;

	if (o->rate_limited) {
		int64_t rl = ratelimit_when(&q->rl, key, now);
		if (after == 0 || rl < after)
			after = rl;
	}
	*delay = after;
	if (after > 0)
		q->m.retries++;
	it = item_make(q, key);
	if (!it->dirty && !it->waiting) {	/* new: not in items */
		it->priority = o->priority;
		it->seq = q->seq++;
		if (after > 0) {
			item_wait(q, it, now + after);
			return WQ_WAITING;
		}
		pq_ready(q, it, now);
		return it->processing ? WQ_DIRTY : WQ_NEW;
	}
	bool raised = o->priority > it->priority;
	if (raised) {	/* to the end of its new priority */
		it->priority = o->priority;
		it->seq = q->seq++;
	}
	if (it->dirty) {	/* a ready key stays ready, whatever the delay */
		if (raised)
			heap_push(&q->ready, it);
		return WQ_COALESCED;
	}
	if (after == 0) {	/* waiting, now ready: its timer is gone */
		it->waiting = false;
		q->m.waiting--;
		pq_ready(q, it, now);
		return WQ_EARLY;
	}
	if (now + after < it->ready_at || raised)
		item_wait(q, it, now + after < it->ready_at ? now + after : it->ready_at);
	return WQ_WAITING;
}

/* The first ready key no worker holds; those held keep their places. */
static struct wq_item *pq_take(struct workqueue *q)
{
	struct wq_item *found = NULL, **held = NULL;
	size_t nr_held = 0, alloc = 0;

	while (!found) {
		heap_trim(q, &q->ready);
		if (!q->ready.nr)
			break;
		struct wq_entry e = heap_pop(&q->ready);
		if (!e.item->processing) {
			found = e.item;
			break;
		}
		ALLOC_GROW(held, nr_held + 1, alloc);
		held[nr_held++] = e.item;
	}
	for (size_t i = 0; i < nr_held; i++)
		heap_push(&q->ready, held[i]);
	free(held);
	if (found)
		q->nr_ready--;
	return found;
}

/* ---- both -------------------------------------------------------------------- */

enum wq_add workqueue_add_with(struct workqueue *q, const char *key,
			       const struct wq_opts *o, int64_t now, int64_t *delay)
{
	int64_t unused;

	if (!delay)
		delay = &unused;
	*delay = 0;
	if (q->kind == WQ_PRIORITY)
		return pq_add(q, key, o, now, delay);
	if (o->rate_limited) {
		*delay = ratelimit_when(&q->rl, key, now);
		return classic_add_after(q, key, *delay, now);
	}
	if (o->after_ms > 0) {
		*delay = o->after_ms;
		return classic_add_after(q, key, o->after_ms, now);
	}
	return classic_add(q, key, now);
}

int64_t workqueue_next_ready(struct workqueue *q)
{
	heap_trim(q, &q->waiting);
	return q->waiting.nr ? q->waiting.v[0].at : -1;
}

void workqueue_pop_ready(struct workqueue *q, int64_t now,
			 void (*added)(void *ctx, const char *key, enum wq_add how),
			 void *ctx)
{
	heap_trim(q, &q->waiting);
	while (q->waiting.nr && q->waiting.v[0].at <= now) {
		struct wq_item *it = heap_pop(&q->waiting).item;
		enum wq_add how;

		it->waiting = false;
		q->m.waiting--;
		it->heap_refs++;	/* kept while added() reads its key */
		if (q->kind == WQ_PRIORITY) {
			/* by when it became ready, not when it was added */
			it->seq = q->seq++;
			pq_ready(q, it, now);
			how = it->processing ? WQ_DIRTY : WQ_NEW;
		} else {
			how = classic_add(q, it->key, now);
		}
		if (added)
			added(ctx, it->key, how);
		it->heap_refs--;
		item_maybe_free(q, it);
		heap_trim(q, &q->waiting);
	}
}

void workqueue_forget(struct workqueue *q, const char *key)
{
	ratelimit_forget(&q->rl, key);
}

unsigned workqueue_num_requeues(const struct workqueue *q, const char *key)
{
	return ratelimit_num_requeues(&q->rl, key);
}

void workqueue_get_metrics(const struct workqueue *q, int64_t now,
			   struct workqueue_metrics *out)
{
	*out = q->m;
	out->longest_running_ms = out->unfinished_ms = 0;
	/* The processing keys only: a backlog of queued ones costs nothing here. */
	for (const struct wq_item *it = q->running; it; it = it->run_next) {
		if (it->started_at < 0)
			continue;
		out->unfinished_ms += now - it->started_at;
		if (now - it->started_at > out->longest_running_ms)
			out->longest_running_ms = now - it->started_at;
	}
}

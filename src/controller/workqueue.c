/* workqueue.c — see workqueue.h.  Single-threaded: no locks. */
#include "controller/workqueue.h"

#include <stdlib.h>
#include <string.h>

#include "controller/ratelimit.h"
#include "lib/hashmap.h"
#include "lib/util.h"

/*
 * One key the queue knows: dirty, processing, waiting, or a combination.
 * Freed once it is none of them and no heap entry points at it.
 */
struct wq_item {
	char *key;
	bool dirty, processing, waiting;
	int64_t ready_at;	/* waiting: when it is due */
	unsigned heap_refs;	/* heap entries pointing here, stale or not */
	int64_t added_at;	/* metrics' addTimes; -1: none */
	int64_t started_at;	/* metrics' processingStartTimes; -1: none */
	/* processing: in the queue's list of them (metrics, without a walk of every key) */
	struct wq_item *run_prev, *run_next;
};

/* A waiting entry; stale once its item waits no more or for another time. */
struct wq_wait {
	int64_t at;
	uint64_t seq;
	struct wq_item *item;
};

struct workqueue {
	struct hashmap items;		/* key -> struct wq_item */
	struct wq_item **queue;		/* queue[head..tail) */
	size_t head, tail, alloc;
	struct wq_wait *heap;		/* a min-heap on (at, seq) */
	size_t heap_nr, heap_alloc;
	uint64_t seq;
	bool shutting_down;
	struct ratelimit rl;
	struct workqueue_metrics m;	/* counters (waiting too); the rest computed */
	struct wq_item *running;	/* the processing items, newest first */
};

static const char *const add_names[] = {
	[WQ_NEW] = "new", [WQ_COALESCED] = "coalesced", [WQ_DIRTY] = "dirty",
	[WQ_WAITING] = "after", [WQ_SHUT] = "shutdown",
};

const char *wq_add_name(enum wq_add how)
{
	return (unsigned)how < ARRAY_SIZE(add_names) ? add_names[how] : "unknown";
}

struct workqueue *workqueue_new(void)
{
	struct workqueue *q = xcalloc(1, sizeof(*q));
	ratelimit_init(&q->rl);
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
	free(q->heap);
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

enum wq_add workqueue_add(struct workqueue *q, const char *key, int64_t now)
{
	struct wq_item *it;

	if (q->shutting_down)
		return WQ_SHUT;
	it = item_make(q, key);
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

const char *workqueue_get(struct workqueue *q, int64_t now)
{
	struct wq_item *it;

	if (q->head == q->tail)
		return NULL;
	it = q->queue[q->head++];
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
	if (it->dirty) {
		queue_push(q, it);
		return true;
	}
	item_maybe_free(q, it);
	return false;
}

void workqueue_shut_down(struct workqueue *q)
{
	q->shutting_down = true;
}

size_t workqueue_len(const struct workqueue *q)
{
	return q->tail - q->head;
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

/* ---- the delaying queue's waiting heap ---------------------------------- */

static bool wait_less(const struct wq_wait *a, const struct wq_wait *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void heap_push(struct workqueue *q, struct wq_wait w)
{
	size_t i;

	ALLOC_GROW(q->heap, q->heap_nr + 1, q->heap_alloc);
	i = q->heap_nr++;
	while (i && wait_less(&w, &q->heap[(i - 1) / 2])) {
		q->heap[i] = q->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->heap[i] = w;
	w.item->heap_refs++;
}

static struct wq_wait heap_pop(struct workqueue *q)
{
	struct wq_wait top = q->heap[0], last = q->heap[--q->heap_nr];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->heap_nr)
			break;
		if (c + 1 < q->heap_nr && wait_less(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!wait_less(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->heap_nr)
		q->heap[i] = last;
	top.item->heap_refs--;
	return top;
}

static bool wait_stale(const struct wq_wait *w)
{
	return !w->item->waiting || w->item->ready_at != w->at;
}

/* Drops stale entries from the top, so heap[0] is live (or none is). */
static void heap_trim(struct workqueue *q)
{
	while (q->heap_nr && wait_stale(&q->heap[0])) {
		struct wq_wait w = heap_pop(q);
		item_maybe_free(q, w.item);
	}
}

enum wq_add workqueue_add_after(struct workqueue *q, const char *key,
				int64_t delay_ms, int64_t now)
{
	struct wq_item *it;

	if (q->shutting_down)
		return WQ_SHUT;
	q->m.retries++;
	if (delay_ms <= 0)
		return workqueue_add(q, key, now);
	it = item_make(q, key);
	if (it->waiting && it->ready_at <= now + delay_ms)
		return WQ_WAITING;	/* the earlier time stands */
	if (!it->waiting)
		q->m.waiting++;
	it->waiting = true;
	it->ready_at = now + delay_ms;
	heap_push(q, (struct wq_wait){ it->ready_at, q->seq++, it });
	return WQ_WAITING;
}

int64_t workqueue_next_ready(struct workqueue *q)
{
	heap_trim(q);
	return q->heap_nr ? q->heap[0].at : -1;
}

void workqueue_pop_ready(struct workqueue *q, int64_t now,
			 void (*added)(void *ctx, const char *key, enum wq_add how,
				       int64_t due),
			 void *ctx)
{
	heap_trim(q);
	while (q->heap_nr && q->heap[0].at <= now) {
		struct wq_wait w = heap_pop(q);
		struct wq_item *it = w.item;

		it->waiting = false;
		q->m.waiting--;
		it->heap_refs++;	/* kept while added() reads its key */
		enum wq_add how = workqueue_add(q, it->key, now);
		if (added)
			added(ctx, it->key, how, w.at);
		it->heap_refs--;
		item_maybe_free(q, it);
		heap_trim(q);
	}
}

int64_t workqueue_add_rate_limited(struct workqueue *q, const char *key, int64_t now)
{
	int64_t delay = ratelimit_when(&q->rl, key, now);
	workqueue_add_after(q, key, delay, now);
	return delay;
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

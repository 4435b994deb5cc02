/*
 * test_workqueue.c — the simulated controller's queue, rate limiter,
 * predicates and owner mapping (src/controller/).  The queue's cases are
 * client-go's own util/workqueue queue_test.go ones (TestBasic's
 * one-key-per-Get, TestAddWhileProcessing, TestLen, TestReinsert,
 * TestCollapse, TestGarbageCollection's emptied queue) and
 * delaying_queue_test.go's TestAddTwoFireEarly, restated for a queue
 * that is single-threaded by design: its workers are simulated on a
 * virtual clock (controller.h), so no two threads share a queue.  What
 * can run in parallel are queues themselves: queues_run_in_parallel
 * drives one on each of several threads at once, which would catch any
 * state the module keeps outside its queue.
 */
#include "unit.h"

#include <pthread.h>
#include <stdio.h>

#include "lib/strbuf.h"
#include "lib/token_bucket.h"

#include "controller/handler.h"
#include "controller/predicate.h"
#include "controller/ratelimit.h"
#include "controller/workqueue.h"
#include "informer/kobj.h"

static struct kobj *obj(const char *json)
{
	struct errbuf err = { "" };
	struct kobj *o = kobj_from_json(json, strlen(json), 0, &err);
	CHECKF(o != NULL, "%s: %s", json, err.msg);
	return o;
}

/* AddWithOpts: WQ_CLASSIC's Add (after 0) or AddAfter, WQ_PRIORITY's own. */
static enum wq_add add(struct workqueue *q, const char *key, int prio, int64_t after,
		       int64_t now)
{
	struct wq_opts o = { .after_ms = after, .priority = prio };
	return workqueue_add_with(q, key, &o, now, NULL);
}

TEST(add_get_done_in_order)
{
	struct workqueue *q = workqueue_new(WQ_CLASSIC);
	CHECK_INT(add(q, "a", 0, 0, 0), WQ_NEW);
	CHECK_INT(add(q, "b", 0, 0, 0), WQ_NEW);
	CHECK_INT(workqueue_len(q), 2);
	CHECK_STR(workqueue_get_priority(q, 1, NULL), "a");
	CHECK_STR(workqueue_get_priority(q, 1, NULL), "b");
	CHECK(workqueue_get_priority(q, 1, NULL) == NULL);
	CHECK(!workqueue_done(q, "a", 2));
	CHECK(!workqueue_done(q, "b", 2));
	workqueue_free(q);
}

/* TestCollapse: a key added twice before Get is handed out once. */
TEST(collapse)
{
	struct workqueue *q = workqueue_new(WQ_CLASSIC);
	CHECK_INT(add(q, "bar", 0, 0, 0), WQ_NEW);
	CHECK_INT(add(q, "bar", 0, 0, 0), WQ_COALESCED);
	CHECK_INT(workqueue_len(q), 1);
	CHECK_STR(workqueue_get_priority(q, 0, NULL), "bar");
	CHECK_INT(workqueue_len(q), 0);
	workqueue_done(q, "bar", 0);
	workqueue_free(q);
}

/* TestAddWhileProcessing / TestReinsert: dirty while held, queued at Done. */
TEST(add_while_processing)
{
	struct workqueue *q = workqueue_new(WQ_CLASSIC);
	add(q, "foo", 0, 0, 0);
	CHECK_STR(workqueue_get_priority(q, 0, NULL), "foo");
	CHECK_INT(add(q, "foo", 0, 0, 1), WQ_DIRTY);
	CHECK_INT(workqueue_len(q), 0);		/* not queued while held */
	CHECK_INT(add(q, "foo", 0, 0, 2), WQ_COALESCED);
	CHECK(workqueue_get_priority(q, 2, NULL) == NULL);
	CHECK(workqueue_done(q, "foo", 3));
	CHECK_INT(workqueue_len(q), 1);
	CHECK_STR(workqueue_get_priority(q, 3, NULL), "foo");
	CHECK(!workqueue_done(q, "foo", 4));
	CHECK_INT(workqueue_len(q), 0);

	struct workqueue_metrics m;
	workqueue_get_metrics(q, 4, &m);
	CHECK_INT(m.adds, 2);		/* new and dirty; the coalesced one is no add */
	CHECK_INT(m.depth, 0);
	CHECK_INT(m.queue_count, 2);
	CHECK_INT(m.work_count, 2);
	/* client-go's buckets, 10^(k-8) s: 0 ms in the first, 1 ms in 1e-3, 2 and 3 ms in 1e-2 */
	CHECK_INT(m.queue_buckets[0], 1);
	CHECK_INT(m.queue_buckets[6], 1);
	CHECK_INT(m.work_buckets[5], 1);
	CHECK_INT(m.work_buckets[6], 1);
	workqueue_free(q);
}

/*
 * A script of Adds, Gets and Dones on a queue of its own (keys from a
 * seeded generator), its every answer written to trace.
 */
static void *run_script(void *arg)
{
	struct strbuf *trace = arg;
	struct workqueue *q = workqueue_new(WQ_CLASSIC);
	unsigned seed = 7;
	char key[8];
	const char *held[4] = { NULL };
	int64_t now = 0;

	for (int i = 0; i < 20000; i++, now++) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = (seed >> 16) % 10, slot = (seed >> 8) % 4;
		if (r < 6) {
			snprintf(key, sizeof(key), "k%u", (seed >> 4) % 16);
			strbuf_addf(trace, "a%s=%d ", key, (int)add(q, key, 0, 0, now));
		} else if (!held[slot]) {
			held[slot] = workqueue_get_priority(q, now, NULL);
			strbuf_addf(trace, "g%s ", held[slot] ? held[slot] : "-");
		} else {
			/* the key is the queue's until Done: print it first */
			strbuf_addf(trace, "d%s=", held[slot]);
			strbuf_addf(trace, "%d ", (int)workqueue_done(q, held[slot], now));
			held[slot] = NULL;
		}
	}
	strbuf_addf(trace, "len=%zu", (size_t)workqueue_len(q));
	workqueue_free(q);
	return NULL;
}

/* Queues on four threads at once answer as one alone does. */
TEST(queues_run_in_parallel)
{
	enum { N = 4 };
	struct strbuf alone = STRBUF_INIT, each[N];
	pthread_t th[N];

	run_script(&alone);
	for (int i = 0; i < N; i++) {
		strbuf_init(&each[i], 0);
		CHECK(pthread_create(&th[i], NULL, run_script, &each[i]) == 0);
	}
	for (int i = 0; i < N; i++) {
		CHECK(pthread_join(th[i], NULL) == 0);
		CHECKF(strcmp(each[i].buf, alone.buf) == 0, "thread %d answered otherwise", i);
		strbuf_release(&each[i]);
	}
	CHECK(strstr(alone.buf, "=2 ") != NULL);	/* the script reached a dirty Add */
	strbuf_release(&alone);
}

/* TestAddTwoFireEarly: a key asked twice waits for the earlier time. */
TEST(add_after_keeps_the_earlier_time)
{
	struct workqueue *q = workqueue_new(WQ_CLASSIC);
	CHECK_INT(add(q, "foo", 0, 1000, 0), WQ_WAITING);
	CHECK_INT(add(q, "foo", 0, 50, 0), WQ_WAITING);
	CHECK_INT(add(q, "foo", 0, 500, 0), WQ_WAITING);
	CHECK_INT(workqueue_next_ready(q), 50);
	workqueue_pop_ready(q, 49, NULL, NULL);
	CHECK_INT(workqueue_len(q), 0);
	workqueue_pop_ready(q, 50, NULL, NULL);
	CHECK_INT(workqueue_len(q), 1);
	CHECK_INT(workqueue_next_ready(q), -1);
	struct workqueue_metrics m;
	workqueue_get_metrics(q, 60, &m);
	CHECK_INT(m.retries, 3);
	workqueue_free(q);
}

/* metrics.go's longest_running_processor and unfinished_work, from the keys held. */
TEST(metrics_of_the_keys_processing_and_waiting)
{
	struct workqueue *q = workqueue_new(WQ_CLASSIC);
	struct workqueue_metrics m;

	add(q, "a", 0, 0, 0);
	add(q, "b", 0, 0, 0);
	add(q, "c", 0, 0, 0);
	CHECK_STR(workqueue_get_priority(q, 10, NULL), "a");
	CHECK_STR(workqueue_get_priority(q, 20, NULL), "b");
	CHECK_STR(workqueue_get_priority(q, 30, NULL), "c");
	workqueue_get_metrics(q, 100, &m);
	CHECK_INT(m.longest_running_ms, 90);
	CHECK_INT(m.unfinished_ms, 90 + 80 + 70);
	/* the middle one, then the newest: what is left is still found */
	workqueue_done(q, "b", 100);
	workqueue_done(q, "c", 100);
	workqueue_get_metrics(q, 100, &m);
	CHECK_INT(m.longest_running_ms, 90);
	CHECK_INT(m.unfinished_ms, 90);
	workqueue_done(q, "a", 100);
	add(q, "d", 0, 50, 100);
	add(q, "d", 0, 10, 100);	/* earlier: one key waits, once */
	workqueue_get_metrics(q, 100, &m);
	CHECK_INT(m.longest_running_ms, 0);
	CHECK_INT(m.unfinished_ms, 0);
	CHECK_INT(m.waiting, 1);
	workqueue_pop_ready(q, 200, NULL, NULL);
	workqueue_get_metrics(q, 200, &m);
	CHECK_INT(m.waiting, 0);
	CHECK_INT(m.depth, 1);
	workqueue_free(q);
}

/*
 * default_rate_limiters_test.go: TestItemExponentialFailureRateLimiter,
 * with the default 5 ms to 1000 s (the limit alone: no bucket).
 */
TEST(exponential_rate_limiter)
{
	struct ratelimit rl;
	ratelimit_init(&rl, false);
	CHECK_INT(ratelimit_when(&rl, "one", 0), 5);
	CHECK_INT(ratelimit_when(&rl, "one", 0), 10);
	CHECK_INT(ratelimit_when(&rl, "one", 0), 20);
	CHECK_INT(ratelimit_when(&rl, "one", 0), 40);
	CHECK_INT(ratelimit_when(&rl, "one", 0), 80);
	CHECK_INT(ratelimit_num_requeues(&rl, "one"), 5);
	CHECK_INT(ratelimit_when(&rl, "two", 0), 5);
	CHECK_INT(ratelimit_when(&rl, "two", 0), 10);
	ratelimit_forget(&rl, "one");
	CHECK_INT(ratelimit_num_requeues(&rl, "one"), 0);
	CHECK_INT(ratelimit_when(&rl, "one", 0), 5);
	for (int i = 0; i < 40; i++)
		ratelimit_when(&rl, "two", 0);
	CHECK_INT(ratelimit_when(&rl, "two", 0), 1000 * 1000);	/* capped */
	ratelimit_release(&rl);
}

/* The default: 5 ms per key, and the bucket's 100 tokens at 10 a second. */
TEST(default_controller_rate_limiter)
{
	struct ratelimit rl;
	char key[16];
	ratelimit_init(&rl, true);
	CHECK_INT(ratelimit_when(&rl, "a", 0), 5);
	for (int i = 0; i < 99; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		ratelimit_when(&rl, key, 0);
	}
	/* the 101st token at once: 100 ms to refill one */
	CHECK_INT(ratelimit_when(&rl, "b", 0), 100);
	CHECK_INT(ratelimit_when(&rl, "c", 0), 200);
	/* a second later 10 tokens are back, 2 owed: the key's own 5 ms rules */
	CHECK_INT(ratelimit_when(&rl, "d", 1000), 5);
	ratelimit_release(&rl);
}

/*
 * rest.Config's bucket (5 a second, 10 at once) under a bound, as a
 * retry's Wait within its request's deadline: a take that would wait
 * longer takes nothing, so the bucket is as it was.
 */
TEST(token_bucket_bounded_take_spends_nothing)
{
	struct token_bucket b = TOKEN_BUCKET_INIT(5, 10);
	for (int i = 0; i < 10; i++)
		CHECK_INT(token_bucket_take(&b, 0, 0), 0);
	CHECK_INT(token_bucket_take(&b, 0, 199), -1);
	CHECK_INT(token_bucket_take(&b, 50, 149), -1);
	CHECK_INT(token_bucket_take(&b, 50, 150), 150);	/* the bound is inclusive */
	CHECK_INT(token_bucket_take(&b, 50, -1), 350);
	/* 350 ms paid what was owed: the next token is 200 ms away */
	CHECK_INT(token_bucket_take(&b, 400, 199), -1);
	CHECK_INT(token_bucket_take(&b, 400, 200), 200);
}

TEST(predicates_parse_and_and_or)
{
	struct predicates p = { .nr = 0 };
	struct errbuf err = { "" };
	CHECK_INT(predicates_parse(&p, "generation,labels|annotations", &err), 0);
	CHECK_INT(p.nr, 2);
	CHECK_INT(p.terms[1], (1u << PRED_LABELS) | (1u << PRED_ANNOTATIONS));
	struct predicates bad = { .nr = 0 };
	CHECK_INT(predicates_parse(&bad, "generatoin", &err), -1);
	CHECK(strstr(err.msg, "generatoin") != NULL);
}

/* Whether one predicate alone lets an Update through. */
static bool passes(enum predicate_kind kind, const struct pred_meta *old,
		   const struct pred_meta *new_)
{
	struct predicates p = { .terms = { 1u << kind }, .nr = 1 };
	return predicates_update(&p, old, new_) < 0;
}

/* Each predicate's own Update rule, and a drop's term. */
TEST(predicate_rules)
{
	struct kobj *a = obj("{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"1\",\"generation\":1,"
			     "\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}");
	struct kobj *status = obj("{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"2\",\"generation\":1,"
				  "\"labels\":{\"b\":\"2\",\"a\":\"1\"}},\"status\":{\"x\":1}}");
	struct kobj *spec = obj("{\"metadata\":{\"name\":\"x\",\"resourceVersion\":\"3\",\"generation\":2,"
				"\"labels\":{\"a\":\"1\"},\"annotations\":{}}}");
	struct kobj *nogen1 = obj("{\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"4\"},\"data\":{\"k\":\"1\"}}");
	struct kobj *nogen2 = obj("{\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"5\"},\"data\":{\"k\":\"2\"}}");
	struct pred_meta ma, ms, mp, n1, n2;
	unsigned all = (1u << PRED__COUNT) - 1;

	pred_meta_init(&ma, a, all);
	pred_meta_init(&ms, status, all);
	pred_meta_init(&mp, spec, all);
	pred_meta_init(&n1, nogen1, all);
	pred_meta_init(&n2, nogen2, all);
	CHECK(!passes(PRED_GENERATION, &ma, &ms));	/* status only */
	CHECK(passes(PRED_GENERATION, &ms, &mp));
	CHECK(!passes(PRED_GENERATION, &n1, &n2));	/* generation 0: never */
	CHECK(!passes(PRED_GENERATION, NULL, &n2));	/* no old object */
	CHECK(passes(PRED_RESOURCE_VERSION, &ma, &ms));
	CHECK(!passes(PRED_RESOURCE_VERSION, &ma, &ma));
	CHECK(!passes(PRED_LABELS, &ma, &ms));	/* key order does not matter */
	CHECK(passes(PRED_LABELS, &ms, &mp));
	CHECK(!passes(PRED_ANNOTATIONS, &ms, &mp));	/* maps.Equal: absent is {} */
	ms.deep_equal = true;
	CHECK(passes(PRED_ANNOTATIONS, &ms, &mp));	/* DeepEqual: they differ */
	ms.deep_equal = false;
	CHECK(!passes(PRED_ANNOTATIONS, &ma, &ms));

	struct predicates p = { .nr = 0 };
	struct errbuf err = { "" };
	predicates_parse(&p, "resource-version,generation|annotations", &err);
	CHECK_INT(predicates_update(&p, &ma, &ms), 1);	/* rv changed; neither of term 1 */
	CHECK_INT(predicates_update(&p, &ms, &mp), -1);
	CHECK_INT(predicates_update(&p, &ma, &ma), 0);
	pred_meta_release(&ma);
	pred_meta_release(&ms);
	pred_meta_release(&mp);
	pred_meta_release(&n1);
	pred_meta_release(&n2);
	kobj_unref(a);
	kobj_unref(status);
	kobj_unref(spec);
	kobj_unref(nogen1);
	kobj_unref(nogen2);
}

/* EnqueueRequestForOwner with OnlyControllerOwner; the own kind's own key. */
TEST(owner_mapping)
{
	struct handler h;
	struct handler_keys k = { .nr = 0 };
	struct errbuf err = { "" };
	struct kobj *pod = obj("{\"metadata\":{\"name\":\"web-1\",\"namespace\":\"shop\",\"ownerReferences\":["
			       "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"other\"},"
			       "{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web\",\"controller\":true}]}}");
	struct kobj *orphan = obj("{\"metadata\":{\"name\":\"lone\",\"namespace\":\"shop\"}}");
	struct kobj *rs = obj("{\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\"}}");

	CHECK_INT(handler_init(&h, "ReplicaSet.apps", &err), 0);
	CHECK(!handler_requests(&h, "Pod", "", HANDLER_CREATE, pod, NULL, &k));
	CHECK_INT(k.nr, 1);
	CHECK_STR(k.v[0], "shop/web");
	handler_keys_release(&k);
	handler_requests(&h, "Pod", "", HANDLER_UPDATE, orphan, pod, &k);	/* old's owner */
	CHECK_INT(k.nr, 1);
	handler_keys_release(&k);
	handler_requests(&h, "Pod", "", HANDLER_DELETE, orphan, NULL, &k);
	CHECK_INT(k.nr, 0);
	CHECK(handler_requests(&h, "ReplicaSet", "apps", HANDLER_UPDATE, rs, rs, &k));
	CHECK_INT(k.nr, 1);
	CHECK_STR(k.v[0], "shop/web");
	handler_keys_release(&k);
	handler_release(&h);

	CHECK_INT(handler_init(&h, "ReplicaSet.extensions", &err), 0);	/* another group */
	handler_requests(&h, "Pod", "", HANDLER_CREATE, pod, NULL, &k);
	CHECK_INT(k.nr, 0);
	handler_release(&h);
	CHECK_INT(handler_init(&h, ".apps", &err), -1);
	kobj_unref(pod);
	kobj_unref(orphan);
	kobj_unref(rs);
}

/* ---- the priority queue (controller-runtime v0.23+): priorityqueue_test.go ---- */

static void check_get(struct workqueue *q, const char *key, int prio, int64_t now)
{
	int got = 12345;
	CHECK_STR(workqueue_get_priority(q, now, &got), key);
	CHECK_INT(got, prio);
}

/* "returns items in order", "retains the highest priority", "will not decrease". */
TEST(priority_queue_order_and_priority)
{
	struct workqueue *q = workqueue_new(WQ_PRIORITY);
	CHECK_INT(add(q, "foo", 0, 0, 0), WQ_NEW);
	CHECK_INT(add(q, "bar", 0, 0, 0), WQ_NEW);
	CHECK_INT(add(q, "baz", 0, 0, 0), WQ_NEW);
	/* "gets pushed to the front if the priority increases" */
	CHECK_INT(add(q, "baz", 1, 0, 0), WQ_COALESCED);
	CHECK_INT(workqueue_len(q), 3);
	check_get(q, "baz", 1, 0);
	check_get(q, "foo", 0, 0);
	CHECK_INT(add(q, "qux", 2, 0, 0), WQ_NEW);
	CHECK_INT(add(q, "qux", 1, 0, 0), WQ_COALESCED);	/* not lowered */
	check_get(q, "qux", 2, 0);
	check_get(q, "bar", 0, 0);
	CHECK(workqueue_get_priority(q, 0, NULL) == NULL);
	workqueue_free(q);
}

/* "follows FIFO order in the new priority queue when item priority changes" */
TEST(priority_queue_raised_key_goes_to_the_end_of_its_priority)
{
	struct workqueue *q = workqueue_new(WQ_PRIORITY);
	add(q, "foo", 0, 0, 0);
	add(q, "bar", 1, 0, 0);
	add(q, "foo", 1, 0, 0);
	CHECK_INT(workqueue_len(q), 2);
	check_get(q, "bar", 1, 0);
	check_get(q, "foo", 1, 0);
	workqueue_free(q);
}

/*
 * "doesn't return an item that is currently locked", "enqueues a locked
 * item": a key added while a worker holds it keeps its place, and goes
 * first at Done when it was added before another key (client-go's queue
 * would put it at the end at Done).
 */
TEST(priority_queue_locked_key_keeps_its_place)
{
	struct workqueue *q = workqueue_new(WQ_PRIORITY);
	add(q, "a", 0, 0, 0);
	check_get(q, "a", 0, 0);
	CHECK_INT(add(q, "a", 0, 0, 1), WQ_DIRTY);
	CHECK_INT(add(q, "b", 0, 0, 2), WQ_NEW);
	check_get(q, "b", 0, 3);		/* a is held: skipped */
	CHECK(workqueue_get_priority(q, 3, NULL) == NULL);	/* only a is ready, and held */
	CHECK_INT(workqueue_len(q), 1);
	CHECK(workqueue_done(q, "a", 4));
	check_get(q, "a", 0, 4);
	workqueue_free(q);

	struct workqueue *c = workqueue_new(WQ_CLASSIC);	/* the other way round */
	add(c, "a", 0, 0, 0);
	CHECK_STR(workqueue_get_priority(c, 0, NULL), "a");
	add(c, "a", 0, 0, 1);
	add(c, "b", 0, 0, 2);
	CHECK(workqueue_done(c, "a", 4));
	CHECK_STR(workqueue_get_priority(c, 4, NULL), "b");
	CHECK_STR(workqueue_get_priority(c, 4, NULL), "a");
	workqueue_free(c);
}

/*
 * "retains the lowest after duration", and the RequeueAfter case:
 * an Add of a waiting key makes it ready and its timer is gone.
 */
TEST(priority_queue_add_of_a_waiting_key_uses_its_timer_up)
{
	struct workqueue *q = workqueue_new(WQ_PRIORITY);
	struct workqueue_metrics m;

	CHECK_INT(add(q, "foo", 0, 0, 0), WQ_NEW);
	CHECK_INT(add(q, "foo", 0, 3600000, 0), WQ_COALESCED);	/* ready stays ready */
	check_get(q, "foo", 0, 0);
	workqueue_done(q, "foo", 0);
	workqueue_get_metrics(q, 0, &m);
	CHECK_INT(m.adds, 1);
	CHECK_INT(m.retries, 1);	/* counted for a delay over 0, absorbed or not */

	CHECK_INT(add(q, "w", 0, 2000, 0), WQ_WAITING);
	CHECK_INT(workqueue_next_ready(q), 2000);
	CHECK_INT(add(q, "w", 0, 5000, 1000), WQ_WAITING);	/* the earlier time stands */
	CHECK_INT(workqueue_next_ready(q), 2000);
	CHECK_INT(add(q, "w", 0, 500, 1000), WQ_WAITING);	/* an earlier one wins */
	CHECK_INT(workqueue_next_ready(q), 1500);
	CHECK_INT(workqueue_len(q), 0);		/* "doesn't include non-ready items in Len()" */
	CHECK_INT(add(q, "w", 0, 0, 1200), WQ_EARLY);
	CHECK_INT(workqueue_next_ready(q), -1);	/* its timer is gone */
	workqueue_get_metrics(q, 1200, &m);
	CHECK_INT(m.depth, 1);
	CHECK_INT(m.waiting, 0);
	check_get(q, "w", 0, 1200);
	workqueue_free(q);
}

/* A waiting key due joins the end of its priority, by when it became ready. */
TEST(priority_queue_due_keys_become_ready_in_time_order)
{
	struct workqueue *q = workqueue_new(WQ_PRIORITY);
	add(q, "late", 0, 300, 0);
	add(q, "early", 0, 100, 0);
	add(q, "low", WQ_LOW_PRIORITY, 0, 0);
	add(q, "now", 0, 0, 50);
	workqueue_pop_ready(q, 400, NULL, NULL);
	check_get(q, "now", 0, 400);
	check_get(q, "early", 0, 400);
	check_get(q, "late", 0, 400);
	check_get(q, "low", WQ_LOW_PRIORITY, 400);
	workqueue_free(q);
}

/* The priority queue's limiter is per key only: no bucket runs dry. */
TEST(priority_queue_rate_limiter_has_no_bucket)
{
	struct workqueue *pq = workqueue_new(WQ_PRIORITY), *cq = workqueue_new(WQ_CLASSIC);
	const struct wq_opts limited = { .rate_limited = true };	/* AddRateLimited */
	char key[16];
	int64_t pmax = 0, cmax = 0;

	for (int round = 0; round < 8; round++) {
		for (int k = 0; k < 20; k++) {
			snprintf(key, sizeof(key), "k%d", k);
			int64_t p, c;
			workqueue_add_with(pq, key, &limited, 0, &p);
			workqueue_add_with(cq, key, &limited, 0, &c);
			pmax = p > pmax ? p : pmax;
			cmax = c > cmax ? c : cmax;
		}
	}
	CHECK_INT(pmax, 5 << 7);	/* 640 ms: the 8th failure */
	CHECK(cmax >= 5900);		/* 160 tokens of a bucket of 100 at 10/s */
	workqueue_free(pq);
	workqueue_free(cq);
}

int main(void)
{
	RUN(add_get_done_in_order);
	RUN(collapse);
	RUN(queues_run_in_parallel);
	RUN(add_while_processing);
	RUN(add_after_keeps_the_earlier_time);
	RUN(metrics_of_the_keys_processing_and_waiting);
	RUN(exponential_rate_limiter);
	RUN(default_controller_rate_limiter);
	RUN(token_bucket_bounded_take_spends_nothing);
	RUN(predicates_parse_and_and_or);
	RUN(predicate_rules);
	RUN(owner_mapping);
	RUN(priority_queue_order_and_priority);
	RUN(priority_queue_raised_key_goes_to_the_end_of_its_priority);
	RUN(priority_queue_locked_key_keeps_its_place);
	RUN(priority_queue_add_of_a_waiting_key_uses_its_timer_up);
	RUN(priority_queue_due_keys_become_ready_in_time_order);
	RUN(priority_queue_rate_limiter_has_no_bucket);
	return unit_done();
}

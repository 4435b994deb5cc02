/*
 * test_fifo.c — DeltaFIFO, RealFIFO and the atomic RealFIFO as client-go's
 * tools/cache has them (delta_fifo.go, the_real_fifo.go), and the
 * client-go version profiles that choose among them.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "informer/fifo.h"
#include "lib/strbuf.h"
#include "informer/profile.h"
#include "unit.h"

static struct kobj *pod(const char *name, const char *rv)
{
	char *json = xasprintf("{\"metadata\":{\"name\":\"%s\",\"namespace\":"
			       "\"ns\",\"resourceVersion\":\"%s\"}}", name, rv);
	struct errbuf err;
	struct kobj *obj = kobj_from_json(json, strlen(json), 0, &err);

	free(json);
	return obj;
}

/* Hands the fifo a fresh object and drops the test's reference. */
#define ADD(f, name, rv) with(fifo_add, f, pod(name, rv))
#define UPDATE(f, name, rv) with(fifo_update, f, pod(name, rv))
#define DELETE(f, name, rv) with(fifo_delete, f, pod(name, rv))

static void with(void (*op)(struct fifo *, struct kobj *), struct fifo *f,
		 struct kobj *obj)
{
	op(f, obj);
	kobj_unref(obj);
}

static void store_put(struct store *store, const char *name, const char *rv)
{
	struct kobj *obj = pod(name, rv);

	store_add(store, obj);
	kobj_unref(obj);
}

static void replace(struct fifo *f, unsigned list_no,
		    struct replace_stats *stats, const char *spec)
{
	/* spec: "name:rv name:rv ..." */
	struct kobj *items[32];
	char *copy = xstrdup(spec), *save = NULL, *p;
	size_t nr = 0;

	for (p = strtok_r(copy, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		char *colon = strchr(p, ':');

		*colon = '\0';
		items[nr++] = pod(p, colon + 1);
	}
	fifo_replace(f, items, nr, "", list_no, stats);
	for (size_t i = 0; i < nr; i++)
		kobj_unref(items[i]);
	free(copy);
}

static void collect(void *ctx, struct deltas *d)
{
	struct deltas *out = ctx;

	for (size_t i = 0; i < d->nr; i++) {
		struct delta copy = d->v[i];

		kobj_ref(copy.obj);
		if (copy.nr_all) {
			copy.all = xmalloc(copy.nr_all * sizeof(*copy.all));
			for (size_t j = 0; j < copy.nr_all; j++)
				copy.all[j] = kobj_ref(d->v[i].all[j]);
		}
		deltas_push(out, &copy);
	}
}

/*
 * Pops one entry and describes it as "Type:name:rv" words, a tombstone
 * with a "~" before the type; "(empty)" rather than blocking forever.
 */
static char *pop(struct fifo *f)
{
	struct deltas d = { 0 };
	char buf[1024] = "";

	if (!fifo_len(f))
		return xstrdup("(empty)");
	if (fifo_pop(f, collect, &d) < 0)
		return xstrdup("(closed)");
	for (size_t i = 0; i < d.nr; i++) {
		size_t at = strlen(buf);

		if (d.v[i].type == DELTA_REPLACED_ALL) {
			/* "ReplacedAll[a:1,b:1]" */
			snprintf(buf + at, sizeof(buf) - at, "%sReplacedAll[", i ? " " : "");
			for (size_t j = 0; j < d.v[i].nr_all; j++)
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s:%s",
					 j ? "," : "", d.v[i].all[j]->name, d.v[i].all[j]->rv);
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "]");
		} else if (d.v[i].type == DELTA_SYNC_ALL) {
			snprintf(buf + at, sizeof(buf) - at, "%sSyncAll", i ? " " : "");
		} else if (d.v[i].type == DELTA_BOOKMARK) {
			snprintf(buf + at, sizeof(buf) - at, "%sBookmark@%s", i ? " " : "", d.v[i].rv);
		} else {
			snprintf(buf + at, sizeof(buf) - at,
				 "%s%s%s:%s:%s", i ? " " : "",
				 d.v[i].tombstone ? "~" : "",
				 delta_type_name(d.v[i].type), d.v[i].obj->name,
				 d.v[i].obj->rv);
		}
	}
	deltas_release(&d);
	return xstrdup(buf);
}

#define CHECK_POP(f, expected)                                             \
	do {                                                               \
		char *got_ = pop(f);                                       \
		CHECK_STR(got_, expected);                                 \
		free(got_);                                                \
	} while (0)

TEST(key_is_queued_once_with_many_deltas)
{
	struct fifo *f = fifo_new(FIFO_DELTA, NULL);

	ADD(f, "a", "1");
	ADD(f, "b", "1");
	UPDATE(f, "a", "2");
	UPDATE(f, "a", "3");
	CHECK_INT(fifo_len(f), 2);
	CHECK_POP(f, "Added:a:1 Updated:a:2 Updated:a:3");
	CHECK_POP(f, "Added:b:1");
	CHECK_POP(f, "(empty)");
	fifo_free(f);
}

TEST(only_consecutive_deletes_collapse_keeping_the_older)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);

	store_put(known, "a", "1");
	DELETE(f, "a", "2");
	UPDATE(f, "a", "3");
	DELETE(f, "a", "4");
	DELETE(f, "a", "5");	/* two real deletions: the older stays */
	CHECK_POP(f, "Deleted:a:2 Updated:a:3 Deleted:a:4");
	fifo_free(f);
	store_free(known);
}

TEST(real_deletion_replaces_a_queued_tombstone)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);

	store_put(known, "a", "1");
	replace(f, 0, NULL, "");		/* tombstone for a */
	DELETE(f, "a", "2");			/* knows more: it wins */
	CHECK_POP(f, "Deleted:a:2");
	fifo_free(f);
	store_free(known);
}

TEST(tombstone_after_a_queued_real_deletion_is_dropped)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);
	struct replace_stats stats;

	store_put(known, "a", "1");
	DELETE(f, "a", "2");
	replace(f, 1, &stats, "");
	relist_sample_free(stats.sample);
	CHECK_INT(stats.deleted, 0);
	CHECK_POP(f, "Deleted:a:2");
	fifo_free(f);
	store_free(known);
}

TEST(delete_of_unknown_key_is_ignored)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);

	DELETE(f, "ghost", "1");
	CHECK_INT(fifo_len(f), 0);
	/* Queued but not known is enough to keep it. */
	ADD(f, "new", "1");
	DELETE(f, "new", "2");
	/* Known but not queued too. */
	store_put(known, "old", "1");
	DELETE(f, "old", "2");
	CHECK_POP(f, "Added:new:1 Deleted:new:2");
	CHECK_POP(f, "Deleted:old:2");
	fifo_free(f);
	store_free(known);
}

TEST(replace_tombstones_known_keys_absent_from_the_list)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);
	struct deltas d = { 0 };
	struct kobj *cached;

	store_put(known, "a", "1");
	store_put(known, "b", "1");
	replace(f, 2, NULL, "a:2");
	CHECK_INT(fifo_len(f), 2);
	CHECK_POP(f, "Replaced:a:2");
	CHECK(fifo_pop(f, collect, &d) == 0);
	CHECK_INT(d.nr, 1);
	cached = store_get(known, "ns/b");
	/* The tombstone carries the very object the Indexer held. */
	CHECK(d.v[0].obj == cached);
	CHECK(d.v[0].tombstone);
	CHECK_INT(d.v[0].type, DELTA_DELETED);
	CHECK_INT(d.v[0].source, SOURCE_LIST);
	CHECK_INT(d.v[0].list_no, 2);
	CHECK(d.v[0].time_ms > 0);
	kobj_unref(cached);
	deltas_release(&d);
	fifo_free(f);
	store_free(known);
}

TEST(replace_tombstones_queued_keys_with_their_newest_object)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);

	ADD(f, "c", "1");
	UPDATE(f, "c", "2");
	replace(f, 0, NULL, "a:1");
	CHECK_POP(f, "Added:c:1 Updated:c:2 ~Deleted:c:2");
	CHECK_POP(f, "Replaced:a:1");
	/* Known and queued: only one tombstone, from the queue. */
	store_put(known, "k", "1");
	UPDATE(f, "k", "2");
	replace(f, 1, NULL, "");
	CHECK_POP(f, "Updated:k:2 ~Deleted:k:2");
	CHECK_POP(f, "(empty)");
	fifo_free(f);
	store_free(known);
}

TEST(replace_stats_compare_with_the_indexer)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);
	struct replace_stats s;

	store_put(known, "a", "1");
	store_put(known, "b", "1");
	store_put(known, "c", "1");
	replace(f, 1, &s, "a:1 b:2 d:1");
	CHECK_INT(s.listed, 3);
	CHECK_INT(s.added, 1);
	CHECK_INT(s.changed, 1);
	CHECK_INT(s.unchanged, 1);
	CHECK_INT(s.deleted, 1);
	/* Which keys, with the resourceVersions before and after. */
	CHECK(s.sample != NULL);
	if (s.sample) {
		const struct relist_sample *k = s.sample;
		CHECK_INT(k->nr[RELIST_ADDED], 1);
		CHECK_INT(k->nr[RELIST_CHANGED], 1);
		CHECK_INT(k->nr[RELIST_DELETED], 1);
		CHECK_STR(k->v[RELIST_ADDED][0].key, "ns/d");
		CHECK(!k->v[RELIST_ADDED][0].old_rv);
		CHECK_STR(k->v[RELIST_ADDED][0].new_rv, "1");
		CHECK_STR(k->v[RELIST_CHANGED][0].key, "ns/b");
		CHECK_STR(k->v[RELIST_CHANGED][0].old_rv, "1");
		CHECK_STR(k->v[RELIST_CHANGED][0].new_rv, "2");
		CHECK_STR(k->v[RELIST_DELETED][0].key, "ns/c");
		CHECK_STR(k->v[RELIST_DELETED][0].old_rv, "1");
		CHECK(!k->v[RELIST_DELETED][0].new_rv);
	}
	relist_sample_free(s.sample);
	fifo_free(f);
	store_free(known);
}

/* The sample stops at RELIST_SAMPLE_MAX keys a class; the counts do not. */
TEST(relist_sample_is_bounded)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_REAL, known);
	struct strbuf spec = STRBUF_INIT;
	struct replace_stats s;
	char name[16];

	for (int i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "k%02d", i);
		store_put(known, name, "1");
		strbuf_addf(&spec, "%s%s:2", i ? " " : "", name);
	}
	replace(f, 1, &s, spec.buf);
	CHECK_INT(s.changed, 30);
	CHECK(s.sample != NULL);
	if (s.sample)
		CHECK_INT(s.sample->nr[RELIST_CHANGED], RELIST_SAMPLE_MAX);
	relist_sample_free(s.sample);
	strbuf_release(&spec);
	fifo_free(f);
	store_free(known);
}

TEST(replace_and_resync_tag_their_deltas)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);
	struct deltas d = { 0 };

	replace(f, 3, NULL, "a:1");
	ADD(f, "a", "2");
	store_put(known, "b", "1");
	fifo_resync(f);
	CHECK(fifo_pop(f, collect, &d) == 0);
	CHECK(fifo_pop(f, collect, &d) == 0);
	CHECK_INT(d.nr, 3);
	CHECK_INT(d.v[0].source, SOURCE_LIST);
	CHECK_INT(d.v[1].source, SOURCE_WATCH);
	CHECK_INT(d.v[2].type, DELTA_SYNC);
	CHECK_INT(d.v[2].source, SOURCE_RESYNC);
	for (size_t i = 0; i < d.nr; i++) {
		CHECK_INT(d.v[i].list_no, 3);
		CHECK(!d.v[i].tombstone);
	}
	deltas_release(&d);
	fifo_free(f);
	store_free(known);
}

TEST(has_synced_after_initial_items_including_tombstones_popped)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);

	CHECK(!fifo_has_synced(f));
	store_put(known, "stale", "1");
	fifo_resync(f);			/* resync does not populate */
	CHECK(!fifo_has_synced(f));
	CHECK_POP(f, "Sync:stale:1");
	/* Counts listed keys (duplicates once) plus tombstones: 2 + 1. */
	replace(f, 0, NULL, "a:1 b:1 a:2");
	CHECK(!fifo_has_synced(f));
	CHECK_POP(f, "Replaced:a:1 Replaced:a:2");
	CHECK_POP(f, "Replaced:b:1");
	CHECK(!fifo_has_synced(f));
	CHECK_POP(f, "~Deleted:stale:1");
	CHECK(fifo_has_synced(f));
	/* Later lists don't unsync. */
	replace(f, 1, NULL, "z:1");
	CHECK(fifo_has_synced(f));
	fifo_free(f);
	store_free(known);
}

/*
 * isInInitialList is the pop's: every delta of a key popped before the
 * queue synced has it, a watch event gathered under a listed key too
 * (client-go's DeltaFIFO.Pop computes it once for the key).
 */
TEST(in_initial_list_holds_for_the_whole_popped_key)
{
	struct fifo *f = fifo_new(FIFO_DELTA, NULL);
	struct deltas d = { 0 };

	replace(f, 0, NULL, "a:1 b:1");
	DELETE(f, "a", "2");
	ADD(f, "a", "3");
	CHECK(fifo_pop(f, collect, &d) == 0);
	CHECK_INT(d.nr, 3);
	for (size_t i = 0; i < d.nr; i++)
		CHECK(d.v[i].initial_list);
	deltas_release(&d);
	CHECK(fifo_pop(f, collect, &d) == 0);
	CHECK(d.nr == 1 && d.v[0].initial_list);
	deltas_release(&d);
	ADD(f, "c", "1");
	CHECK(fifo_pop(f, collect, &d) == 0);
	CHECK(d.nr == 1 && !d.v[0].initial_list);
	deltas_release(&d);
	fifo_free(f);
}

TEST(watch_event_before_the_list_counts_as_synced)
{
	struct fifo *f = fifo_new(FIFO_DELTA, NULL);

	ADD(f, "a", "1");
	CHECK(fifo_has_synced(f));
	replace(f, 0, NULL, "b:1 c:1");	/* not the first any more */
	CHECK(fifo_has_synced(f));
	fifo_free(f);
	f = fifo_new(FIFO_DELTA, NULL);
	DELETE(f, "a", "1");			/* dropped, but populates */
	CHECK(fifo_has_synced(f));
	fifo_free(f);
}

TEST(resync_skips_keys_with_queued_deltas)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_DELTA, known);

	store_put(known, "a", "1");
	store_put(known, "b", "1");
	UPDATE(f, "a", "2");
	fifo_resync(f);
	CHECK_INT(fifo_len(f), 2);
	CHECK_POP(f, "Updated:a:2");
	CHECK_POP(f, "Sync:b:1");
	fifo_free(f);
	store_free(known);
}

/* Producers each own keys; rv counts up per key from 1. */
enum { PRODUCERS = 4, KEYS = 25, EVENTS = 120 };

struct consumer {
	int last[PRODUCERS][KEYS];
	long delivered, errors;
};

static struct fifo *shared;
static const struct fifo_place nowhere;	/* what the producers below read from */
static bool producers_hold;	/* each round of keys between hold and release */

static void *produce(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int e = 1; e <= EVENTS; e++) {
		if (producers_hold)
			fifo_hold(shared);
		for (int k = 0; k < KEYS; k++) {
			char name[32], rv[16];

			snprintf(name, sizeof(name), "p%d-%d", id, k);
			snprintf(rv, sizeof(rv), "%d", e);
			if (e == 1)
				ADD(shared, name, rv);
			else
				UPDATE(shared, name, rv);
		}
		if (producers_hold)
			fifo_unhold(shared, &nowhere);
	}
	return NULL;
}

static void consume(void *ctx, struct deltas *d)
{
	struct consumer *c = ctx;

	for (size_t i = 0; i < d->nr; i++) {
		int id, k, rv = atoi(d->v[i].obj->rv);

		if (sscanf(d->v[i].obj->name, "p%d-%d", &id, &k) != 2) {
			c->errors++;
			continue;
		}
		/* Exactly once and in order: each rv is the next one. */
		if (rv != c->last[id][k] + 1 ||
		    d->v[i].type != (rv == 1 ? DELTA_ADDED : DELTA_UPDATED))
			c->errors++;
		c->last[id][k] = rv;
		c->delivered++;
	}
}

static void pop_under_concurrency(enum fifo_kind kind)
{
	pthread_t t[PRODUCERS];
	struct consumer c = { 0 };
	long total = (long)PRODUCERS * KEYS * EVENTS;

	shared = fifo_new(kind, NULL);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_create(&t[i], NULL, produce, (void *)(intptr_t)i);
	while (c.delivered < total && !c.errors)
		if (fifo_pop(shared, consume, &c) < 0)
			break;
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(t[i], NULL);
	CHECK_INT(c.errors, 0);
	CHECK_INT(c.delivered, total);
	CHECK_INT(fifo_len(shared), 0);
	fifo_free(shared);
}

TEST(pop_under_concurrency_delivers_each_delta_once_in_order)
{
	pop_under_concurrency(FIFO_DELTA);
}

TEST(real_fifo_pop_under_concurrency_delivers_each_delta_once_in_order)
{
	pop_under_concurrency(FIFO_REAL);
}

/* Producers that hold the wake-ups lose none: the consumer gets it all. */
TEST(held_wake_ups_are_never_lost)
{
	producers_hold = true;
	pop_under_concurrency(FIFO_DELTA);
	pop_under_concurrency(FIFO_REAL);
	producers_hold = false;
}

/*
 * Waits until thread tid sleeps (state S in /proc): a popper that only
 * took an uncontended lock before its condition wait is then in it.  An
 * event, not a guess at how long a loaded machine takes to get there.
 */
static void wait_asleep(atomic_int *tid)
{
	char path[64], stat[256];

	while (!atomic_load(tid))
		sched_yield();
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", atomic_load(tid));
	for (;;) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(stat, 1, sizeof(stat) - 1, f) : 0;
		const char *state;

		if (f)
			fclose(f);
		stat[n] = 0;
		state = strrchr(stat, ')');	/* after "tid (comm)" */
		if (state && state[1] == ' ' && state[2] == 'S')
			return;
		sched_yield();
	}
}

static atomic_int popper_tid;

static void *popper(void *arg)
{
	atomic_int *popped = arg;
	struct deltas d = { 0 };

	atomic_store(&popper_tid, (int)syscall(SYS_gettid));
	while (atomic_load(popped) < 2 && fifo_pop(shared, collect, &d) == 0)
		atomic_fetch_add(popped, 1);
	deltas_release(&d);
	return NULL;
}

/* A held FIFO wakes its sleeping popper at the last release, not before. */
TEST(hold_defers_the_wake_up_to_the_last_release)
{
	atomic_int popped = 0;
	pthread_t t;

	shared = fifo_new(FIFO_REAL, NULL);
	atomic_store(&popper_tid, 0);
	pthread_create(&t, NULL, popper, &popped);
	wait_asleep(&popper_tid);	/* in fifo_pop's wait */
	fifo_hold(shared);
	fifo_hold(shared);
	ADD(shared, "a", "1");
	fifo_unhold(shared, &nowhere);
	ADD(shared, "b", "1");
	usleep(20 * 1000);	/* time for a wrong wake-up to show; can only pass late */
	CHECK_INT(atomic_load(&popped), 0);
	CHECK_INT(fifo_len(shared), 2);
	fifo_unhold(shared, &nowhere);
	pthread_join(t, NULL);
	CHECK_INT(atomic_load(&popped), 2);
	CHECK_INT(fifo_len(shared), 0);
	fifo_free(shared);
}

struct blocked {
	atomic_int tid;
	int ret;
};

static void *blocked_pop(void *arg)
{
	struct deltas d = { 0 };
	struct blocked *b = arg;

	atomic_store(&b->tid, (int)syscall(SYS_gettid));
	b->ret = fifo_pop(shared, collect, &d);
	deltas_release(&d);
	return NULL;
}

TEST(close_unblocks_pop)
{
	enum fifo_kind kinds[] = { FIFO_DELTA, FIFO_REAL };

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		pthread_t t[2];
		struct blocked b[2] = { { 0 }, { 0 } };

		shared = fifo_new(kinds[i], NULL);
		for (int j = 0; j < 2; j++) {
			pthread_create(&t[j], NULL, blocked_pop, &b[j]);
			wait_asleep(&b[j].tid);
		}
		fifo_close(shared);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		CHECK_INT(b[0].ret, -1);
		CHECK_INT(b[1].ret, -1);
		/* Closed: Pop still hands out what is queued (client-go's Pop), then says so. */
		ADD(shared, "a", "1");
		CHECK_POP(shared, "Added:a:1");
		CHECK_INT(fifo_pop(shared, collect, NULL), -1);
		fifo_free(shared);
	}
}

static void *blocked_pop_forever(void *arg)
{
	struct deltas d = { 0 };
	struct blocked *b = arg;

	atomic_store(&b->tid, (int)syscall(SYS_gettid));
	b->ret = fifo_pop_until(shared, collect, &d, 0);
	deltas_release(&d);
	return NULL;
}

/* The processor's timed wait: a deadline, a wake-up, or an entry ends it. */
TEST(pop_until_gives_up_at_its_deadline_or_when_woken)
{
	struct deltas d = { 0 };
	struct blocked b = { 0 };
	pthread_t t;

	shared = fifo_new(FIFO_DELTA, NULL);
	int64_t before = mono_ms();
	CHECK_INT(fifo_pop_until(shared, collect, &d, before + 50), 1);
	CHECK(mono_ms() >= before + 50);
	CHECK_INT(fifo_pop_until(shared, collect, &d, before), 1);	/* past: at once */
	CHECK_INT(d.nr, 0);

	/* No deadline: only fifo_wake() ends the wait with nothing taken. */
	pthread_create(&t, NULL, blocked_pop_forever, &b);
	wait_asleep(&b.tid);
	fifo_wake(shared);
	pthread_join(t, NULL);
	CHECK_INT(b.ret, 1);
	CHECK_INT(fifo_pop_until(shared, collect, &d, mono_ms()), 1);	/* the wake-up was used */

	/* An entry beats the deadline; one queued before wins over a wake-up. */
	ADD(shared, "a", "1");
	fifo_wake(shared);
	CHECK_INT(fifo_pop_until(shared, collect, &d, mono_ms() + 60000), 0);
	CHECK_INT(d.nr, 1);
	CHECK_INT(fifo_pop_until(shared, collect, &d, mono_ms()), 1);
	/* fifo_pop() is not ended by a wake-up meant for fifo_pop_until()'s caller. */
	fifo_wake(shared);
	ADD(shared, "b", "1");
	CHECK_INT(fifo_pop(shared, collect, &d), 0);
	CHECK_INT(d.nr, 2);
	fifo_close(shared);
	CHECK_INT(fifo_pop_until(shared, collect, &d, mono_ms() + 60000), -1);
	deltas_release(&d);
	fifo_free(shared);
}

/* A place: exchange x, up to off, at rv. */
static struct fifo_place place(uint64_t x, uint64_t off, const char *rv)
{
	struct fifo_place p = { .x = x, .off = off };

	snprintf(p.rv, sizeof(p.rv), "%s", rv);
	return p;
}

/*
 * The producer's place is known only while it is true: once everything
 * it queued is popped, and before it queues more.  A hold forgets it
 * (what is queued meanwhile may be popped before fifo_unhold() says
 * where it came from), and so does queueing outside a hold; a resync
 * does not (Sync changes no object).  A consumer that found none is
 * woken by the next place that leaves the queue empty.
 */
TEST(a_place_is_known_only_while_everything_queued_came_from_before_it)
{
	struct fifo_place at, p1 = place(3, 120, "7"), p2 = place(3, 240, "8");
	struct deltas d = { 0 };
	struct store *known = store_new();
	struct blocked b = { 0 };
	pthread_t t;

	shared = fifo_new(FIFO_DELTA, known);
	CHECK(!fifo_drained_at(shared, &at));	/* nothing said yet */
	fifo_hold(shared);
	ADD(shared, "a", "7");
	fifo_unhold(shared, &p1);
	CHECK(!fifo_drained_at(shared, &at));	/* a's entry is queued */
	CHECK_INT(fifo_pop(shared, collect, &d), 0);
	CHECK(fifo_drained_at(shared, &at));
	CHECK(at.x == 3 && at.off == 120 && !strcmp(at.rv, "7"));

	/* held: what is queued may be popped before the producer says where it stands */
	fifo_hold(shared);
	UPDATE(shared, "a", "8");
	CHECK_INT(fifo_pop(shared, collect, &d), 0);
	CHECK(!fifo_drained_at(shared, &at));
	fifo_unhold(shared, &p2);
	CHECK(fifo_drained_at(shared, &at) && at.off == 240);

	/* a resync keeps it; an entry queued outside a hold forgets it */
	store_add(known, d.v[d.nr - 1].obj);
	fifo_resync(shared);
	CHECK_INT(fifo_pop(shared, collect, &d), 0);
	CHECK(fifo_drained_at(shared, &at) && at.off == 240);
	ADD(shared, "b", "9");
	CHECK_INT(fifo_pop(shared, collect, &d), 0);
	CHECK(!fifo_drained_at(shared, &at));

	/* the consumer that found none sleeps; the next place wakes it (1: nothing taken) */
	pthread_create(&t, NULL, blocked_pop_forever, &b);
	wait_asleep(&b.tid);
	fifo_hold(shared);
	fifo_unhold(shared, &p1);
	pthread_join(t, NULL);
	CHECK_INT(b.ret, 1);
	CHECK(fifo_drained_at(shared, &at) && at.off == 120);
	deltas_release(&d);
	fifo_free(shared);
	store_free(known);
}

TEST(real_fifo_queues_tombstones_before_replaced_and_never_merges)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_REAL, known);
	struct replace_stats s;

	store_put(known, "a", "1");
	store_put(known, "b", "1");
	ADD(f, "c", "1");
	UPDATE(f, "c", "2");
	ADD(f, "e", "1");
	DELETE(f, "e", "2");	/* ends in a deletion: no tombstone */
	DELETE(f, "f", "1");	/* RealFIFO keeps even unknown deletions */
	replace(f, 1, &s, "a:2");
	relist_sample_free(s.sample);
	CHECK_INT(s.deleted, 2);
	CHECK_INT(s.changed, 1);
	CHECK_INT(fifo_len(f), 8);
	CHECK_POP(f, "Added:c:1");
	CHECK_POP(f, "Updated:c:2");
	CHECK_POP(f, "Added:e:1");
	CHECK_POP(f, "Deleted:e:2");
	CHECK_POP(f, "Deleted:f:1");
	CHECK_POP(f, "~Deleted:c:2");
	CHECK_POP(f, "~Deleted:b:1");
	CHECK_POP(f, "Replaced:a:2");
	CHECK_POP(f, "(empty)");
	/* Two consecutive deletions stay two. */
	DELETE(f, "a", "3");
	DELETE(f, "a", "4");
	CHECK_INT(fifo_len(f), 2);
	fifo_free(f);
	store_free(known);
}

TEST(real_fifo_has_synced_counts_the_whole_queue)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_REAL, known);

	store_put(known, "x", "1");
	store_put(known, "y", "1");
	fifo_resync(f);		/* two Syncs queued before the first list */
	CHECK(!fifo_has_synced(f));
	replace(f, 0, NULL, "x:2 a:1");
	/*
	 * Sync x, Sync y, then y's tombstone (queued, unlisted, not ending
	 * in a deletion), Replaced x, Replaced a: all five are initial.
	 */
	CHECK_INT(fifo_len(f), 5);
	for (int i = 0; i < 2; i++) {
		char *got = pop(f);

		CHECK(str_starts_with(got, "Sync:"));
		free(got);
	}
	CHECK_POP(f, "~Deleted:y:1");
	CHECK_POP(f, "Replaced:x:2");
	CHECK(!fifo_has_synced(f));
	CHECK_POP(f, "Replaced:a:1");
	CHECK(fifo_has_synced(f));
	fifo_free(f);
	store_free(known);
}

TEST(real_fifo_initial_population_includes_tombstones)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_REAL, known);

	store_put(known, "gone", "1");
	replace(f, 0, NULL, "a:1 b:1");
	CHECK_POP(f, "~Deleted:gone:1");
	CHECK_POP(f, "Replaced:a:1");
	CHECK(!fifo_has_synced(f));
	CHECK_POP(f, "Replaced:b:1");
	CHECK(fifo_has_synced(f));
	fifo_free(f);
	store_free(known);
}

TEST(real_fifo_resync_skips_keys_in_the_queue)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_REAL, known);

	store_put(known, "a", "1");
	store_put(known, "b", "1");
	UPDATE(f, "a", "2");
	fifo_resync(f);
	CHECK_POP(f, "Updated:a:2");
	CHECK_POP(f, "Sync:b:1");
	CHECK_POP(f, "(empty)");
	fifo_free(f);
	store_free(known);
}

/*
 * 1.36's atomic RealFIFO: a list is one ReplacedAll holding it, looked at
 * by nobody until popped; a resync one SyncAll, queued whatever is queued
 * (the non-atomic RealFIFO skips keys with deltas queued).
 */
TEST(atomic_fifo_queues_one_replaced_all_and_one_sync_all)
{
	struct store *known = store_new();
	struct fifo *f = fifo_new(FIFO_ATOMIC, known);
	struct replace_stats stats;

	store_put(known, "gone", "1");
	UPDATE(f, "a", "2");
	replace(f, 1, &stats, "a:3 b:1");
	relist_sample_free(stats.sample);
	CHECK_INT(stats.deleted, 1);	/* "gone": its tombstone comes when popped */
	CHECK_INT(fifo_len(f), 2);
	CHECK(fifo_has_synced(f));	/* populated by the update: nothing counted */
	CHECK_INT(fifo_resync(f), 1);
	CHECK_INT(fifo_len(f), 3);
	CHECK_POP(f, "Updated:a:2");
	CHECK_POP(f, "ReplacedAll[a:3,b:1]");
	CHECK_POP(f, "SyncAll");
	CHECK_POP(f, "(empty)");
	fifo_free(f);
	store_free(known);
}

TEST(atomic_fifo_counts_the_replaced_all_as_the_initial_population)
{
	struct fifo *f = fifo_new(FIFO_ATOMIC, NULL);

	replace(f, 0, NULL, "a:1 b:1 c:1");
	CHECK(!fifo_has_synced(f));
	CHECK_POP(f, "ReplacedAll[a:1,b:1,c:1]");
	CHECK(fifo_has_synced(f));
	fifo_free(f);
}

/*
 * 1.36's EmitDeltaTypeBookmark: a watch's bookmark is a delta of the
 * atomic FIFO, in order with the events; no batch shares it, and it
 * populates nothing.  The DeltaFIFO and the non-atomic RealFIFO drop it.
 */
TEST(atomic_fifo_queues_bookmarks_that_end_a_batch)
{
	static const enum fifo_kind others[] = { FIFO_DELTA, FIFO_REAL };
	struct fifo *f = fifo_new(FIFO_ATOMIC, NULL);

	fifo_set_batch(f, 1000);
	fifo_bookmark(f, "5");
	CHECK(!fifo_has_synced(f));	/* not populated by it */
	replace(f, 0, NULL, "a:1 b:1");
	ADD(f, "c", "6");
	ADD(f, "d", "7");
	fifo_bookmark(f, "9");
	ADD(f, "e", "10");
	CHECK_INT(fifo_len(f), 6);
	CHECK_POP(f, "Bookmark@5");
	CHECK_POP(f, "ReplacedAll[a:1,b:1]");
	CHECK(fifo_has_synced(f));
	CHECK_POP(f, "Added:c:6 Added:d:7");
	CHECK_POP(f, "Bookmark@9");
	CHECK_POP(f, "Added:e:10");
	fifo_free(f);

	for (size_t i = 0; i < ARRAY_SIZE(others); i++) {
		f = fifo_new(others[i], NULL);
		fifo_bookmark(f, "9");
		CHECK_INT(fifo_len(f), 0);
		fifo_free(f);
	}
}

/*
 * PopBatch (1.35): consecutive entries of distinct keys, up to the batch
 * size; a repeated key closes the batch, ReplacedAll and SyncAll are
 * popped alone, and no batch crosses the end of the initial list.
 */
TEST(real_fifo_pops_batches_of_distinct_keys)
{
	struct fifo *f = fifo_new(FIFO_REAL, NULL);

	fifo_set_batch(f, 1000);
	replace(f, 0, NULL, "a:1 b:1");
	ADD(f, "c", "2");
	UPDATE(f, "a", "3");
	ADD(f, "d", "4");
	CHECK_POP(f, "Replaced:a:1 Replaced:b:1");	/* the initial list alone */
	CHECK(fifo_has_synced(f));
	CHECK_POP(f, "Added:c:2 Updated:a:3 Added:d:4");
	UPDATE(f, "a", "5");
	UPDATE(f, "a", "6");
	CHECK_POP(f, "Updated:a:5");
	CHECK_POP(f, "Updated:a:6");
	fifo_set_batch(f, 2);
	ADD(f, "x", "7");
	ADD(f, "y", "8");
	ADD(f, "z", "9");
	CHECK_POP(f, "Added:x:7 Added:y:8");
	CHECK_POP(f, "Added:z:9");
	fifo_free(f);

	f = fifo_new(FIFO_ATOMIC, NULL);
	fifo_set_batch(f, 1000);
	ADD(f, "a", "1");
	replace(f, 1, NULL, "a:1");
	ADD(f, "b", "2");
	fifo_resync(f);
	ADD(f, "c", "3");
	CHECK_POP(f, "Added:a:1");
	CHECK_POP(f, "ReplacedAll[a:1]");
	CHECK_POP(f, "Added:b:2");
	CHECK_POP(f, "SyncAll");
	CHECK_POP(f, "Added:c:3");
	fifo_free(f);
}

TEST(client_go_versions_pick_their_generation)
{
	struct errbuf err = { "" };
	const struct client_go_profile *p;

	p = profile_find("1.28", &err);
	CHECK(p && p->fifo == FIFO_DELTA && !p->streaming_list && !p->watch_list_any_fallback);
	p = profile_find("v0.32.4", &err);
	CHECK(p && p->fifo == FIFO_DELTA && p->watch_list_any_fallback);
	p = profile_find("1.33", &err);
	CHECK(p && p->fifo == FIFO_REAL && !p->batch && !p->streaming_list);
	p = profile_find("v1.35.0", &err);
	CHECK(p && p->fifo == FIFO_REAL && p->batch == 1000 && p->streaming_list);
	p = profile_find("0.36", &err);
	CHECK(p && p->fifo == FIFO_ATOMIC && p->backoff == BACKOFF_RESET_PERIODIC);
	CHECK(profile_default() == p);
	CHECK(profile_find("1.26", &err) == NULL);
	CHECK(strstr(err.msg, "1.27 to 1.36") != NULL);
	CHECK(profile_find("1.37", &err) == NULL);
	CHECK(profile_find("2.1", &err) == NULL);
	CHECK(profile_find("1.x", &err) == NULL);
	CHECK(profile_find("v0.33.2-rc.1", &err) != NULL);
	CHECK(profile_find("", &err) == NULL);
}

int main(void)
{
	RUN(key_is_queued_once_with_many_deltas);
	RUN(only_consecutive_deletes_collapse_keeping_the_older);
	RUN(real_deletion_replaces_a_queued_tombstone);
	RUN(tombstone_after_a_queued_real_deletion_is_dropped);
	RUN(delete_of_unknown_key_is_ignored);
	RUN(replace_tombstones_known_keys_absent_from_the_list);
	RUN(replace_tombstones_queued_keys_with_their_newest_object);
	RUN(replace_stats_compare_with_the_indexer);
	RUN(relist_sample_is_bounded);
	RUN(replace_and_resync_tag_their_deltas);
	RUN(has_synced_after_initial_items_including_tombstones_popped);
	RUN(watch_event_before_the_list_counts_as_synced);
	RUN(resync_skips_keys_with_queued_deltas);
	RUN(pop_under_concurrency_delivers_each_delta_once_in_order);
	RUN(real_fifo_pop_under_concurrency_delivers_each_delta_once_in_order);
	RUN(held_wake_ups_are_never_lost);
	RUN(hold_defers_the_wake_up_to_the_last_release);
	RUN(close_unblocks_pop);
	RUN(pop_until_gives_up_at_its_deadline_or_when_woken);
	RUN(a_place_is_known_only_while_everything_queued_came_from_before_it);
	RUN(real_fifo_queues_tombstones_before_replaced_and_never_merges);
	RUN(real_fifo_has_synced_counts_the_whole_queue);
	RUN(real_fifo_initial_population_includes_tombstones);
	RUN(real_fifo_resync_skips_keys_in_the_queue);
	RUN(atomic_fifo_queues_one_replaced_all_and_one_sync_all);
	RUN(atomic_fifo_counts_the_replaced_all_as_the_initial_population);
	RUN(atomic_fifo_queues_bookmarks_that_end_a_batch);
	RUN(real_fifo_pops_batches_of_distinct_keys);
	RUN(client_go_versions_pick_their_generation);
	RUN(in_initial_list_holds_for_the_whole_popped_key);
	return unit_done();
}

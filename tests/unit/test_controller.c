/*
 * test_controller.c — the simulated controller (src/controller/
 * controller.c) on notifications made by hand, on its virtual clock:
 * coalescing while a Reconcile runs, what a Reconcile reads and names as
 * unseen, the generation predicate, requeue-after and the end; and what
 * differs between controller-runtime's queues: the priority queue's
 * RequeueAfter and priorities, the workers' start, scripted outcomes.
 */
#include "unit.h"

#include "controller/controller.h"
#include "informer/informer.h"

struct seen {
	char line[64][160];
	size_t nr;
};

static void record(void *ctx, const struct ctl_record *r)
{
	struct seen *s = ctx;
	char *l = s->line[s->nr < 64 ? s->nr++ : 63];

	snprintf(l, 160, "%lld %s %s", (long long)r->clock_ms, ctl_record_name(r->type), r->key);
	if (r->type == CTL_ENQUEUED)
		snprintf(l + strlen(l), 160 - strlen(l), " %s", wq_add_name(r->how));
	if (r->type == CTL_RECONCILE_START)
		snprintf(l + strlen(l), 160 - strlen(l), " read %s", r->read_rv ? r->read_rv : "-");
	for (size_t i = 0; i < r->nr_unseen; i++)
		snprintf(l + strlen(l), 160 - strlen(l), " !%s", r->unseen[i].rv);
	if (r->type == CTL_FILTERED)
		snprintf(l + strlen(l), 160 - strlen(l), " by %s", r->predicate);
}

static struct kobj *named(const char *name, const char *rv, int generation)
{
	char json[200];
	struct errbuf err = { "" };

	snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"shop\","
		 "\"resourceVersion\":\"%s\",\"generation\":%d}}", name, rv, generation);
	return kobj_from_json(json, strlen(json), 0, &err);
}

static struct kobj *pod(const char *rv, int generation)
{
	return named("web", rv, generation);
}

/* Hands c one notification at time t; old for an update. */
static void note(struct controller *c, enum notify_kind kind, int64_t t,
		 struct kobj *obj, struct kobj *old)
{
	struct notification n = {
		.kind = kind, .obj_kind = "Pod", .group = "",
		.delta = { .type = kind == NOTIFY_ADD ? DELTA_ADDED : DELTA_UPDATED,
			   .obj = obj, .clock_ms = t },
		.old = old,
	};
	controller_note(c, &n);
}

static struct controller *make(struct seen *s, const char *predicate, int64_t requeue)
{
	struct controller_opts o = {
		.reconcile_min_ms = 1000, .reconcile_max_ms = 1000,
		.requeue_after_ms = requeue, .record = record, .record_ctx = s,
	};
	struct errbuf err = { "" };
	if (predicate)
		predicates_parse(&o.predicates, predicate, &err);
	return controller_new(&o, &err);
}

TEST(changes_during_a_reconcile_coalesce_into_one_more)
{
	struct seen s = { .nr = 0 };
	struct controller *c = make(&s, NULL, 0);
	struct kobj *v[5];
	char rv[16];

	for (int i = 0; i < 5; i++) {
		snprintf(rv, sizeof(rv), "%d", 100 + i);
		v[i] = pod(rv, 1);
	}
	note(c, NOTIFY_ADD, 0, v[0], NULL);
	for (int i = 1; i < 5; i++)
		note(c, NOTIFY_UPDATE, 100 * i, v[i], v[i - 1]);
	controller_finish(c, true);
	CHECK_STR(s.line[0], "0 Enqueued shop/web new");
	CHECK_STR(s.line[1], "0 ReconcileStart shop/web read 100");
	CHECK_STR(s.line[2], "100 Enqueued shop/web dirty");
	CHECK_STR(s.line[3], "200 Enqueued shop/web coalesced");
	CHECK_STR(s.line[6], "1000 ReconcileDone shop/web");
	CHECK_STR(s.line[7], "1000 ReconcileStart shop/web read 104 !101 !102 !103");
	CHECK_STR(s.line[8], "2000 ReconcileDone shop/web");
	CHECK_INT(s.nr, 9);

	struct controller_stats st;
	controller_get_stats(c, &st);
	CHECK_INT(st.reconciles, 2);
	CHECK_INT(st.keys_unseen, 1);
	CHECK_INT(st.unseen, 3);
	CHECK_INT(st.wq.adds, 2);
	CHECK_INT(st.wq.work_max_ms, 1000);
	controller_free(c);
	for (int i = 0; i < 5; i++)
		kobj_unref(v[i]);
}

TEST(a_status_change_under_generation_is_never_reconciled)
{
	struct seen s = { .nr = 0 };
	struct controller *c = make(&s, "generation", 0);
	struct kobj *a = pod("100", 1), *b = pod("108", 1);

	note(c, NOTIFY_ADD, 0, a, NULL);
	note(c, NOTIFY_UPDATE, 5000, b, a);
	controller_finish(c, true);
	CHECK_STR(s.line[3], "5000 Filtered shop/web by generation");
	CHECK_STR(s.line[4], "5000 NeverReconciled shop/web !108");
	CHECK_INT(s.nr, 5);
	controller_free(c);
	kobj_unref(a);
	kobj_unref(b);
}

/* RequeueAfter: Forget, AddAfter; the delayed add comes at its time. */
TEST(requeue_after_comes_back)
{
	struct seen s = { .nr = 0 };
	struct controller *c = make(&s, NULL, 3000);
	struct kobj *a = pod("100", 1), *b = pod("101", 2);

	note(c, NOTIFY_ADD, 0, a, NULL);
	note(c, NOTIFY_UPDATE, 4500, b, a);	/* runs the timers due before it */
	CHECK_STR(s.line[3], "1000 Enqueued shop/web after");
	CHECK_STR(s.line[4], "4000 Enqueued shop/web new");
	CHECK_STR(s.line[5], "4000 ReconcileStart shop/web read 100");
	CHECK_STR(s.line[6], "4500 Enqueued shop/web dirty");
	controller_free(c);
	kobj_unref(a);
	kobj_unref(b);
}

/* The consumer's clock, for controller_advance(). */
static int64_t fake_now;
static int64_t now_fn(void *ctx)
{
	(void)ctx;
	return fake_now;
}

/* The starts' times, "0 1000 ...", of a run. */
static void starts(const struct seen *s, char *out, size_t size)
{
	*out = '\0';
	for (size_t i = 0; i < s->nr; i++) {
		long long t;
		if (strstr(s->line[i], " ReconcileStart ") && sscanf(s->line[i], "%lld", &t) == 1)
			snprintf(out + strlen(out), size - strlen(out), "%s%lld", *out ? " " : "", t);
	}
}

/*
 * The case: RequeueAfter 2s and one update at +1 s.  client-go's
 * queue keeps the timer (+0, +1, +2, +4); the priority queue's Add of the
 * waiting key makes it ready and uses the timer up (+0, +1, +3, +5).
 */
TEST(requeue_after_and_an_event_by_version)
{
	static const struct { unsigned minor; const char *want; } cases[] = {
		{ 22, "0 1000 2000 4000" }, { 23, "0 1000 3000 5000" }, { 24, "0 1000 3000 5000" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seen s = { .nr = 0 };
		struct controller_opts o = {
			.requeue_after_ms = 2000, .record = record, .record_ctx = &s,
			.runtime_minor = cases[i].minor, .now = now_fn,
		};
		struct errbuf err = { "" };
		struct controller *c = controller_new(&o, &err);
		struct kobj *a = pod("100", 1), *b = pod("101", 1);
		char got[128];

		fake_now = 0;
		note(c, NOTIFY_ADD, 0, a, NULL);
		fake_now = 1000;
		note(c, NOTIFY_UPDATE, 1000, b, a);
		fake_now = 5500;
		controller_advance(c);
		starts(&s, got, sizeof(got));
		CHECKF(!strcmp(got, cases[i].want), "v0.%u: starts at %s, expected %s",
		       cases[i].minor, got, cases[i].want);
		controller_free(c);
		kobj_unref(a);
		kobj_unref(b);
	}
}

static void note_synced(struct controller *c)
{
	struct activity_info info = { .act = ACT_SYNCED };
	struct notification n = { .kind = NOTIFY_ACTIVITY, .activity = &info,
				  .resource = "pods" };
	controller_note(c, &n);
}

/*
 * The names the ReconcileStarts of s name, in order ("a b"), each with
 * its clock ("a@100") if at: what the order tests compare.
 */
static void started_names(const struct seen *s, bool at, char *got, size_t size)
{
	*got = '\0';
	for (size_t l = 0; l < s->nr; l++) {
		const char *name = strstr(s->line[l], " ReconcileStart shop/");
		size_t len = strlen(got);
		if (!name)	/* the name only: "... shop/a read 1" */
			continue;
		snprintf(got + len, size - len, "%s%.*s", len ? " " : "",
			 (int)strcspn(name + 21, " "), name + 21);
		len = strlen(got);
		if (at)
			snprintf(got + len, size - len, "@%lld", strtoll(s->line[l], NULL, 10));
	}
}

/*
 * Workers start once every source has synced; with the priority queue a
 * relist's unchanged objects (same resourceVersion) go after a real
 * change, where client-go's queue keeps arrival order.
 */
TEST(workers_start_at_sync_and_unchanged_updates_go_last)
{
	static const struct { unsigned minor; const char *want; } cases[] = {
		{ 20, "a b c z a b c" }, { 24, "a b c z b a c" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seen s = { .nr = 0 };
		struct controller_opts o = {
			.reconcile_min_ms = 1000, .reconcile_max_ms = 1000,
			.record = record, .record_ctx = &s, .runtime_minor = cases[i].minor,
			.sources = 1,
		};
		struct errbuf err = { "" };
		struct controller *c = controller_new(&o, &err);
		struct kobj *a = named("a", "1", 1), *b = named("b", "2", 1),
			    *c3 = named("c", "3", 1), *z = named("z", "4", 1),
			    *b2 = named("b", "5", 1);
		char got[128] = "";

		note(c, NOTIFY_ADD, 0, a, NULL);
		note(c, NOTIFY_ADD, 0, b, NULL);
		note(c, NOTIFY_ADD, 0, c3, NULL);
		CHECK_INT(s.nr, 3);		/* three Enqueued, no Reconcile before the sync */
		note_synced(c);
		note(c, NOTIFY_ADD, 5000, z, NULL);	/* runs 5 s to 6 s */
		note(c, NOTIFY_UPDATE, 5500, a, a);	/* a relist: a and c unchanged */
		note(c, NOTIFY_UPDATE, 5500, b2, b);
		note(c, NOTIFY_UPDATE, 5500, c3, c3);
		controller_finish(c, true);
		started_names(&s, false, got, sizeof(got));
		CHECKF(!strcmp(got, cases[i].want), "v0.%u: %s, expected %s",
		       cases[i].minor, got, cases[i].want);
		controller_free(c);
		kobj_unref(a);
		kobj_unref(b);
		kobj_unref(c3);
		kobj_unref(z);
		kobj_unref(b2);
	}
}

/* Hands c one notification at time t from source (a list: list_no). */
static void note_from(struct controller *c, enum notify_kind kind, int64_t t, struct kobj *obj,
		      struct kobj *old, enum delta_source source, unsigned list_no)
{
	struct notification n = {
		.kind = kind, .obj_kind = "Pod", .group = "",
		.delta = { .type = kind == NOTIFY_ADD ? DELTA_ADDED : DELTA_UPDATED,
			   .source = source, .list_no = list_no, .obj = obj, .clock_ms = t },
		.old = old,
	};
	controller_note(c, &n);
}

/* A controller of v0.minor on one informer, no Reconcile time, recording into s. */
static struct controller *one_source(struct seen *s, unsigned minor)
{
	struct controller_opts o = {
		.record = record, .record_ctx = s, .runtime_minor = minor, .sources = 1,
	};
	struct errbuf err = { "" };

	return controller_new(&o, &err);
}

/*
 * The priority queue takes a relist's adds at once (its add buffer): an
 * idle worker gets the changed object before the unchanged ones that
 * came first, and a watch event of the same ms after the relist waits
 * for them.  The classic queue hands each out as it comes.
 */
TEST(a_relist_lands_in_the_priority_queue_at_once)
{
	static const struct { unsigned minor; const char *want; } cases[] = {
		{ 22, "a c d a c d e" }, { 24, "a c d d a c e" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seen s = { .nr = 0 };
		struct controller *c = one_source(&s, cases[i].minor);
		struct kobj *a = named("a", "1", 1), *c3 = named("c", "3", 1),
			    *d = named("d", "4", 1), *d2 = named("d", "6", 1),
			    *e = named("e", "7", 1);
		char got[128] = "";

		note_from(c, NOTIFY_ADD, 0, a, NULL, SOURCE_LIST, 0);
		note_from(c, NOTIFY_ADD, 0, c3, NULL, SOURCE_LIST, 0);
		note_from(c, NOTIFY_ADD, 0, d, NULL, SOURCE_LIST, 0);
		note_synced(c);
		note_from(c, NOTIFY_UPDATE, 5000, a, a, SOURCE_LIST, 1);
		note_from(c, NOTIFY_UPDATE, 5000, c3, c3, SOURCE_LIST, 1);
		note_from(c, NOTIFY_UPDATE, 5000, d2, d, SOURCE_LIST, 1);
		note_from(c, NOTIFY_ADD, 5000, e, NULL, SOURCE_WATCH, 0);
		controller_finish(c, true);
		started_names(&s, false, got, sizeof(got));
		CHECKF(!strcmp(got, cases[i].want), "v0.%u: %s, expected %s",
		       cases[i].minor, got, cases[i].want);
		controller_free(c);
		kobj_unref(a);
		kobj_unref(c3);
		kobj_unref(d);
		kobj_unref(d2);
		kobj_unref(e);
	}
}

/*
 * The workers start at the tick of the manager's cache-sync poll (every
 * 100 ms from its start) after the sync, and from v0.23 a tick later:
 * an event by then goes before the list's low-priority Creates.
 */
TEST(workers_start_at_a_tick_of_the_sync_poll)
{
	static const struct { unsigned minor; const char *want; } cases[] = {
		{ 22, "a@100 b@150" }, { 24, "b@200 a@200" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seen s = { .nr = 0 };
		struct controller *c = one_source(&s, cases[i].minor);
		struct kobj *a = named("a", "1", 1), *b = named("b", "2", 1);
		struct notification listed = {
			.kind = NOTIFY_ADD, .obj_kind = "Pod", .group = "",
			.delta = { .type = DELTA_ADDED, .source = SOURCE_LIST, .initial_list = true,
				   .obj = a, .clock_ms = 30 },
		};
		char got[128] = "";

		controller_note(c, &listed);
		note_synced(c);
		note_from(c, NOTIFY_ADD, 150, b, NULL, SOURCE_WATCH, 0);
		controller_finish(c, true);
		started_names(&s, true, got, sizeof(got));
		CHECKF(!strcmp(got, cases[i].want), "v0.%u: %s, expected %s",
		       cases[i].minor, got, cases[i].want);
		controller_free(c);
		kobj_unref(a);
		kobj_unref(b);
	}
}

/* --reconcile-outcome: error*2 then success; a terminal error is not requeued. */
TEST(scripted_outcomes)
{
	struct seen s = { .nr = 0 };
	struct outcome_script script = { .nr = 0 };
	struct errbuf err = { "" };

	CHECK_INT(outcome_script_add(&script, "shop/web=error*2,success,shop/web@102=terminal",
				     &err), 0);
	struct controller_opts o = { .record = record, .record_ctx = &s, .outcomes = &script,
				     .now = now_fn };
	struct controller *c = controller_new(&o, &err);
	struct kobj *a = pod("100", 1), *b = pod("102", 1);

	fake_now = 0;
	note(c, NOTIFY_ADD, 0, a, NULL);	/* error, 5 ms, error, 10 ms, success */
	fake_now = 1000;
	controller_advance(c);
	note(c, NOTIFY_UPDATE, 1000, b, a);	/* terminal: not requeued */
	fake_now = 9000;
	controller_advance(c);
	char got[128];
	starts(&s, got, sizeof(got));
	CHECK_STR(got, "0 5 15 1000");
	controller_free(c);
	outcome_script_release(&script);
	kobj_unref(a);
	kobj_unref(b);

	/* released: empty again */
	CHECK_INT(outcome_script_add(&script, "*=requeue-after:2s*,error", &err), -1);
	CHECK_STR(err.msg, "'requeue-after:2s*': only the last outcome may repeat for ever");
	CHECK_INT(outcome_script_add(&script, "web=error", &err), -1);
	CHECK_INT(outcome_script_add(&script, "*=retry", &err), -1);
	CHECK_INT(outcome_script_add(&script, "*=error*0", &err), -1);
	outcome_script_release(&script);
}

/*
 * The classic hot loop: a Reconcile that writes the status sees its own
 * write come back and runs again, unless a generation predicate drops it.
 */
TEST(status_write_comes_back)
{
	static const struct { const char *predicate; const char *want; int filtered; } cases[] = {
		{ NULL, "100 100+w1 100+w2 100+w3", 0 },
		{ "generation", "100", 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seen s = { .nr = 0 };
		struct outcome_script script = { .nr = 0 };
		struct errbuf err = { "" };
		CHECK_INT(outcome_script_add(&script, "shop/web=status-write*3", &err), 0);
		struct controller_opts o = {
			.reconcile_min_ms = 1000, .reconcile_max_ms = 1000,
			.record = record, .record_ctx = &s, .outcomes = &script, .now = now_fn,
		};
		if (cases[i].predicate)
			predicates_parse(&o.predicates, cases[i].predicate, &err);
		struct controller *c = controller_new(&o, &err);
		struct kobj *a = pod("100", 1);
		char got[128] = "";

		fake_now = 0;
		note(c, NOTIFY_ADD, 0, a, NULL);
		fake_now = 10000;
		controller_advance(c);
		for (size_t l = 0; l < s.nr; l++) {
			const char *read = strstr(s.line[l], " ReconcileStart shop/web read ");
			if (read)
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%.*s",
					 *got ? " " : "", (int)strcspn(read + 30, " "), read + 30);
		}
		CHECKF(!strcmp(got, cases[i].want), "%s: read %s, expected %s",
		       cases[i].predicate ? cases[i].predicate : "no predicate", got, cases[i].want);
		struct controller_stats st;
		controller_get_stats(c, &st);
		CHECK_INT(st.filtered, cases[i].filtered);
		CHECK_INT(st.deltas, 1);	/* the writes are no informer's deltas */
		controller_free(c);
		outcome_script_release(&script);
		kobj_unref(a);
	}
	/* at no Reconcile time it would never end: refused */
	struct outcome_script script = { .nr = 0 };
	struct errbuf err = { "" };
	outcome_script_add(&script, "*=status-write", &err);
	struct controller_opts o = { .outcomes = &script };
	CHECK(controller_new(&o, &err) == NULL);
	outcome_script_release(&script);
}

int main(void)
{
	RUN(changes_during_a_reconcile_coalesce_into_one_more);
	RUN(a_status_change_under_generation_is_never_reconciled);
	RUN(requeue_after_comes_back);
	RUN(requeue_after_and_an_event_by_version);
	RUN(workers_start_at_sync_and_unchanged_updates_go_last);
	RUN(a_relist_lands_in_the_priority_queue_at_once);
	RUN(workers_start_at_a_tick_of_the_sync_poll);
	RUN(scripted_outcomes);
	RUN(status_write_comes_back);
	return unit_done();
}

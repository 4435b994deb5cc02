/*
 * test_controller.c — the simulated controller (src/controller/
 * controller.c) on notifications made by hand, on its virtual clock:
 * coalescing while a Reconcile runs, what a Reconcile reads and names as
 * unseen, the generation predicate, requeue-after and the end.
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

static struct kobj *pod(const char *rv, int generation)
{
	char json[160];
	struct errbuf err = { "" };

	snprintf(json, sizeof(json), "{\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\","
		 "\"resourceVersion\":\"%s\",\"generation\":%d}}", rv, generation);
	return kobj_from_json(json, strlen(json), 0, &err);
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

int main(void)
{
	RUN(changes_during_a_reconcile_coalesce_into_one_more);
	RUN(a_status_change_under_generation_is_never_reconciled);
	RUN(requeue_after_comes_back);
	return unit_done();
}

/*
 * test_informer.c — the shared informer's rules, against the simulated
 * kube-apiserver over real sockets: a kube-sim child per test, the
 * kubeconfig it writes, a kclient, discovery, and real informers with
 * their threads.  Mutations go through the simulator's control interface;
 * its oracle is the truth the cache must equal.
 *
 * Every wait is bounded (WAIT_MS); a rule that does not hold fails its
 * test instead of hanging the program.  This is the program to run under
 * `make SANITIZE=thread check-unit`.
 */
#include <json-c/json.h>
#include <pthread.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "informer/informer.h"
#include "cluster/kubeconfig.h"
#include "sim.h"
#include "informer/store.h"
#include "lib/hashmap.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "unit.h"

#define WAIT_MS 10000
#define STOP_MS 2000

/* Polls cond every 10 ms until it holds or ms pass; the last value. */
#define WAIT_FOR(cond, ms)                                                 \
	({                                                                 \
		int64_t deadline_ = mono_ms() + (ms);                      \
		bool ok_;                                                  \
		while (!(ok_ = (cond)) && mono_ms() < deadline_)           \
			sim_sleep_ms(10);                                  \
		ok_;                                                       \
	})

/* ---- what a listener received ------------------------------------------ */

/* One notification, copied out so it can be released at once. */
struct seen {
	enum notify_kind kind;
	enum delta_type type;
	unsigned list_no;
	bool resync_only, replay, tombstone, has_old;
	char key[160], rv[32], old_rv[32];
	struct activity_info activity;		/* NOTIFY_ACTIVITY */
};

struct seen_list {
	struct seen *v;
	size_t nr, alloc;
};

/* Drains everything l holds into *out; returns how many were drained. */
static size_t seen_drain(struct listener *l, struct seen_list *out)
{
	struct notification n[64];
	size_t got, total = 0;

	while ((got = listener_drain(l, n, ARRAY_SIZE(n)))) {
		for (size_t i = 0; i < got; i++) {
			struct seen s = {
				.kind = n[i].kind,
				.type = n[i].delta.type,
				.list_no = n[i].delta.list_no,
				.resync_only = n[i].resync_only,
				.replay = n[i].replay,
				.tombstone = n[i].delta.tombstone,
				.has_old = n[i].old != NULL,
			};
			if (n[i].kind == NOTIFY_ACTIVITY || n[i].kind == NOTIFY_BOOKMARK) {
				s.activity = *n[i].activity;
				s.activity.replace.sample = NULL;	/* freed with n[i] */
			}
			if (n[i].delta.obj) {
				snprintf(s.key, sizeof(s.key), "%s", n[i].delta.obj->key);
				snprintf(s.rv, sizeof(s.rv), "%s", n[i].delta.obj->rv);
			}
			if (n[i].old)
				snprintf(s.old_rv, sizeof(s.old_rv), "%s", n[i].old->rv);
			ALLOC_GROW(out->v, out->nr + 1, out->alloc);
			out->v[out->nr++] = s;
			notification_release(&n[i]);
		}
		total += got;
	}
	return total;
}

static void seen_clear(struct seen_list *l)
{
	l->nr = 0;
}

static void seen_release(struct seen_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

#define ANY -1

/* How many object notifications of kind (ANY) with delta type (ANY). */
static size_t seen_count(const struct seen_list *l, int kind, int type)
{
	size_t n = 0;
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].kind != NOTIFY_ACTIVITY &&
		    (kind == ANY || (int)l->v[i].kind == kind) &&
		    (type == ANY || (int)l->v[i].type == type))
			n++;
	return n;
}

/* The last activity of type act, or NULL. */
static const struct activity_info *seen_activity(const struct seen_list *l, enum activity act)
{
	for (size_t i = l->nr; i-- > 0;)
		if (l->v[i].kind == NOTIFY_ACTIVITY && l->v[i].activity.act == act)
			return &l->v[i].activity;
	return NULL;
}

/* The first object notification for key of kind with rv ("" any), or NULL. */
static const struct seen *seen_find(const struct seen_list *l, enum notify_kind kind,
				    const char *key, const char *rv)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->v[i].kind == kind && !strcmp(l->v[i].key, key) &&
		    (!*rv || !strcmp(l->v[i].rv, rv)))
			return &l->v[i];
	return NULL;
}

/* ---- one simulator, one client, informers on it ----------------------- */

struct fixture {
	struct sim sim;
	struct sim_client sc;
	const struct api_resource *pods;
	struct informer_opts opts;
};

/*
 * Starts a simulator with `pods` pods (plain HTTP unless tls), connects
 * and resolves "pods".  The caller's informers use f->opts.
 */
static bool fixture_up(struct fixture *f, const char *pods, bool tls)
{
	struct errbuf err = { "" };

	memset(f, 0, sizeof(*f));
	/*
	 * Over http client-go, and kinf, send no credential: the simulator
	 * takes a request without one as admin's.
	 */
	if (tls ? sim_start(&f->sim, "--pods", pods, NULL) < 0
		: sim_start(&f->sim, "--pods", pods, "--plain-http", "--anonymous", "admin", NULL) < 0)
		return false;
	if (sim_connect(&f->sim, &f->sc) < 0)
		return false;
	if (discovery_resolve(f->sc.disco, "pods", &f->pods, &err) < 0) {
		printf("# resolve pods: %s\n", err.msg);
		return false;
	}
	f->opts.resource = f->pods;
	f->opts.fifo = FIFO_DELTA;
	return true;
}

static void fixture_down(struct fixture *f)
{
	sim_disconnect(&f->sc);
	sim_stop(&f->sim);
}

static bool start_informer(struct informer *inf)
{
	struct errbuf err = { "" };
	if (informer_start(inf, &err) < 0) {
		printf("# informer_start: %s\n", err.msg);
		return false;
	}
	return true;
}

/* The oracle's number of pods, or -1. */
static long oracle_count(struct fixture *f)
{
	struct json_object *items, *root = sim_oracle(&f->sim, "pods", &items);
	long n = root ? (long)json_object_object_length(items) : -1;
	json_object_put(root);
	return n;
}

/*
 * True when the store holds exactly the oracle's keys at its RVs.  With
 * `why`, the first difference is printed.
 */
static bool store_matches(struct store *store, struct json_object *items, bool why)
{
	size_t n = 0;
	bool same = true;

	json_object_object_foreach(items, key, val) {
		struct kobj *obj = store_get(store, key);
		const char *rv = json_object_get_string(val);
		n++;
		if (!obj || strcmp(obj->rv, rv)) {
			if (why)
				printf("# store has %s at %s, the oracle at %s\n", key,
				       obj ? obj->rv : "(absent)", rv);
			same = false;
		}
		kobj_unref(obj);
		if (!same)
			return false;
	}
	if (store_len(store) != n) {
		if (why)
			printf("# store holds %zu objects, the oracle %zu\n",
			       store_len(store), n);
		return false;
	}
	return true;
}

/* Polls the store until it equals the oracle (fetched once, now). */
static bool store_converges(struct fixture *f, struct store *store)
{
	struct json_object *items, *root = sim_oracle(&f->sim, "pods", &items);
	if (!root)
		return false;
	bool ok = WAIT_FOR(store_matches(store, items, false), WAIT_MS);
	if (!ok)
		store_matches(store, items, true);
	json_object_put(root);
	return ok;
}

/* Splits "ns/name" of the oracle's first pod. */
static bool first_pod(struct fixture *f, char ns[64], char name[128])
{
	struct json_object *items, *root = sim_oracle(&f->sim, "pods", &items);
	bool found = false;
	if (!root)
		return false;
	json_object_object_foreach(items, key, val) {
		const char *slash = strchr(key, '/');
		(void)val;
		if (!slash)
			continue;
		snprintf(ns, 64, "%.*s", (int)(slash - key), key);
		snprintf(name, 128, "%s", slash + 1);
		found = true;
		break;
	}
	json_object_put(root);
	return found;
}

/* metadata.resourceVersion of an object the control interface returned. */
static void json_rv(struct json_object *obj, char rv[32])
{
	struct json_object *meta, *v;
	rv[0] = '\0';
	if (obj && json_object_object_get_ex(obj, "metadata", &meta) &&
	    json_object_object_get_ex(meta, "resourceVersion", &v))
		snprintf(rv, 32, "%s", json_object_get_string(v));
}

/*
 * Forces a relist that changes nothing for pods: another resource moves
 * the RV on, then the watch cache restarts (compacted, watches ended), so
 * the pods watch cannot resume from its RV.  (A compaction alone would
 * not do: a watch from the newest RV is still served.)
 */
static bool force_relist(struct fixture *f)
{
	static unsigned nr;
	return sim_post(&f->sim, "/create",
			"{\"resource\":\"configmaps\",\"object\":{\"metadata\":"
			"{\"name\":\"kinf-relist-%u\",\"namespace\":\"default\"}}}", nr++) &&
	       sim_post(&f->sim, "/restart-watch-cache", "{}");
}

static enum informer_state state_of(struct informer *inf)
{
	struct informer_stats st;
	informer_get_stats(inf, &st);
	return st.state;
}

static bool relisted(struct informer *inf)
{
	struct informer_stats st;
	informer_get_stats(inf, &st);
	return st.relists >= 1;
}

static void *stop_main(void *arg)
{
	informer_stop(arg);
	return NULL;
}

/*
 * informer_stop() on another thread; its duration in ms.  One that has
 * not returned after a few seconds will not: bail out, naming it, as the
 * informer can be neither freed nor left behind.
 */
static int64_t timed_stop(struct informer *inf)
{
	pthread_t t;
	struct timespec deadline;
	int64_t t0 = mono_ms();

	if (pthread_create(&t, NULL, stop_main, inf)) {
		informer_stop(inf);
		return mono_ms() - t0;
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5 * STOP_MS / 1000;
	if (pthread_timedjoin_np(t, NULL, &deadline)) {
		printf("Bail out! informer_stop did not return within %d ms\n", 5 * STOP_MS);
		fflush(stdout);
		_exit(1);
	}
	return mono_ms() - t0;
}

/* Stops (bounded, see timed_stop) and frees; NULL is fine. */
static void finish(struct informer *inf)
{
	if (inf)
		timed_stop(inf);
	informer_free(inf);
}

/* ---- the rules ---------------------------------------------------------- */

/*
 * Initial sync, over TLS: an add for every object, HasSynced afterwards,
 * and the cache equals the oracle.
 */
TEST(initial_sync_adds_every_object)
{
	struct fixture f;
	struct seen_list got = { 0 };
	struct informer *inf = NULL;
	struct listener *l;

	if (CHECK_FAILS(!fixture_up(&f, "40", true), "simulator up")) {
		goto out;
	}
	inf = informer_new(f.sc.client, &f.opts);
	l = informer_add_listener(inf, 0);
	CHECK(!informer_has_synced(inf));
	if (CHECK_FAILS(!start_informer(inf), "informer started")) {
		goto out;
	}
	CHECK(informer_wait_synced(inf, WAIT_MS));
	CHECK(informer_has_synced(inf));

	/* HasSynced means every listed item was popped and handed out. */
	seen_drain(l, &got);
	struct json_object *items, *root = sim_oracle(&f.sim, "pods", &items);
	CHECK(root != NULL);
	if (root) {
		CHECK_INT(seen_count(&got, NOTIFY_ADD, DELTA_REPLACED), json_object_object_length(items));
		json_object_object_foreach(items, key, val) {
			const struct seen *s = seen_find(&got, NOTIFY_ADD, key, "");
			CHECK(s != NULL);
			if (s) {
				CHECK_STR(s->rv, json_object_get_string(val));
				CHECK(!s->replay && !s->resync_only && s->list_no == 0);
			}
		}
		CHECK(store_matches(informer_store(inf), items, true));
		json_object_put(root);
	}
	CHECK_INT(seen_count(&got, ANY, ANY), seen_count(&got, NOTIFY_ADD, ANY));
	/* Pushed just after HasSynced turned true. */
	CHECK(WAIT_FOR((seen_drain(l, &got), seen_activity(&got, ACT_SYNCED) != NULL), WAIT_MS));
out:
	finish(inf);
	seen_release(&got);
	fixture_down(&f);
}

/*
 * An initial list with nothing in it syncs too: there is nothing to pop,
 * yet HasSynced must turn true (client-go: populated, nothing left).
 */
TEST(empty_initial_list_syncs)
{
	struct fixture f;
	struct seen_list got = { 0 };
	struct informer *inf = NULL;
	struct listener *l;

	if (CHECK_FAILS(!fixture_up(&f, "5", false), "simulator up")) {
		goto out;
	}
	f.opts.label_selector = "kinf-test=matches-nothing";
	inf = informer_new(f.sc.client, &f.opts);
	l = informer_add_listener(inf, 0);
	if (CHECK_FAILS(!start_informer(inf), "informer started")) {
		goto out;
	}
	CHECK(informer_wait_synced(inf, WAIT_MS));
	CHECK(informer_has_synced(inf));
	CHECK_INT(store_len(informer_store(inf)), 0);
	CHECK(WAIT_FOR((seen_drain(l, &got), seen_activity(&got, ACT_SYNCED) != NULL), WAIT_MS));
	CHECK_INT(seen_count(&got, ANY, ANY), 0);
out:
	finish(inf);
	seen_release(&got);
	fixture_down(&f);
}

/*
 * 1.36's atomic FIFO: a watch's bookmark is a Bookmark delta.  Popped, it
 * sets the Indexer's last-sync RV and calls no handler; only a listener
 * that asked hears of it.  Without the atomic FIFO the store keeps no RV.
 */
TEST(atomic_fifo_bookmark_sets_the_store_rv)
{
	struct fixture f;
	struct seen_list got = { 0 }, other = { 0 };
	struct informer *inf = NULL;
	struct informer_stats st;
	struct listener *l, *l2;
	const struct seen *added;
	struct json_object *items, *root;
	const char *rv;

	if (CHECK_FAILS(!fixture_up(&f, "3", false), "simulator up")) {
		goto out;
	}
	f.opts.fifo = FIFO_ATOMIC;
	inf = informer_new(f.sc.client, &f.opts);
	l = informer_add_listener(inf, 0);
	l2 = informer_add_listener(inf, 0);
	listener_want_bookmarks(l);
	if (CHECK_FAILS(!start_informer(inf), "informer started")) {
		goto out;
	}
	CHECK(informer_wait_synced(inf, WAIT_MS));
	CHECK(sim_post(&f.sim, "/create", "{\"resource\":\"pods\",\"object\":{\"metadata\":"
		       "{\"name\":\"bm\",\"namespace\":\"default\"}}}"));
	CHECK(WAIT_FOR((seen_drain(l, &got), seen_find(&got, NOTIFY_ADD, "default/bm", "") != NULL), WAIT_MS));
	/* The RV moves past the pods' last: only the bookmark brings it. */
	CHECK(sim_post(&f.sim, "/create", "{\"resource\":\"configmaps\",\"object\":{\"metadata\":"
		       "{\"name\":\"bm\",\"namespace\":\"default\"}}}"));
	CHECK(sim_post(&f.sim, "/bookmark", "{}"));
	CHECK(WAIT_FOR((seen_drain(l, &got), seen_count(&got, NOTIFY_BOOKMARK, DELTA_BOOKMARK) == 1), WAIT_MS));
	added = seen_find(&got, NOTIFY_ADD, "default/bm", "");
	CHECK(strcmp(got.v[got.nr - 1].activity.rv, added ? added->rv : ""));
	root = sim_oracle(&f.sim, "pods", &items);
	rv = root ? json_get_str(root, "resourceVersion", "?") : "?";
	CHECK_STR(got.v[got.nr - 1].activity.rv, rv);
	informer_get_stats(inf, &st);
	CHECK_STR(st.store_rv, rv);
	CHECK_INT(st.deltas[DELTA_BOOKMARK], 1);
	json_object_put(root);
	seen_drain(l2, &other);
	CHECK_INT(seen_count(&other, NOTIFY_BOOKMARK, ANY), 0);
	CHECK(seen_find(&other, NOTIFY_ADD, "default/bm", "") != NULL);
out:
	finish(inf);
	seen_release(&got);
	seen_release(&other);
	fixture_down(&f);
}

/*
 * Sync deltas go only to listeners due for resync, and so do Replaced
 * deltas whose RV equals the cached one after a relist that changed
 * nothing; a listener without a resync period hears of neither.
 */
TEST(sync_goes_only_to_listeners_due_for_resync)
{
	struct fixture f;
	struct seen_list a = { 0 }, b = { 0 };
	struct informer *inf = NULL;
	struct listener *la, *lb;
	long n;

	if (CHECK_FAILS(!fixture_up(&f, "15", false) || (n = oracle_count(&f)) <= 0, "simulator up")) {
		goto out;
	}
	f.opts.resync_ms = 1000;	/* an informer without one resyncs no one */
	inf = informer_new(f.sc.client, &f.opts);
	la = informer_add_listener(inf, 1000);
	lb = informer_add_listener(inf, 0);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}

	seen_drain(la, &a);	/* the initial adds */
	seen_drain(lb, &b);
	seen_clear(&a);
	seen_clear(&b);

	/* A full resync round reaches a; b hears nothing meanwhile. */
	CHECK(WAIT_FOR((seen_drain(la, &a), seen_drain(lb, &b),
			seen_count(&a, NOTIFY_UPDATE, DELTA_SYNC) >= (size_t)n), WAIT_MS));
	seen_drain(lb, &b);
	CHECK_INT(seen_count(&a, NOTIFY_UPDATE, ANY), seen_count(&a, NOTIFY_UPDATE, DELTA_SYNC));
	for (size_t i = 0; i < a.nr; i++)
		if (a.v[i].kind == NOTIFY_UPDATE)
			CHECK(a.v[i].resync_only && a.v[i].has_old &&
			      !strcmp(a.v[i].rv, a.v[i].old_rv));
	CHECK_INT(seen_count(&b, NOTIFY_UPDATE, ANY), 0);
	/* Activity reaches every listener; it is pushed after the Sync deltas
	 * were queued, so possibly after they were handed out. */
	CHECK(WAIT_FOR((seen_drain(lb, &b), seen_activity(&b, ACT_RESYNC) != NULL), WAIT_MS));
	CHECK_INT(seen_count(&b, ANY, ANY), 0);

	/* A relist that changes nothing: Replaced with the cached RVs. */
	seen_clear(&a);
	seen_clear(&b);
	CHECK(force_relist(&f));
	CHECK(WAIT_FOR((seen_drain(la, &a), seen_drain(lb, &b),
			seen_count(&a, NOTIFY_UPDATE, DELTA_REPLACED) >= (size_t)n), WAIT_MS));
	seen_drain(lb, &b);
	for (size_t i = 0; i < a.nr; i++)
		if (a.v[i].kind == NOTIFY_UPDATE && a.v[i].type == DELTA_REPLACED)
			CHECK(a.v[i].resync_only && a.v[i].list_no >= 1 &&
			      !strcmp(a.v[i].rv, a.v[i].old_rv));
	CHECK_INT(seen_count(&b, NOTIFY_UPDATE, DELTA_REPLACED), 0);
	CHECK_INT(seen_count(&b, ANY, ANY), 0);
	/* The relist's summary comes after its Replace, maybe after its deltas. */
	CHECK(WAIT_FOR((seen_drain(lb, &b), seen_activity(&b, ACT_RELISTED) != NULL), WAIT_MS));
	CHECK_INT(seen_count(&b, ANY, ANY), 0);
	const struct activity_info *rel = seen_activity(&b, ACT_RELISTED);
	if (rel) {
		CHECK_INT(rel->replace.unchanged, n);
		CHECK_INT(rel->replace.changed + rel->replace.added + rel->replace.deleted, 0);
	}
out:
	finish(inf);
	seen_release(&a);
	seen_release(&b);
	fixture_down(&f);
}

/*
 * What a watch missed, a relist finds, and it concerns every listener: a
 * changed object's Replaced (an update, not resync-only), a vanished
 * one's tombstone, a new one's add.  And, as in client-go, every
 * unchanged object's Replaced as a resync-only update: listeners start in
 * the syncing set and, with no resync period, never leave it.
 */
TEST(relist_changes_reach_every_listener)
{
	struct fixture f;
	struct seen_list a = { 0 }, b = { 0 };
	struct informer *inf = NULL;
	struct listener *la, *lb;
	struct json_object *items, *root = NULL;
	char keys[2][200] = { "", "" }, new_rv[32] = "", add_rv[32] = "";
	long n;

	if (CHECK_FAILS(!fixture_up(&f, "12", false) || (n = oracle_count(&f)) < 2, "simulator up")) {
		goto out;
	}
	inf = informer_new(f.sc.client, &f.opts);
	la = informer_add_listener(inf, 0);
	lb = informer_add_listener(inf, 0);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}
	seen_drain(la, &a);
	seen_drain(lb, &b);
	seen_clear(&a);
	seen_clear(&b);

	/* No watch gets through: what happens next only a relist can see. */
	CHECK(WAIT_FOR(state_of(inf) == STATE_WATCHING, WAIT_MS));
	sim_sleep_ms(1100);	/* past a "very short watch" */
	CHECK(sim_post(&f.sim, "/faults", "{\"verb\":\"watch\",\"kind\":\"500\",\"count\":1000}"));
	CHECK(sim_post(&f.sim, "/drop-watches", "{}"));

	root = sim_oracle(&f.sim, "pods", &items);
	size_t k = 0;
	if (root) {
		json_object_object_foreach(items, key, val) {
			(void)val;
			if (k < 2)
				snprintf(keys[k++], sizeof(keys[0]), "%s", key);
		}
	}
	CHECK(k == 2);
	char *slash0 = strchr(keys[0], '/'), *slash1 = strchr(keys[1], '/');
	if (k < 2 || !slash0 || !slash1)
		goto out;
	struct json_object *obj = sim_post_json(&f.sim, "/update",
		"{\"name\":\"%s\",\"namespace\":\"%.*s\","
		"\"patch\":{\"metadata\":{\"labels\":{\"kinf-test\":\"missed\"}}}}",
		slash0 + 1, (int)(slash0 - keys[0]), keys[0]);
	json_rv(obj, new_rv);
	json_object_put(obj);
	CHECK(sim_post(&f.sim, "/delete", "{\"name\":\"%s\",\"namespace\":\"%.*s\"}",
		       slash1 + 1, (int)(slash1 - keys[1]), keys[1]));
	obj = sim_post_json(&f.sim, "/create",
		"{\"object\":{\"metadata\":{\"name\":\"kinf-test-missed\",\"namespace\":\"default\"}}}");
	json_rv(obj, add_rv);
	json_object_put(obj);
	/* Compacted: the relist cannot read the old snapshot any more. */
	CHECK(sim_post(&f.sim, "/compact", "{}"));

	struct seen_list *both[] = { &a, &b };
	struct listener *ls[] = { la, lb };
	for (int i = 0; i < 2; i++) {
		struct seen_list *got = both[i];
		CHECK(WAIT_FOR((seen_drain(ls[i], got),
				seen_find(got, NOTIFY_UPDATE, keys[0], new_rv) &&
				seen_find(got, NOTIFY_DELETE, keys[1], "") &&
				seen_find(got, NOTIFY_ADD, "default/kinf-test-missed", add_rv)),
			       WAIT_MS));
		const struct seen *up = seen_find(got, NOTIFY_UPDATE, keys[0], new_rv);
		const struct seen *del = seen_find(got, NOTIFY_DELETE, keys[1], "");
		const struct seen *add = seen_find(got, NOTIFY_ADD, "default/kinf-test-missed", "");
		CHECK(up && up->type == DELTA_REPLACED && !up->resync_only && up->list_no >= 1);
		CHECK(del && del->type == DELTA_DELETED && del->tombstone);
		CHECK(add && add->type == DELTA_REPLACED && !add->replay);
		/* The rest: one resync-only update per unchanged object. */
		size_t unchanged = 0;
		for (size_t j = 0; j < got->nr; j++)
			if (got->v[j].kind == NOTIFY_UPDATE && got->v[j].resync_only &&
			    got->v[j].type == DELTA_REPLACED &&
			    !strcmp(got->v[j].rv, got->v[j].old_rv))
				unchanged++;
		CHECK_INT(seen_count(got, ANY, ANY), 3 + unchanged);
		CHECK_INT(unchanged, n - 2);
	}
	CHECK(sim_call(&f.sim, "DELETE", "/faults", NULL, NULL) == 200);
	CHECK(store_converges(&f, informer_store(inf)));
out:
	json_object_put(root);
	finish(inf);
	seen_release(&a);
	seen_release(&b);
	fixture_down(&f);
}

/*
 * A listener added after the sync first gets a replayed add for every
 * cached object, then the live deltas.
 */
TEST(late_listener_gets_replay_then_live)
{
	struct fixture f;
	struct seen_list got = { 0 };
	struct informer *inf = NULL;
	struct listener *late;
	char ns[64], name[128], key[200], rv[32] = "", new_rv[32] = "";

	if (CHECK_FAILS(!fixture_up(&f, "25", false) || !first_pod(&f, ns, name), "simulator up")) {
		goto out;
	}
	inf = informer_new(f.sc.client, &f.opts);
	informer_add_listener(inf, 0);	/* an early one, left undrained */
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}

	late = informer_add_listener(inf, 0);
	seen_drain(late, &got);
	size_t cached = store_len(informer_store(inf));
	CHECK(cached > 0);
	CHECK_INT(got.nr, cached);
	for (size_t i = 0; i < got.nr; i++) {
		CHECK(got.v[i].kind == NOTIFY_ADD && got.v[i].replay);
		CHECK(store_has(informer_store(inf), got.v[i].key));
	}
	struct json_object *items, *root = sim_oracle(&f.sim, "pods", &items);
	if (root) {
		json_object_object_foreach(items, k, v) {
			const struct seen *s = seen_find(&got, NOTIFY_ADD, k, json_object_get_string(v));
			CHECK(s && s->replay);
		}
		json_object_put(root);
	}

	/* Then live deltas, not replays. */
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	const struct seen *prev = seen_find(&got, NOTIFY_ADD, key, "");
	if (prev)
		snprintf(rv, sizeof(rv), "%s", prev->rv);
	struct json_object *obj = sim_post_json(&f.sim, "/update",
		"{\"name\":\"%s\",\"namespace\":\"%s\","
		"\"patch\":{\"metadata\":{\"labels\":{\"kinf-test\":\"late\"}}}}", name, ns);
	json_rv(obj, new_rv);
	json_object_put(obj);
	CHECK(*new_rv);
	CHECK(WAIT_FOR((seen_drain(late, &got),
			seen_find(&got, NOTIFY_UPDATE, key, new_rv) != NULL), WAIT_MS));
	const struct seen *up = seen_find(&got, NOTIFY_UPDATE, key, new_rv);
	if (up) {
		CHECK(!up->replay && !up->resync_only && up->type == DELTA_UPDATED);
		CHECK_STR(up->old_rv, rv);
		CHECK((size_t)(up - got.v) >= cached);	/* after every replay */
	}
	for (size_t i = cached; i < got.nr; i++)
		CHECK(!got.v[i].replay);
out:
	finish(inf);
	seen_release(&got);
	fixture_down(&f);
}

/*
 * The resync period actually used, read back from the stats: right after
 * a resync round, next - last is the smallest listener period.
 */
static int64_t resync_gap(struct informer *inf)
{
	struct informer_stats st;
	informer_get_stats(inf, &st);
	return st.next_resync_ms - st.last_resync_ms;
}

static bool resynced(struct informer *inf)
{
	struct informer_stats st;
	informer_get_stats(inf, &st);
	return st.resyncs >= 1;
}

#define CHECK_NEAR(a, b, slack) CHECK((a) >= (b) - (slack) && (a) <= (b) + (slack))

/* A period under a second is a second (client-go's minimumResyncPeriod). */
TEST(resync_period_at_least_one_second)
{
	struct fixture f;
	struct seen_list got = { 0 };
	struct informer *inf = NULL;
	struct listener *l;

	if (CHECK_FAILS(!fixture_up(&f, "5", false), "simulator up")) {
		goto out;
	}
	f.opts.resync_ms = 1000;	/* an informer without one resyncs no one */
	inf = informer_new(f.sc.client, &f.opts);
	l = informer_add_listener(inf, 100);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}
	int64_t t0 = mono_ms();
	CHECK(WAIT_FOR(resynced(inf), WAIT_MS));
	CHECK_NEAR(resync_gap(inf), 1000, 50);
	/* In 1.5 s a 100 ms period would resync a dozen times. */
	sim_sleep_ms(1500 - (mono_ms() - t0) > 0 ? 1500 - (mono_ms() - t0) : 0);
	seen_drain(l, &got);
	struct informer_stats st;
	informer_get_stats(inf, &st);
	CHECK(st.resyncs >= 1 && st.resyncs <= 3);
out:
	finish(inf);
	seen_release(&got);
	fixture_down(&f);
}

/*
 * After start, a listener period shorter than the informer's check period
 * becomes the check period (client-go's AddEventHandlerWithResyncPeriod).
 */
TEST(resync_late_listener_clamped_to_check_period)
{
	struct fixture f;
	struct seen_list got = { 0 };
	struct informer *inf = NULL;
	struct listener *l;

	if (CHECK_FAILS(!fixture_up(&f, "5", false), "simulator up")) {
		goto out;
	}
	f.opts.resync_ms = 2000;
	inf = informer_new(f.sc.client, &f.opts);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}
	l = informer_add_listener(inf, 1000);
	CHECK(WAIT_FOR((seen_drain(l, &got),
			seen_count(&got, NOTIFY_UPDATE, DELTA_SYNC) > 0), WAIT_MS));
	CHECK(resynced(inf));
	CHECK_NEAR(resync_gap(inf), 2000, 50);
out:
	finish(inf);
	seen_release(&got);
	fixture_down(&f);
}

/*
 * An informer made without a resync period resyncs no listener, whatever
 * it asks for (client-go's determineResyncPeriod with a check period 0).
 */
TEST(resync_none_without_informer_period)
{
	struct fixture f;
	struct seen_list got = { 0 };
	struct informer *inf = NULL;
	struct listener *l;

	if (CHECK_FAILS(!fixture_up(&f, "5", false), "simulator up")) {
		goto out;
	}
	inf = informer_new(f.sc.client, &f.opts);	/* resync_ms 0 */
	l = informer_add_listener(inf, 1000);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}
	sim_sleep_ms(2500);
	seen_drain(l, &got);
	CHECK(seen_count(&got, NOTIFY_UPDATE, DELTA_SYNC) == 0);
	CHECK(!resynced(inf));
out:
	finish(inf);
	seen_release(&got);
	fixture_down(&f);
}

/* Before start, a shorter listener period lowers the check period. */
TEST(resync_early_listener_lowers_check_period)
{
	struct fixture f;
	struct seen_list got = { 0 };
	struct informer *inf = NULL;
	struct listener *l;

	if (CHECK_FAILS(!fixture_up(&f, "5", false), "simulator up")) {
		goto out;
	}
	f.opts.resync_ms = 6000;
	inf = informer_new(f.sc.client, &f.opts);
	l = informer_add_listener(inf, 1000);
	int64_t t0 = mono_ms();
	if (CHECK_FAILS(!start_informer(inf), "informer started")) {
		goto out;
	}
	/* With the 6 s check period the first Sync would come after 6 s. */
	CHECK(WAIT_FOR((seen_drain(l, &got),
			seen_count(&got, NOTIFY_UPDATE, DELTA_SYNC) > 0), 4000));
	CHECK(mono_ms() - t0 < 4000);
	CHECK(resynced(inf));
	CHECK_NEAR(resync_gap(inf), 1000, 50);
out:
	finish(inf);
	seen_release(&got);
	fixture_down(&f);
}

/* The per-key sequence of updates, each one's old RV the previous RV. */
static void check_update_chain(const struct seen_list *initial, const struct seen_list *got)
{
	for (size_t i = 0; i < got->nr; i++) {
		const struct seen *s = &got->v[i];
		const char *prev = NULL;
		if (s->kind != NOTIFY_UPDATE)
			continue;
		for (size_t j = i; j-- > 0;)
			if (got->v[j].kind == NOTIFY_UPDATE && !strcmp(got->v[j].key, s->key)) {
				prev = got->v[j].rv;
				break;
			}
		if (!prev) {
			const struct seen *add = seen_find(initial, NOTIFY_ADD, s->key, "");
			prev = add ? add->rv : "(none)";
		}
		if (CHECK_FAILS(strcmp(s->old_rv, prev), "updates in order")) {
			printf("# update %zu of %s: old %s, expected %s\n", i, s->key,
			       s->old_rv, prev);
			return;
		}
		if (CHECK_FAILS(atoll(s->rv) <= atoll(s->old_rv), "RVs increase")) {
			printf("# update %zu of %s: rv %s after %s\n", i, s->key, s->rv, s->old_rv);
			return;
		}
	}
}

/*
 * A listener that does not drain while 2,000 updates happen blocks
 * neither the other listener nor the store, and then drains them all in
 * order.
 */
TEST(slow_listener_blocks_nobody)
{
	struct fixture f;
	struct seen_list fast_got = { 0 }, slow_got = { 0 }, initial = { 0 };
	struct informer *inf = NULL;
	struct listener *fast, *slow;
	enum { UPDATES = 2000 };

	if (CHECK_FAILS(!fixture_up(&f, "20", false), "simulator up")) {
		goto out;
	}
	inf = informer_new(f.sc.client, &f.opts);
	fast = informer_add_listener(inf, 0);
	slow = informer_add_listener(inf, 0);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}
	seen_drain(fast, &initial);
	seen_drain(slow, &slow_got);
	seen_clear(&slow_got);

	struct json_object *res = sim_post_json(&f.sim, "/churn",
		"{\"count\":%d,\"mix\":{\"update\":1},\"seed\":7}", UPDATES);
	struct json_object *done = NULL;
	CHECK(res && json_object_object_get_ex(res, "done", &done) &&
	      json_object_get_int(done) == UPDATES);
	json_object_put(res);

	/* The fast one and the store get everything; slow holds it all. */
	CHECK(WAIT_FOR((seen_drain(fast, &fast_got),
			seen_count(&fast_got, NOTIFY_UPDATE, DELTA_UPDATED) >= UPDATES), WAIT_MS));
	CHECK(store_converges(&f, informer_store(inf)));
	CHECK_INT(seen_count(&fast_got, NOTIFY_UPDATE, ANY), UPDATES);
	CHECK(listener_pending(slow) >= UPDATES);

	seen_drain(slow, &slow_got);
	CHECK_INT(seen_count(&slow_got, NOTIFY_UPDATE, DELTA_UPDATED), UPDATES);
	/* The same notifications in the same order as the fast one's. */
	size_t i = 0, j = 0;
	for (;;) {
		while (i < fast_got.nr && fast_got.v[i].kind == NOTIFY_ACTIVITY)
			i++;
		while (j < slow_got.nr && slow_got.v[j].kind == NOTIFY_ACTIVITY)
			j++;
		if (i == fast_got.nr || j == slow_got.nr)
			break;
		if (CHECK_FAILS(strcmp(fast_got.v[i].key, slow_got.v[j].key) ||
				strcmp(fast_got.v[i].rv, slow_got.v[j].rv), "same order")) {
			printf("# notification %zu: slow %s@%s, fast %s@%s\n", j,
			       slow_got.v[j].key, slow_got.v[j].rv,
			       fast_got.v[i].key, fast_got.v[i].rv);
			break;
		}
		i++, j++;
	}
	check_update_chain(&initial, &slow_got);
	check_update_chain(&initial, &fast_got);
out:
	finish(inf);
	seen_release(&fast_got);
	seen_release(&slow_got);
	seen_release(&initial);
	fixture_down(&f);
}

/* Watch events reach the store and the listeners: add, update, delete. */
TEST(watch_events_reach_store_and_listeners)
{
	struct fixture f;
	struct seen_list got = { 0 };
	struct informer *inf = NULL;
	struct listener *l;
	struct store *store;
	char ns[64], name[128], key[200], rv[32] = "", new_rv[32] = "";
	struct json_object *obj;

	if (CHECK_FAILS(!fixture_up(&f, "10", false) || !first_pod(&f, ns, name), "simulator up")) {
		goto out;
	}
	inf = informer_new(f.sc.client, &f.opts);
	l = informer_add_listener(inf, 0);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}
	store = informer_store(inf);
	seen_drain(l, &got);
	seen_clear(&got);
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	struct kobj *cached = store_get(store, key);
	CHECK(cached != NULL);
	if (cached)
		snprintf(rv, sizeof(rv), "%s", cached->rv);
	kobj_unref(cached);

	/* MODIFIED: an update carrying the old object. */
	obj = sim_post_json(&f.sim, "/update",
		"{\"name\":\"%s\",\"namespace\":\"%s\","
		"\"patch\":{\"metadata\":{\"labels\":{\"kinf-test\":\"updated\"}}}}", name, ns);
	json_rv(obj, new_rv);
	json_object_put(obj);
	CHECK(*new_rv && strcmp(new_rv, rv));
	CHECK(WAIT_FOR((seen_drain(l, &got),
			seen_find(&got, NOTIFY_UPDATE, key, new_rv) != NULL), WAIT_MS));
	const struct seen *up = seen_find(&got, NOTIFY_UPDATE, key, new_rv);
	if (up) {
		CHECK(up->type == DELTA_UPDATED && up->has_old && !up->resync_only);
		CHECK_STR(up->old_rv, rv);
	}
	cached = store_get(store, key);
	CHECK(cached && !strcmp(cached->rv, new_rv) &&
	      packed_contains(cached->labels, "kinf-test=updated"));
	kobj_unref(cached);

	/* ADDED. */
	obj = sim_post_json(&f.sim, "/create",
		"{\"object\":{\"metadata\":{\"name\":\"kinf-test-new\",\"namespace\":\"default\"}}}");
	json_rv(obj, new_rv);
	json_object_put(obj);
	CHECK(*new_rv);
	CHECK(WAIT_FOR((seen_drain(l, &got),
			seen_find(&got, NOTIFY_ADD, "default/kinf-test-new", new_rv) != NULL), WAIT_MS));
	const struct seen *add = seen_find(&got, NOTIFY_ADD, "default/kinf-test-new", "");
	CHECK(add && add->type == DELTA_ADDED && !add->has_old && !add->replay);
	CHECK(store_has(store, "default/kinf-test-new"));

	/* DELETED. */
	CHECK(sim_post(&f.sim, "/delete", "{\"name\":\"%s\",\"namespace\":\"%s\"}", name, ns));
	CHECK(WAIT_FOR((seen_drain(l, &got),
			seen_find(&got, NOTIFY_DELETE, key, "") != NULL), WAIT_MS));
	const struct seen *del = seen_find(&got, NOTIFY_DELETE, key, "");
	CHECK(del && del->type == DELTA_DELETED && !del->tombstone);
	CHECK(!store_has(store, key));
	CHECK(store_converges(&f, store));
out:
	finish(inf);
	seen_release(&got);
	fixture_down(&f);
}


/* informer_stop joins promptly while a watch is open. */
TEST(stop_is_prompt_while_watching)
{
	struct fixture f;
	struct informer *inf = NULL;

	if (CHECK_FAILS(!fixture_up(&f, "10", false), "simulator up")) {
		goto out;
	}
	f.opts.resync_ms = 60000;	/* a processor waiting for its resync, too */
	inf = informer_new(f.sc.client, &f.opts);
	informer_add_listener(inf, 0);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}
	CHECK(WAIT_FOR(state_of(inf) == STATE_WATCHING, WAIT_MS));
	sim_sleep_ms(200);	/* into the transfer, not just opening it */
	int64_t took = timed_stop(inf);
	printf("# stopped in %lld ms while watching\n", (long long)took);
	CHECK(took < STOP_MS);
	CHECK(state_of(inf) == STATE_STOPPED);
out:
	finish(inf);
	fixture_down(&f);
}

/* informer_stop joins promptly while the reflector backs off. */
TEST(stop_is_prompt_while_backing_off)
{
	struct fixture f;
	struct informer *inf = NULL;
	struct informer_stats st;

	if (CHECK_FAILS(!fixture_up(&f, "10", false), "simulator up")) {
		goto out;
	}
	CHECK(sim_post(&f.sim, "/faults", "{\"verb\":\"list\",\"kind\":\"500\",\"count\":100}"));
	inf = informer_new(f.sc.client, &f.opts);
	informer_add_listener(inf, 0);
	if (CHECK_FAILS(!start_informer(inf), "informer started")) {
		goto out;
	}
	/* The second backoff lasts 1.6–3.2 s: longer than the stop may take. */
	CHECK(WAIT_FOR((informer_get_stats(inf, &st), st.backoffs >= 2 && st.state == STATE_BACKOFF),
		       WAIT_MS));
	CHECK(!informer_has_synced(inf));
	CHECK(st.errors >= 2 && st.lists >= 2);
	int64_t left = st.backoff_until_ms - wall_ms();
	int64_t took = timed_stop(inf);
	printf("# stopped in %lld ms with %lld ms of backoff left\n",
	       (long long)took, (long long)left);
	CHECK(took < STOP_MS);
	if (left > 500)
		CHECK(took < left);
	CHECK(state_of(inf) == STATE_STOPPED);
	/* A waiter is released by the stop, not left until its timeout. */
	int64_t t0 = mono_ms();
	CHECK(!informer_wait_synced(inf, WAIT_MS));
	CHECK(mono_ms() - t0 < STOP_MS);
out:
	finish(inf);
	fixture_down(&f);
}

/* After a relist the stats count it, and the cache size is the store's. */
TEST(stats_count_the_relist)
{
	struct fixture f;
	struct informer *inf = NULL;
	struct informer_stats st;

	if (CHECK_FAILS(!fixture_up(&f, "30", false), "simulator up")) {
		goto out;
	}
	inf = informer_new(f.sc.client, &f.opts);
	informer_add_listener(inf, 0);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced")) {
		goto out;
	}
	informer_get_stats(inf, &st);
	CHECK_INT(st.lists, 1);
	CHECK_INT(st.relists, 0);
	CHECK(st.synced);

	/* A watch that ends within a second without events is a failure of
	 * its own ("very short watch"); let it live past that first. */
	CHECK(WAIT_FOR(state_of(inf) == STATE_WATCHING, WAIT_MS));
	sim_sleep_ms(1200);
	struct kobj_list before = { 0 };
	store_list(informer_store(inf), &before);
	CHECK(before.nr > 0);
	CHECK(force_relist(&f));
	CHECK(WAIT_FOR(relisted(inf), WAIT_MS));
	CHECK(WAIT_FOR((informer_get_stats(inf, &st), st.fifo_depth == 0 &&
			st.state == STATE_WATCHING), WAIT_MS));
	/* Nothing changed: the cache holds the very objects it held before. */
	for (size_t i = 0; i < before.nr; i++) {
		struct kobj *now = store_get(informer_store(inf), before.v[i]->key);
		CHECK(now == before.v[i]);
		kobj_unref(now);
	}
	kobj_list_release(&before);
	informer_get_stats(inf, &st);
	CHECK(st.lists >= 2);
	CHECK(st.relists >= 1);
	CHECK(st.expired >= 1);
	CHECK(st.rv[0] != '\0');
	CHECK(st.synced);
	CHECK_INT(st.cached, store_len(informer_store(inf)));
	CHECK_INT(st.cached, oracle_count(&f));
	CHECK(st.deltas[DELTA_REPLACED] >= 2 * st.cached);
	CHECKF(strstr(st.relist_reason, "expired"), "relist reason: %s", st.relist_reason);
	CHECK(store_converges(&f, informer_store(inf)));
out:
	finish(inf);
	fixture_down(&f);
}

/*
 * The code under test may hang where no wait of ours is bounded (a stop
 * that never joins): end the program with TAP's bail-out rather than
 * hang the suite.  The simulators exit by themselves when we are gone.
 */
#define WATCHDOG_S 240

static void on_watchdog(int sig)
{
	static const char msg[] = "Bail out! test_informer hung (watchdog)\n";
	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* ---- checkpoints (the flight recorder's) -------------------------------- */

/* What a tap saw of each exchange: its bytes (exchanges numbered from 1). */
struct tapped {
	pthread_mutex_t lock;
	struct strbuf bytes[64];
	unsigned n;
};

static unsigned tapped_begin(void *ctx, const char *stream, const char *path)
{
	struct tapped *t = ctx;

	pthread_mutex_lock(&t->lock);
	unsigned x = t->n < ARRAY_SIZE(t->bytes) - 1 ? ++t->n : t->n;
	pthread_mutex_unlock(&t->lock);
	return x;
}

static void tapped_head(void *ctx, unsigned x, const struct http_response *resp)
{
}

static void tapped_data(void *ctx, unsigned x, const char *data, size_t len)
{
	struct tapped *t = ctx;

	pthread_mutex_lock(&t->lock);
	strbuf_add(&t->bytes[x], data, len);
	pthread_mutex_unlock(&t->lock);
}

static void tapped_end(void *ctx, unsigned x, int rc, const char *error,
		       const struct http_response *resp, bool stopped)
{
}

static const struct kclient_tap tapped_tap = {
	.begin = tapped_begin, .head = tapped_head, .data = tapped_data, .end = tapped_end,
};

/* A checkpoint as the sink got it: its place, and each object's key and RV. */
struct taken {
	struct fifo_place at;
	struct hashmap rv;	/* key -> RV, both owned */
};

struct sink {
	pthread_mutex_t lock;
	struct taken v[4096];
	size_t n;
};

static void *sink_open(void *ctx, const char *stream, const char *api_version, const char *kind,
		       void (*wake)(void *arg), void *arg)
{
	return ctx;
}

static bool sink_wanted(void *h)
{
	return true;
}

static void sink_take(void *h, const struct fifo_place *at, struct kobj_list *objs)
{
	struct sink *s = h;

	pthread_mutex_lock(&s->lock);
	if (s->n < ARRAY_SIZE(s->v)) {
		struct taken *t = &s->v[s->n++];
		t->at = *at;
		t->rv = (struct hashmap)HASHMAP_INIT;
		for (size_t i = 0; i < objs->nr; i++) {
			char *key = xstrdup(objs->v[i]->key);
			hashmap_insert(&t->rv, key, xstrdup(objs->v[i]->rv));
		}
	}
	pthread_mutex_unlock(&s->lock);
	kobj_list_release(objs);
}

static void sink_close(void *h)
{
}

static const struct checkpoint_sink test_sink = {
	.open = sink_open, .wanted = sink_wanted, .take = sink_take, .close = sink_close,
};

/* Line k of text, counted back from its end (0: the last), into out; false if none. */
static bool line_before(const char *text, size_t end, struct strbuf *out)
{
	/* (or just before its newline, when that came in the next read) */
	if (end && text[end - 1] == '}' && text[end] == '\n')
		end++;
	if (!end || text[end - 1] != '\n')
		return false;
	size_t start = end - 1;
	while (start && text[start - 1] != '\n')
		start--;
	strbuf_reset(out);
	strbuf_add(out, text + start, end - 1 - start);
	return true;
}

/*
 * Event line ev's object as key and RV, into key and rv (64 bytes each);
 * false for a line that is not an event of an object.
 */
static bool event_of(const char *ev, char *key, char *rv, char *type)
{
	struct json_object *e = json_tokener_parse(ev), *o;
	const char *t = e ? json_get_str(e, "type", NULL) : NULL;
	bool ok = t && json_object_object_get_ex(e, "object", &o);

	if (ok) {
		struct json_object *meta = json_get_object(o, "metadata");
		const char *ns = json_get_str(meta, "namespace", NULL),
			   *name = json_get_str(meta, "name", "");
		snprintf(type, 16, "%s", t);
		snprintf(rv, 64, "%s", json_get_str(meta, "resourceVersion", ""));
		snprintf(key, 200, "%s%s%s", ns ? ns : "", ns ? "/" : "", name);
	}
	json_object_put(e);
	return ok;
}

/* How many checkpoints s has taken mid-watch: not a list's end, and after a read. */
static size_t watch_checkpoints(struct sink *s)
{
	size_t n = 0;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].at.off != FIFO_PLACE_END && s->v[i].at.x;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/*
 * Every checkpoint the processor takes, while events come, is the
 * Indexer at its place: the place ends a line the reflector read, the
 * event on that line is in it (and its RV is the place's), and the
 * event on the next line is not yet.
 */
TEST(each_checkpoint_is_the_indexer_at_the_end_of_a_line_read)
{
	struct fixture f;
	struct informer *inf = NULL;
	static struct tapped t = { .lock = PTHREAD_MUTEX_INITIALIZER };
	static struct sink s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct strbuf line = STRBUF_INIT;
	size_t in_watch = 0;

	for (size_t i = 0; i < ARRAY_SIZE(t.bytes); i++)
		t.bytes[i] = (struct strbuf)STRBUF_INIT;
	if (CHECK_FAILS(!fixture_up(&f, "20", false), "simulator up"))
		goto out;
	kclient_set_tap(f.sc.client, &tapped_tap, &t);
	inf = informer_new(f.sc.client, &f.opts);
	informer_set_checkpoints(inf, &test_sink, &s);
	if (CHECK_FAILS(!start_informer(inf) || !informer_wait_synced(inf, WAIT_MS), "informer synced"))
		goto out;
	/*
	 * Churn in rounds, each waited out, for checkpoints mid-watch: how
	 * many one churn makes depends on how the processor's pops fall, but
	 * a drained FIFO after a round's last pop always makes one.
	 */
	for (int round = 0; round < 4; round++) {
		size_t before = watch_checkpoints(&s);
		json_object_put(sim_post_json(&f.sim, "/churn",
					      "{\"count\":125,\"mix\":{\"update\":1},\"seed\":%d}",
					      3 + round));
		CHECK(store_converges(&f, informer_store(inf)));
		CHECKF(WAIT_FOR(watch_checkpoints(&s) > before, WAIT_MS),
		       "a checkpoint after churn round %d", round);
	}
	timed_stop(inf);
	CHECKF(s.n >= 2, "%zu checkpoints", s.n);
	for (size_t i = 0; i < s.n; i++) {
		struct taken *c = &s.v[i];
		char key[200], rv[64], type[16], nkey[200], nrv[64], ntype[16];
		if (c->at.off == FIFO_PLACE_END || !c->at.x)
			continue;	/* a list's end, or nothing read yet */
		in_watch++;
		const struct strbuf *b = &t.bytes[c->at.x];
		if (CHECK_FAILS(c->at.off > b->len || !line_before(b->buf, (size_t)c->at.off, &line),
				"the place ends a line")) {
			printf("# checkpoint %zu at %llu of exchange %llu (%zu bytes)\n", i,
			       (unsigned long long)c->at.off, (unsigned long long)c->at.x, b->len);
			break;
		}
		if (!event_of(line.buf, key, rv, type))
			continue;
		CHECK_STR(c->at.rv, rv);
		if (strcmp(type, "BOOKMARK")) {
			const char *has = hashmap_get(&c->rv, key);
			CHECKF(has && !strcmp(has, rv), "checkpoint %zu holds %s at %s, its place's event at %s",
			       i, key, has ? has : "(none)", rv);
		}
		const char *next = b->buf + c->at.off + (b->buf[c->at.off] == '\n');
		const char *nl = memchr(next, '\n', (size_t)(b->buf + b->len - next));
		if (nl) {
			strbuf_reset(&line);
			strbuf_add(&line, next, (size_t)(nl - next));
			if (event_of(line.buf, nkey, nrv, ntype) && !strcmp(ntype, "MODIFIED")) {
				const char *has = hashmap_get(&c->rv, nkey);
				CHECKF(!has || strcmp(has, nrv),
				       "checkpoint %zu holds %s at %s, the event after its place", i, nkey, nrv);
			}
		}
	}
	CHECKF(in_watch >= 4, "%zu checkpoints mid-watch", in_watch);
out:
	finish(inf);
	for (size_t i = 0; i < s.n; i++) {
		size_t iter = 0;
		struct hashmap_entry *e;
		while ((e = hashmap_next(&s.v[i].rv, &iter))) {
			free((char *)e->key);
			free(e->value);
		}
		hashmap_release(&s.v[i].rv);
	}
	for (size_t i = 0; i < ARRAY_SIZE(t.bytes); i++)
		strbuf_release(&t.bytes[i]);
	strbuf_release(&line);
	fixture_down(&f);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_watchdog);
	alarm(WATCHDOG_S);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	int64_t t0 = mono_ms();

	RUN(initial_sync_adds_every_object);
	RUN(atomic_fifo_bookmark_sets_the_store_rv);
	RUN(empty_initial_list_syncs);
	RUN(sync_goes_only_to_listeners_due_for_resync);
	RUN(relist_changes_reach_every_listener);
	RUN(late_listener_gets_replay_then_live);
	RUN(resync_period_at_least_one_second);
	RUN(resync_late_listener_clamped_to_check_period);
	RUN(resync_early_listener_lowers_check_period);
	RUN(resync_none_without_informer_period);
	RUN(slow_listener_blocks_nobody);
	RUN(watch_events_reach_store_and_listeners);
	RUN(stop_is_prompt_while_watching);
	RUN(stop_is_prompt_while_backing_off);
	RUN(stats_count_the_relist);
	RUN(each_checkpoint_is_the_indexer_at_the_end_of_a_line_read);

	printf("# %lld ms\n", (long long)(mono_ms() - t0));
	curl_global_cleanup();
	return unit_done();
}

/* test_store.c — the Indexer: map, index maintenance, concurrency. */
#include <pthread.h>

#include "lib/hashmap.h"
#include "lib/intern.h"
#include "lib/idtable.h"
#include "informer/store.h"
#include "unit.h"

/* A pod; labels is "k=v,k=v" or "", node and owner may be "". */
static struct kobj *pod(const char *ns, const char *name, const char *rv,
			const char *labels, const char *node, const char *owner)
{
	char lbuf[256] = "", *json, *p, *copy = xstrdup(labels), *save = NULL;
	struct errbuf err;
	struct kobj *obj;

	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(p, '=');

		*eq = '\0';
		snprintf(lbuf + strlen(lbuf), sizeof(lbuf) - strlen(lbuf),
			 "%s\"%s\":\"%s\"", *lbuf ? "," : "", p, eq + 1);
	}
	free(copy);
	json = xasprintf("{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
			 "\"resourceVersion\":\"%s\",\"labels\":{%s}"
			 ",\"ownerReferences\":[{\"uid\":\"%s\"}]},"
			 "\"spec\":{\"nodeName\":\"%s\"}}",
			 name, ns, rv, lbuf, owner, node);
	obj = kobj_from_json(json, strlen(json), 0, &err);
	if (!obj)
		printf("# %s: %s\n", json, err.msg);
	free(json);
	return obj;
}

/* The keys found under index=value, sorted, joined by spaces. */
static char *lookup(struct store *store, const char *index, const char *value)
{
	struct kobj_list list;
	struct errbuf err;
	char buf[4096] = "";

	if (store_by_index(store, index, value, &list, &err) < 0)
		return xstrdup("(error)");
	for (size_t i = 0; i < list.nr; i++)	/* insertion sort: tiny lists */
		for (size_t j = i; j > 0 && strcmp(list.v[j - 1]->key,
						  list.v[j]->key) > 0; j--) {
			struct kobj *t = list.v[j];

			list.v[j] = list.v[j - 1];
			list.v[j - 1] = t;
		}
	for (size_t i = 0; i < list.nr; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
			 i ? " " : "", list.v[i]->key);
	kobj_list_release(&list);
	return xstrdup(buf);
}

#define CHECK_LOOKUP(store, index, value, expected)                        \
	do {                                                               \
		char *got_ = lookup(store, index, value);                  \
		CHECK_STR(got_, expected);                                 \
		free(got_);                                                \
	} while (0)

TEST(hashmap_survives_growth_and_removal)
{
	struct hashmap map = HASHMAP_INIT;
	char *keys[2000];
	size_t iter = 0, seen = 0;

	for (int i = 0; i < 2000; i++) {
		keys[i] = xasprintf("k%d", i);
		hashmap_insert(&map, keys[i], keys[i]);
	}
	CHECK_INT(hashmap_len(&map), 2000);
	for (int i = 0; i < 2000; i += 2)
		CHECK(hashmap_remove(&map, keys[i], NULL));
	CHECK(!hashmap_remove(&map, "k0", NULL));
	for (int i = 0; i < 2000; i++)
		CHECK((hashmap_get(&map, keys[i]) != NULL) == (i % 2 == 1));
	while (hashmap_next(&map, &iter))
		seen++;
	CHECK_INT(seen, 1000);
	for (int i = 1; i < 2000; i += 2)
		CHECK(hashmap_remove(&map, keys[i], NULL));
	CHECK_INT(hashmap_len(&map), 0);
	CHECK(map.v == NULL && map.ids.ids == NULL);	/* an emptied big map gives memory back */
	hashmap_release(&map);
	for (int i = 0; i < 2000; i++)
		free(keys[i]);
}

/*
 * Interned copies: equal bytes (NULs inside counted, as the packed lists
 * of labels have) share one copy, other bytes get theirs, and a copy
 * lives until its last holder lets go, through the table's growth and
 * shrinking.
 */
TEST(intern_shares_equal_bytes_until_the_last_holder_lets_go)
{
	enum { N = 3000 };
	static struct intern *held[N], *again[N];
	char buf[32];

	for (int i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "app=a%d", i);
		buf[n] = '\0';
		held[i] = intern_get(buf, (size_t)n + 1);	/* its NUL too */
	}
	for (int i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "app=a%d", i);
		again[i] = intern_get(buf, (size_t)n + 1);
		CHECK(again[i] == held[i]);
		struct intern *other = intern_get(buf, (size_t)n);	/* without the NUL */
		CHECK(other != held[i] && other->len == (size_t)n);
		intern_put(other);
	}
	for (int i = 0; i < N; i++)
		intern_put(held[i]);
	for (int i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "app=a%d", i);
		CHECK(again[i]->len == (size_t)n + 1 && !memcmp(again[i]->bytes, buf, (size_t)n + 1));
		intern_put(again[i]);
	}
	struct intern *fresh = intern_get("x", 1);
	CHECK(fresh->len == 1 && fresh->bytes[0] == 'x');
	intern_put(fresh);
}

/* Keys whose hashes all collide: the match function alone tells them apart. */
static bool same_number(uint32_t id, const void *key, void *ctx)
{
	(void)ctx;
	return id == *(const uint32_t *)key;
}

TEST(idtable_sets_and_keyed_lookups_match_a_reference)
{
	struct idtable set = IDTABLE_INIT, keyed = IDTABLE_KEYED_INIT;
	static bool in[5000];
	size_t iter = 0, seen = 0;
	uint32_t seed = 7, id;
	int nr = 0;

	/* Random adds and removes against a plain array of flags. */
	for (int step = 0; step < 60000; step++) {
		seed = seed * 1103515245u + 12345u;
		id = (seed >> 8) % 5000;
		if ((seed >> 4) & 1) {
			idset_add(&set, id);
			nr += !in[id];
			in[id] = true;
		} else {
			CHECK(idset_remove(&set, id) == in[id]);
			nr -= in[id];
			in[id] = false;
		}
	}
	CHECK_INT(idtable_len(&set), nr);
	for (id = 0; id < 5000; id++)
		CHECK(idset_has(&set, id) == in[id]);
	while ((id = idtable_next(&set, &iter)) != IDTABLE_NONE) {
		CHECK(in[id]);
		seen++;
	}
	CHECK_INT(seen, nr);
	for (id = 0; id < 5000; id++)
		if (in[id])
			CHECK(idset_remove(&set, id));
	CHECK(set.ids == NULL);	/* an emptied table gives memory back */

	/* 300 ids under one hash: found, removed and shifted by the match. */
	for (id = 0; id < 300; id++)
		idtable_insert(&keyed, 42, id);
	for (id = 0; id < 300; id += 3)
		CHECK_INT(idtable_remove(&keyed, 42, same_number, &id, NULL), id);
	for (id = 0; id < 300; id++)
		CHECK_INT(idtable_find(&keyed, 42, same_number, &id, NULL),
			  id % 3 ? id : IDTABLE_NONE);
	CHECK_INT(idtable_len(&keyed), 200);
	idtable_release(&keyed);
}

TEST(ids_are_reused_and_indexes_stay_exact_under_churn)
{
	struct store *store = store_new();
	static int rv[400];	/* 0: absent */
	uint32_t seed = 99;

	for (int step = 0; step < 20000; step++) {
		char name[24], rvs[16], label[32];
		int i;

		seed = seed * 1103515245u + 12345u;
		i = (int)((seed >> 8) % 400);
		snprintf(name, sizeof(name), "p%d", i);
		if ((seed >> 3) % 3) {
			struct kobj *o;

			rv[i] = step + 1;
			snprintf(rvs, sizeof(rvs), "%d", rv[i]);
			snprintf(label, sizeof(label), "shard=s%d", rv[i] % 7);
			o = pod("ns", name, rvs, label, "", "");
			store_add(store, o);
			kobj_unref(o);
		} else {
			char *key = xasprintf("ns/%s", name);

			CHECK(store_delete(store, key) == (rv[i] != 0));
			free(key);
			rv[i] = 0;
		}
	}
	{
		size_t live = 0;

		for (int i = 0; i < 400; i++)
			live += rv[i] != 0;
		CHECK_INT(store_len(store), live);
	}
	for (int shard = 0; shard < 7; shard++) {
		struct kobj_list list;
		struct errbuf err;
		char value[24];
		size_t want = 0;

		for (int i = 0; i < 400; i++)
			want += rv[i] && rv[i] % 7 == shard;
		snprintf(value, sizeof(value), "shard=s%d", shard);
		CHECK_INT(store_by_index(store, INDEX_LABEL, value, &list, &err), 0);
		CHECK_INT(list.nr, want);
		for (size_t k = 0; k < list.nr; k++)
			CHECK_INT(atoi(list.v[k]->rv) % 7, shard);
		kobj_list_release(&list);
	}
	for (int i = 0; i < 400; i++) {
		char *key = xasprintf("ns/p%d", i);
		struct kobj *got = store_get(store, key);

		CHECK((got != NULL) == (rv[i] != 0));
		if (got)
			CHECK_INT(atoi(got->rv), rv[i]);
		kobj_unref(got);
		free(key);
	}
	store_free(store);
}

TEST(add_get_update_delete)
{
	struct store *store = store_new();
	struct kobj *a1 = pod("ns", "a", "1", "", "", ""), *a2 = pod("ns", "a", "2", "", "", "");
	struct kobj *got;

	store_add(store, a1);
	CHECK_INT(store_len(store), 1);
	CHECK(store_has(store, "ns/a"));
	CHECK(!store_has(store, "a"));
	got = store_get(store, "ns/a");
	CHECK(got == a1);
	CHECK_INT(atomic_load(&a1->refs), 3);	/* ours, the store's, got */
	kobj_unref(got);

	store_add(store, a2);
	CHECK_INT(store_len(store), 1);
	got = store_get(store, "ns/a");
	CHECK(got == a2);
	kobj_unref(got);
	CHECK_INT(atomic_load(&a1->refs), 1);	/* the store let go */
	CHECK_INT(store_json_bytes(store), a2->json_len);

	CHECK(store_delete(store, "ns/a"));
	CHECK(!store_delete(store, "ns/a"));
	CHECK(store_get(store, "ns/a") == NULL);
	CHECK_INT(store_len(store), 0);
	CHECK_INT(store_json_bytes(store), 0);
	CHECK_INT(atomic_load(&a2->refs), 1);
	kobj_unref(a1);
	kobj_unref(a2);
	store_free(store);
}

TEST(list_and_keys)
{
	struct store *store = store_new();
	struct kobj_list list;
	size_t total = 0;

	for (int i = 0; i < 50; i++) {
		char name[16];
		struct kobj *obj;

		snprintf(name, sizeof(name), "p%d", i);
		obj = pod("ns", name, "1", "", "", "");
		total += obj->json_len;
		store_add(store, obj);
		kobj_unref(obj);
	}
	store_list(store, &list);
	CHECK_INT(list.nr, 50);
	for (size_t i = 0; i < list.nr; i++)
		CHECK(store_has(store, list.v[i]->key));
	kobj_list_release(&list);
	CHECK_INT(store_json_bytes(store), total);
	store_free(store);
}

TEST(by_index_for_each_builtin_index)
{
	struct store *store = store_new();
	struct kobj *objs[] = {
		pod("a", "p1", "1", "app=web,tier=fe", "n1", "rs-1"),
		pod("a", "p2", "1", "app=web", "n2", "rs-1"),
		pod("b", "p3", "1", "app=db", "n1", "rs-2"),
	};
	for (size_t i = 0; i < ARRAY_SIZE(objs); i++) {
		store_add(store, objs[i]);
		kobj_unref(objs[i]);
	}
	CHECK_LOOKUP(store, INDEX_NAMESPACE, "a", "a/p1 a/p2");
	CHECK_LOOKUP(store, INDEX_NAMESPACE, "b", "b/p3");
	CHECK_LOOKUP(store, INDEX_NAMESPACE, "c", "");
	CHECK_LOOKUP(store, INDEX_LABEL, "app=web", "a/p1 a/p2");
	CHECK_LOOKUP(store, INDEX_LABEL, "tier=fe", "a/p1");
	CHECK_LOOKUP(store, INDEX_LABEL, "app", "");
	CHECK_LOOKUP(store, INDEX_NODE, "n1", "a/p1 b/p3");
	CHECK_LOOKUP(store, INDEX_OWNER, "rs-1", "a/p1 a/p2");
	CHECK_LOOKUP(store, INDEX_OWNER, "rs-2", "b/p3");

	store_free(store);
}

/* client-go's MetaNamespaceIndexFunc: a cluster-scoped object's namespace is "". */
TEST(cluster_scoped_objects_are_indexed_under_the_empty_namespace)
{
	struct store *store = store_new();
	struct errbuf err;
	const char *json = "{\"metadata\":{\"name\":\"n1\"}}";
	struct kobj *obj = kobj_from_json(json, strlen(json), 0, &err);

	CHECK(obj != NULL);
	store_add(store, obj);
	kobj_unref(obj);
	CHECK_LOOKUP(store, INDEX_NAMESPACE, "", "n1");
	CHECK(store_has(store, "n1"));
	store_delete(store, "n1");
	CHECK_LOOKUP(store, INDEX_NAMESPACE, "", "");
	store_free(store);
}

TEST(update_moves_index_values)
{
	struct store *store = store_new();
	struct kobj *v1 = pod("a", "p", "1", "app=web,keep=yes", "n1", "rs-1");
	struct kobj *v2 = pod("a", "p", "2", "app=api,keep=yes", "n2", "rs-1");

	store_add(store, v1);
	store_add(store, v2);
	CHECK_LOOKUP(store, INDEX_LABEL, "app=web", "");
	CHECK_LOOKUP(store, INDEX_LABEL, "app=api", "a/p");
	CHECK_LOOKUP(store, INDEX_LABEL, "keep=yes", "a/p");
	CHECK_LOOKUP(store, INDEX_NODE, "n1", "");
	CHECK_LOOKUP(store, INDEX_NODE, "n2", "a/p");
	CHECK_LOOKUP(store, INDEX_OWNER, "rs-1", "a/p");
	/* And back. */
	store_add(store, v1);
	CHECK_LOOKUP(store, INDEX_LABEL, "app=web", "a/p");
	CHECK_LOOKUP(store, INDEX_LABEL, "app=api", "");
	kobj_unref(v1);
	kobj_unref(v2);
	store_free(store);
}

TEST(delete_removes_index_values)
{
	struct store *store = store_new();
	struct kobj *p1 = pod("a", "p1", "1", "app=web", "n1", "rs-1");
	struct kobj *p2 = pod("a", "p2", "1", "app=web", "n1", "rs-1");

	store_add(store, p1);
	store_add(store, p2);
	CHECK(store_delete(store, "a/p1"));
	CHECK_LOOKUP(store, INDEX_NAMESPACE, "a", "a/p2");
	CHECK_LOOKUP(store, INDEX_LABEL, "app=web", "a/p2");
	CHECK_LOOKUP(store, INDEX_NODE, "n1", "a/p2");
	CHECK_LOOKUP(store, INDEX_OWNER, "rs-1", "a/p2");
	CHECK(store_delete(store, "a/p2"));
	CHECK_LOOKUP(store, INDEX_NAMESPACE, "a", "");
	CHECK_LOOKUP(store, INDEX_LABEL, "app=web", "");
	/* Re-adding after the sets were freed works from scratch. */
	store_add(store, p1);
	CHECK_LOOKUP(store, INDEX_OWNER, "rs-1", "a/p1");
	kobj_unref(p1);
	kobj_unref(p2);
	store_free(store);
}

TEST(unknown_index_is_an_error)
{
	struct store *store = store_new();
	struct kobj_list list = { (struct kobj **)1, 7 };
	struct errbuf err;

	CHECK_INT(store_by_index(store, "color", "red", &list, &err), -1);
	CHECK_STR(err.msg, "no index named 'color' (the indexes: namespace, label, node, owner)");
	CHECK(list.nr == 0 && list.v == NULL);
	store_free(store);
}

/*
 * Writers each own keys w<id>-<k> and rewrite them with a parity label
 * that matches the resourceVersion's parity; readers check that every
 * answer from an index agrees with the object it returns.
 */
enum { WRITERS = 3, READERS = 3, KEYS = 40, ROUNDS = 300 };

static struct store *shared;
static atomic_int writers_done, reader_errors;

static void *writer(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < KEYS; k++) {
			char name[32], rv[16];
			struct kobj *obj;

			snprintf(name, sizeof(name), "w%d-%d", id, k);
			snprintf(rv, sizeof(rv), "%d", r);
			if ((r + k) % 7 == 0) {
				char key[48];

				snprintf(key, sizeof(key), "ns/%s", name);
				store_delete(shared, key);
				continue;
			}
			obj = pod("ns", name, rv, r % 2 ? "parity=odd" : "parity=even",
				  r % 2 ? "odd-node" : "even-node", "");
			store_add(shared, obj);
			kobj_unref(obj);
		}
	atomic_fetch_add(&writers_done, 1);
	return NULL;
}

static void check_list(struct kobj_list *list, const char *label, int parity)
{
	for (size_t i = 0; i < list->nr; i++)
		if (!packed_contains(list->v[i]->labels, label) ||
		    atoi(list->v[i]->rv) % 2 != parity)
			atomic_fetch_add(&reader_errors, 1);
}

static void *reader(void *arg)
{
	struct errbuf err;

	while (atomic_load(&writers_done) < WRITERS) {
		struct kobj_list list;
		struct kobj *obj;

		if (store_by_index(shared, INDEX_LABEL, "parity=odd", &list, &err))
			atomic_fetch_add(&reader_errors, 1);
		check_list(&list, "parity=odd", 1);
		kobj_list_release(&list);
		store_by_index(shared, INDEX_NODE, "even-node", &list, &err);
		check_list(&list, "parity=even", 0);
		kobj_list_release(&list);
		obj = store_get(shared, "ns/w0-1");
		if (obj && strcmp(obj->key, "ns/w0-1"))
			atomic_fetch_add(&reader_errors, 1);
		kobj_unref(obj);
		store_list(shared, &list);
		kobj_list_release(&list);
	}
	return NULL;
}

TEST(concurrent_readers_and_writers_stay_consistent)
{
	pthread_t w[WRITERS], r[READERS];
	struct kobj_list all, odd, even, ns;
	struct errbuf err;
	size_t bytes = 0;

	shared = store_new();
	for (int i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, NULL);
	for (int i = 0; i < WRITERS; i++)
		pthread_create(&w[i], NULL, writer, (void *)(intptr_t)i);
	for (int i = 0; i < WRITERS; i++)
		pthread_join(w[i], NULL);
	for (int i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	CHECK_INT(atomic_load(&reader_errors), 0);

	/* At rest, the indexes partition exactly what is stored. */
	store_list(shared, &all);
	store_by_index(shared, INDEX_LABEL, "parity=odd", &odd, &err);
	store_by_index(shared, INDEX_LABEL, "parity=even", &even, &err);
	store_by_index(shared, INDEX_NAMESPACE, "ns", &ns, &err);
	CHECK_INT(odd.nr + even.nr, all.nr);
	CHECK_INT(ns.nr, all.nr);
	CHECK_INT(store_len(shared), all.nr);
	for (size_t i = 0; i < all.nr; i++)
		bytes += all.v[i]->json_len;
	CHECK_INT(store_json_bytes(shared), bytes);
	/* Last round r = ROUNDS-1 (odd): a key is there unless deleted then. */
	CHECK_INT(even.nr, 0);
	kobj_list_release(&all);
	kobj_list_release(&odd);
	kobj_list_release(&even);
	kobj_list_release(&ns);
	store_free(shared);
}

int main(void)
{
	RUN(hashmap_survives_growth_and_removal);
	RUN(intern_shares_equal_bytes_until_the_last_holder_lets_go);
	RUN(idtable_sets_and_keyed_lookups_match_a_reference);
	RUN(add_get_update_delete);
	RUN(ids_are_reused_and_indexes_stay_exact_under_churn);
	RUN(list_and_keys);
	RUN(by_index_for_each_builtin_index);
	RUN(cluster_scoped_objects_are_indexed_under_the_empty_namespace);
	RUN(update_moves_index_values);
	RUN(delete_removes_index_values);
	RUN(unknown_index_is_an_error);
	RUN(concurrent_readers_and_writers_stay_consistent);
	return unit_done();
}

/* test_kobj.c — kobj: keys, the managedFields transform, extracted fields; delta names. */
#include <json-c/json.h>

#include "informer/delta.h"
#include "informer/kobj.h"
#include "unit.h"

static struct kobj *parse(const char *json, unsigned flags)
{
	struct errbuf err;
	struct kobj *obj = kobj_from_json(json, strlen(json), flags, &err);

	if (!obj)
		printf("# kobj_from_json: %s\n", err.msg);
	return obj;
}

static const char pod_json[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
	"\"name\":\"web-1\",\"namespace\":\"shop\","
	"\"uid\":\"u-1\",\"resourceVersion\":\"42\","
	"\"labels\":{\"app\":\"web\",\"tier\":\"front/end\"},"
	"\"ownerReferences\":[{\"kind\":\"ReplicaSet\",\"name\":\"web\",\"uid\":\"rs-1\"},"
	"{\"kind\":\"Thing\",\"name\":\"t\",\"uid\":\"t-9\"}],"
	"\"managedFields\":[{\"manager\":\"kubectl\",\"operation\":\"Apply\"}],"
	"\"annotations\":{\"x\":\"1.50\"}},"
	"\"spec\":{\"nodeName\":\"node-a\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]},"
	"\"status\":{\"phase\":\"Running\",\"ratio\":0.10}}";

/* pod_json, less managedFields: order, numbers and slashes as they came. */
static const char pod_json_dropped[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
	"\"name\":\"web-1\",\"namespace\":\"shop\","
	"\"uid\":\"u-1\",\"resourceVersion\":\"42\","
	"\"labels\":{\"app\":\"web\",\"tier\":\"front/end\"},"
	"\"ownerReferences\":[{\"kind\":\"ReplicaSet\",\"name\":\"web\",\"uid\":\"rs-1\"},"
	"{\"kind\":\"Thing\",\"name\":\"t\",\"uid\":\"t-9\"}],"
	"\"annotations\":{\"x\":\"1.50\"}},"
	"\"spec\":{\"nodeName\":\"node-a\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]},"
	"\"status\":{\"phase\":\"Running\",\"ratio\":0.10}}";

TEST(key_of_namespaced_object)
{
	struct kobj *obj = parse(pod_json, 0);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->key, "shop/web-1");
	CHECK_STR(obj->name, "web-1");
	CHECK_STR(obj->ns, "shop");
	CHECK_STR(obj->kind, "Pod");
	CHECK_STR(obj->rv, "42");
	CHECK_STR(obj->uid, "u-1");
	kobj_unref(obj);
}

TEST(key_of_cluster_scoped_object)
{
	struct kobj *obj = parse("{\"metadata\":{\"name\":\"node-a\"}}", 0);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->key, "node-a");
	CHECK_STR(obj->name, "node-a");
	CHECK_STR(obj->ns, "");
	/* As a packed list, a cluster-scoped namespace is empty. */
	CHECK(obj->ns[0] == '\0' && obj->ns[1] == '\0');
	CHECK_STR(obj->kind, "");
	CHECK_STR(obj->rv, "");
	CHECK_STR(obj->uid, "");
	kobj_unref(obj);
}

TEST(make_key_matches_client_go)
{
	char *a = kobj_make_key("ns", "n"), *b = kobj_make_key("", "n"),
	     *c = kobj_make_key(NULL, "n");

	CHECK_STR(a, "ns/n");
	CHECK_STR(b, "n");
	CHECK_STR(c, "n");
	free(a);
	free(b);
	free(c);
}

TEST(drops_managed_fields_by_default)
{
	struct kobj *obj = parse(pod_json, 0);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->json, pod_json_dropped);
	CHECK_INT(obj->json_len, strlen(pod_json_dropped));
	kobj_unref(obj);
}

TEST(keeps_managed_fields_with_flag)
{
	struct kobj *obj = parse(pod_json, KOBJ_KEEP_MANAGED_FIELDS);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->json, pod_json);
	kobj_unref(obj);
}

TEST(from_tree_leaves_the_callers_tree_alone)
{
	struct json_object *tree = json_tokener_parse(pod_json), *meta, *mf;
	struct errbuf err;
	struct kobj *obj;

	CHECK(json_object_object_get_ex(tree, "metadata", &meta));
	obj = kobj_from_tree(tree, 0, &err);
	CHECK(obj != NULL);
	if (obj)
		CHECK_STR(obj->json, pod_json_dropped);
	/* Still there, and the tree still serialises as it came. */
	CHECK(json_object_object_get_ex(meta, "managedFields", &mf));
	CHECK_STR(json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PLAIN |
					JSON_C_TO_STRING_NOSLASHESCAPE), pod_json);
	kobj_unref(obj);

	obj = kobj_from_tree(tree, KOBJ_KEEP_MANAGED_FIELDS, &err);
	CHECK(obj != NULL);
	if (obj)
		CHECK_STR(obj->json, pod_json);
	kobj_unref(obj);
	/* One put frees it all: the kobj took no lasting reference. */
	CHECK_INT(json_object_put(tree), 1);
}

TEST(extracts_labels_node_and_owners)
{
	struct kobj *obj = parse(pod_json, 0);
	const char *p;
	int n = 0;

	CHECK(obj != NULL);
	if (!obj)
		return;
	for (p = obj->labels; *p; p += strlen(p) + 1)
		n++;
	CHECK_INT(n, 2);
	CHECK(packed_contains(obj->labels, "app=web"));
	CHECK(packed_contains(obj->labels, "tier=front/end"));
	CHECK(!packed_contains(obj->labels, "app"));
	CHECK_STR(obj->node, "node-a");
	CHECK(obj->node[strlen(obj->node) + 1] == '\0');
	CHECK_STR(obj->owners, "rs-1");
	CHECK(packed_contains(obj->owners, "t-9"));
	CHECK(packed_contains(obj->ns, "shop"));
	kobj_unref(obj);
}

TEST(absent_index_fields_are_empty_lists)
{
	struct kobj *obj = parse("{\"metadata\":{\"name\":\"x\",\"labels\":{}},"
				 "\"spec\":{\"nodeName\":\"\"}}", 0);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->labels, "");
	CHECK_STR(obj->node, "");
	CHECK_STR(obj->owners, "");
	CHECK(!packed_contains(obj->node, ""));
	kobj_unref(obj);
}

TEST(rejects_object_without_name)
{
	static const char *const bad[] = {
		"{\"metadata\":{\"namespace\":\"a\"}}",
		"{\"metadata\":{\"name\":\"\"}}",
		"{\"metadata\":{\"name\":7}}",
		"{\"kind\":\"Pod\"}",
		"[1,2]",
		"{\"metadata\":",
		"not json",
	};
	struct errbuf err;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err.msg[0] = '\0';
		CHECK(kobj_from_json(bad[i], strlen(bad[i]), 0, &err) == NULL);
		CHECK(err.msg[0] != '\0');
	}
	kobj_from_json(bad[0], strlen(bad[0]), 0, &err);
	CHECK_STR(err.msg, "object has no metadata.name");
}

TEST(rejects_nul_in_name_or_namespace)
{
	/* "x\u0000y" would key as "x": another object's key. */
	static const char *const bad[] = {
		"{\"metadata\":{\"name\":\"x\\u0000y\"}}",
		"{\"metadata\":{\"name\":\"x\",\"namespace\":\"\\u0000ns\"}}",
	};
	struct errbuf err;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err.msg[0] = '\0';
		CHECK(kobj_from_json(bad[i], strlen(bad[i]), 0, &err) == NULL);
		CHECK(strstr(err.msg, "NUL byte") != NULL);
	}
	/* A label value with a NUL is kept in the text, not indexed. */
	static const char ok[] = "{\"metadata\":{\"name\":\"x\",\"labels\":"
				 "{\"a\":\"b\\u0000c=d\",\"e\":\"f\"}}}";
	struct kobj *obj = kobj_from_json(ok, strlen(ok), 0, &err);
	CHECK(obj != NULL);
	if (obj) {
		CHECK_STR(obj->labels, "e=f");
		CHECK(!packed_contains(obj->labels, "c=d"));
		kobj_unref(obj);
	}
}

TEST(invalid_utf8_becomes_replacement_characters)
{
	/* As Go's encoding/json reads it: each bad byte is U+FFFD. */
	static const char text[] = "{\"metadata\":{\"name\":\"a\xff\xc3\",\"labels\":{\"k\":\"\xed\xa0\x80\"}}}";
	struct errbuf err;
	struct kobj *obj = kobj_from_json(text, strlen(text), 0, &err);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->name, "a\xef\xbf\xbd\xef\xbf\xbd");
	CHECK_STR(obj->labels, "k=\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	CHECK(strstr(obj->json, "\"a\xef\xbf\xbd\xef\xbf\xbd\"") != NULL);
	kobj_unref(obj);
}

TEST(tree_parses_the_text_back)
{
	struct kobj *obj = parse(pod_json, 0);
	struct json_object *tree = obj ? kobj_tree(obj) : NULL, *v;

	CHECK(tree != NULL);
	CHECK(json_object_object_get_ex(tree, "kind", &v));
	CHECK_STR(json_object_get_string(v), "Pod");
	json_object_put(tree);
	kobj_unref(obj);
}

TEST(references_count)
{
	struct kobj *obj = parse(pod_json, 0);

	CHECK_INT(atomic_load(&obj->refs), 1);
	CHECK(kobj_ref(obj) == obj);
	CHECK_INT(atomic_load(&obj->refs), 2);
	kobj_unref(obj);
	CHECK_INT(atomic_load(&obj->refs), 1);
	kobj_unref(obj);
	kobj_unref(NULL);
}

TEST(delta_type_names_round_trip)
{
	for (int t = 0; t < DELTA__COUNT; t++)
		CHECK_INT(delta_type_parse(delta_type_name(t)), t);
	CHECK_STR(delta_type_name(DELTA_REPLACED), "Replaced");
	CHECK_STR(delta_type_name(DELTA_SYNC), "Sync");
	CHECK_INT(delta_type_parse("Bookmark"), -1);
	CHECK_STR(delta_source_name(SOURCE_RESYNC), "resync");
	CHECK_STR(delta_source_name(SOURCE_LIST), "list");
	CHECK_STR(delta_source_name(SOURCE_WATCH), "watch");
}

TEST(deltas_own_their_references)
{
	struct kobj *obj = parse(pod_json, 0);
	struct deltas d = { 0 };

	for (int i = 0; i < 5; i++) {
		struct delta one = { .type = DELTA_UPDATED, .obj = kobj_ref(obj) };

		deltas_push(&d, &one);
	}
	CHECK_INT(d.nr, 5);
	CHECK_INT(atomic_load(&obj->refs), 6);
	CHECK(d.v[4].obj == obj && d.v[4].type == DELTA_UPDATED);
	deltas_clear(&d);
	CHECK_INT(d.nr, 0);
	CHECK_INT(atomic_load(&obj->refs), 1);
	deltas_release(&d);
	CHECK(d.v == NULL);
	kobj_unref(obj);
}

int main(void)
{
	RUN(key_of_namespaced_object);
	RUN(key_of_cluster_scoped_object);
	RUN(make_key_matches_client_go);
	RUN(drops_managed_fields_by_default);
	RUN(keeps_managed_fields_with_flag);
	RUN(from_tree_leaves_the_callers_tree_alone);
	RUN(extracts_labels_node_and_owners);
	RUN(absent_index_fields_are_empty_lists);
	RUN(rejects_object_without_name);
	RUN(rejects_nul_in_name_or_namespace);
	RUN(invalid_utf8_becomes_replacement_characters);
	RUN(tree_parses_the_text_back);
	RUN(references_count);
	RUN(delta_type_names_round_trip);
	RUN(deltas_own_their_references);
	return unit_done();
}

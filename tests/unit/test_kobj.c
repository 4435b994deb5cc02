/* test_kobj.c — kobj: keys, the managedFields transform, extracted fields; delta names. */
#include <json-c/json.h>

#include "informer/delta.h"
#include "informer/kobj.h"
#include "lib/strbuf.h"
#include "unit.h"

/* The object's text; valid until the next call. */
static const char *text(const struct kobj *obj)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	kobj_json(obj, &sb);
	return sb.buf;
}

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
	CHECK_STR(text(obj), pod_json_dropped);
	CHECK_INT(obj->json_len, strlen(pod_json_dropped));
	kobj_unref(obj);
}

TEST(keeps_managed_fields_with_flag)
{
	struct kobj *obj = parse(pod_json, KOBJ_KEEP_MANAGED_FIELDS);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(text(obj), pod_json);
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
		CHECK_STR(text(obj), pod_json_dropped);
	/* Still there, and the tree still serialises as it came. */
	CHECK(json_object_object_get_ex(meta, "managedFields", &mf));
	CHECK_STR(json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PLAIN |
					JSON_C_TO_STRING_NOSLASHESCAPE), pod_json);
	kobj_unref(obj);

	obj = kobj_from_tree(tree, KOBJ_KEEP_MANAGED_FIELDS, &err);
	CHECK(obj != NULL);
	if (obj)
		CHECK_STR(text(obj), pod_json);
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
	CHECK_INT(delta_type_parse("Bookmark"), DELTA_BOOKMARK);
	CHECK_INT(delta_type_parse("Event"), -1);
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
	deltas_release(&d);
	CHECK_INT(d.nr, 0);
	CHECK(d.v == NULL);
	CHECK_INT(atomic_load(&obj->refs), 1);
	kobj_unref(obj);
}


/*
 * What the former code made of a text: json-c's tree, less
 * metadata.managedFields, written plain.  The scanner must agree.
 */
static char *json_c_round_trip(const char *text)
{
	struct json_tokener *tok = json_tokener_new_ex(1024);
	struct json_object *tree = json_tokener_parse_ex(tok, text, (int)strlen(text)), *meta;
	char *out;

	json_tokener_free(tok);
	if (!tree)
		return NULL;
	if (json_object_object_get_ex(tree, "metadata", &meta))
		json_object_object_del(meta, "managedFields");
	out = strdup(json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PLAIN |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(tree);
	return out;
}

TEST(text_is_what_json_c_wrote)
{
	static const char *const texts[] = {
		/* managedFields first, last, alone, between */
		"{\"metadata\":{\"managedFields\":[{\"a\":{}}],\"name\":\"a\"}}",
		"{\"metadata\":{\"name\":\"a\",\"managedFields\":[]}}",
		"{\"metadata\":{\"managedFields\":{\"x\":[1,2]},\"name\":\"a\",\"managedFields\":1}}",
		"{\"kind\":\"X\",\"metadata\":{\"uid\":\"u\",\"managedFields\":[{\"f:a\":{\".\":{}}}],\"name\":\"a\"},\"spec\":{}}",
		/* whitespace anywhere between tokens */
		" {\n \"metadata\" : { \"name\" :\t\"a\" , \"managedFields\" : [ { } ] ,\r\n"
		"  \"labels\" : { \"x\" : \"y\" } } , \"list\" : [ 1 , [ ] , { } , null ] } \n",
		"{ \"metadata\":{\"managedFields\" : [ ] , \"name\":\"a\" } }",
		/* escapes as json-c rewrites them */
		"{\"metadata\":{\"name\":\"a\"},\"s\":\"caf\\u00e9 \\/ \\\" \\\\ \\n\\t\\r\\b\\f \\u0001\\u001F \\u0041\"}",
		"{\"metadata\":{\"name\":\"a\"},\"pair\":\"\\ud83d\\ude00\",\"high\":\"\\ud83dx\","
		"\"low\":\"\\ude00\",\"high2\":\"\\ud83d\\n\",\"highs\":\"\\ud83d\\ud83d\\ude00\",\"end\":\"\\ud83d\"}",
		"{\"metadata\":{\"name\":\"a\"},\"k\\u0065y\":1,\"nul\":\"a\\u0000b\"}",
		/* UTF-8 passes through */
		"{\"metadata\":{\"name\":\"\xc3\xa9t\xc3\xa9\"},\"emoji\":\"\xf0\x9f\x98\x80\"}",
		/* numbers */
		"{\"metadata\":{\"name\":\"a\"},\"n\":[0,-1,1.0,1.50,1e5,-2.5E-3,123456789012,0.10]}",
		"{\"metadata\":{\"name\":\"a\"},\"t\":true,\"f\":false,\"z\":null,\"e\":{},\"a\":[]}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		char *want = json_c_round_trip(texts[i]);
		struct kobj *obj = parse(texts[i], 0);

		CHECK(want != NULL);
		CHECK(obj != NULL);
		if (want && obj) {
			CHECK_STR(text(obj), want);
			CHECK_INT(obj->json_len, strlen(want));
		}
		if (unit_current_failed) {
			printf("# text %zu: %s\n", i, texts[i]);
			free(want);
			kobj_unref(obj);
			break;
		}
		free(want);
		kobj_unref(obj);
	}
}

/* Go's encoding/json reads bytes that are not UTF-8 as U+FFFD; so does kinf. */
TEST(bytes_that_are_not_utf8_become_u_fffd)
{
	struct kobj *obj = parse("{\"metadata\":{\"name\":\"a\xff" "b\",\"namespace\":\"n\"},"
				 "\"bad\":\"\xc3\x28 \xed\xa0\x80\",\"ok\":\"\xc3\xa9\"}", 0);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->name, "a\xef\xbf\xbd" "b");
	CHECK_STR(obj->key, "n/a\xef\xbf\xbd" "b");
	CHECK_STR(text(obj), "{\"metadata\":{\"name\":\"a\xef\xbf\xbd" "b\",\"namespace\":\"n\"},"
		  "\"bad\":\"\xef\xbf\xbd( \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\",\"ok\":\"\xc3\xa9\"}");
	kobj_unref(obj);
}

TEST(escaped_keys_are_the_keys_they_spell)
{
	struct kobj *obj = parse("{\"m\\u0065tadata\":{\"n\\u0061me\":\"a\\/b\","
				 "\"namespace\":\"n\\u00e9\",\"labels\":{\"k\\\"\":\"v\\\\\"}}}", 0);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->name, "a/b");
	CHECK_STR(obj->ns, "n\xc3\xa9");
	CHECK_STR(obj->key, "n\xc3\xa9/a/b");
	CHECK_STR(obj->labels, "k\"=v\\");
	kobj_unref(obj);
}

TEST(duplicate_members_the_last_wins)
{
	struct kobj *obj = parse("{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\"},"
				 "\"name\":\"b\",\"labels\":{\"y\":\"2\"}},"
				 "\"spec\":{\"nodeName\":\"n1\",\"nodeName\":\"n2\"}}", 0);
	struct json_object *tree, *meta, *v;

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->name, "b");
	CHECK_STR(obj->labels, "y=2");
	CHECK(obj->labels[4] == '\0');
	CHECK_STR(obj->node, "n2");
	/* Kept in the text; a tree of it agrees with the fields. */
	CHECK(strstr(text(obj), "\"name\":\"a\"") != NULL);
	tree = kobj_tree(obj);
	CHECK(json_object_object_get_ex(tree, "metadata", &meta) &&
	      json_object_object_get_ex(meta, "name", &v));
	CHECK_STR(json_object_get_string(v), "b");
	json_object_put(tree);
	kobj_unref(obj);

	/* A second metadata replaces the first altogether. */
	obj = parse("{\"metadata\":{\"name\":\"a\",\"namespace\":\"n\"},\"metadata\":{\"name\":\"b\"}}", 0);
	CHECK(obj != NULL);
	if (obj)
		CHECK_STR(obj->key, "b");
	kobj_unref(obj);
}

/* An integer beyond int64 is Go's float64, in the text and in the tree: never saturated. */
TEST(integers_beyond_int64_are_floats_as_go_reads_them)
{
	static const struct {
		const char *in, *text;
		double value;	/* 0: an int64 */
	} cases[] = {
		{ "123456789012345678901234567890", "1.2345678901234568e+29", 1.2345678901234568e+29 },
		{ "100000000000000000000", "1e+20", 1e20 },
		{ "9223372036854775808", "9.223372036854776e+18", 9223372036854775808.0 },
		{ "-9223372036854775809", "-9.223372036854776e+18", -9223372036854775808.0 },
		{ "9223372036854775807", "9223372036854775807", 0 },
		{ "-9223372036854775808", "-9223372036854775808", 0 },
		{ "1000000000000000000", "1000000000000000000", 0 },
	};
	struct errbuf err;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *in = xasprintf("{\"metadata\":{\"name\":\"a\"},\"x\":[%s , %s]}",
				     cases[i].in, cases[i].in);
		char *want = xasprintf("\"x\":[%s,%s]}", cases[i].text, cases[i].text);
		struct kobj *obj = kobj_from_json(in, strlen(in), 0, &err);
		CHECK(obj != NULL);
		if (!obj)
			continue;
		CHECK(strstr(text(obj), want) != NULL);
		struct json_object *tree = kobj_tree(obj), *x;
		CHECK(json_object_object_get_ex(tree, "x", &x));
		struct json_object *v = json_object_array_get_idx(x, 1);
		if (cases[i].value) {
			CHECK(json_object_is_type(v, json_type_double));
			CHECK(json_object_get_double(v) == cases[i].value);
		} else {
			CHECK(json_object_is_type(v, json_type_int));
		}
		json_object_put(tree);
		kobj_unref(obj);
		free(in);
		free(want);
	}
}

/* Go's decoder refuses a number beyond float64 in an object; under it, a float. */
TEST(numbers_beyond_float64_are_refused_as_go_refuses_them)
{
	static const char *const refused[] = { "1e400", "-2E+309", "1e0000000309", "0.1e310" };
	static const char *const taken[] = { "1e308", "1.7976931348623157e308", "1e-400", "0e999999",
					     "123456789012345678901234567890" };
	char text[1024];
	struct errbuf err;
	struct kobj_event ev;

	for (size_t i = 0; i < ARRAY_SIZE(refused) + ARRAY_SIZE(taken); i++) {
		bool bad = i < ARRAY_SIZE(refused);
		const char *n = bad ? refused[i] : taken[i - ARRAY_SIZE(refused)];
		snprintf(text, sizeof(text), "{\"metadata\":{\"name\":\"a\"},\"x\":[1,{\"y\":%s}]}", n);
		err.msg[0] = '\0';
		struct kobj *obj = kobj_from_json(text, strlen(text), 0, &err);
		CHECK((obj == NULL) == bad);
		CHECK(!bad || strstr(err.msg, "number out of range"));
		kobj_unref(obj);
	}
	/* 309 digits are no float64: 310 are, with an exponent of 0 or none */
	memset(text, '9', 400);
	text[400] = '\0';
	char *obj_text = xasprintf("{\"metadata\":{\"name\":\"a\"},\"x\":%.*s}", 309, text);
	err.msg[0] = '\0';
	CHECK(kobj_from_json(obj_text, strlen(obj_text), 0, &err) == NULL);
	free(obj_text);
	obj_text = xasprintf("{\"metadata\":{\"name\":\"a\"},\"x\":%.*s}", 308, text);
	struct kobj *obj = kobj_from_json(obj_text, strlen(obj_text), 0, &err);
	CHECK(obj != NULL);
	kobj_unref(obj);
	free(obj_text);
	/* An event's own members are skipped by Go's decoder, not converted */
	const char *line = "{\"type\":\"ADDED\",\"x\":1e999,\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}}}";
	CHECK(kobj_from_event(line, strlen(line), 0, &ev, &err) == 0);
	kobj_event_release(&ev);
	line = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"},\"x\":1e999}}";
	err.msg[0] = '\0';
	CHECK(kobj_from_event(line, strlen(line), 0, &ev, &err) < 0);
	CHECK(strstr(err.msg, "number out of range") != NULL);
	kobj_event_release(&ev);
}

TEST(odd_field_types)
{
	struct kobj *obj = parse("{\"kind\":7,\"metadata\":{\"name\":\"a\",\"uid\":null,"
				 "\"labels\":{\"n\":5,\"z\":null,\"o\":{\"a\":[1]}},"
				 "\"ownerReferences\":[1,{\"uid\":\"\"},{\"uid\":\"o1\"},{\"uid\":2},{}]},"
				 "\"spec\":{\"nodeName\":[\"x\"]}}", 0);

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_STR(obj->kind, "");
	CHECK(packed_contains(obj->labels, "n=5"));
	CHECK(packed_contains(obj->labels, "z="));
	CHECK(packed_contains(obj->labels, "o={\"a\":[1]}"));
	CHECK_STR(obj->owners, "o1");
	CHECK(obj->owners[3] == '\0');
	CHECK_STR(obj->node, "");
	kobj_unref(obj);
}

/* A text nested n deep: {"metadata":{"name":"a"},"x":[[[...]]]} */
static char *nested(int n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_adds(&sb, "{\"metadata\":{\"name\":\"a\"},\"x\":");
	for (int i = 0; i < n; i++)
		strbuf_addch(&sb, '[');
	for (int i = 0; i < n; i++)
		strbuf_addch(&sb, ']');
	strbuf_addch(&sb, '}');
	return strbuf_detach(&sb, NULL);
}

TEST(malformed_text_is_an_error)
{
	static const char *const bad[] = {
		"", "   ", "{", "{\"metadata\":{\"name\":\"a\"}", "{\"metadata\":{\"name\":\"a\"}}}",
		"{\"metadata\":{\"name\":\"a\"}} x", "{\"metadata\":{\"name\":\"a\",}}",
		"{\"metadata\":{\"name\":\"a\"},}", "{,\"metadata\":{\"name\":\"a\"}}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":[1,]}", "{\"metadata\":{\"name\":\"a\"},\"x\":[1 2]}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":01}", "{\"metadata\":{\"name\":\"a\"},\"x\":1.}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":-}", "{\"metadata\":{\"name\":\"a\"},\"x\":1e}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":+1}", "{\"metadata\":{\"name\":\"a\"},\"x\":.5}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":tru}", "{\"metadata\":{\"name\":\"a\"},\"x\":True}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":nul}", "{\"metadata\":{\"name\":\"a\"},\"x\":'s'}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":\"\\x\"}", "{\"metadata\":{\"name\":\"a\"},\"x\":\"\\u12\"}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":\"\\u12g4\"}", "{\"metadata\":{\"name\":\"a\"},\"x\":\"a\nb\"}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":\"abc", "{\"metadata\":{\"name\":\"a\"},\"x\":\"abc\\",
		"{\"metadata\":{\"name\":\"a\"},\"x\" 1}", "{\"metadata\":{\"name\":\"a\"},x:1}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":[}", "{\"metadata\":{\"name\":\"a\"},\"x\":{]}",
		"{\"metadata\":{\"name\":\"a\"},\"x\":/*c*/1}", "{\"metadata\":{\"name\":\"a\",\"managedFields\":[}}",
		"{\"metadata\":{\"name\":\"a\",\"managedFields\":\"\\q\"}}", "[{\"metadata\":{\"name\":\"a\"}}]",
		"\"str\"", "42",
	};
	struct errbuf err;
	char *deep;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err.msg[0] = '\0';
		struct kobj *obj = kobj_from_json(bad[i], strlen(bad[i]), 0, &err);
		CHECK(obj == NULL);
		CHECK(err.msg[0] != '\0');
		kobj_unref(obj);
		if (unit_current_failed) {
			printf("# text %zu: %s\n", i, bad[i]);
			break;
		}
	}
	/* A NUL inside the text is a malformed byte, not an end. */
	CHECK(kobj_from_json("{\"metadata\":{\"name\":\"a\"}}\0x", 26, 0, &err) == NULL);
	CHECK(kobj_from_json("{\"metadata\":{\"name\":\"a\0\"}}", 26, 0, &err) == NULL);

	/* Depth: 1024 levels are fine, deeper is an error (no crash). */
	deep = nested(1022);
	struct kobj *obj = parse(deep, 0);
	CHECK(obj != NULL);
	kobj_unref(obj);
	free(deep);
	deep = nested(100000);
	CHECK(kobj_from_json(deep, strlen(deep), 0, &err) == NULL);
	CHECK(strstr(err.msg, "nested too deeply") != NULL);
	free(deep);
}

TEST(every_prefix_of_a_pod_is_an_error)
{
	struct errbuf err;
	size_t len = strlen(pod_json);

	for (size_t n = 0; n < len; n++) {
		struct kobj *obj = kobj_from_json(pod_json, n, 0, &err);
		CHECK(obj == NULL);
		kobj_unref(obj);
		if (unit_current_failed) {
			printf("# prefix of %zu bytes\n", n);
			break;
		}
	}
}

TEST(list_items_get_their_type)
{
	static const struct kobj_type type = { "apps/v1", "Deployment" };
	struct errbuf err;
	const char *plain = "{\"metadata\":{\"name\":\"a\",\"managedFields\":[]},\"spec\":{}}";
	const char *with_api = "{\"metadata\":{\"name\":\"a\"},\"apiVersion\":\"x/v2\",\"spec\":{}}";
	const char *api_first = "{\"apiVersion\":\"x/v2\",\"metadata\":{\"name\":\"a\"}}";
	const char *typed = "{\"kind\":\"Other\",\"metadata\":{\"name\":\"a\"}}";
	struct kobj *obj;

	obj = kobj_from_list_item(plain, strlen(plain), &type, 0, &err);
	CHECK(obj != NULL);
	if (obj) {
		CHECK_STR(text(obj), "{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\","
			  "\"metadata\":{\"name\":\"a\"},\"spec\":{}}");
		CHECK_STR(obj->kind, "Deployment");
	}
	kobj_unref(obj);
	obj = kobj_from_list_item(with_api, strlen(with_api), &type, 0, &err);
	CHECK(obj != NULL);
	if (obj)
		CHECK_STR(text(obj), "{\"kind\":\"Deployment\",\"apiVersion\":\"x/v2\","
			  "\"metadata\":{\"name\":\"a\"},\"spec\":{}}");
	kobj_unref(obj);
	obj = kobj_from_list_item(api_first, strlen(api_first), &type, 0, &err);
	CHECK(obj != NULL);
	if (obj)
		CHECK_STR(text(obj), "{\"kind\":\"Deployment\",\"apiVersion\":\"x/v2\","
			  "\"metadata\":{\"name\":\"a\"}}");
	kobj_unref(obj);
	obj = kobj_from_list_item(typed, strlen(typed), &type, 0, &err);
	CHECK(obj != NULL);
	if (obj) {
		CHECK_STR(text(obj), typed);
		CHECK_STR(obj->kind, "Other");
	}
	kobj_unref(obj);
}

TEST(watch_events_in_one_pass)
{
	struct kobj_event ev;
	struct errbuf err;
	struct json_object *v;
	char line[512];

	snprintf(line, sizeof(line), "{\"type\":\"MODIFIED\",\"object\":%s}", pod_json);
	CHECK(kobj_from_event(line, strlen(line), 0, &ev, &err) == 0);
	CHECK(ev.type == KOBJ_EVENT_MODIFIED);
	CHECK(ev.obj != NULL);
	if (ev.obj)
		CHECK_STR(text(ev.obj), pod_json_dropped);
	kobj_event_release(&ev);

	/* The object may come first; whitespace is fine. */
	snprintf(line, sizeof(line), " { \"object\" : %s , \"type\" : \"DELETED\" } ", pod_json);
	CHECK(kobj_from_event(line, strlen(line), 0, &ev, &err) == 0);
	CHECK(ev.type == KOBJ_EVENT_DELETED);
	CHECK(ev.obj != NULL && !strcmp(ev.obj->key, "shop/web-1"));
	kobj_event_release(&ev);

	const char *bookmark = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":"
			       "{\"resourceVersion\":\"77\"},\"spec\":{\"containers\":null}}}";
	CHECK(kobj_from_event(bookmark, strlen(bookmark), 0, &ev, &err) == 0);
	CHECK(ev.type == KOBJ_EVENT_BOOKMARK && ev.obj == NULL && ev.tree != NULL);
	CHECK(json_object_object_get_ex(ev.tree, "kind", &v));
	kobj_event_release(&ev);

	const char *noname = "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{}}}";
	CHECK(kobj_from_event(noname, strlen(noname), 0, &ev, &err) == 0);
	CHECK(ev.obj == NULL);
	CHECK_STR(ev.obj_err.msg, "object has no metadata.name");
	kobj_event_release(&ev);

	const char *unknown = "{\"type\":null,\"object\":{}}";
	CHECK(kobj_from_event(unknown, strlen(unknown), 0, &ev, &err) == 0);
	CHECK(ev.type == KOBJ_EVENT_UNKNOWN);
	CHECK_STR(ev.type_name, "null");
	kobj_event_release(&ev);

	static const char *const bad[] = {
		"{\"type\":\"ADDED\"}", "{\"object\":{}}", "{\"type\":\"ADDED\",\"object\":[]}",
		"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}", "[]", "",
		"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}x",
		/* no kind, or none that is a string: client-go cannot decode them */
		"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}",
		"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"\",\"metadata\":{\"name\":\"a\"}}}",
		"{\"type\":\"DELETED\",\"object\":{\"kind\":5,\"metadata\":{\"name\":\"a\"}}}",
		"{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"7\"}}}",
		"{\"type\":\"ERROR\",\"object\":{\"code\":410,\"reason\":\"Expired\"}}",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK(kobj_from_event(bad[i], strlen(bad[i]), 0, &ev, &err) < 0);
		CHECK(ev.obj == NULL && ev.tree == NULL);
		kobj_event_release(&ev);
	}
}

static int derived;

static char *derive_key_upper(const struct kobj *obj, void *ctx)
{
	char *s = strdup(obj->key);

	derived++;
	for (char *c = s; *c; c++)
		*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
	return s;
}

TEST(memo_is_derived_once_per_object)
{
	struct kobj *obj = parse(pod_json, 0);
	const char *a, *b;

	derived = 0;
	a = kobj_memo(obj, derive_key_upper, NULL);
	b = kobj_memo(obj, derive_key_upper, NULL);
	CHECK_STR(a, "SHOP/WEB-1");
	CHECK(a == b);
	CHECK_INT(derived, 1);
	kobj_unref(obj);	/* frees the memo too (ASan would tell) */
}

/* Objects with the same namespace, kind, labels and owners share them. */
TEST(index_strings_are_shared_between_objects)
{
#define POD(name, app, node)                                               \
	"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ns\","   \
	"\"labels\":{\"app\":\"" app "\"},\"ownerReferences\":[{\"uid\":\"rs-1\"}]}," \
	"\"spec\":{\"nodeName\":\"" node "\"}}"
	const char *a = POD("a", "web", "n1"), *b = POD("b", "web", "n2"),
		   *c = POD("c", "db", "n1");
	struct kobj *x, *y, *z;
#undef POD

	x = parse(a, 0);
	y = parse(b, 0);
	z = parse(c, 0);
	CHECK(x && y && z);
	if (!x || !y || !z)
		return;
	CHECK(x->labels == y->labels && x->ns == y->ns && x->owners == y->owners);
	CHECK(x->labels != z->labels);
	CHECK_STR(z->labels, "app=db");
	CHECK_STR(y->node, "n2");
	kobj_unref(x);
	/* y still holds them: unchanged after x is gone. */
	CHECK_STR(y->labels, "app=web");
	CHECK_STR(y->ns, "ns");
	CHECK_STR(y->owners, "rs-1");
	CHECK_STR(y->kind, "Pod");
	kobj_unref(y);
	kobj_unref(z);
	/* Made again after every holder is gone: equal values, a new copy. */
	x = parse(a, 0);
	CHECK(x && !strcmp(x->labels, "app=web"));
	kobj_unref(x);
}

int main(void)
{
	RUN(index_strings_are_shared_between_objects);
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
	RUN(tree_parses_the_text_back);
	RUN(references_count);
	RUN(delta_type_names_round_trip);
	RUN(deltas_own_their_references);
	RUN(text_is_what_json_c_wrote);
	RUN(bytes_that_are_not_utf8_become_u_fffd);
	RUN(escaped_keys_are_the_keys_they_spell);
	RUN(duplicate_members_the_last_wins);
	RUN(numbers_beyond_float64_are_refused_as_go_refuses_them);
	RUN(integers_beyond_int64_are_floats_as_go_reads_them);
	RUN(odd_field_types);
	RUN(malformed_text_is_an_error);
	RUN(every_prefix_of_a_pod_is_an_error);
	RUN(list_items_get_their_type);
	RUN(watch_events_in_one_pass);
	RUN(memo_is_derived_once_per_object);
	return unit_done();
}

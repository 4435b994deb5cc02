/* test_diff.c — RFC 6902 patches that apply back, escaping, the human diff and its noise. */
#include <json-c/json.h>

#include "output/diff.h"
#include "lib/strbuf.h"
#include "unit.h"

#define FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static struct json_object *tree(const char *json)
{
	struct json_object *t = json_tokener_parse(json);

	if (!t && strcmp(json, "null"))
		printf("# cannot parse: %s\n", json);
	return t;
}

/* The patch from a to b as compact text (a static buffer). */
static const char *patch_text(const char *a, const char *b)
{
	static char buf[2048];
	struct json_object *ta = tree(a), *tb = tree(b);
	struct json_object *patch = diff_json_patch(ta, tb);

	snprintf(buf, sizeof(buf), "%s", json_object_to_json_string_ext(patch, FLAGS));
	json_object_put(patch);
	json_object_put(ta);
	json_object_put(tb);
	return buf;
}

/* ---- a small RFC 6902 applier, to check that patches apply back --------- */

/* Splits "/a/b~1c" into unescaped tokens; returns how many. */
static size_t split_pointer(const char *path, char tokens[][128], size_t max)
{
	size_t n = 0;

	while (*path == '/' && n < max) {
		size_t len = 0;
		for (path++; *path && *path != '/'; path++) {
			char c = *path;
			if (c == '~') {
				path++;
				c = *path == '1' ? '/' : '~';
			}
			if (len < 127)
				tokens[n][len++] = c;
		}
		tokens[n++][len] = '\0';
	}
	return n;
}

static struct json_object *child(struct json_object *v, const char *token)
{
	struct json_object *c = NULL;

	if (json_object_is_type(v, json_type_array))
		return json_object_array_get_idx(v, (size_t)atoi(token));
	json_object_object_get_ex(v, token, &c);
	return c;
}

/* Applies one op to *doc; returns 0 or -1. */
static int apply_op(struct json_object **doc, struct json_object *op)
{
	struct json_object *o, *p, *value = NULL, *parent = *doc;
	char tokens[32][128];
	size_t n;

	if (!json_object_object_get_ex(op, "op", &o) || !json_object_object_get_ex(op, "path", &p))
		return -1;
	json_object_object_get_ex(op, "value", &value);
	n = split_pointer(json_object_get_string(p), tokens, 32);
	if (n == 0) {		/* the whole document */
		json_object_put(*doc);
		*doc = json_object_get(value);
		return 0;
	}
	for (size_t i = 0; i + 1 < n; i++)
		if (!(parent = child(parent, tokens[i])))
			return -1;

	const char *what = json_object_get_string(o), *last = tokens[n - 1];
	if (json_object_is_type(parent, json_type_array)) {
		size_t idx = (size_t)atoi(last), len = json_object_array_length(parent);
		if (!strcmp(what, "remove"))
			return idx < len ? json_object_array_del_idx(parent, idx, 1) : -1;
		if (!strcmp(what, "add") && idx == len)
			return json_object_array_add(parent, json_object_get(value));
		if (!strcmp(what, "replace") && idx < len)
			return json_object_array_put_idx(parent, idx, json_object_get(value));
		return -1;
	}
	if (!json_object_is_type(parent, json_type_object))
		return -1;
	if (!strcmp(what, "remove")) {
		if (!json_object_object_get_ex(parent, last, NULL))
			return -1;
		json_object_object_del(parent, last);
		return 0;
	}
	if (!strcmp(what, "replace") && !json_object_object_get_ex(parent, last, NULL))
		return -1;
	return json_object_object_add(parent, last, json_object_get(value));
}

/* True when the patch from a to b, applied to a, gives b. */
static bool applies_back(const char *a, const char *b)
{
	struct json_object *ta = tree(a), *tb = tree(b), *doc = NULL;
	struct json_object *patch = diff_json_patch(ta, tb);
	bool ok = true;

	json_object_deep_copy(ta, &doc, NULL);
	for (size_t i = 0; ok && i < json_object_array_length(patch); i++)
		ok = apply_op(&doc, json_object_array_get_idx(patch, i)) == 0;
	/* the patch leaves metadata.resourceVersion out on purpose */
	struct json_object *ma, *mb, *rv;
	if (ok && json_object_object_get_ex(doc, "metadata", &ma) &&
	    json_object_object_get_ex(tb, "metadata", &mb) &&
	    json_object_object_get_ex(mb, "resourceVersion", &rv))
		json_object_object_add(ma, "resourceVersion", json_object_get(rv));
	if (ok && !json_object_equal(doc, tb)) {
		printf("# applied: %s\n", json_object_to_json_string_ext(doc, FLAGS));
		ok = false;
	}
	json_object_put(doc);
	json_object_put(patch);
	json_object_put(ta);
	json_object_put(tb);
	return ok;
}

/* ---- JSON Patch --------------------------------------------------------- */

TEST(patch_of_equal_objects_is_empty)
{
	CHECK_STR(patch_text("{\"a\":{\"b\":[1,2]}}", "{\"a\":{\"b\":[1,2]}}"), "[]");
}

TEST(patch_nested_add_remove_replace)
{
	const char *a = "{\"spec\":{\"replicas\":2,\"paused\":false},"
			"\"metadata\":{\"labels\":{\"app\":\"web\",\"old\":\"x\"}}}";
	const char *b = "{\"spec\":{\"replicas\":3,\"paused\":false},"
			"\"metadata\":{\"labels\":{\"app\":\"web\",\"new\":\"y\"},\"annotations\":{\"k\":\"v\"}}}";

	CHECK_STR(patch_text(a, b),
		  "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":3,\"old\":2},"
		  "{\"op\":\"remove\",\"path\":\"/metadata/labels/old\",\"old\":\"x\"},"
		  "{\"op\":\"add\",\"path\":\"/metadata/labels/new\",\"value\":\"y\"},"
		  "{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{\"k\":\"v\"}}]");
	CHECK(applies_back(a, b));
}

TEST(patch_escapes_tilde_and_slash)
{
	const char *a = "{\"metadata\":{\"labels\":{}}}";
	const char *b = "{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"web\",\"a~b\":\"1\"}}}";

	CHECK_STR(patch_text(a, b),
		  "[{\"op\":\"add\",\"path\":\"/metadata/labels/app.kubernetes.io~1name\",\"value\":\"web\"},"
		  "{\"op\":\"add\",\"path\":\"/metadata/labels/a~0b\",\"value\":\"1\"}]");
	CHECK(applies_back(a, b));
	/* "~1" must not read back as "/" then be escaped twice. */
	CHECK_STR(patch_text("{}", "{\"~1/\":1}"),
		  "[{\"op\":\"add\",\"path\":\"/~01~1\",\"value\":1}]");
}

TEST(patch_arrays_element_wise_when_same_length)
{
	const char *a = "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1.24\"},"
			"{\"name\":\"b\",\"image\":\"busybox\"}]}}";
	const char *b = "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:1.25\"},"
			"{\"name\":\"b\",\"image\":\"busybox\"}]}}";

	CHECK_STR(patch_text(a, b),
		  "[{\"op\":\"replace\",\"path\":\"/spec/containers/0/image\",\"value\":\"nginx:1.25\",\"old\":\"nginx:1.24\"}]");
	CHECK(applies_back(a, b));
}

TEST(patch_arrays_grow_and_shrink_at_the_end)
{
	CHECK_STR(patch_text("[1,2,3]", "[1,2,3,4,5]"),
		  "[{\"op\":\"add\",\"path\":\"/3\",\"value\":4},"
		  "{\"op\":\"add\",\"path\":\"/4\",\"value\":5}]");
	CHECK(applies_back("[1,2,3]", "[1,2,3,4,5]"));
	/* Removed from the end first, so each index is right in turn. */
	CHECK_STR(patch_text("{\"a\":[1,2,3,4]}", "{\"a\":[1,2]}"),
		  "[{\"op\":\"remove\",\"path\":\"/a/3\",\"old\":4},{\"op\":\"remove\",\"path\":\"/a/2\",\"old\":3}]");
	CHECK(applies_back("{\"a\":[1,2,3,4]}", "{\"a\":[1,2]}"));
	/* A shift at the front changes everything: one replace says it. */
	CHECK_STR(patch_text("{\"a\":[1,2,3]}", "{\"a\":[0,1,2,3]}"),
		  "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":[0,1,2,3],\"old\":[1,2,3]}]");
	CHECK(applies_back("{\"a\":[1,2,3]}", "{\"a\":[0,1,2,3]}"));
}

TEST(patch_type_changes_nulls_and_the_root)
{
	CHECK_STR(patch_text("{\"a\":{\"b\":1}}", "{\"a\":[1]}"),
		  "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":[1],\"old\":{\"b\":1}}]");
	CHECK_STR(patch_text("{\"a\":1}", "{\"a\":null}"),
		  "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":null,\"old\":1}]");
	CHECK(applies_back("{\"a\":1}", "{\"a\":null}"));
	CHECK(applies_back("{\"a\":null}", "{\"a\":{\"x\":1}}"));
	CHECK_STR(patch_text("1", "2"), "[{\"op\":\"replace\",\"path\":\"\",\"value\":2,\"old\":1}]");
	CHECK(applies_back("{\"a\":1}", "[1]"));
}

TEST(patch_of_a_realistic_update_applies_back)
{
	const char *a =
		"{\"metadata\":{\"name\":\"web-1\",\"resourceVersion\":\"42\",\"labels\":{\"app\":\"web\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80}]}]},"
		"\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}";
	const char *b =
		"{\"metadata\":{\"name\":\"web-1\",\"resourceVersion\":\"43\",\"labels\":{\"app\":\"web\",\"v\":\"2\"},"
		"\"deletionTimestamp\":\"2024-05-01T12:00:00Z\"},"
		"\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80},{\"containerPort\":443}]}]},"
		"\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.1\","
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"PodScheduled\",\"status\":\"True\"}]}}";

	CHECK(applies_back(a, b));
	CHECK(applies_back(b, a));
}

/* ---- the human form ----------------------------------------------------- */

static const char *human(const char *a, const char *b, size_t *lines)
{
	static char buf[4096];
	struct json_object *ta = tree(a), *tb = tree(b);
	struct strbuf sb = STRBUF_INIT;

	*lines = diff_human(ta, tb, "  ", 0, &sb);
	snprintf(buf, sizeof(buf), "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	json_object_put(ta);
	json_object_put(tb);
	return buf;
}

TEST(human_changed_added_removed_leaves)
{
	size_t n;

	CHECK_STR(human("{\"spec\":{\"replicas\":2},\"metadata\":{\"labels\":{\"tier\":\"front\"}}}",
			"{\"spec\":{\"replicas\":3},\"metadata\":{\"labels\":{\"app\":\"web\"}}}", &n),
		  "  spec.replicas: 2 → 3\n"
		  "  metadata.labels.tier: - front\n"
		  "  metadata.labels.app: + web\n");
	CHECK_INT(n, 3);
}

TEST(human_walks_added_subtrees_to_their_leaves)
{
	size_t n;

	CHECK_STR(human("{\"metadata\":{}}",
			"{\"metadata\":{\"labels\":{\"app\":\"web\",\"v\":\"2\"},\"finalizers\":[\"x\"]}}", &n),
		  "  metadata.labels.app: + web\n"
		  "  metadata.labels.v: + 2\n"
		  "  metadata.finalizers[0]: + x\n");
	CHECK_INT(n, 3);
	/* An empty object added is a leaf of its own. */
	CHECK_STR(human("{}", "{\"status\":{}}", &n), "  status: + {}\n");
}

TEST(human_paths_index_arrays_and_quote_odd_keys)
{
	size_t n;

	CHECK_STR(human("{\"spec\":{\"containers\":[{\"image\":\"nginx:1.24\"}]},"
			"\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"a\"}}}",
			"{\"spec\":{\"containers\":[{\"image\":\"nginx:1.25\"},{\"image\":\"sidecar\"}]},"
			"\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"b\"}}}", &n),
		  "  spec.containers[0].image: nginx:1.24 → nginx:1.25\n"
		  "  spec.containers[1].image: + sidecar\n"
		  "  metadata.labels[\"app.kubernetes.io/name\"]: a → b\n");
}

TEST(human_shows_values_so_their_type_is_plain)
{
	size_t n;

	CHECK_STR(human("{\"a\":\"\",\"b\":true,\"c\":null,\"d\":\"x\"}",
			"{\"a\":\"set\",\"b\":false,\"c\":1,\"d\":\" padded \"}", &n),
		  "  a: \"\" → set\n"
		  "  b: true → false\n"
		  "  c: null → 1\n"
		  "  d: x → \" padded \"\n");
	CHECK_INT(n, 4);
}

TEST(human_cuts_long_values)
{
	char a[300], b[300];
	size_t n;
	const char *out;

	snprintf(a, sizeof(a), "{\"m\":\"short\"}");
	snprintf(b, sizeof(b), "{\"m\":\"%0120d\"}", 7);
	out = human(a, b, &n);
	CHECK(strstr(out, "short → 000") != NULL);
	CHECK(strstr(out, "…\n") != NULL);
	CHECK(strlen(out) < 120);
}

TEST(human_ignores_noise)
{
	size_t n;
	const char *a =
		"{\"metadata\":{\"resourceVersion\":\"1\",\"generation\":1,"
		"\"managedFields\":[{\"manager\":\"a\"}]},"
		"\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
		"\"lastHeartbeatTime\":\"2024-05-01T11:00:00Z\",\"lastTransitionTime\":\"2024-05-01T10:00:00Z\"}]}}";
	const char *b =
		"{\"metadata\":{\"resourceVersion\":\"2\",\"generation\":1,"
		"\"managedFields\":[{\"manager\":\"b\"}]},"
		"\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
		"\"lastHeartbeatTime\":\"2024-05-01T11:00:10Z\",\"lastTransitionTime\":\"2024-05-01T10:00:00Z\"}]}}";
	const char *c =
		"{\"metadata\":{\"resourceVersion\":\"3\",\"generation\":2},"
		"\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\","
		"\"lastHeartbeatTime\":\"2024-05-01T11:00:20Z\",\"lastTransitionTime\":\"2024-05-01T11:00:20Z\"}]}}";

	CHECK_STR(human(a, b, &n), "");
	CHECK_INT(n, 0);
	/* generation and lastTransitionTime are real changes. */
	CHECK_STR(human(b, c, &n),
		  "  metadata.generation: 1 → 2\n"
		  "  status.conditions[type=Ready].status: True → False\n"
		  "  status.conditions[type=Ready].lastTransitionTime: 2024-05-01T10:00:00Z → 2024-05-01T11:00:20Z\n");
	/* The patch leaves the resourceVersion out, and nothing else. */
	CHECK(strstr(patch_text(a, b), "/metadata/resourceVersion") == NULL);
	CHECK(strstr(patch_text(a, b), "/metadata/managedFields/0/manager") != NULL);
}

TEST(conditions_pair_by_type_wherever_they_sit)
{
	const char *a = "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"},"
			"{\"type\":\"Initialized\",\"status\":\"True\"}]}}";
	const char *b = "{\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\"},"
			"{\"type\":\"Ready\",\"status\":\"True\"}]}}";
	size_t n;

	CHECK_STR(human(a, b, &n),
		  "  status.conditions[type=Initialized].type: - Initialized\n"
		  "  status.conditions[type=Initialized].status: - True\n"
		  "  status.conditions[type=PodScheduled].type: + PodScheduled\n"
		  "  status.conditions[type=PodScheduled].status: + True\n"
		  "  status.conditions[type=Ready].status: False → True\n");
	/* an array of other things keeps its indexes */
	CHECK_STR(human("{\"spec\":{\"conditions\":[1]}}", "{\"spec\":{\"conditions\":[2]}}", &n),
		  "  spec.conditions[0]: 1 → 2\n");
}

TEST(human_colors_added_and_removed)
{
	struct json_object *ta = tree("{\"a\":1}"), *tb = tree("{\"b\":2}");
	struct strbuf sb = STRBUF_INIT;

	diff_human(ta, tb, "", DIFF_COLOR, &sb);
	CHECK_STR(strbuf_str(&sb), "\033[31ma: - 1\033[0m\n\033[32mb: + 2\033[0m\n");
	strbuf_release(&sb);
	json_object_put(ta);
	json_object_put(tb);
}

int main(void)
{
	RUN(patch_of_equal_objects_is_empty);
	RUN(patch_nested_add_remove_replace);
	RUN(patch_escapes_tilde_and_slash);
	RUN(patch_arrays_element_wise_when_same_length);
	RUN(patch_arrays_grow_and_shrink_at_the_end);
	RUN(patch_type_changes_nulls_and_the_root);
	RUN(patch_of_a_realistic_update_applies_back);
	RUN(human_changed_added_removed_leaves);
	RUN(human_walks_added_subtrees_to_their_leaves);
	RUN(human_paths_index_arrays_and_quote_odd_keys);
	RUN(human_shows_values_so_their_type_is_plain);
	RUN(human_cuts_long_values);
	RUN(human_ignores_noise);
	RUN(conditions_pair_by_type_wherever_they_sit);
	RUN(human_colors_added_and_removed);
	return unit_done();
}

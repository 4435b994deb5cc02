/*
 * test_redact.c — a Secret's values become their sizes, as kubectl
 * describe shows them; nothing else is touched.
 */
#include <json-c/json.h>

#include "output/redact.h"
#include "unit.h"

static const char *at(struct json_object *obj, const char *map, const char *key)
{
	struct json_object *m, *v;
	if (!json_object_object_get_ex(obj, map, &m) || !json_object_object_get_ex(m, key, &v))
		return NULL;
	return json_object_get_string(v);
}

TEST(secret_values_become_sizes)
{
	struct json_object *s = json_tokener_parse(
		"{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"s\"},"
		"\"data\":{\"password\":\"czNjcjN0\",\"one\":\"YQ==\",\"empty\":\"\"},"
		"\"stringData\":{\"token\":\"abc\"},\"type\":\"Opaque\"}");
	redact_secret(s);
	CHECK_STR(at(s, "data", "password"), "6 bytes");
	CHECK_STR(at(s, "data", "one"), "1 byte");
	CHECK_STR(at(s, "data", "empty"), "0 bytes");
	CHECK_STR(at(s, "stringData", "token"), "3 bytes");
	CHECK_STR(at(s, "metadata", "name"), "s");
	json_object_put(s);
}

TEST(a_change_of_the_same_size_still_shows)
{
	struct json_object *a = json_tokener_parse(
		"{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"data\":{\"p\":\"YWJj\",\"q\":\"YQ==\",\"r\":\"YQ==\"}}");
	struct json_object *b = json_tokener_parse(
		"{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"data\":{\"p\":\"eHl6\",\"q\":\"YWI=\",\"r\":\"YQ==\"}}");
	redact_secret_pair(a, b);
	CHECK_STR(at(a, "data", "p"), "3 bytes");
	CHECK_STR(at(b, "data", "p"), "3 bytes, changed");
	CHECK_STR(at(b, "data", "q"), "2 bytes");
	CHECK_STR(at(b, "data", "r"), "1 byte");
	json_object_put(a);
	json_object_put(b);
}

TEST(other_objects_are_left_alone)
{
	static const char *const others[] = {
		"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"data\":{\"k\":\"v\"}}",
		"{\"kind\":\"Secret\",\"apiVersion\":\"example.com/v1\",\"data\":{\"k\":\"v\"}}",
		"{\"data\":{\"k\":\"v\"}}",
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		struct json_object *o = json_tokener_parse(others[i]);
		redact_secret(o);
		CHECK_STR(at(o, "data", "k"), "v");
		json_object_put(o);
	}
	redact_secret(NULL);
}

int main(void)
{
	RUN(secret_values_become_sizes);
	RUN(a_change_of_the_same_size_still_shows);
	RUN(other_objects_are_left_alone);
	return unit_done();
}

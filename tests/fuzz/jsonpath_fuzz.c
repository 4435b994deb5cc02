/*
 * jsonpath_fuzz.c — kubectl's JSONPath (output/jsonpath.c) on any
 * template a user types, over any data a server sends: `-o jsonpath=…`,
 * custom columns and --sort-by are outside input twice.  The input is
 * the template, then optionally a NUL byte and the JSON data (a small
 * Pod list when there is none).
 *
 * Besides "no crash, no leak, no undefined behaviour, no hang":
 *   - a failure says why;
 *   - a template that parses runs again to the same text, and what it
 *     finds (jsonpath_find) is found again the same.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/util.h"
#include "output/jsonpath.h"
#include "fuzz.h"

static const char pods[] =
	"{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\"}},"
	"\"status\":{\"phase\":\"Running\",\"n\":3}},{\"metadata\":{\"name\":\"b\"},"
	"\"status\":{\"phase\":\"Pending\",\"n\":1.5,\"z\":null}}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *json;
	char *text = fuzz_split(data, size, pods, &json);
	struct json_object *tree = json_tokener_parse(json);
	struct errbuf err = { "" };
	struct strbuf rel = STRBUF_INIT;

	if (jsonpath_relaxed(text, &rel, &err) < 0)
		CHECK(err.msg[0]);
	strbuf_release(&rel);
	err.msg[0] = '\0';
	struct jsonpath *jp = jsonpath_parse(text, &err);
	if (!jp) {
		CHECK(err.msg[0]);
	} else {
		for (int missing = 0; missing < 2; missing++) {
			struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
			struct errbuf e1 = { "" }, e2 = { "" };
			int rc = jsonpath_execute(jp, NULL, tree, missing, &a, &e1);
			CHECK(rc == 0 || e1.msg[0]);
			CHECK(jsonpath_execute(jp, NULL, tree, missing, &b, &e2) == rc);
			CHECK(a.len == b.len && !memcmp(strbuf_str(&a), strbuf_str(&b), a.len));
			strbuf_release(&a);
			strbuf_release(&b);
			struct json_object **v;
			size_t n;
			if (jsonpath_find(jp, tree, missing, &v, &n, &e1) == 0)
				jsonpath_values_free(v, n);
		}
		jsonpath_free(jp);
	}
	json_object_put(tree);
	free(text);
	return 0;
}

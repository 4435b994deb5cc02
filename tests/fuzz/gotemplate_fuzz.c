/*
 * gotemplate_fuzz.c — go-template (output/gotemplate.c) on any template
 * a user types, over any data a server sends: `-o go-template=…` is
 * outside input twice.  The input is the template, then optionally a
 * NUL byte and the JSON data (a small Pod when there is none).
 *
 * Besides "no crash, no leak, no undefined behaviour, no hang" (a
 * template that never parses was found looping for ever; one that ranges
 * over 10^11, or over the items three deep, runs as long as Go's would,
 * so the runs here stop at 100,000 range iterations):
 *   - a failure reads as Go's, "template: output:...";
 *   - a template that parses runs again to the same text and the same
 *     error: nothing is kept between runs.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/util.h"
#include "output/gotemplate.h"
#include "fuzz.h"

static const char pod[] =
	"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"b\"}},"
	"\"spec\":{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":80}]}]},"
	"\"status\":{\"phase\":\"Running\",\"ratio\":0.5,\"big\":1e300,\"n\":null}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *json;
	char *text = fuzz_split(data, size, pod, &json);
	struct json_object *tree = json_tokener_parse(json);
	struct errbuf err = { "" };

	struct gotemplate *t = gotemplate_parse(text, &err);
	if (!t) {
		CHECK(!strncmp(err.msg, "template: output:", 17));
	} else {
		struct json_object *d = gotemplate_data(tree);
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		gotemplate_limit_iterations(t, 100000);
		struct strbuf msg = STRBUF_INIT, msg2 = STRBUF_INIT;
		int rc = gotemplate_execute(t, d, &a, &msg);
		CHECK(rc == 0 || !strncmp(strbuf_str(&msg), "template: output:", 17));
		CHECK(gotemplate_execute(t, d, &b, &msg2) == rc);
		CHECK(a.len == b.len && !memcmp(strbuf_str(&a), strbuf_str(&b), a.len));
		CHECK(!strcmp(strbuf_str(&msg), strbuf_str(&msg2)));
		strbuf_release(&a);
		strbuf_release(&b);
		strbuf_release(&msg);
		strbuf_release(&msg2);
		json_object_put(d);
		gotemplate_free(t);
	}
	json_object_put(tree);
	free(text);
	return 0;
}

/*
 * test_jsonpath.c — kubectl's JSONPath dialect, table-driven: each row a
 * template, the data, and what kubectl 1.28 prints (or its error).
 * Expected texts were checked against `kubectl get -o jsonpath=…`.
 */
#include <json-c/json.h>

#include "output/gofmt.h"
#include "output/jsonpath.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "unit.h"

static const char *const pods =
	"{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"\"},"
	"\"items\":["
	"{\"metadata\":{\"name\":\"web-1\",\"labels\":{\"app\":\"web\",\"tier\":\"front\"},"
	"\"annotations\":{\"a.b/c\":\"x<y>&\"}},"
	"\"spec\":{\"priority\":0,\"nodeName\":\"n1\",\"containers\":[{\"name\":\"app\","
	"\"image\":\"nginx:1\",\"ports\":[{\"containerPort\":80},{\"containerPort\":443}]}]},"
	"\"status\":{\"phase\":\"Running\",\"ratio\":0.5,\"big\":1000000.0,"
	"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastProbeTime\":null}]}},"
	"{\"metadata\":{\"name\":\"web-2\",\"labels\":{\"app\":\"web\"}},"
	"\"spec\":{\"priority\":10,\"containers\":[{\"name\":\"app\",\"image\":\"nginx:2\"},"
	"{\"name\":\"side\",\"image\":\"envoy\"}]},"
	"\"status\":{\"phase\":\"Pending\"}},"
	"{\"metadata\":{\"name\":\"db-0\",\"labels\":{\"app\":\"db\"}},"
	"\"spec\":{\"priority\":5,\"containers\":[{\"name\":\"pg\",\"image\":\"postgres\"}]},"
	"\"status\":{\"phase\":\"Running\"}}"
	"]}";

struct row {
	const char *tmpl;
	const char *want;	/* the text, or the error with a leading "!" */
};

static const struct row rows[] = {
	/* text, fields, indexes */
	{ "{.kind}", "List" },
	{ "kind={.kind}!", "kind=List!" },
	{ "no actions at all", "no actions at all" },
	{ "{.items[0].metadata.name}", "web-1" },
	{ "{.items[-1].metadata.name}", "db-0" },
	{ "{.items[*].metadata.name}", "web-1 web-2 db-0" },
	{ "{.items[:].metadata.name}", "web-1 web-2 db-0" },
	{ "{.items[1:].metadata.name}", "web-2 db-0" },
	{ "{.items[0:3:2].metadata.name}", "web-1 db-0" },
	{ "{.items[-2:].metadata.name}", "web-2 db-0" },
	{ "{.items[0,2].metadata.name}", "web-1 db-0" },
	{ "{.items[0].metadata['name']}", "web-1" },
	{ "{$.items[0].metadata.name}", "web-1" },
	{ "{@.kind}", "List" },
	{ "{.items[0].metadata.labels.*}", "web front" },
	{ "{.items[0].spec.containers[*].ports[*].containerPort}", "80 443" },
	{ "{.items[1].spec.containers[*]['name','image']}", "app side nginx:2 envoy" },
	/* objects and arrays print as Go's json.Marshal: sorted, HTML-escaped */
	{ "{.items[0].metadata.labels}", "{\"app\":\"web\",\"tier\":\"front\"}" },
	{ "{.items[0].metadata.annotations}", "{\"a.b/c\":\"x\\u003cy\\u003e\\u0026\"}" },
	{ "{.items[0].spec.containers[0].ports}", "[{\"containerPort\":80},{\"containerPort\":443}]" },
	/* scalars as Go's fmt, floats %g; null is "null", as kubectl 1.29 on */
	{ "{.items[0].status.conditions[0].lastProbeTime}", "null" },
	{ "{.items[0].status.ratio} {.items[0].status.big}", "0.5 1e+06" },
	{ "{.items[0].spec.priority}", "0" },
	/* missing keys: nothing */
	{ "{.items[0].metadata.nothere}", "" },
	{ "{.items[0].metadata.name.deeper}", "" },
	/* quoted strings and escapes */
	{ "{.items[0].metadata.name}{\"\\t\"}{.kind}{'\\n'}", "web-1\tList\n" },
	{ "{\"\\u00e9\\x41\"}", "\xc3\xa9" "A" },
	{ "{'single'}", "single" },
	/* filters */
	{ "{.items[?(@.status.phase==\"Running\")].metadata.name}", "web-1 db-0" },
	{ "{.items[?(@.status.phase!='Running')].metadata.name}", "web-2" },
	{ "{.items[?(@.spec.priority>3)].metadata.name}", "web-2 db-0" },
	{ "{.items[?(@.spec.priority<=5)].metadata.name}", "web-1 db-0" },
	{ "{.items[?(@.spec.nodeName)].metadata.name}", "web-1" },
	{ "{.items[?(@.nothere==\"x\")].metadata.name}", "" },
	{ "{.items[0].status.conditions[?(@.type==\"Ready\")].status}", "True" },
	/* range */
	{ "{range .items[*]}{.metadata.name}{\"\\t\"}{.status.phase}{\"\\n\"}{end}",
	  "web-1\tRunning\nweb-2\tPending\ndb-0\tRunning\n" },
	{ "{range .items[*]}[{.metadata.name}]{end} done", "[web-1][web-2][db-0] done" },
	{ "{range .items[*]}{range .spec.containers[*]}{.name},{end};{end}", "app,;app,side,;pg,;" },
	{ "{range .items[?(@.spec.priority==0)]}{.metadata.name}{end}", "web-1" },
	{ "{range .items[?(@.kind==\"X\")]}{.a}{end}after", "after" },
	{ "{range .items[0:2]}{.metadata.name}", "web-1web-2" },
	/* with no {end}, the actions run once more on the List after the range */
	{ "{range .items[0:2]}<{.metadata.name}>{.kind}", "<web-1><web-2><>List" },
	{ "{range .items[0:2]}{range .spec.containers[*]}({.name}){end}x{.kind}",
	  "(app)x(app)(side)xxList" },
	{ "{range .items[?(@.kind==\"X\")]}<{.kind}>", "<List>" },
	/* a string's elements are its bytes */
	{ "{.items[2].metadata.name.*}", "100 98 45 48" },
	/* recursive descent */
	{ "{..image}", "nginx:1 nginx:2 envoy postgres" },
	{ "{.items[1]..name}", "web-2 app side" },
	/*
	 * An exists filter keeps an item when its path finds something, and
	 * a step that fails leaves what client-go's returns with its error:
	 * an unknown word its input, an index out of bounds its array.
	 */
	{ "{.items[?(@.spec.nodeName foo)].metadata.name}", "web-1" },
	{ "{.items[?(@.status.phase in ['Running'])].metadata.name}", "web-1 web-2 db-0" },
	{ "{.items[?(@.spec.containers[1])].metadata.name}", "web-1 web-2 db-0" },
	{ "{.items[?(@.spec.containers[1].name)].metadata.name}", "web-1 web-2 db-0" },
	{ "{.items[?(@.metadata.name end)].metadata.name}", "" },
	/* errors, kubectl's words */
	{ "{.items[9].metadata.name}", "!array index out of bounds: index 9, length 3" },
	{ "{.items[2:1]}", "!starting index 2 is greater than ending index 1" },
	{ "{.items[0:2:0]}", "!step must be > 0" },
	{ "{.items[0].metadata[*]}", "!map[string]interface {} is not array or slice" },
	{ "{.kind[?(@.x)]}", "!List is not array or slice and cannot be filtered" },
	{ "{.items[?(@.spec.priority<1.5)].metadata.name}", "!incompatible types for comparison" },
	{ "{end}", "!not in range, nothing to end" },
	{ "{foo}", "!unrecognized identifier foo" },
	{ "{.items[}", "!unterminated array" },
	{ "{.items[x]}", "!invalid array index x" },
	{ "{.items[1:a]}", "!invalid array index 1:a" },
	{ "{.items[?(@.a==\"b\"]}", "!unterminated filter" },
	{ "{\"abc}", "!unterminated quoted string" },
	{ "{#}", "!unrecognized character in action: U+0023 '#'" },
	{ "{1.2.3}", "!cannot parse number 1.2.3" },
	{ "{.items[*].metadata.name", "!unclosed action" },
	{ "{.items....name}", "!invalid multiple recursive descent" },
};

static struct json_object *data;

TEST(templates_print_as_kubectl)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct errbuf err = { "" };
		struct strbuf out = STRBUF_INIT;
		struct jsonpath *jp = jsonpath_parse(r->tmpl, &err);
		int rc = jp ? jsonpath_execute(jp, NULL, data, true, &out, &err) : -1;
		const char *got = rc < 0 ? err.msg : strbuf_str(&out);
		const char *want = r->want[0] == '!' ? r->want + 1 : r->want;

		CHECKF((rc < 0) == (r->want[0] == '!') && !strcmp(got, want),
		       "template %s\n#   got %s \"%s\"\n#  want \"%s\"", r->tmpl,
		       rc < 0 ? "error" : "text", got, want);
		strbuf_release(&out);
		jsonpath_free(jp);
	}
}

TEST(missing_keys_are_errors_when_not_allowed)
{
	struct errbuf err = { "" };
	struct strbuf out = STRBUF_INIT;
	struct jsonpath *jp = jsonpath_parse("{.items[0].metadata.nothere}", &err);

	CHECK(jp != NULL);
	CHECK_INT(jsonpath_execute(jp, NULL, data, false, &out, &err), -1);
	CHECK_STR(err.msg, "nothere is not found");
	jsonpath_free(jp);
	strbuf_release(&out);
}

/*
 * A range over no values still runs its actions once on nothing, their
 * output thrown away (client-go's FindResults(nil)): a field is then
 * missing, an error when missing keys are not allowed; nothing when they are.
 */
TEST(a_range_over_nothing_runs_its_actions_on_nothing)
{
	static const char *const tmpl[] = {
		"{range .items[?(@.spec.priority==99)]}{.metadata.name}{end}after",
		"{range .items[0:0]}x{.a.b}{end}",
	};
	static const char *const want[] = { "metadata is not found", "a is not found" };

	for (size_t i = 0; i < 2; i++) {
		struct errbuf err = { "" };
		struct strbuf out = STRBUF_INIT;
		struct jsonpath *jp = jsonpath_parse(tmpl[i], &err);
		CHECK(jp != NULL);
		CHECK_INT(jsonpath_execute(jp, NULL, data, false, &out, &err), -1);
		CHECK_STR(err.msg, want[i]);
		strbuf_reset(&out);
		CHECK_INT(jsonpath_execute(jp, NULL, data, true, &out, &err), 0);
		CHECK_STR(strbuf_str(&out), i ? "" : "after");
		jsonpath_free(jp);
		strbuf_release(&out);
	}
}

TEST(find_gives_the_values)
{
	struct errbuf err = { "" };
	struct jsonpath *jp = jsonpath_parse("{.items[*].spec.priority}", &err);
	struct json_object **v;
	size_t nr;

	CHECK_INT(jsonpath_find(jp, data, true, &v, &nr, &err), 0);
	CHECK_INT(nr, 3);
	CHECK_INT(json_object_get_int(v[1]), 10);
	jsonpath_values_free(v, nr);
	jsonpath_free(jp);
}

TEST(relaxed_expressions)
{
	static const char *const forms[] = { "a.b", ".a.b", "{a.b}", "{.a.b}" };
	struct errbuf err = { "" };

	for (size_t i = 0; i < 4; i++) {
		struct strbuf sb = STRBUF_INIT;
		CHECK_INT(jsonpath_relaxed(forms[i], &sb, &err), 0);
		CHECK_STR(strbuf_str(&sb), "{.a.b}");
		strbuf_release(&sb);
	}
	struct strbuf sb = STRBUF_INIT;
	CHECK_INT(jsonpath_relaxed("{a}{b}", &sb, &err), -1);
	strbuf_release(&sb);
}

TEST(go_formatting)
{
	static const struct { const char *json, *v, *marshal; } cases[] = {
		{ "{\"b\":[1,2],\"a\":{\"x\":null}}", "map[a:map[x:<nil>] b:[1 2]]",
		  "{\"a\":{\"x\":null},\"b\":[1,2]}" },
		{ "0.000001", "1e-06", "0.000001" },
		{ "1e-7", "1e-07", "1e-7" },
		{ "123456.0", "123456", "123456" },
		{ "1234567.5", "1.2345675e+06", "1234567.5" },
		{ "1e21", "1e+21", "1e+21" },
		{ "\"\\u2028<\\u0001\"", "\xe2\x80\xa8<\x01", "\"\\u2028\\u003c\\u0001\"" },
		{ "true", "true", "true" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_object *v = json_tokener_parse(cases[i].json);
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		gofmt_print(v, &a);
		gofmt_marshal(v, &b);
		CHECK_STR(strbuf_str(&a), cases[i].v);
		CHECK_STR(strbuf_str(&b), cases[i].marshal);
		strbuf_release(&a);
		strbuf_release(&b);
		json_object_put(v);
	}
}

/* A range without its {end} runs what follows twice: n in a row run it 2^n times. */
TEST(ranges_without_end_are_bounded)
{
	struct strbuf tmpl = STRBUF_INIT;

	for (int n = 1; n <= 40; n++) {
		struct errbuf err = { "" };
		struct strbuf out = STRBUF_INIT;
		strbuf_adds(&tmpl, "{range}x");
		struct jsonpath *jp = jsonpath_parse(tmpl.buf, &err);
		CHECK(jp != NULL);
		int rc = jsonpath_execute(jp, NULL, data, true, &out, &err);
		if (n == 10) {		/* as kubectl prints it */
			CHECK_INT(rc, 0);
			CHECK_INT(out.len, 2046);
		}
		if (n == 40) {
			CHECK_INT(rc, -1);
			CHECK(strstr(err.msg, "the template runs more than") != NULL);
		}
		jsonpath_free(jp);
		strbuf_release(&out);
	}
	strbuf_release(&tmpl);
}

/*
 * Run after run from where the last left the template (kubectl's printer
 * under get -w): the first is whole, the next starts after the last
 * range entered, and there an {end} fails.  Each case's two runs are
 * those of client-go's JSONPath (v0.32.0), one parse, two Executes.
 */
TEST(runs_go_on_from_the_last_range)
{
	static const struct {
		const char *tmpl, *first, *second, *fails;
	} cases[] = {
		/* no range: every run whole */
		{ "{.kind}-", "List-", "List-", NULL },
		{ "<{range .items[*]}{.metadata.name},{end}>", "<web-1,web-2,db-0,>", NULL,
		  "not in range, nothing to end" },
		/* a range over nothing is entered too; the one after it last */
		{ "{range .nope[*]}x{end}{range .items[0:1]}{.metadata.name}{end}", "web-1", NULL,
		  "not in range, nothing to end" },
		/* nested: the inner range entered last, with db-0's pg */
		{ "{range .items[*]}{range .spec.containers[*]}{.name}{end};{end}", "app;appside;pg;",
		  NULL, "not in range, nothing to end" },
		/* without its {end}: what follows the range, on the List */
		{ "x{range .items[*]}{.metadata.name}", "xweb-1web-2db-0", "", NULL },
		{ "a{range .items[*]}", "a", "", NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct errbuf err = { "" };
		struct strbuf out = STRBUF_INIT;
		struct jsonpath *jp = jsonpath_parse(cases[i].tmpl, &err);
		size_t from = 0;
		CHECK(jp != NULL);
		CHECK_INT(jsonpath_execute(jp, &from, data, true, &out, &err), 0);
		CHECK_STR(strbuf_str(&out), cases[i].first);
		strbuf_reset(&out);
		int rc = jsonpath_execute(jp, &from, data, true, &out, &err);
		CHECK_INT(rc, cases[i].fails ? -1 : 0);
		if (cases[i].fails)
			CHECK_STR(err.msg, cases[i].fails);
		else
			CHECK_STR(strbuf_str(&out), cases[i].second);
		jsonpath_free(jp);
		strbuf_release(&out);
	}
}

int main(void)
{
	data = json_tokener_parse(pods);
	RUN(templates_print_as_kubectl);
	RUN(missing_keys_are_errors_when_not_allowed);
	RUN(a_range_over_nothing_runs_its_actions_on_nothing);
	RUN(find_gives_the_values);
	RUN(relaxed_expressions);
	RUN(go_formatting);
	RUN(ranges_without_end_are_bounded);
	RUN(runs_go_on_from_the_last_range);
	json_object_put(data);
	return unit_done();
}

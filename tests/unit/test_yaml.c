/*
 * test_yaml.c — yaml_emit() against what `kubectl get -o yaml` printed
 * (kubectl v1.32) for the same objects: which strings are quoted and how,
 * folding, literal blocks, key order, numbers, nesting.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/goyaml.h"
#include "lib/strbuf.h"
#include "lib/yaml_plain.h"
#include "output/yaml.h"
#include "unit.h"

static char *to_yaml(const char *json)
{
	struct json_object *obj = json_tokener_parse(json);
	struct strbuf sb = STRBUF_INIT;
	struct errbuf err = { "" };

	if (!obj) {
		printf("# bad test JSON: %s\n", json);
		return xstrdup("(bad JSON)");
	}
	if (yaml_emit(obj, &sb, 0, &err) < 0)
		strbuf_addf(&sb, "(error: %s)", err.msg);
	json_object_put(obj);
	return strbuf_detach(&sb, NULL);
}

static void check_yaml(const char *json, const char *want, int line)
{
	char *got = to_yaml(json);
	CHECKF(!strcmp(got, want), "line %d: %s\n# got:\n%s# expected:\n%s", line, json, got, want);
	free(got);
}

/* One configmap value each, as data.kNNN (the key's length sets where long values fold). */
static const struct {
	const char *json, *yaml;
} strings[] = {
#include "yaml_strings.inc"
};

TEST(strings_quoted_only_when_needed_as_kubectl)
{
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		check_yaml(strings[i].json, strings[i].yaml, (int)i);
}

static const char key_order_json[] =
	"{\"data\": {\"a10\": \"x\", \"a2\": \"x\", \"a_b\": \"x\", \"aB\": \"x\", \"a-b\": \"x\", \"aa\": \"x\", \"A\": \"x\", \"b\": \"x\", \"a01\": \"x\", \"a1\": \"x\", \"a001\": \"x\", \"a0\": \"x\", \"a00\": \"x\", \"z9\": \"x\", \"z10a\": \"x\", \"10\": \"x\", \"9\": \"x\", \"x.y\": \"x\", \"x/y\": \"x\", \"_x\": \"x\", \".x\": \"x\", \"-x\": \"x\", \"Ab\": \"x\", \"ab\": \"x\", \"\\u00e9\": \"x\", \"e\": \"x\", \"f\": \"x\"}}";
static const char key_order_yaml[] =
	"data:\n"
	"  -x: x\n"
	"  .x: x\n"
	"  _x: x\n"
	"  \"9\": x\n"
	"  \"10\": x\n"
	"  A: x\n"
	"  Ab: x\n"
	"  a-b: x\n"
	"  a_b: x\n"
	"  a0: x\n"
	"  a00: x\n"
	"  a1: x\n"
	"  a01: x\n"
	"  a001: x\n"
	"  a2: x\n"
	"  a10: x\n"
	"  aB: x\n"
	"  aa: x\n"
	"  ab: x\n"
	"  b: x\n"
	"  e: x\n"
	"  f: x\n"
	"  x.y: x\n"
	"  x/y: x\n"
	"  z9: x\n"
	"  z10a: x\n"
	"  \303\251: x\n";
static const char numbers_json[] =
	"{\"spec\":{\"i\":1,\"neg\":-7,\"big\":9223372036854775807,\"bigger\":18446744073709551615,\"huge\":1.2345678901234569e+23,\"f1\":1.0,\"f2\":1.5,\"f3\":1e6,\"f4\":123456.7,\"f5\":1234567.5,\"f6\":0.0001,\"f7\":0.00001,\"f8\":-2.5e-7,\"f9\":1e21,\"f10\":3.141592653589793,\"f11\":-0.0,\"f12\":100000,\"f13\":0.1,\"t\":true,\"fa\":false,\"nu\":null,\"eo\":{},\"ea\":[],\"nested\":[[1,2],[],[{}],{\"a\":[{\"b\":1,\"c\":[]}]}],\"seq\":[{\"name\":\"x\",\"v\":1},{\"name\":\"y\"}],\"strs\":[\"a\",\"1\",\"\", \"x: y\"]}}";
static const char numbers_yaml[] =
	"spec:\n"
	"  big: 9223372036854775807\n"
	"  bigger: 1.8446744073709552e+19\n"
	"  ea: []\n"
	"  eo: {}\n"
	"  f1: 1\n"
	"  f2: 1.5\n"
	"  f3: 1000000\n"
	"  f4: 123456.7\n"
	"  f5: 1.2345675e+06\n"
	"  f6: 0.0001\n"
	"  f7: 1e-05\n"
	"  f8: -2.5e-07\n"
	"  f9: 1e+21\n"
	"  f10: 3.141592653589793\n"
	"  f11: 0\n"
	"  f12: 100000\n"
	"  f13: 0.1\n"
	"  fa: false\n"
	"  huge: 1.2345678901234569e+23\n"
	"  i: 1\n"
	"  neg: -7\n"
	"  nested:\n"
	"  - - 1\n"
	"    - 2\n"
	"  - []\n"
	"  - - {}\n"
	"  - a:\n"
	"    - b: 1\n"
	"      c: []\n"
	"  nu: null\n"
	"  seq:\n"
	"  - name: x\n"
	"    v: 1\n"
	"  - name: \"y\"\n"
	"  strs:\n"
	"  - a\n"
	"  - \"1\"\n"
	"  - \"\"\n"
	"  - 'x: y'\n"
	"  t: true\n";

TEST(keys_sorted_as_go_yaml_sorts_them)
{
	check_yaml(key_order_json, key_order_yaml, __LINE__);
}

TEST(numbers_and_nesting_as_kubectl)
{
	check_yaml(numbers_json, numbers_yaml, __LINE__);
}

TEST(scalars_at_the_root)
{
	check_yaml("\"x\"", "x\n", __LINE__);
	check_yaml("[]", "[]\n", __LINE__);
	check_yaml("{}", "{}\n", __LINE__);
	check_yaml("[\"a\", {\"b\": [1]}]", "- a\n- b:\n  - 1\n", __LINE__);
}

/* go-yaml v2's resolve(), as Go 1.22's strconv reads numbers. */
TEST(plain_scalars_as_go_yaml_reads_them)
{
	static const struct {
		const char *plain;
		enum yaml_plain kind;
	} cases[] = {
		{ "", YAML_PLAIN_NULL }, { "~", YAML_PLAIN_NULL }, { "Null", YAML_PLAIN_NULL },
		{ "y", YAML_PLAIN_BOOL }, { "Yes", YAML_PLAIN_BOOL }, { "off", YAML_PLAIN_BOOL },
		{ "yES", YAML_PLAIN_STRING }, { "nope", YAML_PLAIN_STRING },
		{ "12345", YAML_PLAIN_NUMBER }, { "1_000", YAML_PLAIN_NUMBER },
		{ "089", YAML_PLAIN_NUMBER }, { "0o17", YAML_PLAIN_NUMBER },
		{ "-0b101", YAML_PLAIN_NUMBER }, { "+0x1F", YAML_PLAIN_NUMBER },
		{ "0x", YAML_PLAIN_STRING }, { "0xFFFFFFFFFFFFFFFFF", YAML_PLAIN_STRING },
		{ "-0x8000000000000001", YAML_PLAIN_STRING },
		{ "99999999999999999999", YAML_PLAIN_NUMBER },
		{ "-9223372036854775809", YAML_PLAIN_NUMBER },
		{ "1e3", YAML_PLAIN_NUMBER }, { "1e400", YAML_PLAIN_STRING },
		{ ".5", YAML_PLAIN_NUMBER }, { ".", YAML_PLAIN_STRING },
		{ "-.inf", YAML_PLAIN_NUMBER }, { ".NaN", YAML_PLAIN_NUMBER },
		{ "+", YAML_PLAIN_STRING }, { "<<", YAML_PLAIN_STRING },
		{ "2001-12-14", YAML_PLAIN_STRING }, { "1:20", YAML_PLAIN_STRING },
		{ "127.0.0.1:6443", YAML_PLAIN_STRING }, { "1.2.3", YAML_PLAIN_STRING },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECKF(yaml_plain_kind(cases[i].plain) == cases[i].kind, "'%s' is %s, not %s",
		       cases[i].plain, yaml_plain_name(cases[i].kind),
		       yaml_plain_name(yaml_plain_kind(cases[i].plain)));
}

/* YAML as sigs.k8s.io/yaml makes JSON of it, or why it does not. */
TEST(documents_as_client_go_reads_them)
{
	static const char *const cases[][2] = {
		{ "a: 1\nb: yes\nc: '1'\nd: ~\ne: off\n",
		  "{\"a\":1,\"b\":true,\"c\":\"1\",\"d\":null,\"e\":false}" },
		{ "[1, x, null, \"\"]", "[1,\"x\",null,\"\"]" },
		{ "{b: 1, a: 2, b: 3}", "{\"a\":2,\"b\":3}" },
		{ "p: &x {a: 1, b: 2}\nq: {b: 9, <<: *x, a: 3}", "{\"p\":{\"a\":1,\"b\":2},"
		  "\"q\":{\"a\":3,\"b\":2}}" },
		{ "{y: 1, 0x1F: -0o17, 1_000: 0b101, b: 18446744073709551615, ~x: 1.5}",
		  "{\"1000\":5,\"31\":-15,\"b\":18446744073709551615,\"true\":1,\"~x\":1.5}" },
		{ "{<<: [{a: 1}, {a: 2, b: 2}], '<<': 5}", "{\"<<\":5,\"a\":1,\"b\":2}" },
		{ "\xef\xbb\xbf{\"a\": 1}\n---\nb: 2\n", "{\"a\":1}" },
		{ "", "null" },
		{ "{<<: 1}", "line 1: a merge (<<) takes a mapping or a list of mappings" },
		{ "{[a]: 1}", "line 1: a key must be a string, not a list" },
		{ "{a: 1, ~: 2}", "line 1: a key must not be null" },
		{ "a: &a [1, *a]", "line 1: an anchor's value contains itself" },
		{ "a: &a {x: 1, <<: *a}", "line 1: an anchor's value contains itself" },
		{ "a: [", "line 2: did not find expected node content while parsing a flow node" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_object *o = (struct json_object *)"unset";
		struct strbuf why = STRBUF_INIT;
		if (goyaml_to_json(cases[i][0], strlen(cases[i][0]), &o, &why) == 0)
			strbuf_adds(&why, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		else
			CHECK(o == NULL);
		CHECKF(!strcmp(why.buf, cases[i][1]), "'%s' gave %s, not %s", cases[i][0], why.buf,
		       cases[i][1]);
		json_object_put(o);
		strbuf_release(&why);
	}
}

/* Aliases that would repeat a subtree 10^8 times are refused, and soon. */
TEST(an_alias_bomb_is_refused)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	struct json_object *o = NULL;
	strbuf_adds(&sb, "a0: &a0 [x, y]\n");
	for (int i = 1; i <= 8; i++) {
		strbuf_addf(&sb, "a%d: &a%d [", i, i);
		for (int j = 0; j < 10; j++)
			strbuf_addf(&sb, "%s*a%d", j ? ", " : "", i - 1);
		strbuf_adds(&sb, "]\n");
	}
	CHECK(goyaml_to_json(sb.buf, sb.len, &o, &why) < 0);
	CHECK(o == NULL);
	CHECKF(strstr(why.buf, "repeats its aliases too often") != NULL, "%s", why.buf);
	strbuf_release(&sb);
	strbuf_release(&why);
}

int main(void)
{
	RUN(strings_quoted_only_when_needed_as_kubectl);
	RUN(keys_sorted_as_go_yaml_sorts_them);
	RUN(numbers_and_nesting_as_kubectl);
	RUN(scalars_at_the_root);
	RUN(plain_scalars_as_go_yaml_reads_them);
	RUN(documents_as_client_go_reads_them);
	RUN(an_alias_bomb_is_refused);
	return unit_done();
}

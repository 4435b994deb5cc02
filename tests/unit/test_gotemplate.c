/*
 * test_gotemplate.c — Go's text/template as kubectl's go-template printer
 * runs it, table-driven: each row a template and what kubectl 1.32 prints
 * on the object below (or its error, with a leading "!"), as read from
 * `kubectl create -f obj.json --dry-run=client -o go-template=…`.
 */
#include <json-c/json.h>

#include "output/gotemplate.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "unit.h"

static const char *const object =
	"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\","
	"\"labels\":{\"app\":\"web\",\"tier\":\"front\"}},\"data\":{\"a\":\"1\",\"b\":\"x<y>\"},"
	"\"spec\":{\"replicas\":3,\"ratio\":0.5,\"big\":1000000.0,\"list\":[1,2,3],\"nul\":null,"
	"\"nils\":[null,1],"
	"\"items\":[{\"name\":\"a\",\"ok\":true},{\"name\":\"b\",\"ok\":false}]}}";

struct row {
	const char *tmpl;
	const char *want;	/* the text, or the error with a leading "!" */
};

static const struct row rows[] = {
	{ "{{.metadata.name}}",
	  "cm" },
	{ "{{.spec}}",
	  "map[big:1000000 items:[map[name:a ok:true] map[name:b ok:false]] list:[1 2 3] nils:[<nil> 1] nul:<nil> ratio:0.5 replicas:3]" },
	{ "{{.spec.nul}}|{{print .spec.nul}}|{{.spec.big}}|{{.spec.ratio}}",
	  "<no value>|<nil>|1000000|0.5" },
	{ "{{.nothere}}|{{.nothere.deeper}}",
	  "<no value>|<no value>" },
	{ "{{range .spec.items}}{{.name}}={{.ok}};{{end}}",
	  "a=true;b=false;" },
	{ "{{range $i, $e := .spec.list}}{{$i}}:{{$e}} {{end}}",
	  "0:1 1:2 2:3 " },
	{ "{{range $k, $v := .metadata.labels}}{{$k}}={{$v}},{{end}}",
	  "app=web,tier=front," },
	{ "{{range .spec.nothere}}x{{else}}empty{{end}}",
	  "empty" },
	{ "{{range .spec.list}}{{if eq . 2}}{{break}}{{end}}{{.}}{{end}}",
	  "1" },
	{ "{{range .spec.list}}{{if eq . 2}}{{continue}}{{end}}{{.}}{{end}}",
	  "13" },
	{ "{{if eq .kind \"Pod\"}}pod{{else if eq .kind \"ConfigMap\"}}cm{{else}}other{{end}}",
	  "cm" },
	{ "{{with .metadata.labels.app}}app={{.}}{{else}}none{{end}}",
	  "app=web" },
	{ "{{with .metadata.labels.nope}}x{{else}}none{{end}}",
	  "none" },
	{ "a  {{- \" b \" -}}  c",
	  "a b c" },
	{ "a  {{- /* comment */ -}}  c",
	  "ac" },
	{ "{{ 1 }}{{- 2 -}}{{ 3 }}",
	  "123" },
	{ "{{-3}}",
	  "-3" },
	{ "{{index .metadata.labels \"app\"}}|{{index .spec.list 1}}|{{index .spec.items 0 \"name\"}}",
	  "web|2|a" },
	{ "{{len .spec.list}} {{len .metadata.name}} {{len .metadata.labels}}",
	  "3 2 2" },
	{ "{{printf \"%-6s|%5d|%.2f|%q|%v|%x\" .metadata.name .spec.replicas .spec.ratio .metadata.name .spec.list 255}}",
	  "cm    |    3|0.50|\"cm\"|[1 2 3]|ff" },
	{ "{{printf \"%d\" .spec.ratio}} {{printf \"%s\" .spec.replicas}} {{printf \"%d %d\" 1}} {{printf \"%d\" 1 2}}",
	  "%!d(float64=0.5) %!s(int64=3) 1 %!d(MISSING) 1%!(EXTRA int=2)" },
	{ "{{print 1 2 \"a\" \"b\" 3}}|{{println \"a\" 1}}",
	  "1 2ab3|a 1\n" },
	{ "{{.metadata.name | printf \"%s!\"}} {{.spec.list | len}}",
	  "cm! 3" },
	{ "{{$n := .metadata.name}}{{$n}} {{$n = \"other\"}}{{$n}}",
	  "cm other" },
	{ "{{and 1 0}} {{or 0 \"\" \"x\"}} {{not .spec.nul}} {{and .metadata.name .kind}}",
	  "0 x true ConfigMap" },
	{ "{{eq .spec.replicas 3}} {{ne .kind \"Pod\"}} {{lt 1 2}} {{ge 2.5 2.5}} {{gt \"b\" \"a\"}} {{eq 1 2 1}}",
	  "true true true true true true" },
	{ "{{exists . \"spec\" \"list\" 2}} {{exists . \"spec\" \"list\" 3}} {{exists . \"spec\" \"nul\"}}",
	  "true false false" },
	{ "{{base64decode \"aGVsbG8=\"}}",
	  "hello" },
	{ "{{.kind.x}}",
	  "!template: output:1:7: executing \"output\" at <.kind.x>: can't evaluate field x in type interface {}" },
	{ "{{eq .spec.replicas 3.0}}",
	  "!template: output:1:2: executing \"output\" at <eq .spec.replicas 3.0>: error calling eq: incompatible types for comparison" },
	{ "{{index .spec.list 5}}",
	  "!template: output:1:2: executing \"output\" at <index .spec.list 5>: error calling index: index out of range: 5" },
	{ "{{len .spec.replicas}}",
	  "!template: output:1:2: executing \"output\" at <len .spec.replicas>: error calling len: len of type int64" },
	{ "{{base64decode \"aGk\"}}",
	  "!template: output:1:2: executing \"output\" at <base64decode \"aGk\">: error calling base64decode: base64 decode failed: illegal base64 data at input byte 0" },
	{ "{{range .kind}}{{end}}",
	  "!template: output:1:8: executing \"output\" at <.kind>: range can't iterate over ConfigMap" },
	{ "{{nosuch 1}}",
	  "!template: output:1: function \"nosuch\" not defined" },
	{ "{{if}}{{end}}",
	  "!template: output:1: missing value for if" },
	{ "{{end}}",
	  "!template: output:1: unexpected {{end}}" },
	{ "{{range .spec.list}}",
	  "!template: output:1: unexpected EOF" },
	{ "{{$x}}",
	  "!template: output:1: undefined variable \"$x\"" },
	/* state.evalCommand's first words, each as Go tells it is given arguments */
	{ "{{\"%\" | (.spec.list | len)}}",
	  "!template: output:1:2: executing \"output\" at <\"%\">: can't give argument to non-function .spec.list | len" },
	{ "{{(len .kind) 2 | print}}",
	  "!template: output:1:2: executing \"output\" at <(len .kind) 2 | print>: can't give argument to non-function len .kind" },
	{ "{{(.metadata).name 1}}",
	  "!template: output:1:3: executing \"output\" at <.metadata>: name is not a method but has arguments" },
	{ "{{$x := .metadata}}{{$x.name 1}}",
	  "!template: output:1:23: executing \"output\" at <$x.name>: name is not a method but has arguments" },
	{ "{{nil 1}}",
	  "!template: output:1:2: executing \"output\" at <nil>: can't give argument to non-function nil" },
	/* told where the pipeline's evaluation left off: its last argument */
	{ "{{range index .spec \"ratio\"}}{{end}}",
	  "!template: output:1:20: executing \"output\" at <\"ratio\">: range can't iterate over 0.5" },
	/* Go 1.24 ranges over an integer: 0 to n-1, one variable at most */
	{ "{{range index .spec \"replicas\"}}{{.}}{{end}} {{range $i := -1}}{{else}}none{{end}}",
	  "012 none" },
	{ "{{range $i, $e := .spec.replicas}}{{end}}",
	  "!template: output:1:23: executing \"output\" at <.spec.replicas>: can't use 3 to iterate over more than one variable" },
	/* the parser knows a name from where it stands; execution once it is set */
	{ "{{$x := $x}}",
	  "!template: output:1:8: executing \"output\" at <$x>: undefined variable: $x" },
	{ "{{range $i, $e := $i.spec}}{{end}}",
	  "!template: output:1:20: executing \"output\" at <$i.spec>: undefined variable: $i" },
	{ "{{$x = 1}}{{$x}}",
	  "!template: output:1:7: executing \"output\" at <1>: undefined variable: $x" },
	{ "{{$y := 0}}{{range $y = .spec.items}}{{end}}{{$y.name}}",
	  "b" },
	{ "{{ \"unterminated }}",
	  "!template: output:1: unterminated quoted string" },
	{ "{{ .a .b }}",
	  "!template: output:1:3: executing \"output\" at <.a>: a is not a method but has arguments" },
	{ "{{break}}",
	  "!template: output:1: {{break}} outside {{range}}" },
	{ "{{else}}",
	  "!template: output:1: unexpected {{else}}" },
	{ "{{.items",
	  "!template: output:1: unclosed action" },
	/* found by fuzzing: each used to loop for ever (outputs are Go 1.23's) */
	{ "{{1 &}}",
	  "!template: output:1: unexpected \"&\" in operand" },
	{ "{{print 1 =\"b\"}}",
	  "!template: output:1: unexpected \"=\" in operand" },
	{ "{{.x ?}}",
	  "!template: output:1: unexpected \"?\" in operand" },
	/* item.String() is %q: a backslash doubled (kubectl 1.33 over a real apiserver) */
	{ "{{\\n}}",
	  "!template: output:1: unexpected \"\\\\\" in command" },
	/* fmt takes a width or precision past 1e6 for a mistake */
	{ "{{printf \"%2147483647d\" 1}}|{{printf \"%.2147483647d|\" 1}}|{{printf \"%.300f\" 0.5 | len}}",
	  "%!(NOVERB)%!(EXTRA int=1)|%!(NOVERB)%!(EXTRA int=1)|302" },
	/* named templates: {{define}}, {{template}}, {{block}} */
	{ "{{define \"x\"}}A{{.name}}{{end}}{{template \"x\" .metadata}}|{{template \"x\"}}",
	  "Acm|A<no value>" },
	{ "{{block \"b\" .metadata}}[{{.name}}]{{end}}{{define \"b\"}} {{end}}",
	  "[cm]" },
	{ "{{define \"output\"}}O{{end}}",
	  "O" },
	{ "{{range .spec.items}}{{template \"i\" .}}{{end}}{{define \"i\"}}{{.name}};{{end}}",
	  "a;b;" },
	{ "{{template \"t\" $y := 3}}{{$y}}{{define \"t\"}}{{.}}{{$}}{{end}}",
	  "333" },
	{ "{{define \"b\"}}<{{.name}}>{{end}}{{block \"b\" .metadata}}[{{.name}}]{{end}}",
	  "!template: output:1: template: multiple definition of template \"b\"" },
	{ "{{template \"x\"}}",
	  "!template: output:1:11: executing \"output\" at <{{template \"x\"}}>: template \"x\" not defined" },
	{ "{{define \"t\"}}{{index . 5}}{{end}}{{template \"t\" .spec.list}}",
	  "!template: output:1:16: executing \"t\" at <index . 5>: error calling index: index out of range: 5" },
	{ "{{define \"t\"}}{{$x}}{{end}}{{$x := 1}}",
	  "!template: output:1: undefined variable \"$x\"" },
	{ "{{if true}}{{define \"x\"}}{{end}}{{end}}",
	  "!template: output:1: unexpected <define> in command" },
	{ "{{define \"t\"}}{{break}}{{end}}",
	  "!template: output:1: {{break}} outside {{range}}" },
	{ "{{define \"t\" .}}{{end}}",
	  "!template: output:1: unexpected <.> in define clause" },
	{ "{{define \"t\"}}",
	  "!template: output:1: unexpected EOF" },
	{ "{{.spec.list | 3}}",
	  "!template: output:1: non executable command in pipeline stage 2" },
	/* character constants, and numbers past int64 */
	{ "{{'a'}} {{'\\n'}} {{'\\x41'}} {{'\xc3\xa9'}} {{printf \"%c\" 'x'}} {{eq 'a' 97}}",
	  "97 10 65 233 x true" },
	{ "{{'ab'}}",
	  "!template: output:1: malformed character constant: 'ab'" },
	{ "{{''}}",
	  "!template: output:1: invalid syntax" },
	{ "{{18446744073709551615}}",
	  "!template: output:1:2: executing \"output\" at <18446744073709551615>: 18446744073709551615 overflows int" },
	{ "{{99999999999999999999}}",
	  "!template: output:1: integer overflow: \"99999999999999999999\"" },
	{ "{{0x1p4}} {{0x1E}} {{1e3}}",
	  "16 30 1000" },
	{ "{{-0b101}} {{-0o17}} {{+0x1f}} {{1_000}} {{0x_1F}} {{-9223372036854775808}} {{017}}",
	  "-5 -15 31 1000 31 -9223372036854775808 15" },
	{ "{{08}}",
	  "!template: output:1: integer overflow: \"08\"" },
	{ "{{+9223372036854775808}}",
	  "!template: output:1: integer overflow: \"+9223372036854775808\"" },
	{ "{{12ab}}",
	  "!template: output:1: bad number syntax: \"12a\"" },
	{ "{{-/* c */}}",
	  "!template: output:1: illegal number syntax: \"-\"" },
	{ "{{1+2}}",
	  "!template: output:1: bad number syntax: \"1+2\"" },
	{ "{{1__0}}",
	  "!template: output:1: illegal number syntax: \"1__0\"" },
	{ "{{0b11111111111111111111111111111111111111111111111111111111111111111}}",
	  "!template: output:1: illegal number syntax: \"0b11111111111111111111111111111111111111111111111111111111111111111\"" },
	{ "{{1e400}}",
	  "!template: output:1: illegal number syntax: \"1e400\"" },
	{ "{{.a)}}",
	  "!template: output:1: unexpected right paren" },
	{ "{{(.a}}",
	  "!template: output:1: unclosed left paren" },
	/* no value through $, a variable, a pipe: the zero reflect.Value to a builtin */
	{ "{{not $.nope}}|{{eq $.nope 1}}|{{.nope | eq 1}}|{{$x := .nope}}{{eq $x 1}}|{{and $.nope 1}}",
	  "true|false|false|false|<no value>" },
	{ "{{len $.nope}}",
	  "!template: output:1:2: executing \"output\" at <len $.nope>: error calling len: "
	  "reflect: call of reflect.Value.Type on zero Value" },
	/* a string's byte is a uint8, and a range over one counts in uint8s */
	{ "{{printf \"%T %v\" (index \"abc\" 1) (index \"abc\" 1)}}|"
	  "{{range index \"\\x02\" 0}}{{printf \"%T %v,\" . .}}{{end}}|{{index .data.a 0 | printf \"%T\"}}",
	  "uint8 98|uint8 0,uint8 1,|uint8" },
	{ "{{slice (index .data.a 0)}}",
	  "!template: output:1:2: executing \"output\" at <slice (index .data.a 0)>: error calling slice: "
	  "can't slice item of type uint8" },
	{ "{{index .data.a 0 | len}}",
	  "!template: output:1:20: executing \"output\" at <len>: error calling len: len of type uint8" },
	/* each command of a pipeline digs into an interface{}: a nil is no value to the next */
	{ "{{index .data \"nope\" | base64decode}}",
	  "!template: output:1:23: executing \"output\" at <base64decode>: invalid value; expected string" },
	{ "{{index .data \"nope\" | len}}",
	  "!template: output:1:23: executing \"output\" at <len>: error calling len: "
	  "reflect: call of reflect.Value.Type on zero Value" },
	/* but a range's element is an interface{}, a nil one too */
	{ "{{range .spec.nils}}{{len .}}{{end}}",
	  "!template: output:1:22: executing \"output\" at <len .>: error calling len: len of nil pointer" },
	/* eq of a slice and a map: canCompare refuses the kinds before the types */
	{ "{{eq .spec.list .metadata.labels}}",
	  "!template: output:1:2: executing \"output\" at <eq .spec.list .metadata.labels>: error calling eq: "
	  "non-comparable types [%!s(int64=1) %!s(int64=2) %!s(int64=3)]: []interface {}, "
	  "map[string]interface {}: map[app:web tier:front]" },
	/* {{else with}}: kubectl 1.32's text/template (Go 1.23) */
	{ "{{with .nope}}a{{else with .kind}}{{.}}{{else}}c{{end}}|{{with .nope}}a{{else with .nope}}b{{else}}c{{end}}",
	  "ConfigMap|c" },
	/* a chain's fields fail where its term's evaluation ended */
	{ "{{(\"a\").x}}",
	  "!template: output:1:3: executing \"output\" at <\"a\">: can't evaluate field x in type string" },
	{ "{{(len .spec.list).x}}",
	  "!template: output:1:12: executing \"output\" at <.spec.list>: can't evaluate field x in type int" },
	/* a range's else is outside it */
	{ "{{range .spec.list}}{{else}}{{continue}}{{end}}",
	  "!template: output:1: {{continue}} outside {{range}}" },
	/* a nil in a slice is written as it is, a nil argument padded */
	{ "{{printf \"%8v|%7v|\" .spec.nils .spec.nul}}",
	  "[<nil>        1]|  <nil>|" },
	/* the escapers' evalArgs: no value is "<no value>", a string */
	{ "{{html .data.b}}|{{js nil 2}}|{{urlquery .spec.nul \"a b\"}}|{{html .nothere}}",
	  "x&lt;y&gt;|\\u003Cno value\\u003E2|%3Cno+value%3Ea+b|&lt;no value&gt;" },
};

TEST(templates_print_as_kubectl)
{
	struct json_object *data = json_tokener_parse(object);

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct errbuf err = { "" };
		struct strbuf out = STRBUF_INIT, msg = STRBUF_INIT;
		struct gotemplate *t = gotemplate_parse(r->tmpl, &err);
		int rc = t ? gotemplate_execute(t, data, &out, &msg) : -1;
		const char *got = rc < 0 ? (t ? strbuf_str(&msg) : err.msg) : strbuf_str(&out);
		const char *want = r->want[0] == '!' ? r->want + 1 : r->want;

		CHECKF((rc < 0) == (r->want[0] == '!') && !strcmp(got, want),
		       "template %s\n#   got %s \"%s\"\n#  want \"%s\"", r->tmpl,
		       rc < 0 ? "error" : "text", got, want);
		strbuf_release(&out);
		strbuf_release(&msg);
		gotemplate_free(t);
	}
	json_object_put(data);
}

TEST(output_before_an_error_is_kept)
{
	struct json_object *data = json_tokener_parse(object);
	struct errbuf err = { "" };
	struct strbuf out = STRBUF_INIT, msg = STRBUF_INIT;
	struct gotemplate *t = gotemplate_parse("{{range .spec.list}}{{.}},{{end}}{{len 3}}", &err);

	CHECK(t != NULL);
	CHECK_INT(gotemplate_execute(t, data, &out, &msg), -1);
	CHECK_STR(strbuf_str(&out), "1,2,3,");
	gotemplate_free(t);
	strbuf_release(&out);
	strbuf_release(&msg);
	json_object_put(data);
}

/* The fuzzers' limit: every range's iterations, all told, and none by default. */
TEST(a_limit_of_range_iterations_ends_a_run)
{
	struct json_object *data = json_tokener_parse(object);
	struct errbuf err = { "" };
	struct strbuf out = STRBUF_INIT, msg = STRBUF_INIT;
	struct gotemplate *t = gotemplate_parse("{{range 3}}{{range 4}}.{{end}}{{end}}", &err);

	CHECK(t != NULL);
	CHECK_INT(gotemplate_execute(t, data, &out, &msg), 0);
	CHECK_INT((int)out.len, 12);
	strbuf_reset(&out);
	gotemplate_limit_iterations(t, 10);
	CHECK_INT(gotemplate_execute(t, data, &out, &msg), -1);
	CHECK_STR(strbuf_str(&out), "........");
	CHECK_STR(strbuf_str(&msg), "template: output:1:19: executing \"output\" at <4>: "
		  "past kinf's limit of 10 range iterations");
	gotemplate_free(t);
	strbuf_release(&out);
	strbuf_release(&msg);
	json_object_put(data);
}

TEST(integral_numbers_become_int64)
{
	struct json_object *in = json_tokener_parse("{\"a\":2.0,\"b\":2.5,\"c\":1e21}");
	struct json_object *d = gotemplate_data(in);

	CHECK(json_object_is_type(json_object_object_get(d, "a"), json_type_int));
	CHECK(json_object_is_type(json_object_object_get(d, "b"), json_type_double));
	CHECK(json_object_is_type(json_object_object_get(d, "c"), json_type_double));
	json_object_put(d);
	json_object_put(in);
}

/*
 * What holds no integral float is the data's own: a List of pods is not
 * held twice for a template, jsonpath or custom columns.  What holds one
 * is a copy, its members in their order, and the data is unchanged.
 */
TEST(data_without_integral_floats_is_shared)
{
	struct json_object *in = json_tokener_parse(
		"{\"items\":[{\"s\":\"x\",\"n\":[1,2.5]},{\"m\":{\"k\":3.0},\"z\":null}],"
		"\"kind\":\"List\",\"last\":{\"q\":1}}");
	struct json_object *items = json_object_object_get(in, "items");
	struct json_object *d = gotemplate_data(in);
	struct json_object *ditems = json_object_object_get(d, "items");

	CHECK(d != in);
	CHECK(json_object_array_get_idx(ditems, 0) == json_object_array_get_idx(items, 0));
	CHECK(json_object_array_get_idx(ditems, 1) != json_object_array_get_idx(items, 1));
	CHECK(json_object_object_get(d, "last") == json_object_object_get(in, "last"));
	CHECK_STR(json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN),
		  "{\"items\":[{\"s\":\"x\",\"n\":[1,2.5]},{\"m\":{\"k\":3},\"z\":null}],"
		  "\"kind\":\"List\",\"last\":{\"q\":1}}");
	CHECK_STR(json_object_to_json_string_ext(in, JSON_C_TO_STRING_PLAIN),
		  "{\"items\":[{\"s\":\"x\",\"n\":[1,2.5]},{\"m\":{\"k\":3.0},\"z\":null}],"
		  "\"kind\":\"List\",\"last\":{\"q\":1}}");
	json_object_put(d);
	d = gotemplate_data(items);
	CHECK(d != items && json_object_array_length(d) == 2);
	json_object_put(d);
	d = gotemplate_data(json_object_array_get_idx(items, 0));
	CHECK(d == json_object_array_get_idx(items, 0));
	json_object_put(d);
	json_object_put(in);
}

int main(void)
{
	RUN(templates_print_as_kubectl);
	RUN(output_before_an_error_is_kept);
	RUN(a_limit_of_range_iterations_ends_a_run);
	RUN(integral_numbers_become_int64);
	RUN(data_without_integral_floats_is_shared);
	return unit_done();
}

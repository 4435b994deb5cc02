/*
 * gotemplate.h — the part of Go's text/template that kubectl users write
 * in `kubectl get -o go-template=…`, over json-c trees, printing what
 * kubectl 1.32 prints byte for byte.
 *
 * kubectl marshals the object to JSON and decodes it with apimachinery's
 * json.Unmarshal, which reads every number that fits an int64 as one:
 * integers are int64s (and so is 1000000.0, which Go marshals as
 * 1000000), other numbers float64s.  The template's own number literals
 * are ints, or float64s when they have a '.' or an exponent: `eq
 * .spec.replicas 3` holds, `eq .spec.replicas 3.0` is an error.  A
 * missing key is "<no value>" (missingkey=default), or an error with
 * gotemplate_missingkey_error().
 *
 * Supported:
 *   text and {{actions}}, trim markers {{- and -}}, comments
 *   {{if P}} {{else if P}} {{else}} {{end}}, {{with P}}…{{else}}…{{end}},
 *   {{range P}}…{{else}}…{{end}} with $v := or $i, $v :=, {{break}},
 *   {{continue}}
 *   pipelines with |, variables ($, $x := P, $x = P), (P).field chains
 *   fields .a.b, $x.a, literals: "strings" with Go escapes, `raw`,
 *   numbers, character constants ('a' is 97), true, false, nil
 *   functions: and or not len index slice print printf println eq ne lt
 *   le gt ge html js urlquery call, and kubectl's own exists and
 *   base64decode
 *   named templates: {{define "n"}}…{{end}} at the top level,
 *   {{template "n" P}}, {{block "n" P}}…{{end}}; the text itself is
 *   "output", which a {{define "output"}} replaces when the text has
 *   nothing but white space
 * Not supported: complex numbers (1i), a parse error.  As in kubectl
 * 1.32, {{range}} goes over slices and maps only, and there is no
 * {{else with}}.  A template calling templates stops at Go's depth of
 * 100,000, or sooner, with an error of its own, where the thread's stack
 * would run out (about 36,000 on 8 MiB).
 *
 * Errors read as Go's: parse errors "template: output:1: function
 * \"upper\" not defined", execution errors "template: output:1:11:
 * executing \"output\" at <.a.b>: can't evaluate field b in type
 * interface {}".
 *
 * Ownership: gotemplate_parse() returns a template the caller frees; it
 * is read-only while executing (any thread, several at once).  Data is
 * borrowed and never changed.
 */
#ifndef KINF_GOTEMPLATE_H
#define KINF_GOTEMPLATE_H

#include <stdint.h>

struct json_object;
struct strbuf;
struct errbuf;
struct gotemplate;

/* Parses text; NULL with err set to Go's message. */
struct gotemplate *gotemplate_parse(const char *text, struct errbuf *err);
void gotemplate_free(struct gotemplate *t);	/* NULL is a no-op */
/*
 * Go's t.Option("missingkey=error"), kubectl's
 * --allow-missing-template-keys=false: a field a map does not have is
 * the error "map has no entry for key \"x\"", one read from no value
 * "nil data; no entry for key \"x\"".
 */
void gotemplate_missingkey_error(struct gotemplate *t);
/*
 * For fuzzing: a run that takes more than max iterations of its ranges,
 * all told, ends with an error of kinf's own.  Go has no such limit (0,
 * the default): {{range 100000000000}} runs as long as it says.
 */
void gotemplate_limit_iterations(struct gotemplate *t, uint64_t max);

/*
 * Executes t on data as kubectl does (numbers as gotemplate_data() makes them),
 * appending to out.  Returns -1 with err holding Go's message, whole and
 * as it is (a value it quotes may hold any byte); out then holds what was
 * printed before the error, as Go's writer would.
 */
int gotemplate_execute(const struct gotemplate *t, struct json_object *data,
		       struct strbuf *out, struct strbuf *err);

/*
 * data as kubectl's template engine sees it: every integral number an
 * int64, in a copy of what holds one; the rest is data's, shared (a
 * reference taken).  Neither is to be changed.  The caller puts it.
 */
struct json_object *gotemplate_data(struct json_object *data);

#endif

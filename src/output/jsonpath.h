/*
 * jsonpath.h — kubectl's JSONPath templates over json-c trees: the
 * dialect of `kubectl get -o jsonpath=…`, of custom columns, of
 * --sort-by and of a CRD's additionalPrinterColumns.
 *
 * It follows k8s.io/client-go/util/jsonpath as kubectl 1.28 ships it
 * (Parser.parseText … parseFilter in parser.go; JSONPath.FindResults,
 * PrintResults, evalArray, evalFilter … in jsonpath.go), including its
 * error messages and its quirks:
 *
 *   text{.a.b}text           plain text around actions
 *   {.items[*].metadata.name} fields, wildcards [*] and .*, indexes [0],
 *                            negative indexes [-1], slices [1:3], [::2]
 *   {.items[0,2]}            unions
 *   {..name}                 recursive descent
 *   {.items[?(@.status.phase=="Running")]}
 *                            filters: == != < > <= >=, or existence
 *                            [?(@.a)]; numbers, true/false, 'quoted' or
 *                            "quoted" strings (Go escapes: \t \n \u00e9 …)
 *   {range .items[*]}…{end}  loops, nestable
 *   {@} {$}                  the current object
 *   {.labels['app']}         quoted keys (dots inside still split them,
 *                            as in kubectl; escape them: ['a\.b'])
 *
 * Values are printed as kubectl prints them: strings bare, numbers and
 * booleans as Go's fmt does (1e+06, not 1000000, for a float), JSON null
 * as "<nil>", objects and arrays as Go's json.Marshal (compact, keys
 * sorted, <>& escaped), through output/gofmt.h; the results of one
 * action separated by spaces.
 * Members of an object are visited in key order where kubectl's order
 * is Go's random map order (wildcards over objects, recursive descent).
 *
 * Ownership: jsonpath_parse() returns a template the caller frees; the
 * data tree is borrowed.  Result values (jsonpath_find) are references
 * the caller puts, NULL standing for JSON null.  A template is read-only
 * while executing and may be shared between threads (a run's place in
 * it, jsonpath_execute()'s from, is the caller's).
 */
#ifndef KINF_JSONPATH_H
#define KINF_JSONPATH_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct strbuf;
struct errbuf;

struct jsonpath;

/*
 * Parses a template.  Returns NULL with err set to the parser's message
 * ("unterminated array", "unrecognized character in action: U+0023 '#'").
 */
struct jsonpath *jsonpath_parse(const char *text, struct errbuf *err);
void jsonpath_free(struct jsonpath *jp);	/* NULL is a no-op */

/*
 * Executes the template on data, appending the text (kubectl's Execute).
 * allow_missing: a missing field gives nothing instead of the error
 * "NAME is not found" (kubectl's --allow-missing-template-keys, on by
 * default).  Returns -1 with err set on an evaluation error ("array index
 * out of bounds: index 9, length 5"); out may then hold partial text.
 *
 * from NULL: the whole template.  Else the run starts at the action
 * *from (0 at first) and keeps where the next would: kubectl's printer
 * runs one JSONPath for every object `get -w` prints, and client-go's
 * FindResults leaves its template as the actions after the last range
 * it entered.  So a template with a range runs whole once; the next
 * run begins inside the range, and its {end} fails ("not in range,
 * nothing to end"), as kubectl's.
 */
int jsonpath_execute(const struct jsonpath *jp, size_t *from, struct json_object *data,
		     bool allow_missing, struct strbuf *out, struct errbuf *err);

/*
 * The values the template selects (kubectl's FindResults, flattened: one
 * list for all the actions).  *values is a new array of *nr references
 * (NULL for JSON null); free it with jsonpath_values_free().
 */
int jsonpath_find(const struct jsonpath *jp, struct json_object *data,
		  bool allow_missing, struct json_object ***values, size_t *nr,
		  struct errbuf *err);
void jsonpath_values_free(struct json_object **values, size_t nr);
/*
 * The same, group by group as FindResults makes them (what
 * jsonpath-as-json prints an array for): the values of each action and
 * text, and of each turn of a range.  fn borrows them.
 */
typedef void jsonpath_group_fn(void *ctx, struct json_object *const *values, size_t nr);
int jsonpath_each_group(const struct jsonpath *jp, size_t *from, struct json_object *data,
			bool allow_missing, jsonpath_group_fn *fn, void *ctx, struct errbuf *err);

/*
 * kubectl's RelaxedJSONPathExpression: "name1.name2", ".name1.name2",
 * "{name1.name2}" and "{.name1.name2}" all become "{.name1.name2}" (for
 * custom columns and --sort-by).  Appends to out; -1 with err set when
 * the expression has none of these forms.
 */
int jsonpath_relaxed(const char *expr, struct strbuf *out, struct errbuf *err);

/*
 * One value as a JSONPath action prints it: objects and arrays as
 * gofmt_marshal(), a null as "null" (as kubectl 1.29 and later; 1.28's
 * printed "<nil>"), the rest as gofmt_print() (output/gofmt.h).
 */
void jsonpath_print_value(struct json_object *v, struct strbuf *out);

#endif

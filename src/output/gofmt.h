/*
 * gofmt.h — JSON values (json-c trees) printed as Go prints the same
 * values decoded into interface{}: map[string]interface{}, []interface{},
 * string, float64 or int64, bool, nil.  kubectl's outputs go through
 * Go's fmt and encoding/json, so kinf's JSONPath, custom columns, tables
 * and YAML print values with these to print what kubectl prints; a Go
 * text/template would print with the same.
 *
 * Go's rules, as followed here:
 *   - fmt's %v (gofmt_print): strings bare, nil as <nil>, floats with the
 *     shortest digits in %g form from exponent 6 on (1e+06, 0.5), maps as
 *     map[k:v k:v] with keys sorted, slices as [a b];
 *   - encoding/json's Marshal (gofmt_marshal): compact, keys sorted,
 *     strings HTML-safe (<>& as \u003c…), U+2028/U+2029 escaped, bytes
 *     that are not UTF-8 as \ufffd, floats as 'f' unless below 1e-6 or
 *     from 1e21 on ('e', with "e-7" not "e-07").
 * A json-c int is an int64 to Go, a json-c double a float64.
 *
 * Every function appends to out and keeps no state: any thread.  Values
 * are borrowed, never changed (json-c's reference counts are not
 * touched), so a tree may be printed by two threads at once.
 */
#ifndef KINF_GOFMT_H
#define KINF_GOFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct strbuf;

/* A value as fmt's %v prints it: map[a:1 b:x], [1 2], <nil>, 1e+06. */
void gofmt_print(struct json_object *v, struct strbuf *out);
/* A value as json.Marshal writes it (keys sorted, <>& escaped). */
void gofmt_marshal(struct json_object *v, struct strbuf *out);
/* The same as json.MarshalIndent(v, "", "    ") writes it. */
void gofmt_marshal_indent(struct json_object *v, struct strbuf *out);
/* s[0..len) as json.Marshal writes a string, quotes included. */
void gofmt_marshal_string(const char *s, size_t len, struct strbuf *out);

/*
 * text/template's basicKind of a JSON value (the comparisons of
 * templates and kubectl's JSONPath filters): GO_KIND_BAD for a map, an
 * array or null.
 */
enum go_kind { GO_KIND_BAD, GO_KIND_BOOL, GO_KIND_INT, GO_KIND_FLOAT, GO_KIND_STRING };
enum go_kind gofmt_basic_kind(struct json_object *v);
/* <0, 0 or >0 for two values of kind k; 2 for floats a NaN leaves unordered. */
int gofmt_basic_cmp(enum go_kind k, struct json_object *a, struct json_object *b);

/* strconv.Quote(s[0..len)): "a\"b\n", bytes that are not UTF-8 as \x.. */
void gofmt_quote(const char *s, size_t len, struct strbuf *out);
/*
 * The same with another quote (\' for strconv.QuoteRune) and, with
 * ascii, every rune beyond ASCII escaped (\u00e9): strconv.QuoteToASCII.
 */
void gofmt_quote_ex(const char *s, size_t len, char quote, bool ascii, struct strbuf *out);
/* strconv.IsPrint(r). */
bool gofmt_is_print(uint32_t r);
/*
 * strconv.Unquote of s[0..n), a "-quoted string with Go's escapes, and
 * (client-go's UnquoteExtend, for JSONPath) a '-quoted one: appends the
 * text to out; -1 on bad syntax.
 */
int gofmt_unquote(const char *s, size_t n, struct strbuf *out);

/*
 * strconv.FormatFloat(d, fmt, -1, 64) for fmt 'e', 'f' or 'g': the
 * shortest digits that read back as d; NaN, +Inf, -Inf.
 */
void gofmt_float(double d, char fmt, struct strbuf *out);

/* Go's name of a value's type, as reflect prints it: "float64", "<nil>". */
const char *gofmt_type(struct json_object *v);

/*
 * The member names of an object, sorted bytewise (the order Go's fmt and
 * encoding/json print a map in).  A new array of *nr names (free() it)
 * pointing into obj, valid while obj is unchanged.
 */
const char **gofmt_sorted_keys(struct json_object *obj, size_t *nr);

#endif

/*
 * format.h — kubectl's -o formats for whole objects: json, yaml, name,
 * jsonpath=, jsonpath-file=, custom-columns=, custom-columns-file=, and
 * the --sort-by comparison.  (The table formats, default and wide, are
 * kubetable.h's.)
 *
 * Each follows cli-runtime's printer of the same name (printers/json.go,
 * yaml.go, name.go, jsonpath.go, customcolumn.go) and kubectl's sorter
 * (kubectl/pkg/cmd/get/sorter.go), byte for byte on the same object:
 *
 *   json           Go's json.MarshalIndent with four spaces, keys sorted
 *   yaml           yaml.h; documents separated by "---" when printing
 *                  one object at a time (watch)
 *   jsonpath=T     the template executed once on the object (a List for
 *                  `get`), missing keys allowed, no newline added
 *   custom-columns=HEADER:PATH,…   one row per item, the path relaxed
 *                  (".a.b", "a.b", "{.a.b}"), each cell its values as Go's
 *                  %v joined by ",", "<none>" when there are none; aligned
 *                  as kubectl's tabwriter aligns (kubetable.h's table)
 *   custom-columns-file=F   line 1 the headers, line 2 the paths
 *   jsonpath-as-json=T   the values the template selects, as one JSON
 *                  array (json.MarshalIndent, four spaces) and a newline
 *   go-template=T  gotemplate.h's; on an execution error, kubectl's
 *                  "Error executing template: …" block for debugging is
 *                  appended to the output (kubectl prints it on stdout)
 *
 * Error messages are kubectl's: "unexpected custom-columns spec: NAME,
 * expected <header>:<json-path-expr>", "error parsing jsonpath {.a[},
 * unterminated array".
 *
 * Ownership: a format owns its templates; objects are borrowed.
 */
#ifndef KINF_FORMAT_H
#define KINF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "output/columns.h"
#include "output/table_writer.h"

struct json_object;
struct strbuf;
struct errbuf;
struct jsonpath;
struct gotemplate;

enum format_kind {
	FORMAT_TABLE,		/* "" */
	FORMAT_WIDE,
	FORMAT_NAME,
	FORMAT_JSON,
	FORMAT_YAML,
	FORMAT_JSONPATH,	/* jsonpath=, jsonpath-file=, jsonpath-as-json= */
	FORMAT_GOTEMPLATE,	/* go-template=, go-template-file=, template=, templatefile= */
	FORMAT_CUSTOM_COLUMNS,	/* custom-columns=, custom-columns-file= */
};

struct format {
	enum format_kind kind;
	char *template_text;		/* jsonpath, go-template: as given, for messages */
	struct jsonpath *jsonpath;
	bool as_json;			/* jsonpath-as-json */
	bool strict_keys;		/* format_flags' */
	struct gotemplate *gotemplate;
	size_t ncols;			/* custom columns */
	char **headers;
	struct jsonpath **columns;	/* NULL: columns_err */
	/*
	 * The first column path that does not parse: kubectl parses them as
	 * it prints, so its header comes out before this error does.
	 */
	char *columns_err;
	unsigned printed;		/* objects printed one at a time so far */
	int last_type;			/* format_print_watch()'s type, last printed */
	struct table_widths widths;	/* custom columns' so far, one at a time */
	struct table *held;		/* format_hold()'s rows; NULL: none */
	/*
	 * Set by the caller when stdout is a terminal: custom-columns' cells
	 * and jsonpath's text are then escaped (termsafe.h).  Piped, they
	 * stay byte for byte kubectl's, for the scripts that parse them.
	 */
	bool terminal;
	/*
	 * Set by kubectl's commands (get): yaml prints an object as kubectl's
	 * does, refusals included (YAML_AS_KUBECTL), and format_print_watch()
	 * runs a JSONPath as kubectl's printer does, each run from where the
	 * last left it (jsonpath_from: jsonpath.h's from).  kinf's own watch
	 * prints every object as it is, with the whole template.
	 */
	bool kubectl;
	size_t jsonpath_from;
};

/*
 * The -o names, for --help and completion (the ones taking "=VALUE" end
 * with '=').
 */
extern const char *const format_names[];

/*
 * kubectl's printer flags beside -o (cli-runtime's PrintFlags):
 * template_arg is --template, the template of -o go-template, jsonpath
 * and their -file forms written without "=", and alone it means -o
 * go-template; strict_keys is --allow-missing-template-keys=false, a
 * missing key an error in those templates ("map has no entry for key",
 * "NAME is not found").
 */
struct format_flags {
	const char *template_arg;	/* NULL or "": none */
	bool strict_keys;
};

/*
 * Parses an -o value ("wide", "jsonpath={.a}", "custom-columns-file=F",
 * reading the file), with ff's flags (NULL: none).  table_name is what
 * "table" is called ("table" for get, "line" for watch) and is accepted
 * for FORMAT_TABLE.  Returns -1 with err set, naming the problem as
 * kubectl does; but a custom column's path that does not parse is
 * f->columns_err, which printing tells after the header, as kubectl.
 */
int format_parse(struct format *f, const char *spec, const char *table_name,
		 const struct format_flags *ff, struct errbuf *err);
void format_release(struct format *f);

/*
 * Appends the text of obj (a List for `get`'s lists) in a non-table
 * format.  For custom columns, obj's "items" (or obj itself when it has
 * none) are the rows, with a header line unless no_headers.  Returns -1
 * with err set on a template error (kubectl's "error executing jsonpath
 * …" message).
 */
int format_print(struct format *f, struct json_object *obj, bool no_headers,
		 struct strbuf *out, struct errbuf *err);

/*
 * Objects as `kubectl get -w` prints them, objs[0..n) in one flush of
 * its tabwriter (the initial list, or one event): yaml puts "---" between
 * documents, custom columns print their header before the first row and
 * again when type changes (kubectl prints a header per Go type: 0 for
 * objects, another for a Status), every column as wide as the widest
 * cell it has had so far (columns.h's struct table_widths).  Others print
 * each object as format_print does.
 */
int format_print_watch(struct format *f, struct json_object *const *objs, size_t n,
		       int type, bool no_headers, struct strbuf *out, struct errbuf *err);
/* One object so: format_print_watch(f, &obj, 1, 0, ...). */
int format_print_one(struct format *f, struct json_object *obj, bool no_headers,
		     struct strbuf *out, struct errbuf *err);

/*
 * `kinf watch`'s custom columns (its own output, not get -w's): the
 * initial list's rows are held (format_hold(), its cells made now: -1
 * with err on a template error) until format_print_held() prints them
 * all in the widths that fit them all, as the line output holds its
 * initial lines; format_print_one() goes on from those widths.
 */
int format_hold(struct format *f, struct json_object *obj, struct errbuf *err);
void format_print_held(struct format *f, bool no_headers, struct strbuf *out);

/*
 * --sort-by: kubectl's order of two values (the first each object's
 * path gives; NULL when none): an object without one sorts first;
 * numbers by value, strings as quantities when both are ("100m" < "1"),
 * else byte by byte ("pod-10" < "pod-9"), as kubectl 1.31 and later
 * (1.30 and earlier sorted naturally).  Returns <0, 0 or >0, or sets
 * *bad (kubectl dies: "unsortable type") for other types.  Its Less is
 * this < 0: no strict order (two missing values are each less than the
 * other), so the order is sort.Sort's (lib/gosort.h).
 */
int format_sort_cmp(struct json_object *a, bool a_found, struct json_object *b,
		    bool b_found, bool *bad);

#endif

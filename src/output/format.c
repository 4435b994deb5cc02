/*
 * format.c — kubectl's object printers (json, yaml, jsonpath, custom
 * columns) and its --sort-by order; see format.h.
 */
#include "output/format.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "output/columns.h"
#include "output/gofmt.h"
#include "output/gotemplate.h"
#include "output/jsonpath.h"
#include "output/yaml.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "lib/util.h"

const char *const format_names[] = {
	"wide", "name", "json", "yaml", "jsonpath=", "jsonpath-file=",
	"jsonpath-as-json=", "go-template=", "go-template-file=", "template=",
	"templatefile=", "custom-columns=", "custom-columns-file=", NULL,
};

/*
 * A template file, or kubectl's "error reading --template F, open F: no
 * such file or directory" (what names the flag: "template" for custom
 * columns), with Go's lowercase words for errno.
 */
static int read_file(const char *path, const char *what, struct strbuf *out,
		     struct errbuf *err)
{
	FILE *f = fopen(path, "r");
	int rc = f ? strbuf_read_fd(out, fileno(f)) : -1, failed = errno;
	char why[128];

	if (f)
		fclose(f);
	if (!rc)
		return 0;
	snprintf(why, sizeof(why), "%s", strerror(failed));
	why[0] = (char)tolower((unsigned char)why[0]);
	errbuf_set(err, "error reading %s %s, %s %s: %s", what, path, f ? "read" : "open", path,
		   why);
	return -1;
}

static int add_column(struct format *f, const char *header, size_t hlen,
		      const char *path, struct errbuf *err)
{
	struct strbuf rel = STRBUF_INIT;
	struct jsonpath *jp;

	if (jsonpath_relaxed(path, &rel, err) < 0) {
		strbuf_release(&rel);
		return -1;
	}
	jp = jsonpath_parse(strbuf_str(&rel), err);
	strbuf_release(&rel);
	if (!jp && !f->columns_err)
		f->columns_err = xstrdup(err->msg);
	f->headers = xrealloc(f->headers, (f->ncols + 1) * sizeof(*f->headers));
	f->columns = xrealloc(f->columns, (f->ncols + 1) * sizeof(*f->columns));
	f->headers[f->ncols] = xstrndup(header, hlen);
	f->columns[f->ncols++] = jp;
	return 0;
}

/* cli-runtime's NewCustomColumnsPrinterFromSpec. */
static int parse_columns_spec(struct format *f, const char *spec, struct errbuf *err)
{
	for (const char *part = spec, *comma; part; part = comma ? comma + 1 : NULL) {
		comma = strchr(part, ',');
		size_t n = comma ? (size_t)(comma - part) : strlen(part);
		const char *colon = memchr(part, ':', n);
		if (!colon) {
			errbuf_set(err, "unexpected custom-columns spec: %.*s, expected "
				   "<header>:<json-path-expr>", (int)n, part);
			return -1;
		}
		char *path = xstrndup(colon + 1, n - (size_t)(colon - part) - 1);
		int rc = add_column(f, part, (size_t)(colon - part), path, err);
		free(path);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Whitespace-separated words of one line. */
static size_t split_words(char *line, char **words, size_t max)
{
	size_t n = 0;

	for (char *tok = strtok(line, " \t\r"); tok && n < max; tok = strtok(NULL, " \t\r"))
		words[n++] = tok;
	return n;
}

/* cli-runtime's NewCustomColumnsPrinterFromTemplate. */
static int parse_columns_file(struct format *f, const char *path, struct errbuf *err)
{
	static const char usage[] = "Expected format is one line of space separated "
				    "headers, one line of space separated column specs.";
	struct strbuf text = STRBUF_INIT;
	char *headers[64], *specs[64];
	int ret = -1;

	if (read_file(path, "template", &text, err) < 0)
		goto out;
	char *l1 = text.buf, *l2 = strchr(l1, '\n');
	if (!text.len) {
		errbuf_set(err, "invalid template, missing header line. %s", usage);
		goto out;
	}
	if (!l2 || !l2[1]) {
		errbuf_set(err, "invalid template, missing spec line. %s", usage);
		goto out;
	}
	*l2++ = '\0';
	char *end = strchr(l2, '\n');
	if (end)
		*end = '\0';
	size_t nh = split_words(l1, headers, 64), ns = split_words(l2, specs, 64);
	if (nh != ns) {
		errbuf_set(err, "number of headers (%zu) and field specifications (%zu) don't match",
			   nh, ns);
		goto out;
	}
	for (size_t i = 0; i < nh; i++)
		if (add_column(f, headers[i], strlen(headers[i]), specs[i], err) < 0)
			goto out;
	ret = 0;
out:
	strbuf_release(&text);
	return ret;
}

/* go-template=, template=, go-template-file=, templatefile= */
static int parse_gotemplate(struct format *f, struct errbuf *err)
{
	f->kind = FORMAT_GOTEMPLATE;
	if (!*f->template_text) {
		errbuf_set(err, "template format specified but no template given");
		return -1;
	}
	f->gotemplate = gotemplate_parse(f->template_text, err);
	if (!f->gotemplate) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		errbuf_set(err, "error parsing template %s, %s", f->template_text, msg);
		return -1;
	}
	if (f->strict_keys)
		gotemplate_missingkey_error(f->gotemplate);
	return 0;
}

/* The templates' -o names: a name, whether it names a file, the kind. */
static const struct {
	const char *name;
	bool file, as_json;
	enum format_kind kind;
} templated[] = {
	{ "jsonpath", false, false, FORMAT_JSONPATH },
	{ "jsonpath-file", true, false, FORMAT_JSONPATH },
	{ "jsonpath-as-json", false, true, FORMAT_JSONPATH },
	{ "go-template", false, false, FORMAT_GOTEMPLATE },
	{ "template", false, false, FORMAT_GOTEMPLATE },
	{ "go-template-file", true, false, FORMAT_GOTEMPLATE },
	{ "templatefile", true, false, FORMAT_GOTEMPLATE },
};

static void no_printer(const char *spec, const char *table_name, struct errbuf *err)
{
	struct strbuf all = STRBUF_INIT;

	for (const char *const *p = format_names; *p; p++)
		strbuf_addf(&all, "%s%s", all.len ? ", " : "", *p);
	errbuf_set(err, "unable to match a printer suitable for the output format "
		   "\"%s\", allowed formats are: %s%s%s", spec,
		   table_name ? table_name : "", table_name ? ", " : "", strbuf_str(&all));
	strbuf_release(&all);
}

/*
 * A template format's row of templated[] (or -1), and its text: NAME=TEXT,
 * or NAME and --template.
 */
static int template_of(const char *spec, const struct format_flags *ff, const char **text)
{
	const char *eq = strchr(spec, '=');
	bool arg = ff && ff->template_arg && *ff->template_arg;
	size_t n = arg || !eq ? strlen(spec) : (size_t)(eq - spec);

	for (int t = 0; t < (int)ARRAY_SIZE(templated); t++) {
		if (strlen(templated[t].name) == n && !strncmp(spec, templated[t].name, n)) {
			*text = arg ? ff->template_arg : eq ? eq + 1 : "";
			return t;
		}
	}
	return -1;
}

int format_parse(struct format *f, const char *spec, const char *table_name,
		 const struct format_flags *ff, struct errbuf *err)
{
	static const struct { const char *name; enum format_kind kind; } plain[] = {
		{ "", FORMAT_TABLE }, { "wide", FORMAT_WIDE }, { "name", FORMAT_NAME },
		{ "json", FORMAT_JSON }, { "yaml", FORMAT_YAML },
	};
	struct strbuf text = STRBUF_INIT;
	const char *value;
	int t;

	memset(f, 0, sizeof(*f));
	f->strict_keys = ff && ff->strict_keys;
	if (!*spec && ff && ff->template_arg && *ff->template_arg)
		spec = "go-template";	/* --template alone, as kubectl's */
	if (table_name && !strcmp(spec, table_name))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++) {
		if (!strcmp(spec, plain[i].name)) {
			f->kind = plain[i].kind;
			return 0;
		}
	}
	if (str_starts_with(spec, "custom-columns")) {
		bool file = str_starts_with(spec, "custom-columns-file");
		const char *cols = spec + strlen(file ? "custom-columns-file" : "custom-columns");
		if (*cols == '=' || !*cols) {
			f->kind = FORMAT_CUSTOM_COLUMNS;
			if (!*cols || !cols[1]) {
				errbuf_set(err, "custom-columns format specified but no custom columns given");
				return -1;
			}
			if ((file ? parse_columns_file(f, cols + 1, err)
				  : parse_columns_spec(f, cols + 1, err)) < 0)
				goto fail;
			return 0;
		}
	}
	if ((t = template_of(spec, ff, &value)) < 0) {
		no_printer(spec, table_name, err);
		return -1;
	}
	if (!*value) {
		errbuf_set(err, "template format specified but no template given");
		return -1;
	}
	if (templated[t].file && read_file(value, "--template", &text, err) < 0)
		return -1;
	f->template_text = templated[t].file ? strbuf_detach(&text, NULL) : xstrdup(value);
	f->as_json = templated[t].as_json;
	if (templated[t].kind == FORMAT_GOTEMPLATE)
		return parse_gotemplate(f, err) < 0 ? (format_release(f), -1) : 0;
	f->kind = FORMAT_JSONPATH;
	f->jsonpath = jsonpath_parse(f->template_text, err);
	if (!f->jsonpath) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		errbuf_set(err, "error parsing jsonpath %s, %s", f->template_text, msg);
		goto fail;
	}
	return 0;
fail:
	format_release(f);
	return -1;
}

void format_release(struct format *f)
{
	for (size_t i = 0; i < f->ncols; i++) {
		free(f->headers[i]);
		jsonpath_free(f->columns[i]);
	}
	free(f->headers);
	free(f->columns);
	free(f->columns_err);
	jsonpath_free(f->jsonpath);
	gotemplate_free(f->gotemplate);
	free(f->template_text);
	table_widths_release(&f->widths);
	table_free(f->held);
	memset(f, 0, sizeof(*f));
}

/* ---- custom columns --------------------------------------------------------- */

/* Adds obj's row of cells to t (cli-runtime's printOneObject). */
static int add_row(struct format *f, struct table *t, struct json_object *obj,
		   struct errbuf *err)
{
	char **cells = xcalloc(f->ncols ? f->ncols : 1, sizeof(*cells));
	int rc = 0;

	if (f->columns_err) {
		errbuf_set(err, "%s", f->columns_err);
		rc = -1;
	}
	for (size_t c = 0; c < f->ncols && rc == 0; c++) {
		struct json_object **v;
		size_t nr;
		struct strbuf sb = STRBUF_INIT;
		if ((rc = jsonpath_find(f->columns[c], obj, true, &v, &nr, err)) < 0)
			break;
		if (!nr)
			strbuf_adds(&sb, "<none>");
		for (size_t i = 0; i < nr; i++) {
			if (i)
				strbuf_addch(&sb, ',');
			gofmt_print(v[i], &sb);
		}
		jsonpath_values_free(v, nr);
		/* kubectl escapes ESC and CR here too (PR 112553); a terminal all. */
		unsigned how = f->terminal ? 0 : TERMSAFE_KUBECTL;
		if (!termsafe_is_safe(sb.buf, sb.len, how)) {
			cells[c] = termsafe_dup(sb.buf, how);
			strbuf_release(&sb);
		} else {
			cells[c] = strbuf_detach(&sb, NULL);
		}
	}
	if (rc == 0)
		table_add_row(t, (const char *const *)cells);
	for (size_t c = 0; c < f->ncols; c++)
		free(cells[c]);
	free(cells);
	return rc;
}

static int print_columns(struct format *f, struct json_object *obj, bool no_headers,
			 struct strbuf *out, struct errbuf *err)
{
	struct table *t = table_new((const char *const *)f->headers, f->ncols);
	struct json_object *items = json_get_array(obj, "items");
	size_t n = items ? json_object_array_length(items) : 1;
	int ret = 0;

	if (f->columns_err) {	/* the header, then the error, whatever the rows */
		errbuf_set(err, "%s", f->columns_err);
		ret = -1;
	}
	for (size_t i = 0; i < n && ret == 0; i++)
		ret = add_row(f, t, items ? json_object_array_get_idx(items, i) : obj, err);
	table_format(t, no_headers, NULL, out);
	table_free(t);
	return ret;
}

/* ---- printing ------------------------------------------------------------- */

/* One group of jsonpath-as-json's values: an indented JSON array, a newline. */
static void json_group(void *ctx, struct json_object *const *v, size_t nr)
{
	struct strbuf *out = ctx;
	struct json_object *array = json_object_new_array_ext((int)nr);

	for (size_t i = 0; i < nr; i++)
		json_object_array_add(array, v[i] ? json_object_get(v[i]) : NULL);
	gofmt_marshal_indent(array, out);
	strbuf_addch(out, '\n');
	json_object_put(array);
}

/*
 * kubectl's GoTemplatePrinter.PrintObj: on an error, what was printed,
 * then the message, the template and the data, as kubectl's block on
 * stdout has them.
 */
static int run_gotemplate(struct format *f, struct json_object *obj, struct strbuf *out,
			  struct errbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	int rc = gotemplate_execute(f->gotemplate, obj, out, &msg);

	if (rc < 0) {
		strbuf_addf(out, "Error executing template: %s. Printing more information for "
			    "debugging the template:\n\ttemplate was:\n\t\t%s\n\traw data was:\n\t\t",
			    msg.buf, f->template_text);
		gofmt_marshal(obj, out);
		strbuf_adds(out, "\n\tobject given to template engine was:\n\t\t");
		struct json_object *data = gotemplate_data(obj);
		gofmt_print(data, out);
		json_object_put(data);
		strbuf_adds(out, "\n\n");
		struct strbuf q = STRBUF_INIT;
		gofmt_quote(f->template_text, strlen(f->template_text), &q);
		errbuf_set(err, "error executing template %s: %s", strbuf_str(&q), msg.buf);
		strbuf_release(&q);
	}
	strbuf_release(&msg);
	return rc;
}

static int run_jsonpath(struct format *f, struct json_object *obj, size_t *from,
			struct strbuf *out, struct errbuf *err)
{
	/* jsonpath-as-json: an array for each group of values (kubectl's PrintResults) */
	int rc = f->as_json ?
		 jsonpath_each_group(f->jsonpath, from, obj, !f->strict_keys, json_group, out, err) :
		 jsonpath_execute(f->jsonpath, from, obj, !f->strict_keys, out, err);

	if (rc < 0) {
		struct strbuf q = STRBUF_INIT;	/* the template, as Go's %q */
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		gofmt_quote(f->template_text, strlen(f->template_text), &q);
		errbuf_set(err, "error executing jsonpath %s: Error executing template: %s",
			   q.buf, msg);
		strbuf_release(&q);
		return -1;
	}
	return 0;
}

static int yaml_print(const struct format *f, struct json_object *obj, struct strbuf *out,
		      struct errbuf *err)
{
	return yaml_emit(obj, out, (f->terminal ? YAML_TERMINAL : 0) |
				   (f->kubectl ? YAML_AS_KUBECTL : 0), err);
}

static int print_text(struct format *f, struct json_object *obj, bool no_headers,
		      size_t *from, struct strbuf *out, struct errbuf *err)
{
	switch (f->kind) {
	case FORMAT_JSON:
		gofmt_marshal_indent(obj, out);
		strbuf_addch(out, '\n');
		return 0;
	case FORMAT_YAML:
		return yaml_print(f, obj, out, err);
	case FORMAT_JSONPATH:
	case FORMAT_CUSTOM_COLUMNS: {
		/*
		 * kubectl's List of several objects went through json.Marshal
		 * and its decoder: an integral float is an int in it (1000000,
		 * not 1e+06), as in a template's data.  One object did not.
		 */
		bool list = !strcmp(json_get_str(obj, "kind", ""), "List");
		struct json_object *o = list ? gotemplate_data(obj) : obj;
		int rc = f->kind == FORMAT_JSONPATH ? run_jsonpath(f, o, from, out, err)
			 : print_columns(f, o, no_headers, out, err);
		if (list)
			json_object_put(o);
		return rc;
	}
	case FORMAT_GOTEMPLATE:
		return run_gotemplate(f, obj, out, err);
	default:
		errbuf_set(err, "not an object format");
		return -1;
	}
}

/*
 * from: a JSONPath's place, kept between runs (jsonpath.h); NULL: none.
 * On a terminal, yaml and custom columns escape what they quote; the
 * others' text is escaped whole (json's: what its escapes leave raw),
 * a failed template's included.
 */
static int print_object(struct format *f, struct json_object *obj, bool no_headers,
			size_t *from, struct strbuf *out, struct errbuf *err)
{
	bool whole = f->terminal && f->kind != FORMAT_YAML && f->kind != FORMAT_CUSTOM_COLUMNS;
	struct strbuf text = STRBUF_INIT;
	int rc = print_text(f, obj, no_headers, from, whole ? &text : out, err);

	if (whole)
		strbuf_add_termsafe(out, text.buf, text.len,
				    f->kind == FORMAT_JSON ? TERMSAFE_JSON : TERMSAFE_NEWLINE);
	strbuf_release(&text);
	return rc;
}

int format_print(struct format *f, struct json_object *obj, bool no_headers,
		 struct strbuf *out, struct errbuf *err)
{
	return print_object(f, obj, no_headers, NULL, out, err);
}

/* Custom columns' rows of objs, in the widths kept so far. */
static int columns_watch(struct format *f, struct json_object *const *objs, size_t n,
			 bool headers, struct strbuf *out, struct errbuf *err)
{
	struct table *t = table_new((const char *const *)f->headers, f->ncols);
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = add_row(f, t, objs[i], err);
	/* a failed print: kubectl's tabwriter let go only of lines of one cell */
	if (rc == 0 || f->ncols == 1)
		table_format(t, !headers, &f->widths, out);
	table_free(t);
	return rc;
}

int format_print_watch(struct format *f, struct json_object *const *objs, size_t n,
		       int type, bool no_headers, struct strbuf *out, struct errbuf *err)
{
	int rc = 0;

	if (f->kind == FORMAT_CUSTOM_COLUMNS) {
		/* a header the first time, and when the type printed changes */
		bool headers = !no_headers && (!f->printed || type != f->last_type);
		if (n && (rc = columns_watch(f, objs, n, headers, out, err)) == 0) {
			f->printed += (unsigned)n;
			f->last_type = type;
		}
		return rc;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (f->kind == FORMAT_YAML) {
			if (f->printed)
				strbuf_adds(out, "---\n");
			rc = yaml_print(f, objs[i], out, err);
		} else {
			rc = print_object(f, objs[i], no_headers,
					  f->kubectl ? &f->jsonpath_from : NULL, out, err);
		}
		if (rc == 0)
			f->printed++;
	}
	return rc;
}

int format_print_one(struct format *f, struct json_object *obj, bool no_headers,
		     struct strbuf *out, struct errbuf *err)
{
	return format_print_watch(f, &obj, 1, 0, no_headers, out, err);
}

int format_hold(struct format *f, struct json_object *obj, struct errbuf *err)
{
	if (!f->held)
		f->held = table_new((const char *const *)f->headers, f->ncols);
	return add_row(f, f->held, obj, err);
}

void format_print_held(struct format *f, bool no_headers, struct strbuf *out)
{
	if (!f->held || !table_rows(f->held))	/* none held, or its first row failed */
		return;
	/* the header first, as format_print_watch() prints it */
	table_format(f->held, no_headers || f->printed, &f->widths, out);
	f->printed += (unsigned)table_rows(f->held);
	f->last_type = 0;
	table_free(f->held);
	f->held = NULL;
}

/* ---- --sort-by ------------------------------------------------------------ */

/* Go's comparison of two strings: byte by byte, a prefix first. */
static int go_string_cmp(struct json_object *a, struct json_object *b)
{
	size_t la = (size_t)json_object_get_string_len(a), lb = (size_t)json_object_get_string_len(b);
	int c = memcmp(json_object_get_string(a), json_object_get_string(b), la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

/* resource.ParseQuantity, enough to order: the value, or -1 if not one. */
static int parse_quantity(const char *s, long double *v)
{
	static const struct { const char *suffix; long double mult; } sfx[] = {
		{ "Ki", 1024.0L }, { "Mi", 1048576.0L }, { "Gi", 1073741824.0L },
		{ "Ti", 1099511627776.0L }, { "Pi", 1125899906842624.0L },
		{ "Ei", 1152921504606846976.0L }, { "n", 1e-9L }, { "u", 1e-6L },
		{ "m", 1e-3L }, { "k", 1e3L }, { "M", 1e6L }, { "G", 1e9L }, { "T", 1e12L },
		{ "P", 1e15L }, { "E", 1e18L }, { "", 1 },
	};
	const char *p = s;
	char *end;

	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return -1;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	long double num = strtold(s, &end);
	if (end != p)
		return -1;
	if ((*p == 'e' || *p == 'E') && (isdigit((unsigned char)p[1]) ||
		((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		long e = strtol(p + 1, &end, 10);
		if (*end)
			return -1;
		*v = num * powl(10.0L, (long double)e);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++) {
		if (!strcmp(p, sfx[i].suffix)) {
			*v = num * sfx[i].mult;
			return 0;
		}
	}
	return -1;
}

int format_sort_cmp(struct json_object *a, bool a_found, struct json_object *b,
		    bool b_found, bool *bad)
{
	/* kubectl's Less: a missing value sorts first; nils before values */
	if (!a_found)
		return -1;
	if (!b_found)
		return 1;
	if (!a && !b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	enum json_type ta = json_object_get_type(a), tb = json_object_get_type(b);
	if (ta == json_type_int && tb == json_type_int) {
		int64_t x = json_object_get_int64(a), y = json_object_get_int64(b);
		return x < y ? -1 : x > y;
	}
	if (ta == json_type_double && tb == json_type_double) {
		double x = json_object_get_double(a), y = json_object_get_double(b);
		return x < y ? -1 : x > y;
	}
	if (ta == json_type_string && tb == json_type_string) {
		const char *x = json_object_get_string(a), *y = json_object_get_string(b);
		long double qx, qy;
		if (parse_quantity(x, &qx) == 0 && parse_quantity(y, &qy) == 0)
			return qx < qy ? -1 : qx > qy;
		return go_string_cmp(a, b);
	}
	*bad = true;
	return 0;
}

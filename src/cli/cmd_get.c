/*
 * cmd_get.c — `kinf get RESOURCE [NAME]`: objects from the server, or
 * with --from-cache from a synced informer's Indexer, as a controller's
 * lister sees them.  Same output either way, so the two can be compared.
 */
#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cli/cmd.h"
#include "cli/get_watch.h"
#include "cli/oneshot.h"
#include "cli/resource_args.h"
#include "output/columns.h"
#include "output/format.h"
#include "output/jsonpath.h"
#include "output/kubetable.h"
#include "output/printer_columns.h"
#include "cluster/discovery.h"
#include "cluster/http.h"
#include "cluster/pager.h"
#include "informer/informer.h"
#include "informer/kobj.h"
#include "lib/json_get.h"
#include "lib/selector.h"
#include "informer/session.h"
#include "informer/store.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"

#define CHUNK_DEFAULT LONG_MIN	/* --chunk-size not given */

static struct {
	bool from_cache, no_headers, keep_managed_fields, show_labels, show_kind;
	bool watch, watch_only, output_watch_events, deltas, allow_missing_keys;
	bool ignore_not_found;
	long chunk_size;		/* CHUNK_DEFAULT: not given; long, as OPT_INT writes */
	const char *output, *template_arg;
	const char *index, *label_selector, *field_selector, *sort_by;
	int64_t sync_timeout_ms;
} o = { .sync_timeout_ms = 60000, .chunk_size = CHUNK_DEFAULT, .allow_missing_keys = true };

/* kubectl's page size: 500 unless given; a negative one is sent as given. */
static long chunk_limit(void)
{
	return o.chunk_size == CHUNK_DEFAULT ? 500 : o.chunk_size;
}

static const char *const output_choices[] = {
	"table", "wide", "name", "json", "yaml", "jsonpath=", "jsonpath-file=",
	"jsonpath-as-json=", "go-template=", "go-template-file=", "template=",
	"templatefile=", "custom-columns=", "custom-columns-file=", NULL,
};

/* The parsed -o, and -L split at its commas. */
static struct format fmt;
static struct strbuf label_columns_arg = STRBUF_INIT;	/* -L, each use added */
static char **label_columns;
static size_t nlabel_columns;
/* --sort-by as RelaxedJSONPathExpression refused it (o.sort_by kept as typed), or NULL */
static char *sort_by_refused;
/* -o's refusal, told when kubectl's printer is made (fmt is then json's), or NULL */
static char *format_refused;

static const struct option get_options[] = {
	OPT_BOOL(0, "from-cache", &o.from_cache,
		 "sync an informer and answer from its Indexer"),
	{ .type = OPT_T_STRING, .short_name = 'o', .long_name = "output", .value = &o.output,
	  .argh = "FORMAT", .choices = output_choices, .help = "output format" },
	OPT_STRING(0, "template", &o.template_arg, "TEMPLATE",
		   "the template of -o go-template or jsonpath (or a -file form's file), "
		   "given apart, as kubectl's; alone, -o go-template", COMPLETE_NONE),
	OPT_BOOL(0, "allow-missing-template-keys", &o.allow_missing_keys,
		 "a key a template asks for that is missing prints nothing (default true); "
		 "false: an error"),
	OPT_BOOL(0, "show-labels", &o.show_labels,
		 "a LABELS column with all the labels, last"),
	OPT_LIST('L', "label-columns", &label_columns_arg, "KEY,...",
		   "a column for each of these labels; repeatable, as kubectl's", COMPLETE_NONE),
	OPT_STRING(0, "sort-by", &o.sort_by, "JSONPATH",
		   "sort by this field, e.g. .metadata.creationTimestamp", COMPLETE_NONE),
	OPT_STRING(0, "index", &o.index, "NAME=VALUE",
		   "with --from-cache: look up an index (namespace, node, label, owner)",
		   COMPLETE_INDEX),
	OPT_STRING('l', "selector", &o.label_selector, "SELECTOR",
		   "label selector (with --from-cache applied to the cache)", COMPLETE_NONE),
	OPT_STRING(0, "field-selector", &o.field_selector, "SELECTOR",
		   "field selector, applied by the server", COMPLETE_NONE),
	OPT_DURATION(0, "sync-timeout", &o.sync_timeout_ms,
		     "with --from-cache: give up waiting for the sync (default 60s); a type whose "
		     "list is refused (400, 401, 403, 404) fails at once, after the others print"),
	OPT_BOOL(0, "no-headers", &o.no_headers, "no column headers"),
	OPT_BOOL(0, "ignore-not-found", &o.ignore_not_found,
		 "a NAME (or a type) the server does not find, or nothing found, is no error "
		 "and prints nothing"),
	OPT_BOOL(0, "show-kind", &o.show_kind, "name objects in tables as KIND/NAME (pod/web-0)"),
	OPT_SIGNED(0, "chunk-size", &o.chunk_size, "N",
		   "objects per LIST page (default: 500, as kubectl); 0 (or less): one response"),
	OPT_BOOL('w', "watch", &o.watch,
		 "after the list, print every change as kubectl get -w does (one LIST, one WATCH)"),
	OPT_BOOL(0, "watch-only", &o.watch_only, "as --watch, without printing the list first"),
	OPT_BOOL(0, "output-watch-events", &o.output_watch_events,
		 "with --watch: an EVENT column, or -o json|yaml objects as {\"type\":..,\"object\":..}"),
	OPT_BOOL(0, "deltas", &o.deltas,
		 "with --watch: kinf's own view instead, what `kinf watch` prints "
		 "(an informer's deltas; the other options are watch's)"),
	OPT_BOOL(0, "keep-managed-fields", &o.keep_managed_fields,
		 "keep metadata.managedFields in json and yaml (dropped by default, as kubectl)"),
	OPT_BOOL(0, "show-managed-fields", &o.keep_managed_fields,
		 "kubectl's name for --keep-managed-fields"),
	OPT_INCLUDE(cluster_options),
	OPT_END(),
};

/*
 * As the apiserver lists them: by key, "namespace/name" (or the name),
 * as etcd orders its keys, so "app-x/web" before "app/web".
 */
static int by_key(const void *a, const void *b)
{
	return strcmp((*(struct kobj *const *)a)->key, (*(struct kobj *const *)b)->key);
}

/*
 * objs as a LIST has them, unless in_order: in the order to print
 * already (as asked by name, or as the server listed them).
 */
static void sort_objects(struct kobj_list *objs, bool in_order)
{
	if (objs->nr > 1 && !in_order)	/* qsort(NULL, 0, ...) is undefined */
		qsort(objs->v, objs->nr, sizeof(*objs->v), by_key);
}

/* ---- from the server ---------------------------------------------------- */

struct gather {
	struct kobj_list *out;
	size_t alloc;
	size_t whole;		/* out's items of the pages read in full */
	unsigned flags;
	struct kobj_type type;
	struct errbuf err;
	bool bad;
};

static int gather_item(void *ctx, const char *text, size_t len)
{
	struct gather *g = ctx;
	struct kobj *obj = kobj_from_list_item(text, len, &g->type, g->flags, &g->err);
	if (!obj) {
		g->bad = true;
		return -1;
	}
	ALLOC_GROW(g->out->v, g->out->nr + 1, g->alloc);
	g->out->v[g->out->nr++] = obj;
	return 0;
}

static void gather_page(void *ctx, const struct pager_page *p)
{
	struct gather *g = ctx;

	(void)p;
	g->whole = g->out->nr;
}

/* A 2xx page that is no list, as kubectl reads it: one object, or pager_lone_object()'s error. */
static int gather_lone(struct gather *g, struct json_object *doc, const char *text,
		       const char *what, struct errbuf *err)
{
	if (!pager_lone_object(doc, what, err))
		return -1;
	if (gather_item(g, text, strlen(text)) < 0) {
		errbuf_set(err, "%s", g->err.msg);
		return -1;
	}
	return 0;
}

/*
 * The pages' requests, as kubectl's REST client makes them: pages of
 * 500 (one LIST of all with --sort-by, as kubectl sorts), bounded by
 * --request-timeout, 429s (and 5xx with Retry-After) retried after the
 * wait the server asks for.  A server that sends nothing for a minute
 * is not coming back.
 */
static struct pager_opts list_opts(struct cluster *c, const char *path)
{
	return (struct pager_opts){
		.path = path,
		.limit = o.sort_by ? 0 : chunk_limit(),
		.label_selector = o.label_selector,
		.field_selector = o.field_selector,
		.stream = {
			.idle_timeout_ms = 60000,
			.timeout_ms = kclient_timeout(c->client),
			.retries = HTTP_MAX_RETRIES,
			.limiter = c->limiter,
		},
	};
}

/*
 * A paged LIST straight from the server (no informer).  When a page
 * fails, out keeps the pages before it, as kubectl prints them before
 * the error (each page is an Info of its builder's).
 */
static int list_from_server(struct cluster *c, const struct api_resource *res,
			    struct kobj_list *out, struct errbuf *err)
{
	char *path = api_resource_path(res, res->namespaced ? c->scope_ns : NULL);
	char *api_version = api_group_version(res->group, res->version);
	struct gather g = {
		.out = out,
		.flags = o.keep_managed_fields ? KOBJ_KEEP_MANAGED_FIELDS : 0,
		.type = { .api_version = api_version, .kind = res->kind },
	};
	struct pager_opts po = list_opts(c, path);
	struct pager_hooks hooks = { .ctx = &g, .item = gather_item, .page = gather_page };
	struct pager_result pr;
	char what[128];
	int ret;

	snprintf(what, sizeof(what), "list %s", res->name);
	po.strict = true;	/* to see a Status in a 200 answer */
	ret = pager_list(c->client, &po, what, &hooks, &pr, err);
	if (pr.end == PAGER_REFUSED) {
		errbuf_set(err, "%s", g.err.msg);
	} else if (pr.end == PAGER_NOT_A_LIST || pr.end == PAGER_NO_METADATA) {
		struct json_object *rest = pr.rest ? json_tokener_parse(pr.rest) : NULL;
		/* a list without metadata kubectl takes as the last page; a lone object as one */
		ret = !pager_status_error(rest, what, err) ? 0 :
		      http_status_is(rest, API_NOT_FOUND) ? GET_NOT_FOUND : -1;
		if (ret == 0 && pr.end == PAGER_NOT_A_LIST)
			ret = gather_lone(&g, rest, pr.rest, what, err);
		json_object_put(rest);
	} else if (pr.end == PAGER_STATUS && http_answer_is(&pr.resp, API_NOT_FOUND)) {
		ret = GET_NOT_FOUND;
	} else {
		pager_explain(&pr, res->name, err);
	}
	while (ret < 0 && out->nr > g.whole)
		kobj_unref(out->v[--out->nr]);	/* the page that failed */
	pager_result_release(&pr);
	free(api_version);
	free(path);
	return ret;
}

/*
 * The server's Table for the resource, as kubectl asks for it: pages of
 * 500, the rows of every page gathered into the first Table.  A server
 * that answers with plain objects instead gets kubectl's default
 * columns of them, NAME and AGE (its printer's defaultHandler).  When a
 * page fails, *out has the pages before it, if any: kubectl prints them.
 */
static int table_from_server(struct cluster *c, const struct api_resource *res,
			     struct json_object **out, struct errbuf *err)
{
	char *path = api_resource_path(res, res->namespaced ? c->scope_ns : NULL);
	struct pager_tables pt = { 0 };
	struct pager_opts po = list_opts(c, path);
	struct pager_hooks hooks = { .ctx = &pt, .table = pager_gather_table };
	struct pager_result pr;
	char what[128];
	int ret = -1;

	po.as = PAGER_TABLE;
	/* sorting looks into the whole object; else a row keeps what it prints */
	po.include_object = o.sort_by != NULL;
	snprintf(what, sizeof(what), "list %s", res->name);
	pt.what = what;
	if (pager_list(c->client, &po, what, &hooks, &pr, err) == 0)
		ret = 0;
	else if (pt.status.msg[0])
		errbuf_set(err, "%s", pt.status.msg);
	else
		pager_explain(&pr, res->name, err);
	bool not_found = pt.status.msg[0] ? pt.not_found :
			 pr.end == PAGER_STATUS && http_answer_is(&pr.resp, API_NOT_FOUND);
	if (ret < 0 && not_found)
		ret = GET_NOT_FOUND;
	if (pt.table)
		*out = json_object_get(pt.table);
	else if (ret == 0 || pt.nr)
		*out = columns_table_json(NULL, NULL, NULL, pt.objs, pt.nr, wall_ms());
	pager_result_release(&pr);
	pager_tables_release(&pt);
	free(path);
	return ret;
}

/* ---- from the cache ----------------------------------------------------- */

static int list_from_cache(struct session *s, size_t which, const char *name,
			   struct kobj_list *out, struct errbuf *err)
{
	struct store *store = informer_store(s->informers[which]);
	struct selector *sel = NULL;
	struct kobj_list all = { 0 };
	int ret = -1;

	if (o.label_selector && !(sel = selector_parse(o.label_selector, err)))
		return -1;
	if (o.index) {
		const char *eq = strchr(o.index, '=');
		if (!eq) {
			errbuf_set(err, "--index wants NAME=VALUE, e.g. node=worker-1");
			goto cleanup;
		}
		char *index = xstrndup(o.index, (size_t)(eq - o.index));
		int rc = store_by_index(store, index, eq + 1, &all, err);
		free(index);
		if (rc < 0)
			goto cleanup;
	} else {
		store_list(store, &all);
	}
	size_t alloc = 0;
	for (size_t i = 0; i < all.nr; i++) {
		struct kobj *obj = all.v[i];
		if ((name && strcmp(obj->name, name)) ||
		    (sel && !selector_matches(sel, obj->labels)))
			continue;
		ALLOC_GROW(out->v, out->nr + 1, alloc);
		out->v[out->nr++] = kobj_ref(obj);
	}
	ret = 0;
cleanup:
	kobj_list_release(&all);
	selector_free(sel);
	return ret;
}

/* ---- output ------------------------------------------------------------- */

/* Bytes written so far: kubectl's trackingWriter, for its blank lines and its note. */
static size_t written;

static int write_out(const struct strbuf *sb)
{
	struct strbuf safe = STRBUF_INIT;
	int ret = 0;

	/*
	 * -o name on a terminal is escaped, as jsonpath is (format.h); JSON
	 * as its escapes read back (a List's too).
	 */
	if (fmt.terminal && (fmt.kind == FORMAT_NAME || fmt.kind == FORMAT_JSON)) {
		strbuf_add_termsafe(&safe, sb->buf, sb->len,
				    fmt.kind == FORMAT_NAME ? TERMSAFE_NEWLINE : TERMSAFE_JSON);
		sb = &safe;
	}
	if (fwrite(sb->buf, 1, sb->len, stdout) != sb->len || fflush(stdout) != 0) {
		if (errno != EPIPE) {
			error("cannot write output: %s", strerror(errno));
			ret = -1;
		}
	}
	written += sb->len;
	strbuf_release(&safe);
	return ret;
}

/*
 * tree printed in -o's format; -1 told.  A template that failed: kubectl
 * has written what it printed so far, and go-template's block for
 * debugging, to stdout before the error; custom columns flush their
 * tabwriter: the header and the rows before the one that failed.
 */
static int print_tree(struct json_object *tree)
{
	struct strbuf sb = STRBUF_INIT;
	struct errbuf err = { "" };
	int ret;

	if (format_print(&fmt, tree, o.no_headers, &sb, &err) == 0) {
		ret = write_out(&sb);
	} else {
		if (fmt.kind == FORMAT_GOTEMPLATE || fmt.kind == FORMAT_CUSTOM_COLUMNS)
			write_out(&sb);
		error("%s", err.msg);
		ret = -1;
	}
	strbuf_release(&sb);
	return ret;
}

/* The namespace a namespaced get looked in (NULL: all), for the note below. */
static const char *scope_ns;
/* Objects by name, or a type that failed: nothing found is told by errors, not noted. */
static bool none_told;

/*
 * kubectl's note when its tables (its human-readable printers: no -o,
 * or -o wide) printed nothing: "No resources found in NS namespace.".
 * Any other output goes through its printGeneric, which says nothing.
 */
static void no_resources(bool namespaced, bool all_namespaces)
{
	if (none_told || o.ignore_not_found || written)
		return;
	if (all_namespaces || !namespaced || !scope_ns)
		fputs("No resources found\n", stderr);
	else {
		char *ns = termsafe_dup(scope_ns, TERMSAFE_ONE_LINE);	/* a kubeconfig's */
		fprintf(stderr, "No resources found in %s namespace.\n", ns);
		free(ns);
	}
}

/* Whether kubectl's tables (its human-readable printers) print: no -o, or -o wide. */
static bool printing_tables(void)
{
	return fmt.kind == FORMAT_TABLE || fmt.kind == FORMAT_WIDE;
}

/* Whether tables are printed, sorted: by kubectl's RuntimeSorter, then its SortingPrinter. */
static bool sorting_tables(void)
{
	return o.sort_by && printing_tables();
}

/* How kubectl names a type in "pod/web-0": "pod", "deployment.apps". */
static char *kind_prefix(const struct api_resource *res)
{
	char *lower = res->group[0] ? xasprintf("%s.%s", res->kind, res->group)
				    : xstrdup(res->kind);
	for (char *p = lower; *p && *p != '.'; p++)
		*p = (char)tolower((unsigned char)*p);
	return lower;
}

/* The List kubectl hands its printers: apiVersion, items, kind, metadata. */
static struct json_object *list_tree(struct kobj_list *objs)
{
	struct json_object *list = json_object_new_object(), *items = json_object_new_array();
	struct json_object *meta = json_object_new_object();

	for (size_t i = 0; i < objs->nr; i++)
		json_object_array_add(items, kobj_tree(objs->v[i]));
	json_object_object_add(meta, "resourceVersion", json_object_new_string(""));
	json_object_object_add(list, "apiVersion", json_object_new_string("v1"));
	json_object_object_add(list, "items", items);
	json_object_object_add(list, "kind", json_object_new_string("List"));
	json_object_object_add(list, "metadata", meta);
	return list;
}

/* -o name in the objects' order: kind/name, no tree of any object. */
static int print_names(const struct api_resource *res, struct kobj_list *objs)
{
	struct strbuf sb = STRBUF_INIT;
	char *prefix = kind_prefix(res);
	int ret;

	for (size_t i = 0; i < objs->nr; i++)
		strbuf_addf(&sb, "%s/%s\n", prefix, objs->v[i]->name);
	ret = write_out(&sb);
	free(prefix);
	strbuf_release(&sb);
	return ret;
}

/* kubectl's name printer of an object's tree: "deployment.apps/web". */
static void add_name_of(struct json_object *obj, struct strbuf *sb)
{
	const char *av = json_get_str(obj, "apiVersion", ""), *slash = strchr(av, '/');

	for (const char *k = json_get_str(obj, "kind", ""); *k; k++)
		strbuf_addch(sb, (char)tolower((unsigned char)*k));
	if (slash)
		strbuf_addf(sb, ".%.*s", (int)(slash - av), av);
	strbuf_addf(sb, "/%s\n", json_get_str(json_get(obj, "metadata"), "name", ""));
}

/* in_order: objs are in the order to print (several types, each sorted). */
static int print_objects(const struct api_resource *res, struct kobj_list *objs, bool in_order)
{
	struct errbuf err = { "" };
	int ret;

	sort_objects(objs, in_order);
	if (fmt.kind == FORMAT_NAME && !o.sort_by)
		return print_names(res, objs);

	struct json_object *list = list_tree(objs), *items;
	json_object_object_get_ex(list, "items", &items);
	if (o.sort_by && sort_by_refused && json_object_array_length(items)) {
		error("%s", sort_by_refused);
		ret = -1;
	} else if (o.sort_by && !sort_by_refused &&
		   kubetable_sort_objects(items, o.sort_by, &err) < 0) {
		error("%s", err.msg);
		ret = -1;
	} else if (fmt.kind == FORMAT_NAME) {	/* --sort-by: in the trees' order, of any types */
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < json_object_array_length(items); i++)
			add_name_of(json_object_array_get_idx(items, i), &sb);
		ret = write_out(&sb);
		strbuf_release(&sb);
	} else {
		ret = print_tree(list);
	}
	json_object_put(list);
	return ret;
}

/* Parses -o and -L once the options are read; usage errors exit. */
static void parse_output_options(void)
{
	struct errbuf err = { "" };

	struct format_flags ff = { o.template_arg, !o.allow_missing_keys };

	/*
	 * kubectl makes its printer once it has the objects (format_told()),
	 * so a -o it cannot make is told then; meanwhile get asks as for json.
	 */
	if (format_parse(&fmt, o.output ? o.output : "", "table", &ff, &err) < 0) {
		format_refused = xstrdup(err.msg);
		if (format_parse(&fmt, "json", "table", NULL, &err) < 0)
			BUG("json is no format: %s", err.msg);
	}
	fmt.terminal = isatty(STDOUT_FILENO);
	fmt.kubectl = true;
	/*
	 * kubectl drops managedFields from json and yaml only (cli-runtime's
	 * JSONYamlPrintFlags): its templates see the objects whole, and so the
	 * informer of --from-cache keeps them for a template.
	 */
	if (fmt.kind == FORMAT_GOTEMPLATE || fmt.kind == FORMAT_JSONPATH ||
	    fmt.kind == FORMAT_CUSTOM_COLUMNS)
		o.keep_managed_fields = true;
	if (label_columns_arg.len) {
		char *copy = strbuf_detach(&label_columns_arg, NULL);
		for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
			label_columns = xrealloc(label_columns, (nlabel_columns + 1) * sizeof(*label_columns));
			label_columns[nlabel_columns++] = xstrdup(tok);
		}
		free(copy);
	}
	/*
	 * kubectl reads --sort-by only when it sorts: its sorter of Tables
	 * takes a field RelaxedJSONPathExpression refuses as typed, and
	 * its SortingPrinter of objects fails with the refusal.  An empty
	 * one is none, as kubectl's len(o.SortBy) > 0 tests have it.
	 */
	if (o.sort_by && !*o.sort_by)
		o.sort_by = NULL;
	if (o.sort_by) {
		struct strbuf rel = STRBUF_INIT;
		if (jsonpath_relaxed(o.sort_by, &rel, &err) == 0)
			o.sort_by = strbuf_detach(&rel, NULL);	/* lives as long as the process */
		else
			sort_by_refused = xstrdup(err.msg);
		strbuf_release(&rel);
	}
}

/*
 * A selector as cli-runtime's builder takes it (LabelSelectorParam,
 * FieldSelectorParam): without Go's white space at either end, and none
 * at all when nothing is left.  The copy lives as long as the process.
 */
static const char *selector_param(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	go_trim_space(&s, &len);
	return len ? xstrndup(s, len) : NULL;
}

static void release_output_options(void)
{
	format_release(&fmt);
	for (size_t i = 0; i < nlabel_columns; i++)
		free(label_columns[i]);
	free(label_columns);
	label_columns = NULL;
	nlabel_columns = 0;
	free(format_refused);
	format_refused = NULL;
	free(sort_by_refused);
	sort_by_refused = NULL;
}

/* Whether one of the types typed ("pods,all") is kubectl's "all". */
static bool names_all(const char *typed)
{
	for (const char *t = typed; t; t = strchr(t, ','), t = t ? t + 1 : NULL)
		if (!strncmp(t, "all", 3) && (t[3] == ',' || !t[3]))
			return true;
	return false;
}

/* kubectl's "all": the listable resources whose categories hold "all". */
static void category_all(struct cluster *c, const struct api_resource ***out, size_t *nr)
{
	const struct api_resource **every;
	size_t n, alloc = 0;

	*out = NULL;
	*nr = 0;
	discovery_all(c->disco, &every, &n);
	for (size_t i = 0; i < n; i++) {
		bool all = false;
		for (char **cat = every[i]->categories; cat && *cat; cat++)
			all |= !strcmp(*cat, "all");
		if (!all || !api_resource_has_verb(every[i], "list"))
			continue;
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = every[i];
	}
}

/* What failed of a get: told after what was found, as kubectl's. */
struct failures {
	char **msg;
	size_t nr, alloc;
};

static void failed(struct failures *fl, const char *msg)
{
	ALLOC_GROW(fl->msg, fl->nr + 1, fl->alloc);
	fl->msg[fl->nr++] = xstrdup(msg);
}

/* Tells what failed, after what was printed; whether anything did. */
static bool told(struct failures *fl)
{
	for (size_t i = 0; i < fl->nr; i++) {
		error("%s", fl->msg[i]);
		free(fl->msg[i]);
	}
	free(fl->msg);
	return fl->nr;
}

/* What a get found: per type, the server's Table or the objects. */
struct found {
	const struct api_resource **res;
	size_t nr;
	struct json_object **tables;	/* [nr]; NULL where there is none */
	struct kobj_list *objs;		/* [nr] */
	bool all_namespaces;
	bool in_order;			/* objects by name: in the order asked */
	bool listed;			/* objects as the server listed them, in its order */
	struct crd_columns *crds;	/* custom resources' columns; owned */
	size_t alloc;			/* found_entry()'s: res is owned */
};

/* How many objects entry i of f found: its Table's rows, or its objects. */
static size_t entry_len(const struct found *f, size_t i)
{
	return f->tables[i] ? json_get_len(json_get(f->tables[i], "rows")) : f->objs[i].nr;
}

/* f takes crds over. */
static void found_init(struct found *f, struct crd_columns *crds,
		       const struct api_resource **res, size_t nr, bool all_namespaces)
{
	*f = (struct found){
		.res = res,
		.nr = nr,
		.tables = xcalloc(nr ? nr : 1, sizeof(*f->tables)),
		.objs = xcalloc(nr ? nr : 1, sizeof(*f->objs)),
		.all_namespaces = all_namespaces,
		.crds = crds,
	};
}

static void found_release(struct found *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		json_object_put(f->tables[i]);
		kobj_list_release(&f->objs[i]);
	}
	free(f->tables);
	free(f->objs);
	if (f->alloc)
		free(f->res);
	crd_columns_free(f->crds);
}

/*
 * Objects asked for by name go in f in the order asked, each run of one
 * type an entry (kubectl starts a table wherever the type changes): the
 * entry for the next object of res, the last or a new one (always a new
 * one when the tables are to be sorted: sort_tables()).  f is
 * found_init()'s with no types.
 */
static size_t found_entry(struct found *f, const struct api_resource *res)
{
	if (f->nr && f->res[f->nr - 1] == res && !sorting_tables())
		return f->nr - 1;
	if (f->nr == f->alloc) {
		f->alloc = f->alloc ? 2 * f->alloc : 4;
		f->res = xrealloc(f->res, f->alloc * sizeof(*f->res));
		f->tables = xrealloc(f->tables, f->alloc * sizeof(*f->tables));
		f->objs = xrealloc(f->objs, f->alloc * sizeof(*f->objs));
	}
	f->res[f->nr] = res;
	f->tables[f->nr] = NULL;
	f->objs[f->nr] = (struct kobj_list){ 0 };
	f->in_order = true;
	return f->nr++;
}

/* A Table's metadata.resourceVersion, which kubectl's sorter may look at. */
static void table_set_rv(struct json_object *table, const char *rv)
{
	struct json_object *meta = json_object_new_object();

	json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
	json_object_object_add(table, "metadata", meta);
}

/*
 * Entry i's Table: the server's, or one built from its objects (by
 * namespace and name, unless in the order asked), kept in f.  Built
 * from one object asked for by name, it has the object's
 * resourceVersion, as the server's Table of a GET has.
 */
static struct json_object *entry_table(struct found *f, size_t i)
{
	struct kobj_list *objs = &f->objs[i];

	if (f->tables[i])
		return f->tables[i];
	sort_objects(objs, f->in_order || f->listed);
	struct json_object **trees = xcalloc(objs->nr ? objs->nr : 1, sizeof(*trees));
	for (size_t j = 0; j < objs->nr; j++)
		trees[j] = kobj_tree(objs->v[j]);
	f->tables[i] = columns_table_json(f->crds, f->res[i]->group, f->res[i]->kind, trees,
					  objs->nr, wall_ms());
	if (f->in_order && objs->nr == 1)
		table_set_rv(f->tables[i], objs->v[0]->rv);
	for (size_t j = 0; j < objs->nr; j++)
		json_object_put(trees[j]);
	free(trees);
	return f->tables[i];
}

/*
 * Entry i's table as kubectl prints it, after a blank line when
 * anything was printed before (kubectl's separator, a header's: none
 * with --no-headers).  Rows kubectl's SortingPrinter cannot sort (no
 * row has the field) print nothing: kubectl drops that printer's error.
 */
static int print_table(struct found *f, size_t i, bool kind_names)
{
	struct kubetable_opts ko = {
		.wide = fmt.kind == FORMAT_WIDE,
		.no_headers = o.no_headers,
		.with_namespace = f->all_namespaces && f->res[i]->namespaced,
		.show_labels = o.show_labels,
		.label_columns = (const char *const *)label_columns,
		.nlabel_columns = nlabel_columns,
		/* objects by name are a Table of one row each: kubectl sorts none */
		.sort_by = f->in_order ? NULL : o.sort_by,
	};
	struct json_object *table = entry_table(f, i);
	struct strbuf sb = STRBUF_INIT;
	struct errbuf err = { "" };
	int ret = 0;

	if (kind_names) {	/* as kubectl prints them for several types at once */
		char *prefix = kind_prefix(f->res[i]);
		kubetable_prefix_names(table, prefix, NULL);
		free(prefix);
	}
	/* kubectl's printer's sort error is dropped, but an unsortable value ends it */
	int rc = kubetable_print(table, &ko, &sb, &err);
	if (rc == KUBETABLE_UNSORTABLE) {
		error("%s", err.msg);
		ret = -1;
	} else if (rc == 0 && sb.len) {
		if (written && !o.no_headers)
			ret = write_out(&(struct strbuf){ .buf = "\n", .len = 1 });
		if (ret == 0)
			ret = write_out(&sb);
	}
	strbuf_release(&sb);
	return ret;
}

/* Drops what failed: kubectl's sorter error is told alone. */
static void failures_drop(struct failures *fl)
{
	for (size_t i = 0; i < fl->nr; i++)
		free(fl->msg[i]);
	fl->nr = 0;
}

/*
 * kubectl's RuntimeSorter over what its builder found: with --sort-by
 * and more than one Table (one per type listed, one per name asked for),
 * it orders the Tables themselves by the field, as objects
 * (SortObjects), and fails when none has it; their rows are sorted
 * later, each table's own.  Objects asked for by name are then one
 * table per run of a type, as kubectl prints them.  -1 told, and what
 * failed before (fl) dropped, as kubectl's error is told alone.
 */
static int sort_tables(struct found *f, struct failures *fl)
{
	if (!sorting_tables() || f->nr < 2)
		return 0;
	struct json_object **tables = xcalloc(f->nr, sizeof(*tables));
	const struct api_resource **res = xcalloc(f->nr, sizeof(*res));
	size_t *order = xcalloc(f->nr, sizeof(*order)), n = 0;
	struct errbuf err = { "" };
	int ret = 0;

	for (size_t i = 0; i < f->nr; i++)
		tables[i] = entry_table(f, i);
	if (kubetable_sort_order(tables, f->nr, o.sort_by, order, &err) < 0) {
		error("%s", err.msg);
		failures_drop(fl);
		free(res);
		ret = -1;
		goto out;
	}
	for (size_t k = 0; k < f->nr; k++) {
		size_t i = order[k];
		if (n && f->in_order && res[n - 1] == f->res[i]) {
			get_table_add(&tables[n - 1], f->tables[i]);
		} else {
			res[n] = f->res[i];
			tables[n++] = f->tables[i];
		}
		f->tables[i] = NULL;
		kobj_list_release(&f->objs[i]);
	}
	memcpy(f->tables, tables, n * sizeof(*tables));
	if (f->alloc)
		free(f->res);
	f->res = res;
	f->alloc = f->nr;	/* owned */
	f->nr = n;
out:
	free(tables);
	free(order);
	return ret;
}

/* The one object a get NAME found, printed as itself (not in a List). */
static int print_one(struct kobj *obj)
{
	struct json_object *tree = kobj_tree(obj);
	int ret = print_tree(tree);

	json_object_put(tree);
	return ret;
}

/*
 * One type, as kubectl prints it; single: one object asked for by name,
 * printed as itself (not in a List) by -o json and the like.
 */
static int print_found_one(struct found *f, bool single)
{
	struct kobj_list *objs = &f->objs[0];

	if (printing_tables()) {
		if (!f->nr)
			return 0;	/* the type failed: told, no table */
		int ret = print_table(f, 0, o.show_kind);
		if (ret == 0)
			no_resources(f->res[0]->namespaced, f->all_namespaces);
		return ret;
	}
	/* one object is no list: --sort-by has nothing to sort */
	if (single && objs->nr == 1 && fmt.kind == FORMAT_NAME)
		return print_names(f->res[0], objs);
	if (single && objs->nr == 1)
		return print_one(objs->v[0]);
	return print_objects(f->res[0], objs, f->in_order || f->listed);
}

/* Whether every type found is namespaced: kubectl's note names the namespace then. */
static bool all_namespaced(const struct found *f)
{
	for (size_t i = 0; i < f->nr; i++)
		if (!f->res[i]->namespaced)
			return false;
	return true;
}

/*
 * Several types at once (pods,deploy or all), as kubectl prints them: a
 * table each for those with objects, a blank line between, names as
 * "pod/web-0"; one List of them all for -o json and the like.
 */
static int print_found_several(struct found *f)
{
	bool tabular = printing_tables();
	struct kobj_list every = { 0 };
	size_t alloc = 0;
	int ret = 0;

	for (size_t i = 0; i < f->nr && ret == 0; i++) {
		if (!entry_len(f, i))
			continue;
		if (tabular) {
			ret = print_table(f, i, true);	/* entry_table() orders the objects */
			continue;
		}
		sort_objects(&f->objs[i], f->in_order || f->listed);
		if (fmt.kind == FORMAT_NAME && !o.sort_by) {
			ret = print_objects(f->res[i], &f->objs[i], true);
		} else {
			for (size_t j = 0; j < f->objs[i].nr; j++) {
				ALLOC_GROW(every.v, every.nr + 1, alloc);
				every.v[every.nr++] = kobj_ref(f->objs[i].v[j]);
			}
		}
	}
	if (ret == 0 && !tabular && (fmt.kind != FORMAT_NAME || o.sort_by))
		ret = print_objects(f->nr ? f->res[0] : NULL, &every, true);
	else if (ret == 0 && tabular)
		no_resources(all_namespaced(f), f->all_namespaces);
	kobj_list_release(&every);
	return ret;
}

/* --ignore-not-found, and nothing found: kubectl prints nothing at all. */
static bool quiet_nothing(const struct found *f)
{
	for (size_t i = 0; i < f->nr; i++)
		if (entry_len(f, i))
			return false;
	return o.ignore_not_found;
}

/*
 * kubectl's printGeneric makes its printer (ToPrinter) once its builder
 * has got or listed the objects: a -o it cannot make is told then, and
 * alone (what failed before, fl, is dropped).  But a single NAME that
 * failed is told as that, and nothing found with --ignore-not-found
 * tells only what failed.  True when told.
 */
static bool format_told(const struct found *f, bool single, struct failures *fl)
{
	if (!format_refused || (single && fl->nr) || quiet_nothing(f))
		return false;
	failures_drop(fl);
	error("%s", format_refused);
	return true;
}

/*
 * What a list found, as kubectl prints it: one type, or several
 * (pods,deploy; all).  With --ignore-not-found, nothing at all prints
 * nothing, not even an empty List.
 */
static int print_found(struct found *f, bool several, struct failures *fl)
{
	if (format_told(f, false, fl))
		return -1;
	if (quiet_nothing(f))
		return 0;
	return several ? print_found_several(f) : print_found_one(f, false);
}

/* kubectl's refusal of -A for a namespaced type's objects by name (told here). */
static bool by_name_everywhere(const struct api_resource *const *res, size_t nr)
{
	for (size_t i = 0; cluster_flags.all_namespaces && i < nr; i++) {
		if (res[i]->namespaced) {
			error("a resource cannot be retrieved by name across all namespaces");
			return true;
		}
	}
	return false;
}

/*
 * get -w: one type, listed then watched as kubectl does (get_watch.h);
 * NAMEs of one type got, then watched when there is one.
 */
static int watch_from_server(struct cluster *c, const struct resource_args *ra)
{
	const struct api_resource **res = NULL, **more;
	size_t nr = 0, n;
	struct errbuf err = { "" };
	int ret = 1;

	/* the types: TYPES, or each NAME's (kubectl's single type holds across them) */
	for (size_t k = 0; k < (ra->nnames ? ra->nnames : 1); k++) {
		const char *typed = ra->nnames ? ra->names[k].resource : ra->resource;
		if (names_all(typed)) {
			error("you may only specify a single resource type");
			goto out;
		}
		if (cluster_resolve(c, typed, &more, &n, &err) < 0) {
			error("%s", err.msg);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (!nr || res[0] != more[i]) {
				res = xrealloc(res, (nr + 1) * sizeof(*res));
				res[nr++] = more[i];
			}
		free(more);
	}
	if (nr != 1) {
		error("you may only specify a single resource type");
		goto out;
	}
	if (cluster_scope_check(c, res, 1, &err) < 0) {
		error("%s", err.msg);
		goto out;
	}
	if (ra->nnames && by_name_everywhere(res, 1))
		goto out;
	const char **names = xcalloc(ra->nnames ? ra->nnames : 1, sizeof(*names));
	for (size_t k = 0; k < ra->nnames; k++)
		names[k] = ra->names[k].name;
	char *prefix = kind_prefix(res[0]);
	struct get_watch_opts wo = {
		.fmt = &fmt,
		.table = {
			.wide = fmt.kind == FORMAT_WIDE,
			.no_headers = o.no_headers,
			/* kubectl's watch: with -A, for a cluster-scoped type too */
			.with_namespace = c->scope_ns == NULL,
			.show_labels = o.show_labels,
			.label_columns = (const char *const *)label_columns,
			.nlabel_columns = nlabel_columns,
			.sort_by = o.sort_by,
		},
		.names = names,
		.nnames = ra->nnames,
		.label_selector = o.label_selector,
		.field_selector = o.field_selector,
		.limit = chunk_limit(),
		.watch_only = o.watch_only,
		.events = o.output_watch_events,
		.keep_managed_fields = o.keep_managed_fields,
		.name_prefix = prefix,
		.show_kind = o.show_kind,
		.format_refused = format_refused,
	};
	ret = get_watch(c, res[0], &wo);
	free(prefix);
	free(names);
out:
	free(res);
	return ret;
}

/* ---- by name ------------------------------------------------------------ */

static void kobj_list_add(struct kobj_list *list, struct kobj *obj)
{
	list->v = xrealloc(list->v, (list->nr + 1) * sizeof(*list->v));
	list->v[list->nr++] = obj;
}

/*
 * What was found, printed (single: one object asked for, printed as
 * itself), then what failed.  Returns the command's status.
 */
static int print_named(struct found *f, bool single, struct failures *fl)
{
	bool listed = !printing_tables() && fmt.kind != FORMAT_NAME;
	int ret = 0;

	none_told = true;
	if (format_told(f, single, fl) || sort_tables(f, fl) < 0)
		ret = -1;
	else if (f->nr == 1)
		ret = print_found_one(f, single);
	else if (f->nr > 1)
		ret = print_found_several(f);
	else if (!single && listed && !o.ignore_not_found)	/* kubectl's empty List */
		ret = print_objects(NULL, &(struct kobj_list){ 0 }, true);
	return told(fl) || ret < 0;
}

/* kubectl's GET of res's object name, into f, or its failure into fl. */
static void get_named(struct cluster *c, const struct api_resource *res, const char *name,
		      struct found *f, struct failures *fl)
{
	bool tabular = printing_tables();
	unsigned flags = o.keep_managed_fields ? KOBJ_KEEP_MANAGED_FIELDS : 0;
	struct errbuf err = { "" };
	struct json_object *obj;
	size_t i;

	int rc = cluster_scope_check(c, &res, 1, &err);
	if (rc == 0)
		rc = get_object(c, res, name, tabular, o.sort_by != NULL, flags, &obj, &err);
	if (rc < 0) {
		if (rc != GET_NOT_FOUND || !o.ignore_not_found)
			failed(fl, err.msg);
		return;
	}
	if (tabular) {
		i = found_entry(f, res);
		get_table_add(&f->tables[i], obj);
		return;
	}
	struct kobj *kobj = kobj_from_tree(obj, flags, &err);
	json_object_put(obj);
	if (!kobj) {
		failed(fl, err.msg);
		return;
	}
	i = found_entry(f, res);
	kobj_list_add(&f->objs[i], kobj);
}

/*
 * kubectl's get asks for discovery from several places in turn (its
 * shortcut expander, its REST mapper, each lookup of a type), and each
 * asks the server again after a failure: a server that fails a few times
 * is asked five times before get gives up, each failure said.
 */
#define KUBECTL_DISCOVERY_TRIES 5

static int discover(struct cluster *c, struct errbuf *err)
{
	for (int tries = 1; discovery_load(c->disco, err) < 0; tries++) {
		if (tries == KUBECTL_DISCOVERY_TRIES)
			return -1;
		warning("%s; asking again, as kubectl does", err->msg);
	}
	return 0;
}

/*
 * kubectl's get of objects by name: a GET of each, as its builder visits
 * them (TYPES NAME...: each type's names in turn; TYPE/NAME...: in
 * order), a Table of one row each where a table is printed.  One that
 * fails does not stop the others; an unknown type stops all, before any
 * is asked for.
 */
static int get_named_from_server(struct cluster *c, const struct resource_args *ra)
{
	const struct api_resource ***types = xcalloc(ra->nnames, sizeof(*types));
	size_t *ntypes = xcalloc(ra->nnames, sizeof(*ntypes));
	struct failures fl = { 0 };
	struct errbuf err = { "" };
	struct found f;
	int ret = 1;

	for (size_t k = 0; k < ra->nnames; k++) {
		if (cluster_resolve(c, ra->names[k].resource, &types[k], &ntypes[k], &err) < 0) {
			error("%s", err.msg);
			goto out;
		}
		if (by_name_everywhere(types[k], ntypes[k]))
			goto out;
	}
	found_init(&f, crd_columns_new(), NULL, 0, false);
	for (size_t k = 0, end; k < ra->nnames; k = end) {
		for (end = k + 1; end < ra->nnames && ra->names[end].resource == ra->names[k].resource;)
			end++;
		for (size_t j = 0; j < ntypes[k]; j++) {
			rest_limiter_refill(c->limiter);	/* kubectl's client of the type */
			for (size_t m = k; m < end; m++)
				get_named(c, types[k][j], ra->names[m].name, &f, &fl);
		}
	}
	ret = print_named(&f, ra->nnames == 1 && ntypes[0] == 1, &fl);
	found_release(&f);
out:
	for (size_t k = 0; k < ra->nnames; k++)
		free(types[k]);
	free(types);
	free(ntypes);
	return ret;
}

/*
 * From the server: the Table kubectl asks for where the output is one
 * (NAME and AGE where the server has none), else a plain paged LIST.
 * Everything is listed before anything is printed.  A type that fails
 * (refused, a page cut short, a namespace it may not have) shows the
 * pages it got before, if any, and is told after what the others found,
 * as kubectl's builder goes on: -o json and the like print their List,
 * empty or not, first.
 */
static int get_from_server(const struct resource_args *ra)
{
	const char *resource = ra->resource;
	struct errbuf err = { "" };
	struct cluster c;
	const struct api_resource **res = NULL;
	bool tabular = printing_tables();
	size_t nr = 0;
	int ret = 1;

	if (cluster_open(&c, &err) < 0) {
		error("%s", err.msg);
		return 1;
	}
	scope_ns = c.scope_ns;
	if (discover(&c, &err) < 0) {
		error("%s", err.msg);
		cluster_close(&c);
		return 1;
	}
	if (o.watch || o.watch_only || ra->nnames) {
		ret = o.watch || o.watch_only ? watch_from_server(&c, ra)
					      : get_named_from_server(&c, ra);
		cluster_close(&c);
		return ret;
	}
	if (!strcmp(resource, "all")) {
		category_all(&c, &res, &nr);
	} else if (cluster_resolve(&c, resource, &res, &nr, &err) < 0) {
		error("%s", err.msg);
		cluster_close(&c);
		return 1;
	}

	struct failures fl = { 0 };
	struct found f;
	found_init(&f, crd_columns_new(), res, nr, c.scope_ns == NULL);
	f.listed = true;	/* kubectl prints a LIST in the server's order */
	size_t kept = 0;
	for (size_t i = 0; i < nr; i++) {
		rest_limiter_refill(c.limiter);	/* kubectl makes a client per type */
		if (cluster_scope_check(&c, &res[i], 1, &err) < 0) {
			failed(&fl, err.msg);
			continue;
		}
		int rc = tabular ? table_from_server(&c, res[i], &f.tables[kept], &err)
				 : list_from_server(&c, res[i], &f.objs[kept], &err);
		if (rc < 0 && (rc != GET_NOT_FOUND || !o.ignore_not_found))
			failed(&fl, err.msg);
		/* a type that failed on its first page is no table, no kind */
		if (rc == 0 || (tabular ? f.tables[kept] != NULL : f.objs[kept].nr > 0))
			res[kept++] = res[i];
		else
			kobj_list_release(&f.objs[kept]);	/* its failed page's array */
	}
	f.nr = kept;
	none_told = fl.nr;
	/* kubectl: the kinds that answered */
	ret = sort_tables(&f, &fl) < 0 || print_found(&f, kept > 1, &fl) < 0;
	ret |= told(&fl);
	found_release(&f);
	free(res);
	cluster_close(&c);
	return ret;
}

/* name's object in s's informer i into f, or why not into fl, as get_named() asks the server. */
static void cached_named(struct session *s, size_t i, const char *name, struct found *f,
			 struct failures *fl)
{
	struct errbuf err = { "" };
	struct kobj_list one = { 0 };

	if (list_from_cache(s, i, name, &one, &err) < 0) {
		failed(fl, err.msg);
		return;
	}
	if (!one.nr && !o.ignore_not_found) {
		get_not_found(s->resources[i], name, &err);
		failed(fl, err.msg);
	}
	for (size_t j = 0; j < one.nr; j++) {
		size_t e = found_entry(f, s->resources[i]);	/* may move f->objs */
		kobj_list_add(&f->objs[e], one.v[j]);
	}
	free(one.v);
}

/*
 * Informer i's refusal is not told: --ignore-not-found, and apimachinery's
 * IsNotFound reads it as a NotFound, as kubectl's LIST of the type.
 */
static bool refusal_ignored(struct session *s, size_t i)
{
	struct informer_stats st;

	if (!o.ignore_not_found)
		return false;
	informer_get_stats(s->informers[i], &st);
	return st.refused_not_found;
}

/*
 * The NAMEs from the caches, in get_named_from_server()'s order: each
 * run of names of one TYPES, each of its types.  A type without an
 * informer (its namespace refused) has its failure in fl already; one
 * whose list was refused (refused[i]) fails for each of its names; s
 * NULL: none has an informer.
 */
static int named_from_cache(struct session *s, char **refused, struct crd_columns *crds,
			    const struct resource_args *ra, bool single, struct failures *fl)
{
	struct errbuf err = { "" };
	struct found f;

	found_init(&f, crds, NULL, 0, cluster_flags.all_namespaces);
	for (size_t k = 0, end; s && k < ra->nnames; k = end) {
		const struct api_resource **types;
		size_t ntypes;
		for (end = k + 1; end < ra->nnames && ra->names[end].resource == ra->names[k].resource;)
			end++;
		if (cluster_resolve(&s->cluster, ra->names[k].resource, &types, &ntypes, &err) < 0) {
			failed(fl, err.msg);	/* resolved before the informers started */
			continue;
		}
		for (size_t j = 0; j < ntypes; j++)
			for (size_t i = 0; i < s->nr; i++)
				for (size_t m = k; m < end && s->resources[i] == types[j]; m++)
					if (!refused[i])
						cached_named(s, i, ra->names[m].name, &f, fl);
					else if (!refusal_ignored(s, i))	/* as a GET of each */
						failed(fl, refused[i]);
		free(types);
	}
	int ret = print_named(&f, single, fl);
	found_release(&f);
	return ret;
}

/*
 * Every object of the types of res[nr] (s's informers, in order) from
 * the caches, printed as from the server: a type whose list was refused
 * (refused[i]) shows none and is told after, with what failed before (fl).
 */
static int list_from_caches(struct session *s, char **refused, struct crd_columns *crds,
			    const struct api_resource **res, size_t nr, bool all_namespaces,
			    struct failures *fl)
{
	struct errbuf err = { "" };
	struct found f;
	size_t kept = 0;
	int ret = 1;

	found_init(&f, crds, res, nr, all_namespaces);
	for (size_t i = 0; i < nr; i++) {
		if (refused[i]) {
			if (!refusal_ignored(s, i))
				failed(fl, refused[i]);
			continue;
		}
		if (list_from_cache(s, i, NULL, &f.objs[kept], &err) < 0) {
			error("%s", err.msg);
			goto out;
		}
		res[kept] = res[i];	/* a type refused is no table, no kind */
		if (sorting_tables()) {	/* the RV of the server's Table: the list's */
			struct informer_stats st;
			informer_get_stats(s->informers[i], &st);
			table_set_rv(entry_table(&f, kept), st.rv);
		}
		kept++;
	}
	f.nr = kept;
	none_told = fl->nr;
	ret = sort_tables(&f, fl) < 0 || print_found(&f, kept > 1, fl) < 0;
out:
	found_release(&f);
	return told(fl) || ret;
}

/*
 * s's informers started and settled (oneshot_wait_settled(): *refused),
 * then stopped; -1 told.
 */
static int cache_settled(struct session *s, struct crd_columns *crds, char ***refused)
{
	struct errbuf err = { "" };

	printer_columns_load(crds, &s->cluster, s->resources, s->nr);
	if (session_start(s, &err) < 0 ||
	    oneshot_wait_settled(s, o.sync_timeout_ms, refused, &err) < 0) {
		error("%s", err.msg);
		return -1;
	}
	session_stop(s);
	return 0;
}

/*
 * From the informers' caches, once synced, printed as from the server:
 * a type whose namespace client-go refuses, or whose list the server
 * refuses, fails alone, told after.
 */
static int get_from_cache(const struct resource_args *ra)
{
	struct errbuf err = { "" };
	struct failures fl = { 0 };
	struct session s;
	struct session_opts so = {
		.resources = ra->resource,
		.name = ra->nnames == 1 ? ra->name : NULL,
		.field_selector = o.field_selector,
		.keep_managed_fields = o.keep_managed_fields,
		.page_size = session_page_size(o.chunk_size),
	};
	struct crd_columns *crds = NULL;
	struct strbuf typed = STRBUF_INIT;
	struct cluster c;
	const struct api_resource **res;
	char **refused = NULL;		/* [kept]: each informer's refusal, or NULL */
	size_t nr, kept = 0;
	int ret = 1;

	/* TYPE/NAMEs: an informer for each TYPE */
	strbuf_adds(&typed, ra->resource);
	for (size_t k = 1; ra->tuples && k < ra->nnames; k++)
		strbuf_addf(&typed, ",%s", ra->names[k].resource);
	so.resources = typed.buf;
	if (cluster_open(&c, &err) < 0) {
		error("%s", err.msg);
		strbuf_release(&typed);
		return 1;
	}
	session_prepare_client(&so, c.client);
	if (cluster_resolve(&c, typed.buf, &res, &nr, &err) < 0) {
		error("%s", err.msg);
		res = NULL;
		goto fail;
	}
	bool single = ra->nnames == 1 && nr == 1;
	for (size_t i = 0; i < nr; i++) {
		if (cluster_scope_check(&c, &res[i], 1, &err) < 0)
			failed(&fl, err.msg);
		else
			res[kept++] = res[i];	/* res[0] stays a type when none is kept */
	}
	if (ra->nnames && by_name_everywhere(res, kept))
		goto fail;
	if (kept && session_open_on(&s, &so, &c, res, kept, &err) < 0) {
		error("%s", err.msg);
		goto fail;
	}
	/* from here c is s's when an informer was kept */
	scope_ns = c.scope_ns;
	none_told = fl.nr;
	crds = crd_columns_new();
	if (kept && cache_settled(&s, crds, &refused) < 0) {
		crd_columns_free(crds);
		told(&fl);
	} else if (ra->nnames) {
		ret = named_from_cache(kept ? &s : NULL, refused, crds, ra, single, &fl);
	} else {
		ret = list_from_caches(&s, refused, crds, res, kept, c.scope_ns == NULL, &fl);
	}
	oneshot_refusals_free(refused, refused ? kept : 0);
	if (kept)
		session_close(&s);
	else
		cluster_close(&c);
	free(res);
	strbuf_release(&typed);
	return ret;
fail:
	told(&fl);
	cluster_close(&c);
	free(res);
	strbuf_release(&typed);
	return 1;
}

/*
 * get -w --deltas: `kinf watch` with the rest of the line, get's watch
 * flags left out.
 */
static int run_deltas(int argc, const char **argv)
{
	const char **wargv = xcalloc((size_t)argc + 1, sizeof(*wargv));
	int n = 0, ret;

	wargv[n++] = "watch";
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--deltas") && strcmp(argv[i], "-w") &&
		    strcmp(argv[i], "--watch"))
			wargv[n++] = argv[i];
	ret = command_watch.run(n, wargv);
	free(wargv);
	return ret;
}

/* The watch flags' rules, kubectl's where it has them. */
static void check_watch_options(const struct resource_args *ra)
{
	bool watching = o.watch || o.watch_only;

	if (o.output_watch_events && !watching)
		usage_error(&command_get, "--output-watch-events option can only be used "
			    "with --watch or --watch-only");
	if (o.deltas)
		usage_error(&command_get, "--deltas goes with --watch (-w)");
	if (watching && o.from_cache)
		usage_error(&command_get, "--watch asks the server as kubectl does; for what "
			    "an informer's cache sees, --watch --deltas");
	if (watching && !ra->nnames && (strchr(ra->resource, ',') || names_all(ra->resource)))
		usage_error(&command_get, "you may only specify a single resource type");
	if (watching && o.sort_by)
		warning("--watch or --watch-only requested, --sort-by will be ignored");
}

/* Whether the arguments name one type as typed: "pods", "pods web db", "po/a po/b". */
static bool one_type(const struct resource_args *ra)
{
	for (size_t k = 0; k < ra->nnames; k++)
		if (strcmp(ra->names[k].resource, ra->resource))
			return false;
	return !strchr(ra->resource, ',');
}

static int run_get(int argc, const char **argv)
{
	struct resource_args ra;
	int ret;

	bool deltas = false, watch = false;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		deltas |= !strcmp(argv[i], "--deltas");
		watch |= !strcmp(argv[i], "-w") || !strcmp(argv[i], "--watch");
	}
	if (deltas && watch)
		return run_deltas(argc, argv);
	argc = opt_parse(&command_get, argc, argv);
	resource_args_parse(&command_get, argc, argv, true, &ra);
	o.label_selector = selector_param(o.label_selector);
	o.field_selector = selector_param(o.field_selector);
	if (names_all(ra.resource) && (ra.name || o.from_cache || strchr(ra.resource, ',')))
		usage_error(&command_get, "'all' lists several types from the server, alone: "
			    "no NAME, no --from-cache, no other type");
	if (ra.nnames && (o.label_selector || o.field_selector))	/* kubectl's rule */
		usage_error(&command_get, "name cannot be provided when a selector is specified");
	if (o.index && !o.from_cache)
		usage_error(&command_get, "--index needs --from-cache");
	if (o.index && (!strchr(o.index, '=') || *o.index == '='))
		usage_error(&command_get, "invalid value '%s' for '--index': expected "
			    "NAME=VALUE, e.g. node=worker-1", o.index);
	if (o.index && !one_type(&ra))
		usage_error(&command_get, "--index needs exactly one resource type");
	if (o.label_selector) {
		/* Told here, as watch -l tells it, before any request. */
		struct errbuf err = { "" };
		struct selector *sel = selector_parse(o.label_selector, &err);
		if (!sel)
			usage_error(&command_get, "%s", err.msg);
		selector_free(sel);
	}
	check_watch_options(&ra);
	parse_output_options();
	if (o.show_labels && !printing_tables() && o.output)
		usage_error(&command_get, "--show-labels option cannot be used with %s printer",
			    o.output);
	ret = o.from_cache ? get_from_cache(&ra) : get_from_server(&ra);
	release_output_options();
	resource_args_release(&ra);
	return ret;
}

const struct command command_get = {
	.name = "get",
	.run = run_get,
	.summary = "List objects from the server or from an informer's cache",
	.usage = "kinf get RESOURCE[,RESOURCE...] [NAME...] | RESOURCE/NAME... [--from-cache] [options]",
	.description =
		"Without --from-cache, lists straight from the server.  With it, syncs\n"
		"an informer and answers from its Indexer, as a controller's lister\n"
		"does, so the two can be compared.  Several types (pods,deploy) print\n"
		"a table each, names as pod/NAME; so does 'all', kubectl's category:\n"
		"every type in it.  Objects by NAME or TYPE/NAME are a GET each, as\n"
		"kubectl's; one prints as itself with -o json|yaml, not in a List.\n"
		"With -w, kubectl's watch: the list, then every change in the same\n"
		"format (--deltas: kinf watch's view).",
	.examples =
		"  kinf get pods --from-cache\n"
		"  kinf get deploy/web -o yaml\n"
		"  kinf get pods pod-0 pod-1 -o wide\n"
		"  kinf get pods,deploy --from-cache\n"
		"  kinf get all -A\n"
		"  kinf get pods -o jsonpath='{range .items[*]}{.metadata.name}{\"\\n\"}{end}'\n"
		"  kinf get pods -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName\n"
		"  kinf get pods --sort-by=.metadata.creationTimestamp -L app --from-cache\n"
		"  kinf get pods -A --from-cache --index node=worker-1 -o wide\n"
		"  kinf get pods -w --output-watch-events\n"
		"  kinf get pods --from-cache -l app=web -o json | jq '.items | length'\n",
	.options = get_options,
	.positional = COMPLETE_RESOURCE,
};

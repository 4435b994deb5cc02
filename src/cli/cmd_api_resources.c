/*
 * cmd_api_resources.c — `kinf api-resources`: the resource types the
 * server offers, in kubectl's table (and its -o wide / -o name), so a
 * person sees what names kinf will accept and which can be watched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "cli/cmd.h"
#include "cluster/discovery.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "output/table_writer.h"

static const char *const output_names[] = { "wide", "name", NULL };
enum { OUTPUT_WIDE, OUTPUT_NAME };
static const char *const sort_names[] = { "name", "kind", NULL };
enum { SORT_NAME, SORT_KIND };

static struct {
	int output;		/* -1: the plain table */
	int sort_by;		/* -1: by group, then name */
	bool no_headers;
	bool cached;
	const char *api_group;
	bool namespaced, namespaced_seen;	/* not seen: both */
	struct strbuf verbs, categories;	/* "list,watch": all of them */
} o = { .output = -1, .sort_by = -1, .verbs = STRBUF_INIT, .categories = STRBUF_INIT };

static const struct option api_resources_options[] = {
	OPT_ENUM('o', "output", &o.output, "FORMAT", output_names,
		 "wide adds the verbs and categories; name prints resource.group"),
	OPT_BOOL(0, "no-headers", &o.no_headers, "leave out the header line"),
	OPT_STRING(0, "api-group", &o.api_group, "GROUP",
		   "only this API group (\"\" for the core group)", COMPLETE_NONE),
	OPT_BOOL_SEEN(0, "namespaced", &o.namespaced, &o.namespaced_seen,
		      "only namespaced resources; =false: only cluster-scoped"),
	OPT_LIST(0, "verbs", &o.verbs, "VERBS",
		 "only resources with all these verbs, e.g. list,watch", COMPLETE_NONE),
	OPT_LIST(0, "categories", &o.categories, "CATEGORIES",
		 "only resources in all these categories, e.g. all", COMPLETE_NONE),
	OPT_ENUM(0, "sort-by", &o.sort_by, "FIELD", sort_names, "sort by name or kind"),
	OPT_BOOL(0, "cached", &o.cached,
		 "from the discovery cache if it is fresh (default: ask the server, refresh the cache)"),
	OPT_INCLUDE(cluster_options),
	OPT_END(),
};

/* Whether r's words (its verbs or categories) hold every one of list's. */
static bool has_all(char *const *words, const struct strbuf *list)
{
	char *copy = xstrdup(strbuf_str(list)), *save = NULL;
	bool ok = true;
	for (char *w = strtok_r(copy, ",", &save); w && ok; w = strtok_r(NULL, ",", &save))
		ok = strv_has((const char *const *)words, w);
	free(copy);
	return ok;
}

static bool wanted(const struct api_resource *r)
{
	/* kubectl leaves out what cannot be asked anything. */
	if (!r->verbs || !r->verbs[0])
		return false;
	if (o.api_group && strcmp(r->group, o.api_group))
		return false;
	if (o.namespaced_seen && r->namespaced != o.namespaced)
		return false;
	if (!has_all(r->verbs, &o.verbs) || !has_all(r->categories, &o.categories))
		return false;
	return true;
}

static int compare_by(const void *a, const void *b)
{
	const struct api_resource *x = *(const struct api_resource *const *)a;
	const struct api_resource *y = *(const struct api_resource *const *)b;
	int c = o.sort_by == SORT_KIND ? strcmp(x->kind, y->kind) : strcmp(x->name, y->name);
	if (c)
		return c;
	c = strcmp(x->group, y->group);	/* discovery_all's order among equals */
	return c ? c : strcmp(x->name, y->name);
}

static char *join(char **v)
{
	struct strbuf sb = STRBUF_INIT;
	for (; v && *v; v++)
		strbuf_addf(&sb, "%s%s", sb.len ? "," : "", *v);
	return strbuf_detach(&sb, NULL);
}

/* What discovery said, as kubectl prints it; escaped on a terminal. */
static void write_out(const struct strbuf *out)
{
	struct strbuf safe = STRBUF_INIT;
	const struct strbuf *w = out;

	if (isatty(STDOUT_FILENO)) {
		strbuf_add_termsafe(&safe, out->buf, out->len, TERMSAFE_NEWLINE);
		w = &safe;
	}
	fwrite(w->buf, 1, w->len, stdout);
	strbuf_release(&safe);
}

static void print_resources(const struct api_resource **res, size_t nr)
{
	struct strbuf out = STRBUF_INIT;

	if (o.output == OUTPUT_NAME) {
		for (size_t i = 0; i < nr; i++) {
			char *name = api_resource_full_name(res[i]);
			strbuf_addf(&out, "%s\n", name);
			free(name);
		}
		write_out(&out);
		strbuf_release(&out);
		return;
	}
	static const char *const head[] = { "NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED",
					    "KIND", "VERBS", "CATEGORIES" };
	bool wide = o.output == OUTPUT_WIDE;
	size_t ncols = wide ? 7 : 5;
	struct table *t = table_new(head, ncols);

	for (size_t i = 0; i < nr; i++) {
		const struct api_resource *r = res[i];
		char *row[] = {
			xstrdup(r->name), join(r->short_names),
			api_group_version(r->group, r->version),
			xstrdup(r->namespaced ? "true" : "false"), xstrdup(r->kind),
			wide ? join(r->verbs) : NULL, wide ? join(r->categories) : NULL,
		};
		table_add_row(t, (const char *const *)row);
		for (size_t c = 0; c < ncols; c++)
			free(row[c]);
	}
	table_format(t, o.no_headers, NULL, &out);
	write_out(&out);
	strbuf_release(&out);
	table_free(t);
}

static int run_api_resources(int argc, const char **argv)
{
	struct errbuf err = { "" };
	struct cluster c = { 0 };
	const struct api_resource **all, **res = NULL;
	size_t nr_all, nr = 0;
	int ret = 1;

	argc = opt_parse(&command_api_resources, argc, argv);
	if (argc > 0)
		usage_error(&command_api_resources, "unexpected argument '%s'", argv[0]);

	if (cluster_open(&c, &err) < 0) {
		error("%s", err.msg);
		goto cleanup;
	}
	if (!o.cached)
		discovery_invalidate(c.disco);	/* kubectl api-resources asks the server too */
	if (discovery_load(c.disco, &err) < 0) {
		print_resources(NULL, 0);	/* kubectl's header comes before its error */
		fflush(stdout);
		error("%s", err.msg);
		goto cleanup;
	}
	discovery_all(c.disco, &all, &nr_all);
	res = xcalloc(nr_all + 1, sizeof(*res));
	for (size_t i = 0; i < nr_all; i++)
		if (wanted(all[i]))
			res[nr++] = all[i];
	if (o.sort_by >= 0)
		qsort(res, nr, sizeof(*res), compare_by);
	print_resources(res, nr);
	if (fflush(stdout) != 0) {
		error("cannot write to standard output: %s", strerror(errno));
		goto cleanup;
	}
	/* As kubectl: print what answered, then say what did not. */
	if (discovery_failed(c.disco)) {
		error("unable to retrieve the complete list of server APIs: %s",
		      discovery_failed(c.disco));
		goto cleanup;
	}
	ret = 0;
cleanup:
	free(res);
	cluster_close(&c);
	return ret;
}

const struct command command_api_resources = {
	.name = "api-resources",
	.run = run_api_resources,
	.summary = "List the resource types the server offers",
	.usage = "kinf api-resources [options]",
	.description =
		"The resource types of the cluster's preferred API versions, as\n"
		"'kubectl api-resources' prints them: every name in the NAME and\n"
		"SHORTNAMES columns (and the singular and kind) is a name kinf accepts,\n"
		"qualified as resource.group when two groups share it.  Informers need\n"
		"the list and watch verbs; -o wide shows them.",
	.examples =
		"  kinf api-resources\n"
		"  kinf api-resources -o wide --verbs list,watch\n"
		"  kinf api-resources --api-group apps -o name\n"
		"  kinf api-resources --namespaced=false\n"
		"  kinf api-resources --categories all\n",
	.options = api_resources_options,
};

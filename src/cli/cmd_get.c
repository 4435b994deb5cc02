/*
 * cmd_get.c — `kinf get RESOURCE [NAME]`: objects from the server, or
 * with --from-cache from a synced informer's Indexer, as a controller's
 * lister sees them.  Same output either way, so the two can be compared.
 */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "cli/cmd.h"
#include "output/columns.h"
#include "cluster/discovery.h"
#include "cluster/http.h"
#include "lib/json_stream.h"
#include "informer/kobj.h"
#include "lib/selector.h"
#include "informer/session.h"
#include "informer/store.h"
#include "lib/strbuf.h"

static const char *const output_names[] = { "table", "wide", "json", "name", NULL };
enum { OUT_TABLE, OUT_WIDE, OUT_JSON, OUT_NAME };

static struct {
	bool from_cache, no_headers, keep_managed_fields;
	int output;
	const char *index, *label_selector, *field_selector;
	int64_t sync_timeout_ms;
} o = { .sync_timeout_ms = 60000 };

static const struct option get_options[] = {
	OPT_BOOL(0, "from-cache", &o.from_cache,
		 "sync an informer and answer from its Indexer"),
	OPT_ENUM('o', "output", &o.output, "FORMAT", output_names, "output format"),
	OPT_STRING(0, "index", &o.index, "NAME=VALUE",
		   "with --from-cache: look up an index (namespace, node, label, owner)",
		   COMPLETE_NONE),
	OPT_STRING('l', "selector", &o.label_selector, "SELECTOR",
		   "label selector (with --from-cache applied to the cache)", COMPLETE_NONE),
	OPT_STRING(0, "field-selector", &o.field_selector, "SELECTOR",
		   "field selector, applied by the server", COMPLETE_NONE),
	OPT_DURATION(0, "sync-timeout", &o.sync_timeout_ms,
		     "with --from-cache: give up waiting for the sync (default 60s)"),
	OPT_BOOL(0, "no-headers", &o.no_headers, "no column headers"),
	OPT_BOOL(0, "keep-managed-fields", &o.keep_managed_fields,
		 "keep metadata.managedFields (dropped by default)"),
	OPT_INCLUDE(cluster_options),
	OPT_END(),
};

static int by_namespace_name(const void *a, const void *b)
{
	const struct kobj *x = *(struct kobj *const *)a, *y = *(struct kobj *const *)b;
	int c = strcmp(x->ns, y->ns);
	return c ? c : strcmp(x->name, y->name);
}

/* ---- from the server ---------------------------------------------------- */

struct gather {
	struct kobj_list *out;
	size_t alloc;
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

static int split_list(void *ctx, const char *data, size_t len)
{
	return list_splitter_feed(ctx, data, len);
}

static void add_param(struct strbuf *q, const char *name, const char *value)
{
	strbuf_addch(q, q->len ? '&' : '?');
	strbuf_addf(q, "%s=", name);
	url_query_escape(q, value);
}

/* A paged LIST straight from the server (no informer). */
static int list_from_server(struct cluster *c, const struct api_resource *res,
			    const char *name, struct kobj_list *out, struct errbuf *err)
{
	char *base = api_resource_path(res, res->namespaced ? c->scope_ns : NULL);
	char *api_version = *res->group ? xasprintf("%s/%s", res->group, res->version)
					: xstrdup(res->version);
	struct gather g = {
		.out = out,
		.flags = o.keep_managed_fields ? KOBJ_KEEP_MANAGED_FIELDS : 0,
		.type = { .api_version = api_version, .kind = res->kind },
	};
	char *cont = NULL;
	int ret = -1;

	do {
		struct strbuf q = STRBUF_INIT;
		add_param(&q, "limit", "500");
		if (cont)
			add_param(&q, "continue", cont);
		if (o.label_selector)
			add_param(&q, "labelSelector", o.label_selector);
		struct strbuf fields = STRBUF_INIT;
		if (name)
			strbuf_addf(&fields, "metadata.name=%s", name);
		if (o.field_selector)
			strbuf_addf(&fields, "%s%s", fields.len ? "," : "", o.field_selector);
		if (fields.len)
			add_param(&q, "fieldSelector", fields.buf);
		strbuf_release(&fields);
		char *path = xasprintf("%s%s", base, strbuf_str(&q));
		strbuf_release(&q);

		struct list_splitter ls;
		struct http_response resp = { 0 };
		list_splitter_init(&ls, gather_item, &g);
		/* A server that sends nothing for a minute is not coming back. */
		int rc = kclient_stream(c->client, path,
					&(struct stream_opts){ .idle_timeout_ms = 60000 },
					split_list, &ls, &resp, err);
		free(path);
		free(cont);
		cont = NULL;
		if (rc == 0 && (resp.status < 200 || resp.status > 299)) {
			char what[128];
			snprintf(what, sizeof(what), "list %s", res->name);
			http_status_message(&resp, what, err);
			rc = -1;
		} else if (g.bad) {
			errbuf_set(err, "%s", g.err.msg);
			rc = -1;
		} else if (rc == 0 && !list_splitter_done(&ls)) {
			errbuf_set(err, "the server's list of %s ended early", res->name);
			rc = -1;
		}
		if (rc == 0) {
			json_object *rest = json_parse_deep(list_splitter_rest(&ls)), *meta, *v;
			if (rest && json_object_object_get_ex(rest, "metadata", &meta) &&
			    json_object_object_get_ex(meta, "continue", &v) &&
			    *json_object_get_string(v))
				cont = xstrdup(json_object_get_string(v));
			json_object_put(rest);
		}
		list_splitter_release(&ls);
		http_response_release(&resp);
		if (rc < 0)
			goto cleanup;
	} while (cont);
	ret = 0;
cleanup:
	free(api_version);
	free(base);
	return ret;
}

/* ---- from the cache ----------------------------------------------------- */

static int list_from_cache(struct session *s, const char *name,
			   struct kobj_list *out, struct errbuf *err)
{
	struct store *store = informer_store(s->informers[0]);
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

static int print_objects(const struct api_resource *res, struct kobj_list *objs,
			 bool all_namespaces)
{
	struct strbuf sb = STRBUF_INIT;

	if (objs->nr > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(objs->v, objs->nr, sizeof(*objs->v), by_namespace_name);
	switch (o.output) {
	case OUT_JSON:
		strbuf_adds(&sb, "{\n    \"apiVersion\": \"v1\",\n    \"items\": [");
		for (size_t i = 0; i < objs->nr; i++) {
			strbuf_adds(&sb, i ? ",\n" : "\n");
			strbuf_add(&sb, objs->v[i]->json, objs->v[i]->json_len);
		}
		strbuf_adds(&sb, "\n    ],\n    \"kind\": \"List\",\n"
			    "    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n");
		break;
	case OUT_NAME: {
		char *lower = xstrdup(res->kind);
		for (char *p = lower; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		for (size_t i = 0; i < objs->nr; i++) {
			if (res->group[0])
				strbuf_addf(&sb, "%s.%s/%s\n", lower, res->group, objs->v[i]->name);
			else
				strbuf_addf(&sb, "%s/%s\n", lower, objs->v[i]->name);
		}
		free(lower);
		break;
	}
	default: {
		unsigned flags = (o.output == OUT_WIDE ? COLUMNS_WIDE : 0) |
				 (all_namespaces && res->namespaced ? COLUMNS_NAMESPACE : 0);
		struct table *t = columns_table_new(res->kind, flags);
		int64_t now = wall_ms();
		for (size_t i = 0; i < objs->nr; i++) {
			struct json_object *tree = kobj_tree(objs->v[i]);
			columns_table_add(t, tree, now);
			json_object_put(tree);
		}
		int rc = objs->nr ? table_write(t, stdout, o.no_headers) : 0;
		table_free(t);
		if (rc < 0 && errno != EPIPE) {
			error("cannot write output: %s", strerror(errno));
			return -1;
		}
		if (!objs->nr)
			fprintf(stderr, "No resources found%s.\n", all_namespaces || !res->namespaced
				? "" : " in this namespace");
		return 0;
	}
	}
	int ret = 0;
	if (fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) != 0)
		ret = errno == EPIPE ? 0 : -1;
	if (ret < 0)
		error("cannot write output: %s", strerror(errno));
	strbuf_release(&sb);
	return ret;
}

static int run_get(int argc, const char **argv)
{
	struct errbuf err = { "" };
	struct kobj_list objs = { 0 };
	const char *name;
	int ret = 1;

	argc = opt_parse(&command_get, argc, argv);
	if (argc < 1)
		usage_error(&command_get, "no resource type given, e.g. 'kinf get pods'");
	if (argc > 2)
		usage_error(&command_get, "unexpected argument '%s'", argv[2]);
	if (strchr(argv[0], ','))
		usage_error(&command_get, "get takes one resource type");
	if (o.index && !o.from_cache)
		usage_error(&command_get, "--index needs --from-cache");
	if (o.index && (!strchr(o.index, '=') || *o.index == '='))
		usage_error(&command_get, "invalid value '%s' for '--index': expected "
			    "NAME=VALUE, e.g. node=worker-1", o.index);
	name = argc == 2 ? argv[1] : NULL;

	if (o.from_cache) {
		struct session s;
		struct session_opts so = {
			.resources = argv[0],
			.name = name,
			.field_selector = o.field_selector,
			.keep_managed_fields = o.keep_managed_fields,
		};
		if (session_open(&s, &so, &err) < 0) {
			error("%s", err.msg);
			return 1;
		}
		if (session_start(&s, &err) < 0) {
			error("%s", err.msg);
		} else if (session_wait_synced(&s, o.sync_timeout_ms) < 0) {
			struct informer_stats st;
			informer_get_stats(s.informers[0], &st);
			if (st.state == STATE_STOPPED && st.last_error[0])
				error("%s", st.last_error);	/* it gave up */
			else
				error("the %s informer did not sync within %llds%s%s",
				      s.resources[0]->name, (long long)(o.sync_timeout_ms / 1000),
				      st.last_error[0] ? ": " : "", st.last_error);
		} else {
			session_stop(&s);
			if (list_from_cache(&s, name, &objs, &err) < 0)
				error("%s", err.msg);
			else if (name && objs.nr == 0)
				error("%s \"%s\" not found", s.resources[0]->name, name);
			else
				ret = print_objects(s.resources[0], &objs,
						    s.cluster.scope_ns == NULL) < 0;
		}
		kobj_list_release(&objs);
		session_close(&s);
		return ret;
	}

	struct cluster c;
	const struct api_resource **res = NULL;
	size_t nr;
	if (cluster_open(&c, &err) < 0) {
		error("%s", err.msg);
		return 1;
	}
	if (cluster_resolve(&c, argv[0], &res, &nr, &err) < 0 ||
	    list_from_server(&c, res[0], name, &objs, &err) < 0)
		error("%s", err.msg);
	else if (name && objs.nr == 0)
		error("%s \"%s\" not found", res[0]->name, name);
	else
		ret = print_objects(res[0], &objs, c.scope_ns == NULL) < 0;
	kobj_list_release(&objs);
	free(res);
	cluster_close(&c);
	return ret;
}

const struct command command_get = {
	.name = "get",
	.run = run_get,
	.summary = "List objects from the server or from an informer's cache",
	.usage = "kinf get RESOURCE [NAME] [--from-cache] [options]",
	.description =
		"Without --from-cache, lists straight from the server.  With it, syncs\n"
		"an informer and answers from its Indexer, as a controller's lister\n"
		"does, so the two can be compared.",
	.examples =
		"  kinf get pods --from-cache\n"
		"  kinf get pods -A --from-cache --index node=worker-1 -o wide\n"
		"  kinf get pods --from-cache -l app=web -o json | jq '.items | length'\n",
	.options = get_options,
	.positional = COMPLETE_RESOURCE,
};

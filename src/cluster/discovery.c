/*
 * discovery.c — the server's resources, found as kubectl finds them, and
 * kubectl's rules for what a typed name means; see discovery.h.
 *
 * Where the answers come from, cheapest first (client-go's
 * CachedDiscoveryClient over a MemCacheClient over a DiscoveryClient):
 *   1. the disk cache shared with kubectl (discovery_cache.h): no request;
 *   2. aggregated discovery (DiscoveryClient.GroupsAndMaybeResources):
 *      /api and /apis asked for apidiscovery.k8s.io/v2, then v2beta1, by
 *      the Accept header; a server that knows it answers every group,
 *      version and resource in those two requests;
 *   3. else the legacy documents: /api, /apis, then one request per group
 *      version (only the preferred ones up front; another when named).
 * What the server answered is written to the disk cache.  A name the
 * cached documents do not know makes kinf ask the server again, once, as
 * kubectl's DeferredDiscoveryRESTMapper resets a cache that is not fresh.
 *
 * DESIGN (threads): discovery_load() fetches legacy group versions in
 * parallel, one short-lived thread per group version (at most
 * MAX_PARALLEL at once), because a cluster with many CRD groups would
 * otherwise pay one round trip each, in series; over HTTP/2 they share
 * one connection.  Each thread fills only its own struct gv_fetch (and
 * writes its own cache file); the caller joins them all before reading
 * any.  Everything else runs on the caller's thread.
 */
#include "cluster/discovery.h"

#include <ctype.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery_cache.h"
#include "cluster/http.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"

#define MAX_PARALLEL 16

/* client-go 1.28-1.32's acceptDiscoveryFormats: aggregated v2, v2beta1, else legacy. */
#define ACCEPT_DISCOVERY                                                        \
	"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"  \
	"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList," \
	"application/json"

struct api_group {
	char *name;		/* "" for the core group */
	char **versions;	/* as the server orders them, NULL-terminated */
	char *preferred;
	bool *loaded;		/* per version */
};

/* A group version's APIResourceList known without asking (aggregated discovery). */
struct gv_doc {
	char *gv;		/* "apps/v1", "v1" */
	json_object *list;
};

struct discovery {
	struct kclient *client;
	char *cache_dir;	/* NULL: no disk cache */
	bool loaded;
	/* Something came from cache files this process did not write (kubectl: !Fresh()). */
	bool from_disk;
	/* Cache files are not to be read any more (kubectl's Invalidate()). */
	bool invalidated;
	struct api_group *groups;	/* core first, then /apis order */
	size_t nr_groups, alloc_groups;
	/* Every resource fetched, preferred versions first, in group order. */
	struct api_resource **res;
	size_t nr_res, alloc_res;
	size_t nr_preferred;		/* res[0..nr_preferred) */
	/* Resources of an invalidated load: callers may still hold them. */
	struct api_resource **retired;
	size_t nr_retired, alloc_retired;
	struct gv_doc *docs;
	size_t nr_docs, alloc_docs;
	/* Group versions that failed to answer, "metrics.k8s.io/v1beta1, ...". */
	struct strbuf failed;
	long refused;		/* discovery_refused() */
	const struct api_resource **sorted;
};

struct discovery *discovery_new(struct kclient *client)
{
	struct discovery *d = xcalloc(1, sizeof(*d));
	d->client = client;
	return d;
}

void discovery_set_cache_dir(struct discovery *d, const char *dir)
{
	free(d->cache_dir);
	d->cache_dir = dir ? xstrdup(dir) : NULL;
}

void api_resource_release(struct api_resource *r)
{
	free(r->group);
	free(r->version);
	free(r->name);
	free(r->singular);
	free(r->kind);
	strv_free(r->verbs);
	strv_free(r->short_names);
	strv_free(r->categories);
}

static void docs_clear(struct discovery *d)
{
	for (size_t i = 0; i < d->nr_docs; i++) {
		free(d->docs[i].gv);
		json_object_put(d->docs[i].list);
	}
	d->nr_docs = 0;
}

/* Forgets what was loaded; the resources handed out stay valid. */
static void discovery_reset(struct discovery *d)
{
	for (size_t i = 0; i < d->nr_groups; i++) {
		free(d->groups[i].name);
		strv_free(d->groups[i].versions);
		free(d->groups[i].preferred);
		free(d->groups[i].loaded);
	}
	d->nr_groups = 0;
	for (size_t i = 0; i < d->nr_res; i++) {
		ALLOC_GROW(d->retired, d->nr_retired + 1, d->alloc_retired);
		d->retired[d->nr_retired++] = d->res[i];
	}
	d->nr_res = d->nr_preferred = 0;
	docs_clear(d);
	strbuf_reset(&d->failed);
	d->loaded = false;
	d->from_disk = false;
}

void discovery_free(struct discovery *d)
{
	if (!d)
		return;
	discovery_reset(d);
	for (size_t i = 0; i < d->nr_retired; i++) {
		api_resource_release(d->retired[i]);
		free(d->retired[i]);
	}
	free(d->retired);
	free(d->groups);
	free(d->res);
	free(d->docs);
	free(d->sorted);
	free(d->cache_dir);
	strbuf_release(&d->failed);
	free(d);
}

void discovery_invalidate(struct discovery *d)
{
	discovery_reset(d);
	d->invalidated = true;
}

/* ---- documents ------------------------------------------------------------ */

static char **json_strv(json_object *obj, const char *key)
{
	json_object *arr = json_get_array(obj, key);
	size_t n = arr ? json_object_array_length(arr) : 0;
	char **v = xcalloc(n + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		if (json_object_is_type(s, json_type_string))
			v[k++] = xstrdup(json_object_get_string(s));
	}
	return v;
}

char *api_group_version(const char *group, const char *version)
{
	return *group ? xasprintf("%s/%s", group, version) : xstrdup(version);
}

/* The content type of an aggregated discovery answer: its version, else NULL. */
static const char *aggregated_version(const char *content_type)
{
	static const char *const versions[] = { "v2", "v2beta1" };
	char *copy = xstrdup(content_type), *save = NULL;
	const char *found = NULL;
	bool json = false, group = false, kind = false;
	const char *v = NULL;

	for (char *p = strtok_r(copy, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
		while (*p == ' ')
			p++;
		size_t n = strlen(p);
		while (n && p[n - 1] == ' ')
			p[--n] = '\0';
		if (!strcasecmp(p, "application/json"))
			json = true;
		else if (!strcmp(p, "g=apidiscovery.k8s.io"))
			group = true;
		else if (!strcmp(p, "as=APIGroupDiscoveryList"))
			kind = true;
		else if (!strncmp(p, "v=", 2))
			v = p + 2;
	}
	for (size_t i = 0; json && group && kind && v && i < ARRAY_SIZE(versions); i++)
		if (!strcmp(v, versions[i]))
			found = versions[i];
	free(copy);
	return found;
}

static void add_json_str(json_object *obj, const char *key, const char *value)
{
	json_object_object_add(obj, key, json_object_new_string(value));
}

/* APIGroupDiscovery's responseKind fields onto an APIResource, as client-go converts them. */
static bool add_response_kind(json_object *out, json_object *in)
{
	json_object *rk = json_get(in, "responseKind");
	const char *kind = json_get_str(rk, "kind", NULL);
	if (!kind || !*kind)
		return false;
	const char *g = json_get_str(rk, "group", NULL), *v = json_get_str(rk, "version", NULL);
	if (g && *g)
		add_json_str(out, "group", g);
	if (v && *v)
		add_json_str(out, "version", v);
	add_json_str(out, "kind", kind);
	return true;
}

static void copy_array(json_object *out, const char *key, json_object *in)
{
	json_object *arr = json_get_array(in, key);
	if (arr)
		json_object_object_add(out, key, json_object_get(arr));
}

/*
 * An aggregated resource or subresource as an APIResource named name,
 * added to out when it has a responseKind.  Of a subresource (resource
 * false) only the verbs are copied, as convertAPISubresource copies them.
 */
static void add_converted(json_object *out, const char *name, const char *singular,
			  bool namespaced, json_object *in, bool resource)
{
	json_object *r = json_object_new_object();

	add_json_str(r, "name", name);
	add_json_str(r, "singularName", singular ? singular : "");
	json_object_object_add(r, "namespaced", json_object_new_boolean(namespaced));
	bool complete = add_response_kind(r, in);
	copy_array(r, "verbs", in);
	if (resource) {
		copy_array(r, "shortNames", in);
		copy_array(r, "categories", in);
	}
	if (complete)
		json_object_array_add(out, r);
	else
		json_object_put(r);
}

/*
 * One version of an aggregated group into a legacy APIResourceList
 * (client-go's convertAPIGroup/convertAPIResource/convertAPISubresource):
 * subresources become "pods/status" entries, as a legacy server lists them.
 */
static json_object *resource_list_of(const char *group, json_object *version)
{
	const char *ver = json_get_str(version, "version", NULL);
	json_object *list = json_object_new_object(), *out = json_object_new_array();
	json_object *resources = json_get_array(version, "resources");
	char *gv = api_group_version(group, ver);

	add_json_str(list, "kind", "APIResourceList");
	add_json_str(list, "apiVersion", "v1");
	add_json_str(list, "groupVersion", gv);
	free(gv);
	for (size_t i = 0; resources && i < json_object_array_length(resources); i++) {
		json_object *in = json_object_array_get_idx(resources, i);
		const char *name = json_get_str(in, "resource", NULL);
		const char *singular = json_get_str(in, "singularResource", NULL);
		const char *scope = json_get_str(in, "scope", NULL);
		bool namespaced = scope && !strcmp(scope, "Namespaced");
		if (!name)
			continue;
		/* one without a responseKind is still the parent of its subresources */
		add_converted(out, name, singular, namespaced, in, true);
		json_object *subs = json_get_array(in, "subresources");
		for (size_t k = 0; subs && k < json_object_array_length(subs); k++) {
			json_object *sin = json_object_array_get_idx(subs, k);
			const char *sub = json_get_str(sin, "subresource", NULL);
			if (!sub)
				continue;
			char *full = xasprintf("%s/%s", name, sub);
			add_converted(out, full, singular, namespaced, sin, false);
			free(full);
		}
	}
	json_object_object_add(list, "resources", out);
	return list;
}

static void doc_add(struct discovery *d, const char *gv, json_object *list)
{
	ALLOC_GROW(d->docs, d->nr_docs + 1, d->alloc_docs);
	d->docs[d->nr_docs].gv = xstrdup(gv);
	d->docs[d->nr_docs].list = list;
	d->nr_docs++;
}

static json_object *doc_find(struct discovery *d, const char *gv)
{
	for (size_t i = 0; i < d->nr_docs; i++)
		if (!strcmp(d->docs[i].gv, gv))
			return d->docs[i].list;
	return NULL;
}

/* Notes a group version that did not answer, for discovery_failed(). */
static void note_failed(struct discovery *d, const char *group, const char *version)
{
	char *gv = api_group_version(group, version);

	strbuf_addf(&d->failed, "%s%s", d->failed.len ? ", " : "", gv);
	free(gv);
}

/* ---- groups --------------------------------------------------------------- */

static struct api_group *add_group(struct discovery *d, const char *name, char **versions,
				   const char *preferred)
{
	ALLOC_GROW(d->groups, d->nr_groups + 1, d->alloc_groups);
	struct api_group *g = &d->groups[d->nr_groups++];
	size_t n = 0;
	while (versions[n])
		n++;
	g->name = xstrdup(name);
	g->versions = versions;
	g->preferred = xstrdup(preferred ? preferred : (n ? versions[0] : ""));
	g->loaded = xcalloc(n + 1, sizeof(bool));
	return g;
}

/* An APIGroupList's groups (from /apis, or servergroups.json). */
static void add_group_list(struct discovery *d, json_object *list)
{
	json_object *arr = json_get_array(list, "groups");
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *g = json_object_array_get_idx(arr, i);
		const char *name = json_get_str(g, "name", NULL);
		json_object *vs = json_get_array(g, "versions");
		size_t nv = vs ? json_object_array_length(vs) : 0;
		if (!name)
			continue;
		char **versions = xcalloc(nv + 1, sizeof(*versions));
		size_t k = 0;
		for (size_t j = 0; j < nv; j++) {
			const char *v = json_get_str(json_object_array_get_idx(vs, j), "version", NULL);
			if (v)
				versions[k++] = xstrdup(v);
		}
		add_group(d, name, versions,
			  json_get_str(json_get(g, "preferredVersion"), "version", NULL));
	}
}

/* An aggregated APIGroupDiscoveryList: its groups, and every version's resources as docs. */
static void add_aggregated(struct discovery *d, json_object *list)
{
	json_object *items = json_get_array(list, "items");
	for (size_t i = 0; items && i < json_object_array_length(items); i++) {
		json_object *item = json_object_array_get_idx(items, i);
		const char *name = json_get_str(json_get(item, "metadata"), "name", NULL);
		json_object *vs = json_get_array(item, "versions");
		size_t nv = vs ? json_object_array_length(vs) : 0;
		char **versions = xcalloc(nv + 1, sizeof(*versions));
		size_t k = 0;
		if (!name)
			name = "";
		for (size_t j = 0; j < nv; j++) {
			json_object *v = json_object_array_get_idx(vs, j);
			const char *ver = json_get_str(v, "version", NULL);
			const char *fresh = json_get_str(v, "freshness", NULL);
			if (!ver)
				continue;
			if (fresh && !strcmp(fresh, "Stale")) {
				/* An aggregated API server that did not answer in time. */
				note_failed(d, name, ver);
				continue;
			}
			versions[k++] = xstrdup(ver);
			char *gv = api_group_version(name, ver);
			doc_add(d, gv, resource_list_of(name, v));
			free(gv);
		}
		/* The preferred version is the first that is not stale. */
		if (k)
			add_group(d, name, versions, versions[0]);
		else
			strv_free(versions);
	}
}

/* A GroupVersionForDiscovery: {"groupVersion":"apps/v1","version":"v1"}. */
static json_object *gv_for_discovery(const char *group, const char *version)
{
	json_object *o = json_object_new_object();
	char *gv = api_group_version(group, version);

	add_json_str(o, "groupVersion", gv);
	add_json_str(o, "version", version);
	free(gv);
	return o;
}

/* The groups as an APIGroupList, for servergroups.json. */
static json_object *group_list(const struct discovery *d)
{
	json_object *list = json_object_new_object(), *groups = json_object_new_array();
	add_json_str(list, "kind", "APIGroupList");
	add_json_str(list, "apiVersion", "v1");
	for (size_t i = 0; i < d->nr_groups; i++) {
		const struct api_group *g = &d->groups[i];
		json_object *o = json_object_new_object(), *vs = json_object_new_array();
		add_json_str(o, "name", g->name);
		for (char **v = g->versions; *v; v++)
			json_object_array_add(vs, gv_for_discovery(g->name, *v));
		json_object_object_add(o, "versions", vs);
		json_object_object_add(o, "preferredVersion",
				       gv_for_discovery(g->name, g->preferred));
		json_object_array_add(groups, o);
	}
	json_object_object_add(list, "groups", groups);
	return list;
}

/* ---- the cache on disk ------------------------------------------------------ */

static void cache_write(struct discovery *d, const char *name, json_object *doc)
{
	struct errbuf err;
	if (d->cache_dir && discovery_cache_write(d->cache_dir, name, doc, &err) < 0)
		kclient_note(d->client, "discovery: not cached: %s", err.msg);
}

/* A group version's APIResourceList from the disk cache, or NULL. */
static json_object *cache_read_gv(struct discovery *d, const char *gv)
{
	if (!d->cache_dir || d->invalidated)
		return NULL;
	char *name = xasprintf("%s/serverresources.json", gv);
	json_object *doc = discovery_cache_read(d->cache_dir, name, NULL);
	free(name);
	return doc;
}

/* A group version's APIResourceList into the disk cache: client-go caches no empty one. */
static void cache_write_gv(struct discovery *d, const char *gv, json_object *list)
{
	json_object *arr = json_get_array(list, "resources");
	if (!arr || !json_object_array_length(arr))
		return;
	char *name = xasprintf("%s/serverresources.json", gv);
	cache_write(d, name, list);
	free(name);
}

/* ---- fetching ------------------------------------------------------------- */

/*
 * client-go's discovery client limits each request to 32 s (its
 * defaultTimeout) where the config sets no Timeout, and so says
 * "timeout=32s" in every query.
 */
#define DISCOVERY_TIMEOUT_MS 32000

/* A status that refuses the client (discovery_refused()), or 0. */
static long refusal(long status)
{
	return status == 401 || status == 403 ? status : 0;
}

/* GETs path and parses its JSON body; what names it in messages. */
static json_object *get_json(struct kclient *client, const char *path, const char *accept,
			     const char *what, long *status, char *content_type, size_t ct_size,
			     struct errbuf *err)
{
	struct http_response resp = { 0 };
	json_object *root = NULL;

	if (kclient_get_accept(client, path, accept, DISCOVERY_TIMEOUT_MS, NULL, &resp, err) < 0)
		goto cleanup;
	if (status)
		*status = resp.status;
	if (content_type)
		snprintf(content_type, ct_size, "%s", resp.content_type);
	if (resp.status < 200 || resp.status > 299) {
		http_status_message(&resp, what, err);
		goto cleanup;
	}
	root = json_parse_deep(strbuf_str(&resp.body));
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		root = NULL;
		errbuf_set(err, "%s: the answer from '%s' is not a JSON object", what, path);
	}
cleanup:
	http_response_release(&resp);
	return root;
}

static char *lowercase(const char *s)
{
	char *l = xstrdup(s);
	for (char *p = l; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return l;
}

/* One group version's APIResourceList into fresh api_resources. */
static void parse_resource_list(json_object *root, const char *group, const char *version,
				struct api_resource ***out, size_t *nr)
{
	json_object *arr = json_get_array(root, "resources");
	size_t alloc = 0;

	*out = NULL;
	*nr = 0;
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *item = json_object_array_get_idx(arr, i);
		const char *name = json_get_str(item, "name", NULL);
		const char *kind = json_get_str(item, "kind", NULL);
		/* Subresources (pods/log) are not things to list. */
		if (!name || !*name || strchr(name, '/') || !kind)
			continue;
		struct api_resource *r = xcalloc(1, sizeof(*r));
		r->group = xstrdup(group);
		r->version = xstrdup(version);
		r->name = xstrdup(name);
		const char *singular = json_get_str(item, "singularName", NULL);
		/* Old servers leave singularName empty; kubectl uses the kind then. */
		r->singular = singular && *singular ? xstrdup(singular) : lowercase(kind);
		r->kind = xstrdup(kind);
		r->namespaced = json_object_get_boolean(json_get(item, "namespaced"));
		r->verbs = json_strv(item, "verbs");
		r->short_names = json_strv(item, "shortNames");
		r->categories = json_strv(item, "categories");
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = r;
	}
}

struct gv_fetch {
	struct discovery *d;
	const char *group, *version;
	struct api_resource **res;
	size_t nr;
	int rc;
	long status;		/* the HTTP status of a failed request; 0: none */
	struct errbuf err;
};

/* One legacy request (on its own thread when there are several). */
static void *gv_fetch_thread(void *arg)
{
	struct gv_fetch *f = arg;
	char what[256];
	char *path = api_group_version_path(f->group, f->version);
	char *gv = api_group_version(f->group, f->version);
	snprintf(what, sizeof(what), "discover '%s'", gv);
	json_object *root = get_json(f->d->client, path, NULL, what, &f->status, NULL, 0,
				     &f->err);
	f->rc = root ? 0 : -1;
	if (root) {
		parse_resource_list(root, f->group, f->version, &f->res, &f->nr);
		/* kubectl wants the kind it decodes. */
		add_json_str(root, "kind", "APIResourceList");
		add_json_str(root, "apiVersion", "v1");
		cache_write_gv(f->d, gv, root);
	}
	json_object_put(root);
	free(gv);
	free(path);
	return NULL;
}

/*
 * The given group versions' resources, appended in the order given: from
 * aggregated discovery's answers or the disk cache when they have them,
 * else from the server, in parallel.  A group version that fails is noted
 * in d->failed and skipped, as kubectl skips an unavailable aggregated
 * API — unless every one failed, which is an error.
 */
static int fetch_versions(struct discovery *d, struct gv_fetch *f, size_t n, struct errbuf *err)
{
	size_t ok = 0;
	size_t *todo = xcalloc(n + 1, sizeof(*todo)), nr_todo = 0;

	for (size_t i = 0; i < n; i++) {
		char *gv = api_group_version(f[i].group, f[i].version);
		json_object *doc = doc_find(d, gv), *disk = NULL;
		f[i].d = d;
		if (!doc && (disk = cache_read_gv(d, gv))) {
			doc = disk;
			d->from_disk = true;
		}
		if (doc)
			parse_resource_list(doc, f[i].group, f[i].version, &f[i].res, &f[i].nr);
		else
			todo[nr_todo++] = i;
		json_object_put(disk);
		free(gv);
	}
	for (size_t start = 0; start < nr_todo; start += MAX_PARALLEL) {
		size_t end = start + MAX_PARALLEL < nr_todo ? start + MAX_PARALLEL : nr_todo;
		pthread_t tids[MAX_PARALLEL];
		bool started[MAX_PARALLEL] = { false };
		for (size_t k = start; k < end; k++) {
			struct gv_fetch *fk = &f[todo[k]];
			if (end - start > 1 &&
			    pthread_create(&tids[k - start], NULL, gv_fetch_thread, fk) == 0)
				started[k - start] = true;
			else
				gv_fetch_thread(fk);
		}
		for (size_t k = start; k < end; k++)
			if (started[k - start])
				pthread_join(tids[k - start], NULL);
	}
	free(todo);
	for (size_t i = 0; i < n; i++) {
		if (f[i].rc < 0) {
			note_failed(d, f[i].group, f[i].version);
			continue;
		}
		ok++;
		for (size_t k = 0; k < f[i].nr; k++) {
			ALLOC_GROW(d->res, d->nr_res + 1, d->alloc_res);
			d->res[d->nr_res++] = f[i].res[k];
		}
		free(f[i].res);
	}
	if (n && !ok) {
		/* Nothing answered: the first failure says why (401, TLS, ...). */
		errbuf_set(err, "%s", f[0].err.msg);
		d->refused = refusal(f[0].status);
		return -1;
	}
	return 0;
}

static void mark_loaded(struct api_group *g, const char *version)
{
	for (size_t i = 0; g->versions[i]; i++)
		if (!strcmp(g->versions[i], version))
			g->loaded[i] = true;
}

/*
 * The groups from the server: /api and /apis, aggregated when the server
 * can (*aggregated: then d->docs holds every version's resources).
 */
static int load_groups_live(struct discovery *d, bool *aggregated, struct errbuf *err)
{
	char ct_api[128] = "", ct_apis[128] = "";
	long status = 0;
	json_object *core = NULL, *apis = NULL;
	int ret = -1;

	core = get_json(d->client, "/api", ACCEPT_DISCOVERY, "discover the server's APIs",
			&status, ct_api, sizeof(ct_api), err);
	/* An aggregated API server may have no /api: client-go tolerates its 404. */
	if (!core && status != 404) {
		d->refused = refusal(status);
		goto cleanup;
	}
	status = 0;
	apis = get_json(d->client, "/apis", ACCEPT_DISCOVERY, "discover the server's API groups",
			&status, ct_apis, sizeof(ct_apis), err);
	if (!apis) {
		d->refused = refusal(status);
		goto cleanup;
	}

	const char *agg_api = core ? aggregated_version(ct_api) : NULL;
	const char *agg_apis = aggregated_version(ct_apis);
	if (agg_api || !core)
		add_aggregated(d, core);
	else
		add_group(d, "", json_strv(core, "versions"), NULL);
	if (agg_apis)
		add_aggregated(d, apis);
	else
		add_group_list(d, apis);
	/* client-go uses the resources only when both answers had them. */
	*aggregated = (agg_api || !core) && agg_apis;
	if (!*aggregated)
		docs_clear(d);
	else
		kclient_note(d->client, "discovery: aggregated (apidiscovery.k8s.io/%s), 2 requests",
			     agg_apis);
	ret = 0;
cleanup:
	json_object_put(core);
	json_object_put(apis);
	return ret;
}

int discovery_load(struct discovery *d, struct errbuf *err)
{
	struct gv_fetch *f = NULL;
	size_t nf = 0;
	int64_t age = 0;
	json_object *cached = NULL;
	bool aggregated = false;
	int ret = -1;

	if (d->loaded)
		return 0;
	d->refused = 0;
	if (d->cache_dir && !d->invalidated)
		cached = discovery_cache_read(d->cache_dir, "servergroups.json", &age);
	if (cached) {
		add_group_list(d, cached);
		d->from_disk = true;
		kclient_note(d->client, "discovery: from the cache in '%s' (%lld min old)",
			     d->cache_dir, (long long)(age / 60000));
	} else if (load_groups_live(d, &aggregated, err) < 0) {
		goto cleanup;
	}

	f = xcalloc(d->nr_groups + 1, sizeof(*f));
	for (size_t i = 0; i < d->nr_groups; i++) {
		if (!*d->groups[i].preferred)
			continue;
		f[nf].group = d->groups[i].name;
		f[nf].version = d->groups[i].preferred;
		nf++;
	}
	if (fetch_versions(d, f, nf, err) < 0)
		goto cleanup;
	for (size_t i = 0; i < d->nr_groups; i++)
		mark_loaded(&d->groups[i], d->groups[i].preferred);
	d->nr_preferred = d->nr_res;

	if (!cached && d->cache_dir) {
		json_object *groups = group_list(d);
		cache_write(d, "servergroups.json", groups);
		json_object_put(groups);
		/* Aggregated discovery answered every version: cache them all, as kubectl. */
		for (size_t i = 0; i < d->nr_docs; i++)
			cache_write_gv(d, d->docs[i].gv, d->docs[i].list);
	}
	d->loaded = true;
	ret = 0;
cleanup:
	free(f);
	json_object_put(cached);
	if (ret < 0)
		discovery_reset(d);
	return ret;
}

const char *discovery_failed(const struct discovery *d)
{
	return d->failed.len ? d->failed.buf : NULL;
}

long discovery_refused(const struct discovery *d)
{
	return d->refused;
}

/* ---- resolving names ---------------------------------------------------- */

bool api_resource_has_verb(const struct api_resource *res, const char *verb)
{
	return strv_has((const char *const *)res->verbs, verb);
}

char *api_resource_full_name(const struct api_resource *res)
{
	return *res->group ? xasprintf("%s.%s", res->name, res->group) : xstrdup(res->name);
}

char *api_group_version_path(const char *group, const char *version)
{
	return *group ? xasprintf("/apis/%s/%s", group, version) : xasprintf("/api/%s", version);
}

char *api_resource_path(const struct api_resource *res, const char *ns)
{
	struct strbuf sb = STRBUF_INIT;
	char *gv = api_group_version_path(res->group, res->version);

	strbuf_adds(&sb, gv);
	free(gv);
	if (res->namespaced && ns && *ns) {
		strbuf_adds(&sb, "/namespaces/");
		url_path_escape(&sb, ns);
	}
	strbuf_addf(&sb, "/%s", res->name);
	return strbuf_detach(&sb, NULL);
}

static struct api_group *find_group(struct discovery *d, const char *name)
{
	for (size_t i = 0; i < d->nr_groups; i++)
		if (!strcmp(d->groups[i].name, name))
			return &d->groups[i];
	return NULL;
}

/* Loads a group's non-preferred version the first time someone names it. */
static int ensure_version(struct discovery *d, struct api_group *g, const char *version,
			  bool *exists, struct errbuf *err)
{
	*exists = false;
	for (size_t i = 0; g->versions[i]; i++) {
		if (strcmp(g->versions[i], version))
			continue;
		*exists = true;
		if (g->loaded[i])
			return 0;
		struct gv_fetch f = { .group = g->name, .version = g->versions[i] };
		if (fetch_versions(d, &f, 1, err) < 0)
			return -1;
		g->loaded[i] = true;
		return 0;
	}
	return 0;
}

enum match_kind { MATCH_NAME, MATCH_SHORT, MATCH_KIND };

static bool matches(const struct api_resource *r, const char *name, enum match_kind how)
{
	switch (how) {
	case MATCH_NAME:
		return !strcmp(r->name, name) || !strcmp(r->singular, name);
	case MATCH_SHORT:
		for (char **s = r->short_names; s && *s; s++)
			if (!strcmp(*s, name))
				return true;
		return false;
	case MATCH_KIND:
		return !strcasecmp(r->kind, name);
	}
	return false;
}

/*
 * kubectl's order: a plural or singular name wins over a short name, which
 * wins over a kind; within each, discovery order (core first, then the
 * server's group priority).  group/version NULL: any.
 */
static const struct api_resource *lookup(struct discovery *d, const char *name,
					 const char *group, const char *version)
{
	static const enum match_kind order[] = { MATCH_NAME, MATCH_SHORT, MATCH_KIND };
	for (size_t o = 0; o < ARRAY_SIZE(order); o++) {
		for (size_t i = 0; i < d->nr_res; i++) {
			const struct api_resource *r = d->res[i];
			if (group && strcmp(r->group, group))
				continue;
			if (version ? strcmp(r->version, version) : i >= d->nr_preferred)
				continue;
			if (matches(r, name, order[o]))
				return r;
		}
	}
	return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 64;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* The closest known name, if close enough to be a typo of it. */
static const struct api_resource *closest(struct discovery *d, const char *name)
{
	const struct api_resource *best = NULL;
	size_t best_dist = (size_t)-1;
	size_t limit = strlen(name) <= 3 ? 1 : 2;

	for (size_t i = 0; i < d->nr_preferred; i++) {
		const struct api_resource *r = d->res[i];
		size_t dist = edit_distance(name, r->name);
		size_t ds = edit_distance(name, r->singular);
		if (ds < dist)
			dist = ds;
		for (char **s = r->short_names; s && *s; s++) {
			size_t dn = edit_distance(name, *s);
			if (dn < dist)
				dist = dn;
		}
		if (dist < best_dist) {
			best_dist = dist;
			best = r;
		}
	}
	return best_dist <= limit ? best : NULL;
}

static bool looks_like_version(const char *s)
{
	/* v1, v2beta1, v1alpha3 */
	if (s[0] != 'v' || !isdigit((unsigned char)s[1]))
		return false;
	const char *p = s + 1;
	while (isdigit((unsigned char)*p))
		p++;
	if (!*p)
		return true;
	if (!strncmp(p, "alpha", 5))
		p += 5;
	else if (!strncmp(p, "beta", 4))
		p += 4;
	else
		return false;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return !*p;
}

/* The resource `name` (lowercase) names among those loaded, or NULL.  -1 on a fetch error. */
static int find_resource(struct discovery *d, const char *lname,
			 const struct api_resource **out, struct errbuf *err)
{
	char *name = xstrdup(lname);
	char *dot = strchr(name, '.');
	const struct api_resource *r = NULL;
	int ret = -1;

	if (!dot) {
		r = lookup(d, name, NULL, NULL);
	} else {
		*dot = '\0';
		char *rest = dot + 1, *dot2 = strchr(rest, '.');
		/* "resource.version.group" first, when the middle is a version of that group. */
		if (dot2) {
			*dot2 = '\0';
			struct api_group *g = find_group(d, dot2 + 1);
			bool exists = false;
			if (g && looks_like_version(rest) &&
			    ensure_version(d, g, rest, &exists, err) < 0)
				goto cleanup;
			if (exists)
				r = lookup(d, name, dot2 + 1, rest);
			*dot2 = '.';
		}
		if (!r)
			r = lookup(d, name, rest, NULL);	/* "resource.group" */
	}
	*out = r;
	ret = 0;
cleanup:
	free(name);
	return ret;
}

int discovery_resolve(struct discovery *d, const char *typed,
		      const struct api_resource **out, struct errbuf *err)
{
	const struct api_resource *r = NULL;
	char *name = lowercase(typed);
	char *dot = strchr(name, '.');
	int ret = -1;

	*out = NULL;
	if (discovery_load(d, err) < 0)
		goto cleanup;
	if (!*name) {
		errbuf_set(err, "empty resource type");
		goto cleanup;
	}
	if (find_resource(d, name, &r, err) < 0)
		goto cleanup;
	if (!r && d->from_disk) {
		/* A CRD made since the cache was written: ask the server (kubectl: Reset()). */
		kclient_note(d->client, "discovery: '%s' is not in the cache, asking the server",
			     typed);
		discovery_invalidate(d);
		if (discovery_load(d, err) < 0 || find_resource(d, name, &r, err) < 0)
			goto cleanup;
	}
	if (dot)
		*dot = '\0';	/* the resource part, for a did-you-mean */

	if (!r) {
		const struct api_resource *near = closest(d, name);
		char *suggestion = near ? api_resource_full_name(near) : NULL;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "the server doesn't have a resource type '%s'", typed);
		if (suggestion)
			strbuf_addf(&sb, "; did you mean '%s'?", suggestion);
		if (d->failed.len)
			strbuf_addf(&sb, " (discovery failed for %s)", d->failed.buf);
		errbuf_set(err, "%s", sb.buf);
		strbuf_release(&sb);
		free(suggestion);
		goto cleanup;
	}
	*out = r;
	ret = 0;
cleanup:
	free(name);
	return ret;
}

int discovery_informable(const struct api_resource *r, struct errbuf *err)
{
	bool can_list = api_resource_has_verb(r, "list");
	bool can_watch = api_resource_has_verb(r, "watch");

	if (can_list && can_watch)
		return 0;
	char *full = api_resource_full_name(r);
	struct strbuf verbs = STRBUF_INIT;
	for (char **v = r->verbs; v && *v; v++)
		strbuf_addf(&verbs, "%s%s", verbs.len ? ", " : "", *v);
	errbuf_set(err, "resource '%s' cannot be %s, so no informer can follow it "
		   "(its verbs: %s)", full,
		   !can_list && !can_watch ? "listed or watched" :
		   !can_list ? "listed" : "watched",
		   verbs.len ? verbs.buf : "none");
	strbuf_release(&verbs);
	free(full);
	return -1;
}

static int compare_resources(const void *a, const void *b)
{
	const struct api_resource *x = *(const struct api_resource *const *)a;
	const struct api_resource *y = *(const struct api_resource *const *)b;
	int c = strcmp(x->group, y->group);
	return c ? c : strcmp(x->name, y->name);
}

void discovery_all(struct discovery *d, const struct api_resource ***out, size_t *nr)
{
	free(d->sorted);
	d->sorted = xcalloc(d->nr_preferred + 1, sizeof(*d->sorted));
	for (size_t i = 0; i < d->nr_preferred; i++)
		d->sorted[i] = d->res[i];
	/* kubectl api-resources: by group, then by name. */
	qsort(d->sorted, d->nr_preferred, sizeof(*d->sorted), compare_resources);
	*out = d->sorted;
	*nr = d->nr_preferred;
}

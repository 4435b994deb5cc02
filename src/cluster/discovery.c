/*
 * discovery.c — the server's resources from /api and /apis, and kubectl's
 * rules for what a typed name means; see discovery.h.
 *
 * DESIGN (threads): discovery_load() fetches the group versions in
 * parallel, one short-lived thread per group version (at most
 * MAX_PARALLEL at once), because a cluster with many CRD groups would
 * otherwise pay one round trip each, in series, on every start.  Each
 * thread fills only its own struct gv_fetch; the caller joins them all
 * before reading any.  Everything else runs on the caller's thread.
 */
#include "cluster/discovery.h"

#include <ctype.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/http.h"
#include "lib/strbuf.h"

#define MAX_PARALLEL 16

struct api_group {
	char *name;		/* "" for the core group */
	char **versions;	/* as the server orders them, NULL-terminated */
	char *preferred;
	bool *loaded;		/* per version */
};

struct discovery {
	struct kclient *client;
	bool loaded;
	struct api_group *groups;	/* core first, then /apis order */
	size_t nr_groups, alloc_groups;
	/* Every resource fetched, preferred versions first, in group order. */
	struct api_resource **res;
	size_t nr_res, alloc_res;
	size_t nr_preferred;		/* res[0..nr_preferred) */
	/* Group versions that failed to answer, "metrics.k8s.io/v1beta1, ...". */
	struct strbuf failed;
	const struct api_resource **sorted;
};

struct discovery *discovery_new(struct kclient *client)
{
	struct discovery *d = xcalloc(1, sizeof(*d));
	d->client = client;
	return d;
}

static void api_resource_free(struct api_resource *r)
{
	free(r->group);
	free(r->version);
	free(r->name);
	free(r->singular);
	free(r->kind);
	strv_free(r->verbs);
	strv_free(r->short_names);
	strv_free(r->categories);
	free(r);
}

void discovery_free(struct discovery *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr_groups; i++) {
		free(d->groups[i].name);
		strv_free(d->groups[i].versions);
		free(d->groups[i].preferred);
		free(d->groups[i].loaded);
	}
	free(d->groups);
	for (size_t i = 0; i < d->nr_res; i++)
		api_resource_free(d->res[i]);
	free(d->res);
	free(d->sorted);
	strbuf_release(&d->failed);
	free(d);
}

/* ---- fetching ----------------------------------------------------------- */

static const char *json_str(json_object *obj, const char *key)
{
	json_object *v;
	if (!obj || !json_object_object_get_ex(obj, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static char **json_strv(json_object *obj, const char *key)
{
	json_object *arr;
	size_t n = 0;
	if (obj && json_object_object_get_ex(obj, key, &arr) &&
	    json_object_is_type(arr, json_type_array))
		n = json_object_array_length(arr);
	char **v = xcalloc(n + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		if (json_object_is_type(s, json_type_string))
			v[k++] = xstrdup(json_object_get_string(s));
	}
	return v;
}

/* GETs path and parses its JSON body; what names it in messages. */
static json_object *get_json(struct kclient *client, const char *path, const char *what,
			     struct errbuf *err)
{
	struct http_response resp = { 0 };
	json_object *root = NULL;

	if (kclient_get(client, path, &resp, err) < 0)
		goto cleanup;
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
	json_object *arr;
	size_t alloc = 0;

	*out = NULL;
	*nr = 0;
	if (!json_object_object_get_ex(root, "resources", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *item = json_object_array_get_idx(arr, i), *ns;
		const char *name = json_str(item, "name"), *kind = json_str(item, "kind");
		/* Subresources (pods/log) are not things to list. */
		if (!name || !*name || strchr(name, '/') || !kind)
			continue;
		struct api_resource *r = xcalloc(1, sizeof(*r));
		r->group = xstrdup(group);
		r->version = xstrdup(version);
		r->name = xstrdup(name);
		const char *singular = json_str(item, "singularName");
		/* Old servers leave singularName empty; kubectl uses the kind then. */
		r->singular = singular && *singular ? xstrdup(singular) : lowercase(kind);
		r->kind = xstrdup(kind);
		r->namespaced = json_object_object_get_ex(item, "namespaced", &ns) &&
				json_object_get_boolean(ns);
		r->verbs = json_strv(item, "verbs");
		r->short_names = json_strv(item, "shortNames");
		r->categories = json_strv(item, "categories");
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = r;
	}
}

struct gv_fetch {
	struct kclient *client;
	const char *group, *version;
	char *path;
	struct api_resource **res;
	size_t nr;
	int rc;
	struct errbuf err;
};

static void *gv_fetch_thread(void *arg)
{
	struct gv_fetch *f = arg;
	char what[256];
	snprintf(what, sizeof(what), "discover '%s%s%s'", f->group, *f->group ? "/" : "",
		 f->version);
	json_object *root = get_json(f->client, f->path, what, &f->err);
	f->rc = root ? 0 : -1;
	if (root)
		parse_resource_list(root, f->group, f->version, &f->res, &f->nr);
	json_object_put(root);
	return NULL;
}

static char *gv_path(const char *group, const char *version)
{
	return *group ? xasprintf("/apis/%s/%s", group, version) : xasprintf("/api/%s", version);
}

/*
 * Fetches the given group versions, in parallel, appending their
 * resources in the order given.  A group version that fails is noted in
 * d->failed and skipped, as kubectl skips an unavailable aggregated API —
 * unless every one failed, which is an error.
 */
static int fetch_versions(struct discovery *d, struct gv_fetch *f, size_t n, struct errbuf *err)
{
	size_t ok = 0;

	for (size_t start = 0; start < n; start += MAX_PARALLEL) {
		size_t end = start + MAX_PARALLEL < n ? start + MAX_PARALLEL : n;
		pthread_t tids[MAX_PARALLEL];
		bool started[MAX_PARALLEL] = { false };
		for (size_t i = start; i < end; i++) {
			f[i].client = d->client;
			f[i].path = gv_path(f[i].group, f[i].version);
			if (end - start > 1 &&
			    pthread_create(&tids[i - start], NULL, gv_fetch_thread, &f[i]) == 0)
				started[i - start] = true;
			else
				gv_fetch_thread(&f[i]);
		}
		for (size_t i = start; i < end; i++)
			if (started[i - start])
				pthread_join(tids[i - start], NULL);
	}
	for (size_t i = 0; i < n; i++) {
		free(f[i].path);
		if (f[i].rc < 0) {
			if (d->failed.len)
				strbuf_adds(&d->failed, ", ");
			strbuf_addf(&d->failed, "%s%s%s", f[i].group, *f[i].group ? "/" : "",
				    f[i].version);
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
		return -1;
	}
	return 0;
}

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

static void mark_loaded(struct api_group *g, const char *version)
{
	for (size_t i = 0; g->versions[i]; i++)
		if (!strcmp(g->versions[i], version))
			g->loaded[i] = true;
}

int discovery_load(struct discovery *d, struct errbuf *err)
{
	json_object *core = NULL, *apis = NULL, *arr;
	struct gv_fetch *f = NULL;
	size_t nf = 0;
	int ret = -1;

	if (d->loaded)
		return 0;
	core = get_json(d->client, "/api", "discover the server's APIs", err);
	if (!core)
		goto cleanup;
	apis = get_json(d->client, "/apis", "discover the server's API groups", err);
	if (!apis)
		goto cleanup;

	add_group(d, "", json_strv(core, "versions"), NULL);
	if (json_object_object_get_ex(apis, "groups", &arr) &&
	    json_object_is_type(arr, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			json_object *g = json_object_array_get_idx(arr, i), *vs, *pref = NULL;
			const char *name = json_str(g, "name");
			if (!name || !*name)
				continue;
			char **versions = NULL;
			size_t nv = 0;
			if (json_object_object_get_ex(g, "versions", &vs) &&
			    json_object_is_type(vs, json_type_array))
				nv = json_object_array_length(vs);
			versions = xcalloc(nv + 1, sizeof(*versions));
			size_t k = 0;
			for (size_t j = 0; j < nv; j++) {
				const char *v = json_str(json_object_array_get_idx(vs, j), "version");
				if (v)
					versions[k++] = xstrdup(v);
			}
			json_object_object_get_ex(g, "preferredVersion", &pref);
			add_group(d, name, versions, json_str(pref, "version"));
		}
	}

	f = xcalloc(d->nr_groups, sizeof(*f));
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
	d->loaded = true;
	ret = 0;
cleanup:
	free(f);
	json_object_put(core);
	json_object_put(apis);
	return ret;
}

const char *discovery_failed(const struct discovery *d)
{
	return d->failed.len ? d->failed.buf : NULL;
}

/* ---- resolving names ---------------------------------------------------- */

bool api_resource_has_verb(const struct api_resource *res, const char *verb)
{
	for (char **v = res->verbs; v && *v; v++)
		if (!strcmp(*v, verb))
			return true;
	return false;
}

char *api_resource_full_name(const struct api_resource *res)
{
	return *res->group ? xasprintf("%s.%s", res->name, res->group) : xstrdup(res->name);
}

char *api_resource_path(const struct api_resource *res, const char *ns)
{
	struct strbuf sb = STRBUF_INIT;
	if (*res->group)
		strbuf_addf(&sb, "/apis/%s/%s", res->group, res->version);
	else
		strbuf_addf(&sb, "/api/%s", res->version);
	if (res->namespaced && ns && *ns) {
		strbuf_adds(&sb, "/namespaces/");
		url_query_escape(&sb, ns);
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
	bool can_list = api_resource_has_verb(r, "list");
	bool can_watch = api_resource_has_verb(r, "watch");
	if (!can_list || !can_watch) {
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
		goto cleanup;
	}
	*out = r;
	ret = 0;
cleanup:
	free(name);
	return ret;
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

/* verify_check.c — one verification of a live informer; see verify_check.h. */
#include "informer/verify_check.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "informer/informer.h"
#include "informer/kobj.h"
#include "lib/json_stream.h"
#include "lib/strbuf.h"

void verify_check_init(struct verify_check *vc, struct session *s, size_t index)
{
	memset(vc, 0, sizeof(*vc));
	vc->session = s;
	vc->index = index;
}

static void forget_deletions(struct verify_check *vc)
{
	size_t iter = 0;
	struct hashmap_entry *e;

	while ((e = hashmap_next(&vc->gone, &iter)))
		free(e->value);
	hashmap_release(&vc->gone);
}

static void release_server(struct verify_check *vc)
{
	for (size_t i = 0; i < vc->nserver; i++)
		free((char *)vc->server[i].key);	/* "key\0rv", one allocation */
	free(vc->server);
	vc->server = NULL;
	vc->nserver = 0;
	free(vc->list_rv);
	vc->list_rv = NULL;
}

void verify_check_release(struct verify_check *vc)
{
	forget_deletions(vc);
	release_server(vc);
	kobj_list_release(&vc->cached);
}

/* "key\0rv" in one allocation; the rv at return + strlen(key) + 1. */
static char *key_rv(const char *key, const char *rv)
{
	size_t lk = strlen(key), lr = strlen(rv);
	char *s = xmalloc(lk + lr + 2);

	memcpy(s, key, lk + 1);
	memcpy(s + lk + 1, rv, lr + 1);
	return s;
}

void verify_check_note(struct verify_check *vc, const struct notification *n)
{
	struct hashmap_entry old;
	const struct kobj *obj = n->delta.obj;

	if (n->kind == NOTIFY_ACTIVITY || !obj)
		return;
	if (hashmap_remove(&vc->gone, obj->key, &old))
		free(old.value);
	if (n->kind != NOTIFY_DELETE)
		return;
	/*
	 * A watch's DELETED carries the deletion's RV.  A relist's tombstone
	 * carries the last state known; the key was gone at the relist's RV,
	 * which the reflector's RV has reached by the time it is popped.
	 */
	char *gone;
	if (n->delta.tombstone) {
		struct informer_stats st;
		informer_get_stats(vc->session->informers[vc->index], &st);
		gone = key_rv(obj->key, st.rv);
	} else {
		gone = key_rv(obj->key, obj->rv);
	}
	hashmap_insert(&vc->gone, gone, gone);
}

/* ---- the server's list --------------------------------------------------- */

struct gather {
	struct verify_check *vc;
	size_t alloc;
	struct kobj_type type;
	struct errbuf err;
	bool bad;
};

static int gather_item(void *ctx, const char *text, size_t len)
{
	struct gather *g = ctx;
	struct verify_check *vc = g->vc;
	struct kobj *obj = kobj_from_list_item(text, len, &g->type, 0, &g->err);

	if (!obj) {
		g->bad = true;
		return -1;
	}
	char *s = key_rv(obj->key, obj->rv);
	ALLOC_GROW(vc->server, vc->nserver + 1, g->alloc);
	vc->server[vc->nserver++] = (struct verify_entry){
		.key = s, .rv = s + strlen(s) + 1,
	};
	kobj_unref(obj);
	return 0;
}

static int split_list(void *ctx, const char *data, size_t len)
{
	return list_splitter_feed(ctx, data, len);
}

/* One page: its items gathered, its continue token and RV (meta) read. */
static int list_page(struct verify_check *vc, struct gather *g, const char *path,
		     char **cont, char **rv, struct errbuf *err)
{
	struct cluster *c = &vc->session->cluster;
	const struct api_resource *res = vc->session->resources[vc->index];
	struct list_splitter ls;
	struct http_response resp = { 0 };
	int rc;

	list_splitter_init(&ls, gather_item, g);
	/* A server that sends nothing for a minute is not coming back. */
	rc = kclient_stream(c->client, path, &(struct stream_opts){ .idle_timeout_ms = 60000 },
			    split_list, &ls, &resp, err);
	if (rc == 0 && (resp.status < 200 || resp.status > 299)) {
		char what[128];
		snprintf(what, sizeof(what), "list %s", res->name);
		http_status_message(&resp, what, err);
		rc = -1;
	} else if (g->bad) {
		errbuf_set(err, "%s", g->err.msg);
		rc = -1;
	} else if (rc == 0 && !list_splitter_done(&ls)) {
		errbuf_set(err, "the server's list of %s ended early", res->name);
		rc = -1;
	}
	if (rc == 0) {
		json_object *rest = json_parse_deep(list_splitter_rest(&ls)), *meta, *v;
		if (rest && json_object_object_get_ex(rest, "metadata", &meta)) {
			if (json_object_object_get_ex(meta, "continue", &v) &&
			    *json_object_get_string(v))
				*cont = xstrdup(json_object_get_string(v));
			if (!*rv && json_object_object_get_ex(meta, "resourceVersion", &v))
				*rv = xstrdup(json_object_get_string(v));
		}
		json_object_put(rest);
	}
	list_splitter_release(&ls);
	http_response_release(&resp);
	return rc;
}

int verify_check_begin(struct verify_check *vc, struct errbuf *err)
{
	struct session *s = vc->session;
	const struct api_resource *res = s->resources[vc->index];
	const char *labels, *fields;
	char *base = api_resource_path(res, res->namespaced ? s->cluster.scope_ns : NULL);
	char *api_version = *res->group ? xasprintf("%s/%s", res->group, res->version)
					: xstrdup(res->version);
	struct gather g = {
		.vc = vc,
		.type = { .api_version = api_version, .kind = res->kind },
	};
	char *cont = NULL, *rv = NULL;
	int ret = -1;

	forget_deletions(vc);
	release_server(vc);
	session_selectors(s, &labels, &fields);
	/* No resourceVersion: a quorum read, from etcd, not the watch cache. */
	do {
		struct strbuf q = STRBUF_INIT;
		url_query_add(&q, "limit", "500");
		if (cont)
			url_query_add(&q, "continue", cont);
		if (labels)
			url_query_add(&q, "labelSelector", labels);
		if (fields)
			url_query_add(&q, "fieldSelector", fields);
		char *path = xasprintf("%s%s", base, strbuf_str(&q));
		strbuf_release(&q);
		free(cont);
		cont = NULL;
		int rc = list_page(vc, &g, path, &cont, &rv, err);
		free(path);
		if (rc < 0)
			goto cleanup;
	} while (cont);
	verify_sort(vc->server, vc->nserver);
	vc->list_rv = rv ? rv : xstrdup("");
	rv = NULL;
	ret = 0;
cleanup:
	if (ret < 0)
		release_server(vc);
	free(rv);
	free(cont);
	free(api_version);
	free(base);
	return ret;
}

int verify_check_caught_up(struct verify_check *vc)
{
	struct informer_stats st;
	int cmp;

	informer_get_stats(vc->session->informers[vc->index], &st);
	if (verify_rv_compare(st.rv, vc->list_rv, &cmp) < 0)
		return -1;
	/* The FIFO's lock is held while a pop is handled: empty means done. */
	return cmp >= 0 && st.fifo_depth == 0;
}

void verify_check_snapshot(struct verify_check *vc)
{
	kobj_list_release(&vc->cached);
	informer_list_cached(vc->session->informers[vc->index], &vc->cached);
}

void verify_check_finish(struct verify_check *vc, bool caught_up,
			 struct verify_report *out)
{
	struct kobj_list *c = &vc->cached;
	size_t nr = 0, iter = 0;
	struct verify_entry *cache = xcalloc(c->nr + hashmap_len(&vc->gone) + 1, sizeof(*cache));
	struct hashmap cached = HASHMAP_INIT;
	struct hashmap_entry *e;
	struct informer_stats st;

	for (size_t i = 0; i < c->nr; i++) {
		cache[nr++] = (struct verify_entry){ .key = c->v[i]->key, .rv = c->v[i]->rv };
		hashmap_insert(&cached, c->v[i]->key, c->v[i]);
	}
	/* A deletion counts only where the snapshot lacks the key. */
	while ((e = hashmap_next(&vc->gone, &iter)))
		if (!hashmap_get(&cached, e->key))
			cache[nr++] = (struct verify_entry){
				.key = e->key, .rv = e->key + strlen(e->key) + 1, .gone = true,
			};
	verify_sort(cache, nr);
	verify_compare(cache, nr, vc->server, vc->nserver, vc->list_rv, out);
	informer_get_stats(vc->session->informers[vc->index], &st);
	out->informer_rv = xstrdup(st.rv);
	out->caught_up = caught_up;
	hashmap_release(&cached);
	free(cache);
	kobj_list_release(&vc->cached);
}

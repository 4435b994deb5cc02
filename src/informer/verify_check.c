/* verify_check.c — one verification of a live informer; see verify_check.h. */
#include "informer/verify_check.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "cluster/pager.h"
#include "informer/informer.h"
#include "informer/kobj.h"
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
	struct errbuf err;
};

/* Only the key and rv are compared: no object is made of an item. */
static int gather_item(void *ctx, const char *text, size_t len)
{
	struct gather *g = ctx;
	struct verify_check *vc = g->vc;
	char *s = verify_item_key_rv(text, len, &g->err);

	if (!s)
		return -1;
	ALLOC_GROW(vc->server, vc->nserver + 1, g->alloc);
	vc->server[vc->nserver++] = (struct verify_entry){
		.key = s, .rv = s + strlen(s) + 1,
	};
	return 0;
}

/* A continue token expired: what came is void, one full LIST follows. */
static void gather_restart(void *ctx)
{
	struct gather *g = ctx;

	release_server(g->vc);
	g->alloc = 0;
}

int verify_check_begin(struct verify_check *vc, struct errbuf *err)
{
	struct session *s = vc->session;
	const struct api_resource *res = s->resources[vc->index];
	char *path = api_resource_path(res, res->namespaced ? s->cluster.scope_ns : NULL);
	struct gather g = { .vc = vc };
	/* No resourceVersion: a quorum read, from etcd, not the watch cache. */
	struct pager_opts po = {
		.path = path,
		/*
		 * Metadata only: the key and rv are all that is compared, and a
		 * pod's metadata is a fraction of it.  kinf's own request, not
		 * the reflector's; a server that cannot sends whole objects,
		 * which read the same.
		 */
		.as = PAGER_METADATA,
		.limit = 500,
		/*
		 * As client-go's tools/pager (New() sets FullListIfExpired, which
		 * ListPager.List follows): a LIST of 100,000 under churn outlives
		 * its continue token where the server keeps little history
		 * (etcd's compaction, five minutes; kube-sim's 10,000 events,
		 * ten seconds at 1,000 a second).  Then one LIST, no limit.
		 */
		.full_list_fallback = true,
		/* A server that sends nothing for a minute is not coming back. */
		.stream = { .idle_timeout_ms = 60000 },
	};
	struct pager_hooks hooks = { .ctx = &g, .item = gather_item, .restart = gather_restart };
	struct pager_result pr;
	char what[128];
	int ret = -1;

	forget_deletions(vc);
	release_server(vc);
	session_selectors(s, &po.label_selector, &po.field_selector);
	snprintf(what, sizeof(what), "list %s", res->name);
	if (pager_list(s->cluster.client, &po, what, &hooks, &pr, err) < 0) {
		if (pr.end == PAGER_REFUSED)
			errbuf_set(err, "%s", g.err.msg);
		else if (pr.end == PAGER_ENDED_EARLY)
			pager_explain(&pr, res->name, err);
		release_server(vc);
		goto cleanup;
	}
	verify_sort(vc->server, vc->nserver);
	vc->list_rv = xstrdup(pr.rv ? pr.rv : "");
	ret = 0;
cleanup:
	pager_result_release(&pr);
	free(path);
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

/* How many of d[] the informer at rv has passed: their server rv is older. */
static size_t passed(const char *rv, const struct verify_diff *d, size_t n)
{
	size_t lost = 0;
	int cmp;

	for (size_t i = 0; i < n; i++)
		if (d[i].server_rv && verify_rv_compare(rv, d[i].server_rv, &cmp) == 0 && cmp >= 0)
			lost++;
	return lost;
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
	int cmp;

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
	/* equal as it is: what the FIFO still holds came after the list */
	if (!caught_up && verify_equal(out))
		out->caught_up = verify_rv_compare(st.rv, vc->list_rv, &cmp) == 0 && cmp >= 0;
	out->nlost = passed(st.rv, out->missing, out->nmissing) +
		     passed(st.rv, out->stale, out->nstale) + (caught_up ? out->nextra : 0);
	hashmap_release(&cached);
	free(cache);
	kobj_list_release(&vc->cached);
}

/* session.c — one informer per named resource; see session.h. */
#include "informer/session.h"

#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "informer/kobj.h"
#include "lib/selector.h"
#include "lib/strbuf.h"

/* The informers' options outlive session_open's caller. */
struct session_private {
	char *field_selector;
	char *label_selector;
	struct informer_opts model;	/* what session_add() starts from */
	/* session_set_checkpoints(): given to every informer; NULL: none */
	const struct checkpoint_sink *sink;
	void *sink_ctx;
};

/* One informer of the session's resource i, with the session's options. */
static struct informer *make_informer(struct session *s, size_t i)
{
	struct session_private *priv = s->priv;
	struct informer_opts io = priv->model;

	io.resource = s->resources[i];
	io.ns = s->resources[i]->namespaced ? s->cluster.scope_ns : NULL;
	io.limiter = s->cluster.limiter;	/* one dynamic client for all */
	struct informer *inf = informer_new(s->cluster.client, &io);
	if (priv->sink)
		informer_set_checkpoints(inf, priv->sink, priv->sink_ctx);
	return inf;
}

void session_set_checkpoints(struct session *s, const struct checkpoint_sink *sink, void *ctx)
{
	struct session_private *priv = s->priv;

	priv->sink = sink;
	priv->sink_ctx = ctx;
	for (size_t i = 0; i < s->nr; i++)
		informer_set_checkpoints(s->informers[i], sink, ctx);
}

/* The informers of s->resources, with opts; s->cluster is open. */
static void session_init(struct session *s, const struct session_opts *opts)
{
	/* One NAME is a field selector on metadata.name, as kubectl does. */
	char *fields = NULL;
	if (opts->name) {
		fields = field_selector_term("metadata.name", opts->name);
		if (opts->field_selector && *opts->field_selector) {
			char *both = xasprintf("%s,%s", fields, opts->field_selector);
			free(fields);
			fields = both;
		}
	} else if (opts->field_selector) {
		fields = xstrdup(opts->field_selector);
	}

	struct session_private *priv = xcalloc(1, sizeof(*priv));
	priv->field_selector = fields;
	priv->label_selector = xstrdup_or_null(opts->label_selector);
	const struct client_go_profile *prof = opts->profile ? opts->profile : profile_default();
	priv->model = (struct informer_opts){
		.label_selector = priv->label_selector,
		.field_selector = fields,
		.fifo = opts->fifo_set ? opts->fifo : prof->fifo,
		.batch = prof->batch,
		.backoff = prof->backoff,
		.hold_rv_of_adds = prof->hold_rv_of_adds,
		.list_retries_h2_lost = prof->list_retries_h2_lost,
		.watch_reads_status = prof->watch_reads_status,
		.watch_list_any_fallback = prof->watch_list_any_fallback,
		.kobj_flags = opts->keep_managed_fields ? KOBJ_KEEP_MANAGED_FIELDS : 0,
		.resync_ms = opts->resync_ms,
		.page_size = opts->page_size,
		.streaming_list = opts->streaming_set ? opts->streaming_list
						      : prof->streaming_list,
		.stall_ms = opts->stall_ms,
		.renew_ms = opts->renew_ms,
	};
	s->priv = priv;
	session_prepare_client(opts, s->cluster.client);
	s->informers = xcalloc(s->nr, sizeof(*s->informers));
	for (size_t i = 0; i < s->nr; i++)
		s->informers[i] = make_informer(s, i);
}

void session_prepare_client(const struct session_opts *opts, struct kclient *client)
{
	const struct client_go_profile *prof = opts->profile ? opts->profile : profile_default();

	kclient_set_ca_reload(client, prof->ca_reload);
}

/* A malformed selector is told before any request. */
static int check_selector(const struct session_opts *opts, struct errbuf *err)
{
	if (opts->label_selector) {
		struct selector *sel = selector_parse(opts->label_selector, err);
		if (!sel)
			return -1;
		selector_free(sel);
	}
	return 0;
}

int session_open(struct session *s, const struct session_opts *opts, long *refused,
		 struct errbuf *err)
{
	struct cluster c;
	const struct api_resource **res;
	size_t nr;
	int rc;

	memset(s, 0, sizeof(*s));
	if (refused)
		*refused = 0;
	if (check_selector(opts, err) < 0 || cluster_open(&c, err) < 0)
		return -1;
	session_prepare_client(opts, c.client);
	if (cluster_resolve(&c, opts->resources, &res, &nr, err) < 0) {
		if (refused)
			*refused = discovery_refused(c.disco);
		cluster_close(&c);
		return -1;
	}
	rc = session_open_on(s, opts, &c, res, nr, err);
	free(res);
	if (rc < 0)
		cluster_close(&c);
	return rc;
}

int session_open_on(struct session *s, const struct session_opts *opts,
		    const struct cluster *c, const struct api_resource *const *res,
		    size_t nr, struct errbuf *err)
{
	memset(s, 0, sizeof(*s));
	if (check_selector(opts, err) < 0)
		return -1;
	if (cluster_scope_check(c, res, nr, err) < 0)
		return -1;
	for (size_t i = 0; i < nr; i++)
		if (discovery_informable(res[i], err) < 0)
			return -1;
	s->cluster = *c;
	s->nr = nr;
	s->resources = xcalloc(nr ? nr : 1, sizeof(*s->resources));
	memcpy(s->resources, res, nr * sizeof(*res));
	session_init(s, opts);
	return 0;
}

int session_add(struct session *s, const char *typed, bool *added, struct errbuf *err)
{
	const struct api_resource *res;

	*added = false;
	if (discovery_resolve(s->cluster.disco, typed, &res, err) < 0 ||
	    discovery_informable(res, err) < 0 ||
	    cluster_scope_check(&s->cluster, &res, 1, err) < 0)
		return -1;
	for (size_t i = 0; i < s->nr; i++)
		if (s->resources[i] == res)
			return (int)i;
	/* The TUI's `:` adds one now and then: grown one at a time. */
	s->informers = xrealloc(s->informers, (s->nr + 1) * sizeof(*s->informers));
	s->resources = xrealloc(s->resources, (s->nr + 1) * sizeof(*s->resources));
	s->resources[s->nr] = res;
	s->informers[s->nr] = make_informer(s, s->nr);
	*added = true;
	return (int)s->nr++;
}

int session_start(struct session *s, struct errbuf *err)
{
	for (size_t i = 0; i < s->nr; i++)
		if (informer_start(s->informers[i], err) < 0)
			return -1;
	return 0;
}

void session_selectors(const struct session *s, const char **label_selector,
		       const char **field_selector)
{
	const struct session_private *priv = s->priv;
	*label_selector = priv->label_selector;
	*field_selector = priv->field_selector;
}

void session_stop(struct session *s)
{
	for (size_t i = 0; i < s->nr; i++)
		informer_stop(s->informers[i]);
}

void session_close(struct session *s)
{
	struct session_private *priv = s->priv;
	session_stop(s);
	for (size_t i = 0; i < s->nr; i++)
		informer_free(s->informers[i]);
	free(s->informers);
	free(s->resources);
	if (priv) {
		free(priv->field_selector);
		free(priv->label_selector);
		free(priv);
	}
	cluster_close(&s->cluster);
	memset(s, 0, sizeof(*s));
}

/* session.c — one informer per named resource; see session.h. */
#include "informer/session.h"

#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "informer/kobj.h"
#include "lib/selector.h"
#include "lib/strbuf.h"

/* The informers' options outlive session_open's caller. */
struct session_private {
	struct informer_opts *opts;
	char *field_selector;
};

int session_open(struct session *s, const struct session_opts *opts,
		 struct errbuf *err)
{
	memset(s, 0, sizeof(*s));
	/* A malformed selector is told here, before any request. */
	if (opts->label_selector) {
		struct selector *sel = selector_parse(opts->label_selector, err);
		if (!sel)
			return -1;
		selector_free(sel);
	}
	if (cluster_open(&s->cluster, err) < 0)
		return -1;
	if (cluster_resolve(&s->cluster, opts->resources, &s->resources, &s->nr, err) < 0) {
		cluster_close(&s->cluster);
		return -1;
	}

	/* One NAME is a field selector on metadata.name, as kubectl does. */
	char *fields = NULL;
	if (opts->name && opts->field_selector && *opts->field_selector)
		fields = xasprintf("metadata.name=%s,%s", opts->name, opts->field_selector);
	else if (opts->name)
		fields = xasprintf("metadata.name=%s", opts->name);
	else if (opts->field_selector)
		fields = xstrdup(opts->field_selector);

	struct session_private *priv = xcalloc(1, sizeof(*priv));
	priv->opts = xcalloc(s->nr, sizeof(*priv->opts));
	priv->field_selector = fields;
	s->priv = priv;
	s->informers = xcalloc(s->nr, sizeof(*s->informers));
	const struct client_go_profile *prof = opts->profile ? opts->profile : profile_default();
	for (size_t i = 0; i < s->nr; i++) {
		struct informer_opts *io = &priv->opts[i];
		io->resource = s->resources[i];
		io->ns = s->resources[i]->namespaced ? s->cluster.scope_ns : NULL;
		io->label_selector = opts->label_selector;
		io->field_selector = fields;
		io->fifo = opts->fifo_set ? opts->fifo : prof->fifo;
		io->batch = prof->batch;
		io->backoff = prof->backoff;
		io->watch_list_any_fallback = prof->watch_list_any_fallback;
		io->kobj_flags = opts->keep_managed_fields ? KOBJ_KEEP_MANAGED_FIELDS : 0;
		io->resync_ms = opts->resync_ms;
		io->page_size = opts->page_size;
		io->streaming_list = opts->streaming_set ? opts->streaming_list
							 : prof->streaming_list;
		io->stall_ms = opts->stall_ms;
		s->informers[i] = informer_new(s->cluster.client, io);
	}
	return 0;
}

int session_start(struct session *s, struct errbuf *err)
{
	for (size_t i = 0; i < s->nr; i++)
		if (informer_start(s->informers[i], err) < 0)
			return -1;
	return 0;
}

int session_wait_synced(struct session *s, int64_t timeout_ms)
{
	int64_t deadline = mono_ms() + timeout_ms;
	for (size_t i = 0; i < s->nr; i++) {
		int64_t left = timeout_ms ? deadline - mono_ms() : 0;
		if (timeout_ms && left <= 0)
			return -1;
		if (!informer_wait_synced(s->informers[i], left))
			return -1;
	}
	return 0;
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
		free(priv->opts);
		free(priv->field_selector);
		free(priv);
	}
	cluster_close(&s->cluster);
	memset(s, 0, sizeof(*s));
}

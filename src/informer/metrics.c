/*
 * metrics.c — see metrics.h.
 *
 * DESIGN (threads): the consuming thread owns m->live (its counters and
 * the last informer_get_stats() of each informer) and writes nothing
 * else but, under m->lock, the published copy m->shared.  The HTTP
 * server's thread takes m->lock only to copy m->shared out, then formats
 * the copy unlocked.  The flight recorder's and the controller view's
 * hooks write m->shared.dumps and m->shared.pub[i].wq under m->lock.  So a
 * request never touches an informer: 100 requests a second cost the
 * informers nothing, and the consuming thread one uncontended lock a
 * second.
 */
#include "informer/metrics.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "cluster/rest_config.h"
#include "lib/util.h"

/* Why a list was made: what came before its ACT_LIST_START. */
enum list_cause { CAUSE_INITIAL, CAUSE_EXPIRED, CAUSE_ERROR, CAUSE_OTHER, CAUSE__COUNT };
static const char *const cause_names[CAUSE__COUNT] = {
	"initial", "expired", "error", "other",
};

/* How a watch ended. */
enum watch_end { END_CLOSED, END_EXPIRED, END_STALLED, END_ERROR, END__COUNT };
static const char *const end_names[END__COUNT] = {
	"closed", "expired", "stalled", "error",
};

/* The handler a notification reached, as client-go's ResourceEventHandler. */
static const char *const handler_names[] = {
	[NOTIFY_ADD] = "add", [NOTIFY_UPDATE] = "update", [NOTIFY_DELETE] = "delete",
};
#define NR_HANDLERS 3

/* One informer's figures: the consuming thread's, and their published copy. */
struct figures {
	char resource[128];
	struct informer_stats st;
	uint64_t handled[DELTA__COUNT][NR_HANDLERS];
	uint64_t lists[CAUSE__COUNT];
	uint64_t ends[END__COUNT];
	uint64_t verify_runs, verify_failures;
	size_t divergent[3];		/* missing, extra, stale: the last report's */
	size_t lost;			/* of those, lost, not lagging */
	/* The consuming thread's bookkeeping. */
	enum list_cause next_cause;
	bool listed, watching;
};

struct published {
	struct figures f;
	bool has_wq;
	struct metrics_workqueue wq;
};

/* The published figures; what a request reads is a copy of them. */
struct view {
	struct published *pub;
	size_t nr;
	char cluster[256];
	int64_t published_ms;		/* mono; 0: never */
	uint64_t dumps;
};

struct metrics {
	/* The consuming thread's. */
	struct figures *live;
	size_t nr_live;
	int64_t next_tick_ms;		/* mono */

	pthread_mutex_t lock;		/* guards what follows */
	struct view shared;
};

struct metrics *metrics_new(void)
{
	struct metrics *m = xcalloc(1, sizeof(*m));

	pthread_mutex_init(&m->lock, NULL);
	return m;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m->live);
	free(m->shared.pub);
	free(m);
}

static void note_activity(struct figures *f, const struct activity_info *a)
{
	switch (a->act) {
	case ACT_LIST_START:
		f->lists[f->listed ? f->next_cause : CAUSE_INITIAL]++;
		f->listed = true;
		f->next_cause = CAUSE_OTHER;
		break;
	case ACT_WATCH_OPEN:
		f->watching = true;
		break;
	case ACT_WATCH_END:
	case ACT_WATCH_STALLED:
		if (f->watching)
			f->ends[a->act == ACT_WATCH_END ? END_CLOSED : END_STALLED]++;
		f->watching = false;
		break;
	case ACT_WATCH_EXPIRED:
	case ACT_ERROR:
		f->next_cause = a->act == ACT_ERROR ? CAUSE_ERROR : CAUSE_EXPIRED;
		if (f->watching)
			f->ends[a->act == ACT_ERROR ? END_ERROR : END_EXPIRED]++;
		f->watching = false;
		break;
	default:
		break;
	}
}

void metrics_note(struct metrics *m, size_t i, const struct notification *n)
{
	if (!m || i >= m->nr_live)
		return;
	struct figures *f = &m->live[i];
	if (n->kind == NOTIFY_ACTIVITY) {
		if (n->activity)
			note_activity(f, n->activity);
	} else if ((unsigned)n->delta.type < DELTA__COUNT && (unsigned)n->kind < NR_HANDLERS) {
		f->handled[n->delta.type][n->kind]++;
	}
}

void metrics_verified(struct metrics *m, size_t i, const struct verify_report *r)
{
	if (!m || i >= m->nr_live)
		return;
	struct figures *f = &m->live[i];
	if (!r) {
		f->verify_failures++;
		return;
	}
	f->verify_runs++;
	f->divergent[0] = r->nmissing;
	f->divergent[1] = r->nextra;
	f->divergent[2] = r->nstale;
	f->lost = r->nlost;
}

/* "pods", "deployments.apps": the resource label. */
static void resource_label(const struct api_resource *res, char *buf, size_t size)
{
	if (res->group && *res->group)
		snprintf(buf, size, "%s.%s", res->name, res->group);
	else
		snprintf(buf, size, "%s", res->name);
}

/* The session gained informers: room for their figures. */
static void grow(struct metrics *m, struct session *s)
{
	m->live = xrealloc(m->live, s->nr * sizeof(*m->live));
	memset(m->live + m->nr_live, 0, (s->nr - m->nr_live) * sizeof(*m->live));
	for (size_t i = m->nr_live; i < s->nr; i++)
		resource_label(s->resources[i], m->live[i].resource, sizeof(m->live[i].resource));
	m->nr_live = s->nr;
}

void metrics_tick(struct metrics *m, struct session *s, bool force)
{
	if (!m)
		return;
	int64_t now = mono_ms();
	if (!force && now < m->next_tick_ms && m->nr_live == s->nr)
		return;
	m->next_tick_ms = now + METRICS_PUBLISH_MS;
	if (m->nr_live < s->nr)
		grow(m, s);
	for (size_t i = 0; i < m->nr_live; i++)
		informer_get_stats(s->informers[i], &m->live[i].st);

	pthread_mutex_lock(&m->lock);
	if (m->shared.nr < m->nr_live) {
		m->shared.pub = xrealloc(m->shared.pub, m->nr_live * sizeof(*m->shared.pub));
		memset(m->shared.pub + m->shared.nr, 0,
		       (m->nr_live - m->shared.nr) * sizeof(*m->shared.pub));
		m->shared.nr = m->nr_live;
	}
	for (size_t i = 0; i < m->nr_live; i++)
		m->shared.pub[i].f = m->live[i];
	const struct rest_config *rc = s->cluster.config;
	/* --server with no cluster of a kubeconfig: the server names it */
	snprintf(m->shared.cluster, sizeof(m->shared.cluster), "%s",
		 !rc || rc->in_cluster ? "in-cluster" : *rc->cluster ? rc->cluster : rc->server);
	m->shared.published_ms = now;
	pthread_mutex_unlock(&m->lock);
}

int64_t metrics_next_ms(const struct metrics *m)
{
	if (!m)
		return -1;
	int64_t now = mono_ms();
	return m->next_tick_ms > now ? m->next_tick_ms - now : 0;
}

void metrics_count_dump(struct metrics *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->shared.dumps++;
	pthread_mutex_unlock(&m->lock);
}

void metrics_set_workqueue(struct metrics *m, size_t i, const struct metrics_workqueue *wq)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	if (i < m->shared.nr) {
		m->shared.pub[i].wq = *wq;
		m->shared.pub[i].has_wq = true;
	}
	pthread_mutex_unlock(&m->lock);
}

/* What a request reads: a copy of the published figures, taken under the lock. */
static void view_take(struct metrics *m, struct view *v)
{
	pthread_mutex_lock(&m->lock);
	*v = m->shared;
	v->pub = xcalloc(v->nr + 1, sizeof(*v->pub));
	if (v->nr)
		memcpy(v->pub, m->shared.pub, v->nr * sizeof(*v->pub));
	pthread_mutex_unlock(&m->lock);
}

/* A label value: backslash, double quote and newline escaped. */
static void add_label_value(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			strbuf_addch(out, '\\');
		if (*s == '\n')
			strbuf_adds(out, "\\n");
		else
			strbuf_addch(out, *s);
	}
}

static void family(struct strbuf *out, const char *name, const char *type, const char *help)
{
	strbuf_addf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * `name{resource="pods",kube_cluster="kind"` — the caller adds more and
 * the `}`.  Not "cluster": Prometheus' own target labels often are, and
 * a scraped label of the same name would be renamed exported_cluster.
 */
static void sample_start(struct strbuf *out, const char *name, const struct view *v,
			 const struct figures *f)
{
	strbuf_addf(out, "%s{resource=\"", name);
	add_label_value(out, f->resource);
	strbuf_adds(out, "\",kube_cluster=\"");
	add_label_value(out, v->cluster);
	strbuf_addch(out, '"');
}

enum field_kind { F_U64, F_SIZE, F_BOOL, F_AGE };

/* One figure a resource, read at an offset in struct figures. */
struct scalar {
	const char *name, *type, *help;
	enum field_kind kind;
	size_t offset;
};

#define ST(field) offsetof(struct figures, st.field)
static const struct scalar scalars[] = {
	{ "kinf_reflector_watches_total", "counter",
	  "Total number of API watches done by the reflector (as client-go's reflector_watches_total)",
	  F_U64, ST(watches) },
	{ "kinf_reflector_short_watches_total", "counter",
	  "Total number of short API watches: ended at once without an event (as client-go's)",
	  F_U64, ST(short_watches) },
	{ "kinf_relists_total", "counter", "Lists after the first one", F_U64, ST(relists) },
	{ "kinf_list_fallbacks_total", "counter",
	  "Paged lists whose continue token expired, redone as one full list", F_U64, ST(list_fallbacks) },
	{ "kinf_watch_expired_total", "counter",
	  "410 Gone: the resourceVersion was too old to watch from", F_U64, ST(expired) },
	{ "kinf_backoffs_total", "counter", "Waits before retrying after a failure", F_U64, ST(backoffs) },
	{ "kinf_errors_total", "counter", "Failed requests and watch errors", F_U64, ST(errors) },
	{ "kinf_throttled_total", "counter", "429 Too Many Requests answers", F_U64, ST(throttled) },
	{ "kinf_rv_regressions_total", "counter",
	  "Watch events older than the resourceVersion before them", F_U64, ST(rv_backwards) },
	{ "kinf_watch_events_total", "counter", "Watch events received", F_U64, ST(events) },
	{ "kinf_bookmarks_total", "counter", "Watch bookmarks received", F_U64, ST(bookmarks) },
	{ "kinf_resyncs_total", "counter", "Resyncs", F_U64, ST(resyncs) },
	{ "kinf_informer_synced", "gauge", "1 once the informer has synced (HasSynced)", F_BOOL, ST(synced) },
	{ "kinf_last_event_age_seconds", "gauge",
	  "Time since the last ADDED, MODIFIED or DELETED event", F_AGE, ST(last_event_ms) },
	{ "kinf_last_bookmark_age_seconds", "gauge", "Time since the last bookmark", F_AGE, ST(last_bookmark_ms) },
	{ "kinf_watch_age_seconds", "gauge", "Age of the open watch", F_AGE, ST(watch_since_ms) },
	{ "kinf_cache_objects", "gauge", "Objects in the informer's cache (the Indexer)", F_SIZE, ST(cached) },
	{ "kinf_cache_bytes", "gauge", "The cached objects' size as compact JSON", F_SIZE, ST(cached_json_bytes) },
	{ "kinf_fifo_depth", "gauge", "Keys queued in the FIFO, not yet popped", F_SIZE, ST(fifo_depth) },
	{ "kinf_listener_backlog", "gauge",
	  "Notifications queued for the listener furthest behind", F_SIZE, ST(backlog) },
	{ "kinf_listener_backlog_age_seconds", "gauge",
	  "Age of the oldest notification queued for a listener", F_AGE, ST(backlog_since_ms) },
	{ "kinf_verify_runs_total", "counter", "Checks of the cache against a quorum list",
	  F_U64, offsetof(struct figures, verify_runs) },
	{ "kinf_verify_failures_total", "counter", "Checks that could not be made (the list failed)",
	  F_U64, offsetof(struct figures, verify_failures) },
};
#undef ST

static void render_scalar(struct strbuf *out, const struct view *v, const struct scalar *sc,
			  int64_t now)
{
	family(out, sc->name, sc->type, sc->help);
	for (size_t i = 0; i < v->nr; i++) {
		const struct figures *f = &v->pub[i].f;
		const char *p = (const char *)f + sc->offset;
		int64_t at;

		switch (sc->kind) {
		case F_U64:
			sample_start(out, sc->name, v, f);
			strbuf_addf(out, "} %llu\n", (unsigned long long)*(const uint64_t *)p);
			break;
		case F_SIZE:
			sample_start(out, sc->name, v, f);
			strbuf_addf(out, "} %zu\n", *(const size_t *)p);
			break;
		case F_BOOL:
			sample_start(out, sc->name, v, f);
			strbuf_addf(out, "} %d\n", *(const bool *)p ? 1 : 0);
			break;
		case F_AGE:
			at = *(const int64_t *)p;
			if (!at)	/* never: no sample rather than a made-up age */
				break;
			sample_start(out, sc->name, v, f);
			strbuf_addf(out, "} %.3f\n", (now > at ? now - at : 0) / 1000.0);
			break;
		}
	}
}

/* The figures with one label more than resource and cluster, from bounded tables. */
static void render_labelled(struct strbuf *out, const struct view *v)
{
	family(out, "kinf_deltas_total", "counter",
	       "Deltas popped into the Indexer, by type and by the handler they reached");
	for (size_t i = 0; i < v->nr; i++)
		for (int t = 0; t < DELTA__COUNT; t++)
			for (int h = 0; h < NR_HANDLERS; h++) {
				const struct figures *f = &v->pub[i].f;
				if (!f->handled[t][h])
					continue;
				sample_start(out, "kinf_deltas_total", v, f);
				strbuf_addf(out, ",type=\"%s\",handler=\"%s\"} %llu\n",
					    delta_type_name(t), handler_names[h],
					    (unsigned long long)f->handled[t][h]);
			}
	family(out, "kinf_reflector_lists_total", "counter",
	       "Total number of API lists done by the reflector (as client-go's), by cause");
	for (size_t i = 0; i < v->nr; i++)
		for (int c = 0; c < CAUSE__COUNT; c++) {
			sample_start(out, "kinf_reflector_lists_total", v, &v->pub[i].f);
			strbuf_addf(out, ",cause=\"%s\"} %llu\n", cause_names[c],
				    (unsigned long long)v->pub[i].f.lists[c]);
		}
	family(out, "kinf_watch_ends_total", "counter", "Watches that ended, by reason");
	for (size_t i = 0; i < v->nr; i++)
		for (int e = 0; e < END__COUNT; e++) {
			sample_start(out, "kinf_watch_ends_total", v, &v->pub[i].f);
			strbuf_addf(out, ",reason=\"%s\"} %llu\n", end_names[e],
				    (unsigned long long)v->pub[i].f.ends[e]);
		}
	static const char *const classes[] = { "missing", "extra", "stale" };
	family(out, "kinf_verify_divergent_keys", "gauge",
	       "Keys the last check found divergent from the server, by class");
	for (size_t i = 0; i < v->nr; i++)
		for (int c = 0; c < 3; c++) {
			sample_start(out, "kinf_verify_divergent_keys", v, &v->pub[i].f);
			strbuf_addf(out, ",class=\"%s\"} %zu\n", classes[c], v->pub[i].f.divergent[c]);
		}
	family(out, "kinf_verify_lost_keys", "gauge",
	       "Of the divergent keys, those lost: the informer is past their server "
	       "resourceVersion (or caught up, for an extra key), so they will not come");
	for (size_t i = 0; i < v->nr; i++) {
		sample_start(out, "kinf_verify_lost_keys", v, &v->pub[i].f);
		strbuf_addf(out, "} %zu\n", v->pub[i].f.lost);
	}
}

/* One workqueue figure, read at an offset in struct metrics_workqueue. */
enum wq_kind { WQ_COUNT, WQ_SECONDS, WQ_HISTOGRAM };
struct wq_figure {
	const char *name, *type, *help;
	enum wq_kind kind;
	size_t offset;
};

#define WQ(field) offsetof(struct metrics_workqueue, field)
static const struct wq_figure wq_figures[] = {
	{ "kinf_workqueue_depth", "gauge", "Keys waiting in the controller view's workqueue",
	  WQ_COUNT, WQ(depth) },
	{ "kinf_workqueue_adds_total", "counter",
	  "Adds the workqueue took (an Add of a key already waiting is not one)",
	  WQ_COUNT, WQ(adds) },
	{ "kinf_workqueue_queue_duration_seconds", "histogram",
	  "Seconds from a key's Add to the Get that handed it to a worker",
	  WQ_HISTOGRAM, WQ(queue_duration) },
	{ "kinf_workqueue_work_duration_seconds", "histogram",
	  "Seconds from a Get to its Done: a Reconcile's length",
	  WQ_HISTOGRAM, WQ(work_duration) },
	{ "kinf_workqueue_unfinished_work_seconds", "gauge",
	  "Seconds the Reconciles under way have run so far, added up",
	  WQ_SECONDS, WQ(unfinished_work_s) },
	{ "kinf_controller_reconcile_errors_total", "counter",
	  "Reconciles that returned an error (controller_runtime_reconcile_errors_total)",
	  WQ_COUNT, WQ(reconcile_error) },
	{ "kinf_controller_terminal_reconcile_errors_total", "counter",
	  "Reconciles that returned a TerminalError, not requeued",
	  WQ_COUNT, WQ(terminal_errors) },
	{ "kinf_controller_active_workers", "gauge", "Reconciles running now",
	  WQ_COUNT, WQ(active_workers) },
	{ "kinf_controller_max_concurrent_reconciles", "gauge",
	  "Workers the controller has (MaxConcurrentReconciles)", WQ_COUNT, WQ(max_workers) },
	{ "kinf_controller_filtered_events_total", "counter",
	  "Updates a predicate dropped before the handler", WQ_COUNT, WQ(filtered) },
	{ "kinf_controller_unseen_states_total", "counter",
	  "States of an object that no Reconcile read (coalesced or filtered)",
	  WQ_COUNT, WQ(unseen_states) },
	{ "kinf_controller_keys_with_unseen_states", "gauge",
	  "Keys with a state that no Reconcile read, so far", WQ_COUNT, WQ(keys_unseen) },
	{ "kinf_workqueue_longest_running_processor_seconds", "gauge",
	  "Seconds the longest Reconcile under way has run",
	  WQ_SECONDS, WQ(longest_running_s) },
	{ "kinf_workqueue_retries_total", "counter",
	  "Keys added again after a delay (AddRateLimited, AddAfter)",
	  WQ_COUNT, WQ(retries) },
};
#undef WQ

static void render_histogram(struct strbuf *out, const char *name, const struct view *v,
			     const struct figures *f, const struct metrics_histogram *h)
{
	char bucket[128];
	uint64_t cum = 0;
	double le = 1e-8;

	snprintf(bucket, sizeof(bucket), "%s_bucket", name);
	for (unsigned k = 0; k < h->nbuckets && k < METRICS_WQ_BUCKETS; k++, le *= 10) {
		cum += h->buckets[k];
		sample_start(out, bucket, v, f);
		strbuf_addf(out, ",le=\"%g\"} %llu\n", le, (unsigned long long)cum);
	}
	sample_start(out, bucket, v, f);
	strbuf_addf(out, ",le=\"+Inf\"} %llu\n", (unsigned long long)h->count);
	snprintf(bucket, sizeof(bucket), "%s_sum", name);
	sample_start(out, bucket, v, f);
	strbuf_addf(out, "} %.6g\n", h->sum_s);
	snprintf(bucket, sizeof(bucket), "%s_count", name);
	sample_start(out, bucket, v, f);
	strbuf_addf(out, "} %llu\n", (unsigned long long)h->count);
}

/* kinf_controller_reconcile_total, by controller-runtime's result labels. */
static void render_reconciles(struct strbuf *out, const struct view *v)
{
	static const struct { const char *label; size_t offset; } results[] = {
#define RESULT(label, field) { label, offsetof(struct metrics_workqueue, field) }
		RESULT("success", reconcile_success), RESULT("error", reconcile_error),
		RESULT("requeue", reconcile_requeue),
		RESULT("requeue_after", reconcile_requeue_after),
#undef RESULT
	};

	family(out, "kinf_controller_reconcile_total", "counter",
	       "Reconciles by result (controller_runtime_reconcile_total)");
	for (size_t i = 0; i < v->nr; i++)
		for (size_t r = 0; v->pub[i].has_wq && r < ARRAY_SIZE(results); r++) {
			const char *p = (const char *)&v->pub[i].wq + results[r].offset;
			sample_start(out, "kinf_controller_reconcile_total", v, &v->pub[i].f);
			strbuf_addf(out, ",result=\"%s\"} %llu\n", results[r].label,
				    (unsigned long long)*(const uint64_t *)p);
		}
}

/* client-go's util/workqueue figures, for informers with a controller view. */
static void render_workqueues(struct strbuf *out, const struct view *v)
{
	bool any = false;

	for (size_t i = 0; i < v->nr; i++)
		any |= v->pub[i].has_wq;
	if (!any)
		return;
	render_reconciles(out, v);
	for (size_t k = 0; k < ARRAY_SIZE(wq_figures); k++) {
		const struct wq_figure *wf = &wq_figures[k];
		family(out, wf->name, wf->type, wf->help);
		for (size_t i = 0; i < v->nr; i++) {
			const char *p = (const char *)&v->pub[i].wq + wf->offset;
			if (!v->pub[i].has_wq)
				continue;
			if (wf->kind == WQ_HISTOGRAM) {
				render_histogram(out, wf->name, v, &v->pub[i].f,
						 (const struct metrics_histogram *)p);
				continue;
			}
			sample_start(out, wf->name, v, &v->pub[i].f);
			if (wf->kind == WQ_SECONDS)
				strbuf_addf(out, "} %.6g\n", *(const double *)p);
			else
				strbuf_addf(out, "} %llu\n", (unsigned long long)*(const uint64_t *)p);
		}
	}
}

static void render(struct metrics *m, struct strbuf *out)
{
	struct view v;
	int64_t now = wall_ms();

	view_take(m, &v);
	for (size_t k = 0; k < ARRAY_SIZE(scalars); k++)
		render_scalar(out, &v, &scalars[k], now);
	render_labelled(out, &v);
	render_workqueues(out, &v);
	family(out, "kinf_flight_recorder_dumps_total", "counter", "Flight-recorder dumps written");
	strbuf_adds(out, "kinf_flight_recorder_dumps_total{kube_cluster=\"");
	add_label_value(out, v.cluster);
	strbuf_addf(out, "\"} %llu\n", (unsigned long long)v.dumps);
	family(out, "kinf_build_info", "gauge", "kinf's version, as the value 1's label");
	strbuf_adds(out, "kinf_build_info{version=\"");
	add_label_value(out, KINF_VERSION);
	strbuf_adds(out, "\"} 1\n");
	free(v.pub);
}

/* Why informer f is not healthy, or NULL; buf holds the words. */
static const char *unhealthy(const struct figures *f, int64_t now, char *buf, size_t size)
{
	const struct informer_stats *st = &f->st;
	int64_t life = st->watch_since_ms;

	if (st->state == STATE_BACKOFF)
		snprintf(buf, size, "backing off: %s", st->last_error);
	else if (st->state != STATE_WATCHING && st->state != STATE_LISTING)
		snprintf(buf, size, "%s", informer_state_name(st->state));
	else if (!st->synced)
		snprintf(buf, size, "not synced (%s)", informer_state_name(st->state));
	else if (st->state == STATE_LISTING)
		snprintf(buf, size, "relisting: %s", st->relist_reason);
	else
		buf[0] = 0;
	if (buf[0])
		return buf;
	/*
	 * A watch that has sent bookmarks is alive while they come; one that
	 * missed two and then some has stalled (its server side hung, or its
	 * connection died without a word) until the reflector renews it.
	 * Without bookmarks, silence is only quiet.
	 */
	if (st->last_event_ms > life)
		life = st->last_event_ms;
	if (st->last_bookmark_ms > life)
		life = st->last_bookmark_ms;
	if (st->bookmark_gap_ms > 0 && life && now - life > 2 * st->bookmark_gap_ms + 2000) {
		snprintf(buf, size, "watch silent for %.0f s (bookmarks came every %.0f s)",
			 (now - life) / 1000.0, st->bookmark_gap_ms / 1000.0);
		return buf;
	}
	return NULL;
}

static bool healthy(struct metrics *m, struct strbuf *why)
{
	struct view v;
	int64_t now = wall_ms(), mono = mono_ms();
	bool ok = true;
	char buf[384];

	view_take(m, &v);
	if (!v.published_ms) {
		strbuf_adds(why, "starting\n");
		ok = false;
	} else if (mono - v.published_ms > METRICS_STALE_MS) {
		strbuf_addf(why, "figures not refreshed for %.0f s\n",
			    (mono - v.published_ms) / 1000.0);
		ok = false;
	}
	for (size_t i = 0; ok && i < v.nr; i++) {
		const char *bad = unhealthy(&v.pub[i].f, now, buf, sizeof(buf));
		if (bad) {
			strbuf_addf(why, "%s: %s\n", v.pub[i].f.resource, bad);
			ok = false;
		}
	}
	free(v.pub);
	return ok;
}

void metrics_serve(void *ctx, const char *path, struct httpd_reply *reply)
{
	struct metrics *m = ctx;

	if (!strcmp(path, "/metrics")) {
		reply->content_type = "text/plain; version=0.0.4; charset=utf-8";
		render(m, &reply->body);
	} else if (!strcmp(path, "/healthz")) {
		if (healthy(m, &reply->body))
			strbuf_adds(&reply->body, "ok\n");
		else
			reply->status = 503;
	} else {
		reply->status = 404;
		strbuf_adds(&reply->body, "not found: try /metrics or /healthz\n");
	}
}

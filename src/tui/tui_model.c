/* tui_model.c — the TUI's picture of one resource; see tui_model.h. */
#include "tui/tui_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "lib/util.h"

void model_init(struct model *m, struct informer *inf, struct listener *l)
{
	const struct api_resource *res = informer_resource(inf);

	memset(m, 0, sizeof(*m));
	m->inf = inf;
	m->listener = l;
	m->name = res->name;
	m->kind = res->kind;
	m->namespaced = res->namespaced;
	m->log = xcalloc(LOG_MAX, sizeof(*m->log));
}

static void row_free(struct row *r)
{
	kobj_unref(r->obj);
	kobj_unref(r->prev);
	kobj_unref(r->cells_obj);
	for (size_t i = 0; i < r->cells_nr; i++)
		free(r->cells[i]);
	free(r->cells);
	free(r->hist);
	free(r->key);
	free(r);
}

void model_release(struct model *m)
{
	size_t iter = 0;
	struct hashmap_entry *e;

	while ((e = hashmap_next(&m->rows, &iter)))
		row_free(e->value);
	hashmap_release(&m->rows);
	model_log_clear(m);
	free(m->log);
	for (size_t i = 0; i < m->held_nr; i++)
		notification_release(&m->held[i]);
	free(m->held);
	memset(m, 0, sizeof(*m));
}

struct row *model_row(const struct model *m, const char *key)
{
	return hashmap_get(&m->rows, key);
}

static void hist_from_delta(struct hist_entry *h, const struct notification *n)
{
	const struct delta *d = &n->delta;

	memset(h, 0, sizeof(*h));
	h->time_ms = d->time_ms ? d->time_ms : wall_ms();
	snprintf(h->rv, sizeof(h->rv), "%s", d->obj ? d->obj->rv : "");
	h->list_no = d->list_no;
	h->type = (unsigned char)d->type;
	h->source = (unsigned char)d->source;
	h->tombstone = d->tombstone;
	h->resync_only = n->resync_only;
	h->replay = n->replay;
}

/*
 * Most objects see one or two deltas: the history grows by doubling up to
 * HIST_MAX and only then turns into a ring, so 100,000 quiet objects do
 * not each carry room for HIST_MAX.
 */
static void row_push_hist(struct row *r, const struct hist_entry *h)
{
	if (r->hist_nr < HIST_MAX) {
		if (r->hist_nr == r->hist_alloc) {
			r->hist_alloc = r->hist_alloc ? r->hist_alloc * 2 : 2;
			if (r->hist_alloc > HIST_MAX)
				r->hist_alloc = HIST_MAX;
			r->hist = xrealloc(r->hist, r->hist_alloc * sizeof(*r->hist));
		}
		r->hist[r->hist_nr++] = *h;	/* hist_first stays 0 until full */
	} else {
		r->hist[r->hist_first] = *h;
		r->hist_first = (r->hist_first + 1) % HIST_MAX;
	}
	r->hist_total++;
}

const struct hist_entry *row_hist_at(const struct row *r, size_t i)
{
	return &r->hist[(r->hist_first + i) % HIST_MAX];
}

static struct log_entry *log_append(struct model *m)
{
	struct log_entry *e;

	if (m->log_nr < LOG_MAX) {
		e = &m->log[(m->log_first + m->log_nr) % LOG_MAX];
		m->log_nr++;
	} else {
		e = &m->log[m->log_first];
		free(e->text);
		m->log_first = (m->log_first + 1) % LOG_MAX;
	}
	memset(e, 0, sizeof(*e));
	m->log_total++;
	return e;
}

const struct log_entry *model_log_at(const struct model *m, size_t i)
{
	return &m->log[(m->log_first + i) % LOG_MAX];
}

void model_log_clear(struct model *m)
{
	for (size_t i = 0; i < m->log_nr; i++)
		free(m->log[(m->log_first + i) % LOG_MAX].text);
	m->log_nr = 0;
	m->log_first = 0;
	m->log_total++;
}

static void log_activity(struct model *m, const struct activity_info *a)
{
	struct log_entry *e = log_append(m);
	const char *what = activity_name(a->act);

	e->kind = LOG_ACTIVITY;
	e->time_ms = wall_ms();
	switch (a->act) {
	case ACT_LIST_DONE:
		e->text = xasprintf("%s: %zu objects at rv %s", what, a->count, a->rv);
		break;
	case ACT_WATCH_OPEN:
	case ACT_BOOKMARK:
		e->text = xasprintf("%s: rv %s", what, a->rv);
		break;
	case ACT_BACKOFF:
		e->text = xasprintf("%s: retrying in %lld ms", what, (long long)a->delay_ms);
		break;
	case ACT_RELISTED:
		e->text = xasprintf("%s: %zu listed, %zu added, %zu changed, %zu unchanged, %zu deleted",
				    what, a->replace.listed, a->replace.added,
				    a->replace.changed, a->replace.unchanged,
				    a->replace.deleted);
		break;
	case ACT_RESYNC:
		e->text = xasprintf("%s: %zu %s deltas queued", what, a->count,
				    *a->message ? a->message : "Sync");
		break;
	default:
		e->text = a->message[0] ? xasprintf("%s: %s", what, a->message)
					: xstrdup(what);
		break;
	}
}

static void swap_obj(struct kobj **slot, struct kobj *obj)
{
	struct kobj *old = *slot;
	*slot = obj ? kobj_ref(obj) : NULL;
	kobj_unref(old);
}

void model_apply(struct model *m, struct notification *n)
{
	struct kobj *obj = n->delta.obj;

	m->notified++;
	if (n->kind == NOTIFY_ACTIVITY) {
		/* Bookmarks are frequent and say little: the health pane counts them. */
		if (n->activity.act != ACT_BOOKMARK && n->activity.act != ACT_LIST_PAGE)
			log_activity(m, &n->activity);
		notification_release(n);
		return;
	}
	if (!obj) {
		notification_release(n);
		return;
	}

	struct hist_entry h;
	hist_from_delta(&h, n);

	struct log_entry *e = log_append(m);
	e->kind = LOG_DELTA;
	e->time_ms = h.time_ms;
	e->d = h;
	e->text = xstrdup(obj->key);

	struct row *r = hashmap_get(&m->rows, obj->key);
	if (!r) {
		if (n->kind == NOTIFY_DELETE) {
			notification_release(n);
			return;
		}
		r = xcalloc(1, sizeof(*r));
		r->key = xstrdup(obj->key);
		hashmap_insert(&m->rows, r->key, r);
		m->present++;
		m->structure++;
	} else if (r->gone_mono && n->kind != NOTIFY_DELETE) {
		r->gone_mono = 0;
		r->tombstone = false;
		m->gone--;
		m->present++;
	}

	if (n->kind == NOTIFY_DELETE) {
		if (!r->gone_mono) {
			r->gone_mono = mono_ms();
			m->gone++;
			m->present--;
		}
		r->tombstone = n->delta.tombstone;
	} else if (n->kind == NOTIFY_UPDATE && n->old &&
		   strcmp(n->old->rv, obj->rv)) {
		swap_obj(&r->prev, n->old);
	}
	swap_obj(&r->obj, obj);
	r->last_type = n->delta.type;
	r->last_ms = h.time_ms;
	/* An unchanged object (resync, relist of the same RV) is no change. */
	if (!n->resync_only)
		r->changed_mono = mono_ms();
	r->version++;
	m->changes++;
	row_push_hist(r, &h);
	notification_release(n);
}

void model_hold(struct model *m, struct notification *n)
{
	ALLOC_GROW(m->held, m->held_nr + 1, m->held_alloc);
	m->held[m->held_nr++] = *n;
}

size_t model_apply_held(struct model *m)
{
	size_t nr = m->held_nr;

	for (size_t i = 0; i < nr; i++)
		model_apply(m, &m->held[i]);
	m->held_nr = 0;
	return nr;
}

bool model_expire(struct model *m, int64_t now_mono)
{
	bool freed = false;
	size_t iter = 0;
	struct hashmap_entry *e;

	if (!m->gone)
		return false;
	/* Removing shifts entries; collect first, then remove. */
	struct row **dead = NULL;
	size_t nr = 0, alloc = 0;
	while ((e = hashmap_next(&m->rows, &iter))) {
		struct row *r = e->value;
		if (r->gone_mono && now_mono - r->gone_mono >= GONE_SHOW_MS) {
			ALLOC_GROW(dead, nr + 1, alloc);
			dead[nr++] = r;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		hashmap_remove(&m->rows, dead[i]->key, NULL);
		row_free(dead[i]);
		m->gone--;
		m->structure++;
		freed = true;
	}
	free(dead);
	return freed;
}

void model_sample(struct model *m, int64_t now_mono)
{
	uint64_t total = 0;

	informer_get_stats(m->inf, &m->stats);
	for (size_t i = 0; i < DELTA__COUNT; i++)
		total += m->stats.deltas[i];

	struct rate *r = &m->rate;
	r->at[r->next] = now_mono;
	r->total[r->next] = total;
	r->next = (r->next + 1) % RATE_SAMPLES;
	if (r->nr < RATE_SAMPLES)
		r->nr++;
	/* The oldest sample against the newest. */
	size_t oldest = r->nr < RATE_SAMPLES ? 0 : r->next;
	int64_t span = now_mono - r->at[oldest];
	m->deltas_per_s = span > 0 ? (double)(total - r->total[oldest]) * 1000.0 / (double)span : 0;
}

static bool labels_have_key(const char *packed, const char *key, size_t len)
{
	for (const char *p = packed; *p; p += strlen(p) + 1)
		if (!strncmp(p, key, len) && p[len] == '=')
			return true;
	return false;
}

bool row_matches(const struct row *r, const char *filter)
{
	if (!filter || !*filter)
		return true;
	if (!str_starts_with(filter, "l:"))
		return strcasestr(r->key, filter) != NULL;

	const char *labels = r->obj ? r->obj->labels : "";
	const char *p = filter + 2;
	char term[256];
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n && n < sizeof(term)) {
			memcpy(term, p, n);
			term[n] = '\0';
			if (strchr(term, '=') ? !packed_contains(labels, term)
					      : !labels_have_key(labels, term, n))
				return false;
		}
		p += n + (p[n] == ',');
	}
	return true;
}

void hist_describe(const struct hist_entry *h, char *buf, size_t size)
{
	const char *tomb = h->tombstone ? ", tombstone" : "";

	if (h->replay)
		snprintf(buf, size, "replay");
	else if (h->type == DELTA_SYNC || h->source == SOURCE_RESYNC)
		snprintf(buf, size, "resync");
	else if (h->source == SOURCE_LIST && h->list_no == 0)
		snprintf(buf, size, "initial list%s", tomb);
	else if (h->source == SOURCE_LIST)
		snprintf(buf, size, "relist %u%s%s", h->list_no, tomb,
			 h->resync_only ? ", unchanged" : "");
	else
		snprintf(buf, size, "watch%s", tomb);
}

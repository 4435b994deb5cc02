/*
 * tui_story.c — the simulated controller of each tab (--controller) and
 * what is kept of it for the controller pane (tui_controller.c) and the
 * detail view's history: the story of each key.
 *
 * Each tab with --controller runs its own simulation
 * (controller/controller.h) on the tab's notifications, on the monotonic
 * clock: tui.c hands it every notification, calls tui_ctl_tabs_advance()
 * after each wake-up, and sleeps no longer than tui_ctl_tabs_wait_ms(),
 * as the watch loop does for `watch --controller`.  The records are not
 * printed; they build a story per key:
 *   - for the object, what became of each delta: filtered by which
 *     predicate, or enqueued (new, coalesced, dirty) under which request;
 *   - for the request, its Reconciles (number, RV read), so that an
 *     enqueued delta names the Reconcile that covered it: the first to
 *     start after it was added, as the workqueue's dirty set decides;
 *   - the last Reconcile's unseen states, as the records word them.
 *
 * Memory: one story per key the controller heard of, with at most
 * HIST_MAX fates and STARTS_MAX Reconciles (rings, grown as needed); the
 * story of a deleted object goes once the model has freed its row.
 *
 * Threads: none; the terminal thread calls everything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/controller.h"
#include "output/controller_report.h"
#include "lib/hashmap.h"
#include "lib/strbuf.h"
#include "tui/tui_story.h"
#include "lib/util.h"

#define STARTS_MAX 16	/* Reconciles kept per request key */

enum fate_what { FATE_FILTERED, FATE_ENQUEUED };

/* What became of one delta of an object. */
struct fate {
	char rv[24];
	const char *delta;	/* delta_type_name()'s, static */
	int64_t clock_ms;	/* the simulation's: one event's several requests */
	unsigned char what;	/* enum fate_what */
	unsigned char how;	/* FATE_ENQUEUED: enum wq_add */
	unsigned char pred;	/* FATE_FILTERED: in tui_ctl.preds */
	char *request;		/* the key enqueued when not the object's own; owned */
	uint64_t start;		/* the request's Reconciles before it: the next covers it */
};

struct start_info {
	unsigned number;
	char rv[24];		/* "": read nothing (not in the cache) */
};

struct story {
	char *key;		/* owned; also the map's key */
	struct fate *fates;	/* oldest first, then a ring from first */
	unsigned short nr, alloc, first;
	struct start_info *starts;	/* the same, of its Reconciles */
	unsigned short s_nr, s_alloc, s_first;
	uint64_t started;	/* its Reconciles so far */
	char *unseen;		/* the last Reconcile's unseen states, as text, or NULL */
	char *done;		/* how the last one ended, or NULL */
	bool deleted;		/* its last delta was a Delete */
	uint64_t generation;	/* bumped by each record about it */
};

struct tui_ctl {
	struct controller *c;
	struct hashmap stories;	/* key -> struct story */
	char *preds[PREDICATE_TERMS_MAX + 1];	/* the predicate terms records named */
	size_t nr_preds;
	uint64_t generation;	/* bumped by every record */
	char **deleted;		/* keys whose story may go, once their row has */
	size_t nr_deleted, alloc_deleted;
};

/* ---- the stories --------------------------------------------------------- */

static struct story *story_of(struct tui_ctl *ctl, const char *key)
{
	struct story *s = hashmap_get(&ctl->stories, key);

	if (s)
		return s;
	s = xcalloc(1, sizeof(*s));
	s->key = xstrdup(key);
	hashmap_insert(&ctl->stories, s->key, s);
	return s;
}

static void story_free(struct story *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->fates[i].request);
	free(s->fates);
	free(s->starts);
	free(s->unseen);
	free(s->done);
	free(s->key);
	free(s);
}

/*
 * Room for one more in a ring of at most max: most keys see one or two
 * deltas, so it starts at 2, not at ALLOC_GROW's 16 (100k keys).
 */
static void *ring_grow(void *v, size_t size, unsigned short nr, unsigned short *alloc,
		       unsigned short max)
{
	if (nr < *alloc)
		return v;
	*alloc = (unsigned short)(*alloc ? *alloc * 2 : 2);
	if (*alloc > max)
		*alloc = max;
	return xrealloc(v, (size_t)*alloc * size);
}

static const struct fate *fate_at(const struct story *s, size_t i)
{
	return &s->fates[(s->first + i) % s->nr];
}

static void note_deleted(struct tui_ctl *ctl, struct story *s, const char *delta)
{
	bool deleted = !strcmp(delta, delta_type_name(DELTA_DELETED));

	if (deleted && !s->deleted) {
		ALLOC_GROW(ctl->deleted, ctl->nr_deleted + 1, ctl->alloc_deleted);
		ctl->deleted[ctl->nr_deleted++] = xstrdup(s->key);
	}
	s->deleted = deleted;
}

/* A new fate of r's delta, the oldest let go of when the ring is full. */
static struct fate *fate_push(struct tui_ctl *ctl, struct story *s, const struct ctl_record *r,
			      enum fate_what what)
{
	struct fate *f;

	if (s->nr < HIST_MAX) {
		s->fates = ring_grow(s->fates, sizeof(*s->fates), s->nr, &s->alloc, HIST_MAX);
		f = &s->fates[s->nr++];
	} else {
		f = &s->fates[s->first];
		free(f->request);
		s->first = (unsigned short)((s->first + 1) % HIST_MAX);
	}
	memset(f, 0, sizeof(*f));
	s->generation++;
	snprintf(f->rv, sizeof(f->rv), "%s", r->rv);
	f->delta = r->delta;
	f->clock_ms = r->clock_ms;
	f->what = (unsigned char)what;
	note_deleted(ctl, s, r->delta);
	return f;
}

/* Reconcile n (0: the first ever) of s, or NULL when no longer kept. */
static const struct start_info *start_at(const struct story *s, uint64_t n)
{
	uint64_t kept_from = s->started - s->s_nr;

	if (n >= s->started || n < kept_from)
		return NULL;
	return &s->starts[(s->s_first + (n - kept_from)) % s->s_nr];
}

static void start_push(struct story *s, const struct ctl_record *r)
{
	struct start_info *st;

	if (s->s_nr < STARTS_MAX) {
		s->starts = ring_grow(s->starts, sizeof(*s->starts), s->s_nr, &s->s_alloc,
				      STARTS_MAX);
		st = &s->starts[s->s_nr++];
	} else {
		st = &s->starts[s->s_first];
		s->s_first = (unsigned short)((s->s_first + 1) % STARTS_MAX);
	}
	s->generation++;
	st->number = r->number;
	snprintf(st->rv, sizeof(st->rv), "%s", r->read_rv ? r->read_rv : "");
	s->started++;
}

static unsigned char pred_index(struct tui_ctl *ctl, const char *name)
{
	for (size_t i = 0; i < ctl->nr_preds; i++)
		if (!strcmp(ctl->preds[i], name))
			return (unsigned char)i;
	if (ctl->nr_preds == PREDICATE_TERMS_MAX)	/* never: records name the terms */
		return 0;
	ctl->preds[ctl->nr_preds] = xstrdup(name);
	return (unsigned char)ctl->nr_preds++;
}

static void on_filtered(struct tui_ctl *ctl, const struct ctl_record *r)
{
	struct story *s = story_of(ctl, r->object ? r->object : r->key);
	struct fate *f = fate_push(ctl, s, r, FATE_FILTERED);

	f->pred = pred_index(ctl, r->predicate);
}

static void on_enqueued(struct tui_ctl *ctl, const struct ctl_record *r)
{
	const char *object = r->object ? r->object : r->key;
	struct story *s = story_of(ctl, object), *req = story_of(ctl, r->key);

	if (!r->delta)	/* a timer's add: no delta behind it */
		return;
	if (s->nr) {
		/* An owner's old and new keys: one event, told once. */
		const struct fate *last = fate_at(s, s->nr - 1);
		if (last->clock_ms == r->clock_ms && last->what == FATE_ENQUEUED &&
		    !strcmp(last->rv, r->rv) && last->delta == r->delta)
			return;
	}
	struct fate *f = fate_push(ctl, s, r, FATE_ENQUEUED);
	f->how = (unsigned char)r->how;
	f->request = strcmp(object, r->key) ? xstrdup(r->key) : NULL;
	f->start = req->started;
}

static void on_start(struct tui_ctl *ctl, const struct ctl_record *r)
{
	struct story *s = story_of(ctl, r->key);
	struct strbuf sb = STRBUF_INIT;

	start_push(s, r);
	free(s->unseen);
	s->unseen = NULL;
	if (r->nr_unseen) {
		controller_unseen_text(r->unseen, r->nr_unseen, false, &sb);
		s->unseen = strbuf_detach(&sb, NULL);
	}
	free(s->done);
	s->done = NULL;
}

static void on_done(struct tui_ctl *ctl, const struct ctl_record *r)
{
	struct story *s = story_of(ctl, r->key);

	s->generation++;
	free(s->done);
	s->done = xasprintf("%s after %lld.%03llds%s%s", r->result,
			    (long long)(r->took_ms / 1000), (long long)(r->took_ms % 1000),
			    r->requeue_ms >= 0 ? ", requeued" : "",
			    r->dirty ? ", dirty: queued again" : "");
}

/* controller_opts.record */
static void on_record(void *ctx, const struct ctl_record *r)
{
	struct tui_ctl *ctl = ctx;

	ctl->generation++;
	switch (r->type) {
	case CTL_FILTERED: on_filtered(ctl, r); break;
	case CTL_ENQUEUED: on_enqueued(ctl, r); break;
	case CTL_RECONCILE_START: on_start(ctl, r); break;
	case CTL_RECONCILE_DONE: on_done(ctl, r); break;
	default: break;
	}
}

/* ---- the simulation ------------------------------------------------------ */

struct tui_ctl *tui_ctl_new(const struct controller_opts *opts)
{
	struct tui_ctl *ctl = xcalloc(1, sizeof(*ctl));
	struct controller_opts o = *opts;
	struct errbuf err = { "" };

	o.now = controller_live_clock;
	o.now_ctx = NULL;
	o.start_ms = mono_ms();
	o.sources = 1;	/* a tab's controller has its tab's informer only */
	o.record = on_record;
	o.record_ctx = ctl;
	ctl->c = controller_new(&o, &err);
	if (!ctl->c) {	/* never: the command checked the options */
		free(ctl);
		return NULL;
	}
	return ctl;
}

void tui_ctl_free(struct tui_ctl *ctl)
{
	size_t iter = 0;
	struct hashmap_entry *e;

	if (!ctl)
		return;
	controller_free(ctl->c);
	while ((e = hashmap_next(&ctl->stories, &iter)))
		story_free(e->value);
	hashmap_release(&ctl->stories);
	for (size_t i = 0; i < ctl->nr_preds; i++)
		free(ctl->preds[i]);
	for (size_t i = 0; i < ctl->nr_deleted; i++)
		free(ctl->deleted[i]);
	free(ctl->deleted);
	free(ctl);
}

void tui_ctl_note(struct tui_ctl *ctl, const struct notification *n)
{
	controller_note(ctl->c, n);
}

uint64_t tui_ctl_generation(const struct tui_ctl *ctl, const char *key)
{
	const struct story *s;

	if (!ctl)
		return 0;
	if (!key)
		return ctl->generation;
	s = hashmap_get(&ctl->stories, key);
	return s ? s->generation : 0;
}

void tui_ctl_tabs_advance(struct tui *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		struct tui_ctl *ctl = t->tabs[i].ctl;
		uint64_t before = ctl ? ctl->generation : 0;
		if (!ctl)
			continue;
		controller_advance(ctl->c);
		t->dirty |= ctl->generation != before;	/* a record came */
	}
}

int64_t tui_ctl_tabs_wait_ms(struct tui *t)
{
	int64_t wait = -1;

	for (size_t i = 0; i < t->nr; i++) {
		int64_t w = t->tabs[i].ctl ? controller_wait_ms(t->tabs[i].ctl->c) : -1;
		if (w >= 0 && (wait < 0 || w < wait))
			wait = w;
	}
	return wait;
}

void tui_ctl_expire(struct tui_ctl *ctl, const struct model *m)
{
	size_t kept = 0;

	for (size_t i = 0; i < ctl->nr_deleted; i++) {
		struct story *s = hashmap_get(&ctl->stories, ctl->deleted[i]);
		struct ctl_key_info info;
		/* Created again, still shown, or still the controller's business: later. */
		bool keep = s && s->deleted && (model_row(m, s->key) ||
			    (controller_key_info(ctl->c, s->key, &info) &&
			     (info.running || info.queued)));
		if (keep) {
			ctl->deleted[kept++] = ctl->deleted[i];
			continue;
		}
		if (s && s->deleted) {
			hashmap_remove(&ctl->stories, s->key, NULL);
			story_free(s);
		}
		free(ctl->deleted[i]);
	}
	ctl->nr_deleted = kept;
}

/* ---- the story of a delta -------------------------------------------------- */

/*
 * The fate of history entry i: the k-th newest fate with its RV and
 * delta type, k being how many entries after i share them (a resync's
 * Sync deltas repeat an RV).
 */
static const struct fate *fate_of(const struct story *s, const struct row *r, size_t i)
{
	struct hist_entry hbuf, obuf;
	const struct hist_entry *h = row_hist_at(r, i, &hbuf);
	const char *delta = delta_type_name(h->type);
	size_t later = 0;

	for (size_t j = i + 1; j < row_hist_nr(r); j++) {
		const struct hist_entry *o = row_hist_at(r, j, &obuf);
		later += o->type == h->type && !strcmp(o->rv, h->rv);
	}
	for (size_t j = s->nr; j-- > 0;) {
		const struct fate *f = fate_at(s, j);
		if (strcmp(f->rv, h->rv) || strcmp(f->delta, delta))
			continue;
		if (!later--)
			return f;
	}
	return NULL;
}

bool tui_ctl_fate(const struct tui *t, const struct tui_ctl *ctl, const struct row *r,
		  size_t i, char *buf, size_t size)
{
	const struct story *s = ctl ? hashmap_get(&ctl->stories, row_key_of(r)) : NULL;
	const struct fate *f = s ? fate_of(s, r, i) : NULL;
	const char *arrow = t->utf8 ? "→" : "->";

	if (!f)
		return false;
	if (f->what == FATE_FILTERED) {
		snprintf(buf, size, "filtered by %s", ctl->preds[f->pred]);
		return true;
	}
	const struct story *req = f->request ? hashmap_get(&ctl->stories, f->request) : s;
	const struct start_info *st = req ? start_at(req, f->start) : NULL;
	int n = snprintf(buf, size, "%s%s%s %s ", wq_add_name(f->how),
			 f->request ? " as " : "", f->request ? f->request : "", arrow);
	if (n < 0 || (size_t)n >= size)
		return true;
	if (st && st->rv[0])
		snprintf(buf + n, size - (size_t)n, "Reconcile #%u read rv %s%s", st->number,
			 st->rv, strcmp(st->rv, f->rv) && !f->request ? ": unseen" : "");
	else if (st)
		snprintf(buf + n, size - (size_t)n, "Reconcile #%u read nothing", st->number);
	else if (req && req->started > f->start)
		snprintf(buf + n, size - (size_t)n, "reconciled");
	else
		snprintf(buf + n, size - (size_t)n, "no Reconcile yet");
	return true;
}


bool tui_ctl_last(const struct tui_ctl *ctl, const char *key, struct tui_ctl_last *out)
{
	const struct story *s = ctl ? hashmap_get(&ctl->stories, key) : NULL;
	const struct start_info *st = s && s->started ? start_at(s, s->started - 1) : NULL;

	if (!st)
		return false;
	*out = (struct tui_ctl_last){
		.number = st->number, .rv = st->rv, .done = s->done, .unseen = s->unseen,
	};
	return true;
}

struct controller *tui_ctl_controller(const struct tui_ctl *ctl)
{
	return ctl->c;
}

/* tui_model.c — the TUI's picture of one resource; see tui_model.h. */
#include "tui/tui_model.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cluster/discovery.h"
#include "lib/hashmap.h"
#include "lib/selector.h"
#include "lib/util.h"

uint32_t model_row_hash(const struct idtable *t, uint32_t id)
{
	const struct model *m = (const void *)((const char *)t - offsetof(struct model, rows));

	return hashmap_hash(row_key_of(slab_at(m->row_slab, id)));
}

static bool row_is(uint32_t id, const void *key, void *model)
{
	const struct model *m = model;

	return !strcmp(row_key_of(slab_at(m->row_slab, id)), key);
}

void model_init(struct model *m, struct informer *inf)
{
	const struct api_resource *res = informer_resource(inf);

	memset(m, 0, sizeof(*m));
	m->inf = inf;
	m->name = res->name;
	m->group = res->group;
	m->kind = res->kind;
	m->namespaced = res->namespaced;
	m->hist_states = HIST_STATES;
	m->row_slab = xmalloc(sizeof(*m->row_slab));
	slab_init(m->row_slab, offsetof(struct row, kind_key));
	m->rows = (struct idtable)IDTABLE_REHASH_INIT(model_row_hash);
	m->log = xcalloc(LOG_MAX, sizeof(*m->log));
}

void model_row_keys(struct model *m, size_t nr)
{
	slab_release(m->row_slab);
	slab_init(m->row_slab, offsetof(struct row, kind_key) + nr * sizeof(uint16_t));
}

static void hist_slot_release(struct hist_slot *slot)
{
	if (slot->is_wide)
		free(slot->u.wide);
	slot->is_wide = false;
}

/* rv as the uint64 it spells in canonical decimal; false when it is not one. */
static bool rv_number(const char *rv, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!rv[0] || (rv[0] == '0' && rv[1]))
		return false;
	for (i = 0; rv[i]; i++) {
		unsigned digit = (unsigned)(rv[i] - '0');
		if (digit > 9 || v > (UINT64_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

/* Stores h in slot (released first by the caller when it held one). */
static void hist_pack(struct hist_slot *slot, const struct hist_entry *h)
{
	memset(slot, 0, sizeof(*slot));
	if (h->time_ms < 0 || h->time_ms / 1000 > UINT32_MAX || h->list_no > 4095 ||
	    h->source > 3 || h->type > 15 || !rv_number(h->rv, &slot->u.rv)) {
		slot->u.wide = xmalloc(sizeof(*h));
		*slot->u.wide = *h;
		slot->is_wide = true;
		return;
	}
	slot->time_s = (uint32_t)(h->time_ms / 1000);
	slot->msec = (unsigned)(h->time_ms % 1000);
	slot->type = h->type;
	slot->source = h->source;
	slot->tombstone = h->tombstone;
	slot->resync_only = h->resync_only;
	slot->replay = h->replay;
	slot->list_no = h->list_no;
}

static void hist_unpack(const struct hist_slot *slot, struct hist_entry *h)
{
	if (slot->is_wide) {
		*h = *slot->u.wide;
		return;
	}
	memset(h, 0, sizeof(*h));
	h->time_ms = (int64_t)slot->time_s * 1000 + slot->msec;
	h->type = (unsigned char)slot->type;
	h->source = (unsigned char)slot->source;
	h->tombstone = slot->tombstone;
	h->resync_only = slot->resync_only;
	h->replay = slot->replay;
	h->list_no = slot->list_no;
	snprintf(h->rv, sizeof(h->rv), "%" PRIu64, slot->u.rv);
}

/* The slots a block of nr entries has room for, its tail aside. */
static size_t hist_slot_room(size_t nr, bool tail)
{
	return nr >= HIST_MAX ? HIST_MAX : pow2_room(nr - tail);
}

static void hist_free(const struct row *r)
{
	struct row_hist *hb = r->hist;

	if (!hb)
		return;
	kobj_unref(hb->prev);
	for (size_t i = 0; hb->obj && i < hb->nr; i++)
		kobj_unref(hb->obj[i]);
	free(hb->obj);
	/* The stored entries only: the tail's place was never written. */
	for (size_t i = 0; i + hb->tail < hb->nr; i++)
		hist_slot_release(&hb->slot[(row_hist_first(r) + i) % HIST_MAX]);
	free(hb);
}

static void hist_account(struct model *m, const struct row *r, int sign);

static void row_free(struct model *m, struct row *r)
{
	hist_account(m, r, -1);
	kobj_unref(r->obj);
	hist_free(r);
	slab_free(m->row_slab, r);
}

void model_release(struct model *m)
{
	size_t iter = 0;
	struct row *r;

	while ((r = model_next_row(m, &iter)))
		row_free(m, r);
	idtable_release(&m->rows);
	if (m->row_slab)
		slab_release(m->row_slab);
	free(m->row_slab);
	model_log_clear(m);
	free(m->log);
	free(m->gone_q);
	if (m->mark_q)	/* mark_q_grow()'s mapping */
		munmap(m->mark_q, m->mark_alloc * sizeof(*m->mark_q));
	for (size_t i = 0; i < m->held_nr; i++)
		notification_release(&m->held[i]);
	free(m->held);
	memset(m, 0, sizeof(*m));
}

/* The row under key, whose hash is hash. */
static struct row *row_find(const struct model *m, const char *key, uint32_t hash)
{
	uint32_t id = idtable_find(&m->rows, hash, row_is, key, (void *)m);

	return id == IDTABLE_NONE ? NULL : slab_at(m->row_slab, id);
}

struct row *model_row(const struct model *m, const char *key)
{
	return row_find(m, key, hashmap_hash(key));
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
 * Whether h, a row's newest entry, reads back whole from the row: any
 * delta of the initial list or of a watch, but a tombstone's, at a time
 * the row's 32-bit seconds hold (1970-2106).
 */
static bool hist_can_be_tail(const struct hist_entry *h)
{
	return !h->list_no && !h->tombstone && h->source <= HIST_TAIL_SOURCE &&
	       h->time_ms >= 0 && h->time_ms / 1000 <= UINT32_MAX;
}

/* Makes r's block hold nr entries, the newest a tail or not: its slots'
 * room follows (hist_slot_room()); a new block is zeroed. */
static struct row_hist *hist_shape(struct row *r, size_t nr, bool tail)
{
	struct row_hist *hb = r->hist;
	size_t room = hist_slot_room(nr, tail);

	if (!hb || room != hist_slot_room(hb->nr, hb->tail)) {
		hb = xrealloc(hb, sizeof(*hb) + room * sizeof(hb->slot[0]));
		if (!r->hist)
			memset(hb, 0, sizeof(*hb));
		r->hist = hb;
	}
	hb->nr = (uint8_t)nr;
	hb->tail = tail;
	return hb;
}

/*
 * Most objects see one or two deltas: the history grows by doubling up to
 * HIST_MAX and only then turns into a ring, so 100,000 quiet objects do
 * not each carry room for HIST_MAX; and its newest entry is read back
 * from the row (a tail) when it can be: a new row with no state kept has
 * no block at all.  A row that is not new has a block with no tail here
 * (row_hist_store() stored it).
 */
static void row_push_hist(struct row *r, const struct hist_entry *h,
			  struct kobj *obj, unsigned states, bool fresh)
{
	bool tail = hist_can_be_tail(h);
	struct row_hist *hb;
	size_t at;

	if (tail)
		r->hist_tail = (unsigned char)(h->source | (h->resync_only ? HIST_TAIL_RESYNC_ONLY : 0) |
					       (h->replay ? HIST_TAIL_REPLAY : 0));
	if (fresh && tail && !states)
		return;		/* no block: one entry, the tail */
	if (fresh)
		hist_shape(r, 0, false);
	hb = r->hist;
	if (hb->nr < HIST_MAX) {
		size_t room = pow2_room(hb->nr);
		/* With no states kept (--history 0), no room for them. */
		if (states && hb->nr == room)
			hb->obj = xrealloc(hb->obj, (room ? room * 2 : 1) * sizeof(*hb->obj));
		at = hb->nr;	/* row_hist_first() stays 0 until full */
		hb = hist_shape(r, hb->nr + 1u, tail);
	} else {
		at = row_hist_first(r);
		if (hb->obj)
			kobj_unref(hb->obj[at]);
		hist_slot_release(&hb->slot[at]);
		hb->tail = tail;
		hb->first = (uint8_t)((at + 1) % HIST_MAX);
	}
	if (!tail)
		hist_pack(&hb->slot[at], h);
	hb->total++;
	if (!hb->obj)
		return;
	hb->obj[at] = states ? kobj_ref(obj) : NULL;
	/* Only the newest `states` entries hold their object. */
	if (hb->nr > states) {
		size_t drop = (row_hist_first(r) + hb->nr - 1 - states) % HIST_MAX;
		kobj_unref(hb->obj[drop]);
		hb->obj[drop] = NULL;
	}
}

const struct hist_entry *row_hist_at(const struct row *r, size_t i, struct hist_entry *buf)
{
	if (r->hist && !(r->hist->tail && i + 1 == r->hist->nr)) {
		hist_unpack(&r->hist->slot[(row_hist_first(r) + i) % HIST_MAX], buf);
		return buf;
	}
	memset(buf, 0, sizeof(*buf));
	buf->time_ms = row_last_ms(r);
	buf->type = (unsigned char)r->last_type;
	buf->source = r->hist_tail & HIST_TAIL_SOURCE;
	buf->resync_only = r->hist_tail & HIST_TAIL_RESYNC_ONLY;
	buf->replay = r->hist_tail & HIST_TAIL_REPLAY;
	snprintf(buf->rv, sizeof(buf->rv), "%s", r->obj->rv);
	return buf;
}

/* Stores r's tail entry, before the row's fields it is read from change. */
static void row_hist_store(struct row *r)
{
	struct hist_entry tail;
	size_t nr = row_hist_nr(r);

	if (r->hist && !r->hist->tail)
		return;
	tail = *row_hist_at(r, nr - 1, &tail);	/* made while it is the tail */
	if (!r->hist) {
		hist_shape(r, 1, false);
		r->hist->total = 1;
	} else {
		hist_shape(r, nr, false);
	}
	hist_pack(&r->hist->slot[(row_hist_first(r) + nr - 1) % HIST_MAX], &tail);
}

struct kobj *row_hist_obj(const struct row *r, size_t i)
{
	return r->hist && r->hist->obj ? r->hist->obj[(row_hist_first(r) + i) % HIST_MAX] : NULL;
}

/* ---- the histories' budget ------------------------------------------------ */

/* Whether one of r's history entries holds obj as its state. */
static bool hist_holds(const struct row *r, const struct kobj *obj)
{
	for (size_t i = 0; i < row_hist_nr(r); i++)
		if (row_hist_obj(r, i) == obj)
			return true;
	return false;
}

size_t row_hist_bytes(const struct row *r, size_t *state_bytes)
{
	const struct row_hist *hb = r->hist;
	const struct kobj *last = NULL;
	size_t bytes, ignored;

	if (!state_bytes)
		state_bytes = &ignored;
	*state_bytes = 0;
	if (!hb)
		return 0;
	bytes = sizeof(*hb) + hist_slot_room(hb->nr, hb->tail) * sizeof(hb->slot[0]);
	for (size_t i = 0; i + hb->tail < hb->nr; i++)
		if (hb->slot[(row_hist_first(r) + i) % HIST_MAX].is_wide)
			bytes += sizeof(struct hist_entry);
	if (hb->obj)
		bytes += pow2_room(hb->nr) * sizeof(*hb->obj);
	for (size_t i = 0; hb->obj && i < hb->nr; i++) {
		const struct kobj *o = row_hist_obj(r, i);
		/* The entries of a resync or an unchanged relist share a state. */
		if (o && o != r->obj && o != last)
			*state_bytes += kobj_bytes(o);
		last = o ? o : last;
	}
	if (hb->prev && hb->prev != r->obj && !hist_holds(r, hb->prev))
		*state_bytes += kobj_bytes(hb->prev);
	return bytes + *state_bytes;
}

/* Counts r's history in (sign 1) or out of (-1) m's and its budget's bytes. */
static void hist_account(struct model *m, const struct row *r, int sign)
{
	size_t state_bytes, bytes;

	if (!m->budget || !r->hist)
		return;
	bytes = row_hist_bytes(r, &state_bytes);
	if (sign > 0) {
		m->budget->used += bytes;
		m->hist_bytes += bytes;
		m->hist_state_bytes += state_bytes;
	} else {
		m->budget->used -= bytes;
		m->hist_bytes -= bytes;
		m->hist_state_bytes -= state_bytes;
	}
}

/* Lets go of r's oldest past state (every reference r's history holds to
 * it); false when it keeps none. */
static bool hist_drop_state(struct row *r)
{
	struct row_hist *hb = r->hist;
	struct kobj *o = NULL;

	for (size_t i = 0; hb->obj && i < hb->nr && !o; i++) {
		struct kobj *x = row_hist_obj(r, i);
		if (x && x != r->obj)
			o = x;
	}
	if (!o && hb->prev && hb->prev != r->obj)
		o = hb->prev;
	if (!o)
		return false;
	for (size_t i = 0; hb->obj && i < hb->nr; i++) {
		struct kobj **x = &hb->obj[(row_hist_first(r) + i) % HIST_MAX];
		if (*x == o) {
			kobj_unref(o);
			*x = NULL;
		}
	}
	if (hb->prev == o) {
		kobj_unref(o);
		hb->prev = NULL;
	}
	return true;
}

/*
 * Lets go of r's oldest entries (and their states), keeping the newest
 * half, at least the newest one; the rest move down to slot 0, the block
 * and its states' room shrink to fit.  False when it has one entry.
 */
static bool hist_drop_entries(struct row *r)
{
	struct row_hist *hb = r->hist;
	struct hist_slot keep[HIST_MAX];
	struct kobj *keep_obj[HIST_MAX];
	size_t nr = hb->nr, drop = nr / 2, first = row_hist_first(r);
	bool tail = hb->tail, states = hb->obj != NULL;

	if (nr < 2)
		return false;
	for (size_t i = 0; i < nr; i++) {
		size_t at = (first + i) % HIST_MAX;
		bool stored = i + tail < nr;
		if (i < drop) {
			if (stored)
				hist_slot_release(&hb->slot[at]);
			if (states)
				kobj_unref(hb->obj[at]);
			continue;
		}
		if (stored)
			keep[i - drop] = hb->slot[at];
		if (states)
			keep_obj[i - drop] = hb->obj[at];
	}
	hb = hist_shape(r, nr - drop, tail);
	hb->first = 0;
	memcpy(hb->slot, keep, (hb->nr - tail) * sizeof(keep[0]));
	if (states) {
		hb->obj = xrealloc(hb->obj, pow2_room(hb->nr) * sizeof(*hb->obj));
		memcpy(hb->obj, keep_obj, hb->nr * sizeof(keep_obj[0]));
	}
	return true;
}

/* Lets go of r's oldest history (see model_hist_trim()); false: nothing. */
static bool hist_trim_row(struct model *m, struct row *r)
{
	bool states_first = m->hist_state_bytes > m->hist_bytes - m->hist_state_bytes;
	bool done;

	if (!r->hist)
		return false;
	hist_account(m, r, -1);
	if (states_first)
		done = hist_drop_state(r) || hist_drop_entries(r);
	else
		done = hist_drop_entries(r) || hist_drop_state(r);
	hist_account(m, r, 1);
	return done;
}

void model_hist_trim(struct model *m)
{
	struct hist_budget *b = m->budget;
	size_t idle = 0, turn = idtable_len(&m->rows) + 1;

	if (!b || b->used <= b->limit || !m->hist_bytes)
		return;
	if (m->hist_stuck && b->used <= m->hist_stuck + b->limit / 8)
		return;		/* nothing was left to let go of an eighth ago */
	m->hist_stuck = 0;
	while (b->used > HIST_TRIM_LOW(b->limit) && idle <= turn) {
		struct row *r = model_next_row(m, &m->hist_sweep);
		if (!r)
			m->hist_sweep = 0;
		if (r && hist_trim_row(m, r))
			idle = 0;
		else
			idle++;
	}
	if (b->used > b->limit)
		m->hist_stuck = b->used;
}

static void group_free_items(struct model *m, struct log_group *g)
{
	for (size_t i = 0; i < g->nr; i++)
		free(g->items[i].key);
	free(g->items);
	m->group_kept -= g->nr;
	g->items = NULL;
	g->nr = g->alloc = 0;
}

static void entry_free(struct model *m, struct log_entry *e)
{
	free(e->text);
	if (e->group) {
		group_free_items(m, e->group);
		free(e->group);
	}
}

static struct log_entry *log_append(struct model *m)
{
	struct log_entry *e;

	if (m->log_nr < LOG_MAX) {
		e = &m->log[(m->log_first + m->log_nr) % LOG_MAX];
		m->log_nr++;
	} else {
		e = &m->log[m->log_first];
		entry_free(m, e);
		m->log_first = (m->log_first + 1) % LOG_MAX;
	}
	memset(e, 0, sizeof(*e));
	e->seq = ++m->log_total;
	return e;
}

const struct log_entry *model_log_at(const struct model *m, size_t i)
{
	return &m->log[(m->log_first + i) % LOG_MAX];
}

struct log_entry *model_log_seq(const struct model *m, uint64_t seq)
{
	if (!m->log_nr)
		return NULL;
	uint64_t first = m->log[m->log_first].seq;
	if (seq < first || seq >= first + m->log_nr)
		return NULL;
	return &m->log[(m->log_first + (size_t)(seq - first)) % LOG_MAX];
}

void model_log_clear(struct model *m)
{
	for (size_t i = 0; i < m->log_nr; i++)
		entry_free(m, &m->log[(m->log_first + i) % LOG_MAX]);
	m->log_nr = 0;
	m->log_first = 0;
	m->open_group = 0;
	m->log_changes++;
}

void model_group_toggle(struct model *m, struct log_entry *e)
{
	if (e->group) {
		e->group->expanded = !e->group->expanded;
		m->log_changes++;
	}
}

/* An update that changed nothing: a resync's, or a relist's of the same RV. */
static bool unchanged(const struct notification *n)
{
	if (n->kind != NOTIFY_UPDATE)
		return false;
	if (n->resync_only)
		return true;
	return (n->delta.type == DELTA_REPLACED || n->delta.type == DELTA_REPLACED_ALL) &&
	       n->old && !strcmp(n->old->rv, n->delta.obj->rv);
}

static void group_label(const struct hist_entry *h, char *buf, size_t size)
{
	if (h->type == DELTA_SYNC || h->type == DELTA_SYNC_ALL || h->source == SOURCE_RESYNC)
		snprintf(buf, size, "resync");
	else if (h->source == SOURCE_LIST && h->list_no)
		snprintf(buf, size, "relist #%u", h->list_no);
	else if (h->source == SOURCE_LIST)
		snprintf(buf, size, "initial list");
	else
		snprintf(buf, size, "watch");
}

/* Makes room for more kept deltas by dropping the oldest groups' lists. */
static void group_make_room(struct model *m, struct log_group *keep)
{
	for (size_t i = 0; i < m->log_nr && m->group_kept >= GROUP_KEPT_MAX; i++) {
		struct log_entry *e = &m->log[(m->log_first + i) % LOG_MAX];
		if (e->group && e->group != keep && e->group->nr) {
			group_free_items(m, e->group);
			m->log_changes++;
		}
	}
}

/*
 * Folds an unchanged delta into the open group of its relist (or of a
 * resync: one whose last delta came within a second), or opens one.
 */
static void log_unchanged(struct model *m, const struct hist_entry *h, const char *key)
{
	char label[32];
	struct log_entry *e = m->open_group ? model_log_seq(m, m->open_group) : NULL;
	struct log_group *g = e ? e->group : NULL;

	group_label(h, label, sizeof(label));
	bool same = g && !strcmp(g->label, label) &&
		    (h->source == SOURCE_LIST || h->time_ms - g->last_ms < 1000);
	if (!same) {
		e = log_append(m);
		e->kind = LOG_GROUP;
		e->time_ms = h->time_ms;
		e->group = g = xcalloc(1, sizeof(*g));
		snprintf(g->label, sizeof(g->label), "%s", label);
		m->open_group = e->seq;
	}
	g->count++;
	g->last_ms = h->time_ms;
	if (g->nr < GROUP_KEEP) {
		if (m->group_kept >= GROUP_KEPT_MAX)
			group_make_room(m, g);
		if (m->group_kept < GROUP_KEPT_MAX) {
			ALLOC_GROW(g->items, g->nr + 1, g->alloc);
			g->items[g->nr].d = *h;
			g->items[g->nr++].key = xstrdup(key);
			m->group_kept++;
		}
	}
	/* The group's line may now match a filter it did not. */
	m->log_changes++;
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
		e->text = xasprintf("%s: disconnected %.1f s: %zu listed, %zu added, %zu changed, "
				    "%zu unchanged, %zu deleted", what,
				    a->replace.disconnected_ms / 1000.0, a->replace.listed,
				    a->replace.added, a->replace.changed,
				    a->replace.unchanged, a->replace.deleted);
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

/* Sets r's time of its last delta (wall ms; kept in 32-bit seconds: 2106). */
static void row_set_last(struct row *r, int64_t wall)
{
	if (wall < 0)
		wall = 0;
	if (wall / 1000 > UINT32_MAX)
		wall = (int64_t)UINT32_MAX * 1000;
	r->last_s = (uint32_t)(wall / 1000);
	r->last_msec = (unsigned)(wall % 1000);
}

/* Queues r, just deleted, for model_expire(). */
static void gone_push(struct model *m, struct row *r)
{
	if (m->gone_head > 1024 && m->gone_head * 2 > m->gone_nr) {
		m->gone_nr -= m->gone_head;
		memmove(m->gone_q, m->gone_q + m->gone_head, m->gone_nr * sizeof(*m->gone_q));
		m->gone_head = 0;
	}
	ALLOC_GROW(m->gone_q, m->gone_nr + 1, m->gone_alloc);
	m->gone_q[m->gone_nr++] = (struct gone_entry){ r, r->version, mono_ms() };
}

#define MARK_Q_KEEP 4096	/* mark_q's least room, kept once it is empty */

/*
 * mark_q's room is a mapping of its own, not malloc's: the first list
 * marks a whole cache's rows for a few seconds, and malloc would keep
 * those pages once freed (2 MB at 100,000 rows, measured in the TUI's
 * RSS), where a mapping shrunk gives them back (model_marks_expire()).
 */
static void mark_q_grow(struct model *m)
{
	size_t size = m->mark_alloc * sizeof(*m->mark_q);
	size_t room = m->mark_alloc ? m->mark_alloc * 2 : MARK_Q_KEEP;
	void *p = m->mark_q ?
		  mremap(m->mark_q, size, room * sizeof(*m->mark_q), MREMAP_MAYMOVE) :
		  mmap(NULL, room * sizeof(*m->mark_q), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		out_of_memory(room * sizeof(*m->mark_q));
	m->mark_q = p;
	m->mark_alloc = room;
}

void model_marks_expire(struct model *m, int64_t now_mono)
{
	while (m->mark_head < m->mark_nr && now_mono / 100 - m->mark_q[m->mark_head].ds >=
	       CHANGED_MARK_MS / 100)
		m->mark_q[m->mark_head++].row->marks--;
	/*
	 * The first list marks every row at once, and the changes that
	 * follow keep the queue from emptying: room four times what is live
	 * is given back, down to MARK_Q_KEEP.
	 */
	size_t live = m->mark_nr - m->mark_head, room = m->mark_alloc;
	if (live * 4 > room || room <= MARK_Q_KEEP)
		return;
	while (live * 4 <= room && room > MARK_Q_KEEP)
		room /= 2;
	memmove(m->mark_q, m->mark_q + m->mark_head, live * sizeof(*m->mark_q));
	m->mark_head = 0;
	m->mark_nr = live;
	/* Shrunk in place: the pages past room go back. */
	if (mremap(m->mark_q, m->mark_alloc * sizeof(*m->mark_q), room * sizeof(*m->mark_q), 0) ==
	    MAP_FAILED)
		return;
	m->mark_alloc = room;
}

/* Marks r "just changed" for CHANGED_MARK_MS from now_mono. */
static void mark_push(struct model *m, struct row *r, int64_t now_mono)
{
	model_marks_expire(m, now_mono);
	/* So many changes of one object in so short a time: the mark lasts
	 * while its earlier ones do. */
	if (r->marks == (1u << MARKS_BITS) - 1)
		return;
	if (m->mark_head > 1024 && m->mark_head * 2 > m->mark_nr) {
		m->mark_nr -= m->mark_head;
		memmove(m->mark_q, m->mark_q + m->mark_head, m->mark_nr * sizeof(*m->mark_q));
		m->mark_head = 0;
	}
	if (m->mark_nr == m->mark_alloc)
		mark_q_grow(m);
	m->mark_q[m->mark_nr++] = (struct mark_entry){ r, now_mono / 100 };
	r->marks++;
}

void model_apply(struct model *m, struct notification *n)
{
	struct kobj *obj = n->delta.obj;

	if (n->kind == NOTIFY_ACTIVITY) {
		/* Bookmarks are frequent and say little: the health pane counts them. */
		if (n->activity->act != ACT_BOOKMARK && n->activity->act != ACT_LIST_PAGE)
			log_activity(m, n->activity);
		notification_release(n);
		return;
	}
	if (!obj) {
		notification_release(n);
		return;
	}

	struct hist_entry h;
	hist_from_delta(&h, n);

	if (unchanged(n)) {
		log_unchanged(m, &h, obj->key);
	} else {
		struct log_entry *e = log_append(m);
		e->kind = LOG_DELTA;
		e->time_ms = h.time_ms;
		e->d = h;
		e->text = xstrdup(obj->key);
	}

	uint32_t hash = hashmap_hash(obj->key);
	struct row *r = row_find(m, obj->key, hash);
	bool fresh = false;
	if (r) {
		hist_account(m, r, -1);	/* counted again once changed */
		row_hist_store(r);	/* a tail entry reads from what changes now */
	}
	if (!r) {
		if (n->kind == NOTIFY_DELETE) {
			notification_release(n);
			return;
		}
		r = slab_alloc(m->row_slab);
		r->obj = kobj_ref(obj);
		idtable_insert(&m->rows, hash, slab_id(m->row_slab, r));
		fresh = true;
		m->present++;
	} else if (r->gone && n->kind != NOTIFY_DELETE) {
		r->gone = false;
		r->tombstone = false;
		m->gone--;
		m->present++;
	}

	if (n->kind == NOTIFY_DELETE) {
		if (!r->gone) {
			r->gone = true;
			m->gone++;
			m->present--;
		}
		r->tombstone = n->delta.tombstone;
	}
	/* The set's key moves to the new object's, an equal string. */
	swap_obj(&r->obj, obj);
	r->last_type = n->delta.type;
	row_set_last(r, h.time_ms);
	/* An unchanged object (resync, relist of the same RV) is no change. */
	if (!n->resync_only)
		mark_push(m, r, mono_ms());
	r->version++;
	if (n->kind == NOTIFY_DELETE)
		gone_push(m, r);
	row_push_hist(r, &h, r->obj, m->hist_states, fresh);
	/*
	 * With --history 0 no past state is kept, not even this one: the
	 * cache has let it go, and under churn the rows' prev would grow into
	 * a second copy of the cache.  With states kept, the row has its
	 * history block by now.
	 */
	if (n->kind == NOTIFY_UPDATE && n->old && m->hist_states && strcmp(n->old->rv, obj->rv))
		swap_obj(&r->hist->prev, n->old);
	hist_account(m, r, 1);
	model_hist_trim(m);
	if (m->row_hook)
		m->row_hook(m, r, false);
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

	/*
	 * First: no row is freed with an entry in mark_q.  Its delete marked
	 * it, and a mark is due before the row is (GONE_SHOW_MS); any change
	 * since would have made it present again.
	 */
	model_marks_expire(m, now_mono);

	while (m->gone_head < m->gone_nr) {
		struct gone_entry *e = &m->gone_q[m->gone_head];
		struct row *r = e->row;
		if (r->version != e->version || !r->gone) {
			m->gone_head++;	/* changed since: a later entry, or none, stands for it */
			continue;
		}
		/* Deletes come in time order: the rest are not due either. */
		if (now_mono - e->since < GONE_SHOW_MS)
			break;
		m->gone_head++;
		if (m->row_hook)
			m->row_hook(m, r, true);
		idtable_remove(&m->rows, hashmap_hash(row_key_of(r)), row_is, row_key_of(r), m);
		row_free(m, r);
		m->gone--;
		freed = true;
	}
	if (m->gone_head == m->gone_nr)
		m->gone_head = m->gone_nr = 0;
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

int filter_set(struct filter *f, const char *text, struct errbuf *err)
{
	struct filter nf;

	memset(&nf, 0, sizeof(nf));
	snprintf(nf.text, sizeof(nf.text), "%s", text);
	if (str_starts_with(text, "l:")) {
		if (!(nf.sel = selector_parse(text + 2, err)))
			return -1;
	} else if (*text) {
		int rc = regcomp(&nf.re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
		if (rc) {
			char msg[256];
			regerror(rc, &nf.re, msg, sizeof(msg));
			for (char *p = msg; *p; p++)
				*p = (char)tolower((unsigned char)*p);
			errbuf_set(err, "invalid regex '%s': %s", text, msg);
			return -1;
		}
		nf.regex = true;
		nf.literal = true;
		for (const char *p = text; *p && nf.literal; p++)
			nf.literal = (unsigned char)*p < 0x80 && !strchr("\\^$.[]|()*+?{}", *p);
	}
	filter_clear(f);
	*f = nf;
	return 0;
}

void filter_clear(struct filter *f)
{
	if (f->regex)
		regfree(&f->re);
	selector_free(f->sel);
	memset(f, 0, sizeof(*f));
}

bool filter_match_key(const struct filter *f, const char *key)
{
	if (f->literal)
		return strcasestr(key, f->text) != NULL;
	if (f->regex)
		return regexec(&f->re, key, 0, NULL, 0) == 0;
	return true;
}

bool filter_match_row(const struct filter *f, const struct row *r)
{
	if (f->sel)
		return selector_matches(f->sel, r->obj ? r->obj->labels : "");
	return filter_match_key(f, row_key_of(r));
}

void hist_describe(const struct hist_entry *h, char *buf, size_t size)
{
	const char *tomb = h->tombstone ? ", tombstone" : "";

	if (h->replay)
		snprintf(buf, size, "replay");
	else if (h->type == DELTA_SYNC || h->type == DELTA_SYNC_ALL || h->source == SOURCE_RESYNC)
		snprintf(buf, size, "resync");
	else if (h->source == SOURCE_LIST && h->list_no == 0)
		snprintf(buf, size, "initial list%s", tomb);
	else if (h->source == SOURCE_LIST)
		snprintf(buf, size, "relist %u%s%s", h->list_no, tomb,
			 h->resync_only ? ", unchanged" : "");
	else
		snprintf(buf, size, "watch%s", tomb);
}

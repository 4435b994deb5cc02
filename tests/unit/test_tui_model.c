/*
 * test_tui_model.c — the TUI's picture of a resource: rows follow the
 * notifications (gone rows stay, then go), histories and the log are
 * bounded rings, pause holds notifications, the filter's two forms, a
 * relist's unchanged objects folded into one log line.
 */
#include <stdio.h>
#include <string.h>

#include "model_fake.h"
#include "tui/tui_model.h"
#include "unit.h"

/* Where row_hist_at() may make an entry it does not store. */
static struct hist_entry hbuf;

static struct kobj *pod(const char *name, const char *rv, const char *labels)
{
	char *json = xasprintf("{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
			       "\"resourceVersion\":\"%s\",\"labels\":{%s}}}",
			       name, rv, labels ? labels : "");
	struct errbuf err;
	struct kobj *obj = kobj_from_json(json, strlen(json), 0, &err);
	free(json);
	return obj;
}

/* Makes a notification holding its own references, as a listener's does. */
static struct notification note(enum notify_kind kind, enum delta_type type,
				struct kobj *obj, struct kobj *old)
{
	struct notification n;
	memset(&n, 0, sizeof(n));
	n.kind = kind;
	n.delta.type = type;
	n.delta.source = SOURCE_WATCH;
	n.delta.obj = obj;
	n.delta.time_ms = wall_ms();
	n.old = old;
	n.resource = "pods";
	return n;
}

TEST(rows_follow_add_update_delete)
{
	struct model m;
	model_fake(&m);
	struct kobj *a1 = pod("a", "1", NULL), *a2 = pod("a", "2", NULL);

	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, kobj_ref(a1), NULL);
	model_apply(&m, &n);
	CHECK_INT(m.present, 1);
	struct row *r = model_row(&m, "default/a");
	CHECK(r != NULL);
	CHECK_INT(r->last_type, DELTA_ADDED);
	CHECK(row_prev(r) == NULL);

	n = note(NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(a2), kobj_ref(a1));
	model_apply(&m, &n);
	CHECK(r->obj == a2);
	CHECK(row_prev(r) == a1);	/* kept for the detail's diff */
	CHECK_INT(row_hist_nr(r), 2);
	CHECK_STR(row_hist_at(r, 1, &hbuf)->rv, "2");

	int64_t before = mono_ms();
	n = note(NOTIFY_DELETE, DELTA_DELETED, kobj_ref(a2), NULL);
	model_apply(&m, &n);
	int64_t after = mono_ms();
	CHECK_INT(m.present, 0);
	CHECK_INT(m.gone, 1);
	CHECK(r->gone);
	CHECK_INT(m.log_nr, 3);

	/* Gone rows stay GONE_SHOW_MS, then go. */
	CHECK(!model_expire(&m, before + GONE_SHOW_MS - 1));
	CHECK(model_row(&m, "default/a") != NULL);
	CHECK(model_expire(&m, after + GONE_SHOW_MS));
	CHECK(model_row(&m, "default/a") == NULL);
	CHECK_INT(m.gone, 0);

	kobj_unref(a1);
	kobj_unref(a2);
	model_release(&m);
}

/*
 * A row borrows its object's key, for itself and for the map: each delta
 * points both at the new object's, so that the old one can go.
 */
/*
 * A model moves when the TUI's array of tabs grows (`:`): its rows are
 * still found, and still added, from the new place, with the old one
 * overwritten as a realloc leaves it.
 */
TEST(a_moved_model_finds_and_adds_its_rows)
{
	static struct model a, b;
	char name[16];
	size_t missing = 0;

	model_fake(&a);
	for (int i = 0; i < 700; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		struct notification n = note(NOTIFY_ADD, DELTA_ADDED, pod(name, "1", NULL), NULL);
		model_apply(&a, &n);
	}
	b = a;
	memset(&a, 0xa5, sizeof(a));
	for (int i = 700; i < 1400; i++) {	/* the rows' set grows, rehashing every key */
		snprintf(name, sizeof(name), "p%d", i);
		struct notification n = note(NOTIFY_ADD, DELTA_ADDED, pod(name, "1", NULL), NULL);
		model_apply(&b, &n);
	}
	for (int i = 0; i < 1400; i++) {
		char key[32];
		snprintf(key, sizeof(key), "default/p%d", i);
		missing += model_row(&b, key) == NULL;
	}
	CHECK_INT(missing, 0);
	CHECK_INT(model_row_count(&b), 1400);
	model_release(&b);
}

TEST(a_row_keys_by_its_current_object)
{
	struct model m;
	model_fake(&m);
	struct kobj *a1 = pod("a", "1", NULL), *a2 = pod("a", "2", NULL);

	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, a1, NULL);
	model_apply(&m, &n);
	n = note(NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(a2), NULL);
	model_apply(&m, &n);	/* a1's last reference went with its row's */
	struct row *r = model_row(&m, "default/a");
	CHECK(r != NULL);
	CHECK(row_key_of(r) == a2->key);
	CHECK(row_prev(r) == NULL);	/* no old object given */
	kobj_unref(a2);
	model_release(&m);
}

/* --history 0: no state kept, not even the one an update replaced. */
TEST(history_0_keeps_no_previous_state)
{
	struct model m;
	model_fake(&m);
	m.hist_states = 0;
	struct kobj *a1 = pod("a", "1", NULL), *a2 = pod("a", "2", NULL);

	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, kobj_ref(a1), NULL);
	model_apply(&m, &n);
	n = note(NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(a2), kobj_ref(a1));
	model_apply(&m, &n);
	struct row *r = model_row(&m, "default/a");
	CHECK(r->obj == a2);
	CHECK(row_prev(r) == NULL);
	CHECK(r->hist->obj == NULL);
	CHECK_INT(row_hist_nr(r), 2);
	kobj_unref(a1);
	kobj_unref(a2);
	model_release(&m);
}

/* The entry a notification makes, as model_apply() makes it. */
static void hist_from_note(struct hist_entry *h, const struct notification *n, const char *rv)
{
	memset(h, 0, sizeof(*h));
	h->time_ms = n->delta.time_ms;
	snprintf(h->rv, sizeof(h->rv), "%s", rv);
	h->list_no = n->delta.list_no;
	h->type = (unsigned char)n->delta.type;
	h->source = (unsigned char)n->delta.source;
	h->tombstone = n->delta.tombstone;
	h->resync_only = n->resync_only;
}

/*
 * A quiet row (one delta) with --history 0 has no history block, and a row
 * is 88 bytes: what 100,000 of them cost is issue 28's memory target.  Its
 * cells know what they were made of.
 */
TEST(a_quiet_row_has_no_history_block)
{
	struct model m;
	model_fake(&m);
	m.hist_states = 0;
	struct kobj *a1 = pod("a", "1", NULL), *a2 = pod("a", "2", NULL);

	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, kobj_ref(a1), NULL);
	model_apply(&m, &n);
	struct row *r = model_row(&m, "default/a");
	CHECK(r->hist == NULL);
	CHECK_INT(row_hist_nr(r), 1);
	CHECK_INT(row_hist_total(r), 1);
	CHECK(row_prev(r) == NULL && row_hist_obj(r, 0) == NULL);
	CHECK_STR(row_key_of(r), "default/a");
	n = note(NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(a2), kobj_ref(a1));
	model_apply(&m, &n);
	/* Two deltas: the first stored, the second the tail, read back. */
	CHECK(r->hist != NULL && r->hist->obj == NULL && r->hist->tail);
	CHECK_INT(row_hist_total(r), 2);
	CHECK_STR(row_hist_at(r, 0, &hbuf)->rv, "1");
	CHECK_STR(row_hist_at(r, 1, &hbuf)->rv, "2");
	CHECK_INT(r->hist->slot[0].u.rv, 1);
	CHECK(!r->hist->slot[0].is_wide);
	CHECKF(sizeof(void *) != 8 || offsetof(struct row, kind_key) == 60,
	       "a row takes %zu bytes before its kind's keys", offsetof(struct row, kind_key));
	kobj_unref(a1);
	kobj_unref(a2);
	model_release(&m);

	/* A pod's row, its five kept columns with it: 72 bytes in the slab. */
	model_fake(&m);
	model_row_keys(&m, 5);
	CHECK(sizeof(void *) != 8 || m.row_slab->size == 72);
	model_release(&m);
}

/*
 * Every entry of a row's history reads back as it came, whether it was
 * read back from the row while it was the newest (a tail: most deltas) or
 * stored at once (a relist's, a tombstone's), through the growth and many
 * turns of the ring, with and without states kept.
 */
TEST(every_entry_reads_back_with_tails_through_the_ring)
{
	for (unsigned states = 0; states <= 2; states += 2) {
		struct model m;
		struct hist_entry want[5 * HIST_MAX];
		size_t wrong = 0, tails = 0, stored = 0;

		model_fake(&m);
		m.hist_states = states;
		for (size_t i = 0; i < 5 * HIST_MAX; i++) {
			char rv[16];
			snprintf(rv, sizeof(rv), "%zu", 100 + i);
			struct notification n = note(i ? NOTIFY_UPDATE : NOTIFY_ADD,
						     i ? DELTA_UPDATED : DELTA_ADDED,
						     pod("a", rv, NULL), NULL);
			n.delta.time_ms = 1700000000000LL + 7 * (int64_t)i;
			n.delta.source = i % 3 ? SOURCE_WATCH : SOURCE_LIST;
			n.delta.list_no = i % 5 == 4 ? 2 : 0;	/* stored at once */
			n.delta.tombstone = i % 13 == 6;
			n.resync_only = i % 7 == 1;
			model_apply(&m, &n);
			hist_from_note(&want[i], &n, rv);

			struct row *r = model_row(&m, "default/a");
			size_t nr = row_hist_nr(r);
			tails += r->hist ? r->hist->tail : 1;
			stored += r->hist && !r->hist->tail;
			wrong += nr != (i + 1 < HIST_MAX ? i + 1 : HIST_MAX);
			for (size_t k = 0; k < nr; k++) {
				const struct hist_entry *h = row_hist_at(r, k, &hbuf);
				const struct hist_entry *w = &want[i + 1 - nr + k];
				wrong += strcmp(h->rv, w->rv) != 0 || h->time_ms != w->time_ms ||
					 h->source != w->source || h->list_no != w->list_no ||
					 h->tombstone != w->tombstone || h->resync_only != w->resync_only ||
					 h->type != w->type;
			}
		}
		CHECKF(wrong == 0, "states %u: %zu wrong", states, wrong);
		CHECK(tails > 100 && stored > 50);
		model_release(&m);
	}
}

/* A history entry keeps any uint64 resourceVersion whole, as etcd makes them. */
TEST(history_keeps_the_longest_resource_version)
{
	struct model m;
	model_fake(&m);
	struct kobj *a = pod("a", "18446744073709551615", NULL);
	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, a, NULL);
	model_apply(&m, &n);
	CHECK_STR(row_hist_at(model_row(&m, "default/a"), 0, &hbuf)->rv, "18446744073709551615");
	CHECK_STR(model_log_at(&m, 0)->d.rv, "18446744073709551615");
	model_release(&m);
}

/*
 * A row's one entry is read back from the row, source and flags with it,
 * and stored as it was when a second delta comes.
 */
TEST(a_tail_history_entry_reads_back_and_is_stored_when_one_follows)
{
	struct model m;
	model_fake(&m);
	struct kobj *a1 = pod("a", "41", NULL), *a2 = pod("a", "42", NULL);

	struct notification n = note(NOTIFY_ADD, DELTA_REPLACED, kobj_ref(a1), NULL);
	n.delta.source = SOURCE_LIST;
	n.delta.time_ms = 1234567;
	n.replay = true;
	model_apply(&m, &n);
	struct row *r = model_row(&m, "default/a");
	CHECK(r->hist && r->hist->tail);	/* states are kept: a block for them */
	CHECK_INT(row_hist_nr(r), 1);
	const struct hist_entry *h = row_hist_at(r, 0, &hbuf);
	CHECK_STR(h->rv, "41");
	CHECK_INT(h->time_ms, 1234567);
	CHECK_INT(h->type, DELTA_REPLACED);
	CHECK_INT(h->source, SOURCE_LIST);
	CHECK(h->replay && !h->resync_only && !h->tombstone);
	CHECK(row_hist_obj(r, 0) == a1);

	n = note(NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(a2), kobj_ref(a1));
	n.resync_only = true;
	model_apply(&m, &n);
	CHECK(r->hist != NULL && r->hist->tail);	/* the new one, read back */
	CHECK_INT(row_hist_nr(r), 2);
	h = row_hist_at(r, 0, &hbuf);
	CHECK(!r->hist->slot[0].is_wide);	/* a numeric rv: stored packed */
	CHECK_STR(h->rv, "41");
	CHECK_INT(h->time_ms, 1234567);
	CHECK_INT(h->type, DELTA_REPLACED);
	CHECK_INT(h->source, SOURCE_LIST);
	CHECK(h->replay);
	h = row_hist_at(r, 1, &hbuf);
	CHECK_STR(h->rv, "42");
	CHECK(h->resync_only && !h->replay);
	CHECK(row_hist_obj(r, 0) == a1 && row_hist_obj(r, 1) == a2);
	kobj_unref(a1);
	kobj_unref(a2);
	model_release(&m);
}

TEST(a_gone_row_comes_back_when_re_added)
{
	struct model m;
	model_fake(&m);
	struct kobj *a = pod("a", "1", NULL);
	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, kobj_ref(a), NULL);
	model_apply(&m, &n);
	n = note(NOTIFY_DELETE, DELTA_DELETED, kobj_ref(a), NULL);
	n.delta.tombstone = true;
	model_apply(&m, &n);
	CHECK(model_row(&m, "default/a")->tombstone);
	n = note(NOTIFY_ADD, DELTA_ADDED, kobj_ref(a), NULL);
	model_apply(&m, &n);
	struct row *r = model_row(&m, "default/a");
	CHECK(!r->gone);
	CHECK(!r->tombstone);
	CHECK_INT(m.present, 1);
	CHECK_INT(m.gone, 0);
	CHECK_INT(row_hist_total(r), 3);
	kobj_unref(a);
	model_release(&m);
}

/*
 * model_expire() reads the deletes in order: a row re-added since its
 * delete is not freed, one deleted again (or twice) goes once, when its
 * time comes, and every gone row goes.
 */
TEST(expire_frees_each_gone_row_once_and_only_gone_ones)
{
	struct model m;
	model_fake(&m);
	struct kobj *a = pod("a", "1", NULL), *b = pod("b", "2", NULL), *c = pod("c", "3", NULL);
	struct kobj *objs[] = { a, b, c };
	struct notification n;

	for (size_t i = 0; i < 3; i++) {
		n = note(NOTIFY_ADD, DELTA_ADDED, kobj_ref(objs[i]), NULL);
		model_apply(&m, &n);
	}
	/* a: deleted, back, deleted again; b: deleted twice; c: deleted, back. */
	enum notify_kind steps[][2] = {
		{ NOTIFY_DELETE, 0 }, { NOTIFY_ADD, 0 }, { NOTIFY_DELETE, 0 },
		{ NOTIFY_DELETE, 1 }, { NOTIFY_DELETE, 1 },
		{ NOTIFY_DELETE, 2 }, { NOTIFY_ADD, 2 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		struct kobj *o = objs[steps[i][1]];
		bool del = steps[i][0] == NOTIFY_DELETE;
		n = note(steps[i][0], del ? DELTA_DELETED : DELTA_ADDED, kobj_ref(o), NULL);
		model_apply(&m, &n);
	}
	CHECK_INT(m.gone, 2);
	int64_t due = mono_ms() + GONE_SHOW_MS;	/* every delete's, at the latest */
	CHECK(model_expire(&m, due + 1000));
	CHECK(model_row(&m, "default/a") == NULL);
	CHECK(model_row(&m, "default/b") == NULL);
	CHECK(model_row(&m, "default/c") != NULL);
	CHECK_INT(m.gone, 0);
	CHECK_INT(m.present, 1);
	CHECK(!model_expire(&m, due + 100000));
	CHECK(model_row(&m, "default/c") != NULL);

	for (size_t i = 0; i < 3; i++)
		kobj_unref(objs[i]);
	model_release(&m);
}

/*
 * A change marks its row for CHANGED_MARK_MS from when it came, to the
 * tenth of a second; a resync marks nothing; a row changed again stays
 * marked until its last change is due; the first list's marks, a whole
 * cache of them, give their room back.
 */
TEST(a_change_marks_its_row_for_a_while)
{
	struct model m;
	model_fake(&m);
	struct kobj *a1 = pod("a", "1", NULL), *a2 = pod("a", "2", NULL);
	char name[16];

	int64_t t0 = mono_ms();
	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, kobj_ref(a1), NULL);
	model_apply(&m, &n);
	int64_t t1 = mono_ms();
	struct row *r = model_row(&m, "default/a");
	CHECK(row_changed_recently(r));
	model_marks_expire(&m, t0 / 100 * 100 + CHANGED_MARK_MS - 1);
	CHECK(row_changed_recently(r));
	model_marks_expire(&m, t1 / 100 * 100 + CHANGED_MARK_MS);
	CHECK(!row_changed_recently(r));

	/* A resync is no change. */
	n = note(NOTIFY_UPDATE, DELTA_SYNC, kobj_ref(a1), kobj_ref(a1));
	n.resync_only = true;
	model_apply(&m, &n);
	CHECK(!row_changed_recently(r));

	/* Two changes: marked until the later is due. */
	n = note(NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(a2), kobj_ref(a1));
	model_apply(&m, &n);
	t0 = mono_ms();
	while (mono_ms() / 100 == t0 / 100)	/* the next tenth */
		;
	n = note(NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(a2), kobj_ref(a2));
	model_apply(&m, &n);
	t1 = mono_ms();
	model_marks_expire(&m, t0 / 100 * 100 + CHANGED_MARK_MS + 99);
	CHECK(row_changed_recently(r));
	model_marks_expire(&m, t1 / 100 * 100 + CHANGED_MARK_MS);
	CHECK(!row_changed_recently(r));

	/*
	 * A list of 20,000: every row marked, then only the changes that
	 * came later; the queue's room given back though it never emptied.
	 */
	int64_t t_list = mono_ms();
	for (int i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		n = note(NOTIFY_ADD, DELTA_ADDED, pod(name, "1", NULL), NULL);
		model_apply(&m, &n);
	}
	t1 = mono_ms();
	/*
	 * The marks still held are the latest rows', whatever the list took:
	 * a machine slow enough (a sanitizer, a loaded CI) let the first
	 * ones expire as it went.  On time, every row is marked.
	 */
	size_t marked = m.mark_nr - m.mark_head, wrong = 0;
	for (size_t i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "default/p%zu", i);
		wrong += row_changed_recently(model_row(&m, name)) != (i >= 20000 - marked);
	}
	CHECKF(wrong == 0, "%zu rows marked otherwise than the latest %zu", wrong, marked);
	CHECK(row_changed_recently(model_row(&m, "default/p19999")));
	if (t1 - t_list < CHANGED_MARK_MS)
		CHECK_INT(marked, 20000);
	CHECK(m.mark_alloc >= 20000);
	while (mono_ms() / 100 == t1 / 100)
		;
	n = note(NOTIFY_UPDATE, DELTA_UPDATED, kobj_ref(a1), kobj_ref(a2));
	model_apply(&m, &n);
	model_marks_expire(&m, t1 / 100 * 100 + CHANGED_MARK_MS);
	CHECK(!row_changed_recently(model_row(&m, "default/p0")));
	CHECK(!row_changed_recently(model_row(&m, "default/p19999")));
	CHECK(row_changed_recently(r));
	CHECK_INT(m.mark_nr - m.mark_head, 1);
	CHECK(m.mark_alloc <= 4096);
	model_marks_expire(&m, mono_ms() + CHANGED_MARK_MS);
	CHECK(!row_changed_recently(r));

	kobj_unref(a1);
	kobj_unref(a2);
	model_release(&m);
}

/* The newest hist_states entries keep their object; with none kept, no room is made. */
TEST(history_keeps_states_only_when_asked)
{
	for (unsigned states = 0; states <= 2; states += 2) {
		struct model m;
		model_fake(&m);
		m.hist_states = states;
		struct kobj *v[3] = { pod("a", "1", NULL), pod("a", "2", NULL), pod("a", "3", NULL) };
		for (size_t i = 0; i < 3; i++) {
			struct notification n = note(i ? NOTIFY_UPDATE : NOTIFY_ADD,
						     i ? DELTA_UPDATED : DELTA_ADDED,
						     kobj_ref(v[i]), i ? kobj_ref(v[i - 1]) : NULL);
			model_apply(&m, &n);
		}
		struct row *r = model_row(&m, "default/a");
		CHECK_INT(row_hist_nr(r), 3);
		CHECK(row_hist_obj(r, 2) == (states ? v[2] : NULL));
		CHECK(row_hist_obj(r, 1) == (states ? v[1] : NULL));
		CHECK(row_hist_obj(r, 0) == NULL);
		CHECK((r->hist->obj != NULL) == (states != 0));
		for (size_t i = 0; i < 3; i++)
			kobj_unref(v[i]);
		model_release(&m);
	}
}

TEST(history_keeps_the_latest)
{
	struct model m;
	model_fake(&m);
	char rv[16];

	for (int i = 1; i <= HIST_MAX + 36; i++) {
		snprintf(rv, sizeof(rv), "%d", i);
		struct notification n = note(i == 1 ? NOTIFY_ADD : NOTIFY_UPDATE,
					     i == 1 ? DELTA_ADDED : DELTA_UPDATED,
					     pod("a", rv, NULL), NULL);
		model_apply(&m, &n);
	}
	struct row *r = model_row(&m, "default/a");
	CHECK_INT(row_hist_nr(r), HIST_MAX);
	CHECK_INT(row_hist_total(r), HIST_MAX + 36);
	CHECK_STR(row_hist_at(r, 0, &hbuf)->rv, "37");
	snprintf(rv, sizeof(rv), "%d", HIST_MAX + 36);
	CHECK_STR(row_hist_at(r, HIST_MAX - 1, &hbuf)->rv, rv);
	model_release(&m);
}

/*
 * A long session: every entry of a row's history reads back exactly as it
 * came, packed in 16 bytes when its rv is a canonical uint64, kept whole
 * when it is not (the RV is opaque to a client) or its time or relist
 * number does not fit; the ring of HIST_MAX entries never grows, and an
 * entry it drops frees its copy.
 */
TEST(history_entries_read_back_exactly_and_a_long_session_stays_bounded)
{
	static const char *const rvs[] = {
		"0", "7", "18446744073709551615", "18446744073709551616", "007",
		"abc", "12a", "-1", "1e3", "",
	};
	const size_t nr = sizeof(rvs) / sizeof(rvs[0]);
	struct model m;
	size_t wrong = 0, wide = 0, packed = 0;

	model_fake(&m);
	CHECK_INT(sizeof(struct hist_slot), 16);
	for (size_t i = 0; i < 10000; i++) {
		const char *rv = rvs[i % nr];
		struct notification n = note(i ? NOTIFY_UPDATE : NOTIFY_ADD,
					     i ? DELTA_UPDATED : DELTA_ADDED,
					     pod("a", rv, NULL), NULL);
		/* Now and then a time before 1970 or a relist past 4095. */
		n.delta.time_ms = i % 7 == 3 ? -5000 : 1700000000123LL + (int64_t)i;
		n.delta.list_no = i % 11 == 5 ? 5000 + (unsigned)i : (unsigned)(i % 4096);
		n.delta.source = SOURCE_LIST;
		model_apply(&m, &n);

		struct row *r = model_row(&m, "default/a");
		const struct hist_entry *h = row_hist_at(r, row_hist_nr(r) - 1u, &hbuf);
		wrong += strcmp(h->rv, rv) != 0 || h->time_ms != n.delta.time_ms ||
			 h->list_no != n.delta.list_no || h->type != (i ? DELTA_UPDATED : DELTA_ADDED);
		if (r->hist && !r->hist->tail) {
			const struct hist_slot *slot =
				&r->hist->slot[(row_hist_first(r) + row_hist_nr(r) - 1u) % HIST_MAX];
			wide += slot->is_wide;
			packed += !slot->is_wide;
		}
	}
	CHECK_INT(wrong, 0);
	CHECK(packed > 2000 && wide > 5000);
	CHECK_INT(row_hist_nr(model_row(&m, "default/a")), HIST_MAX);
	CHECK_INT(row_hist_total(model_row(&m, "default/a")), 10000);
	model_release(&m);	/* the wide copies go with it: valgrind finds none left */

	/* A first delta before 1970 is stored, not read back from the row. */
	model_fake(&m);
	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, pod("b", "5", NULL), NULL);
	n.delta.time_ms = -5000;
	model_apply(&m, &n);
	CHECK_INT(row_hist_at(model_row(&m, "default/b"), 0, &hbuf)->time_ms, -5000);
	model_release(&m);
}

/*
 * A long churn through a small budget (--history-size): the histories'
 * bytes, accounted exactly (the sum of what each row's history holds),
 * never pass it; each row keeps its newest entry and reads back, oldest
 * first, the latest of its deltas with the states they left; the budget
 * is used, not emptied; nothing is counted once the rows are gone.
 */
#define CHURN_PODS 200
#define CHURN_STEPS 12000
#define CHURN_HOT 5

struct churn {
	struct kobj *cur[CHURN_PODS];
	unsigned *rvs[CHURN_PODS];	/* each pod's resourceVersions, in order */
	size_t nr[CHURN_PODS], alloc[CHURN_PODS];
	size_t over, wrong_sum, wrong_entry, wrong_state, trimmed, ringed, states;
};

/* Checks every row against what the churn sent it. */
static void churn_check(struct model *m, struct churn *c)
{
	size_t sum = 0;
	char want[16];

	for (size_t p = 0; p < CHURN_PODS; p++) {
		char key[32];
		snprintf(key, sizeof(key), "default/p%zu", p);
		struct row *r = model_row(m, key);
		if (!r) {
			c->wrong_entry += c->nr[p] != 0;
			continue;
		}
		size_t nr = row_hist_nr(r), total = row_hist_total(r);
		if (total != c->nr[p] || nr < 1) {
			c->wrong_entry++;
			continue;
		}
		sum += row_hist_bytes(r, NULL);
		c->trimmed += row_hist_dropped(r) && nr < HIST_MAX;
		c->ringed += nr == HIST_MAX && row_hist_dropped(r);
		for (size_t i = 0; i < nr; i++) {
			size_t k = total - nr + i;
			snprintf(want, sizeof(want), "%u", c->rvs[p][k]);
			c->wrong_entry += strcmp(row_hist_at(r, i, &hbuf)->rv, want) != 0;
			struct kobj *o = row_hist_obj(r, i);
			c->wrong_state += o && strcmp(o->rv, want);
			/* The oldest go first: the states kept are the newest entries'. */
			c->wrong_state += o && i + 1 < nr && !row_hist_obj(r, i + 1);
			c->wrong_state += !o && i + 1 == nr && m->hist_states;
			c->states += o && i + 1 < nr;
		}
		if (row_prev(r)) {
			snprintf(want, sizeof(want), "%u", c->rvs[p][total - 2]);
			c->wrong_state += strcmp(row_prev(r)->rv, want) != 0;
		}
	}
	c->wrong_sum += sum != m->budget->used;
}

static void churn_run(struct model *m, struct churn *c)
{
	uint64_t lcg = 42;

	for (unsigned step = 0; step < CHURN_STEPS; step++) {
		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned x = (unsigned)(lcg >> 33);
		size_t p = x % 4 ? x % CHURN_PODS : x % CHURN_HOT;	/* a few hot pods */
		char name[16], rv[16], labels[96];
		snprintf(name, sizeof(name), "p%zu", p);
		snprintf(rv, sizeof(rv), "%u", step + 1);
		/* States of different sizes. */
		snprintf(labels, sizeof(labels), "\"v\":\"%.*s\"", (int)(x % 64),
			 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
		struct kobj *obj = pod(name, rv, labels);
		struct notification n = note(c->cur[p] ? NOTIFY_UPDATE : NOTIFY_ADD,
					     c->cur[p] ? DELTA_UPDATED : DELTA_ADDED, kobj_ref(obj),
					     c->cur[p] ? kobj_ref(c->cur[p]) : NULL);
		model_apply(m, &n);
		kobj_unref(c->cur[p]);
		c->cur[p] = obj;
		ALLOC_GROW(c->rvs[p], c->nr[p] + 1, c->alloc[p]);
		c->rvs[p][c->nr[p]++] = step + 1;
		c->over += m->budget->used > m->budget->limit;
		if (step % 50 == 49)
			churn_check(m, c);
	}
}

TEST(a_long_churn_keeps_the_histories_within_their_budget)
{
	for (unsigned states = 0; states <= HIST_STATES; states += HIST_STATES) {
		struct hist_budget budget = { HIST_BUDGET_MIN, 0 };
		struct churn *c = xcalloc(1, sizeof(*c));
		struct model m;

		model_fake(&m);
		m.hist_states = states;
		m.budget = &budget;
		churn_run(&m, c);
		CHECK_INT(c->over, 0);
		CHECK_INT(c->wrong_sum, 0);
		CHECK_INT(c->wrong_entry, 0);
		CHECK_INT(c->wrong_state, 0);
		/* The budget let go of entries, and the hot rows' rings turned. */
		CHECK(c->trimmed > 0);
		CHECK(c->ringed > 0);
		/* Past states kept as the budget allows, none when none are asked for. */
		CHECK((c->states > 0) == (states > 0));
		CHECK(budget.used > budget.limit / 2);
		model_release(&m);
		CHECK_INT(budget.used, 0);
		for (size_t p = 0; p < CHURN_PODS; p++) {
			kobj_unref(c->cur[p]);
			free(c->rvs[p]);
		}
		free(c);
	}
}

/*
 * A budget below what the rows' newest entries take: each row keeps its
 * newest entry all the same, the trim gives up after a turn that found
 * nothing rather than going round at every delta, and the count stays
 * exact.
 */
TEST(a_budget_below_the_newest_entries_keeps_them)
{
	struct hist_budget budget = { 4096, 0 };
	struct model m;
	size_t wrong = 0, sum = 0;
	char name[16], rv[16];

	model_fake(&m);
	m.budget = &budget;
	for (unsigned round = 0; round < 3; round++) {
		for (unsigned p = 0; p < 500; p++) {
			snprintf(name, sizeof(name), "p%u", p);
			snprintf(rv, sizeof(rv), "%u", round * 1000 + p + 1);
			struct kobj *obj = pod(name, rv, NULL);
			struct row *r = model_row(&m, obj->key);
			struct notification n = note(r ? NOTIFY_UPDATE : NOTIFY_ADD,
						     r ? DELTA_UPDATED : DELTA_ADDED, obj,
						     r ? kobj_ref(r->obj) : NULL);
			model_apply(&m, &n);
		}
	}
	for (unsigned p = 0; p < 500; p++) {
		snprintf(name, sizeof(name), "default/p%u", p);
		snprintf(rv, sizeof(rv), "%u", 2000 + p + 1);
		struct row *r = model_row(&m, name);
		wrong += !r || row_hist_total(r) != 3 ||
			 strcmp(row_hist_at(r, row_hist_nr(r) - 1, &hbuf)->rv, rv);
		sum += r ? row_hist_bytes(r, NULL) : 0;
	}
	CHECK_INT(wrong, 0);
	CHECK_INT(sum, budget.used);
	CHECK(budget.used > budget.limit);	/* the floor overruns it ... */
	CHECK(m.hist_stuck != 0);		/* ... and the trim knows */
	model_release(&m);
	CHECK_INT(budget.used, 0);
}

TEST(the_log_keeps_the_latest_and_clears)
{
	struct model m;
	model_fake(&m);
	char name[32];

	for (int i = 0; i < LOG_MAX + 10; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		struct notification n = note(NOTIFY_ADD, DELTA_ADDED, pod(name, "1", NULL), NULL);
		model_apply(&m, &n);
	}
	CHECK_INT(m.log_nr, LOG_MAX);
	CHECK_STR(model_log_at(&m, 0)->text, "default/p10");
	model_log_clear(&m);
	CHECK_INT(m.log_nr, 0);
	CHECK_INT(m.present, LOG_MAX + 10);	/* the cache is not the log */
	model_release(&m);
}

TEST(held_notifications_apply_on_resume)
{
	struct model m;
	model_fake(&m);
	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, pod("a", "1", NULL), NULL);
	model_hold(&m, &n);
	n = note(NOTIFY_ADD, DELTA_ADDED, pod("b", "1", NULL), NULL);
	model_hold(&m, &n);
	CHECK_INT(m.present, 0);
	CHECK_INT(m.held_nr, 2);
	CHECK_INT(model_apply_held(&m), 2);
	CHECK_INT(m.present, 2);
	CHECK_INT(m.held_nr, 0);
	/* Held and never applied: released with the model. */
	n = note(NOTIFY_ADD, DELTA_ADDED, pod("c", "1", NULL), NULL);
	model_hold(&m, &n);
	model_release(&m);
}

static bool matches(const struct row *r, const char *text)
{
	struct filter f;
	struct errbuf err;
	memset(&f, 0, sizeof(f));
	if (filter_set(&f, text, &err) < 0) {
		printf("# filter '%s': %s\n", text, err.msg);
		return false;
	}
	bool ok = filter_match_row(&f, r);
	filter_clear(&f);
	return ok;
}

TEST(filter_by_regex_and_by_selector)
{
	struct model m;
	model_fake(&m);
	struct notification n = note(NOTIFY_ADD, DELTA_ADDED,
				     pod("web-1", "1", "\"app\":\"web\",\"tier\":\"front\""), NULL);
	model_apply(&m, &n);
	struct row *r = model_row(&m, "default/web-1");

	CHECK(matches(r, ""));
	CHECK(matches(r, "WEB"));
	CHECK(matches(r, "default/w"));
	CHECK(!matches(r, "db"));
	CHECK(matches(r, "^default/web-[0-9]$"));
	CHECK(matches(r, "db|web"));
	CHECK(!matches(r, "^web"));
	CHECK(matches(r, "l:app=web"));
	CHECK(matches(r, "l:app=web,tier=front"));
	CHECK(matches(r, "l:tier"));
	CHECK(!matches(r, "l:app=db"));
	CHECK(!matches(r, "l:app=web,zone"));
	CHECK(!matches(r, "l:ap"));
	CHECK(matches(r, "l:app in (db,web)"));
	CHECK(matches(r, "l:app notin (db)"));
	CHECK(matches(r, "l:app!=db"));
	CHECK(matches(r, "l:!zone"));
	CHECK(!matches(r, "l:!tier"));

	/* What does not parse is refused, and the filter stays as it was. */
	struct filter f;
	struct errbuf err;
	memset(&f, 0, sizeof(f));
	CHECK_INT(filter_set(&f, "web", &err), 0);
	CHECK_INT(filter_set(&f, "web(", &err), -1);
	CHECK(strstr(err.msg, "invalid regex 'web('") != NULL);
	CHECK_STR(f.text, "web");
	CHECK_INT(filter_set(&f, "l:app in (web", &err), -1);
	CHECK(strstr(err.msg, "invalid selector") != NULL);
	CHECK(filter_match_row(&f, r));
	filter_clear(&f);
	model_release(&m);
}

/* Text without regex syntax is looked for as text (fast), as the regex would. */
TEST(filter_text_without_syntax_is_found_as_text)
{
	struct model m;
	model_fake(&m);
	struct notification n = note(NOTIFY_ADD, DELTA_ADDED, pod("web-1", "1", "\"app\":\"web\""), NULL);
	model_apply(&m, &n);
	struct row *r = model_row(&m, "default/web-1");
	struct filter f;
	struct errbuf err;

	memset(&f, 0, sizeof(f));
	CHECK_INT(filter_set(&f, "DEFAULT/Web-1", &err), 0);
	CHECK(f.literal);
	CHECK(filter_match_row(&f, r));
	CHECK_INT(filter_set(&f, "ult/web-2", &err), 0);
	CHECK(f.literal);
	CHECK(!filter_match_row(&f, r));
	/* One special character, and it is a regex again. */
	CHECK_INT(filter_set(&f, "web.1", &err), 0);
	CHECK(!f.literal);
	CHECK(filter_match_row(&f, r));
	CHECK_INT(filter_set(&f, "web-1$", &err), 0);
	CHECK(!f.literal);
	CHECK(filter_match_row(&f, r));
	filter_clear(&f);
	model_release(&m);
}

static struct notification relisted(const char *name, const char *rv, struct kobj *old,
				    unsigned list_no)
{
	struct notification n = note(old ? NOTIFY_UPDATE : NOTIFY_ADD, DELTA_REPLACED,
				     pod(name, rv, NULL), old);
	n.delta.source = SOURCE_LIST;
	n.delta.list_no = list_no;
	n.resync_only = old && !strcmp(old->rv, rv);
	return n;
}

TEST(a_relist_folds_its_unchanged_objects_into_one_line)
{
	struct model m;
	model_fake(&m);
	char name[32];

	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		struct notification n = relisted(name, "5", NULL, 0);
		model_apply(&m, &n);
	}
	size_t before = m.log_nr;
	/* Relist #1: one tombstone, one changed, the rest unchanged. */
	struct notification n = note(NOTIFY_DELETE, DELTA_DELETED, pod("p7", "5", NULL), NULL);
	n.delta.source = SOURCE_LIST;
	n.delta.list_no = 1;
	n.delta.tombstone = true;
	model_apply(&m, &n);
	for (int i = 0; i < 300; i++) {
		if (i == 7)
			continue;
		char key[40];
		snprintf(name, sizeof(name), "p%d", i);
		snprintf(key, sizeof(key), "default/%s", name);
		struct row *r = model_row(&m, key);
		n = relisted(name, i == 100 ? "9" : "5", kobj_ref(r->obj), 1);
		model_apply(&m, &n);
	}
	/* The tombstone, the group, the changed one. */
	CHECK_INT(m.log_nr - before, 3);
	const struct log_entry *tomb = model_log_at(&m, before);
	CHECK_INT(tomb->kind, LOG_DELTA);
	CHECK(tomb->d.tombstone);
	const struct log_entry *g = model_log_at(&m, before + 1);
	CHECK_INT(g->kind, LOG_GROUP);
	CHECK_STR(g->group->label, "relist #1");
	CHECK_INT(g->group->count, 298);
	CHECK_INT(g->group->nr, 298);
	CHECK_INT(model_log_at(&m, before + 2)->kind, LOG_DELTA);
	CHECK_STR(model_log_at(&m, before + 2)->d.rv, "9");
	/* The rows followed all the same. */
	CHECK_INT(m.present, 299);

	/* A resync's Sync deltas fold into one line of their own. */
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "default/p%d", i);
		struct row *r = model_row(&m, name);
		n = note(NOTIFY_UPDATE, DELTA_SYNC, kobj_ref(r->obj), kobj_ref(r->obj));
		n.delta.source = SOURCE_RESYNC;
		n.resync_only = true;
		model_apply(&m, &n);
	}
	const struct log_entry *last = model_log_at(&m, m.log_nr - 1);
	CHECK_INT(last->kind, LOG_GROUP);
	CHECK_STR(last->group->label, "resync");
	CHECK_INT(last->group->count, 3);
	model_release(&m);
}

TEST(where_a_delta_came_from)
{
	struct hist_entry h;
	char buf[64];

	memset(&h, 0, sizeof(h));
	h.type = DELTA_REPLACED;
	h.source = SOURCE_LIST;
	hist_describe(&h, buf, sizeof(buf));
	CHECK_STR(buf, "initial list");
	h.list_no = 2;
	h.resync_only = true;
	hist_describe(&h, buf, sizeof(buf));
	CHECK_STR(buf, "relist 2, unchanged");
	h.type = DELTA_DELETED;
	h.tombstone = true;
	h.resync_only = false;
	hist_describe(&h, buf, sizeof(buf));
	CHECK_STR(buf, "relist 2, tombstone");
	h.type = DELTA_SYNC;
	h.source = SOURCE_RESYNC;
	hist_describe(&h, buf, sizeof(buf));
	CHECK_STR(buf, "resync");
	h.type = DELTA_UPDATED;
	h.source = SOURCE_WATCH;
	h.tombstone = false;
	hist_describe(&h, buf, sizeof(buf));
	CHECK_STR(buf, "watch");
}

int main(void)
{
	RUN(rows_follow_add_update_delete);
	RUN(a_row_keys_by_its_current_object);
	RUN(history_0_keeps_no_previous_state);
	RUN(a_quiet_row_has_no_history_block);
	RUN(a_moved_model_finds_and_adds_its_rows);
	RUN(every_entry_reads_back_with_tails_through_the_ring);
	RUN(history_keeps_the_longest_resource_version);
	RUN(a_tail_history_entry_reads_back_and_is_stored_when_one_follows);
	RUN(history_entries_read_back_exactly_and_a_long_session_stays_bounded);
	RUN(a_gone_row_comes_back_when_re_added);
	RUN(a_change_marks_its_row_for_a_while);
	RUN(expire_frees_each_gone_row_once_and_only_gone_ones);
	RUN(history_keeps_states_only_when_asked);
	RUN(history_keeps_the_latest);
	RUN(a_long_churn_keeps_the_histories_within_their_budget);
	RUN(a_budget_below_the_newest_entries_keeps_them);
	RUN(the_log_keeps_the_latest_and_clears);
	RUN(held_notifications_apply_on_resume);
	RUN(filter_by_regex_and_by_selector);
	RUN(filter_text_without_syntax_is_found_as_text);
	RUN(a_relist_folds_its_unchanged_objects_into_one_line);
	RUN(where_a_delta_came_from);
	return unit_done();
}

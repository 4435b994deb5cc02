/*
 * table_cells.c — the kind's cells of the table's rows and the keys kept
 * of them; see table_cells.h.
 */
#include "tui/table_cells.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "informer/kobj_pick.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "lib/valtab.h"
#include "output/columns.h"
#include "output/pod_scan.h"

/*
 * ---- the kind's columns ---------------------------------------------------
 *
 * A table's kind columns are fixed as it opens (struct table_state's
 * names): a row's kept cells (packed, one after the other), its kept
 * keys and the sort's column are all by their place among them, so they
 * must never change under the rows.  They cannot: the tab asks with its
 * crds, which is NULL unless the TUI knew the kind's CRD as the tab
 * opened (tab_init()), and a CRD once learned never changes (columns.h);
 * another group's CRD of the same kind (Knative's Service beside the
 * core's) is not this kind's.  So columns_live_headers() would give the
 * tab the same headers at every call; the table asks once all the same
 * (table_view_new()), and every cell is made for those.
 */

const char *cells_at(const char *cells, size_t i)
{
	while (i--)
		cells += strlen(cells) + 1;
	return cells;
}

/*
 * Appends the row's kind cells of its current version to pack, each
 * followed by a NUL, one per ts(tab)->names: a pod's from one scan of
 * its text (no tree: a sixth of the cost), any other kind's (or a pod
 * the scan leaves to the tree) from the members its columns read.
 */
static void cells_pack(struct tab *tab, const struct row *r, struct strbuf *pack)
{
	const char *const *names = ts(tab)->names;
	const struct kobj_pick *pick = columns_pick(tab->crds, tab->m.group, tab->m.kind);
	int64_t now = wall_ms();
	const char *json = pick ? kobj_text(r->obj, &ts(tab)->cells_text) : NULL;

	if (!json || pod_scan_live_cells(tab->crds, tab->m.group, tab->m.kind, names, json,
					 r->obj->json_len, now, pack) < 0) {
		struct json_object *tree = pick ? kobj_tree_pick(r->obj, pick) : kobj_tree(r->obj);
		columns_cells(tab->crds, tab->m.group, tab->m.kind, names, tree, now, pack);
		json_object_put(tree);
	}
}

/* ---- the rows' cells (struct cells) ------------------------------------------ */

/* Where row r's probe starts (Fibonacci hashing of its address). */
static size_t cells_home(const struct cells *c, const struct row *r)
{
	return (size_t)(((uint64_t)(uintptr_t)r * 0x9e3779b97f4a7c15ULL) >> 32) & (c->cap - 1);
}

/* The slot of row r (which has cells), or the free one it would take. */
static struct cells_slot *cells_slot(const struct cells *c, const struct row *r)
{
	size_t i = cells_home(c, r);

	while (c->slots[i].row && c->slots[i].row != r)
		i = (i + 1) & (c->cap - 1);
	return &c->slots[i];
}

const char *cells_of(const struct table_state *st, const struct row *r)
{
	return r->has_cells ? cells_slot(&st->cells, r)->text + sizeof(struct cells_head) : NULL;
}

const struct cells_head *cells_head(const char *cells)
{
	return (const struct cells_head *)(const void *)(cells - sizeof(struct cells_head));
}

const char *cells_current(const struct table_state *st, const struct row *r)
{
	const char *cells = cells_of(st, r);

	return cells && cells_head(cells)->version == r->version ? cells : NULL;
}

int64_t cells_age(const char *cells, int64_t now_mono)
{
	return now_mono - (int64_t)cells_head(cells)->ds * 100;
}

static void cells_grow(struct cells *c)
{
	struct cells old = *c;

	c->cap = old.cap ? old.cap * 2 : 64;
	c->slots = xcalloc(c->cap, sizeof(*c->slots));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].row)
			*cells_slot(c, old.slots[i].row) = old.slots[i];
	free(old.slots);
}

/* Row r's cells: the len bytes at text (a NUL is added), made of its
 * current version at now_mono; the last ones freed. */
static void cells_set(struct table_state *st, struct row *r, const char *text, size_t len,
		      int64_t now_mono)
{
	struct cells *c = &st->cells;
	struct cells_head head = { r->version, (uint32_t)(now_mono / 100) };
	char *p = xmalloc(sizeof(head) + len + 1);

	memcpy(p, &head, sizeof(head));
	memcpy(p + sizeof(head), text, len);
	p[sizeof(head) + len] = '\0';
	if (!r->has_cells && (c->nr + 1) * 2 > c->cap)
		cells_grow(c);
	struct cells_slot *s = cells_slot(c, r);
	if (r->has_cells)
		free(s->text);
	else
		c->nr++;
	*s = (struct cells_slot){ r, p };
	r->has_cells = true;
}

void cells_drop(struct table_state *st, struct row *r)
{
	struct cells *c = &st->cells;

	if (!r->has_cells)
		return;
	struct cells_slot *s = cells_slot(c, r);
	size_t hole = (size_t)(s - c->slots), i = hole;
	free(s->text);
	*s = (struct cells_slot){ NULL, NULL };
	r->has_cells = false;
	c->nr--;
	/* Backward shift: each slot after the hole whose home is not
	 * between the hole and it moves into the hole. */
	for (;;) {
		i = (i + 1) & (c->cap - 1);
		if (!c->slots[i].row)
			break;
		size_t home = cells_home(c, c->slots[i].row);
		if (((i - home) & (c->cap - 1)) >= ((i - hole) & (c->cap - 1))) {
			c->slots[hole] = c->slots[i];
			c->slots[i] = (struct cells_slot){ NULL, NULL };
			hole = i;
		}
	}
}

/* Every row's cells let go of (the rows may be gone already). */
static void cells_release(struct cells *c)
{
	for (size_t i = 0; i < c->cap; i++)
		free(c->slots[i].text);	/* NULL in a free slot */
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

void cells_make(struct tab *tab, struct row *r, int64_t now_mono)
{
	struct strbuf pack = STRBUF_INIT;
	size_t nr = ts(tab)->names_nr;

	cells_pack(tab, r, &pack);
	cells_set(ts(tab), r, nr ? pack.buf : "", nr ? pack.len : 0, now_mono);
	strbuf_release(&pack);
}

/* A double's bits, made to sort as unsigned as the doubles do. */
static uint64_t double_order(double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	return bits >> 63 ? ~bits : bits | (1ULL << 63);
}

bool cells_number(const char *cell, uint64_t *num)
{
	char *end;
	double d = strtod(cell, &end);

	*num = *cell && !*end ? double_order(d) : 0;
	return *cell && !*end;
}

/* ---- the kind's columns as keys (struct table_state's key_vals) ---------- */

bool keys_have(const struct table_state *st, const struct row *r)
{
	for (size_t c = 0; c < st->key_nr; c++)
		if (!r->kind_key[c] && !st->key_vals[c].full)
			return false;
	return true;
}

void keys_unref(struct table_state *st, struct row *r)
{
	for (size_t c = 0; c < st->key_nr; c++) {
		valtab_unref(&st->key_vals[c], r->kind_key[c]);
		r->kind_key[c] = 0;
	}
}

/*
 * Row r's keys from cells (packed, its current version's); returns
 * whether a column's values filled their table meanwhile.  A new value
 * notes what its text reads as, for cmp_values().
 */
static bool keys_set(struct table_state *st, struct row *r, const char *cells)
{
	bool filled = false;

	for (size_t c = 0; c < st->key_nr; c++, cells += strlen(cells) + 1) {
		struct valtab *vt = &st->key_vals[c];
		uint32_t id = 0;
		bool fresh, was_full = vt->full;
		if (!was_full)
			id = valtab_ref(vt, cells, &fresh);
		if (id && fresh)
			vt->vals[id]->aux_flag = !cells_number(cells, &vt->vals[id]->aux);
		valtab_unref(vt, r->kind_key[c]);
		r->kind_key[c] = (uint16_t)id;
		filled |= vt->full && !was_full;
	}
	return filled;
}

bool keys_make(struct tab *tab, struct row *r)
{
	struct table_state *st = ts(tab);
	const char *cells = cells_current(st, r);

	if (cells)
		return keys_set(st, r, cells);
	strbuf_reset(&st->cells_scratch);
	cells_pack(tab, r, &st->cells_scratch);
	return keys_set(st, r, st->cells_scratch.buf);
}

bool keys_due(const struct tab *tab)
{
	return ts(tab)->key_nr && !ts(tab)->keys_swept && tab->m.stats.synced;
}

void table_cells_init(struct table_state *st, struct tab *tab)
{
	strbuf_init(&st->cells_text, 0);
	strbuf_init(&st->cells_scratch, 0);
	/* Once: the tab's crds never change what these are. */
	st->names = columns_live_headers(tab->crds, tab->m.group, tab->m.kind);
	while (st->names[st->names_nr])
		st->names_nr++;
	/* The kind's columns as keys: room for them in every row. */
	st->key_nr = st->names_nr < KEYS_MAX ? st->names_nr : KEYS_MAX;
	model_row_keys(&tab->m, st->key_nr);
}

void table_cells_release(struct table_state *st)
{
	strbuf_release(&st->cells_text);
	strbuf_release(&st->cells_scratch);
	cells_release(&st->cells);
	for (size_t c = 0; c < st->key_nr; c++)
		valtab_release(&st->key_vals[c]);
}

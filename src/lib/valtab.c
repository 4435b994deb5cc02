/*
 * valtab.c — distinct values with small dense ids, counted: see valtab.h.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "lib/valtab.h"

_Static_assert(VALTAB_MAX <= UINT16_MAX, "struct valtab_val's id");

void valtab_release(struct valtab *vt)
{
	for (uint32_t id = 1; id < vt->nr; id++)
		free(vt->vals[id]);
	free(vt->vals);
	free(vt->free_ids);
	hashmap_release(&vt->map);
	*vt = (struct valtab)VALTAB_INIT;
}

/* A free id, or 0 when VALTAB_MAX are in use. */
static uint32_t id_take(struct valtab *vt)
{
	if (vt->free_nr)
		return vt->free_ids[--vt->free_nr];
	if (!vt->nr)
		vt->nr = 1;	/* 0 is no id */
	if (vt->nr > VALTAB_MAX)
		return 0;
	uint32_t id = vt->nr++;
	if ((id & (id - 1)) == 0) {	/* room doubled at each power of two */
		vt->vals = xrealloc(vt->vals, 2 * (size_t)id * sizeof(*vt->vals));
		vt->vals[0] = NULL;
	}
	return id;
}

uint32_t valtab_ref(struct valtab *vt, const char *text, bool *fresh)
{
	struct valtab_val *v = hashmap_get(&vt->map, text);

	*fresh = false;
	if (v) {
		v->refs++;
		return v->id;
	}
	uint32_t id = vt->full ? 0 : id_take(vt);
	if (!id) {
		vt->full = true;
		return 0;
	}
	size_t len = strlen(text);
	v = xcalloc(1, sizeof(*v) + len + 1);
	memcpy(v->text, text, len);
	v->refs = 1;
	v->id = (uint16_t)id;
	vt->vals[id] = v;
	hashmap_insert(&vt->map, v->text, v);
	*fresh = true;
	return id;
}

void valtab_unref(struct valtab *vt, uint32_t id)
{
	struct valtab_val *v = id ? vt->vals[id] : NULL;

	if (!v || --v->refs)
		return;
	hashmap_remove(&vt->map, v->text, NULL);
	free(v);
	vt->vals[id] = NULL;
	ALLOC_GROW(vt->free_ids, vt->free_nr + 1, vt->free_alloc);
	vt->free_ids[vt->free_nr++] = id;
}

struct order_ctx {
	valtab_cmp_fn *cmp;
	void *ctx;
};

static int cmp_vals(const void *a, const void *b, void *ctx)
{
	const struct order_ctx *oc = ctx;

	return oc->cmp(*(struct valtab_val *const *)a, *(struct valtab_val *const *)b, oc->ctx);
}

void valtab_order(const struct valtab *vt, valtab_cmp_fn *cmp, void *ctx, uint32_t *ord)
{
	struct valtab_val **live = xmalloc(valtab_ids(vt) * sizeof(*live));
	struct order_ctx oc = { cmp, ctx };
	size_t nr = 0;
	uint32_t at = 0;

	for (uint32_t id = 1; id < vt->nr; id++)
		if (vt->vals[id])
			live[nr++] = vt->vals[id];
	qsort_r(live, nr, sizeof(*live), cmp_vals, &oc);
	for (size_t i = 0; i < nr; i++) {
		if (i && cmp(live[i - 1], live[i], ctx))
			at++;
		ord[live[i]->id] = at;
	}
	free(live);
}

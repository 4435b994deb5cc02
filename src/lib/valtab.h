/*
 * valtab.h — the distinct values of one column of many records, each
 * with a small dense id, counted: a record keeps the value's 16-bit id
 * (2 bytes) instead of its text, and a sort by the column orders the few
 * distinct values once (valtab_order()), then every record by its id's
 * place.
 *
 * For the TUI's kind columns (STATUS, NODE...: a few hundred distinct
 * texts over 100,000 rows).  A value is kept while a record counts it
 * (valtab_ref(), valtab_unref()); its id is reused after the last.  At
 * most VALTAB_MAX values at once: past that valtab_ref() answers 0 and
 * the table is full for good (the caller then keeps the column some
 * other way), which bounds its memory whatever the values.
 *
 * Ownership: the table owns its copies of the texts; valtab_val()'s text is
 * valid while the value is counted.  A zeroed struct (VALTAB_INIT) is
 * an empty table that owns no memory; valtab_release() returns it to
 * that.  Not thread-safe: the owner locks (the TUI uses one thread).
 */
#ifndef KINF_VALTAB_H
#define KINF_VALTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hashmap.h"

#define VALTAB_MAX 16383	/* values at once; ids are [1, VALTAB_MAX] */

struct valtab_val {
	uint64_t aux;		/* the caller's, e.g. what the text reads as */
	uint32_t refs;
	uint16_t id;
	bool aux_flag;		/* the caller's */
	char text[];
};

struct valtab {
	struct hashmap map;		/* text -> struct valtab_val */
	struct valtab_val **vals;	/* by id; NULL: free (and [0], never an id) */
	uint32_t nr;			/* ids handed out so far: [1, nr) */
	uint32_t *free_ids;		/* ids let go of, reused first */
	size_t free_nr, free_alloc;
	bool full;			/* a value found no id: see above */
};

#define VALTAB_INIT { HASHMAP_INIT, NULL, 0, NULL, 0, 0, false }

void valtab_release(struct valtab *vt);

/*
 * The id of text (NUL-terminated), counted once more; 0 when it is new
 * and the table is full (nothing counted).  *fresh: whether the value
 * was just made (its aux then zero, for the caller to set).
 */
uint32_t valtab_ref(struct valtab *vt, const char *text, bool *fresh);

/* Counts value id (from valtab_ref(); 0 does nothing) once less. */
void valtab_unref(struct valtab *vt, uint32_t id);

/* Value id, counted. */
static inline const struct valtab_val *valtab_val(const struct valtab *vt, uint32_t id)
{
	return vt->vals[id];
}

/* One more than the largest id in use: the room an array by id needs. */
static inline uint32_t valtab_ids(const struct valtab *vt)
{
	return vt->nr ? vt->nr : 1;
}

typedef int valtab_cmp_fn(const struct valtab_val *a, const struct valtab_val *b, void *ctx);

/*
 * Each counted value's place in cmp's order into ord[id] (room for
 * valtab_ids()): 0 for the first, values cmp finds equal sharing one, so
 * that comparing places compares values.  ord of ids not in use is left
 * as it was.  O(v log v) for v values in use.
 */
void valtab_order(const struct valtab *vt, valtab_cmp_fn *cmp, void *ctx, uint32_t *ord);

#endif

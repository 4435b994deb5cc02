/*
 * test_valtab.c — the table of a column's distinct values: one id per
 * text while some record counts it, ids reused once let go of, a full
 * table refusing new texts for good, and valtab_order() placing the
 * values so that comparing places compares values.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/valtab.h"
#include "unit.h"

TEST(a_text_has_one_id_while_counted)
{
	struct valtab vt = VALTAB_INIT;
	bool fresh;

	uint32_t run = valtab_ref(&vt, "Running", &fresh);
	CHECK(run != 0 && fresh);
	CHECK_INT(valtab_ref(&vt, "Running", &fresh), run);
	CHECK(!fresh);
	uint32_t pend = valtab_ref(&vt, "Pending", &fresh);
	CHECK(pend != run && fresh);
	CHECK_STR(valtab_val(&vt, run)->text, "Running");
	CHECK_INT(valtab_val(&vt, run)->refs, 2);
	valtab_unref(&vt, run);
	CHECK_STR(valtab_val(&vt, run)->text, "Running");	/* still counted once */
	valtab_unref(&vt, run);
	CHECK(valtab_val(&vt, run) == NULL);
	valtab_unref(&vt, 0);	/* no id: nothing */
	/* Its id is reused, for a new value whose aux starts at zero. */
	uint32_t fail = valtab_ref(&vt, "Failed", &fresh);
	CHECK_INT(fail, run);
	CHECK(fresh && valtab_val(&vt, fail)->aux == 0 && !valtab_val(&vt, fail)->aux_flag);
	CHECK(valtab_ids(&vt) > pend && valtab_ids(&vt) > fail);
	valtab_release(&vt);
	CHECK(vt.vals == NULL && vt.nr == 0);
}

TEST(a_full_table_takes_no_new_text_for_good)
{
	struct valtab vt = VALTAB_INIT;
	char text[32];
	bool fresh;
	uint32_t first = 0, ok = 0;

	for (uint32_t i = 0; i < VALTAB_MAX; i++) {
		snprintf(text, sizeof(text), "v%u", i);
		uint32_t id = valtab_ref(&vt, text, &fresh);
		ok += id >= 1 && id <= VALTAB_MAX && fresh;
		if (!first)
			first = id;
	}
	CHECK_INT(ok, VALTAB_MAX);
	CHECK(!vt.full);
	CHECK_INT(valtab_ref(&vt, "one too many", &fresh), 0);
	CHECK(vt.full && !fresh);
	/* A value counted still is found; a new one is refused even once an
	 * id is free (the caller has left the column to another way). */
	CHECK_INT(valtab_ref(&vt, "v0", &fresh), first);
	valtab_unref(&vt, first);
	valtab_unref(&vt, first);
	CHECK_INT(valtab_ref(&vt, "v0", &fresh), 0);
	valtab_release(&vt);
	CHECK(!vt.full);
}

/* Numbers before texts, by the number; texts by their first letter only,
 * so that some distinct values compare equal. */
static int cmp_test(const struct valtab_val *a, const struct valtab_val *b, void *ctx)
{
	(void)ctx;
	if (a->aux_flag != b->aux_flag)
		return a->aux_flag ? 1 : -1;
	if (!a->aux_flag)
		return (a->aux > b->aux) - (a->aux < b->aux);
	return (a->text[0] > b->text[0]) - (a->text[0] < b->text[0]);
}

TEST(places_compare_as_the_values_do)
{
	static const char *const texts[] = { "10", "b2", "2", "a", "b1", "30", "c", "2.0" };
	enum { N = sizeof(texts) / sizeof(texts[0]) };
	struct valtab vt = VALTAB_INIT;
	uint32_t ids[N], ord[64];
	bool fresh;
	size_t bad = 0;

	for (size_t i = 0; i < N; i++) {
		ids[i] = valtab_ref(&vt, texts[i], &fresh);
		struct valtab_val *v = vt.vals[ids[i]];
		if (fresh) {
			char *end;
			double d = strtod(texts[i], &end);
			v->aux_flag = *end != '\0';
			v->aux = v->aux_flag ? 0 : (uint64_t)d;
		}
	}
	/* One value let go of: its id's place is left as it was. */
	valtab_unref(&vt, ids[6]);
	ord[ids[6]] = 777;
	CHECK(valtab_ids(&vt) <= 64);
	valtab_order(&vt, cmp_test, NULL, ord);
	CHECK_INT(ord[ids[6]], 777);
	for (size_t i = 0; i < N; i++)
		for (size_t j = 0; j < N; j++) {
			if (i == 6 || j == 6)
				continue;
			int c = cmp_test(vt.vals[ids[i]], vt.vals[ids[j]], NULL);
			int o = (ord[ids[i]] > ord[ids[j]]) - (ord[ids[i]] < ord[ids[j]]);
			bad += (c > 0) - (c < 0) != o;
		}
	CHECKF(bad == 0, "%zu pairs whose places compare otherwise than their values", bad);
	/* Places are dense from 0: 2 and 2.0 share one, as b1 and b2 do. */
	CHECK_INT(ord[ids[2]], 0);
	CHECK_INT(ord[ids[7]], 0);
	CHECK_INT(ord[ids[4]], ord[ids[1]]);
	CHECK_INT(ord[ids[4]], 4);	/* 2, 10, 30, a, b */
	valtab_release(&vt);
}

int main(void)
{
	RUN(a_text_has_one_id_while_counted);
	RUN(a_full_table_takes_no_new_text_for_good);
	RUN(places_compare_as_the_values_do);
	return unit_done();
}

/*
 * table_cells.h — the kind's cells of the table's rows (READY, STATUS...)
 * and the keys kept of them for sorting.  A cell costs a read of the
 * object; they are kept for the rows drawn, or every row's once a sort
 * needs them (cells_live), in a map beside the rows.  The keys: a 16-bit
 * id per column of a row's cell in a table of the column's distinct
 * values (lib/valtab.h), made from sync on in the loop's idle slices.
 */
#ifndef KINF_TABLE_CELLS_H
#define KINF_TABLE_CELLS_H

#include "tui/table_state.h"

/* Cell i of a packed "a\0b\0" list. */
const char *cells_at(const char *cells, size_t i);
/* Whether a kind's cell reads as a number, which sorts before any text:
 * its value as double_order() into *num (else 0). */
bool cells_number(const char *cell, uint64_t *num);
/* How old cells (cells_of()'s) are at now_mono, in ms (to a tenth of a
 * second). */
int64_t cells_age(const char *cells, int64_t now_mono);
/* What is kept beside cells (cells_of()'s): their version and time. */
const struct cells_head *cells_head(const char *cells);
/* Row r's cells when they are of its current version, else NULL. */
const char *cells_current(const struct table_state *st, const struct row *r);
/* Row r's cells let go of (r is about to be freed). */
void cells_drop(struct table_state *st, struct row *r);
/* Makes the row's kind cells of its current version, kept for it. */
void cells_make(struct tab *tab, struct row *r, int64_t now_mono);
/* Row r's cells ("READY\0STATUS\0...\0"), or NULL: none made yet. */
const char *cells_of(const struct table_state *st, const struct row *r);
/* Whether rows may be left without keys, to be made in idle slices. */
bool keys_due(const struct tab *tab);
/* Whether row r's keys are made (a full column's are 0: not kept). */
bool keys_have(const struct table_state *st, const struct row *r);
/*
 * Row r's keys made again, from its cells when they are current, else
 * from cells made for the purpose and not kept.  true when a column's
 * table of values filled with it: that column is sorted by its cells
 * from now on.
 */
bool keys_make(struct tab *tab, struct row *r);
/* Row r's keys let go of. */
void keys_unref(struct table_state *st, struct row *r);
/* The table's cells and keys made ready for tab, and let go of. */
void table_cells_init(struct table_state *st, struct tab *tab);
void table_cells_release(struct table_state *st);

#endif

/*
 * tui_table.h — the Indexer as a live table (tui_table.c says how its order is kept).
 */
#ifndef KINF_TUI_TABLE_H
#define KINF_TUI_TABLE_H

#include "tui/tui_view.h"

/* Sorts and filters again what changed (every step is cheap: none put off). */
void table_refresh(struct tui *t, struct tab *tab);
/* Sorting: by the column step places on in screen order (s, <, >), the
 * other way round (S), or by the column with that initial (Shift+letter;
 * again, the next with it; false when none has it). */
void table_cycle_sort(struct tui *t, struct tab *tab, int step);
void table_reverse_sort(struct tui *t, struct tab *tab);
bool table_sort_letter(struct tui *t, struct tab *tab, char letter);
/*
 * A new sort is answered with its first page when it can be (tui_table.c's
 * struct pending); the rest of its order is made by table_work(), a slice
 * of about budget_ms at a time, which the loop calls while table_pending()
 * says some is left, without sleeping in between.  So are, from sync on,
 * the rows' keys for a sort by a kind's column (struct row's kind_key).
 */
bool table_pending(const struct tui *t);
void table_work(struct tui *t, int budget_ms);
/* Whether tab's new sort is still a page: a row freed now (model_expire())
 * would have it finished first, at once rather than in slices. */
bool table_paging(const struct tab *tab);
/* Each second (the loop's tick): what a burst of sorts and filters kept
 * is given back once no key has sorted or filtered for a while. */
void table_tick(struct tui *t);
/* The row under the table's cursor, or NULL. */
struct row *table_selected(struct tab *tab);
/* What the table shows changed (a filter, pause): sort and filter again. */
void table_invalidate(struct tab *tab);
/* The cursor to the first row (a new filter). */
void table_to_top(struct tab *tab);
/*
 * Only namespace ns shown ("": all), the one left kept in ns_prev;
 * every table, shown anew, from its first row.
 */
void tui_namespace_show(struct tui *t, const char *ns);

/*
 * ---- what the table's drawing (table_draw.c) reads, and its state's
 * life: the order of the rows on screen and their cells.
 */
struct table_state;

/* Whether the TUI's namespace (:ns) hides rows of this tab. */
bool order_by_namespace(const struct tui *t, const struct tab *tab);
/* The header of column id (SORT_*, or SORT__FIXED + a kind's column). */
const char *order_column_name(const struct tab *tab, int id);
/* Whether a filter or the namespace hides rows of this tab. */
bool order_filtering(const struct tui *t, const struct tab *tab);
/* The row i-th on screen (a page's when it is that far: else its sort is
 * finished first), or NULL. */
struct row *order_row_at(struct tab *tab, size_t i);
/*
 * The kind's cells of row r, made again when r changed or when they are
 * older than max_age ms (a visible row's AGE moves on; -1: never).  Made
 * again while sorted by one of them, the row moves to its new place.
 */
const char *order_row_cells(struct tui *t, struct tab *tab, struct row *r, int64_t max_age);
/* The columns' identities in screen order; returns how many. */
size_t order_screen_order(const struct tui *t, const struct tab *tab, int *ids, size_t max);
/* The cursor moved: it follows this row from now on. */
void order_sel_note(struct tab *tab);
/* How many rows are shown (the filter's), exact at every frame. */
size_t order_shown_nr(const struct tab *tab);
/* The order made ready for tab (its row hook set), and let go of. */
void table_order_init(struct tui *t, struct tab *tab);
void table_order_release(struct table_state *st);

#endif

/*
 * table_writer.h — an aligned table, written as kubectl's printers write
 * one: its cells a tab apart, a line a row, through lib/tabwriter as
 * kubectl's (minwidth 6, padding 3, spaces).  So a cell is as wide as
 * its characters, every column but the last padded to its widest plus
 * three, and a tab or a line break inside a cell splits it as it splits
 * kubectl's: a cell that must stay one is escaped before it is added.
 * Rows print in the order added: sort first (kubectl shows what the
 * server sends, sorted by namespace and name).
 *
 * Not thread-safe on the same table; distinct tables may be used from
 * any thread.
 */
#ifndef KINF_TABLE_WRITER_H
#define KINF_TABLE_WRITER_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;
struct tabwriter;

struct table;

/* A table of ncols columns with these headers (copied). */
struct table *table_new(const char *const *headers, size_t ncols);
/* Adds a row of ncols cells (copied; NULL reads as ""). */
void table_add_row(struct table *t, const char *const *cells);
size_t table_rows(const struct table *t);
/*
 * Column widths kept from one table to the next, as kubectl's tabwriter
 * keeps them between flushes under `get -w` (RememberWidths): a column
 * is as wide as the widest cell it ever had, by position, whatever the
 * table (a Status's table after the pods' included).  Zeroed (or
 * TABLE_WIDTHS_INIT); table_widths_release() frees it.
 */
struct table_widths {
	struct tabwriter *tw;	/* made at the first table */
};
#define TABLE_WIDTHS_INIT { NULL }
void table_widths_release(struct table_widths *tw);
/*
 * The table's text (its header line unless no_headers), appended to out;
 * with tw (NULL: none), in the widths kept there, which it widens.
 */
void table_format(const struct table *t, bool no_headers, struct table_widths *tw,
		  struct strbuf *out);
void table_free(struct table *t);	/* NULL is a no-op */

#endif

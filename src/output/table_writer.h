/*
 * table_writer.h — an aligned table, written as kubectl writes one:
 * every column but the last padded to its widest cell (in characters,
 * not bytes) plus three spaces, and never narrower than six (kubectl's
 * tabwriter minimum); the last column unpadded.  Rows print in the order added: sort first (kubectl
 * shows what the server sends, sorted by namespace and name).
 *
 * Not thread-safe on the same table; distinct tables may be used from
 * any thread.
 */
#ifndef KINF_TABLE_WRITER_H
#define KINF_TABLE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct strbuf;

struct table;

/* A table of ncols columns with these headers (copied). */
struct table *table_new(const char *const *headers, size_t ncols);
/* Adds a row of ncols cells (copied; NULL reads as ""). */
void table_add_row(struct table *t, const char *const *cells);
size_t table_rows(const struct table *t);
/*
 * Writes the header line (unless no_headers) and the rows.  Returns 0, or
 * -1 when writing failed (errno tells why; EPIPE when the reader left).
 */
int table_write(const struct table *t, FILE *out, bool no_headers);
/*
 * Column widths kept from one table to the next, as kubectl's tabwriter
 * keeps them between flushes under `get -w` (RememberWidths): a column
 * is as wide as the widest cell it ever had, by position, whatever the
 * table (a Status's table after the pods' included).  TABLE_WIDTHS_INIT
 * or zeroed; table_widths_release() frees it.
 */
struct table_widths {
	size_t *w;
	size_t n;
};
#define TABLE_WIDTHS_INIT { NULL, 0 }
void table_widths_release(struct table_widths *tw);
/*
 * The same text, appended to out; with tw (NULL: none), every column but
 * the last widened to tw's and kept in it.
 */
void table_format(const struct table *t, bool no_headers, struct table_widths *tw,
		  struct strbuf *out);
void table_free(struct table *t);	/* NULL is a no-op */

#endif

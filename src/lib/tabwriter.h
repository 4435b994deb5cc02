/*
 * tabwriter.h — Go's text/tabwriter, as kubectl's `get -w` writes
 * through it (cli-runtime's GetNewTabWriter: liggitt/tabwriter, spaces,
 * RememberWidths).
 *
 * Text is cut into cells at each tab (and vertical tab); a line ends at
 * a newline or form feed.  Every cell ended by a tab is in a column: a
 * run of lines that each have a cell in column k is padded to the widest
 * of them plus padding, and never narrower than minwidth; the text after
 * a line's last tab is no column's.  Widths are counted in characters
 * (Go's utf8.RuneCount: a byte that starts no valid UTF-8 sequence is
 * one); text between two 0xff bytes is one piece, its tabs no cells,
 * the 0xff bytes written but not counted.  With remember_widths a
 * column is never narrower than it was in an earlier flush.
 *
 * As Go's, what a write brings is formatted when a line ends that has
 * one cell only (it cannot change the lines before it) or a form feed
 * ends one, and the rest at tabwriter_flush(): a command that ends
 * without flushing, as kubectl's watch ends on a print that failed,
 * writes only what those lines let go.
 *
 * Not thread-safe.
 */
#ifndef KINF_TABWRITER_H
#define KINF_TABWRITER_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/strbuf.h"

struct tw_cell {
	size_t size;		/* bytes in buf */
	long width;		/* characters (Go's int: an escape never closed can make it -1) */
};

struct tw_line {
	struct tw_cell *cells;
	size_t n, alloc;
};

struct tabwriter {
	long minwidth, padding;
	bool remember_widths;
	struct strbuf buf;		/* the cells' text, tabs and line ends left out */
	size_t pos;			/* buf counted into cell.width up to here */
	struct tw_cell cell;		/* the cell being written */
	bool escaped;			/* inside 0xff ... 0xff */
	struct tw_line *lines;		/* the last: the line being written */
	size_t nlines, lines_alloc;
	long *widths;			/* the columns being formatted */
	size_t nwidths, widths_alloc;
	long *remembered;
	size_t nremembered, remembered_alloc;
};

/* kubectl's: tabwriter.NewWriter(out, 6, 4, 3, ' ', tabwriter.RememberWidths) */
#define TABWRITER_KUBECTL_MINWIDTH 6
#define TABWRITER_KUBECTL_PADDING 3

void tabwriter_init(struct tabwriter *tw, long minwidth, long padding, bool remember_widths);
/* Takes text[0..len); what it lets go is appended to out, formatted. */
void tabwriter_write(struct tabwriter *tw, const char *text, size_t len, struct strbuf *out);
/* Appends all that is held to out, formatted (a line not ended: as it is). */
void tabwriter_flush(struct tabwriter *tw, struct strbuf *out);
void tabwriter_release(struct tabwriter *tw);

#endif

/* table_writer.c — aligned tables as kubectl's tabwriter writes them; see the header. */
#include "output/table_writer.h"

#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/tabwriter.h"
#include "lib/util.h"

struct table {
	size_t ncols;
	char **headers;
	char **cells;		/* rows * ncols, row-major */
	size_t rows, alloc;
};

struct table *table_new(const char *const *headers, size_t ncols)
{
	struct table *t = xcalloc(1, sizeof(*t));

	t->ncols = ncols;
	t->headers = xcalloc(ncols ? ncols : 1, sizeof(*t->headers));
	for (size_t i = 0; i < ncols; i++)
		t->headers[i] = xstrdup(headers[i] ? headers[i] : "");
	return t;
}

void table_add_row(struct table *t, const char *const *cells)
{
	/* a slot more: a table of no columns (a server's Table may be one) has rows too */
	ALLOC_GROW(t->cells, (t->rows + 1) * t->ncols + 1, t->alloc);
	for (size_t i = 0; i < t->ncols; i++)
		t->cells[t->rows * t->ncols + i] = xstrdup(cells[i] ? cells[i] : "");
	t->rows++;
}

size_t table_rows(const struct table *t)
{
	return t->rows;
}

/* A line as kubectl's printers write one to their tabwriter: cells a tab apart. */
static void add_line(struct strbuf *sb, char *const *cells, size_t ncols)
{
	for (size_t i = 0; i < ncols; i++) {
		if (i)
			strbuf_addch(sb, '\t');
		strbuf_adds(sb, cells[i]);
	}
	strbuf_addch(sb, '\n');
}

void table_widths_release(struct table_widths *tw)
{
	if (tw->tw)
		tabwriter_release(tw->tw);
	free(tw->tw);
	tw->tw = NULL;
}

void table_format(const struct table *t, bool no_headers, struct table_widths *tw,
		  struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;
	struct tabwriter once, *w = &once;

	if (tw && !tw->tw) {
		tw->tw = xmalloc(sizeof(*tw->tw));
		tabwriter_init(tw->tw, TABWRITER_KUBECTL_MINWIDTH, TABWRITER_KUBECTL_PADDING, true);
	}
	if (tw)
		w = tw->tw;
	else	/* remembered too: a line without a tab flushes what came before */
		tabwriter_init(w, TABWRITER_KUBECTL_MINWIDTH, TABWRITER_KUBECTL_PADDING, true);
	if (!no_headers)
		add_line(&text, t->headers, t->ncols);
	for (size_t r = 0; r < t->rows; r++)
		add_line(&text, t->cells + r * t->ncols, t->ncols);
	tabwriter_write(w, text.buf, text.len, out);
	tabwriter_flush(w, out);
	if (w == &once)
		tabwriter_release(w);
	strbuf_release(&text);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->rows * t->ncols; i++)
		free(t->cells[i]);
	for (size_t i = 0; i < t->ncols; i++)
		free(t->headers[i]);
	free(t->cells);
	free(t->headers);
	free(t);
}

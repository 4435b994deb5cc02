/* table_writer.c — aligned tables as kubectl's tabwriter writes them; see the header. */
#include "output/table_writer.h"

#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
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

#define TABLE_PADDING 3
#define TABLE_MIN_WIDTH 6	/* kubectl's tabwriter: cell plus padding */

static void add_table_line(struct strbuf *sb, char *const *cells, size_t ncols,
			   const size_t *width)
{
	for (size_t i = 0; i < ncols; i++) {
		strbuf_adds(sb, cells[i]);
		if (i + 1 == ncols)
			break;
		for (size_t w = utf8_width(cells[i]); w < width[i]; w++)
			strbuf_addch(sb, ' ');
	}
	strbuf_addch(sb, '\n');
}

void table_widths_release(struct table_widths *tw)
{
	free(tw->w);
	tw->w = NULL;
	tw->n = 0;
}

/* The widths of t's columns, each at least tw's (when tw is not NULL), kept in it. */
void table_format(const struct table *t, bool no_headers, struct table_widths *tw,
		  struct strbuf *sb)
{
	size_t *width = xcalloc(t->ncols ? t->ncols : 1, sizeof(*width));

	if (tw && tw->n < t->ncols) {
		tw->w = xrealloc(tw->w, t->ncols * sizeof(*tw->w));
		memset(tw->w + tw->n, 0, (t->ncols - tw->n) * sizeof(*tw->w));
		tw->n = t->ncols;
	}
	for (size_t i = 0; i < t->ncols; i++) {
		size_t w = no_headers ? 0 : utf8_width(t->headers[i]);
		for (size_t r = 0; r < t->rows; r++) {
			size_t cw = utf8_width(t->cells[r * t->ncols + i]);
			if (cw > w)
				w = cw;
		}
		w += TABLE_PADDING;
		width[i] = w < TABLE_MIN_WIDTH ? TABLE_MIN_WIDTH : w;
		/* the tabwriter's last cell on a line is no column: not kept */
		if (tw && i + 1 < t->ncols) {
			if (tw->w[i] > width[i])
				width[i] = tw->w[i];
			tw->w[i] = width[i];
		}
	}
	if (!no_headers)
		add_table_line(sb, t->headers, t->ncols, width);
	for (size_t r = 0; r < t->rows; r++)
		add_table_line(sb, t->cells + r * t->ncols, t->ncols, width);
	free(width);
}

int table_write(const struct table *t, FILE *out, bool no_headers)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	table_format(t, no_headers, NULL, &sb);
	if (sb.len && (fwrite(sb.buf, 1, sb.len, out) != sb.len || fflush(out)))
		ret = -1;
	if (ferror(out))
		ret = -1;
	strbuf_release(&sb);
	return ret;
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

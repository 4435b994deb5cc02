/* tabwriter.c — Go's text/tabwriter with RememberWidths; see tabwriter.h. */
#include "lib/tabwriter.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#define ESCAPE '\xff'

static void add_line(struct tabwriter *tw)
{
	ALLOC_GROW(tw->lines, tw->nlines + 1, tw->lines_alloc);
	tw->lines[tw->nlines++] = (struct tw_line){ 0 };
}

static void reset(struct tabwriter *tw)
{
	for (size_t i = 0; i < tw->nlines; i++)
		free(tw->lines[i].cells);
	strbuf_reset(&tw->buf);
	tw->pos = 0;
	tw->cell = (struct tw_cell){ 0 };
	tw->escaped = false;
	tw->nlines = 0;
	tw->nwidths = 0;
	add_line(tw);
}

void tabwriter_init(struct tabwriter *tw, long minwidth, long padding, bool remember_widths)
{
	*tw = (struct tabwriter){
		.minwidth = minwidth,
		.padding = padding,
		.remember_widths = remember_widths,
		.buf = STRBUF_INIT,
	};
	reset(tw);
}

void tabwriter_release(struct tabwriter *tw)
{
	for (size_t i = 0; i < tw->nlines; i++)
		free(tw->lines[i].cells);
	free(tw->lines);
	free(tw->widths);
	free(tw->remembered);
	strbuf_release(&tw->buf);
	memset(tw, 0, sizeof(*tw));
}

/* Go's utf8.RuneCount */
static long runes(const char *s, size_t len)
{
	long n = 0;

	for (size_t i = 0, step; i < len; i += step, n++)
		utf8_decode(s + i, len - i, &step);
	return n;
}

static void update_width(struct tabwriter *tw)
{
	tw->cell.width += runes(tw->buf.buf + tw->pos, tw->buf.len - tw->pos);
	tw->pos = tw->buf.len;
}

static void append(struct tabwriter *tw, const char *text, size_t len)
{
	strbuf_add(&tw->buf, text, len);
	tw->cell.size += len;
}

static void end_escape(struct tabwriter *tw)
{
	update_width(tw);
	tw->cell.width -= 2;	/* the two 0xff bytes are written, not counted */
	tw->escaped = false;
}

/* Ends the cell being written; how many cells its line has. */
static size_t terminate_cell(struct tabwriter *tw)
{
	struct tw_line *line = &tw->lines[tw->nlines - 1];

	ALLOC_GROW(line->cells, line->n + 1, line->alloc);
	line->cells[line->n++] = tw->cell;
	tw->cell = (struct tw_cell){ 0 };
	return line->n;
}

static void pad(struct strbuf *out, long n)
{
	for (; n > 0; n--)
		strbuf_addch(out, ' ');
}

/* Lines [line0, line1), their text from buf[pos]; returns where they end. */
static size_t write_lines(struct tabwriter *tw, size_t pos, size_t line0, size_t line1,
			  struct strbuf *out)
{
	for (size_t i = line0; i < line1; i++) {
		const struct tw_line *line = &tw->lines[i];
		for (size_t j = 0; j < line->n; j++) {
			const struct tw_cell *c = &line->cells[j];
			strbuf_add(out, tw->buf.buf + pos, c->size);
			pos += c->size;
			if (j < tw->nwidths)
				pad(out, tw->widths[j] - c->width);
		}
		if (i + 1 == tw->nlines) {	/* the line not ended: what it has */
			strbuf_add(out, tw->buf.buf + pos, tw->cell.size);
			pos += tw->cell.size;
		} else {
			strbuf_addch(out, '\n');
		}
	}
	return pos;
}

/* Whether a line has a cell in column (its last cell is in none). */
static bool has_column(const struct tw_line *line, size_t column)
{
	return line->n && column < line->n - 1;
}

/* The column's width, as wide as it ever was with remember_widths. */
static long remembered(struct tabwriter *tw, long width)
{
	size_t column = tw->nwidths;

	if (tw->nremembered < column) {
		ALLOC_GROW(tw->remembered, column, tw->remembered_alloc);
		memcpy(tw->remembered + tw->nremembered, tw->widths + tw->nremembered,
		       (column - tw->nremembered) * sizeof(*tw->widths));
		tw->nremembered = column;
	}
	if (tw->nremembered == column) {
		ALLOC_GROW(tw->remembered, column + 1, tw->remembered_alloc);
		tw->remembered[tw->nremembered++] = width;
	} else if (tw->remembered[column] > width) {
		width = tw->remembered[column];
	} else {
		tw->remembered[column] = width;
	}
	return width;
}

/*
 * Go's format(): each run of lines [line0, line1) with a cell in the
 * next column is formatted with that column's width pushed, the columns
 * right of it first; the lines between runs are written as they are.
 */
static size_t format(struct tabwriter *tw, size_t pos, size_t line0, size_t line1,
		     struct strbuf *out)
{
	size_t column = tw->nwidths;

	for (size_t this = line0; this < line1; this++) {
		if (!has_column(&tw->lines[this], column))
			continue;
		pos = write_lines(tw, pos, line0, this, out);
		line0 = this;
		long width = tw->minwidth;
		for (; this < line1 && has_column(&tw->lines[this], column); this++) {
			const struct tw_cell *c = &tw->lines[this].cells[column];
			if (c->width + tw->padding > width)
				width = c->width + tw->padding;
		}
		if (tw->remember_widths)
			width = remembered(tw, width);
		ALLOC_GROW(tw->widths, tw->nwidths + 1, tw->widths_alloc);
		tw->widths[tw->nwidths++] = width;
		pos = format(tw, pos, line0, this, out);
		tw->nwidths--;
		line0 = this;
	}
	return write_lines(tw, pos, line0, line1, out);
}

void tabwriter_flush(struct tabwriter *tw, struct strbuf *out)
{
	if (tw->cell.size) {
		if (tw->escaped)
			end_escape(tw);	/* an escape not closed is one all the same */
		terminate_cell(tw);
	}
	format(tw, 0, 0, tw->nlines, out);
	reset(tw);
}

void tabwriter_write(struct tabwriter *tw, const char *text, size_t len, struct strbuf *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = text[i];
		if (tw->escaped) {
			if (ch == ESCAPE) {
				append(tw, text + n, i + 1 - n);
				n = i + 1;
				end_escape(tw);
			}
			continue;
		}
		if (ch == '\t' || ch == '\v' || ch == '\n' || ch == '\f') {
			append(tw, text + n, i - n);
			update_width(tw);
			n = i + 1;
			size_t ncells = terminate_cell(tw);
			if (ch == '\n' || ch == '\f') {
				add_line(tw);
				/* a line of one cell changes no line before it: let them go */
				if (ch == '\f' || ncells == 1)
					tabwriter_flush(tw, out);
			}
		} else if (ch == ESCAPE) {
			append(tw, text + n, i - n);
			update_width(tw);
			n = i;
			tw->escaped = true;
		}
	}
	append(tw, text + n, len - n);
}

/*
 * test_tabwriter.c — Go's tabwriter as kubectl's `get -w` configures it
 * (6, 4, 3, ' ', RememberWidths).  Each expected text is what
 * github.com/liggitt/tabwriter wrote for the same writes and flushes,
 * recorded from it; 60,000 random cases of tabs, line ends, escapes and
 * broken UTF-8 were compared with it the same way when this was written.
 */
#include <string.h>

#include "lib/tabwriter.h"
#include "unit.h"

/* The writes of ops ("" flushes; NULL ends), written and flushed so, into out. */
static void run(const char *const *ops, struct strbuf *out)
{
	struct tabwriter tw;

	tabwriter_init(&tw, TABWRITER_KUBECTL_MINWIDTH, TABWRITER_KUBECTL_PADDING, true);
	for (; *ops; ops++) {
		if (**ops)
			tabwriter_write(&tw, *ops, strlen(*ops), out);
		else
			tabwriter_flush(&tw, out);
	}
	tabwriter_release(&tw);
}

#define CHECK_WRITES(want, ...)                                         \
	do {                                                            \
		struct strbuf out_ = STRBUF_INIT;                       \
		run((const char *const[]){ __VA_ARGS__, NULL }, &out_); \
		CHECK_STR(out_.buf ? out_.buf : "", want);              \
		strbuf_release(&out_);                                  \
	} while (0)

TEST(columns_padded_to_the_widest_never_under_six)
{
	CHECK_WRITES("a        b\nlonger   x\n", "a\tb\nlonger\tx\n", "");
	CHECK_WRITES("            x\n      y\n", "\t\tx\n\ty\n", "");
	/* a line not ended is written as it is */
	CHECK_WRITES("a     b", "a\tb", "");
	/* a vertical tab ends a cell, a form feed a line */
	CHECK_WRITES("a     b     c\nd     e\n", "a\vb\tc\fd\te\n", "");
}

TEST(widths_remembered_from_one_flush_to_the_next)
{
	CHECK_WRITES("aaaaaaaaaa   b\nc            d\n", "aaaaaaaaaa\tb\n", "", "c\td\n", "");
}

TEST(a_line_of_one_cell_lets_the_lines_before_it_go_unflushed)
{
	/* what follows the plain line waits for a flush that never comes */
	CHECK_WRITES("x     y\nplain\n", "x\ty\nplain\na\tb\n");
}

TEST(characters_not_bytes_and_escapes_as_one_piece)
{
	/* é is one; a byte that starts no UTF-8 sequence is one */
	CHECK_WRITES("\xc3\xa9\xc3\xa9    x\n\x80\x80    y\n", "\xc3\xa9\xc3\xa9\tx\n\x80\x80\ty\n", "");
	/* between 0xff bytes a tab is text; the 0xff bytes written, not counted */
	CHECK_WRITES("\xff" "a\tb\xff   c\nd     e\n", "\xff" "a\tb\xff\tc\nd\te\n", "");
}

int main(void)
{
	RUN(columns_padded_to_the_widest_never_under_six);
	RUN(widths_remembered_from_one_flush_to_the_next);
	RUN(a_line_of_one_cell_lets_the_lines_before_it_go_unflushed);
	RUN(characters_not_bytes_and_escapes_as_one_piece);
	return unit_done();
}

/*
 * test_termsafe.c — lib/termsafe: every byte a terminal acts on comes out
 * as printable ASCII, the rest as it came; cut results stay whole.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "lib/util.h"
#include "unit.h"

struct row {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	unsigned flags;
	const char *out;
};

static const struct row rows[] = {
	{ "plain ascii", 0, 0, "plain ascii" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0, 0, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	/* ESC and CR as kubectl's table printer shows them */
	{ "\x1b]0;pwned\x07", 0, 0, "^[]0;pwned^G" },
	{ "\x1b[2J", 0, 0, "^[[2J" },
	{ "over\rwrite", 0, 0, "over\\rwrite" },
	/* tab kept; newline shown, kept, or a space */
	{ "a\tb", 0, 0, "a\tb" },
	{ "a\nb", 0, 0, "a\\nb" },
	{ "a\nb", 0, TERMSAFE_NEWLINE, "a\nb" },
	{ "a\nb\tc", 0, TERMSAFE_ONE_LINE, "a b c" },
	{ "a\rb", 0, TERMSAFE_ONE_LINE, "a\\rb" },
	/* the rest of C0, NUL included, and DEL */
	{ "\x01\x08\x0b\x0c\x1f", 0, 0, "^A^H^K^L^_" },
	{ "a\0b", 3, 0, "a^@b" },
	{ "\x7f", 0, 0, "^?" },
	/* C1 as characters (U+0080, U+009B the one-byte CSI, U+009F) */
	{ "\xc2\x80\xc2\x9b" "31m\xc2\x9f", 0, 0, "\\u0080\\u009b31m\\u009f" },
	{ "\xc2\xa0", 0, 0, "\xc2\xa0" },	/* U+00A0 is printable */
	/* bidirectional overrides and isolates */
	{ "\xe2\x80\xaa\xe2\x80\xae" "evil", 0, 0, "\\u202a\\u202eevil" },
	{ "\xe2\x81\xa6\xe2\x81\xa9", 0, 0, "\\u2066\\u2069" },
	{ "\xe2\x80\xa9\xe2\x81\xaa", 0, 0, "\xe2\x80\xa9\xe2\x81\xaa" },	/* neighbours kept */
	/* bytes of no UTF-8 character, each on its own */
	{ "\xff\xfe", 0, 0, "\\xff\\xfe" },
	{ "\xc3", 0, 0, "\\xc3" },
	{ "\xc0\xaf", 0, 0, "\\xc0\\xaf" },
	{ "\xed\xa0\x80", 0, 0, "\\xed\\xa0\\x80" },
	/* kubectl's custom-columns: ESC and CR only */
	{ "\x1b]0;t\x07\r\n\x7f\xc2\x9b\xff", 0, TERMSAFE_KUBECTL, "^[]0;t\x07\\r\n\x7f\xc2\x9b\xff" },
	/* a raw C1 byte is no UTF-8 character either */
	{ "\x9b" "2J", 0, 0, "\\x9b2J" },
};

TEST(escapes_what_a_terminal_acts_on)
{
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct row *r = &rows[i];
		size_t len = r->len ? r->len : strlen(r->in);
		char out[128];
		size_t n = termsafe_escape(out, sizeof(out), r->in, len, r->flags);
		CHECKF(!strcmp(out, r->out), "row %zu: got '%s', want '%s'", i, out, r->out);
		CHECKF(n == strlen(r->out), "row %zu: length %zu", i, n);
		CHECKF(termsafe_is_safe(r->in, len, r->flags) == !strcmp(r->in, r->out),
		       "row %zu: is_safe disagrees", i);
		/* Escaped text is safe: escaping it again changes nothing. */
		CHECKF(termsafe_is_safe(out, n, r->flags), "row %zu: output not safe", i);
	}
}

TEST(no_byte_a_terminal_acts_on_survives)
{
	char in[256], out[2048];

	for (int c = 0; c < 256; c++)
		in[c] = (char)c;
	size_t n = termsafe_escape(out, sizeof(out), in, sizeof(in), 0);
	CHECK(n < sizeof(out));
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];
		if ((c < 0x20 && c != '\t') || c >= 0x7f)
			bad++;
	}
	CHECK_INT(bad, 0);
}

/* snprintf's contract: the whole length back; nothing cut in two. */
TEST(cuts_whole)
{
	char out[6];
	size_t n = termsafe_escape(out, sizeof(out), "ab\x1b[cd", 6, 0);
	CHECK_INT(n, 7);
	CHECK_STR(out, "ab^[[");
	n = termsafe_escape(out, 4, "ab\x1b", 3, 0);
	CHECK_INT(n, 4);
	CHECK_STR(out, "ab");		/* "^[" does not fit: neither half */
	n = termsafe_escape(out, 4, "a\xc3\xa9", 3, 0);
	CHECK_STR(out, "a\xc3\xa9");
	n = termsafe_escape(out, 3, "a\xc3\xa9", 3, 0);
	CHECK_STR(out, "a");
	CHECK_INT(termsafe_escape(NULL, 0, "\x7f", 1, 0), 2);
}

TEST(lines_and_buffers)
{
	char msg[16] = "a\nb\x1b[2J\x07";
	termsafe_line(msg, sizeof(msg));
	CHECK_STR(msg, "a b^[[2J^G");
	char small[8] = "\x1b\x1b\x1b\x1b\x1b";
	termsafe_line(small, sizeof(small));
	CHECK_STR(small, "^[^[^[");

	struct errbuf err;
	errbuf_set(&err, "status '%s'", "\x1b]0;t\x07\r");
	CHECK_STR(err.msg, "status '^[]0;t^G\\r'");

	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, "<");
	strbuf_add_termsafe(&sb, "\xe2\x80\xae" "x\n", 5, 0);
	strbuf_add_termsafe(&sb, "", 0, 0);
	CHECK_STR(sb.buf, "<\\u202ex\\n");
	CHECK_INT(sb.len, strlen(sb.buf));
	strbuf_release(&sb);

	char *d = termsafe_dup("\x9b", 0);
	CHECK_STR(d, "\\x9b");
	free(d);
}

int main(void)
{
	RUN(escapes_what_a_terminal_acts_on);
	RUN(no_byte_a_terminal_acts_on_survives);
	RUN(cuts_whole);
	RUN(lines_and_buffers);
	return unit_done();
}

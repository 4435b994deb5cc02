/*
 * gojson.c — Go's JSON scanner (encoding/json scanner.go) as a state
 * machine over bytes; see gojson.h.  The states and their messages are
 * Go's; the code is a switch, a stack of what each open bracket awaits.
 */
#include "lib/gojson.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/util.h"

enum state {
	BEGIN_VALUE_OR_EMPTY,	/* after '[' */
	BEGIN_VALUE,
	BEGIN_KEY_OR_EMPTY,	/* after '{' */
	BEGIN_KEY,		/* after ',' in an object */
	END_VALUE,
	IN_STRING,
	IN_STRING_ESC,
	IN_STRING_ESC_U,	/* u_left hex digits to come */
	NEG, ONE, ZERO, DOT, DOT0, EXP, EXP_SIGN, EXP0,
	LITERAL,		/* lit[lit_at] to come */
};

/* What an open bracket awaits next: Go's parseState. */
enum { AWAIT_KEY, AWAIT_VALUE, AWAIT_ELEMENT };

struct scan {
	enum state state;
	unsigned char *stack;
	size_t nr, alloc;
	const char *lit;
	size_t lit_at;
	int u_left;
	struct strbuf *msg;
};

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Go's quoteChar: the byte as a one-rune string strconv.Quote'd, in ''. */
static void quote_char(unsigned char c, struct strbuf *out)
{
	static const char named[] = "\a\b\f\n\r\t\v", letters[] = "abfnrtv";
	const char *e = c ? strchr(named, c) : NULL;

	if (c == '\'') {
		strbuf_adds(out, "'\\''");
	} else if (c == '"') {
		strbuf_adds(out, "'\"'");
	} else if (c == '\\') {
		strbuf_adds(out, "'\\\\'");
	} else if (e) {
		strbuf_addf(out, "'\\%c'", letters[e - named]);
	} else if (c < 0x20 || c == 0x7f) {
		strbuf_addf(out, "'\\x%02x'", c);
	} else if (c < 0x80) {
		strbuf_addf(out, "'%c'", c);
	} else if (c <= 0xa0 || c == 0xad) {
		strbuf_addf(out, "'\\u%04x'", c);	/* not printable to Go */
	} else {
		/* the rune U+00c0..U+00ff in UTF-8 */
		strbuf_addf(out, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
	}
}

static int fail(struct scan *s, unsigned char c, const char *context)
{
	strbuf_adds(s->msg, "invalid character ");
	quote_char(c, s->msg);
	strbuf_addf(s->msg, " %s", context);
	return -1;
}

static int push(struct scan *s, unsigned char c, int await, enum state next)
{
	ALLOC_GROW(s->stack, s->nr + 1, s->alloc);
	s->stack[s->nr++] = (unsigned char)await;
	s->state = next;
	return s->nr <= JSON_MAX_DEPTH ? 0 : fail(s, c, "exceeded max depth");
}

/* A value has ended; c is the byte after it.  1: the top-level one did. */
static int end_value(struct scan *s, unsigned char c)
{
	s->state = END_VALUE;
	if (!s->nr || is_space(c))
		return !s->nr;
	switch (s->stack[s->nr - 1]) {
	case AWAIT_KEY:
		if (c != ':')
			return fail(s, c, "after object key");
		s->stack[s->nr - 1] = AWAIT_VALUE;
		s->state = BEGIN_VALUE;
		return 0;
	case AWAIT_VALUE:
		if (c == ',') {
			s->stack[s->nr - 1] = AWAIT_KEY;
			s->state = BEGIN_KEY;
			return 0;
		}
		if (c != '}')
			return fail(s, c, "after object key:value pair");
		break;
	default:
		if (c == ',') {
			s->state = BEGIN_VALUE;
			return 0;
		}
		if (c != ']')
			return fail(s, c, "after array element");
		break;
	}
	s->nr--;	/* a closing bracket: the value it closes ends with it */
	return 0;
}

static int begin_value(struct scan *s, unsigned char c)
{
	static const char *const literals[] = { "true", "false", "null" };

	if (is_space(c))
		return 0;
	switch (c) {
	case '{':
		return push(s, c, AWAIT_KEY, BEGIN_KEY_OR_EMPTY);
	case '[':
		return push(s, c, AWAIT_ELEMENT, BEGIN_VALUE_OR_EMPTY);
	case '"':
		s->state = IN_STRING;
		return 0;
	case '-':
		s->state = NEG;
		return 0;
	case '0':
		s->state = ZERO;
		return 0;
	}
	if (c >= '1' && c <= '9') {
		s->state = ONE;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(literals); i++) {
		if (c == literals[i][0]) {
			s->lit = literals[i];
			s->lit_at = 1;
			s->state = LITERAL;
			return 0;
		}
	}
	return fail(s, c, "looking for beginning of value");
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* After a number's digits: its exponent, or its end. */
static int exponent_or_end(struct scan *s, unsigned char c)
{
	if (c == 'e' || c == 'E') {
		s->state = EXP;
		return 0;
	}
	return end_value(s, c);
}

/* The number states: ONE to EXP0. */
static int number(struct scan *s, unsigned char c)
{
	switch (s->state) {
	case NEG:
		if (is_digit(c)) {
			s->state = c == '0' ? ZERO : ONE;
			return 0;
		}
		return fail(s, c, "in numeric literal");
	case ONE:
		if (is_digit(c))
			return 0;
		/* fall through */
	case ZERO:
		if (c == '.') {
			s->state = DOT;
			return 0;
		}
		return exponent_or_end(s, c);
	case DOT:
		if (!is_digit(c))
			return fail(s, c, "after decimal point in numeric literal");
		s->state = DOT0;
		return 0;
	case DOT0:
		return is_digit(c) ? 0 : exponent_or_end(s, c);
	case EXP:
		if (c == '+' || c == '-') {
			s->state = EXP_SIGN;
			return 0;
		}
		/* fall through */
	case EXP_SIGN:
		if (!is_digit(c))
			return fail(s, c, "in exponent of numeric literal");
		s->state = EXP0;
		return 0;
	default:	/* EXP0 */
		return is_digit(c) ? 0 : end_value(s, c);
	}
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int string_byte(struct scan *s, unsigned char c)
{
	switch (s->state) {
	case IN_STRING:
		if (c == '"')
			s->state = END_VALUE;
		else if (c == '\\')
			s->state = IN_STRING_ESC;
		else if (c < 0x20)
			return fail(s, c, "in string literal");
		return 0;
	case IN_STRING_ESC:
		if (c == 'u') {
			s->state = IN_STRING_ESC_U;
			s->u_left = 4;
			return 0;
		}
		if (!strchr("bfnrt\\/\"", c) || !c)
			return fail(s, c, "in string escape code");
		s->state = IN_STRING;
		return 0;
	default:	/* IN_STRING_ESC_U */
		if (!is_hex(c))
			return fail(s, c, "in \\u hexadecimal character escape");
		if (--s->u_left == 0)
			s->state = IN_STRING;
		return 0;
	}
}

/* One byte; 1 when the top-level value ended before it, -1 on error. */
static int step(struct scan *s, unsigned char c)
{
	switch (s->state) {
	case BEGIN_VALUE_OR_EMPTY:
		if (is_space(c))
			return 0;
		if (c == ']')
			return end_value(s, c);
		/* fall through */
	case BEGIN_VALUE:
		return begin_value(s, c);
	case BEGIN_KEY_OR_EMPTY:
		if (is_space(c))
			return 0;
		if (c == '}') {
			s->stack[s->nr - 1] = AWAIT_VALUE;
			return end_value(s, c);
		}
		/* fall through */
	case BEGIN_KEY:
		if (is_space(c))
			return 0;
		if (c != '"')
			return fail(s, c, "looking for beginning of object key string");
		s->state = IN_STRING;
		return 0;
	case END_VALUE:
		return end_value(s, c);
	case IN_STRING:
	case IN_STRING_ESC:
	case IN_STRING_ESC_U:
		return string_byte(s, c);
	case LITERAL:
		if (c != (unsigned char)s->lit[s->lit_at]) {
			char context[48];
			snprintf(context, sizeof(context), "in literal %s (expecting '%c')",
				 s->lit, s->lit[s->lit_at]);
			return fail(s, c, context);
		}
		if (!s->lit[++s->lit_at])
			s->state = END_VALUE;
		return 0;
	default:
		return number(s, c);
	}
}

long gojson_value(const char *text, size_t len, struct strbuf *msg)
{
	struct scan s = { .state = BEGIN_VALUE, .msg = msg };
	bool begun = false;
	long ret = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		int rc = step(&s, c);
		if (rc < 0 || (rc > 0 && begun)) {
			ret = rc < 0 ? -1 : (long)i;
			goto done;
		}
		begun |= !(s.state == BEGIN_VALUE && is_space(c));
		/* a closing bracket of the top-level value ends it */
		if (begun && !s.nr && s.state == END_VALUE && (c == '}' || c == ']')) {
			ret = (long)i + 1;
			goto done;
		}
	}
	/* at the end, as Go's decoder at EOF: a scalar that is whole ends */
	if (begun && !s.nr && (s.state == END_VALUE || s.state == ONE || s.state == ZERO ||
			       s.state == DOT0 || s.state == EXP0))
		ret = (long)len;
done:
	free(s.stack);
	return ret;
}

/*
 * The non-ASCII runes that bytes.EqualFold holds equal to an ASCII
 * letter (their Unicode simple case folding).  İ and ı are not: kubectl
 * reads neither "KİND" nor "KıND" as "kind".
 */
static const struct {
	const char *utf8;
	char folded;
} fold_to_ascii[] = {
	{ "\xe2\x84\xaa", 'K' },	/* KELVIN SIGN */
	{ "\xc5\xbf", 'S' },		/* LATIN SMALL LETTER LONG S */
};

static char ascii_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

bool gojson_name_is(const char *key, size_t klen, const char *name)
{
	const char *end = key + klen;

	for (; *name; name++) {
		char want = ascii_upper(*name);
		size_t i;

		if (key < end && !(*key & 0x80) && ascii_upper(*key) == want) {
			key++;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(fold_to_ascii); i++) {
			size_t n = strlen(fold_to_ascii[i].utf8);
			if (fold_to_ascii[i].folded == want && (size_t)(end - key) >= n &&
			    !memcmp(key, fold_to_ascii[i].utf8, n))
				break;
		}
		if (i == ARRAY_SIZE(fold_to_ascii))
			return false;
		key += strlen(fold_to_ascii[i].utf8);
	}
	return key == end;
}

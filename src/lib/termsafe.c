/* termsafe.c — server text escaped for a terminal (termsafe.h). */
#include "lib/termsafe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t termsafe_utf8_len(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n;

	if (!len)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		n = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		n = 3;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		n = 4;
	else
		return 0;
	/* The second byte's range rules out overlongs, surrogates, > U+10FFFF. */
	if (p[0] == 0xE0)
		lo = 0xA0;
	else if (p[0] == 0xED)
		hi = 0x9F;
	else if (p[0] == 0xF0)
		lo = 0x90;
	else if (p[0] == 0xF4)
		hi = 0x8F;
	if (len < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

static unsigned code_point(const unsigned char *p, size_t n)
{
	unsigned cp = p[0] & (0x7F >> n);

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (p[i] & 0x3F);
	return cp;
}

/* Characters that are printable but reorder the text around them. */
static int is_bidi_override(unsigned cp)
{
	return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * The escape of the character at s into esc (its length), or 0 when the
 * character is copied as it is; *n is the bytes it takes.
 */
static size_t escape_of(const char *s, size_t len, unsigned flags, char esc[8], size_t *n)
{
	unsigned char c = (unsigned char)s[0];
	size_t seq = termsafe_utf8_len(s, len);

	*n = seq ? seq : 1;
	if (flags & TERMSAFE_KUBECTL) {
		if (c == 0x1B)
			return (size_t)snprintf(esc, 8, "^[");
		return c == '\r' ? (size_t)snprintf(esc, 8, "\\r") : 0;
	}
	if (flags & TERMSAFE_JSON) {
		unsigned cp = seq > 1 ? code_point((const unsigned char *)s, seq) : c;
		if (cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || is_bidi_override(cp))
			return (size_t)snprintf(esc, 8, "\\u%04x", cp);
		return 0;
	}
	if (!seq)
		return (size_t)snprintf(esc, 8, "\\x%02x", c);
	if (c == '\t' || c == '\n') {
		if (flags & TERMSAFE_ONE_LINE)
			return (size_t)snprintf(esc, 8, " ");
		if (c == '\t' || (flags & TERMSAFE_NEWLINE))
			return 0;
		return (size_t)snprintf(esc, 8, "\\n");
	}
	if (c == '\r')
		return (size_t)snprintf(esc, 8, "\\r");
	if (c < 0x20 || c == 0x7F)
		return (size_t)snprintf(esc, 8, "^%c", c == 0x7F ? '?' : c + 0x40);
	if (seq > 1) {
		unsigned cp = code_point((const unsigned char *)s, seq);
		if ((cp >= 0x80 && cp <= 0x9F) || is_bidi_override(cp))
			return (size_t)snprintf(esc, 8, "\\u%04x", cp);
	}
	return 0;
}

size_t termsafe_escape(char *dst, size_t size, const char *s, size_t len,
		       unsigned flags)
{
	size_t out = 0, written = 0, n;
	int full = 0;

	for (size_t i = 0; i < len; i += n) {
		char esc[8];
		size_t elen = escape_of(s + i, len - i, flags, esc, &n);
		const char *piece = elen ? esc : s + i;
		size_t plen = elen ? elen : n;
		/* A piece goes in whole or not at all, and nothing after it. */
		if (!full && written + plen < size) {
			memcpy(dst + written, piece, plen);
			written += plen;
		} else {
			full = 1;
		}
		out += plen;
	}
	if (size)
		dst[written] = '\0';
	return out;
}

bool termsafe_is_safe(const char *s, size_t len, unsigned flags)
{
	size_t n;

	for (size_t i = 0; i < len; i += n) {
		char esc[8];
		if (escape_of(s + i, len - i, flags, esc, &n))
			return false;
	}
	return true;
}

char *termsafe_dup(const char *s, unsigned flags)
{
	size_t len = strlen(s);
	size_t need = termsafe_escape(NULL, 0, s, len, flags) + 1;
	char *out = malloc(need);

	/* lib/util's xmalloc() escapes its messages through here. */
	if (!out)
		abort();
	termsafe_escape(out, need, s, len, flags);
	return out;
}

void termsafe_line(char *buf, size_t size)
{
	size_t len = strlen(buf);
	char *copy;

	if (termsafe_is_safe(buf, len, TERMSAFE_ONE_LINE))
		return;
	copy = malloc(len + 1);
	if (!copy)
		abort();
	memcpy(copy, buf, len + 1);
	termsafe_escape(buf, size, copy, len, TERMSAFE_ONE_LINE);
	free(copy);
}

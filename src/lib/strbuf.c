/* strbuf.c — growable strings; see strbuf.h. */
#include "lib/strbuf.h"
#include "lib/termsafe.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wctype.h>

char strbuf_slopbuf[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	*sb = (struct strbuf)STRBUF_INIT;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;
	if (want <= sb->alloc)
		return;
	size_t n = sb->alloc ? sb->alloc : 64;
	while (n < want)
		n *= 2;
	/* No buffer of its own yet (slopbuf, or NULL when zeroed): a new one. */
	if (!sb->alloc) {
		sb->buf = xmalloc(n);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, n);
	}
	sb->alloc = n;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	if (len)	/* data may be NULL then, which memcpy may not be given */
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_add_utf8(struct strbuf *sb, uint32_t cp)
{
	static const unsigned char lead[] = { 0, 0x00, 0xc0, 0xe0, 0xf0 };
	size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	char b[4];

	for (size_t i = n - 1; i > 0; i--, cp >>= 6)
		b[i] = (char)(0x80 | (cp & 0x3f));
	b[0] = (char)(lead[n] | cp);
	strbuf_add(sb, b, n);
}

/* C.UTF-8's character classes: Unicode's case mappings in any locale. */
static locale_t unicode_ctype;

static void open_unicode_ctype(void)
{
	unicode_ctype = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

void strbuf_add_upper(struct strbuf *sb, const char *s)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	size_t len = strlen(s), n;

	pthread_once(&once, open_unicode_ctype);
	for (size_t i = 0; i < len; i += n) {
		uint32_t r = utf8_decode(s + i, len - i, &n);

		if (r >= 'a' && r <= 'z')
			r -= 'a' - 'A';
		else if (r >= 0x80 && unicode_ctype)
			r = (uint32_t)towupper_l((wint_t)r, unicode_ctype);
		strbuf_add_utf8(sb, r);
	}
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	strbuf_grow(sb, 64);
	va_start(ap, fmt);
	int n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void strbuf_add_json_member(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_addf(sb, ",\"%s\":", name);
	if (value)
		strbuf_add_json_string(sb, value);
	else
		strbuf_adds(sb, "null");
}

void strbuf_add_json_text(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_add_json_member(sb, name, value ? value : "");
}

void strbuf_add_json_record(struct strbuf *sb, int64_t ms, const char *type)
{
	char buf[32];

	format_time_rfc3339(ms, buf);
	strbuf_adds(sb, "{\"time\":");
	strbuf_add_json_string(sb, buf);
	strbuf_add_json_member(sb, "type", type);
}

void strbuf_add_json_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':  strbuf_add(sb, "\\\"", 2); break;
		case '\\': strbuf_add(sb, "\\\\", 2); break;
		case '\n': strbuf_add(sb, "\\n", 2); break;
		case '\r': strbuf_add(sb, "\\r", 2); break;
		case '\t': strbuf_add(sb, "\\t", 2); break;
		default:
			if (*p < 0x20)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_addch(sb, (char)*p);
		}
	}
	strbuf_addch(sb, '"');
}

void strbuf_add_termsafe(struct strbuf *sb, const char *s, size_t len, unsigned flags)
{
	size_t need = termsafe_escape(NULL, 0, s, len, flags);

	strbuf_grow(sb, need);
	termsafe_escape(sb->buf + sb->len, need + 1, s, len, flags);
	sb->len += need;
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > sb->len)
		len = sb->len;
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = '\0';
	else
		sb->buf = strbuf_slopbuf;	/* a zeroed struct's NULL too */
}

void strbuf_remove_front(struct strbuf *sb, size_t n)
{
	if (n >= sb->len) {
		strbuf_reset(sb);
		return;
	}
	memmove(sb->buf, sb->buf + n, sb->len - n + 1);
	sb->len -= n;
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *s = sb->alloc ? sb->buf : xstrdup("");
	if (len)
		*len = sb->len;
	*sb = (struct strbuf)STRBUF_INIT;
	return s;
}

int strbuf_read_fd(struct strbuf *sb, int fd)
{
	char chunk[8192];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			strbuf_add(sb, chunk, (size_t)n);
	}
	return 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	*sb = (struct strbuf)STRBUF_INIT;
}

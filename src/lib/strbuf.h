/*
 * strbuf.h — a growable byte string, always NUL-terminated.
 *
 * A zeroed struct (STRBUF_INIT) is an empty, valid buffer that owns no
 * memory; strbuf_release() returns it to that state.  buf may hold NUL
 * bytes: len is the length, not strlen(buf).
 */
#ifndef KINF_STRBUF_H
#define KINF_STRBUF_H

#include <stddef.h>

#include "lib/util.h"

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT { 0 }

void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PRINTF(2, 3);
/* Appends s as a JSON string literal, quotes included. */
void strbuf_add_json_string(struct strbuf *sb, const char *s);
void strbuf_reset(struct strbuf *sb);
void strbuf_remove_front(struct strbuf *sb, size_t n);
/* Hands the string to the caller (never NULL) and empties sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_release(struct strbuf *sb);
/* Returns the string, "" when nothing was ever added. */
static inline const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

#endif

/*
 * strbuf.h — a growable byte string, always NUL-terminated.
 *
 * buf is never NULL: STRBUF_INIT and strbuf_init() point it at
 * strbuf_slopbuf, one shared empty string, until the first byte is added
 * (as git's strbuf does), and strbuf_release() and strbuf_detach() point
 * it there again.  So buf can be read as a string at any time, and an
 * empty buffer owns no memory.  alloc is 0 exactly while buf is not the
 * buffer's own: nothing may write through buf then, not even a NUL.
 *
 * buf may hold NUL bytes: len is the length, not strlen(buf).
 *
 * A zeroed struct (calloc, `= { 0 }`) is not made by STRBUF_INIT: its
 * buf is NULL.  Every function here takes it as an empty buffer and
 * leaves buf non-NULL, but a struct that may be read before any call
 * (a struct http_response after a failed request) is read through
 * strbuf_str(), or made with strbuf_init().
 */
#ifndef KINF_STRBUF_H
#define KINF_STRBUF_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

/* Shared and never written: the buf of every buffer that owns none. */
extern char strbuf_slopbuf[];
#define STRBUF_INIT { .buf = strbuf_slopbuf }

/* As STRBUF_INIT; hint > 0 allocates room for that many bytes at once. */
void strbuf_init(struct strbuf *sb, size_t hint);

void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
/* Appends code point cp (below 0x110000) as UTF-8. */
void strbuf_add_utf8(struct strbuf *sb, uint32_t cp);
/*
 * Appends s upper-cased as Go's strings.ToUpper does it, whatever the
 * user's locale: each character by its Unicode mapping ('ö' is 'Ö', 'ß'
 * stays 'ß'), a byte that starts no valid sequence U+FFFD.
 */
void strbuf_add_upper(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PRINTF(2, 3);
/* Appends s as a JSON string literal, quotes included. */
void strbuf_add_json_string(struct strbuf *sb, const char *s);
/* Appends ,"name":value, value a JSON string, or null when NULL. */
void strbuf_add_json_member(struct strbuf *sb, const char *name, const char *value);
/* The same, but "" when value is NULL: a member that is always a string. */
void strbuf_add_json_text(struct strbuf *sb, const char *name, const char *value);
/*
 * Opens an NDJSON record, {"time":"<ms as RFC 3339 UTC>","type":type
 * (strbuf_add_json_member()'s), for the members that follow.
 */
void strbuf_add_json_record(struct strbuf *sb, int64_t ms, const char *type);
/* Appends s[0..len) escaped for a terminal (termsafe.h's flags). */
void strbuf_add_termsafe(struct strbuf *sb, const char *s, size_t len, unsigned flags);
/*
 * Appends what fd holds up to its end (a read a signal interrupts is made
 * again).  -1 and errno when a read fails; sb keeps what came before.
 */
int strbuf_read_fd(struct strbuf *sb, int fd);
void strbuf_reset(struct strbuf *sb);
/* Shortens to len (at most sb->len), NUL-terminated again. */
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_remove_front(struct strbuf *sb, size_t n);
/* Hands the string (malloc'd, never NULL) to the caller and empties sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_release(struct strbuf *sb);
/* Returns buf, or "" for a zeroed struct no function was called on yet. */
static inline const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

#endif

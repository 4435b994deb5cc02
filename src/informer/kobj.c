/*
 * kobj.c — immutable, refcounted Kubernetes objects kept as compact JSON;
 * see kobj.h.
 *
 * One allocation per object: the struct, then its own small strings
 * (key, rv, node), then the text; namespace, kind, labels and owners are
 * shared with the objects that have the same (shared_get, below).  With
 * a ~3 KB pod that keeps the overhead to the struct, some fifty bytes of
 * strings and one malloc header.
 *
 * Objects are made without json-c.  One pass of a scanner over the bytes
 * (the scanner, below) validates the JSON, picks up the fields struct kobj
 * holds, and writes the compact text by copying runs of the input: the
 * whitespace between tokens is left out, metadata.managedFields is cut by
 * its byte range, and strings with escapes are rewritten as json-c would
 * write them.  For compact input the text is byte for byte what the former
 * json-c round trip made (tests/unit/test_kobj.c checks it against json-c).
 * json-c trees are built only for the few readers that need one
 * (kobj_tree(), bookmarks and error events).
 */
#include "informer/kobj.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/strbuf.h"
#include "lib/util.h"

#define TO_STRING_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * Nesting deeper than this is an error.  json-c's default limit is 32,
 * and CRDs (their OpenAPI schemas) and some custom resources go deeper;
 * 1024 keeps the scanner's recursion to a few tens of KB of stack.
 */
#define JSON_DEPTH 1024

/* ---- the scanner ---------------------------------------------------------
 *
 * A recursive-descent scanner of RFC 8259 JSON (no comments, no trailing
 * commas, no raw control characters in strings, literals in lower case).
 * Bytes of 0x80 and above pass through unchecked, as json-c lets them.
 *
 * Output: s->out receives the compact text.  Bytes from s->run up to the
 * cursor are pending: they will be copied as they are (flush()); anything
 * that must not be copied (whitespace, a cut member, a string to rewrite)
 * first flushes the run before it and then moves s->run past itself.
 * While a value is skipped (a cut member), s->out is NULL.
 */

struct scan {
	const char *p, *end;
	const char *run;
	struct strbuf *out;
	int depth;
	const char *err;
	unsigned flags;
	/* Where the current member begins in out: at its comma, or after the
	 * '{' when no member before it was kept. */
	size_t member_mark;
	bool member_first;
};

/* 1: ends a fast run inside a string ('"', '\\', control characters). */
static const unsigned char string_stop[256] = {
	[0x00] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	[0x10] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1,
};

static int fail(struct scan *s, const char *why)
{
	if (!s->err)
		s->err = why;
	return -1;
}

static void flush(struct scan *s)
{
	if (s->out && s->p > s->run)
		strbuf_add(s->out, s->run, (size_t)(s->p - s->run));
	s->run = s->p;
}

/* Where the cursor's byte would land in out. */
static size_t vpos(const struct scan *s)
{
	return s->out->len + (size_t)(s->p - s->run);
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(struct scan *s)
{
	if (s->p < s->end && is_ws(*s->p)) {
		flush(s);
		while (s->p < s->end && is_ws(*s->p))
			s->p++;
		s->run = s->p;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned hex4(const char *p)
{
	return (unsigned)(hexval(p[0]) << 12 | hexval(p[1]) << 8 |
			  hexval(p[2]) << 4 | hexval(p[3]));
}

static void add_utf8(struct strbuf *sb, unsigned c)
{
	char b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | (c >> 6 & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | c >> 18);
		b[1] = (char)(0x80 | (c >> 12 & 0x3f));
		b[2] = (char)(0x80 | (c >> 6 & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	strbuf_add(sb, b, n);
}

#define REPLACEMENT_CHAR 0xfffd

/*
 * The bytes a validated string's content (between its quotes) stands
 * for, as json-c's tokener decodes them: a \u surrogate pair is one
 * character; a surrogate without its partner becomes U+FFFD.
 */
static void decode_string(const char *p, const char *end, struct strbuf *sb)
{
	unsigned high = 0;	/* a high surrogate waiting for its low one */

	while (p < end) {
		const char *q = p;

		while (q < end && *q != '\\')
			q++;
		if (q > p) {
			if (high)
				add_utf8(sb, REPLACEMENT_CHAR), high = 0;
			strbuf_add(sb, p, (size_t)(q - p));
		}
		if (q >= end)
			break;
		char c = q[1];
		p = q + 2;
		if (c != 'u') {
			if (high)
				add_utf8(sb, REPLACEMENT_CHAR), high = 0;
			strbuf_addch(sb, c == 'b' ? '\b' : c == 'f' ? '\f' :
				     c == 'n' ? '\n' : c == 'r' ? '\r' :
				     c == 't' ? '\t' : c);
			continue;
		}
		unsigned u = hex4(p);
		p += 4;
		if (high) {
			if (u >= 0xdc00 && u <= 0xdfff) {
				add_utf8(sb, 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00));
				high = 0;
				continue;
			}
			add_utf8(sb, REPLACEMENT_CHAR);
			high = 0;
		}
		if (u >= 0xd800 && u <= 0xdbff)
			high = u;
		else if (u >= 0xdc00 && u <= 0xdfff)
			add_utf8(sb, REPLACEMENT_CHAR);
		else
			add_utf8(sb, u);
	}
	if (high)
		add_utf8(sb, REPLACEMENT_CHAR);
}

/* Appends bytes as json-c writes a string's content (JSON_C_TO_STRING_NOSLASHESCAPE). */
static void escape_as_json_c(struct strbuf *sb, const char *p, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];
		const char *e = NULL;

		switch (c) {
		case '\b': e = "\\b"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\f': e = "\\f"; break;
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		}
		if (e) {
			strbuf_add(sb, e, 2);
		} else if (c < ' ') {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };
			strbuf_add(sb, u, 6);
		} else {
			strbuf_addch(sb, (char)c);
		}
	}
}

/*
 * The string at the cursor.  Its content (between the quotes, escapes
 * undecoded) is [*text, *text_end); *escaped tells whether it has escapes.
 */
static int scan_string(struct scan *s, const char **text, const char **text_end,
		       bool *escaped)
{
	const char *q = s->p + 1, *end = s->end;
	bool esc = false;

	for (;;) {
		while (q < end && !string_stop[(unsigned char)*q])
			q++;
		if (q >= end)
			return fail(s, "unterminated string");
		if (*q == '"')
			break;
		if (*q != '\\')
			return fail(s, "control character in a string");
		esc = true;
		if (q + 1 >= end)
			return fail(s, "unterminated string");
		switch (q[1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n':
		case 'r': case 't':
			q += 2;
			break;
		case 'u':
			if (end - q < 6 || hexval(q[2]) < 0 || hexval(q[3]) < 0 ||
			    hexval(q[4]) < 0 || hexval(q[5]) < 0)
				return fail(s, "bad \\u escape in a string");
			q += 6;
			break;
		default:
			return fail(s, "bad escape in a string");
		}
	}
	if (text) {
		*text = s->p + 1;
		*text_end = q;
	}
	if (escaped)
		*escaped = esc;
	if (esc && s->out) {
		/* Rewritten as json-c would write it. */
		struct strbuf dec = STRBUF_INIT;

		s->p++;		/* keep the opening quote */
		flush(s);
		decode_string(s->p, q, &dec);
		escape_as_json_c(s->out, dec.buf, dec.len);
		strbuf_release(&dec);
		s->run = q;	/* the closing quote */
	}
	s->p = q + 1;
	return 0;
}

static int expect_digits(struct scan *s)
{
	if (s->p >= s->end || *s->p < '0' || *s->p > '9')
		return fail(s, "malformed number");
	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return 0;
}

static int scan_number(struct scan *s)
{
	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (expect_digits(s) < 0)
		return -1;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (expect_digits(s) < 0)
			return -1;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (expect_digits(s) < 0)
			return -1;
	}
	return 0;
}

static int scan_literal(struct scan *s, const char *word, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n))
		return fail(s, "unexpected character");
	s->p += n;
	return 0;
}

/*
 * Called for each member of an object with the key's text (decoded when
 * it had escapes) and the cursor on the value.  Returns 1 when it scanned
 * the value, 0 to have it scanned as any value, CUT to leave the member
 * out of the text, -1 on error.
 */
#define CUT 2
typedef int member_fn(struct scan *s, const char *key, size_t klen, void *ctx);
/* Called for each element of an array; as member_fn without a key. */
typedef int element_fn(struct scan *s, void *ctx);

static int scan_value(struct scan *s);

static int enter(struct scan *s)
{
	if (++s->depth > JSON_DEPTH)
		return fail(s, "nested too deeply");
	s->p++;
	skip_ws(s);
	return 0;
}

/* Past a member's value that is left out, and past its comma when it was
 * to be the object's first. */
static int cut_member(struct scan *s, size_t mark, bool first)
{
	struct strbuf *out = s->out;

	flush(s);
	strbuf_setlen(out, mark);
	s->out = NULL;
	int rc = scan_value(s);
	s->out = out;
	s->run = s->p;
	if (rc < 0)
		return -1;
	skip_ws(s);
	if (first && s->p < s->end && *s->p == ',') {
		s->p++;
		s->run = s->p;
		skip_ws(s);
		return 1;	/* the comma is gone too */
	}
	return 0;
}

static int scan_object(struct scan *s, member_fn *fn, void *ctx)
{
	struct strbuf key = STRBUF_INIT;
	bool kept = false;	/* a member is in out already */
	size_t mark;
	int ret = -1;

	if (enter(s) < 0)
		return -1;
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		s->depth--;
		return 0;
	}
	mark = s->out ? vpos(s) : 0;
	for (;;) {
		const char *k, *kend;
		bool escaped;
		int rc = 0;

		if (s->p >= s->end || *s->p != '"') {
			fail(s, "expected a member name");
			goto out;
		}
		if (scan_string(s, &k, &kend, &escaped) < 0)
			goto out;
		skip_ws(s);
		if (s->p >= s->end || *s->p != ':') {
			fail(s, "expected ':' after a member name");
			goto out;
		}
		s->p++;
		skip_ws(s);
		if (s->p >= s->end) {
			fail(s, "unexpected end");
			goto out;
		}
		if (fn) {
			if (escaped) {
				strbuf_reset(&key);
				decode_string(k, kend, &key);
				k = strbuf_str(&key);
				kend = k + key.len;
			}
			s->member_mark = mark;
			s->member_first = !kept;
			rc = fn(s, k, (size_t)(kend - k), ctx);
		}
		if (rc == CUT && s->out) {
			rc = cut_member(s, mark, !kept);
			if (rc < 0)
				goto out;
			if (rc == 1) {	/* the next member comes first */
				mark = vpos(s);
				continue;
			}
		} else if (rc == 0 || rc == CUT) {
			if (scan_value(s) < 0)
				goto out;
			kept = true;
		} else if (rc < 0) {
			goto out;
		} else {
			kept = true;
		}
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			if (s->out)
				mark = vpos(s);
			s->p++;
			skip_ws(s);
			continue;
		}
		if (s->p < s->end && *s->p == '}') {
			s->p++;
			break;
		}
		fail(s, s->p < s->end ? "expected ',' or '}' in an object" : "unexpected end");
		goto out;
	}
	s->depth--;
	ret = 0;
out:
	strbuf_release(&key);
	return ret;
}

static int scan_array(struct scan *s, element_fn *fn, void *ctx)
{
	if (enter(s) < 0)
		return -1;
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		s->depth--;
		return 0;
	}
	for (;;) {
		int rc = 0;

		if (s->p >= s->end)
			return fail(s, "unexpected end");
		if (fn && (rc = fn(s, ctx)) < 0)
			return -1;
		if (rc == 0 && scan_value(s) < 0)
			return -1;
		skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			skip_ws(s);
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			break;
		}
		return fail(s, s->p < s->end ? "expected ',' or ']' in an array" : "unexpected end");
	}
	s->depth--;
	return 0;
}

static int scan_value(struct scan *s)
{
	if (s->p >= s->end)
		return fail(s, "unexpected end");
	switch (*s->p) {
	case '{':
		return scan_object(s, NULL, NULL);
	case '[':
		return scan_array(s, NULL, NULL);
	case '"':
		return scan_string(s, NULL, NULL, NULL);
	case 't':
		return scan_literal(s, "true", 4);
	case 'f':
		return scan_literal(s, "false", 5);
	case 'n':
		return scan_literal(s, "null", 4);
	default:
		if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
			return scan_number(s);
		return fail(s, "unexpected character");
	}
}

/* ---- what the scan picks up --------------------------------------------- */

#define NONE ((size_t)-1)

struct fields {
	struct strbuf strs;	/* decoded strings, each NUL-terminated */
	bool metadata;		/* a metadata object was seen */
	size_t name, ns, rv, kind, node;	/* offsets in strs, or NONE */
	bool has_kind;		/* a kind member, of any type */
	struct strbuf labels, owners;	/* packed lists, unterminated */
	/* The last top-level apiVersion member, as a span of out. */
	bool has_api;
	size_t api_from, api_to, api_value;
	bool api_first;
	/* Watch events: the type (decoded, or the text of a non-string). */
	size_t type;
	bool has_object;
	size_t obj_from, obj_to;	/* the object's span of out */
	size_t owner_uid;	/* while scanning one owner reference */
};

static bool key_is(const char *key, size_t klen, const char *name)
{
	return strlen(name) == klen && !memcmp(key, name, klen);
}

/* Adds the string value at the cursor to strs; NONE when not a string. */
static int take_string(struct scan *s, struct fields *f, size_t *off)
{
	const char *t, *tend;
	bool escaped;

	if (*s->p != '"') {
		*off = NONE;
		return 0;	/* scanned as any value */
	}
	if (scan_string(s, &t, &tend, &escaped) < 0)
		return -1;
	*off = f->strs.len;
	if (escaped)
		decode_string(t, tend, &f->strs);
	else
		strbuf_add(&f->strs, t, (size_t)(tend - t));
	strbuf_addch(&f->strs, '\0');
	return 1;
}

/*
 * A name or namespace: a "\u0000" in it would cut the key short and name
 * another object, so it is refused.
 */
static int take_key_string(struct scan *s, struct fields *f, size_t *off)
{
	int rc = take_string(s, f, off);

	if (rc > 0 && strlen(f->strs.buf + *off) != f->strs.len - 1 - *off)
		return fail(s, "a NUL byte in its name or namespace");
	return rc;
}

static int label_member(struct scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;
	size_t from, start = f->labels.len, value;
	const char *t, *tend;
	bool escaped;

	strbuf_add(&f->labels, key, klen);
	strbuf_addch(&f->labels, '=');
	if (*s->p == '"') {
		if (scan_string(s, &t, &tend, &escaped) < 0)
			return -1;
		if (escaped)
			decode_string(t, tend, &f->labels);
		else
			strbuf_add(&f->labels, t, (size_t)(tend - t));
	} else if (*s->p == 'n') {
		if (scan_literal(s, "null", 4) < 0)
			return -1;
	} else {
		/* Not a string: its text, as json-c would give it. */
		flush(s);
		from = s->out->len;
		if (scan_value(s) < 0)
			return -1;
		flush(s);
		strbuf_add(&f->labels, s->out->buf + from, s->out->len - from);
	}
	/* A NUL in it would read as two labels: kept in the text, not indexed. */
	value = start + klen + 1;
	if (memchr(f->labels.buf + start, '\0', f->labels.len - start) ||
	    f->labels.len < value) {
		strbuf_setlen(&f->labels, start);	/* drop what this label added */
		return 1;
	}
	strbuf_addch(&f->labels, '\0');
	return 1;
}

static int owner_member(struct scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	if (key_is(key, klen, "uid"))
		return take_string(s, f, &f->owner_uid);
	return 0;
}

static int owner_element(struct scan *s, void *ctx)
{
	struct fields *f = ctx;

	if (*s->p != '{')
		return 0;
	f->owner_uid = NONE;
	if (scan_object(s, owner_member, f) < 0)
		return -1;
	if (f->owner_uid != NONE && f->strs.buf[f->owner_uid])
		strbuf_add(&f->owners, f->strs.buf + f->owner_uid,
			   strlen(f->strs.buf + f->owner_uid) + 1);
	return 1;
}

static int metadata_member(struct scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	switch (klen ? key[0] : 0) {
	case 'n':
		if (key_is(key, klen, "name"))
			return take_key_string(s, f, &f->name);
		if (key_is(key, klen, "namespace"))
			return take_key_string(s, f, &f->ns);
		break;
	case 'r':
		if (key_is(key, klen, "resourceVersion"))
			return take_string(s, f, &f->rv);
		break;
	case 'l':
		if (key_is(key, klen, "labels")) {
			strbuf_reset(&f->labels);
			if (*s->p != '{')
				return 0;
			return scan_object(s, label_member, f) < 0 ? -1 : 1;
		}
		break;
	case 'o':
		if (key_is(key, klen, "ownerReferences")) {
			strbuf_reset(&f->owners);
			if (*s->p != '[')
				return 0;
			return scan_array(s, owner_element, f) < 0 ? -1 : 1;
		}
		break;
	case 'm':
		if (key_is(key, klen, "managedFields") &&
		    !(s->flags & KOBJ_KEEP_MANAGED_FIELDS))
			return CUT;
		break;
	}
	return 0;
}

static int spec_member(struct scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	if (key_is(key, klen, "nodeName"))
		return take_string(s, f, &f->node);
	return 0;
}

static void reset_metadata(struct fields *f)
{
	f->metadata = false;
	f->name = f->ns = f->rv = NONE;
	strbuf_reset(&f->labels);
	strbuf_reset(&f->owners);
}

static void reset_object(struct fields *f)
{
	reset_metadata(f);
	f->kind = f->node = NONE;
	f->has_kind = f->has_api = false;
}

/* A member of the object itself (depth 1). */
static int object_member(struct scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	if (key_is(key, klen, "metadata")) {
		reset_metadata(f);
		if (*s->p != '{')
			return 0;
		f->metadata = true;
		return scan_object(s, metadata_member, f) < 0 ? -1 : 1;
	}
	if (key_is(key, klen, "kind")) {
		f->has_kind = true;
		return take_string(s, f, &f->kind);
	}
	if (key_is(key, klen, "spec")) {
		f->node = NONE;
		if (*s->p != '{')
			return 0;
		return scan_object(s, spec_member, f) < 0 ? -1 : 1;
	}
	if (key_is(key, klen, "apiVersion") && s->out) {
		f->has_api = true;
		f->api_from = s->member_mark;
		f->api_first = s->member_first;
		f->api_value = vpos(s);
		if (scan_value(s) < 0)
			return -1;
		f->api_to = vpos(s);
		return 1;
	}
	return 0;
}

/* A member of a watch event: {"type":"ADDED","object":{...}}. */
static int event_member(struct scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	if (key_is(key, klen, "type")) {
		if (*s->p == '"')
			return take_string(s, f, &f->type);
		/* Not a string: its text, for the message. */
		size_t from = vpos(s);
		if (scan_value(s) < 0)
			return -1;
		flush(s);
		f->type = f->strs.len;
		strbuf_add(&f->strs, s->out->buf + from, s->out->len - from);
		strbuf_addch(&f->strs, '\0');
		return 1;
	}
	if (key_is(key, klen, "object")) {
		reset_object(f);
		f->has_object = *s->p == '{';
		f->obj_from = vpos(s);
		if (f->has_object && scan_object(s, object_member, f) < 0)
			return -1;
		if (!f->has_object && scan_value(s) < 0)
			return -1;
		f->obj_to = vpos(s);
		return 1;
	}
	return 0;
}

static void fields_init(struct fields *f)
{
	memset(f, 0, sizeof(*f));
	reset_object(f);
	f->type = NONE;
}

static void fields_release(struct fields *f)
{
	strbuf_release(&f->strs);
	strbuf_release(&f->labels);
	strbuf_release(&f->owners);
}

/* True when no byte of p[0..len) has its high bit set; 8 bytes a step. */
static bool all_ascii(const char *p, size_t len)
{
	uint64_t any = 0, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		any |= w;
	}
	for (; i < len; i++)
		any |= (unsigned char)p[i];
	return !(any & 0x8080808080808080ull);
}

/*
 * Scans text (an object, or with in_event a watch event), writing the
 * compact text to out and the fields to f.  -1 with err when it is not
 * one JSON object.
 *
 * Bytes that are not UTF-8 become U+FFFD first, as Go's encoding/json
 * reads them into strings: what a client-go controller sees, and what
 * keeps kinf's output (a terminal, jq) valid UTF-8.
 */
static int scan_text(const char *text, size_t len, bool in_event, unsigned flags,
		     struct strbuf *out, struct fields *f, struct errbuf *err)
{
	char *clean = NULL;
	int ret = -1;

	if (!all_ascii(text, len) && (clean = utf8_replace_invalid(text, len, &len)))
		text = clean;

	struct scan s = { .p = text, .end = text + len, .run = text, .out = out,
			  .flags = flags };

	strbuf_grow(out, len + 1);
	skip_ws(&s);
	if (s.p >= s.end || *s.p != '{') {
		errbuf_set(err, s.p >= s.end ? "cannot parse object: empty"
					     : "object is not a JSON object");
		goto out;
	}
	if (scan_object(&s, in_event ? event_member : object_member, f) == 0) {
		skip_ws(&s);
		if (s.p < s.end)
			fail(&s, "text after the object");
	}
	if (s.err) {
		errbuf_set(err, "cannot parse object: %s at byte %zu", s.err,
			   (size_t)(s.p - text));
		goto out;
	}
	flush(&s);
	ret = 0;
out:
	free(clean);
	return ret;
}

/* ---- objects ------------------------------------------------------------ */

static const char *field(const struct fields *f, size_t off)
{
	return off == NONE ? NULL : f->strs.buf + off;
}

/* Appends s and its NUL; returns where it starts in sb. */
static size_t add_str(struct strbuf *sb, const char *s)
{
	size_t off = sb->len;

	strbuf_add(sb, s ? s : "", s ? strlen(s) + 1 : 1);
	return off;
}

static size_t add_packed(struct strbuf *sb, const struct strbuf *list)
{
	size_t off = sb->len;

	strbuf_add(sb, list->buf ? list->buf : "", list->len);
	strbuf_addch(sb, '\0');
	return off;
}

/*
 * Strings that objects share.  The pods of one ReplicaSet have the same
 * namespace, kind, labels and owners: about 100 bytes a pod, 10 MiB at
 * 100,000 pods.  So those four live in a struct shared_strs that every
 * object with the same bytes points into, counted under one lock: one
 * lookup when an object is made and one when it is freed, against the
 * scan of its kilobytes.
 */
struct shared_strs {
	struct shared_strs *next;	/* in its bucket */
	uint32_t hash;
	unsigned refs;			/* under shared.lock */
	size_t len;
	char bytes[];
};

static struct {
	pthread_mutex_t lock;
	struct shared_strs **buckets;	/* nr_buckets: 0 or a power of two */
	size_t nr_buckets, nr;
} shared = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint32_t bytes_hash(const char *p, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a, as hashmap_hash */

	while (len--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

static void shared_rehash(size_t nr_buckets)
{
	struct shared_strs **buckets = xcalloc(nr_buckets, sizeof(*buckets));

	for (size_t i = 0; i < shared.nr_buckets; i++) {
		struct shared_strs *e = shared.buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = buckets[e->hash & (nr_buckets - 1)];
			buckets[e->hash & (nr_buckets - 1)] = e;
		}
	}
	free(shared.buckets);
	shared.buckets = buckets;
	shared.nr_buckets = nr_buckets;
}

/* The shared copy of bytes[len], with one more reference. */
static struct shared_strs *shared_get(const char *bytes, size_t len)
{
	uint32_t hash = bytes_hash(bytes, len);
	struct shared_strs *e;

	pthread_mutex_lock(&shared.lock);
	if (shared.nr_buckets)
		for (e = shared.buckets[hash & (shared.nr_buckets - 1)]; e; e = e->next)
			if (e->hash == hash && e->len == len && !memcmp(e->bytes, bytes, len)) {
				e->refs++;
				pthread_mutex_unlock(&shared.lock);
				return e;
			}
	if (shared.nr >= shared.nr_buckets)
		shared_rehash(shared.nr_buckets ? shared.nr_buckets * 2 : 64);
	e = xmalloc(sizeof(*e) + len);
	e->hash = hash;
	e->refs = 1;
	e->len = len;
	memcpy(e->bytes, bytes, len);
	e->next = shared.buckets[hash & (shared.nr_buckets - 1)];
	shared.buckets[hash & (shared.nr_buckets - 1)] = e;
	shared.nr++;
	pthread_mutex_unlock(&shared.lock);
	return e;
}

static void shared_put(struct shared_strs *e)
{
	struct shared_strs **pp;

	pthread_mutex_lock(&shared.lock);
	if (--e->refs) {
		pthread_mutex_unlock(&shared.lock);
		return;
	}
	for (pp = &shared.buckets[e->hash & (shared.nr_buckets - 1)]; *pp != e;)
		pp = &(*pp)->next;
	*pp = e->next;
	free(e);
	/* None left: nothing is kept (a sparse table shrinks). */
	if (!--shared.nr) {
		free(shared.buckets);
		shared.buckets = NULL;
		shared.nr_buckets = 0;
	} else if (shared.nr_buckets > 64 && shared.nr * 8 < shared.nr_buckets) {
		shared_rehash(shared.nr_buckets / 2);
	}
	pthread_mutex_unlock(&shared.lock);
}

/*
 * The kobj of scanned fields and compact text (the text's parts: head,
 * then body, concatenated).
 */
static struct kobj *make(const struct fields *f, const char *head, size_t head_len,
			 const char *body, size_t body_len, struct errbuf *err)
{
	struct strbuf sb = STRBUF_INIT, sh = STRBUF_INIT;
	const char *name = field(f, f->name), *ns = field(f, f->ns), *node;
	size_t key, nsoff, rv, kind, labels, nodeoff, owners, len;
	struct kobj *obj;
	char *base;

	if (!f->metadata || !name || !*name) {
		errbuf_set(err, "object has no metadata.name");
		return NULL;
	}
	if (head_len + body_len > UINT32_MAX) {
		errbuf_set(err, "object of %zu bytes: more than 4 GiB", head_len + body_len);
		return NULL;
	}
	if (!ns)
		ns = "";
	strbuf_grow(&sb, 256);
	key = sb.len;
	if (*ns) {
		strbuf_adds(&sb, ns);
		strbuf_addch(&sb, '/');
	}
	add_str(&sb, name);
	rv = add_str(&sb, field(f, f->rv));
	nodeoff = sb.len;
	node = field(f, f->node);
	if (node && *node)
		add_str(&sb, node);
	strbuf_addch(&sb, '\0');

	nsoff = add_str(&sh, ns);
	strbuf_addch(&sh, '\0');
	kind = add_str(&sh, field(f, f->kind));
	labels = add_packed(&sh, &f->labels);
	owners = add_packed(&sh, &f->owners);

	len = head_len + body_len;
	obj = xmalloc(sizeof(*obj) + sb.len + len + 1);
	base = (char *)(obj + 1);
	memcpy(base, sb.buf, sb.len);
	atomic_init(&obj->refs, 1);
	atomic_init(&obj->memo, NULL);
	obj->shared = shared_get(sh.buf, sh.len);
	obj->key = base + key;
	obj->name = base + key + (*ns ? strlen(ns) + 1 : 0);
	obj->ns = obj->shared->bytes + nsoff;
	obj->rv = base + rv;
	obj->kind = obj->shared->bytes + kind;
	obj->labels = obj->shared->bytes + labels;
	obj->node = base + nodeoff;
	obj->owners = obj->shared->bytes + owners;
	obj->json = base + sb.len;
	memcpy(obj->json, head, head_len);
	memcpy(obj->json + head_len, body, body_len);
	obj->json[len] = '\0';
	obj->json_len = (uint32_t)len;
	strbuf_release(&sb);
	strbuf_release(&sh);
	return obj;
}

struct kobj *kobj_from_json(const char *json, size_t len, unsigned flags,
			    struct errbuf *err)
{
	return kobj_from_list_item(json, len, NULL, flags, err);
}

/*
 * A list item without a kind gets kind and apiVersion first, as the
 * server writes a typed object (TypeMeta's order, as in watch events);
 * its own apiVersion, if it has one, moves there.
 */
static struct kobj *make_typed(struct fields *f, const struct strbuf *out,
			       const struct kobj_type *type, struct errbuf *err)
{
	struct strbuf head = STRBUF_INIT, body = STRBUF_INIT;
	struct kobj *obj;
	size_t kind;

	strbuf_adds(&head, "{\"kind\":");
	strbuf_add_json_string(&head, type->kind);
	strbuf_adds(&head, ",\"apiVersion\":");
	if (f->has_api)
		strbuf_add(&head, out->buf + f->api_value, f->api_to - f->api_value);
	else
		strbuf_add_json_string(&head, type->api_version);

	/* The members, less apiVersion, without their braces. */
	if (f->has_api) {
		size_t to = f->api_to;

		if (f->api_first && out->buf[to] == ',')
			to++;
		strbuf_add(&body, out->buf + 1, f->api_from - 1);
		strbuf_add(&body, out->buf + to, out->len - to - 1);
	} else {
		strbuf_add(&body, out->buf + 1, out->len - 2);
	}
	if (body.len)
		strbuf_addch(&head, ',');
	strbuf_addch(&body, '}');

	kind = f->strs.len;
	strbuf_adds(&f->strs, type->kind);
	strbuf_addch(&f->strs, '\0');
	f->kind = kind;
	obj = make(f, head.buf, head.len, body.buf, body.len, err);
	strbuf_release(&head);
	strbuf_release(&body);
	return obj;
}

struct kobj *kobj_from_list_item(const char *json, size_t len,
				 const struct kobj_type *type, unsigned flags,
				 struct errbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	struct fields f;
	struct kobj *obj = NULL;

	strbuf_grow(&out, len);	/* the compact text's size, nearly always */
	fields_init(&f);
	if (scan_text(json, len, false, flags, &out, &f, err) < 0)
		goto cleanup;
	if (type && !f.has_kind)
		obj = make_typed(&f, &out, type, err);
	else
		obj = make(&f, out.buf, out.len, "", 0, err);
cleanup:
	fields_release(&f);
	strbuf_release(&out);
	return obj;
}

/* A json-c tree of compact text with tok (reset first); NULL when refused. */
static struct json_object *tree_with(struct json_tokener *tok, const char *text, size_t len)
{
	if (len > INT32_MAX)
		return NULL;
	json_tokener_reset(tok);
	return json_tokener_parse_ex(tok, text, (int)len);
}

/* The same with a tokener of its own. */
static struct json_object *tree_of(const char *text, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
	struct json_object *tree = tree_with(tok, text, len);

	json_tokener_free(tok);
	return tree;
}

struct json_object *kobj_parse(const char *json, size_t len, bool in_event,
			       unsigned flags)
{
	struct strbuf out = STRBUF_INIT;
	struct errbuf err;
	struct fields f;
	struct json_object *tree = NULL;

	fields_init(&f);
	if (scan_text(json, len, in_event, flags, &out, &f, &err) == 0)
		tree = tree_of(out.buf, out.len);
	fields_release(&f);
	strbuf_release(&out);
	return tree;
}

static const char *const event_types[] = {
	[KOBJ_EVENT_ADDED] = "ADDED",
	[KOBJ_EVENT_MODIFIED] = "MODIFIED",
	[KOBJ_EVENT_DELETED] = "DELETED",
	[KOBJ_EVENT_BOOKMARK] = "BOOKMARK",
	[KOBJ_EVENT_ERROR] = "ERROR",
};

int kobj_from_event(const char *json, size_t len, unsigned flags,
		    struct kobj_event *ev, struct errbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	struct fields f;
	const char *type;
	int ret = -1;

	memset(ev, 0, sizeof(*ev));
	ev->type = KOBJ_EVENT_UNKNOWN;
	strbuf_grow(&out, len);	/* the compact text's size, nearly always */
	fields_init(&f);
	if (scan_text(json, len, true, flags, &out, &f, err) < 0)
		goto cleanup;
	if (f.type == NONE || !f.has_object) {
		errbuf_set(err, "not a JSON object with a type and an object");
		goto cleanup;
	}
	type = field(&f, f.type);
	snprintf(ev->type_name, sizeof(ev->type_name), "%s", type);
	for (int t = 0; t < (int)ARRAY_SIZE(event_types); t++)
		if (event_types[t] && !strcmp(type, event_types[t]))
			ev->type = (enum kobj_event_type)t;
	ret = 0;
	switch (ev->type) {
	case KOBJ_EVENT_ADDED:
	case KOBJ_EVENT_MODIFIED:
	case KOBJ_EVENT_DELETED:
		ev->obj = make(&f, out.buf + f.obj_from, f.obj_to - f.obj_from,
			       "", 0, &ev->obj_err);
		break;
	case KOBJ_EVENT_BOOKMARK:
	case KOBJ_EVENT_ERROR:
		ev->tree = tree_of(out.buf + f.obj_from, f.obj_to - f.obj_from);
		if (!ev->tree) {
			errbuf_set(err, "cannot parse the event's object");
			ret = -1;
		}
		break;
	default:
		break;
	}
cleanup:
	fields_release(&f);
	strbuf_release(&out);
	return ret;
}

void kobj_event_release(struct kobj_event *ev)
{
	kobj_unref(ev->obj);
	json_object_put(ev->tree);
	ev->obj = NULL;
	ev->tree = NULL;
}

/*
 * A new object holding new references to obj's members (not copies of
 * them), in obj's order.
 */
static struct json_object *shallow_copy(struct json_object *obj)
{
	struct json_object *copy = json_object_new_object();

	json_object_object_foreach(obj, mkey, mval) {
		/* mkey lives in obj, which outlives the copy. */
		json_object_object_add_ex(copy, mkey, json_object_get(mval),
					  JSON_C_OBJECT_ADD_KEY_IS_NEW |
					  JSON_C_OBJECT_ADD_CONSTANT_KEY);
	}
	return copy;
}

/*
 * json-c serialises into a buffer it hangs on the root it is given: a
 * throwaway shallow root, sharing every member by reference, keeps the
 * caller's nodes unwritten (only their reference counts go up and back
 * down, which is why no other thread may use the tree meanwhile).
 */
struct kobj *kobj_from_tree(struct json_object *tree, unsigned flags,
			    struct errbuf *err)
{
	struct json_object *root;
	const char *text;
	size_t len;
	struct kobj *obj;

	if (!json_object_is_type(tree, json_type_object)) {
		errbuf_set(err, "object is not a JSON object");
		return NULL;
	}
	root = shallow_copy(tree);
	text = json_object_to_json_string_length(root, TO_STRING_FLAGS, &len);
	obj = kobj_from_json(text, len, flags, err);
	json_object_put(root);
	return obj;
}

struct kobj *kobj_ref(struct kobj *obj)
{
	if (obj)
		atomic_fetch_add_explicit(&obj->refs, 1, memory_order_relaxed);
	return obj;
}

void kobj_unref(struct kobj *obj)
{
	/* acq_rel: the last owner must see every other owner's reads done. */
	if (obj && atomic_fetch_sub_explicit(&obj->refs, 1,
					     memory_order_acq_rel) == 1) {
		free(atomic_load_explicit(&obj->memo, memory_order_relaxed));
		shared_put(obj->shared);
		free(obj);
	}
}

const char *kobj_memo(const struct kobj *obj, kobj_derive_fn *derive, void *ctx)
{
	/* The memo is not part of the object's value: a cache, not a change. */
	struct kobj *o = (struct kobj *)obj;
	char *memo = atomic_load_explicit(&o->memo, memory_order_acquire), *none = NULL;

	if (memo)
		return memo;
	memo = derive(obj, ctx);
	if (!atomic_compare_exchange_strong_explicit(&o->memo, &none, memo,
						     memory_order_acq_rel,
						     memory_order_acquire)) {
		free(memo);
		memo = none;	/* the other thread's */
	}
	return memo;
}

bool kobj_same(const struct kobj *a, const struct kobj *b)
{
	return a->json_len == b->json_len && !memcmp(a->json, b->json, a->json_len);
}

struct json_object *kobj_tree(const struct kobj *obj)
{
	return tree_of(obj->json, obj->json_len);
}

/* ---- a tree of some members ---------------------------------------------- */

struct pick_ctx {
	const struct kobj_pick *pick;	/* the members to keep */
	struct json_object *into;	/* the object they go in */
	struct json_tokener *tok;	/* one for every value kept whole */
};

static int pick_member(struct scan *s, const char *key, size_t klen, void *ctx);

/* One element of a PICK_COUNT array: an empty object in its place. */
static int count_element(struct scan *s, void *ctx)
{
	(void)s;
	json_object_array_add(ctx, json_object_new_object());
	return 0;	/* the scanner skips the element itself */
}

/* A value kept whole: *v its tree (NULL for null), the scanner past it. */
static int whole_value(struct scan *s, struct json_tokener *tok, struct json_object **v)
{
	const char *start = s->p;

	if (scan_value(s) < 0)
		return -1;
	/* The byte after a number tells the tokenizer it ended. */
	*v = tree_with(tok, start, (size_t)(s->p - start) + (s->p < s->end));
	return 0;
}

/* One element of a PICK_EACH array: an object keeps the listed members. */
static int pick_element(struct scan *s, void *ctx)
{
	struct pick_ctx *pc = ctx;

	if (*s->p == '{') {
		struct pick_ctx sub = { pc->pick, json_object_new_object(), pc->tok };
		json_object_array_add(pc->into, sub.into);
		return scan_object(s, pick_member, &sub) < 0 ? -1 : 1;
	}
	struct json_object *v;
	if (whole_value(s, pc->tok, &v) < 0)
		return -1;
	json_object_array_add(pc->into, v);
	return 1;
}

static int pick_member(struct scan *s, const char *key, size_t klen, void *ctx)
{
	struct pick_ctx *pc = ctx;
	const struct kobj_pick *m = pc->pick;
	char name[128];

	while (m->name && (strlen(m->name) != klen || memcmp(m->name, key, klen)))
		m++;
	if (!m->name || klen >= sizeof(name))
		return 0;	/* not wanted: skipped */
	memcpy(name, key, klen);
	name[klen] = '\0';
	if (m->how == PICK_SOME && *s->p == '{') {
		struct pick_ctx sub = { m->members, json_object_new_object(), pc->tok };
		json_object_object_add(pc->into, name, sub.into);
		return scan_object(s, pick_member, &sub) < 0 ? -1 : 1;
	}
	if (m->how == PICK_EACH && *s->p == '[') {
		struct pick_ctx each = { m->members, json_object_new_array(), pc->tok };
		json_object_object_add(pc->into, name, each.into);
		return scan_array(s, pick_element, &each) < 0 ? -1 : 1;
	}
	if (m->how == PICK_COUNT && *s->p == '[') {
		struct json_object *a = json_object_new_array();
		json_object_object_add(pc->into, name, a);
		return scan_array(s, count_element, a) < 0 ? -1 : 1;
	}
	struct json_object *v;
	if (whole_value(s, pc->tok, &v) < 0)
		return -1;
	json_object_object_add(pc->into, name, v);
	return 1;
}

struct json_object *kobj_tree_pick(const struct kobj *obj, const struct kobj_pick *pick)
{
	struct scan s = { .p = obj->json, .end = obj->json + obj->json_len };
	struct pick_ctx pc = { pick, json_object_new_object(), json_tokener_new_ex(JSON_DEPTH) };
	int rc;

	s.run = s.p;
	skip_ws(&s);
	rc = s.p < s.end && *s.p == '{' ? scan_object(&s, pick_member, &pc) : -1;
	json_tokener_free(pc.tok);
	if (rc < 0) {
		json_object_put(pc.into);	/* kept text is valid JSON: not reached */
		return kobj_tree(obj);
	}
	return pc.into;
}

bool packed_contains(const char *packed, const char *value)
{
	for (const char *p = packed; *p; p += strlen(p) + 1)
		if (!strcmp(p, value))
			return true;
	return false;
}

char *kobj_make_key(const char *ns, const char *name)
{
	if (!ns || !*ns)
		return xstrdup(name);
	return xasprintf("%s/%s", ns, name);
}

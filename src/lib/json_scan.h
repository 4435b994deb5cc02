/*
 * json_scan.h — a one-pass scanner of JSON text that validates it, hands
 * the caller the members and elements it asks for, and can write the
 * compact text (whitespace between tokens dropped) as it goes.
 *
 * What it accepts is RFC 8259 JSON: no comments, no trailing commas, no
 * raw control characters in strings, literals in lower case, nesting up
 * to JSON_SCAN_DEPTH.  Bytes of 0x80 and above pass through unchecked,
 * as json-c lets them.  It builds no tree and allocates only to decode a
 * member name that has escapes.
 *
 * The compact text: with out set, every byte the cursor passes is copied
 * to out, except the whitespace between tokens, members a callback cuts
 * (JSON_SCAN_CUT) and strings with escapes, which are rewritten as json-c
 * writes them ("\u00e9" becomes "é", "\/" becomes "/"), and with
 * go_floats, integers beyond int64.  So for compact input the text is
 * otherwise the input, byte for byte.  Copies are made by runs:
 * bytes behind the cursor may still be pending, and json_scan_flush()
 * writes them (needed before reading out).  With out NULL nothing is
 * written.
 *
 * A scan is one caller's, on one thread; the input is borrowed and must
 * outlive it.  Errors: functions return -1 and keep the first reason in
 * s->err (a static string); the cursor is then where it stopped.
 */
#ifndef KINF_JSON_SCAN_H
#define KINF_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

struct strbuf;

/*
 * Nesting deeper than this is an error: JSON_MAX_DEPTH (util.h), Go's.
 * The scanner and the printers recurse once a level, a few hundred bytes.
 */
#define JSON_SCAN_DEPTH JSON_MAX_DEPTH

struct json_scan {
	const char *p, *end;	/* the cursor; the input's end */
	struct strbuf *out;	/* the compact text, or NULL */
	const char *err;	/* the first error, NULL while none */
	/*
	 * Inside a member callback: where the member begins in out (at its
	 * comma, or after the '{' when no member before it was kept), and
	 * whether it is the first member kept.
	 */
	size_t member_mark;
	bool member_first;
	/*
	 * Set by the caller: a number beyond float64 (1e400) is an error, as
	 * Go's decoder refuses it into an interface{} ("number out of range";
	 * bad_number and bad_number_len are its text), where a smaller one
	 * that is no int64 becomes a float: an integer beyond int64 is
	 * written to out as that float, with an exponent (1e+20), so that
	 * json-c reads a double.  Underflow (1e-400) is 0 to Go.
	 */
	bool go_floats;
	const char *bad_number;
	size_t bad_number_len;
	/* Private: bytes from run to the cursor are still to be copied. */
	const char *run;
	int depth;
};

/* A scan of text[0..len) writing to out (NULL: nothing written). */
void json_scan_init(struct json_scan *s, const char *text, size_t len,
		    struct strbuf *out);

/*
 * Called for each member of an object with the key's text (decoded when
 * it had escapes) and the cursor on the value.  Returns 1 when it scanned
 * the value itself, 0 to have it scanned as any value, JSON_SCAN_CUT to
 * leave the member out of the text, -1 on error (json_scan_fail()).
 */
#define JSON_SCAN_CUT 2
typedef int json_scan_member_fn(struct json_scan *s, const char *key, size_t klen,
				void *ctx);
/* Called for each element of an array; as json_scan_member_fn without a key. */
typedef int json_scan_element_fn(struct json_scan *s, void *ctx);

/*
 * The value at the cursor, the cursor past it.  object and array call fn
 * (NULL: none) for each member or element; the cursor must be on the
 * '{' or '['.  Whitespace after a value is not skipped.
 */
int json_scan_value(struct json_scan *s);
int json_scan_object(struct json_scan *s, json_scan_member_fn *fn, void *ctx);
int json_scan_array(struct json_scan *s, json_scan_element_fn *fn, void *ctx);
/*
 * The string at the cursor.  Its content (between the quotes, escapes
 * undecoded) is [*text, *text_end); *escaped tells whether it has
 * escapes.  text and escaped may be NULL.
 */
int json_scan_string(struct json_scan *s, const char **text, const char **text_end,
		     bool *escaped);
/* The literal word[0..n) ("true", "null") at the cursor. */
int json_scan_literal(struct json_scan *s, const char *word, size_t n);

/* Past whitespace at the cursor, leaving it out of the text. */
void json_scan_skip_ws(struct json_scan *s);
/* Writes the pending bytes to out: out is then whole up to the cursor. */
void json_scan_flush(struct json_scan *s);
/* Where the cursor's byte would land in out (out must be set). */
size_t json_scan_pos(const struct json_scan *s);
/* Records why (the first reason is kept); returns -1. */
int json_scan_fail(struct json_scan *s, const char *why);
/* Whether a member callback's key (klen bytes, not NUL-terminated) is name. */
bool json_scan_key_is(const char *key, size_t klen, const char *name);

/*
 * text[0..len), one JSON value with white space about it, as a json-c
 * tree whose numbers are what Go's decoder makes of them into an
 * interface{} (apimachinery's util/json): an integer beyond int64 a
 * float64, where json-c would keep a uint64 or saturate.  NULL when the
 * text is no such JSON.  The one function here that builds a tree.
 * When the value is an object, fn (NULL: none) is called for each of its
 * members, as by json_scan_object(), so that what it cuts is never built.
 */
struct json_object *json_scan_parse(const char *text, size_t len, json_scan_member_fn *fn,
				    void *ctx);

/*
 * Appends the bytes a validated string's content (between its quotes)
 * stands for, as json-c's tokener decodes them: a \u surrogate pair is
 * one character; a surrogate without its partner becomes U+FFFD.
 */
void json_scan_decode(const char *p, const char *end, struct strbuf *sb);

#endif

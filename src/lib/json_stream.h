/*
 * json_stream.h — JSON that arrives in pieces, split as it streams.
 *
 * A LIST of 100,000 pods is ~450 MB in one response; kinf never holds it
 * whole.  The list splitter hands over each element of the top-level
 * "items" array (an object, an array, or null) as soon as its last byte
 * arrives, and keeps everything else (kind, apiVersion, metadata: a few
 * hundred bytes) to be parsed at the end.  The value splitter does the same for watch streams, whose
 * events are JSON values one after another, chunk boundaries anywhere.
 *
 * They find boundaries (tracking strings, escapes and nesting) and leave
 * parsing to the caller on each piece; only the value splitter scans a
 * piece early, to refuse a broken one as it comes (below).
 *
 * Neither gathers a piece (an item, a value, or the list without its
 * items) longer than JSON_STREAM_MAX_PIECE: feed returns -1 and sets
 * too_large.  client-go's watch decoder has the same limit (apimachinery's
 * streaming.NewDecoder, ErrObjectTooLarge), and without one a server that
 * never ends a value would take all memory.
 */
#ifndef KINF_JSON_STREAM_H
#define KINF_JSON_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/strbuf.h"

#define JSON_STREAM_MAX_PIECE ((size_t)16 << 20)

/*
 * Called with one complete item or line, text[0..len), borrowed for the
 * call: it may point into the bytes being fed, so it is not
 * NUL-terminated (a callback that keeps it copies it).  Return 0 to go on, -1 to stop.
 */
typedef int json_piece_fn(void *ctx, const char *text, size_t len);
/*
 * What a value splitter's on_value returns for a line it could not read
 * as one value, unless the splitter says it framed it (vs->framed): that
 * line is framed again as Go's decoder frames it, and handed over anew.
 */
#define JSON_PIECE_REFRAME 1

struct list_splitter {
	json_piece_fn *on_item;
	void *ctx;
	struct strbuf item;	/* the element being gathered */
	struct strbuf rest;	/* the list without its items */
	struct strbuf key;	/* last string seen at depth 1 */
	int depth;
	bool in_string, escape, in_items, in_key;
	unsigned null_at;	/* bytes of a null item matched so far */
	size_t items;		/* elements handed over */
	bool has_items;		/* an "items" array was opened */
	bool too_large;		/* a piece passed JSON_STREAM_MAX_PIECE */
	/*
	 * feed returned -1 on a byte outside any JSON value ("<html>", "Bad
	 * Gateway", or more after the list): the body is no JSON document.
	 */
	bool not_json;
	char head[48];		/* the body's first bytes, for messages */
	size_t head_len;
};

void list_splitter_init(struct list_splitter *ls, json_piece_fn *on_item, void *ctx);
/* Returns 0, or -1 when on_item asked to stop or the text is malformed. */
int list_splitter_feed(struct list_splitter *ls, const char *data, size_t len);
/* The list minus its items ({"kind":..,"metadata":{..},"items":[]}). */
const char *list_splitter_rest(struct list_splitter *ls);
/* True when the top-level value has been closed. */
bool list_splitter_done(const struct list_splitter *ls);
void list_splitter_release(struct list_splitter *ls);

/*
 * For a message about text that is no JSON: "it begins '<html><body>502
 * Bad Gat…'", its first bytes with control bytes and quotes escaped, or
 * "it is empty".  Always NUL-terminates out.
 */
void json_describe_start(const char *text, size_t len, char *out, size_t size);

/*
 * A watch stream is a sequence of JSON values, split as client-go's JSON
 * framer splits it (a Go json.Decoder): white space between values,
 * a newline usually, any or none; a value may span lines, and a line may
 * hold several.  An apiserver writes an event a line, so a line goes to
 * on_value whole (found with memchr: what a watch of 100,000 pods costs
 * is the decoding, not this).  Only a line on_value cannot read as one
 * value (JSON_PIECE_REFRAME) is framed as Go frames it: an object or
 * array goes once its last bracket arrives, in this line or a later one;
 * what begins otherwise (a scalar, "<html>": no watch event) goes with
 * the rest of its line, for on_value to refuse.
 *
 * Go's scanner stops at a value's first bad byte.  The splitter, which
 * tracks brackets and strings only, hands a value over when it sees it
 * is broken: a newline in a string at once; otherwise a value not closed
 * is scanned at a newline between its tokens (each of its first 16, then
 * each time it has doubled), and one already malformed goes then.  So
 * "{oops" and its newline are refused as they come, as client-go refuses
 * them; a value of many lines broken deep inside may be refused later,
 * and one broken with no newline after, only when it closes.
 */
struct value_splitter {
	json_piece_fn *on_value;
	void *ctx;
	struct strbuf value;	/* a line or value begun in an earlier chunk or line */
	int depth;		/* its open brackets when framed; 0: none, -1: junk */
	bool in_string, escape;
	size_t checked;		/* value.len when last scanned, 0 before */
	unsigned newlines;	/* between its tokens so far */
	bool too_large;		/* a value passed JSON_STREAM_MAX_PIECE */
	/*
	 * Whether the value on_value() is handed was framed as Go frames
	 * it, or is a line (which on_value may send back to be framed).
	 */
	bool framed;
	uint64_t fed;		/* bytes fed so far */
	/*
	 * Where the value on_value() is handed ends in what was fed, with
	 * the newline right after it when that was fed with it: read it from
	 * on_value().
	 */
	uint64_t value_end;
};

void value_splitter_init(struct value_splitter *vs, json_piece_fn *on_value, void *ctx);
/* 0, or -1 when on_value asked to stop or a value passed the limit. */
int value_splitter_feed(struct value_splitter *vs, const char *data, size_t len);
/* Bytes of an unfinished value (a stream cut mid-event). */
size_t value_splitter_pending(const struct value_splitter *vs);
/*
 * Whether the unfinished value is broken already, as far as can be told
 * (it ends at a newline between tokens): a stream that ends there is a
 * decode error to client-go, not an EOF.
 */
bool value_splitter_broken(const struct value_splitter *vs);
void value_splitter_release(struct value_splitter *vs);

#endif

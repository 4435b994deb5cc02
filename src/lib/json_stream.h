/*
 * json_stream.h — JSON that arrives in pieces, split as it streams.
 *
 * A LIST of 100,000 pods is ~450 MB in one response; kinf never holds it
 * whole.  The list splitter hands over each element of the top-level
 * "items" array as soon as its last byte arrives, and keeps everything
 * else (kind, apiVersion, metadata: a few hundred bytes) to be parsed at
 * the end.  The line splitter does the same for watch streams, whose
 * events are one JSON document per line with chunk boundaries anywhere.
 *
 * Neither validates JSON: they find boundaries (tracking strings, escapes
 * and nesting) and leave parsing to json-c on each piece.
 *
 * Neither gathers a piece (an item, a line, or the list without its items)
 * longer than JSON_STREAM_MAX_PIECE: feed returns -1 and sets too_large.
 * client-go's watch decoder has the same limit (apimachinery's
 * streaming.NewDecoder, ErrObjectTooLarge), and without one a server that
 * never ends a line would take all memory.
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

struct list_splitter {
	json_piece_fn *on_item;
	void *ctx;
	struct strbuf item;	/* the element being gathered */
	struct strbuf rest;	/* the list without its items */
	struct strbuf key;	/* last string seen at depth 1 */
	int depth;
	bool in_string, escape, in_items, in_key;
	int items_depth;	/* depth inside the items array */
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

struct line_splitter {
	json_piece_fn *on_line;
	void *ctx;
	struct strbuf line;
	bool too_large;		/* a line passed JSON_STREAM_MAX_PIECE */
	uint64_t fed;		/* bytes fed so far */
	/*
	 * Where the line on_line() is handed ends in what was fed, its
	 * newline counted: read it from on_line().
	 */
	uint64_t line_end;
};

void line_splitter_init(struct line_splitter *ls, json_piece_fn *on_line, void *ctx);
int line_splitter_feed(struct line_splitter *ls, const char *data, size_t len);
/* Bytes of an unfinished last line (a stream cut mid-event). */
size_t line_splitter_pending(const struct line_splitter *ls);
void line_splitter_release(struct line_splitter *ls);

#endif

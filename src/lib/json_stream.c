/* json_stream.c — splitting streamed lists and watch streams; see json_stream.h. */
#include "lib/json_stream.h"

#include <stdio.h>
#include <string.h>

#include "lib/json_scan.h"

void list_splitter_init(struct list_splitter *ls, json_piece_fn *on_item, void *ctx)
{
	memset(ls, 0, sizeof(*ls));
	ls->on_item = on_item;
	ls->ctx = ctx;
}

/* Bytes that matter inside an item, outside and inside its strings. */
static const unsigned char item_stop[256] = {
	['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1,
};
static const unsigned char string_stop[256] = {
	['"'] = 1, ['\\'] = 1,
};

/*
 * Inside an item (depth 3 and deeper): skips to the byte that closes it,
 * or to the end of the data.  A tight loop over local copies of the state:
 * this is where a 450 MB list spends its time in the splitter.  Returns
 * the index of the closing byte, or len.
 */
static size_t skip_item(struct list_splitter *ls, const char *data, size_t i, size_t len)
{
	const unsigned char *p = (const unsigned char *)data + i;
	const unsigned char *end = (const unsigned char *)data + len;
	int depth = ls->depth;
	bool in_string = ls->in_string, escape = ls->escape;

	while (p < end) {
		if (escape) {
			escape = false;
			p++;
		} else if (in_string) {
			while (p < end && !string_stop[*p])
				p++;
			if (p == end)
				break;
			if (*p++ == '\\')
				escape = true;
			else
				in_string = false;
		} else {
			while (p < end && !item_stop[*p])
				p++;
			if (p == end)
				break;
			if (*p == '"') {
				in_string = true;
			} else if (*p == '{' || *p == '[') {
				depth++;
			} else if (depth == 3) {
				break;	/* the item's last byte */
			} else {
				depth--;
			}
			p++;
		}
	}
	ls->depth = depth;
	ls->in_string = in_string;
	ls->escape = escape;
	return (size_t)(p - (const unsigned char *)data);
}

/* A byte of a string outside the items: a key at depth 1 is kept. */
static void string_byte(struct list_splitter *ls, char c)
{
	if (ls->in_key)
		strbuf_addch(&ls->key, c);
	if (ls->escape) {
		ls->escape = false;
	} else if (c == '\\') {
		ls->escape = true;
	} else if (c == '"') {
		ls->in_string = false;
		if (ls->in_key)
			ls->key.len--, ls->key.buf[ls->key.len] = '\0';
		ls->in_key = false;
	}
}

/*
 * An item's last bytes, text[0..n): the item goes to on_item.  Only an
 * item begun in an earlier chunk is gathered in ls->item; one whole in
 * the bytes fed is handed over where it lies, uncopied.
 */
static int end_item(struct list_splitter *ls, const char *text, size_t n)
{
	int rc;

	if (ls->item.len) {
		strbuf_add(&ls->item, text, n);
		text = ls->item.buf;
		n = ls->item.len;
	}
	if (n > JSON_STREAM_MAX_PIECE) {
		ls->too_large = true;
		return -1;
	}
	ls->items++;
	rc = ls->on_item(ls->ctx, text, n);
	strbuf_reset(&ls->item);
	ls->depth--;
	return rc;
}

/*
 * One pass over the bytes.  Depth counts open braces and brackets outside
 * strings: the list object is depth 1, the items array opens depth 2 and
 * each item lives at depth 3 and deeper.  Bytes of items go to ls->item;
 * all others to ls->rest.
 */
int list_splitter_feed(struct list_splitter *ls, const char *data, size_t len)
{
	size_t run_start = 0;	/* start of the bytes not yet copied */

	if (ls->head_len < sizeof(ls->head)) {
		size_t n = sizeof(ls->head) - ls->head_len;
		memcpy(ls->head + ls->head_len, data, n < len ? n : len);
		ls->head_len += n < len ? n : len;
	}
	for (size_t i = 0; i < len; i++) {
		char c;

		if (ls->in_items && ls->depth >= 3) {
			i = skip_item(ls, data, i, len);
			if (i == len)
				break;
		}
		c = data[i];
		if (ls->in_string) {
			string_byte(ls, c);
			continue;
		}
		if (ls->null_at && (c == '{' || c == '[' || c == '}' || c == ']'))
			return -1;	/* "nu]": a null cut short */
		switch (c) {
		case '"':
			if ((ls->in_items && ls->depth == 2) || ls->depth == 0)
				return -1;	/* a string item or list: see below */
			ls->in_string = true;
			if (ls->depth == 1) {
				ls->in_key = true;
				strbuf_reset(&ls->key);
			}
			break;
		case '{':
		case '[':
			ls->depth++;
			if (c == '[' && ls->depth == 2 && !ls->in_items &&
			    !strcmp(strbuf_str(&ls->key), "items")) {
				/* Keep "[" in rest; items go elsewhere. */
				strbuf_add(&ls->rest, data + run_start, i + 1 - run_start);
				run_start = i + 1;
				ls->in_items = true;
				ls->has_items = true;
			} else if (ls->in_items && ls->depth == 3) {
				run_start = i;	/* an item begins */
			}
			break;
		case '}':
		case ']':
			if (ls->depth == 0) {
				ls->not_json = true;
				return -1;
			}
			if (ls->in_items && ls->depth == 3) {
				if (end_item(ls, data + run_start, i + 1 - run_start) < 0)
					return -1;
				run_start = i + 1;
				continue;
			}
			if (ls->in_items && ls->depth == 2) {
				ls->in_items = false;	/* the array closes */
				run_start = i;
			}
			ls->depth--;
			break;
		default:
			/*
			 * Between items only commas, white space and null, an
			 * item too: one that is no object or array (1, "x") is
			 * malformed, not something to skip.  Around the list
			 * itself, only white space: "<html>" or "Bad Gateway" is
			 * no list.
			 */
			if (ls->in_items && ls->depth == 2 && (ls->null_at || c == 'n')) {
				if (c != "null"[ls->null_at])
					return -1;
				if (++ls->null_at < 4)
					break;
				ls->null_at = 0;
				ls->items++;
				if (ls->on_item(ls->ctx, "null", 4) < 0)
					return -1;
				break;
			}
			if (((ls->in_items && ls->depth == 2 && c != ',') || ls->depth == 0) &&
			    c != ' ' && c != '\t' && c != '\n' && c != '\r') {
				ls->not_json = ls->depth == 0;
				return -1;
			}
			break;
		}
		/* Between items (commas, spaces) nothing is kept. */
		if (ls->in_items && ls->depth == 2)
			run_start = i + 1;
	}
	if (run_start < len) {
		if (ls->in_items && ls->depth >= 3)
			strbuf_add(&ls->item, data + run_start, len - run_start);
		else if (!ls->in_items)
			strbuf_add(&ls->rest, data + run_start, len - run_start);
	}
	if (ls->item.len > JSON_STREAM_MAX_PIECE || ls->rest.len > JSON_STREAM_MAX_PIECE) {
		ls->too_large = true;
		return -1;
	}
	return 0;
}

const char *list_splitter_rest(struct list_splitter *ls)
{
	return strbuf_str(&ls->rest);
}

bool list_splitter_done(const struct list_splitter *ls)
{
	return ls->depth == 0 && ls->rest.len > 0 && !ls->in_string;
}

void list_splitter_release(struct list_splitter *ls)
{
	strbuf_release(&ls->item);
	strbuf_release(&ls->rest);
	strbuf_release(&ls->key);
}

void value_splitter_init(struct value_splitter *vs, json_piece_fn *on_value, void *ctx)
{
	memset(vs, 0, sizeof(*vs));
	vs->on_value = on_value;
	vs->ctx = ctx;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Bytes that matter inside a value, outside its strings; inside them. */
static const unsigned char value_stop[256] = {
	['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1, ['\n'] = 1,
};
static const unsigned char value_string_stop[256] = {
	['"'] = 1, ['\\'] = 1, ['\n'] = 1,
};

/* depth of what is no object or array: the rest of its line goes with it */
#define JUNK (-1)
/* check_gathered() scans a value at each of its first newlines. */
#define EVERY_NEWLINE 16

enum value_stop {
	VALUE_MORE,		/* the data ended inside the value */
	VALUE_CLOSED,		/* its last bracket: *at is just past it */
	VALUE_NEWLINE,		/* a newline between its tokens: *at is on it */
	VALUE_BROKEN,		/* a newline in a string, which no JSON has */
};

/*
 * Inside a value: to its closing bracket, a newline or the end of the
 * data.  A tight loop over local copies of the state, as skip_item().
 */
static enum value_stop scan_value(struct value_splitter *vs, const char *data,
				  size_t *at, size_t len)
{
	const unsigned char *p = (const unsigned char *)data + *at;
	const unsigned char *end = (const unsigned char *)data + len;
	int depth = vs->depth;
	bool in_string = vs->in_string, escape = vs->escape;
	enum value_stop stop = VALUE_MORE;

	while (p < end) {
		if (escape) {
			escape = false;
			p++;
		} else if (in_string) {
			while (p < end && !value_string_stop[*p])
				p++;
			if (p == end)
				break;
			if (*p == '\n') {
				stop = VALUE_BROKEN;
				break;
			}
			if (*p++ == '\\')
				escape = true;
			else
				in_string = false;
		} else {
			while (p < end && !value_stop[*p])
				p++;
			if (p == end)
				break;
			if (*p == '\n') {
				stop = VALUE_NEWLINE;
				break;
			}
			if (*p == '"')
				in_string = true;
			else if (*p == '{' || *p == '[')
				depth++;
			else if (!--depth)
				stop = VALUE_CLOSED;
			p++;
			if (stop == VALUE_CLOSED)
				break;
		}
	}
	vs->depth = depth;
	vs->in_string = in_string;
	vs->escape = escape;
	*at = (size_t)(p - (const unsigned char *)data);
	return stop;
}

/* Whether text, a value not closed yet, is already no JSON: a byte Go's scanner stops at. */
static bool already_malformed(const char *text, size_t len)
{
	struct json_scan s;

	json_scan_init(&s, text, len, NULL);
	json_scan_skip_ws(&s);
	return json_scan_value(&s) < 0 && s.p < s.end;
}

/* Gathers data[0..n) into vs->value: -1 past the limit. */
static int gather(struct value_splitter *vs, const char *data, size_t n)
{
	if (vs->value.len + n > JSON_STREAM_MAX_PIECE) {
		vs->too_large = true;
		return -1;
	}
	strbuf_add(&vs->value, data, n);
	return 0;
}

/*
 * A value's last bytes, data[0..n) (with what was gathered before them),
 * to on_value, which ends at `end` in what was fed; the next begins anew.
 */
static int hand_over(struct value_splitter *vs, const char *data, size_t n, uint64_t end)
{
	const char *text = data;
	int rc;

	if (vs->value.len) {
		if (n && gather(vs, data, n) < 0)
			return -1;
		text = vs->value.buf;
		n = vs->value.len;
	} else if (n > JSON_STREAM_MAX_PIECE) {
		vs->too_large = true;
		return -1;
	}
	vs->value_end = end;
	rc = vs->on_value(vs->ctx, text, n);
	strbuf_reset(&vs->value);
	vs->depth = 0;
	vs->in_string = vs->escape = false;
	vs->checked = vs->newlines = 0;
	return rc;
}

/*
 * At a newline between a value's tokens: the value gathered so far, if
 * Go's scanner has refused it already, goes to on_value now, to be
 * refused there.  Every time for a value's first lines, then each time it
 * has doubled, so that a value of many lines costs a few scans at most.
 * A newline ends any number or literal before it, so what fails here
 * before its end is broken, not cut.  1 when it went, 0 when it goes on.
 */
static int check_gathered(struct value_splitter *vs, uint64_t end)
{
	if (++vs->newlines > EVERY_NEWLINE && vs->value.len < 2 * vs->checked)
		return 0;
	vs->checked = vs->value.len;
	if (!already_malformed(vs->value.buf, vs->value.len))
		return 0;
	return hand_over(vs, NULL, 0, end) < 0 ? -1 : 1;
}

/*
 * Frames data[0..len) (at `base` in the stream) as Go's decoder does,
 * a value at a time: the rest of the value under way first (vs->depth),
 * then each value that begins in it; with `one`, only the value under
 * way, up to its end.  Returns the bytes used, or -1.
 */
static long frame(struct value_splitter *vs, const char *data, size_t len, uint64_t base, bool one)
{
	size_t i = 0, from = 0;	/* from: where the value's bytes in data begin */

	while (i < len) {
		if (!vs->depth) {
			if (one)
				return (long)i;
			while (i < len && is_space(data[i]))
				i++;
			if (i == len)
				break;
			from = i;
			/*
			 * No object or array: what Go's decoder refuses at once,
			 * or once it has read the scalar (no watch event either
			 * way).  It goes with the rest of its line, for on_value
			 * to refuse.
			 */
			vs->depth = data[i] == '{' || data[i] == '[' ? 1 : JUNK;
			i++;
		}
		vs->framed = true;
		if (vs->depth == JUNK) {
			const char *nl = memchr(data + i, '\n', len - i);
			if (!nl)
				return gather(vs, data + from, len - from) < 0 ? -1 : (long)len;
			i = (size_t)(nl - data);
			if (hand_over(vs, data + from, i - from, base + i) < 0)
				return -1;
			continue;
		}
		switch (scan_value(vs, data, &i, len)) {
		case VALUE_CLOSED:
			/* ends with the newline after it, when that came with it */
			if (hand_over(vs, data + from, i - from,
				      base + i + (i < len && data[i] == '\n')) < 0)
				return -1;
			break;
		case VALUE_BROKEN:
			if (hand_over(vs, data + from, i - from, base + i) < 0)
				return -1;
			i++;
			break;
		case VALUE_NEWLINE:
			i++;
			if (gather(vs, data + from, i - from) < 0)
				return -1;
			from = i;
			if (check_gathered(vs, base + i) < 0)
				return -1;
			break;
		case VALUE_MORE:
			return gather(vs, data + from, len - from) < 0 ? -1 : (long)len;
		}
	}
	return (long)len;
}

/*
 * A line the caller could not read as one value, text[0..len) beginning
 * at `start` in the stream: framed again, as Go's decoder frames it.  A
 * value it leaves open goes on in the lines that follow.
 */
static int reframe(struct value_splitter *vs, const char *text, size_t len, uint64_t start)
{
	struct strbuf line = STRBUF_INIT;
	long rc;

	strbuf_add(&line, text, len);
	strbuf_addch(&line, '\n');
	strbuf_reset(&vs->value);
	rc = frame(vs, line.buf, line.len, start, false);
	strbuf_release(&line);
	return rc < 0 ? -1 : 0;
}

int value_splitter_feed(struct value_splitter *vs, const char *data, size_t len)
{
	uint64_t base = vs->fed;
	size_t i = 0;

	vs->fed += len;
	while (i < len) {
		if (vs->depth) {	/* a value being framed goes on */
			long used = frame(vs, data + i, len - i, base + i, true);
			if (used < 0)
				return -1;
			i += (size_t)used;
			continue;
		}
		if (!vs->value.len) {
			while (i < len && is_space(data[i]))
				i++;
			if (i == len)
				break;
		}
		/*
		 * The fast way: a line, as an apiserver writes each event,
		 * handed over whole (where it lies, when it is whole in data).
		 */
		const char *nl = memchr(data + i, '\n', len - i);
		if (!nl)
			return gather(vs, data + i, len - i);
		size_t n = (size_t)(nl - data) - i;
		const char *text = data + i;
		if (n > JSON_STREAM_MAX_PIECE) {
			vs->too_large = true;
			return -1;
		}
		if (vs->value.len) {
			if (gather(vs, text, n) < 0)
				return -1;
			text = vs->value.buf;
			n = vs->value.len;
		}
		uint64_t start = vs->value_end = base + (uint64_t)(nl - data) + 1;
		start -= n + 1;
		i = (size_t)(nl - data) + 1;
		vs->framed = false;
		int rc = vs->on_value(vs->ctx, text, n);
		if (rc == JSON_PIECE_REFRAME)
			rc = reframe(vs, text, n, start);
		else
			strbuf_reset(&vs->value);
		if (rc < 0)
			return -1;
	}
	return 0;
}

bool value_splitter_broken(const struct value_splitter *vs)
{
	const struct strbuf *v = &vs->value;

	/* Only where a newline ended its last token: else it may be cut in one. */
	return v->len && v->buf[v->len - 1] == '\n' && !vs->in_string &&
	       already_malformed(v->buf, v->len);
}

size_t value_splitter_pending(const struct value_splitter *vs)
{
	return vs->value.len;
}

void value_splitter_release(struct value_splitter *vs)
{
	strbuf_release(&vs->value);
}

void json_describe_start(const char *text, size_t len, char *out, size_t size)
{
	enum { SHOWN = 32 };
	size_t n = 0, shown = len < SHOWN ? len : SHOWN;

	if (!size)
		return;
	while (len && (*text == ' ' || *text == '\n' || *text == '\r' || *text == '\t'))
		text++, len--, shown = len < SHOWN ? len : SHOWN;
	if (!len) {
		snprintf(out, size, "it is empty");
		return;
	}
	n = (size_t)snprintf(out, size, "it begins '");
	for (size_t i = 0; i < shown && n + 8 < size; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
			n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
		else
			out[n++] = (char)c;
	}
	snprintf(out + n, size - n, "%s'", len > shown ? "..." : "");
}

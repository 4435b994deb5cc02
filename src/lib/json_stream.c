/* json_stream.c — splitting streamed lists and watch lines; see json_stream.h. */
#include "lib/json_stream.h"

#include <stdio.h>
#include <string.h>

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
			 * Between items only commas and white space: an item that
			 * is no object or array (1, "x", null) is malformed, not
			 * something to skip.  Around the list itself, only white
			 * space: "<html>" or "Bad Gateway" is no list.
			 */
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

void line_splitter_init(struct line_splitter *ls, json_piece_fn *on_line, void *ctx)
{
	memset(ls, 0, sizeof(*ls));
	ls->on_line = on_line;
	ls->ctx = ctx;
}

int line_splitter_feed(struct line_splitter *ls, const char *data, size_t len)
{
	const char *start = data;
	uint64_t base = ls->fed;

	ls->fed += len;
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t n = nl ? (size_t)(nl - data) : len;
		if (ls->line.len + n > JSON_STREAM_MAX_PIECE) {
			ls->too_large = true;
			return -1;
		}
		if (!nl) {
			strbuf_add(&ls->line, data, len);
			return 0;
		}
		/*
		 * A line whole in data goes to on_line where it lies; only one
		 * begun in an earlier chunk was gathered, and is completed.
		 */
		const char *text = data;
		if (ls->line.len) {
			strbuf_add(&ls->line, data, n);
			text = ls->line.buf;
			n = ls->line.len;
		}
		int rc = 0;
		ls->line_end = base + (uint64_t)(nl - start) + 1;
		/* Skip blank lines (a stray "\r" or keep-alive newline). */
		if (n && !(n == 1 && text[0] == '\r'))
			rc = ls->on_line(ls->ctx, text, n);
		strbuf_reset(&ls->line);
		if (rc < 0)
			return -1;
		len -= (size_t)(nl - data) + 1;
		data = nl + 1;
	}
	return 0;
}

size_t line_splitter_pending(const struct line_splitter *ls)
{
	return ls->line.len;
}

void line_splitter_release(struct line_splitter *ls)
{
	strbuf_release(&ls->line);
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

/*
 * json_stream_fuzz.c — the bytes a server streams, decoded as the
 * reflector decodes them (reflector.c: on_list_data / on_list_item /
 * list_metadata for a LIST, on_watch_data / on_watch_event for a watch):
 *
 *   LIST   list_splitter over the body, each item made into a kobj with
 *          the list's TypeMeta, the rest (kind, metadata) parsed for its
 *          resourceVersion and continue token;
 *   WATCH  value_splitter over the body, each line parsed as an event
 *          (managedFields skipped in the text), its object made a kobj;
 *          a line that is no one value framed again as Go frames it;
 *          each value read again as client-go reads it (decode_error.h):
 *          what kinf parses, Go's scanner reads whole, and a refusal
 *          says why.
 *
 * The first byte of the input chooses where the body is cut into pieces
 * (network chunks fall anywhere); the rest is the body.  Besides "no crash,
 * no leak, no undefined behaviour", the pieces must not matter: the body fed
 * whole and fed in pieces gives the same items, values and verdict.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "informer/decode_error.h"
#include "informer/kobj.h"
#include "lib/gojson.h"
#include "lib/strbuf.h"
#include "lib/json_stream.h"
#include "fuzz.h"

/* What decoding one body came to, to compare the two ways of feeding it. */
struct outcome {
	uint64_t hash;		/* of every piece handed over, in order */
	size_t pieces, objects;
	int rc;
	bool done;
	const struct value_splitter *values;	/* a watch's */
};

static void mix(struct outcome *o, const char *text, size_t len)
{
	/* FNV-1a, and the length, so that "ab","c" differs from "a","bc". */
	for (size_t i = 0; i < len; i++)
		o->hash = (o->hash ^ (unsigned char)text[i]) * 1099511628211u;
	o->hash = (o->hash ^ len) * 1099511628211u;
	o->pieces++;
}

static const struct kobj_type pod_type = { .api_version = "v1", .kind = "Pod" };

static int on_item(void *ctx, const char *text, size_t len)
{
	struct outcome *o = ctx;
	struct errbuf err = { "" };

	mix(o, text, len);
	struct kobj *obj = kobj_from_list_item(text, len, &pod_type, 0, &err);
	if (!obj) {
		CHECK(err.msg[0]);	/* a failure says why */
		return -1;
	}
	struct strbuf scratch = STRBUF_INIT;
	CHECK(obj->key[0] && kobj_text(obj, &scratch)[obj->json_len] == '\0');
	strbuf_release(&scratch);
	o->objects++;
	kobj_unref(obj);
	return 0;
}

static int on_value(void *ctx, const char *text, size_t len)
{
	struct outcome *o = ctx;
	json_object *root, *type, *object;

	root = kobj_parse(text, len, true, 0);
	if (!root && !o->values->framed)
		return JSON_PIECE_REFRAME;	/* as on_watch_event() */
	mix(o, text, len);
	struct strbuf why = STRBUF_INIT;
	CHECK(!watch_decode_error(text, len, &why) || why.len);
	if (root) {
		long n = gojson_value(text, len, &why);
		CHECK(n > 0);
		for (size_t i = (size_t)n; i < len; i++)
			CHECK(strchr(" \t\r\n", text[i]) && text[i]);
	}
	strbuf_release(&why);
	if (!root || !json_object_object_get_ex(root, "type", &type) ||
	    !json_object_object_get_ex(root, "object", &object)) {
		json_object_put(root);
		return -1;	/* "malformed watch event" */
	}
	const char *t = json_object_get_string(type);
	if (t && (!strcmp(t, "ADDED") || !strcmp(t, "MODIFIED") || !strcmp(t, "DELETED"))) {
		struct errbuf err = { "" };
		struct kobj *obj = kobj_from_tree(object, 0, &err);
		CHECK(obj || err.msg[0]);
		if (obj)
			o->objects++;
		kobj_unref(obj);
	}
	json_object_put(root);
	return 0;
}

/* Cut points from a seed: small pieces, often one byte, sometimes large. */
static size_t next_piece(uint32_t *seed, size_t left)
{
	*seed = *seed * 1103515245u + 12345u;
	size_t n = (*seed >> 16) % 4 == 0 ? 1 : 1 + (*seed >> 8) % 64;
	return n < left ? n : left;
}

static void decode_list(const char *body, size_t len, uint32_t seed, struct outcome *o)
{
	struct list_splitter ls;

	memset(o, 0, sizeof(*o));
	list_splitter_init(&ls, on_item, o);
	for (size_t off = 0, n; off < len && o->rc == 0; off += n) {
		n = seed ? next_piece(&seed, len - off) : len;
		o->rc = list_splitter_feed(&ls, body + off, n);
	}
	o->done = list_splitter_done(&ls);
	if (o->rc == 0 && o->done) {
		json_object *root = json_parse_deep(list_splitter_rest(&ls)), *meta, *v;
		if (root && json_object_object_get_ex(root, "metadata", &meta)) {
			if (json_object_object_get_ex(meta, "resourceVersion", &v))
				mix(o, json_object_get_string(v), strlen(json_object_get_string(v)));
			if (json_object_object_get_ex(meta, "continue", &v))
				mix(o, json_object_get_string(v), strlen(json_object_get_string(v)));
		}
		json_object_put(root);
	}
	list_splitter_release(&ls);
}

static void decode_watch(const char *body, size_t len, uint32_t seed, struct outcome *o)
{
	struct value_splitter vs;

	memset(o, 0, sizeof(*o));
	value_splitter_init(&vs, on_value, o);
	o->values = &vs;
	for (size_t off = 0, n; off < len && o->rc == 0; off += n) {
		n = seed ? next_piece(&seed, len - off) : len;
		o->rc = value_splitter_feed(&vs, body + off, n);
	}
	o->done = value_splitter_pending(&vs) == 0;
	value_splitter_release(&vs);
}

static void same(const struct outcome *a, const struct outcome *b)
{
	CHECK(a->rc == b->rc);
	CHECK(a->pieces == b->pieces);
	CHECK(a->hash == b->hash);
	CHECK(a->objects == b->objects);
	/* After an error the reflector drops the body: "done" means nothing. */
	CHECK(a->rc < 0 || a->done == b->done);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome whole, pieces;

	if (size < 1)
		return 0;
	uint32_t seed = data[0] | 1u;
	const char *body = (const char *)data + 1;
	size_t len = size - 1;

	decode_list(body, len, 0, &whole);
	decode_list(body, len, seed, &pieces);
	same(&whole, &pieces);

	decode_watch(body, len, 0, &whole);
	decode_watch(body, len, seed, &pieces);
	same(&whole, &pieces);
	return 0;
}

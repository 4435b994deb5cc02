/*
 * kobj.c — immutable, refcounted Kubernetes objects kept as compact JSON;
 * see kobj.h.
 *
 * One allocation per object: the struct, then its own small strings
 * (key, rv, node), then the text, packed (lib/zpack) once the object's
 * kind has its dictionary; namespace, kind, labels and owners are
 * shared with the objects that have the same (lib/intern, below).  With
 * a ~3 KB pod that keeps the overhead to the struct, some fifty bytes of
 * strings and one malloc header, next to a few hundred bytes of text.
 *
 * Objects are made without json-c.  One pass of a scanner over the bytes
 * (lib/json_scan) validates the JSON, picks up the fields struct kobj
 * holds, and writes the compact text by copying runs of the input: the
 * whitespace between tokens is left out, metadata.managedFields is cut by
 * its byte range, and strings with escapes are rewritten as json-c would
 * write them.  For compact input the text is byte for byte what the former
 * json-c round trip made (tests/unit/test_kobj.c checks it against json-c).
 * json-c trees are built only for the few readers that need one
 * (kobj_tree(), bookmarks and error events).
 */
#include "informer/kobj.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/gojson.h"
#include "lib/intern.h"
#include "lib/json_scan.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "lib/zpack.h"

#define TO_STRING_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* ---- what the scan picks up --------------------------------------------- */

#define NONE ((size_t)-1)

struct fields {
	unsigned flags;		/* the transform's: KOBJ_KEEP_MANAGED_FIELDS */
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
	bool meta_not_string;	/* the event's own kind or apiVersion */
	bool has_object;
	size_t obj_from, obj_to;	/* the object's span of out */
	size_t owner_uid;	/* while scanning one owner reference */
};

/* Adds the string value at the cursor to strs; NONE when not a string. */
static int take_string(struct json_scan *s, struct fields *f, size_t *off)
{
	const char *t, *tend;
	bool escaped;

	if (*s->p != '"') {
		*off = NONE;
		return 0;	/* scanned as any value */
	}
	if (json_scan_string(s, &t, &tend, &escaped) < 0)
		return -1;
	*off = f->strs.len;
	if (escaped)
		json_scan_decode(t, tend, &f->strs);
	else
		strbuf_add(&f->strs, t, (size_t)(tend - t));
	strbuf_addch(&f->strs, '\0');
	return 1;
}

/*
 * A name or namespace: a "\u0000" in it would cut the key short and name
 * another object, so it is refused.
 */
static int take_key_string(struct json_scan *s, struct fields *f, size_t *off)
{
	int rc = take_string(s, f, off);

	if (rc > 0 && strlen(f->strs.buf + *off) != f->strs.len - 1 - *off)
		return json_scan_fail(s, "a NUL byte in its name or namespace");
	return rc;
}

static int label_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;
	size_t from, start = f->labels.len, value;
	const char *t, *tend;
	bool escaped;

	strbuf_add(&f->labels, key, klen);
	strbuf_addch(&f->labels, '=');
	if (*s->p == '"') {
		if (json_scan_string(s, &t, &tend, &escaped) < 0)
			return -1;
		if (escaped)
			json_scan_decode(t, tend, &f->labels);
		else
			strbuf_add(&f->labels, t, (size_t)(tend - t));
	} else if (*s->p == 'n') {
		if (json_scan_literal(s, "null", 4) < 0)
			return -1;
	} else {
		/* Not a string: its text, as json-c would give it. */
		json_scan_flush(s);
		from = s->out->len;
		if (json_scan_value(s) < 0)
			return -1;
		json_scan_flush(s);
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

static int owner_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	if (json_scan_key_is(key, klen, "uid"))
		return take_string(s, f, &f->owner_uid);
	return 0;
}

static int owner_element(struct json_scan *s, void *ctx)
{
	struct fields *f = ctx;

	if (*s->p != '{')
		return 0;
	f->owner_uid = NONE;
	if (json_scan_object(s, owner_member, f) < 0)
		return -1;
	if (f->owner_uid != NONE && f->strs.buf[f->owner_uid])
		strbuf_add(&f->owners, f->strs.buf + f->owner_uid,
			   strlen(f->strs.buf + f->owner_uid) + 1);
	return 1;
}

static int metadata_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	switch (klen ? key[0] : 0) {
	case 'n':
		if (json_scan_key_is(key, klen, "name"))
			return take_key_string(s, f, &f->name);
		if (json_scan_key_is(key, klen, "namespace"))
			return take_key_string(s, f, &f->ns);
		break;
	case 'r':
		if (json_scan_key_is(key, klen, "resourceVersion"))
			return take_string(s, f, &f->rv);
		break;
	case 'l':
		if (json_scan_key_is(key, klen, "labels")) {
			strbuf_reset(&f->labels);
			if (*s->p != '{')
				return 0;
			return json_scan_object(s, label_member, f) < 0 ? -1 : 1;
		}
		break;
	case 'o':
		if (json_scan_key_is(key, klen, "ownerReferences")) {
			strbuf_reset(&f->owners);
			if (*s->p != '[')
				return 0;
			return json_scan_array(s, owner_element, f) < 0 ? -1 : 1;
		}
		break;
	case 'm':
		if (json_scan_key_is(key, klen, "managedFields") &&
		    !(f->flags & KOBJ_KEEP_MANAGED_FIELDS))
			return JSON_SCAN_CUT;
		break;
	}
	return 0;
}

static int spec_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	if (json_scan_key_is(key, klen, "nodeName"))
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
static int object_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	if (json_scan_key_is(key, klen, "metadata")) {
		reset_metadata(f);
		if (*s->p != '{')
			return 0;
		f->metadata = true;
		return json_scan_object(s, metadata_member, f) < 0 ? -1 : 1;
	}
	if (json_scan_key_is(key, klen, "kind")) {
		f->has_kind = true;
		return take_string(s, f, &f->kind);
	}
	if (json_scan_key_is(key, klen, "spec")) {
		f->node = NONE;
		if (*s->p != '{')
			return 0;
		return json_scan_object(s, spec_member, f) < 0 ? -1 : 1;
	}
	if (json_scan_key_is(key, klen, "apiVersion") && s->out) {
		f->has_api = true;
		f->api_from = s->member_mark;
		f->api_first = s->member_first;
		f->api_value = json_scan_pos(s);
		if (json_scan_value(s) < 0)
			return -1;
		f->api_to = json_scan_pos(s);
		return 1;
	}
	return 0;
}

/* A member of a watch event: {"type":"ADDED","object":{...}}. */
static int event_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct fields *f = ctx;

	if (json_scan_key_is(key, klen, "type")) {
		if (*s->p == '"')
			return take_string(s, f, &f->type);
		/* Not a string: its text, for the message. */
		size_t from = json_scan_pos(s);
		if (json_scan_value(s) < 0)
			return -1;
		json_scan_flush(s);
		f->type = f->strs.len;
		strbuf_add(&f->strs, s->out->buf + from, s->out->len - from);
		strbuf_addch(&f->strs, '\0');
		return 1;
	}
	if (json_scan_key_is(key, klen, "object")) {
		reset_object(f);
		f->has_object = *s->p == '{';
		f->obj_from = json_scan_pos(s);
		/* the object's numbers are read as Go reads them, the event's skipped */
		s->go_floats = true;
		if (f->has_object && json_scan_object(s, object_member, f) < 0)
			return -1;
		if (!f->has_object && json_scan_value(s) < 0)
			return -1;
		s->go_floats = false;
		f->obj_to = json_scan_pos(s);
		return 1;
	}
	/* json.SimpleMetaFactory's Interpret reads these first, as strings */
	if (*s->p != '"' && *s->p != 'n' &&
	    (gojson_name_is(key, klen, "kind") || gojson_name_is(key, klen, "apiVersion")))
		f->meta_not_string = true;
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

int kobj_scan_document(struct json_scan *s, const char *text,
		       json_scan_member_fn *fn, void *ctx, struct errbuf *err)
{
	json_scan_skip_ws(s);
	if (s->p >= s->end || *s->p != '{') {
		errbuf_set(err, s->p >= s->end ? "cannot parse object: empty"
					       : "object is not a JSON object");
		return -1;
	}
	if (json_scan_object(s, fn, ctx) == 0) {
		json_scan_skip_ws(s);
		if (s->p < s->end)
			json_scan_fail(s, "text after the object");
	}
	if (s->err) {
		errbuf_set(err, "cannot parse object: %s at byte %zu", s->err,
			   (size_t)(s->p - text));
		return -1;
	}
	return 0;
}

/*
 * Scans text (an object, or with in_event a watch event), writing the
 * compact text to out (grown to hold it) and the fields to f (set up
 * here: fields_release() it after, either way).  -1 with err when it is
 * not one JSON object.
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

	fields_init(f);
	if (!all_ascii(text, len) && (clean = utf8_replace_invalid(text, len, &len)))
		text = clean;

	struct json_scan s;

	json_scan_init(&s, text, len, out);
	s.go_floats = !in_event;
	f->flags = flags;
	strbuf_grow(out, len + 1);
	if (kobj_scan_document(&s, text, in_event ? event_member : object_member, f, err) < 0)
		goto out;
	json_scan_flush(&s);
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
 * 100,000 pods.  So those four live in one interned copy (lib/intern)
 * that every object with the same bytes points into: one lookup when an
 * object is made and one when it is freed, against the scan of its
 * kilobytes.
 *
 * The kobj of scanned fields and compact text.
 */
static struct kobj *make(const struct fields *f, const char *text, size_t len,
			 struct errbuf *err)
{
	struct strbuf sb = STRBUF_INIT, sh = STRBUF_INIT, packed = STRBUF_INIT;
	const char *name = field(f, f->name), *ns = field(f, f->ns), *node;
	size_t nsoff, rv, kind, labels, nodeoff, owners, plen;
	struct zpack *pack;
	struct kobj *obj;
	char *base;

	if ((!f->metadata || !name || !*name) && !(f->flags & KOBJ_ALLOW_UNNAMED)) {
		errbuf_set(err, "object has no metadata.name");
		return NULL;
	}
	if (!name)
		name = "";
	if (len > UINT32_MAX) {
		errbuf_set(err, "object of %zu bytes: more than 4 GiB", len);
		return NULL;
	}
	if (!ns)
		ns = "";
	strbuf_grow(&sb, 256);
	/* The key first, right after the struct: kobj_key_of(). */
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

	pack = zpack_family(field(f, f->kind) ? field(f, f->kind) : "");
	plen = pack ? zpack_pack(pack, text, len, &packed) : 0;
	obj = xmalloc(sizeof(*obj) + sb.len + (plen ? plen : len + 1));
	base = (char *)(obj + 1);
	memcpy(base, sb.buf, sb.len);
	atomic_init(&obj->refs, 1);
	atomic_init(&obj->memo, NULL);
	obj->shared = intern_get(sh.buf, sh.len);
	obj->key = base;
	obj->name = base + (*ns ? strlen(ns) + 1 : 0);
	obj->ns = obj->shared->bytes + nsoff;
	obj->rv = base + rv;
	obj->kind = obj->shared->bytes + kind;
	obj->labels = obj->shared->bytes + labels;
	obj->node = base + nodeoff;
	obj->owners = obj->shared->bytes + owners;
	obj->json_len = (uint32_t)len;
	obj->packed_len = (uint32_t)plen;
	obj->pack = plen ? pack : NULL;
	if (plen) {
		memcpy(base + sb.len, packed.buf, plen);
	} else {
		memcpy(base + sb.len, text, len);
		base[sb.len + len] = '\0';
	}
	obj->stored = base + sb.len;
	strbuf_release(&sb);
	strbuf_release(&sh);
	strbuf_release(&packed);
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
	strbuf_add(&head, body.buf, body.len);
	strbuf_addch(&head, '}');

	kind = f->strs.len;
	strbuf_adds(&f->strs, type->kind);
	strbuf_addch(&f->strs, '\0');
	f->kind = kind;
	obj = make(f, head.buf, head.len, err);
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

	if (scan_text(json, len, false, flags, &out, &f, err) < 0)
		goto cleanup;
	if (type && !f.has_kind)
		obj = make_typed(&f, &out, type, err);
	else
		obj = make(&f, out.buf, out.len, err);
cleanup:
	fields_release(&f);
	strbuf_release(&out);
	return obj;
}

/* A json-c tree of compact text; NULL when refused. */
static struct json_object *tree_of(const char *text, size_t len)
{
	struct json_tokener *tok;
	struct json_object *tree;

	if (len > INT32_MAX)
		return NULL;
	tok = json_tokener_new_ex(JSON_SCAN_DEPTH);
	tree = json_tokener_parse_ex(tok, text, (int)len);
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
	if (scan_text(json, len, true, flags, &out, &f, err) < 0)
		goto cleanup;
	if (f.type == NONE || !f.has_object) {
		errbuf_set(err, "not a JSON object with a type and an object");
		goto cleanup;
	}
	if (f.meta_not_string) {
		errbuf_set(err, "its kind or apiVersion is not a string");
		goto cleanup;
	}
	type = field(&f, f.type);
	snprintf(ev->type_name, sizeof(ev->type_name), "%s", type);
	for (int t = 0; t < (int)ARRAY_SIZE(event_types); t++)
		if (event_types[t] && !strcmp(type, event_types[t]))
			ev->type = (enum kobj_event_type)t;
	/*
	 * client-go's dynamic decoder (UnstructuredJSONScheme) refuses an
	 * object without a kind, a string, of whatever type the event is:
	 * the watch ends with its error.
	 */
	if (ev->type != KOBJ_EVENT_UNKNOWN && !(field(&f, f.kind) && *field(&f, f.kind))) {
		errbuf_set(err, "its object has no kind");
		goto cleanup;
	}
	ret = 0;
	switch (ev->type) {
	case KOBJ_EVENT_ADDED:
	case KOBJ_EVENT_MODIFIED:
	case KOBJ_EVENT_DELETED:
		ev->obj = make(&f, out.buf + f.obj_from, f.obj_to - f.obj_from, &ev->obj_err);
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
		intern_put(obj->shared);
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

/*
 * Equal packed bytes are equal texts; unequal ones need not be unequal
 * texts (nothing promises zstd packs alike twice), so those are compared
 * unpacked.
 */
bool kobj_same(const struct kobj *a, const struct kobj *b)
{
	struct strbuf sa = STRBUF_INIT, sb = STRBUF_INIT;
	bool same;

	if (a->json_len != b->json_len)
		return false;
	if (!a->packed_len && !b->packed_len)
		return !memcmp(a->stored, b->stored, a->json_len);
	if (a->pack == b->pack && a->packed_len == b->packed_len &&
	    !memcmp(a->stored, b->stored, a->packed_len))
		return true;
	same = !memcmp(kobj_text(a, &sa), kobj_text(b, &sb), a->json_len);
	strbuf_release(&sa);
	strbuf_release(&sb);
	return same;
}

void kobj_json(const struct kobj *obj, struct strbuf *sb)
{
	if (obj->packed_len)
		zpack_unpack(obj->pack, obj->stored, obj->packed_len, obj->json_len, sb);
	else
		strbuf_add(sb, obj->stored, obj->json_len);
}

const char *kobj_text(const struct kobj *obj, struct strbuf *scratch)
{
	if (!obj->packed_len)
		return obj->stored;
	strbuf_reset(scratch);
	kobj_json(obj, scratch);
	return scratch->buf;
}

struct json_object *kobj_tree(const struct kobj *obj)
{
	struct strbuf scratch = STRBUF_INIT;
	struct json_object *tree = tree_of(kobj_text(obj, &scratch), obj->json_len);

	strbuf_release(&scratch);
	return tree;
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

/*
 * kobj.c — immutable, refcounted Kubernetes objects kept as compact JSON;
 * see kobj.h.
 *
 * One allocation per object: the struct, then its small strings (key,
 * namespace, rv, uid, kind, the packed index values), then the text.
 * With a ~3.5 KB pod that keeps the overhead to the struct and a couple
 * of hundred bytes of strings, and one malloc header.
 */
#include "informer/kobj.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/strbuf.h"

#define TO_STRING_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/*
 * json-c's default nesting limit is 32, and CRDs (their OpenAPI schemas)
 * and some custom resources go deeper: such an object could never be
 * listed, and one such watch event would be retried forever.
 */
#define JSON_DEPTH 1024

static struct json_object *member(struct json_object *obj, const char *name,
				  enum json_type type)
{
	struct json_object *v;

	if (!obj || !json_object_object_get_ex(obj, name, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

static const char *member_str(struct json_object *obj, const char *name)
{
	struct json_object *v = member(obj, name, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

/* A JSON string may hold "\u0000"; a C string ends there. */
static bool has_nul(struct json_object *str)
{
	return strlen(json_object_get_string(str)) != (size_t)json_object_get_string_len(str);
}

/* Appends s and its NUL; returns where it starts in sb. */
static size_t add_str(struct strbuf *sb, const char *s)
{
	size_t off = sb->len;

	strbuf_add(sb, s ? s : "", s ? strlen(s) + 1 : 1);
	return off;
}

static size_t add_labels(struct strbuf *sb, struct json_object *labels)
{
	size_t off = sb->len;

	if (labels) {
		json_object_object_foreach(labels, lkey, lval) {
			const char *v = lval ? json_object_get_string(lval) : "";

			/* Not indexed: it would read as two labels. */
			if (lval && json_object_is_type(lval, json_type_string) && has_nul(lval))
				continue;
			strbuf_adds(sb, lkey);
			strbuf_addch(sb, '=');
			add_str(sb, v);
		}
	}
	strbuf_addch(sb, '\0');
	return off;
}

static size_t add_owners(struct strbuf *sb, struct json_object *refs)
{
	size_t off = sb->len, n = refs ? json_object_array_length(refs) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *uid;

		uid = member_str(json_object_array_get_idx(refs, i), "uid");
		if (uid && *uid)
			add_str(sb, uid);
	}
	strbuf_addch(sb, '\0');
	return off;
}

/*
 * A new object holding new references to obj's members (not copies of
 * them), in obj's order, less the member named skip.
 */
static struct json_object *shallow_copy(struct json_object *obj,
					const char *skip)
{
	struct json_object *copy = json_object_new_object();

	json_object_object_foreach(obj, mkey, mval) {
		if (skip && !strcmp(mkey, skip))
			continue;
		/* mkey lives in obj, which outlives the copy. */
		json_object_object_add_ex(copy, mkey, json_object_get(mval),
					  JSON_C_OBJECT_ADD_KEY_IS_NEW |
					  JSON_C_OBJECT_ADD_CONSTANT_KEY);
	}
	return copy;
}

/*
 * The tree to serialise, as a new reference.  json-c serialises into a
 * buffer it hangs on the root it is given, and dropping managedFields
 * means deleting a member: both would write to a borrowed tree, and a
 * deep copy costs as much as the object again.  So a borrowed tree gets a
 * throwaway shallow root (and, when managedFields goes, a shallow
 * metadata) that shares every other member by reference: the caller's
 * nodes are never written, only their reference counts go up and back
 * down — which is why a borrowed tree must not be in use by another thread
 * meanwhile, json-c's counts not being atomic.  A tree we parsed ourselves
 * is simply edited.
 */
static struct json_object *to_serialise(struct json_object *tree,
					struct json_object *meta, bool owned,
					bool drop_managed)
{
	struct json_object *root;

	if (owned) {
		if (drop_managed)
			json_object_object_del(meta, "managedFields");
		return json_object_get(tree);
	}
	root = shallow_copy(tree, NULL);
	if (drop_managed)
		/* Replaces the shared metadata in place, keeping the order. */
		json_object_object_add_ex(root, "metadata",
					  shallow_copy(meta, "managedFields"),
					  JSON_C_OBJECT_ADD_CONSTANT_KEY);
	return root;
}

static struct kobj *make(struct json_object *tree, bool owned, unsigned flags,
			 struct errbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object *meta, *spec, *root;
	const char *name, *ns, *node_name, *text;
	size_t key, nsoff, rv, uid, kind, labels, node, owners, len;
	bool drop_managed;
	struct kobj *obj;
	char *base;

	if (!json_object_is_type(tree, json_type_object)) {
		errbuf_set(err, "object is not a JSON object");
		return NULL;
	}
	meta = member(tree, "metadata", json_type_object);
	name = member_str(meta, "name");
	if (!name || !*name) {
		errbuf_set(err, "object has no metadata.name");
		return NULL;
	}
	ns = member_str(meta, "namespace");
	if (!ns)
		ns = "";
	/* The key would lose what follows the NUL and name another object. */
	struct json_object *ns_str = member(meta, "namespace", json_type_string);
	if (has_nul(member(meta, "name", json_type_string)) || (ns_str && has_nul(ns_str))) {
		errbuf_set(err, "object '%s' has a NUL byte in its name or namespace", name);
		return NULL;
	}

	key = sb.len;
	if (*ns) {
		strbuf_adds(&sb, ns);
		strbuf_addch(&sb, '/');
	}
	add_str(&sb, name);
	nsoff = add_str(&sb, ns);
	strbuf_addch(&sb, '\0');
	rv = add_str(&sb, member_str(meta, "resourceVersion"));
	uid = add_str(&sb, member_str(meta, "uid"));
	kind = add_str(&sb, member_str(tree, "kind"));
	labels = add_labels(&sb, member(meta, "labels", json_type_object));
	spec = member(tree, "spec", json_type_object);
	node = sb.len;
	node_name = member_str(spec, "nodeName");
	if (node_name && *node_name)
		add_str(&sb, node_name);
	strbuf_addch(&sb, '\0');
	owners = add_owners(&sb, member(meta, "ownerReferences",
					json_type_array));

	drop_managed = !(flags & KOBJ_KEEP_MANAGED_FIELDS) &&
		       json_object_object_get_ex(meta, "managedFields", NULL);
	root = to_serialise(tree, meta, owned, drop_managed);
	text = json_object_to_json_string_length(root, TO_STRING_FLAGS, &len);

	obj = xmalloc(sizeof(*obj) + sb.len + len + 1);
	base = (char *)(obj + 1);
	memcpy(base, sb.buf, sb.len);
	atomic_init(&obj->refs, 1);
	obj->key = base + key;
	obj->name = base + key + (*ns ? strlen(ns) + 1 : 0);
	obj->ns = base + nsoff;
	obj->rv = base + rv;
	obj->uid = base + uid;
	obj->kind = base + kind;
	obj->labels = base + labels;
	obj->node = base + node;
	obj->owners = base + owners;
	obj->json = base + sb.len;
	memcpy(obj->json, text, len);
	obj->json[len] = '\0';
	obj->json_len = len;

	json_object_put(root);
	strbuf_release(&sb);
	return obj;
}

struct kobj *kobj_from_tree(struct json_object *obj, unsigned flags,
			    struct errbuf *err)
{
	return make(obj, false, flags, err);
}

/*
 * A new root with kind and apiVersion first, as the server writes a typed
 * object (TypeMeta's order, and what a watch event carries), then every
 * member of tree (shared by reference).  Puts tree.
 */
static struct json_object *with_type_meta(struct json_object *tree,
					  const struct kobj_type *type)
{
	if (!type || !json_object_is_type(tree, json_type_object) ||
	    json_object_object_get_ex(tree, "kind", NULL))
		return tree;
	struct json_object *root = json_object_new_object();
	json_object_object_add(root, "kind", json_object_new_string(type->kind));
	json_object_object_add(root, "apiVersion", json_object_new_string(type->api_version));
	json_object_object_foreach(tree, key, val)
		json_object_object_add(root, key, json_object_get(val));
	json_object_put(tree);
	return root;
}

/*
 * ---- metadata.managedFields skipped in the text -------------------------
 *
 * managedFields are a third of a pod's bytes and most of its JSON nodes
 * (fieldsV1 is a tree of empty objects), and the default transform drops
 * them: building a json-c tree of them only to free it was ~40 % of the
 * cost of making a pod's kobj (bench/: make bench).  So the text is
 * scanned for the member's span, and json-c is fed the text before and
 * after it as two pieces of one document (its tokener is incremental).
 * The scan only finds boundaries; anything unexpected (a malformed or
 * unusual text) just means "not found", the text is parsed whole and
 * make() drops the member from the tree as before: the result is the
 * same either way.  When the text holds the members twice, the first
 * found may not be the one json-c keeps, but make() still drops whatever
 * managedFields the kept metadata has.
 */

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Past the string opening at p; NULL when it does not end. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* Past the value starting at p; NULL when it does not end well. */
static const char *skip_value(const char *p, const char *end)
{
	uint64_t objects = 0;	/* a bit per open container: 1 for '{' */
	int depth = 0;

	do {
		if (p >= end)
			return NULL;
		switch (*p) {
		case '"':
			if (!(p = skip_string(p, end)))
				return NULL;
			break;
		case '{':
		case '[':
			if (depth == 64)
				return NULL;
			objects = objects << 1 | (*p == '{');
			depth++;
			p++;
			break;
		case '}':
		case ']':
			if (!depth || (objects & 1) != (*p == '}'))
				return NULL;
			objects >>= 1;
			depth--;
			p++;
			break;
		default:
			if (!depth) {	/* a scalar: up to what follows it */
				while (p < end && *p != ',' && *p != '}' && *p != ']' &&
				       *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
					p++;
				return p;
			}
			p++;
		}
	} while (depth);
	return p;
}

struct member {
	const char *value, *value_end;
	const char *cut, *cut_end;	/* the member and one comma next to it */
};

/* The first member `name` of the object opening at obj. */
static bool find_member(const char *obj, const char *end, const char *name,
			struct member *m)
{
	size_t nlen = strlen(name);
	const char *p = skip_ws(obj + 1, end), *comma = NULL;

	while (p < end && *p == '"') {
		const char *key = p, *key_end = skip_string(p, end);

		if (!key_end)
			return false;
		p = skip_ws(key_end, end);
		if (p >= end || *p != ':')
			return false;
		m->value = skip_ws(p + 1, end);
		if (!(m->value_end = skip_value(m->value, end)))
			return false;
		p = skip_ws(m->value_end, end);
		if (p >= end || (*p != ',' && *p != '}'))
			return false;
		if ((size_t)(key_end - key) == nlen + 2 &&
		    !memcmp(key + 1, name, nlen)) {
			/* ,"name":v  or, when first,  "name":v,  or alone */
			m->cut = comma ? comma : key;
			m->cut_end = comma || *p == '}' ? m->value_end : p + 1;
			return true;
		}
		if (*p == '}')
			return false;
		comma = p;
		p = skip_ws(p + 1, end);
	}
	return false;
}

/* Where metadata.managedFields is, of the object or of the event's object. */
static bool managed_fields_span(const char *text, size_t len, bool in_event,
				size_t *from, size_t *to)
{
	const char *end = text + len, *p = skip_ws(text, end);
	struct member m;

	if (p >= end || *p != '{')
		return false;
	if (in_event) {
		if (!find_member(p, end, "object", &m) || *m.value != '{')
			return false;
		p = m.value;
	}
	if (!find_member(p, end, "metadata", &m) || *m.value != '{' ||
	    !find_member(m.value, end, "managedFields", &m))
		return false;
	*from = (size_t)(m.cut - text);
	*to = (size_t)(m.cut_end - text);
	return true;
}

/*
 * Parses text with tok (fresh or reset), leaving out metadata.managedFields
 * unless flags keep them.  NULL with tok's error when the text does not
 * parse.
 */
static struct json_object *parse_valid(struct json_tokener *tok, const char *text,
				       size_t len, bool in_event, unsigned flags)
{
	size_t from, to;

	if (!(flags & KOBJ_KEEP_MANAGED_FIELDS) &&
	    managed_fields_span(text, len, in_event, &from, &to)) {
		struct json_object *tree = json_tokener_parse_ex(tok, text, (int)from);

		if (!tree && json_tokener_get_error(tok) == json_tokener_continue &&
		    (tree = json_tokener_parse_ex(tok, text + to, (int)(len - to))))
			return tree;
		/* Not as the scan thought: the whole text, as json-c sees it. */
		json_object_put(tree);
		json_tokener_reset(tok);
	}
	return json_tokener_parse_ex(tok, text, (int)len);
}

/*
 * json-c takes any bytes in strings and writes them back as they came, so
 * invalid UTF-8 from a server would reach -o json's output, which is then
 * not JSON.  Go's encoding/json, which client-go decodes with, replaces
 * each bad byte with U+FFFD; so does this, before parsing.
 */
static struct json_object *parse(struct json_tokener *tok, const char *text,
				 size_t len, bool in_event, unsigned flags)
{
	size_t fixed_len;
	char *fixed = utf8_replace_invalid(text, len, &fixed_len);
	struct json_object *tree;

	if (!fixed)
		return parse_valid(tok, text, len, in_event, flags);
	tree = fixed_len > INT32_MAX ? NULL
				     : parse_valid(tok, fixed, fixed_len, in_event, flags);
	free(fixed);
	return tree;
}

struct json_object *kobj_parse(const char *json, size_t len, bool in_event,
			       unsigned flags)
{
	struct json_tokener *tok;
	struct json_object *tree;

	if (len > INT32_MAX)
		return NULL;
	tok = json_tokener_new_ex(JSON_DEPTH);
	tree = parse(tok, json, len, in_event, flags);
	json_tokener_free(tok);
	return tree;
}

struct kobj *kobj_from_json(const char *json, size_t len, unsigned flags,
			    struct errbuf *err)
{
	return kobj_from_list_item(json, len, NULL, flags, err);
}

struct kobj *kobj_from_list_item(const char *json, size_t len,
				 const struct kobj_type *type, unsigned flags,
				 struct errbuf *err)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
	struct json_object *tree;
	struct kobj *obj = NULL;

	if (len > INT32_MAX) {
		errbuf_set(err, "object of %zu bytes is too large", len);
		goto cleanup;
	}
	tree = parse(tok, json, len, false, flags);
	if (!tree) {
		enum json_tokener_error jerr = json_tokener_get_error(tok);

		errbuf_set(err, "cannot parse object: %s",
			   jerr == json_tokener_continue ? "unexpected end" :
			   json_tokener_error_desc(jerr));
		goto cleanup;
	}
	tree = with_type_meta(tree, type);
	obj = make(tree, true, flags, err);
	json_object_put(tree);
cleanup:
	json_tokener_free(tok);
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
					     memory_order_acq_rel) == 1)
		free(obj);
}

struct json_object *kobj_tree(const struct kobj *obj)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
	struct json_object *tree;

	tree = json_tokener_parse_ex(tok, obj->json, (int)obj->json_len);
	json_tokener_free(tok);
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

/*
 * kobj_fuzz.c — the object scanner and kobj maker (informer/kobj.c) on
 * any bytes a server might send as one object or one watch event.
 *
 * Besides "no crash, no leak, no undefined behaviour":
 *   - a failure says why;
 *   - a kobj's key is made from its namespace and name as client-go's
 *     MetaNamespaceKeyFunc makes it, and its text is one JSON document,
 *     valid UTF-8, that makes the same kobj again: scanned again it is
 *     the same bytes, and read as a tree it is the same document;
 *   - skipping metadata.managedFields in the text (the fast path) gives
 *     the same document as parsing everything and deleting the member
 *     from the tree, whenever both succeed.
 *
 * "The same document" is json_object_equal() on json-c trees, not equal
 * bytes: the scanner keeps every member it is given, json-c keeps the
 * last of members with the same name, so input with duplicate names is
 * the same document in two spellings.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "informer/kobj.h"
#include "lib/strbuf.h"
#include "fuzz.h"

static bool same_document(const struct kobj *a, const struct kobj *b)
{
	struct json_object *ta = kobj_tree(a), *tb = kobj_tree(b);
	bool same = ta && tb && json_object_equal(ta, tb);

	json_object_put(ta);
	json_object_put(tb);
	return same;
}

/*
 * Whether a member name of the compact text holds an escaped NUL: json-c
 * cuts such a name there (its names are C strings), so the tree is not
 * the same document; the man page says so.
 */
static bool nul_in_a_name(const char *text, size_t len)
{
	bool nul = false;

	for (size_t i = 0; i < len; i++) {
		if (text[i] != '"')
			continue;
		for (i++; i < len && text[i] != '"'; i++) {
			if (text[i] == '\\') {
				nul |= !strncmp(text + i, "\\u0000", 6);
				i++;
			}
		}
		if (nul && i + 1 < len && text[i + 1] == ':')
			return true;
		nul = false;
	}
	return false;
}

static void check_kobj(const struct kobj *obj)
{
	char *key = kobj_make_key(obj->ns, obj->name);
	CHECK(*obj->name);
	CHECK(!strcmp(key, obj->key));
	free(key);
	struct strbuf scratch = STRBUF_INIT, scratch2 = STRBUF_INIT;
	const char *text = kobj_text(obj, &scratch);
	CHECK(text[obj->json_len] == '\0');
	size_t n;
	CHECK(!utf8_replace_invalid(text, obj->json_len, &n));
	CHECK(!utf8_replace_invalid(obj->key, strlen(obj->key), &n));

	/* The text is JSON that makes the same object. */
	struct json_object *tree = kobj_tree(obj);
	CHECK(tree);
	struct errbuf err = { "" };
	struct kobj *again = kobj_from_tree(tree, KOBJ_KEEP_MANAGED_FIELDS, &err);
	CHECK(again);
	if (!nul_in_a_name(text, obj->json_len)) {
		CHECK(!strcmp(again->key, obj->key) && !strcmp(again->rv, obj->rv));
		CHECK(same_document(again, obj));
	}
	kobj_unref(again);
	json_object_put(tree);

	/* Scanning the compact text again changes nothing. */
	again = kobj_from_json(text, obj->json_len, KOBJ_KEEP_MANAGED_FIELDS, &err);
	CHECK(again);
	CHECK(again->json_len == obj->json_len &&
	      !memcmp(kobj_text(again, &scratch2), text, obj->json_len));
	kobj_unref(again);
	strbuf_release(&scratch);
	strbuf_release(&scratch2);
}

/* managedFields dropped from a whole tree: the slow path. */
static struct kobj *drop_from_tree(const char *text, size_t len)
{
	struct json_object *tree = kobj_parse(text, len, false, KOBJ_KEEP_MANAGED_FIELDS), *meta;
	struct errbuf err = { "" };
	struct kobj *obj;

	if (!tree)
		return NULL;
	if (json_object_is_type(tree, json_type_object) &&
	    json_object_object_get_ex(tree, "metadata", &meta) &&
	    json_object_is_type(meta, json_type_object))
		json_object_object_del(meta, "managedFields");
	obj = kobj_from_tree(tree, KOBJ_KEEP_MANAGED_FIELDS, &err);
	json_object_put(tree);
	return obj;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* kinf hands the parser NUL-terminated pieces (json_stream.h). */
	char *text = malloc(size + 1);
	struct errbuf err = { "" };
	struct kobj *fast, *slow, *kept;

	memcpy(text, data, size);
	text[size] = '\0';

	fast = kobj_from_json(text, size, 0, &err);
	CHECK(fast || err.msg[0]);
	err.msg[0] = '\0';
	kept = kobj_from_json(text, size, KOBJ_KEEP_MANAGED_FIELDS, &err);
	CHECK(kept || err.msg[0]);
	slow = drop_from_tree(text, size);
	if (fast)
		check_kobj(fast);
	if (kept)
		check_kobj(kept);
	if (fast && slow)
		CHECK(same_document(fast, slow));
	kobj_unref(fast);
	kobj_unref(slow);
	kobj_unref(kept);

	/* As a list item, which gets the list's TypeMeta. */
	static const struct kobj_type type = { .api_version = "apps/v1", .kind = "Deployment" };
	err.msg[0] = '\0';
	struct kobj *item = kobj_from_list_item(text, size, &type, 0, &err);
	CHECK(item || err.msg[0]);
	if (item)
		check_kobj(item);
	kobj_unref(item);

	/* As a watch event. */
	struct json_object *ev = kobj_parse(text, size, true, 0), *obj;
	if (ev && json_object_is_type(ev, json_type_object) &&
	    json_object_object_get_ex(ev, "object", &obj)) {
		err.msg[0] = '\0';
		struct kobj *o = kobj_from_tree(obj, 0, &err);
		CHECK(o || err.msg[0]);
		if (o)
			check_kobj(o);
		kobj_unref(o);
	}
	json_object_put(ev);
	free(text);
	return 0;
}

/*
 * kobj_pick.c — a json-c tree of a few members of an object; see kobj_pick.h.
 *
 * The object's text is scanned once (json_scan): the members the pick
 * names become json-c objects, the rest is scanned past.  The text is
 * valid JSON, made by the same scanner, so a scan that fails is not
 * expected; if one did, the whole tree is the answer.
 *
 * Strings, integers and literals kept become json-c objects directly,
 * as json-c's tokener would make them: a tokener's parse of each costs
 * far more (a locale switched in and out per call), and the TUI makes a
 * pod's cells with every delta.  Other values (doubles, objects and
 * arrays kept whole) go through one tokener, made when first needed.
 */
#include "informer/kobj_pick.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "informer/kobj.h"
#include "lib/json_scan.h"
#include "lib/strbuf.h"

/* A json-c tree of the value text[0..len) with tok; NULL for null or when refused. */
static struct json_object *value_tree(struct json_tokener *tok, const char *text, size_t len)
{
	if (len > INT32_MAX)
		return NULL;
	json_tokener_reset(tok);
	return json_tokener_parse_ex(tok, text, (int)len);
}

struct pick_ctx {
	const struct kobj_pick *pick;	/* the members to keep */
	struct json_object *into;	/* the object they go in */
	struct json_tokener **tok;	/* one for every value parsed; NULL until needed */
};

static int pick_member(struct json_scan *s, const char *key, size_t klen, void *ctx);

/* One element of a PICK_COUNT array: an empty object in its place. */
static int count_element(struct json_scan *s, void *ctx)
{
	(void)s;
	json_object_array_add(ctx, json_object_new_object());
	return 0;	/* the scanner skips the element itself */
}

/* A string's tree; [text, end) its content between the quotes. */
static struct json_object *string_tree(const char *text, const char *end, bool escaped)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object *v;

	if (!escaped)
		return json_object_new_string_len(text, (int)(end - text));
	json_scan_decode(text, end, &sb);
	v = json_object_new_string_len(strbuf_str(&sb), (int)sb.len);
	strbuf_release(&sb);
	return v;
}

/* Whether the number text[0..len) is an integer that int64 surely holds. */
static bool small_int(const char *text, size_t len)
{
	size_t digits = len - (*text == '-');

	if (digits == 0 || digits > 18)
		return false;
	for (size_t i = len - digits; i < len; i++)
		if (text[i] < '0' || text[i] > '9')
			return false;
	return true;
}

/* A value kept whole: *v its tree (NULL for null), the scanner past it. */
static int whole_value(struct json_scan *s, struct json_tokener **tok, struct json_object **v)
{
	const char *start = s->p, *text, *end;
	bool escaped;

	if (s->p < s->end && *s->p == '"') {
		if (json_scan_string(s, &text, &end, &escaped) < 0)
			return -1;
		*v = string_tree(text, end, escaped);
		return 0;
	}
	if (json_scan_value(s) < 0)
		return -1;
	size_t len = (size_t)(s->p - start);
	if (*start == 'n' || *start == 't' || *start == 'f') {
		*v = *start == 'n' ? NULL : json_object_new_boolean(*start == 't');
		return 0;
	}
	if (small_int(start, len)) {
		*v = json_object_new_int64(strtoll(start, NULL, 10));
		return 0;
	}
	if (!*tok)
		*tok = json_tokener_new_ex(JSON_SCAN_DEPTH);
	/* The byte after a number tells the tokenizer it ended. */
	*v = value_tree(*tok, start, len + (s->p < s->end));
	return 0;
}

/* One element of a PICK_EACH array: an object keeps the listed members. */
static int pick_element(struct json_scan *s, void *ctx)
{
	struct pick_ctx *pc = ctx;

	if (*s->p == '{') {
		struct pick_ctx sub = { pc->pick, json_object_new_object(), pc->tok };
		json_object_array_add(pc->into, sub.into);
		return json_scan_object(s, pick_member, &sub) < 0 ? -1 : 1;
	}
	struct json_object *v;
	if (whole_value(s, pc->tok, &v) < 0)
		return -1;
	json_object_array_add(pc->into, v);
	return 1;
}

static int pick_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
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
		return json_scan_object(s, pick_member, &sub) < 0 ? -1 : 1;
	}
	if (m->how == PICK_EACH && *s->p == '[') {
		struct pick_ctx each = { m->members, json_object_new_array(), pc->tok };
		json_object_object_add(pc->into, name, each.into);
		return json_scan_array(s, pick_element, &each) < 0 ? -1 : 1;
	}
	if (m->how == PICK_COUNT && *s->p == '[') {
		struct json_object *a = json_object_new_array();
		json_object_object_add(pc->into, name, a);
		return json_scan_array(s, count_element, a) < 0 ? -1 : 1;
	}
	struct json_object *v;
	if (whole_value(s, pc->tok, &v) < 0)
		return -1;
	json_object_object_add(pc->into, name, v);
	return 1;
}

struct json_object *kobj_tree_pick(const struct kobj *obj, const struct kobj_pick *pick)
{
	struct json_tokener *tok = NULL;
	struct pick_ctx pc = { pick, json_object_new_object(), &tok };
	struct strbuf scratch = STRBUF_INIT;
	struct json_scan s;
	int rc;

	json_scan_init(&s, kobj_text(obj, &scratch), obj->json_len, NULL);
	json_scan_skip_ws(&s);
	rc = s.p < s.end && *s.p == '{' ? json_scan_object(&s, pick_member, &pc) : -1;
	if (tok)
		json_tokener_free(tok);
	strbuf_release(&scratch);
	if (rc < 0) {
		json_object_put(pc.into);	/* kept text is valid JSON: not reached */
		return kobj_tree(obj);
	}
	return pc.into;
}

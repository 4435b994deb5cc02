/*
 * diff.c — JSON Patch and the human diff between two json-c trees; see
 * diff.h.
 *
 * Both walks keep the current path in a strbuf and cut it back after each
 * member, so a diff allocates only the ops or lines it reports.
 */
#include "output/diff.h"

#include <string.h>

#include <json-c/json.h>

#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "lib/util.h"

#define TO_STRING_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static bool is_object(struct json_object *v)
{
	return json_object_is_type(v, json_type_object);
}

static bool is_array(struct json_object *v)
{
	return json_object_is_type(v, json_type_array);
}

/* ---- RFC 6902 ----------------------------------------------------------- */

/* Appends the RFC 6901 pointer token for key, escaped. */
static void pointer_escape(struct strbuf *out, const char *key)
{
	for (; *key; key++) {
		if (*key == '~')
			strbuf_adds(out, "~0");
		else if (*key == '/')
			strbuf_adds(out, "~1");
		else
			strbuf_addch(out, *key);
	}
}

/*
 * value may be NULL, which is JSON null (json-c's representation), except
 * for "remove", which has none; old likewise, except for "add".
 */
static void add_op(struct json_object *patch, const char *op, const char *path,
		   struct json_object *value, struct json_object *old)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "op", json_object_new_string(op));
	json_object_object_add(o, "path", json_object_new_string(path));
	if (strcmp(op, "remove"))
		json_object_object_add(o, "value", json_object_get(value));
	if (strcmp(op, "add"))
		json_object_object_add(o, "old", json_object_get(old));
	json_object_array_add(patch, o);
}

/* Paths the patch leaves out: they change on every write. */
static bool patch_noise(const char *path)
{
	return !strcmp(path, "/metadata/resourceVersion");
}

static void patch_value(struct json_object *patch, struct strbuf *path,
			struct json_object *a, struct json_object *b);

static void patch_object(struct json_object *patch, struct strbuf *path,
			 struct json_object *a, struct json_object *b)
{
	size_t base = path->len;

	/* Removed members first, in a's order; then changed and added, in b's. */
	json_object_object_foreach(a, ka, va) {
		if (json_object_object_get_ex(b, ka, NULL))
			continue;
		strbuf_addch(path, '/');
		pointer_escape(path, ka);
		add_op(patch, "remove", path->buf, NULL, va);
		strbuf_setlen(path, base);
	}
	json_object_object_foreach(b, kb, vb) {
		struct json_object *old;
		strbuf_addch(path, '/');
		pointer_escape(path, kb);
		if (!json_object_object_get_ex(a, kb, &old))
			add_op(patch, "add", path->buf, vb, NULL);
		else
			patch_value(patch, path, old, vb);
		strbuf_setlen(path, base);
	}
}

/* Whether comparing element-wise says it in fewer ops than one replace. */
static bool arrays_alike(struct json_object *a, struct json_object *b, size_t common)
{
	size_t differ = 0;

	for (size_t i = 0; i < common; i++)
		if (!json_object_equal(json_object_array_get_idx(a, i),
				       json_object_array_get_idx(b, i)))
			differ++;
	return differ * 2 <= common;
}

static void patch_array(struct json_object *patch, struct strbuf *path,
			struct json_object *a, struct json_object *b)
{
	size_t na = json_object_array_length(a), nb = json_object_array_length(b);
	size_t common = na < nb ? na : nb, base = path->len;

	if (na != nb && !arrays_alike(a, b, common)) {
		add_op(patch, "replace", strbuf_str(path), b, a);
		return;
	}
	for (size_t i = 0; i < common; i++) {
		strbuf_addf(path, "/%zu", i);
		patch_value(patch, path, json_object_array_get_idx(a, i),
			    json_object_array_get_idx(b, i));
		strbuf_setlen(path, base);
	}
	for (size_t i = na; i-- > nb;) {
		strbuf_addf(path, "/%zu", i);
		add_op(patch, "remove", path->buf, NULL, json_object_array_get_idx(a, i));
		strbuf_setlen(path, base);
	}
	for (size_t i = na; i < nb; i++) {
		strbuf_addf(path, "/%zu", i);
		add_op(patch, "add", path->buf, json_object_array_get_idx(b, i), NULL);
		strbuf_setlen(path, base);
	}
}

static void patch_value(struct json_object *patch, struct strbuf *path,
			struct json_object *a, struct json_object *b)
{
	if (json_object_equal(a, b) || patch_noise(strbuf_str(path)))
		return;
	if (is_object(a) && is_object(b))
		patch_object(patch, path, a, b);
	else if (is_array(a) && is_array(b))
		patch_array(patch, path, a, b);
	else
		add_op(patch, "replace", strbuf_str(path), b, a);
}

struct json_object *diff_json_patch(struct json_object *old_obj,
				    struct json_object *new_obj)
{
	struct json_object *patch = json_object_new_array();
	struct strbuf path = STRBUF_INIT;

	strbuf_grow(&path, 64);
	patch_value(patch, &path, old_obj, new_obj);
	strbuf_release(&path);
	return patch;
}

/* ---- the human form ---------------------------------------------------- */

/*
 * Noise, as paths with every array index written "[]".  A change at or
 * under one of these is not reported.
 */
static const char *const noise_paths[] = {
	"metadata.resourceVersion",
	"metadata.managedFields",
	"status.conditions[].lastHeartbeatTime",
	"kind",
	"apiVersion",
};

struct walk {
	struct strbuf path;	/* as shown: spec.containers[0].image */
	struct strbuf shape;	/* indexes as "[]": spec.containers[].image */
	diff_change_fn *fn;
	void *ctx;
	size_t changes;
};

static bool is_noise(const struct walk *w)
{
	for (size_t i = 0; i < ARRAY_SIZE(noise_paths); i++)
		if (!strcmp(strbuf_str(&w->shape), noise_paths[i]))
			return true;
	return false;
}

/* A key needs quoting when a dot, bracket or quote would make it ambiguous. */
static bool plain_key(const char *key)
{
	if (!*key)
		return false;
	for (; *key; key++)
		if (strchr(".[]\"\\ ", *key))
			return false;
	return true;
}

static void push_key(struct walk *w, const char *key)
{
	if (plain_key(key)) {
		if (w->path.len)
			strbuf_addch(&w->path, '.');
		strbuf_adds(&w->path, key);
	} else {
		strbuf_addch(&w->path, '[');
		strbuf_add_json_string(&w->path, key);
		strbuf_addch(&w->path, ']');
	}
	if (w->shape.len)
		strbuf_addch(&w->shape, '.');
	strbuf_adds(&w->shape, key);
}

static void push_index(struct walk *w, size_t i)
{
	strbuf_addf(&w->path, "[%zu]", i);
	strbuf_adds(&w->shape, "[]");
}

/* A condition's place: conditions[type=Ready] (the shape's "[]" as for any). */
static void push_type(struct walk *w, const char *type)
{
	strbuf_addf(&w->path, "[type=%s]", type);
	strbuf_adds(&w->shape, "[]");
}

static const char *cond_type(struct json_object *c)
{
	return json_get_str(c, "type", NULL);
}

static struct json_object *cond_of_type(struct json_object *arr, const char *type)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		const char *t = cond_type(json_object_array_get_idx(arr, i));
		if (t && !strcmp(t, type))
			return json_object_array_get_idx(arr, i);
	}
	return NULL;
}

/*
 * Whether arr is a list of conditions: under a "conditions" key, every
 * element an object with a type, no type twice.
 */
static bool is_conditions(const struct walk *w, struct json_object *arr)
{
	size_t n = json_object_array_length(arr);
	const char *shape = strbuf_str(&w->shape);

	if (!str_ends_with(shape, "conditions") ||
	    (strlen(shape) > 10 && shape[strlen(shape) - 11] != '.'))
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *t = cond_type(json_object_array_get_idx(arr, i));
		if (!t)
			return false;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(t, cond_type(json_object_array_get_idx(arr, j))))
				return false;
	}
	return true;
}


static void report(struct walk *w, enum diff_what what, struct json_object *a,
		   struct json_object *b)
{
	struct diff_change ch = { what, strbuf_str(&w->path), a, b };

	w->fn(w->ctx, &ch);
	w->changes++;
}

static void walk_value(struct walk *w, struct json_object *a, struct json_object *b);
static void walk_one_sided(struct walk *w, struct json_object *v, enum diff_what what);

/*
 * Walks the child whose place was just pushed, a in the old version and b
 * in the new: both (DIFF_CHANGED), or the one `what` says is there; then
 * cuts the path back to its parent's, plen and slen.
 */
static void walk_child(struct walk *w, size_t plen, size_t slen, enum diff_what what,
		       struct json_object *a, struct json_object *b)
{
	if (what == DIFF_CHANGED)
		walk_value(w, a, b);
	else
		walk_one_sided(w, what == DIFF_ADDED ? b : a, what);
	strbuf_setlen(&w->path, plen);
	strbuf_setlen(&w->shape, slen);
}

/* Descends into an added or removed subtree v. */
static void walk_one_sided(struct walk *w, struct json_object *v, enum diff_what what)
{
	size_t plen = w->path.len, slen = w->shape.len;

	if (is_noise(w))
		return;
	if (is_object(v) && json_object_object_length(v)) {
		json_object_object_foreach(v, k, m) {
			push_key(w, k);
			walk_child(w, plen, slen, what, m, m);
		}
	} else if (is_array(v) && json_object_array_length(v)) {
		bool by_type = is_conditions(w, v);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			struct json_object *e = json_object_array_get_idx(v, i);
			if (by_type)
				push_type(w, cond_type(e));
			else
				push_index(w, i);
			walk_child(w, plen, slen, what, e, e);
		}
	} else {
		report(w, what, what == DIFF_REMOVED ? v : NULL, what == DIFF_ADDED ? v : NULL);
	}
}

static void walk_value(struct walk *w, struct json_object *a, struct json_object *b)
{
	size_t plen = w->path.len, slen = w->shape.len;

	if (is_noise(w) || json_object_equal(a, b))
		return;
	if (is_object(a) && is_object(b)) {
		json_object_object_foreach(a, ka, va) {
			if (json_object_object_get_ex(b, ka, NULL))
				continue;
			push_key(w, ka);
			walk_child(w, plen, slen, DIFF_REMOVED, va, NULL);
		}
		json_object_object_foreach(b, kb, vb) {
			struct json_object *old = NULL;
			bool both = json_object_object_get_ex(a, kb, &old);
			push_key(w, kb);
			walk_child(w, plen, slen, both ? DIFF_CHANGED : DIFF_ADDED, old, vb);
		}
	} else if (is_array(a) && is_array(b) && is_conditions(w, a) && is_conditions(w, b)) {
		/* conditions pair by type, wherever each sits */
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			struct json_object *ca = json_object_array_get_idx(a, i);
			if (cond_of_type(b, cond_type(ca)))
				continue;
			push_type(w, cond_type(ca));
			walk_child(w, plen, slen, DIFF_REMOVED, ca, NULL);
		}
		for (size_t i = 0; i < json_object_array_length(b); i++) {
			struct json_object *cb = json_object_array_get_idx(b, i);
			struct json_object *ca = cond_of_type(a, cond_type(cb));
			push_type(w, cond_type(cb));
			walk_child(w, plen, slen, ca ? DIFF_CHANGED : DIFF_ADDED, ca, cb);
		}
	} else if (is_array(a) && is_array(b)) {
		size_t na = json_object_array_length(a), nb = json_object_array_length(b);
		for (size_t i = 0; i < (na > nb ? na : nb); i++) {
			enum diff_what what = i >= nb ? DIFF_REMOVED : i >= na ? DIFF_ADDED : DIFF_CHANGED;
			push_index(w, i);
			/* past an array's end json-c gets NULL, a side walk_child() skips */
			walk_child(w, plen, slen, what, json_object_array_get_idx(a, i),
				   json_object_array_get_idx(b, i));
		}
	} else {
		report(w, DIFF_CHANGED, a, b);
	}
}

size_t diff_walk(struct json_object *old_obj, struct json_object *new_obj,
		 diff_change_fn *fn, void *ctx)
{
	struct walk w = { STRBUF_INIT, STRBUF_INIT, fn, ctx, 0 };

	walk_value(&w, old_obj, new_obj);
	strbuf_release(&w.path);
	strbuf_release(&w.shape);
	return w.changes;
}

#define VALUE_MAX 80	/* bytes of a value shown before "…" */

/* Appends s, cut at VALUE_MAX on a UTF-8 character boundary. */
static void add_cut(struct strbuf *out, const char *s, size_t len, bool ascii)
{
	size_t keep = len;

	if (len > VALUE_MAX) {
		keep = VALUE_MAX;
		while (keep && ((unsigned char)s[keep] & 0xC0) == 0x80)
			keep--;
	}
	/* Values are anyone's text, and --diff shows them on a terminal. */
	strbuf_add_termsafe(out, s, keep, 0);
	if (keep < len)
		strbuf_adds(out, ascii ? "..." : "…");
}

static void add_value(struct strbuf *out, struct json_object *v, bool ascii)
{
	const char *s;
	size_t len;

	if (json_object_is_type(v, json_type_string)) {
		s = json_object_get_string(v);
		len = (size_t)json_object_get_string_len(v);
		if (len && s[0] != ' ' && s[len - 1] != ' ' && !memchr(s, '\n', len) &&
		    !memchr(s, '\0', len)) {
			add_cut(out, s, len, ascii);
			return;
		}
		/* Bare, these would not show where they begin and end, or a NUL. */
	}
	s = json_object_to_json_string_ext(v, TO_STRING_FLAGS);
	add_cut(out, s, strlen(s), ascii);
}

struct human {
	struct strbuf *out;
	const char *indent;
	bool color, ascii;
};

static void human_line(void *ctx, const struct diff_change *ch)
{
	struct human *h = ctx;
	const char *on = "", *off = "";

	if (h->color && ch->what == DIFF_ADDED)
		on = "\033[32m", off = "\033[0m";
	else if (h->color && ch->what == DIFF_REMOVED)
		on = "\033[31m", off = "\033[0m";
	strbuf_addf(h->out, "%s%s", h->indent, on);
	strbuf_add_termsafe(h->out, ch->path, strlen(ch->path), 0);
	strbuf_adds(h->out, ": ");
	if (ch->what == DIFF_ADDED) {
		strbuf_adds(h->out, "+ ");
		add_value(h->out, ch->new_value, h->ascii);
	} else if (ch->what == DIFF_REMOVED) {
		strbuf_adds(h->out, "- ");
		add_value(h->out, ch->old_value, h->ascii);
	} else {
		add_value(h->out, ch->old_value, h->ascii);
		strbuf_adds(h->out, h->ascii ? " -> " : " → ");
		add_value(h->out, ch->new_value, h->ascii);
	}
	strbuf_addf(h->out, "%s\n", off);
}

size_t diff_human(struct json_object *old_obj, struct json_object *new_obj,
		  const char *indent, unsigned flags, struct strbuf *out)
{
	struct human h = { out, indent ? indent : "", flags & DIFF_COLOR, flags & DIFF_ASCII };

	return diff_walk(old_obj, new_obj, human_line, &h);
}

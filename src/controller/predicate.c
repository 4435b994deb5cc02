/* predicate.c — see predicate.h. */
#include "controller/predicate.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "informer/kobj.h"
#include "informer/kobj_pick.h"
#include "lib/strbuf.h"

static const char *const names[PRED__COUNT] = {
	[PRED_GENERATION] = "generation",
	[PRED_RESOURCE_VERSION] = "resource-version",
	[PRED_LABELS] = "labels",
	[PRED_ANNOTATIONS] = "annotations",
};

const char *predicate_name(enum predicate_kind kind)
{
	return (unsigned)kind < PRED__COUNT ? names[kind] : "unknown";
}

static int parse_one(const char *s, size_t n, struct errbuf *err)
{
	for (int k = 0; k < PRED__COUNT; k++)
		if (strlen(names[k]) == n && !strncmp(s, names[k], n))
			return k;
	errbuf_set(err, "unknown predicate '%.*s' (generation, resource-version, "
		   "labels, annotations)", (int)n, s);
	return -1;
}

int predicates_parse(struct predicates *p, const char *spec, struct errbuf *err)
{
	while (*spec) {
		size_t n = strcspn(spec, ",");
		unsigned mask = 0;

		if (p->nr == PREDICATE_TERMS_MAX) {
			errbuf_set(err, "too many predicates (at most %d terms)",
				   PREDICATE_TERMS_MAX);
			return -1;
		}
		for (size_t i = 0; i < n;) {
			size_t m = strcspn(spec + i, "|,");
			int k = parse_one(spec + i, m, err);
			if (k < 0)
				return -1;
			mask |= 1u << k;
			i += m + (spec[i + m] == '|');
		}
		if (!mask) {
			errbuf_set(err, "empty predicate in '%s'", spec);
			return -1;
		}
		p->terms[p->nr++] = mask;
		spec += n + (spec[n] == ',');
	}
	return 0;
}

void predicates_term_name(const struct predicates *p, size_t term, struct strbuf *sb)
{
	bool first = true;

	for (int k = 0; k < PRED__COUNT; k++) {
		if (!(p->terms[term] & (1u << k)))
			continue;
		if (!first)
			strbuf_addch(sb, '|');
		strbuf_adds(sb, names[k]);
		first = false;
	}
}

unsigned predicates_mask(const struct predicates *p)
{
	unsigned mask = 0;
	for (size_t i = 0; i < p->nr; i++)
		mask |= p->terms[i];
	return mask;
}

/* ---- what the predicates read -------------------------------------------- */

static const struct kobj_pick pick_metadata[] = {
	{ "generation", PICK_ALL, NULL },
	{ "labels", PICK_ALL, NULL },
	{ "annotations", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pick_top[] = {
	{ "metadata", PICK_SOME, pick_metadata },
	{ NULL, PICK_ALL, NULL },
};

/* A string map as sorted "k\0v\0" pairs ending in '\0'; NULL if absent. */
static char *map_flat(struct json_object *map, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	const char **keys;
	size_t n = 0;

	*len = 0;
	if (!map || !json_object_is_type(map, json_type_object))
		return NULL;
	keys = xcalloc(json_object_object_length(map) + 1, sizeof(*keys));
	json_object_object_foreach(map, name, val) {
		(void)val;
		keys[n++] = name;
	}
	qsort(keys, n, sizeof(*keys), strv_cmp);
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_object_get(map, keys[i]);
		strbuf_add(&sb, keys[i], strlen(keys[i]) + 1);
		const char *s = v ? json_object_get_string(v) : "";
		strbuf_add(&sb, s, strlen(s) + 1);
	}
	strbuf_addch(&sb, '\0');
	free(keys);
	return strbuf_detach(&sb, len);
}

void pred_meta_init(struct pred_meta *m, const struct kobj *obj, unsigned mask)
{
	struct json_object *tree, *meta, *v;

	memset(m, 0, sizeof(*m));
	if (!obj)
		return;
	m->rv = obj->rv;
	if (!(mask & ((1u << PRED_GENERATION) | (1u << PRED_LABELS) | (1u << PRED_ANNOTATIONS))))
		return;
	tree = kobj_tree_pick(obj, pick_top);
	if (tree && json_object_object_get_ex(tree, "metadata", &meta)) {
		if (json_object_object_get_ex(meta, "generation", &v))
			m->generation = json_object_get_int64(v);
		if (json_object_object_get_ex(meta, "labels", &v))
			m->labels = map_flat(v, &m->labels_len);
		if (json_object_object_get_ex(meta, "annotations", &v))
			m->annotations = map_flat(v, &m->annotations_len);
	}
	json_object_put(tree);
}

void pred_meta_release(struct pred_meta *m)
{
	free(m->labels);
	free(m->annotations);
	memset(m, 0, sizeof(*m));
}

/* deep: reflect.DeepEqual's absent map is not an empty one; maps.Equal's is. */
static bool map_differs(const char *a, size_t alen, const char *b, size_t blen, bool deep)
{
	if (deep && (!a || !b))
		return a != b;
	if (!a)
		a = "", alen = 1;	/* map_flat's empty map */
	if (!b)
		b = "", blen = 1;
	return alen != blen || memcmp(a, b, alen);
}

static bool generation_changed(const struct pred_meta *o, const struct pred_meta *n)
{
	return o->generation != n->generation;
}

static bool rv_changed(const struct pred_meta *o, const struct pred_meta *n)
{
	return strcmp(o->rv ? o->rv : "", n->rv ? n->rv : "") != 0;
}

static bool labels_changed(const struct pred_meta *o, const struct pred_meta *n)
{
	return map_differs(o->labels, o->labels_len, n->labels, n->labels_len, o->deep_equal);
}

static bool annotations_changed(const struct pred_meta *o, const struct pred_meta *n)
{
	return map_differs(o->annotations, o->annotations_len,
			   n->annotations, n->annotations_len, o->deep_equal);
}

static bool (*const rules[PRED__COUNT])(const struct pred_meta *, const struct pred_meta *) = {
	[PRED_GENERATION] = generation_changed,
	[PRED_RESOURCE_VERSION] = rv_changed,
	[PRED_LABELS] = labels_changed,
	[PRED_ANNOTATIONS] = annotations_changed,
};

int predicates_update(const struct predicates *p, const struct pred_meta *old,
		      const struct pred_meta *new_)
{
	for (size_t i = 0; i < p->nr; i++) {
		bool any = false;
		/* Each drops an Update that lacks its old or its new object. */
		for (int k = 0; k < PRED__COUNT && !any && old && new_; k++)
			if (p->terms[i] & (1u << k))
				any = rules[k](old, new_);
		if (!any)
			return (int)i;
	}
	return -1;
}

/* handler.c — see handler.h. */
#include "controller/handler.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "informer/kobj.h"
#include "informer/kobj_pick.h"
#include "lib/json_get.h"

int handler_init(struct handler *h, const char *owner_spec, struct errbuf *err)
{
	memset(h, 0, sizeof(*h));
	if (!owner_spec)
		return 0;
	const char *dot = strchr(owner_spec, '.');
	size_t n = dot ? (size_t)(dot - owner_spec) : strlen(owner_spec);
	if (!n || (dot && !dot[1])) {
		errbuf_set(err, "invalid owner kind '%s': expected KIND or KIND.GROUP, "
			   "e.g. ReplicaSet.apps", owner_spec);
		return -1;
	}
	h->owner_kind = xstrndup(owner_spec, n);
	h->owner_group = dot ? xstrdup(dot + 1) : NULL;
	return 0;
}

void handler_release(struct handler *h)
{
	free(h->owner_kind);
	free(h->owner_group);
	memset(h, 0, sizeof(*h));
}

void handler_keys_release(struct handler_keys *k)
{
	for (size_t i = 0; i < k->nr; i++)
		free(k->v[i]);
	k->nr = 0;
}

static void keys_add(struct handler_keys *k, char *key)
{
	for (size_t i = 0; i < k->nr; i++) {
		if (!strcmp(k->v[i], key)) {
			free(key);
			return;
		}
	}
	if (k->nr < ARRAY_SIZE(k->v))
		k->v[k->nr++] = key;
	else
		free(key);
}

static bool group_matches(const char *want, const char *group)
{
	return !want || !strcmp(want, group ? group : "");
}

static const struct kobj_pick pick_ref[] = {
	{ "apiVersion", PICK_ALL, NULL },
	{ "kind", PICK_ALL, NULL },
	{ "name", PICK_ALL, NULL },
	{ "controller", PICK_ALL, NULL },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pick_metadata[] = {
	{ "ownerReferences", PICK_EACH, pick_ref },
	{ NULL, PICK_ALL, NULL },
};
static const struct kobj_pick pick_top[] = {
	{ "metadata", PICK_SOME, pick_metadata },
	{ NULL, PICK_ALL, NULL },
};

static const char *member(struct json_object *o, const char *name)
{
	return json_get_text(o, name, "");
}

/* metav1.GetControllerOf: the first reference with controller: true. */
static struct json_object *controller_of(struct json_object *tree)
{
	struct json_object *meta, *refs, *c;

	if (!json_object_object_get_ex(tree, "metadata", &meta) ||
	    !json_object_object_get_ex(meta, "ownerReferences", &refs) ||
	    !json_object_is_type(refs, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(refs); i++) {
		struct json_object *ref = json_object_array_get_idx(refs, i);
		if (json_object_object_get_ex(ref, "controller", &c) &&
		    json_object_get_boolean(c))
			return ref;
	}
	return NULL;
}

/* The controller owner's key of obj (ns/name) if its kind matches, else NULL. */
static char *handler_owner_key(const struct handler *h, const struct kobj *obj)
{
	struct json_object *tree, *ref;
	char *key = NULL;

	if (!obj || !h->owner_kind)
		return NULL;
	tree = kobj_tree_pick(obj, pick_top);
	ref = tree ? controller_of(tree) : NULL;
	if (ref && !strcmp(member(ref, "kind"), h->owner_kind)) {
		/* apiVersion "apps/v1": group "apps"; "v1": the core group. */
		const char *api = member(ref, "apiVersion"), *slash = strchr(api, '/');
		char *group = slash ? xstrndup(api, (size_t)(slash - api)) : xstrdup("");
		if (group_matches(h->owner_group, group) && *member(ref, "name"))
			key = kobj_make_key(obj->ns, member(ref, "name"));
		free(group);
	}
	json_object_put(tree);
	return key;
}

bool handler_requests(const struct handler *h, const char *kind, const char *group,
		      enum handler_event ev, const struct kobj *obj,
		      const struct kobj *old, struct handler_keys *out)
{
	out->nr = 0;
	bool own = !h->owner_kind ||
		   (!strcmp(kind ? kind : "", h->owner_kind) &&
		    group_matches(h->owner_group, group));
	if (own) {
		const struct kobj *o = obj ? obj : old;
		if (o)
			keys_add(out, xstrdup(o->key));
		return true;
	}
	char *k;
	if (ev == HANDLER_UPDATE && (k = handler_owner_key(h, old)))
		keys_add(out, k);
	if ((k = handler_owner_key(h, obj)))
		keys_add(out, k);
	return false;
}

/* redact.c — Secrets' values replaced by their sizes; see redact.h. */
#include "output/redact.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/base64.h"
#include "lib/json_get.h"

static bool is_secret(struct json_object *obj)
{
	const char *kind = json_get_str(obj, "kind", NULL);
	const char *api = json_get_str(obj, "apiVersion", NULL);

	return kind && api && !strcmp(kind, "Secret") && !strcmp(api, "v1");
}

static const char *text_of(struct json_object *val)
{
	return json_object_is_type(val, json_type_string) ? json_object_get_string(val) : "";
}

/*
 * kubectl apply's copy of the object as applied: a Secret's holds its
 * data, in the clear and sorted first.
 */
#define LAST_APPLIED "kubectl.kubernetes.io/last-applied-configuration"

/*
 * Each value of map (or only its member `only`) becomes its size; with
 * old_map (the same map of the previous version, not yet redacted), a
 * value that differs from its old one at the same size is marked changed.
 */
static void replace_values(struct json_object *map, bool base64, struct json_object *old_map,
			   const char *only)
{
	struct json_object *old_val;

	if (!map)
		return;
	json_object_object_foreach(map, key, val) {
		if (only && strcmp(key, only))
			continue;
		const char *text = text_of(val);
		size_t n = base64 ? base64_decoded_size(text) : strlen(text);
		bool changed = old_map && json_object_object_get_ex(old_map, key, &old_val) &&
			       strcmp(text_of(old_val), text) &&
			       n == (base64 ? base64_decoded_size(text_of(old_val))
					    : strlen(text_of(old_val)));
		char size[48];

		snprintf(size, sizeof(size), "%zu byte%s%s", n, n == 1 ? "" : "s",
			 changed ? ", changed" : "");
		/* Replacing a member's value keeps the iteration valid. */
		json_object_object_add(map, key, json_object_new_string(size));
	}
}

static struct json_object *annotations(struct json_object *obj)
{
	return json_get_object(json_get_object(obj, "metadata"), "annotations");
}

/* A Secret's values in obj, each against old's when old is given. */
static void redact_against(struct json_object *obj, struct json_object *old)
{
	replace_values(json_get_object(obj, "data"), true, json_get_object(old, "data"), NULL);
	replace_values(json_get_object(obj, "stringData"), false,
		       json_get_object(old, "stringData"), NULL);
	replace_values(annotations(obj), false, annotations(old), LAST_APPLIED);
}

void redact_secret(struct json_object *obj)
{
	if (obj && is_secret(obj))
		redact_against(obj, NULL);
}

void redact_secret_pair(struct json_object *old_obj, struct json_object *new_obj)
{
	if (new_obj && is_secret(new_obj))
		redact_against(new_obj, old_obj);
	redact_secret(old_obj);
}

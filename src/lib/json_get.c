/* json_get.c — members of json-c trees of any shape; see json_get.h. */
#include "lib/json_get.h"

#include <stdarg.h>
#include <stddef.h>

#include <json-c/json.h>

struct json_object *json_get(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;

	/* Not an object, or no such member: false, and v stays NULL. */
	json_object_object_get_ex(obj, key, &v);
	return v;
}

struct json_object *json_get_path(struct json_object *obj, ...)
{
	const char *name;
	va_list ap;

	va_start(ap, obj);
	while (obj && (name = va_arg(ap, const char *)))
		obj = json_get(obj, name);
	va_end(ap);
	return obj;
}

const char *json_get_value_str(struct json_object *v, const char *def)
{
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : def;
}

const char *json_get_str(struct json_object *obj, const char *key, const char *def)
{
	return json_get_value_str(json_get(obj, key), def);
}

const char *json_get_text(struct json_object *obj, const char *key, const char *def)
{
	struct json_object *v = json_get(obj, key);

	return v ? json_object_get_string(v) : def;
}

struct json_object *json_get_array(struct json_object *obj, const char *key)
{
	struct json_object *v = json_get(obj, key);

	return json_object_is_type(v, json_type_array) ? v : NULL;
}

struct json_object *json_get_object(struct json_object *obj, const char *key)
{
	struct json_object *v = json_get(obj, key);

	return json_object_is_type(v, json_type_object) ? v : NULL;
}

size_t json_get_len(struct json_object *v)
{
	return json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
}

long long json_get_int(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double) ?
		(long long)json_object_get_int64(v) : 0;
}

/*
 * json_get.h — reading members of json-c trees whose shape is not
 * trusted: every function takes any value (NULL, JSON null, a string
 * where an object was expected) and answers NULL or the caller's
 * default instead of failing.
 *
 * json-c ownership: everything returned is borrowed from the tree (no
 * reference is taken), valid while the caller holds the tree unchanged.
 * No state: any thread, as long as no thread changes the tree.
 */
#ifndef KINF_JSON_GET_H
#define KINF_JSON_GET_H

#include <stddef.h>

struct json_object;

/* obj's member key; NULL when obj is not an object, has no such member or it is null. */
struct json_object *json_get(struct json_object *obj, const char *key);

/*
 * The member at the end of a path of names, ended by NULL:
 * json_get_path(pod, "status", "phase", NULL).  NULL when a step is missing.
 */
struct json_object *json_get_path(struct json_object *obj, ...)
	__attribute__((sentinel));

/* v's text when v is a JSON string; def otherwise (def may be NULL). */
const char *json_get_value_str(struct json_object *v, const char *def);

/* obj's member key when it is a string; def otherwise. */
const char *json_get_str(struct json_object *obj, const char *key, const char *def);
/*
 * obj's member key as text: a string's own, any other value's JSON text
 * (5, {}); def when there is no such member or it is null.
 */
const char *json_get_text(struct json_object *obj, const char *key, const char *def);

/* v's length when it is an array, else 0. */
size_t json_get_len(struct json_object *v);
/* v as a 64-bit integer when it is a number (a double truncated), else 0. */
long long json_get_int(struct json_object *v);

/* obj's member key when it is an array, or an object; NULL otherwise. */
struct json_object *json_get_array(struct json_object *obj, const char *key);
struct json_object *json_get_object(struct json_object *obj, const char *key);

#endif

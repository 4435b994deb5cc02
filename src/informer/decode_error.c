/*
 * decode_error.c — client-go's watch decoder's refusals, in its words;
 * see decode_error.h.  The framer's syntax errors come from gojson; the
 * rest is read from the value's members with json_scan, in the order
 * Go's decoders meet them.
 */
#include "informer/decode_error.h"

#include <stdlib.h>
#include <string.h>

#include "lib/gojson.h"
#include "lib/json_scan.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/* The name encoding/json gives a value in an UnmarshalTypeError. */
static const char *go_value_kind(char c)
{
	switch (c) {
	case '"':
		return "string";
	case '{':
		return "object";
	case '[':
		return "array";
	case 't':
	case 'f':
		return "bool";
	case 'n':
		return NULL;	/* null: no error, nothing set */
	default:
		return "number";
	}
}

/* What the event's members tell the decoders. */
struct event_members {
	const char *interpret_field;	/* a kind or apiVersion not a string */
	const char *interpret_kind;
	const char *type_kind;		/* "type" not a string */
	struct strbuf type;		/* the last string "type", decoded */
	const char *obj, *obj_end;	/* the last "object" but null, as it came */
};

static int event_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	struct event_members *m = ctx;
	const char *kind = go_value_kind(*s->p);

	/* Interpret's struct, through encoding/json: names match folded */
	if (kind && strcmp(kind, "string") && !m->interpret_field) {
		if (gojson_name_is(key, klen, "kind"))
			m->interpret_field = "kind";
		else if (gojson_name_is(key, klen, "apiVersion"))
			m->interpret_field = "apiVersion";
		if (m->interpret_field)
			m->interpret_kind = kind;
	}
	/* metav1.WatchEvent, through sigs.k8s.io/json: names as they are */
	if (json_scan_key_is(key, klen, "type") && kind) {
		const char *t, *t_end;
		if (strcmp(kind, "string")) {
			if (!m->type_kind)
				m->type_kind = kind;
			return 0;
		}
		if (json_scan_string(s, &t, &t_end, NULL) < 0)
			return -1;
		strbuf_reset(&m->type);
		json_scan_decode(t, t_end, &m->type);
		return 1;
	}
	if (json_scan_key_is(key, klen, "object") && kind) {
		m->obj = s->p;
		if (json_scan_value(s) < 0)
			return -1;
		m->obj_end = s->p;
		return 1;
	}
	return 0;
}

/* UnstructuredJSONScheme's GetKind: the last "kind", a non-empty string. */
static int object_member(struct json_scan *s, const char *key, size_t klen, void *ctx)
{
	bool *has_kind = ctx;
	const char *t, *t_end;

	if (!json_scan_key_is(key, klen, "kind"))
		return 0;
	*has_kind = false;
	if (*s->p != '"')
		return 0;
	if (json_scan_string(s, &t, &t_end, NULL) < 0)
		return -1;
	*has_kind = t_end > t;
	return 1;
}

static bool object_error(const char *obj, const char *end, struct strbuf *why)
{
	struct json_scan s;
	bool has_kind = false;

	if (obj && *obj == '{') {
		json_scan_init(&s, obj, (size_t)(end - obj), NULL);
		s.go_floats = true;
		if (json_scan_object(&s, object_member, &has_kind) == 0 && has_kind)
			return false;
	}
	strbuf_adds(why, "unable to decode watch event: ");
	if (obj && *obj == '{' && s.bad_number)
		strbuf_addf(why, "json: cannot unmarshal number %.*s into Go value of type float64",
			    (int)s.bad_number_len, s.bad_number);
	else if (!obj)
		strbuf_adds(why, "unexpected end of JSON input");
	else if (*obj != '{')
		strbuf_addf(why, "json: cannot unmarshal %s into Go value of type "
			    "unstructured.detector", go_value_kind(*obj));
	else
		strbuf_addf(why, "Object 'Kind' is missing in '%.*s'", (int)(end - obj), obj);
	return true;
}

/* The event types metav1.WatchEvent may carry. */
static const char *const event_types[] = {
	"ADDED", "MODIFIED", "DELETED", "ERROR", "BOOKMARK", NULL,
};

bool watch_decode_error(const char *text, size_t len, struct strbuf *why)
{
	struct event_members m = { .type = STRBUF_INIT };
	struct json_scan s;
	long n = gojson_value(text, len, why);
	bool refused = true;

	if (n == 0) {
		/* a line that ends inside a value: the newline was what broke it */
		struct strbuf line = STRBUF_INIT;
		strbuf_add(&line, text, len);
		strbuf_addch(&line, '\n');
		n = gojson_value(line.buf, line.len, why);
		strbuf_release(&line);
		if (n == 0)
			strbuf_adds(why, "unexpected EOF");
		return true;
	}
	if (n < 0)
		return true;
	json_scan_init(&s, text, (size_t)n, NULL);
	json_scan_skip_ws(&s);
	if (*s.p != '{' && *s.p != 'n') {
		strbuf_addf(why, "couldn't get version/kind; json parse error: json: cannot "
			    "unmarshal %s into Go value of type struct { APIVersion string "
			    "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
			    "\"json:\\\"kind,omitempty\\\"\" }", go_value_kind(*s.p));
		return true;
	}
	if (*s.p == '{' && json_scan_object(&s, event_member, &m) < 0) {
		strbuf_addf(why, "%s", s.err);	/* valid to Go: not met */
	} else if (m.interpret_field) {
		strbuf_addf(why, "couldn't get version/kind; json parse error: json: cannot "
			    "unmarshal %s into Go struct field .%s of type string",
			    m.interpret_kind, m.interpret_field);
	} else if (m.type_kind) {
		strbuf_addf(why, "json: cannot unmarshal %s into Go struct field "
			    "WatchEvent.type of type string", m.type_kind);
	} else if (!strv_has(event_types, strbuf_str(&m.type))) {
		strbuf_addf(why, "got invalid watch event type: %s", strbuf_str(&m.type));
	} else {
		refused = object_error(m.obj, m.obj_end, why);
	}
	strbuf_release(&m.type);
	return refused;
}

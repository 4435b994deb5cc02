/*
 * flight_checkpoint.c — a stream's cache rebuilt from its records.  See
 * the header.
 */
#include "cluster/flight_checkpoint.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/recording.h"
#include "lib/base64.h"
#include "lib/hashmap.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "lib/zpack.h"

/*
 * An object, packed as the informer's cache packs them (lib/zpack.h,
 * the family of its kind): 100,000 pods are 300 MiB of JSON, which the
 * budget could not hold.
 */
struct ck_obj {
	char *key;		/* namespace/name, or name */
	char *json;		/* packed (plen bytes), or the text itself (plen 0) */
	size_t len;		/* the text's */
	size_t plen;
};

/* An exchange whose beginning the checkpoint took. */
struct ck_exchange {
	unsigned x;
	char *path;
	bool watch;
	bool first_page;	/* a list's first page (no continue) */
	long status;
	char content_type[128];
	struct strbuf body;	/* a list's body; a watch's piece of an event */
};

struct checkpoint {
	char *stream;
	struct hashmap objs;	/* key -> struct ck_obj */
	struct zpack *pack;	/* NULL: not known yet, or no family left */
	size_t bytes;		/* the objects' */
	char *rv;
	char *list_path;	/* the request of the list it began from */
	char *kind, *api_version;	/* of the objects: the list's are made of them */
	bool streaming;		/* its list was a streaming one */
	int64_t t;
	struct ck_exchange *xs;
	size_t nxs, axs;
};

struct checkpoint *checkpoint_new(const char *stream)
{
	struct checkpoint *ck = xcalloc(1, sizeof(*ck));

	ck->stream = xstrdup(stream);
	ck->rv = xstrdup("");
	return ck;
}

static void objs_clear(struct checkpoint *ck)
{
	size_t iter = 0;
	struct hashmap_entry *e;

	while ((e = hashmap_next(&ck->objs, &iter))) {
		struct ck_obj *o = e->value;
		free(o->json);
		free(o->key);
		free(o);
	}
	hashmap_release(&ck->objs);
	ck->bytes = 0;
}

static void exchange_release(struct ck_exchange *e)
{
	free(e->path);
	strbuf_release(&e->body);
}

void checkpoint_free(struct checkpoint *ck)
{
	if (!ck)
		return;
	objs_clear(ck);
	for (size_t i = 0; i < ck->nxs; i++)
		exchange_release(&ck->xs[i]);
	free(ck->xs);
	free(ck->stream);
	free(ck->rv);
	free(ck->list_path);
	free(ck->kind);
	free(ck->api_version);
	free(ck);
}

size_t checkpoint_bytes(const struct checkpoint *ck)
{
	size_t n = sizeof(*ck) + ck->bytes + ck->objs.cap * sizeof(struct hashmap_entry);

	for (size_t i = 0; i < ck->nxs; i++)
		n += ck->xs[i].body.alloc + strlen(ck->xs[i].path);
	return n;
}

int64_t checkpoint_time(const struct checkpoint *ck)
{
	return ck->t;
}

static struct ck_exchange *exchange_of(struct checkpoint *ck, unsigned x)
{
	for (size_t i = 0; i < ck->nxs; i++)
		if (ck->xs[i].x == x)
			return &ck->xs[i];
	return NULL;
}

bool checkpoint_continues(const struct checkpoint *ck, unsigned x)
{
	for (size_t i = 0; i < ck->nxs; i++)
		if (ck->xs[i].x == x)
			return ck->xs[i].watch;
	return false;
}

/* ---- the objects -------------------------------------------------------- */

static void set_rv(struct checkpoint *ck, const char *rv)
{
	if (!rv || !*rv)
		return;
	free(ck->rv);
	ck->rv = xstrdup(rv);
}

static void set_kind(struct checkpoint *ck, struct json_object *obj)
{
	const char *kind = json_get_str(obj, "kind", NULL);
	const char *av = json_get_str(obj, "apiVersion", NULL);

	if (ck->kind || !kind || !av)
		return;
	ck->kind = xstrdup(kind);
	ck->api_version = xstrdup(av);
}

static void obj_remove(struct checkpoint *ck, const char *key)
{
	struct hashmap_entry old;

	if (!hashmap_remove(&ck->objs, key, &old))
		return;
	struct ck_obj *o = old.value;
	ck->bytes -= (o->plen ? o->plen : o->len) + strlen(o->key) + sizeof(*o);
	free(o->json);
	free(o->key);
	free(o);
}

/* obj (a json-c tree) in the checkpoint, or out of it (del). */
static void obj_put(struct checkpoint *ck, struct json_object *obj, bool del)
{
	struct json_object *meta = json_get(obj, "metadata");
	const char *name = json_get_str(meta, "name", NULL);
	const char *ns = json_get_str(meta, "namespace", "");

	set_rv(ck, json_get_str(meta, "resourceVersion", NULL));
	if (!name)
		return;
	char *key = *ns ? xasprintf("%s/%s", ns, name) : xstrdup(name);
	obj_remove(ck, key);
	if (del) {
		free(key);
		return;
	}
	size_t len;
	const char *text = json_object_to_json_string_length(
		obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	struct ck_obj *o = xcalloc(1, sizeof(*o));
	struct strbuf packed = STRBUF_INIT;
	if (!ck->pack && ck->kind)
		ck->pack = zpack_family(ck->kind);
	o->key = key;
	o->len = len;
	o->plen = ck->pack ? zpack_pack(ck->pack, text, len, &packed) : 0;
	o->json = o->plen ? strbuf_detach(&packed, NULL) : xstrndup(text, len);
	hashmap_insert(&ck->objs, o->key, o);
	ck->bytes += (o->plen ? o->plen : len) + strlen(key) + sizeof(*o);
	strbuf_release(&packed);
}

/* One watch event's line. */
static void take_event(struct checkpoint *ck, const char *line, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *ev = json_tokener_parse_ex(tok, line, (int)len);
	const char *type = json_get_str(ev, "type", "");
	struct json_object *obj = json_get(ev, "object");

	json_tokener_free(tok);
	if (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED") || !strcmp(type, "DELETED")) {
		set_kind(ck, obj);
		obj_put(ck, obj, !strcmp(type, "DELETED"));
	} else if (!strcmp(type, "BOOKMARK")) {
		set_rv(ck, json_get_str(json_get(obj, "metadata"), "resourceVersion", NULL));
	}
	json_object_put(ev);
}

/* A watch's data: its whole lines are events; a piece of one waits. */
static void take_watch_data(struct checkpoint *ck, struct ck_exchange *e)
{
	const char *p = e->body.buf, *end = p + e->body.len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (nl > p)
			take_event(ck, p, (size_t)(nl - p));
		p = nl + 1;
	}
	strbuf_remove_front(&e->body, (size_t)(p - e->body.buf));
}

/* A list page's whole body: the first replaces the objects, the others add. */
static void take_list(struct checkpoint *ck, struct ck_exchange *e)
{
	struct json_object *list = json_tokener_parse(strbuf_str(&e->body));
	struct json_object *items = json_get_array(list, "items");

	if (!items)
		goto out;
	if (e->first_page)
		objs_clear(ck);
	ck->streaming = false;
	/* before the items: its kind names the family they are packed in */
	if (!ck->kind) {
		const char *kind = json_get_str(list, "kind", "");
		size_t n = strlen(kind);
		if (n > 4 && !strcmp(kind + n - 4, "List")) {
			ck->kind = xstrndup(kind, n - 4);
			ck->api_version = xstrdup(json_get_str(list, "apiVersion", "v1"));
		}
	}
	for (size_t i = 0; i < json_object_array_length(items); i++)
		obj_put(ck, json_object_array_get_idx(items, i), false);
	set_rv(ck, json_get_str(json_get(list, "metadata"), "resourceVersion", NULL));
out:
	json_object_put(list);
}

/* ---- the records -------------------------------------------------------- */

static bool query_has(const char *path, const char *param)
{
	const char *q = strchr(path, '?');
	size_t n = strlen(param);

	for (; q; q = strchr(q, '&'))
		if (!strncmp(++q, param, n))
			return true;
	return false;
}

static void take_begin(struct checkpoint *ck, unsigned x, const char *path)
{
	ALLOC_GROW(ck->xs, ck->nxs + 1, ck->axs);
	struct ck_exchange *e = &ck->xs[ck->nxs++];
	*e = (struct ck_exchange){ .x = x, .path = xstrdup(path), .body = STRBUF_INIT };
	e->watch = query_has(path, "watch=true") || query_has(path, "watch=1");
	e->first_page = !query_has(path, "continue=");
	bool streaming = e->watch && query_has(path, "sendInitialEvents=true");
	if (streaming) {
		objs_clear(ck);
		ck->streaming = true;
	}
	if (streaming || (!e->watch && e->first_page)) {
		free(ck->list_path);
		ck->list_path = xstrdup(path);
	}
}

static void take_end(struct checkpoint *ck, struct ck_exchange *e)
{
	bool ok = e->status >= 200 && e->status <= 299;

	if (ok && !e->watch)
		take_list(ck, e);
	exchange_release(e);
	*e = ck->xs[--ck->nxs];
}

static void take_data(struct checkpoint *ck, struct ck_exchange *e, struct json_object *r)
{
	struct json_object *v;

	if (e->status < 200 || e->status > 299)
		return;
	if (json_object_object_get_ex(r, "data", &v))
		strbuf_add(&e->body, json_object_get_string(v), (size_t)json_object_get_string_len(v));
	else if (json_object_object_get_ex(r, "data64", &v) &&
		 base64_decode(json_object_get_string(v), (size_t)json_object_get_string_len(v),
			       &e->body) < 0)
		return;
	if (e->watch)
		take_watch_data(ck, e);
}

void checkpoint_take(struct checkpoint *ck, const char *line, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *r = json_tokener_parse_ex(tok, line, (int)len), *v;
	unsigned x = json_object_object_get_ex(r, "x", &v) ? (unsigned)json_object_get_int64(v) : 0;
	struct ck_exchange *e;

	json_tokener_free(tok);
	if (!x)
		goto out;
	if (json_object_object_get_ex(r, "t", &v))
		ck->t = json_object_get_int64(v);
	if (json_object_object_get_ex(r, "stream", NULL)) {
		take_begin(ck, x, json_get_str(r, "get", ""));
		goto out;
	}
	e = exchange_of(ck, x);
	if (!e)
		goto out;
	if (json_object_object_get_ex(r, "status", &v)) {
		e->status = (long)json_object_get_int64(v);
		snprintf(e->content_type, sizeof(e->content_type), "%s",
			 json_get_str(r, "contentType", ""));
	} else if (json_object_object_get_ex(r, "end", NULL)) {
		take_end(ck, e);
	} else {
		take_data(ck, e, r);
	}
out:
	json_object_put(r);
}

/* ---- the dump ----------------------------------------------------------- */

static int key_cmp(const void *a, const void *b)
{
	const struct ck_obj *l = *(const struct ck_obj *const *)a;
	const struct ck_obj *r = *(const struct ck_obj *const *)b;

	return strcmp(l->key, r->key);
}

/* The objects, sorted by key (caller frees the array). */
static const struct ck_obj **sorted_objs(const struct checkpoint *ck)
{
	const struct ck_obj **v = xcalloc(hashmap_len(&ck->objs) + 1, sizeof(*v));
	size_t iter = 0, n = 0;
	struct hashmap_entry *e;

	while ((e = hashmap_next(&ck->objs, &iter)))
		v[n++] = e->value;
	qsort(v, n, sizeof(*v), key_cmp);
	return v;
}

static void obj_text(const struct checkpoint *ck, const struct ck_obj *o, struct strbuf *out)
{
	if (o->plen)
		zpack_unpack(ck->pack, o->json, o->plen, o->len, out);
	else
		strbuf_add(out, o->json, o->len);
}

/* What the server would have answered: a list, or a streaming list's events. */
static void reconstructed_body(const struct checkpoint *ck, struct strbuf *body)
{
	const struct ck_obj **v = sorted_objs(ck);
	const char *kind = ck->kind ? ck->kind : "", *av = ck->api_version ? ck->api_version : "v1";
	size_t n = hashmap_len(&ck->objs);

	if (ck->streaming) {
		for (size_t i = 0; i < n; i++) {
			strbuf_adds(body, "{\"type\":\"ADDED\",\"object\":");
			obj_text(ck, v[i], body);
			strbuf_adds(body, "}\n");
		}
		strbuf_adds(body, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":");
		strbuf_add_json_string(body, kind);
		strbuf_adds(body, ",\"apiVersion\":");
		strbuf_add_json_string(body, av);
		strbuf_adds(body, ",\"metadata\":{\"resourceVersion\":");
		strbuf_add_json_string(body, ck->rv);
		strbuf_adds(body, ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}\n");
	} else {
		strbuf_addf(body, "{\"kind\":\"%sList\",\"apiVersion\":", kind);
		strbuf_add_json_string(body, av);
		strbuf_adds(body, ",\"metadata\":{\"resourceVersion\":");
		strbuf_add_json_string(body, ck->rv);
		strbuf_adds(body, "},\"items\":[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(body, ',');
			obj_text(ck, v[i], body);
		}
		strbuf_adds(body, "]}\n");
	}
	free(v);
}

void checkpoint_write(const struct checkpoint *ck, unsigned x, struct strbuf *out)
{
	struct strbuf body = STRBUF_INIT;
	struct recorded_answer ok = { .status = 200, .content_type = "application/json",
				      .retry_after_ms = -1 };
	struct recorded_end end = { .rc = 0 };
	recording_line_reconstructed(out, ck->t, x, ck->stream,
				     ck->list_path ? ck->list_path : "");
	recording_line_status(out, ck->t, x, &ok);
	reconstructed_body(ck, &body);
	recording_line_data(out, ck->t, x, body.buf, body.len);
	recording_line_end(out, ck->t, x, &end);
	for (size_t i = 0; i < ck->nxs; i++) {
		const struct ck_exchange *e = &ck->xs[i];
		struct recorded_answer a = { .status = e->status, .content_type = e->content_type,
					     .retry_after_ms = -1 };
		if (!e->watch)	/* a list not ended: its records were not kept */
			continue;
		recording_line_reconstructed(out, ck->t, e->x, ck->stream, e->path);
		if (e->status)
			recording_line_status(out, ck->t, e->x, &a);
		if (e->body.len)
			recording_line_data(out, ck->t, e->x, e->body.buf, e->body.len);
	}
	strbuf_release(&body);
}

/*
 * crd_columns.c — the printer columns of custom resources, learned from
 * their CRDs; see crd_columns.h.
 */
#include "output/crd_columns.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "output/gofmt.h"
#include "output/jsonpath.h"
#include "output/kinds.h"

/*
 * DESIGN (threads): kinds are only ever added, and each is immutable once
 * in v[], so a reader may keep the pointer crd_columns_kind() returned until
 * crd_columns_free(); the lock guards v and nr only.  The array holds
 * pointers so that growing it moves no kind a reader holds.  A group and
 * kind is in v[] once at most (crd_columns_add() looks and adds under the
 * lock): what crd_columns_kind() answers for it never changes once it is there.
 */
struct crd_columns {
	pthread_mutex_t lock;
	struct crd_kind **v;
	size_t nr, alloc;
};

struct crd_columns *crd_columns_new(void)
{
	struct crd_columns *cc = xcalloc(1, sizeof(*cc));

	pthread_mutex_init(&cc->lock, NULL);
	return cc;
}

static void crd_kind_free(struct crd_kind *ck)
{
	for (size_t j = 0; j < ck->n; j++) {
		struct crd_column *c = &ck->cols[j];
		free(c->name);
		free(c->header);
		free(c->type);
		jsonpath_free(c->jp);
	}
	free(ck->cols);
	free(ck->live);
	free(ck->group);
	free(ck->kind);
	free(ck);
}

void crd_columns_free(struct crd_columns *cc)
{
	if (!cc)
		return;
	for (size_t i = 0; i < cc->nr; i++)
		crd_kind_free(cc->v[i]);
	free(cc->v);
	pthread_mutex_destroy(&cc->lock);
	free(cc);
}

/* The kind of v[] with group and kind; the caller holds the lock. */
static struct crd_kind *crd_find(const struct crd_columns *cc, const char *group,
				 const char *kind)
{
	for (size_t i = 0; i < cc->nr; i++)
		if (!strcmp(cc->v[i]->kind, kind) && !strcmp(cc->v[i]->group, group))
			return cc->v[i];
	return NULL;
}

const struct crd_kind *crd_columns_kind(const struct crd_columns *cc, const char *group,
				       const char *kind)
{
	const struct crd_kind *found;
	/* The lock is not part of what a const reader may not change. */
	struct crd_columns *locked = (struct crd_columns *)cc;

	if (!cc || !kind)
		return NULL;
	pthread_mutex_lock(&locked->lock);
	found = crd_find(cc, group ? group : "", kind);
	pthread_mutex_unlock(&locked->lock);
	return found;
}

bool crd_columns_has(const struct crd_columns *cc, const char *group, const char *kind)
{
	return crd_columns_kind(cc, group, kind) != NULL;
}

/* The columns of one version of the CRD (the first when version is NULL). */
static struct json_object *printer_columns_of(struct json_object *crd, const char *version)
{
	struct json_object *versions = json_get_path(crd, "spec", "versions", NULL);

	for (size_t i = 0; i < json_get_len(versions); i++) {
		struct json_object *v = json_object_array_get_idx(versions, i);
		if (!version || !strcmp(json_get_str(v, "name", ""), version))
			return json_get(v, "additionalPrinterColumns");
	}
	return NULL;
}

/* Fills ck's columns from cols (NULL or empty: one, Age). */
static void crd_kind_fill(struct crd_kind *ck, struct json_object *cols, struct errbuf *err)
{
	/* serveDefaultColumnsIfEmpty: no columns means one, Age */
	size_t n = json_get_len(cols);

	ck->cols = xcalloc(n ? n : 1, sizeof(*ck->cols));
	ck->live = xcalloc((n ? n : 1) + 1, sizeof(*ck->live));
	for (size_t i = 0; i < (n ? n : 1); i++) {
		struct json_object *c = n ? json_object_array_get_idx(cols, i) : NULL;
		struct crd_column *cc = &ck->cols[ck->n];
		const char *path = n ? json_get_str(c, "jsonPath", "") : ".metadata.creationTimestamp";
		char *tmpl = xasprintf("{%s}", path);
		cc->jp = jsonpath_parse(tmpl, err);
		free(tmpl);
		if (!cc->jp) {
			errbuf_set(err, "unrecognized column definition \"%s\"", path);
			continue;	/* the apiserver leaves the column out too */
		}
		cc->name = xstrdup(n ? json_get_str(c, "name", "") : "Age");
		cc->type = xstrdup(n ? json_get_str(c, "type", "") : "date");
		cc->priority = n ? (long)json_get_int(json_get(c, "priority")) : 0;
		struct strbuf header = STRBUF_INIT;
		strbuf_add_upper(&header, cc->name);
		cc->header = strbuf_detach(&header, NULL);
		ck->n++;
	}
	for (size_t i = 0, l = 0; i < ck->n; i++)
		if (ck->cols[i].priority == 0)
			ck->live[l++] = ck->cols[i].header;
}

int crd_columns_add(struct crd_columns *cc, struct json_object *crd, const char *version,
		    struct errbuf *err)
{
	const char *kind = json_get_str(json_get_path(crd, "spec", "names", NULL), "kind", "");
	const char *group = json_get_str(json_get(crd, "spec"), "group", "");
	struct crd_kind *ck;

	if (!*kind || !*group) {
		errbuf_set(err, "not a CustomResourceDefinition: no spec.%s",
			   *kind ? "group" : "names.kind");
		return -1;
	}
	/* No server serves one in a built-in kind's group: kinds[] stands. */
	if (kinds_builtin(group, kind)) {
		errbuf_set(err, "'%s' of '%s' is a built-in kind, not a custom resource",
			   kind, group);
		return -1;
	}
	if (crd_columns_kind(cc, group, kind))
		return 0;	/* the first stands: readers may hold it */
	ck = xcalloc(1, sizeof(*ck));
	ck->group = xstrdup(group);
	ck->kind = xstrdup(kind);
	crd_kind_fill(ck, printer_columns_of(crd, version), err);
	pthread_mutex_lock(&cc->lock);
	if (crd_find(cc, group, kind)) {	/* another thread's came first */
		pthread_mutex_unlock(&cc->lock);
		crd_kind_free(ck);
		return 0;
	}
	ALLOC_GROW(cc->v, cc->nr + 1, cc->alloc);
	cc->v[cc->nr++] = ck;
	pthread_mutex_unlock(&cc->lock);
	return 0;
}

struct json_object *crd_column_cell(const struct crd_column *c, struct json_object *obj,
				    int64_t now_ms)
{
	struct json_object **v, *cell = NULL;
	struct errbuf err;
	size_t nr;

	if (jsonpath_find(c->jp, obj, true, &v, &nr, &err) < 0)
		return NULL;
	if (!nr) {
		jsonpath_values_free(v, nr);
		return NULL;
	}
	struct json_object *val = v[0];
	enum json_type t = json_object_get_type(val);
	if (!val) {
		/* the apiserver prints a null through text/template's printableValue */
		if (!strcmp(c->type, "string"))
			cell = json_object_new_string("<no value>");
	} else if (!strcmp(c->type, "string")) {
		struct strbuf sb = STRBUF_INIT;
		jsonpath_print_value(val, &sb);
		cell = json_object_new_string_len(strbuf_str(&sb), (int)sb.len);
		strbuf_release(&sb);
	} else if (!strcmp(c->type, "integer") && (t == json_type_int || t == json_type_double)) {
		cell = json_object_new_int64(t == json_type_int ? json_object_get_int64(val) :
					     (int64_t)json_object_get_double(val));
	} else if (!strcmp(c->type, "number") && (t == json_type_int || t == json_type_double)) {
		double d = json_object_get_double(val);
		/*
		 * A float64 in the Table's JSON, which kubectl reads back as an
		 * int64 when it is one: 9007199254740992, not 9.007199254740992e+15.
		 */
		if (d == trunc(d) && d >= -0x1p63 && d < 0x1p63)
			cell = json_object_new_int64((int64_t)d);
		else
			cell = json_object_new_double(d);
	} else if (!strcmp(c->type, "boolean") && t == json_type_boolean) {
		cell = json_object_new_boolean(json_object_get_boolean(val));
	} else if (!strcmp(c->type, "date") && t == json_type_string) {
		int64_t ms;
		char buf[32];
		if (parse_time_rfc3339(json_object_get_string(val), &ms) < 0) {
			cell = json_object_new_string("<invalid>");
		} else {
			format_age(now_ms - ms, buf);
			cell = json_object_new_string(buf);
		}
	}
	jsonpath_values_free(v, nr);
	return cell;
}

void crd_column_text(const struct crd_column *c, struct json_object *obj,
		     int64_t now_ms, struct strbuf *out)
{
	struct json_object *cell = crd_column_cell(c, obj, now_ms);
	struct strbuf text = STRBUF_INIT;

	if (cell)
		gofmt_print(cell, &text);
	json_object_put(cell);
	const char *p = text.buf, *end = text.buf + text.len, *nul;
	for (; (nul = memchr(p, '\0', (size_t)(end - p))); p = nul + 1) {
		strbuf_add(out, p, (size_t)(nul - p));
		strbuf_adds(out, "^@");
	}
	strbuf_add(out, p, (size_t)(end - p));
	strbuf_release(&text);
}

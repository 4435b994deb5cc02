/*
 * columns.c — kubectl's columns of a kind: a custom resource's from its
 * CRD (crd_columns.c), any other kind's built in (kinds.c); see columns.h.
 */
#include "output/columns.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "output/kinds.h"

const char *const *columns_live_headers(const struct crd_columns *crds, const char *group,
					 const char *kind)
{
	const struct crd_kind *ck = crd_columns_kind(crds, group, kind);

	return ck ? ck->live : kinds_live_headers(group, kind);
}

const struct kobj_pick *columns_pick(const struct crd_columns *crds, const char *group,
				     const char *kind)
{
	/* A CRD is never learned for the core group's Pod (crd_columns_add()). */
	return kinds_pick(group, kind);
}

/*
 * The watch line's words for a kind: its short status, or (wide) its wide
 * detail.  A custom resource's are its columns as "label=value" words,
 * the label its name in lower case with '-' for spaces: the priority-0
 * columns but dates, or the wide ones that are not empty.
 */
static void line_words(const struct crd_columns *crds, const char *group, const char *kind,
		       bool wide, struct json_object *obj, int64_t now_ms, struct strbuf *out)
{
	const struct crd_kind *ck = crd_columns_kind(crds, group, kind);
	struct strbuf cell = STRBUF_INIT;
	bool first = true;

	if (!ck) {
		if (wide)
			kinds_wide_detail(group, kind, obj, now_ms, out);
		else
			kinds_short_status(group, kind, obj, now_ms, out);
		return;
	}
	for (size_t i = 0; i < ck->n; i++) {
		const struct crd_column *c = &ck->cols[i];
		if (wide ? !c->priority : c->priority || !strcmp(c->type, "date"))
			continue;
		strbuf_reset(&cell);
		crd_column_text(c, obj, now_ms, &cell);
		if (wide && !cell.len)
			continue;
		if (!first)
			strbuf_addch(out, ' ');
		first = false;
		for (const char *h = c->name; *h; h++)
			strbuf_addch(out, (char)(*h == ' ' ? '-' : tolower((unsigned char)*h)));
		strbuf_addf(out, "=%s", strbuf_str(&cell));
	}
	strbuf_release(&cell);
}

void columns_short_status(const struct crd_columns *crds, const char *group, const char *kind,
			  struct json_object *obj, int64_t now_ms, struct strbuf *out)
{
	line_words(crds, group, kind, false, obj, now_ms, out);
}

void columns_wide_detail(const struct crd_columns *crds, const char *group, const char *kind,
			 struct json_object *obj, int64_t now_ms, struct strbuf *out)
{
	line_words(crds, group, kind, true, obj, now_ms, out);
}

/* A custom resource's cell: its CRD's column, or NAME; -1: neither. */
static int crd_cell(const struct crd_kind *ck, const char *group, const char *kind,
		    const char *header, struct json_object *obj, int64_t now_ms,
		    struct strbuf *out)
{
	for (size_t i = 0; i < ck->n; i++) {
		if (!strcmp(ck->cols[i].header, header)) {
			crd_column_text(&ck->cols[i], obj, now_ms, out);
			return 0;
		}
	}
	if (strcmp(header, "NAME"))
		return -1;
	return kinds_cell(group, kind, header, obj, now_ms, out);
}

int columns_cell(const struct crd_columns *crds, const char *group, const char *kind,
		 const char *header, struct json_object *obj, int64_t now_ms, struct strbuf *out)
{
	const struct crd_kind *ck = crd_columns_kind(crds, group, kind);

	return ck ? crd_cell(ck, group, kind, header, obj, now_ms, out) :
		    kinds_cell(group, kind, header, obj, now_ms, out);
}

void columns_cells(const struct crd_columns *crds, const char *group, const char *kind,
		   const char *const *headers, struct json_object *obj, int64_t now_ms,
		   struct strbuf *out)
{
	const struct crd_kind *ck = crd_columns_kind(crds, group, kind);

	if (!ck) {
		kinds_cells(group, kind, headers, obj, now_ms, out);
		return;
	}
	for (size_t i = 0; headers[i]; i++) {
		if (obj)
			crd_cell(ck, group, kind, headers[i], obj, now_ms, out);
		strbuf_addch(out, '\0');
	}
}

struct json_object *columns_table_json(const struct crd_columns *crds, const char *group,
				       const char *kind, struct json_object *const *objs, size_t n,
				       int64_t now_ms)
{
	const struct crd_kind *ck = crd_columns_kind(crds, group, kind);
	struct json_object *table = json_object_new_object();
	struct json_object *defs = json_object_new_array(), *rows = json_object_new_array();

	json_object_object_add(table, "kind", json_object_new_string("Table"));
	json_object_object_add(table, "apiVersion", json_object_new_string("meta.k8s.io/v1"));
	if (ck) {
		json_object_array_add(defs, kinds_column_def("Name", "string", true, 0));
		for (size_t i = 0; i < ck->n; i++)
			json_object_array_add(defs, kinds_column_def(ck->cols[i].name,
								     ck->cols[i].type, false,
								     ck->cols[i].priority));
	} else {
		kinds_table_defs(group, kind, defs);
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *row = json_object_new_object(), *cells = json_object_new_array();
		if (ck) {
			json_object_array_add(cells, json_object_new_string(
				json_get_str(json_get(objs[i], "metadata"), "name", "")));
			for (size_t j = 0; j < ck->n; j++)
				json_object_array_add(cells, crd_column_cell(&ck->cols[j], objs[i], now_ms));
		} else {
			kinds_table_cells(group, kind, objs[i], now_ms, cells);
		}
		json_object_object_add(row, "cells", cells);
		json_object_object_add(row, "object", json_object_get(objs[i]));
		json_object_array_add(rows, row);
	}
	json_object_object_add(table, "columnDefinitions", defs);
	json_object_object_add(table, "rows", rows);
	return table;
}

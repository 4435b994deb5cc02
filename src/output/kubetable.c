/*
 * kubetable.c — meta.k8s.io Tables as kubectl prints them, and kubectl's
 * --sort-by; see kubetable.h.
 */
#include "output/kubetable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "output/columns.h"
#include "output/format.h"
#include "output/gofmt.h"
#include "output/jsonpath.h"
#include "lib/gosort.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "lib/util.h"

/* ---- sorting --------------------------------------------------------------- */

struct keyed {
	size_t index;			/* in the objects given */
	struct json_object *value;	/* a reference, or NULL */
	bool found;
};

struct keyed_sort {
	struct keyed *k;
	bool bad;		/* an unsortable type met */
};

/* kubectl's Less (RuntimeSort's and TableSorter's) over the first values. */
static bool keyed_less(void *ctx, size_t i, size_t j)
{
	struct keyed_sort *ks = ctx;
	const struct keyed *a = &ks->k[i], *b = &ks->k[j];

	return format_sort_cmp(a->value, a->found, b->value, b->found, &ks->bad) < 0;
}

static void keyed_swap(void *ctx, size_t i, size_t j)
{
	struct keyed *k = ((struct keyed_sort *)ctx)->k, t = k[i];

	k[i] = k[j];
	k[j] = t;
}

/*
 * The order of objs[0..n) (of Table rows, by their "object" when rows)
 * by the first value of sort_by: order[k] is the index of the kth.
 */
static int sort_order(struct json_object *const *objs, size_t n, const char *sort_by,
		      bool rows, size_t *order, struct errbuf *err)
{
	struct jsonpath *jp;
	struct keyed *k;
	bool any = false;
	int ret = -1;

	if (!(jp = jsonpath_parse(sort_by, err))) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		errbuf_set(err, "sorting error: %s", msg);
		return -1;
	}
	k = xcalloc(n ? n : 1, sizeof(*k));
	for (size_t i = 0; i < n; i++) {
		struct json_object **v;
		size_t nr;
		k[i].index = i;
		if (jsonpath_find(jp, rows ? json_get(objs[i], "object") : objs[i], true, &v, &nr,
				  err) < 0)
			goto out;
		if (nr) {
			k[i].found = any = true;
			k[i].value = json_object_get(v[0]);
		}
		jsonpath_values_free(v, nr);
	}
	if (n && !any) {
		errbuf_set(err, "couldn't find any field with path \"%s\" in the list of objects",
			   sort_by);
		goto out;
	}
	/* sort.Sort, as kubectl: ties and missing values land where it puts them */
	struct keyed_sort ks = { .k = k };
	gosort(&(struct gosort_ops){ keyed_less, keyed_swap, &ks }, n);
	if (ks.bad) {
		errbuf_set(err, "field %s is an unsortable type (only numbers and strings sort)",
			   sort_by);
		ret = KUBETABLE_UNSORTABLE;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].index;
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		json_object_put(k[i].value);
	free(k);
	jsonpath_free(jp);
	return ret;
}

/* Reorders arr (objects, or Table rows) by sort_order(). */
static int sort_array(struct json_object *arr, const char *sort_by, bool rows,
		      struct errbuf *err)
{
	size_t n = json_object_array_length(arr);
	struct json_object **elems = xcalloc(n ? n : 1, sizeof(*elems));
	size_t *order = xcalloc(n ? n : 1, sizeof(*order));
	int ret;

	for (size_t i = 0; i < n; i++)
		elems[i] = json_object_get(json_object_array_get_idx(arr, i));
	ret = sort_order(elems, n, sort_by, rows, order, err);
	for (size_t i = 0; ret == 0 && i < n; i++)
		json_object_array_put_idx(arr, i, json_object_get(elems[order[i]]));
	for (size_t i = 0; i < n; i++)
		json_object_put(elems[i]);
	free(elems);
	free(order);
	return ret;
}

int kubetable_sort_objects(struct json_object *items, const char *sort_by,
			   struct errbuf *err)
{
	return sort_array(items, sort_by, false, err);
}

int kubetable_sort_rows(struct json_object *table, const char *sort_by, struct errbuf *err)
{
	struct json_object *rows = json_get(table, "rows");

	/* kubectl's SortingPrinter sorts a Table of two rows or more */
	if (!sort_by || json_get_len(rows) < 2)
		return 0;
	return sort_array(rows, sort_by, true, err);
}

int kubetable_sort_order(struct json_object *const *objs, size_t n, const char *sort_by,
			 size_t *order, struct errbuf *err)
{
	return sort_order(objs, n, sort_by, false, order, err);
}

/* ---- printing ---------------------------------------------------------------- */

/* labels.FormatLabels: "k=v,…" sorted by key, or "<none>". */
static void format_labels(struct json_object *labels, struct strbuf *out)
{
	size_t n = 0;
	const char **keys = json_object_is_type(labels, json_type_object) ?
			    gofmt_sorted_keys(labels, &n) : NULL;

	for (size_t i = 0; i < n; i++) {
		const char *v = json_get_str(labels, keys[i], "");
		strbuf_addf(out, "%s%s=", i ? "," : "", keys[i]);
		strbuf_add_termsafe(out, v, strlen(v), 0);
	}
	if (!n)
		strbuf_adds(out, "<none>");
	free(keys);
}

/* One cell as printTable writes it. */
static void format_cell(struct json_object *cell, struct strbuf *out)
{
	if (!cell)
		return;
	if (json_object_is_type(cell, json_type_string)) {
		const char *s = json_object_get_string(cell);
		size_t len = (size_t)json_object_get_string_len(cell), cut = 0;
		/* cut at the first line break; a NUL is a byte like any other */
		while (cut < len && !memchr("\f\n\r", s[cut], 3))
			cut++;
		/* kubectl escapes ESC and CR (PR 112553); kinf all it must. */
		strbuf_add_termsafe(out, s, cut, 0);
		if (cut < len)
			strbuf_adds(out, "...");
		return;
	}
	struct strbuf v = STRBUF_INIT;
	gofmt_print(cell, &v);
	strbuf_add_termsafe(out, v.buf, v.len, 0);
	strbuf_release(&v);
}

/* Upper-cased, escaped: a header as printTable writes it. */
static char *header_of(const char *name)
{
	struct strbuf up = STRBUF_INIT;

	strbuf_add_upper(&up, name);
	char *h = termsafe_dup(up.buf, 0);
	strbuf_release(&up);
	return h;
}

/* One row's cells as decorateTable and printTable make them. */
static void row_cells(struct json_object *row, size_t ndefs, const bool *shown,
		      const struct kubetable_opts *o, const char *event, struct strbuf *cells)
{
	struct json_object *rc = json_get(row, "cells");
	struct json_object *meta = json_get(json_get(row, "object"), "metadata");
	size_t c = 0;

	if (event)
		strbuf_adds(&cells[c++], event);
	if (o->with_namespace)
		strbuf_adds(&cells[c++], json_get_str(meta, "namespace", ""));
	for (size_t i = 0; i < ndefs; i++) {
		if (!shown[i])
			continue;
		if (i < json_get_len(rc))
			format_cell(json_object_array_get_idx(rc, i), &cells[c]);
		c++;
	}
	for (size_t i = 0; i < o->nlabel_columns; i++) {
		const char *v = json_get_str(json_get(meta, "labels"), o->label_columns[i], "");
		strbuf_add_termsafe(&cells[c++], v, strlen(v), 0);
	}
	if (o->show_labels)
		format_labels(json_get(meta, "labels"), &cells[c++]);
}

/*
 * The aligned table of rows under the column definitions defs, as
 * decorateTable lays it out; event: an EVENT column first holding it
 * (kubectl's padded "ADDED   "), or NULL.
 */
static struct table *build_table(struct json_object *defs, struct json_object *rows,
				 const struct kubetable_opts *o, const char *event)
{
	size_t ndefs = json_get_len(defs);
	size_t nrows = json_get_len(rows);
	size_t extra = (event ? 1 : 0) + (o->with_namespace ? 1 : 0) + o->nlabel_columns +
		       (o->show_labels ? 1 : 0);
	char **headers = xcalloc(ndefs + extra + 1, sizeof(*headers));
	bool *shown = xcalloc(ndefs + 1, sizeof(*shown));
	size_t nh = 0;

	if (event)
		headers[nh++] = xstrdup("EVENT");
	if (o->with_namespace)
		headers[nh++] = xstrdup("NAMESPACE");
	for (size_t i = 0; i < ndefs; i++) {
		struct json_object *d = json_object_array_get_idx(defs, i);
		struct json_object *prio = json_get(d, "priority");
		shown[i] = o->wide || !prio || json_object_get_int64(prio) == 0;
		if (shown[i])
			headers[nh++] = header_of(json_get_str(d, "name", ""));
	}
	for (size_t i = 0; i < o->nlabel_columns; i++) {
		const char *slash = strrchr(o->label_columns[i], '/');
		headers[nh++] = header_of(slash ? slash + 1 : o->label_columns[i]);
	}
	if (o->show_labels)
		headers[nh++] = xstrdup("LABELS");

	struct table *t = table_new((const char *const *)headers, nh);
	struct strbuf *cells = xcalloc(nh ? nh : 1, sizeof(*cells));
	const char **cellp = xcalloc(nh ? nh : 1, sizeof(*cellp));
	for (size_t r = 0; r < nrows; r++) {
		row_cells(json_object_array_get_idx(rows, r), ndefs, shown, o, event, cells);
		for (size_t i = 0; i < nh; i++)
			cellp[i] = strbuf_str(&cells[i]);
		table_add_row(t, cellp);
		for (size_t i = 0; i < nh; i++)
			strbuf_reset(&cells[i]);
	}
	for (size_t i = 0; i < nh; i++) {
		strbuf_release(&cells[i]);
		free(headers[i]);
	}
	free(cells);
	free(cellp);
	free(headers);
	free(shown);
	return t;
}

int kubetable_print(struct json_object *table, const struct kubetable_opts *o,
		    struct strbuf *out, struct errbuf *err)
{
	struct json_object *rows = json_get(table, "rows");
	size_t nrows = json_get_len(rows);

	int rc = kubetable_sort_rows(table, o->sort_by, err);
	if (rc < 0)
		return rc;
	struct table *t = build_table(json_get(table, "columnDefinitions"), rows, o, NULL);
	if (nrows)
		table_format(t, o->no_headers, NULL, out);
	table_free(t);
	return 0;
}

void kubetable_prefix_names(struct json_object *table, const char *prefix,
			    struct json_object *last_defs)
{
	struct json_object *defs = json_get(table, "columnDefinitions");
	struct json_object *rows = json_get(table, "rows");
	size_t col = SIZE_MAX;

	if (!json_get_len(defs))
		defs = last_defs;
	for (size_t i = 0; i < json_get_len(defs) && col == SIZE_MAX; i++) {
		struct json_object *d = json_object_array_get_idx(defs, i);
		if (!strcmp(json_get_text(d, "format", ""), "name") &&
		    !strcmp(json_get_text(d, "type", ""), "string"))
			col = i;
	}
	for (size_t i = 0; i < json_get_len(rows); i++) {
		struct json_object *cells = json_get(json_object_array_get_idx(rows, i), "cells");
		if (col >= json_get_len(cells))
			continue;
		struct json_object *cell = json_object_array_get_idx(cells, col);
		char *named = xasprintf("%s/%s", prefix, cell ? json_object_get_string(cell) : "");
		json_object_array_put_idx(cells, col, json_object_new_string(named));
		free(named);
	}
}

/* ---- one table after another (get -w) --------------------------------------- */

void kubetable_stream_release(struct kubetable_stream *s)
{
	json_object_put(s->columns);
	s->columns = NULL;
	s->printed_headers = s->printed_status = false;
	table_widths_release(&s->widths);
}

/* kubectl's formatEventType: padded, so that the column stays put. */
static const char *event_column(const char *event)
{
	static const char *const padded[][2] = {
		{ "ADDED", "ADDED   " }, { "MODIFIED", "MODIFIED" },
		{ "DELETED", "DELETED " }, { "ERROR", "ERROR   " },
	};

	for (size_t i = 0; event && i < ARRAY_SIZE(padded); i++)
		if (!strcmp(event, padded[i][0]))
			return padded[i][1];
	return event;
}

void kubetable_stream_print(struct kubetable_stream *s, struct json_object *table,
			    const char *event, const struct kubetable_opts *o, struct strbuf *out)
{
	struct json_object *defs = json_get(table, "columnDefinitions");
	struct json_object *rows = json_get(table, "rows");
	size_t nrows = json_get_len(rows);
	bool has_defs = json_get_len(defs) > 0;
	bool no_headers = o->no_headers;

	if (s->printed_headers && (!has_defs || json_object_equal(defs, s->columns)))
		no_headers = true;
	if (!has_defs) {
		defs = s->columns;	/* a watch event's: the last ones */
	} else if (!json_object_equal(defs, s->columns)) {
		json_object_put(s->columns);
		s->columns = json_object_get(defs);
		s->printed_headers = false;
	}
	if (!nrows)
		return;
	s->printed_headers = true;
	struct table *t = build_table(defs, rows, o, event_column(event));
	table_format(t, no_headers, &s->widths, out);
	table_free(t);
}

void kubetable_stream_status(struct kubetable_stream *s, struct json_object *status,
			     const char *event, bool no_headers, struct strbuf *out)
{
	/* a column a member, named by it: its header is upper-cased */
	static const char *const members[] = { "status", "reason", "message" };
	struct json_object *defs = json_object_new_array(), *cells = json_object_new_array();
	struct json_object *row = json_object_new_object(), *rows = json_object_new_array();
	struct kubetable_opts plain = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(members); i++) {
		struct json_object *d = json_object_new_object();
		json_object_object_add(d, "name", json_object_new_string(members[i]));
		json_object_array_add(defs, d);
		json_object_array_add(cells, json_object_new_string(json_get_str(status, members[i], "")));
	}
	json_object_object_add(row, "cells", cells);
	json_object_array_add(rows, row);
	struct table *t = build_table(defs, rows, &plain, event_column(event));
	/* the status handler's header: the first time one is printed */
	table_format(t, no_headers || s->printed_status, &s->widths, out);
	s->printed_status = true;
	table_free(t);
	json_object_put(defs);
	json_object_put(rows);
}

/*
 * printers_fuzz.c — what kinf prints of what a server answers, any
 * answer: a Table (kubetable.c, as get and get -w print it), a list or
 * an object through the -o formats (format.c), the built-in kinds' and a
 * CRD's columns (kinds.c, crd_columns.c), the TUI's cells from one scan
 * of an object's text (pod_scan.c) and its describe text
 * (tui_describe.c).  The input is one JSON document.
 *
 * Besides "no crash, no leak, no undefined behaviour, no hang":
 *   - a failure says why;
 *   - the cells pod_scan reads from a pod's text are those columns.c
 *     makes of its tree.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "informer/kobj.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "output/columns.h"
#include "output/crd_columns.h"
#include "output/format.h"
#include "output/kubetable.h"
#include "output/pod_scan.h"
#include "tui/tui_describe.h"
#include "fuzz.h"

#define NOW_MS 1767225600000LL	/* 2026-01-01 */

static const char *const kinds[][2] = {
	{ "", "Pod" }, { "apps", "Deployment" }, { "", "Node" }, { "", "Namespace" },
	{ "", "ConfigMap" }, { "", "Secret" }, { "", "Event" }, { "events.k8s.io", "Event" },
	{ "example.com", "Widget" },
};

static const char *const formats[] = {
	"json", "yaml", "name", "jsonpath={.metadata.name}{.items[*].status}",
	"custom-columns=N:.metadata.name,S:.status.phase,L:.metadata.labels",
	"go-template={{range .items}}{{.metadata.name}} {{index .metadata \"labels\"}}{{end}}",
};

/* A Table as get prints it, with every option that reads more of it. */
static void tables(struct json_object *doc)
{
	static const char *const labels[] = { "app" };
	const struct kubetable_opts opts[] = {
		{ 0 },
		{ .wide = true, .with_namespace = true, .show_labels = true,
		  .label_columns = labels, .nlabel_columns = 1 },
		{ .sort_by = "{.metadata.name}" },
	};
	struct kubetable_stream s = KUBETABLE_STREAM_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		struct strbuf out = STRBUF_INIT;
		struct errbuf err = { "" };
		if (kubetable_print(doc, &opts[i], &out, &err) < 0)
			CHECK(err.msg[0]);
		err.msg[0] = '\0';
		if (kubetable_sort_rows(doc, opts[i].sort_by, &err) < 0)
			CHECK(err.msg[0]);
		kubetable_stream_print(&s, doc, i ? "ADDED" : NULL, &opts[i], &out);
		strbuf_release(&out);
	}
	struct strbuf out = STRBUF_INIT;
	kubetable_stream_status(&s, doc, "ERROR", false, &out);
	strbuf_release(&out);
	kubetable_stream_release(&s);
	kubetable_prefix_names(doc, "pod", NULL);
}

static void formatted(struct json_object *doc)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		struct format f;
		struct strbuf out = STRBUF_INIT;
		struct errbuf err = { "" };
		CHECK(format_parse(&f, formats[i], "table", NULL, &err) == 0);
		if (format_print(&f, doc, false, &out, &err) < 0)
			CHECK(err.msg[0]);
		err.msg[0] = '\0';
		if (format_print_one(&f, doc, false, &out, &err) < 0)
			CHECK(err.msg[0]);
		format_release(&f);
		strbuf_release(&out);
	}
	struct json_object *items = json_object_get(json_get_array(doc, "items"));
	struct errbuf err = { "" };
	if (items && kubetable_sort_objects(items, "{.metadata.name}", &err) < 0)
		CHECK(err.msg[0]);
	json_object_put(items);
}

/* The cells of one object as each view makes them, the scan's checked against the tree's. */
static void cells(const struct crd_columns *crds, const char *group, const char *kind,
		  struct json_object *obj)
{
	const char *const *headers = columns_live_headers(crds, group, kind);
	struct strbuf tree = STRBUF_INIT, scan = STRBUF_INIT, text = STRBUF_INIT;
	struct errbuf err = { "" };

	columns_cells(crds, group, kind, headers, obj, NOW_MS, &tree);
	struct json_object *table = columns_table_json(crds, group, kind, &obj, 1, NOW_MS);
	tables(table);
	json_object_put(table);
	const char *json = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN);
	struct kobj *o = kobj_from_json(json, strlen(json), KOBJ_ALLOW_UNNAMED, &err);
	if (o) {
		kobj_json(o, &text);
		if (!pod_scan_live_cells(crds, group, kind, headers, text.buf, text.len, NOW_MS,
					 &scan)) {
			struct json_object *t = kobj_tree(o);
			strbuf_reset(&tree);
			columns_cells(crds, group, kind, headers, t, NOW_MS, &tree);
			CHECK(tree.len == scan.len && !memcmp(tree.buf, scan.buf, tree.len));
			json_object_put(t);
		}
		kobj_unref(o);
	}
	strbuf_reset(&text);
	/* the TUI describes what its cache holds: objects */
	if (json_object_is_type(obj, json_type_object))
		describe_text(obj, group, kind, json_get_array(obj, "items"), NULL, NOW_MS,
			      &text);
	strbuf_release(&tree);
	strbuf_release(&scan);
	strbuf_release(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct crd_columns *crds = crd_columns_new();
	struct errbuf err = { "" };

	CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	struct json_object *doc = json_parse_deep(text);
	if (doc) {
		formatted(doc);
		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
			cells(NULL, kinds[i][0], kinds[i][1], doc);
		if (crd_columns_add(crds, doc, NULL, &err) == 0) {
			const char *group = json_get_str(json_get(doc, "spec"), "group", "");
			const char *kind = json_get_str(json_get_path(doc, "spec", "names", NULL),
							"kind", "");
			cells(crds, group, kind, doc);
		} else {
			CHECK(err.msg[0]);
		}
		tables(doc);
		json_object_put(doc);
	}
	crd_columns_free(crds);
	free(text);
	return 0;
}

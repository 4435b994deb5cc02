/*
 * kubetable.h — a meta.k8s.io/v1 Table printed as kubectl prints it:
 * the server's (kubectl asks for one with Accept: application/json;
 * as=Table;g=meta.k8s.io;v=v1) or one columns.h builds from cached
 * objects, so that `get` and `get --from-cache` print alike.
 *
 * Follows cli-runtime's HumanReadablePrinter (printers/tableprinter.go:
 * decorateTable, printTable) and kubectl's TableSorter (get/sorter.go):
 *
 *   - columns with priority > 0 only with wide;
 *   - a NAMESPACE column first with with_namespace (-A), from each row's
 *     object (PartialObjectMetadata, or the whole object);
 *   - one column per label key asked (-L app,tier; the header is the key's
 *     last path segment in upper case), then LABELS (--show-labels:
 *     "k=v,k2=v2" sorted, or "<none>");
 *   - headers upper-cased; cells: strings cut at the first line break
 *     ("..." added), null as nothing, numbers and booleans as Go prints
 *     them;
 *   - no rows: no output at all (the caller says "No resources found");
 *   - sort_by (a JSONPath template, already relaxed): rows ordered by the
 *     first value the path gives on each row's object (format_sort_cmp);
 *     the error "couldn't find any field with path "{.x}" in the list of
 *     objects" when no row has one.
 *
 * json-c ownership: the table is borrowed (rows are reordered in place
 * when sorting).
 */
#ifndef KINF_KUBETABLE_H
#define KINF_KUBETABLE_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct strbuf;
struct errbuf;

struct kubetable_opts {
	bool wide;
	bool no_headers;
	bool with_namespace;
	bool show_labels;
	const char *const *label_columns;	/* -L keys */
	size_t nlabel_columns;
	const char *sort_by;			/* NULL: server order */
};

int kubetable_print(struct json_object *table, const struct kubetable_opts *o,
		    struct strbuf *out, struct errbuf *err);

/*
 * Orders a JSON array of objects by sort_by as kubectl's RuntimeSorter
 * does (for the non-table formats).  Same errors as above.
 */
int kubetable_sort_objects(struct json_object *items, const char *sort_by,
			   struct errbuf *err);

#endif

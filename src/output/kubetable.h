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
 *     objects" when no row has one.  A table of one row is not sorted,
 *     and so never fails, as kubectl's SortingPrinter.  Two values its
 *     Less cannot compare (an int beside a float, a map) are
 *     KUBETABLE_UNSORTABLE: kubectl exits there (klog.Exitf), where it
 *     drops the other errors of a table's sort.
 *
 * Sorting reorders the table's rows in place.
 */
#ifndef KINF_KUBETABLE_H
#define KINF_KUBETABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "output/columns.h"
#include "output/table_writer.h"

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

#define KUBETABLE_UNSORTABLE (-2)

/* 0, or -1 (or KUBETABLE_UNSORTABLE) with err when sorting failed. */
int kubetable_print(struct json_object *table, const struct kubetable_opts *o,
		    struct strbuf *out, struct errbuf *err);

/*
 * The names in a table as kubectl prints them with --show-kind or for
 * several types at once: "pod/web-0", prefix "pod".  The name column is
 * the first string column of format "name" (decorateTable), of the
 * table's definitions or, when it has none (a watch event's), of
 * last_defs (NULL: none), as kubectl's printer takes the last ones; a
 * table without one is left alone.
 */
void kubetable_prefix_names(struct json_object *table, const char *prefix,
			    struct json_object *last_defs);

/*
 * Tables one after another, as `kubectl get -w` prints the initial list's
 * and then each watch event's (cli-runtime's HumanReadablePrinter on one
 * tabwriter with RememberWidths):
 *
 *   - the header once, before the first row, and again only when the
 *     column definitions change; an event's Table without definitions
 *     (the apiserver sends them in the first event only) uses the last;
 *   - a table without rows prints nothing, but its definitions count;
 *   - every column as wide as the widest cell it ever had (columns.h's
 *     struct table_widths), so later rows may be wider than the first;
 *   - event (--output-watch-events): an EVENT column first, "ADDED   ",
 *     "MODIFIED", "DELETED ", "ERROR   " (kubectl's padding);
 *   - sort_by is not looked at: kubectl sorts no event, and its list
 *     is sorted before (kubetable_sort_rows()).
 *
 * KUBETABLE_STREAM_INIT or zeroed; kubetable_stream_release() empties it.
 * The tables are borrowed (rows reordered when sorting); the stream keeps
 * a reference to the last definitions.
 */
struct kubetable_stream {
	struct json_object *columns;
	bool printed_headers;
	bool printed_status;		/* a Status's header went out */
	struct table_widths widths;
};
#define KUBETABLE_STREAM_INIT { NULL, false, false, TABLE_WIDTHS_INIT }

void kubetable_stream_print(struct kubetable_stream *s, struct json_object *table,
			    const char *event, const struct kubetable_opts *o, struct strbuf *out);
/*
 * A Status (a watch's ERROR event) as kubectl's status handler prints
 * it: STATUS, REASON and MESSAGE (after EVENT with event), the header
 * the first time only, in the same remembered widths.
 */
void kubetable_stream_status(struct kubetable_stream *s, struct json_object *status,
			     const char *event, bool no_headers, struct strbuf *out);
void kubetable_stream_release(struct kubetable_stream *s);

/*
 * Orders a JSON array of objects by sort_by as kubectl's RuntimeSorter
 * does (for the non-table formats).  Same errors as above.
 */
int kubetable_sort_objects(struct json_object *items, const char *sort_by,
			   struct errbuf *err);
/* A Table's rows sorted as kubetable_print() sorts them (none for fewer than two). */
int kubetable_sort_rows(struct json_object *table, const char *sort_by, struct errbuf *err);
/* The same order of objs[0..n), unchanged: order[k] is the index of the kth. */
int kubetable_sort_order(struct json_object *const *objs, size_t n, const char *sort_by,
			 size_t *order, struct errbuf *err);

#endif

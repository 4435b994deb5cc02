/*
 * columns.h — kubectl's table columns per kind and the short status of
 * the watch line: what printers and views call.
 *
 * The built-in kinds' columns (kinds.h) in their own API groups only; a
 * custom resource whose CRD's printer columns a struct crd_columns knows
 * (crd_columns.h) gets those; any other kind gets NAME and AGE.  A kind is
 * known by its group and its name together: Knative's Service
 * (serving.knative.dev) is not the core group's, and a custom resource of
 * kind Pod is no pod.
 *
 * Every function takes the object as a json-c tree (borrowed: see
 * kobj_tree()) and "now" in wall-clock milliseconds, so that AGE is
 * reproducible in tests.  Nothing here keeps a reference to the tree.
 * The per-object functions may be used from any thread.
 *
 * The functions that take a kind take its API group ("" or NULL: the core
 * group) and the custom resources' columns too (borrowed; NULL: none
 * known), so that a kind a CRD describes is shown with its columns.
 */
#ifndef KINF_COLUMNS_H
#define KINF_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>

#include "output/crd_columns.h"

struct json_object;
struct strbuf;

/*
 * The members columns_short_status() and columns_wide_detail() read of a
 * kind's objects, for kobj_tree_pick(); NULL: the whole object.
 */
struct kobj_pick;
const struct kobj_pick *columns_pick(const struct crd_columns *crds, const char *group,
				     const char *kind);

/*
 * The short status of the watch line: pod "Running 1/1" (STATUS and
 * READY), deployment "3/3 ready", node "Ready" (its STATUS), namespace
 * its phase; nothing for other kinds.  Appended to out.
 */
void columns_short_status(const struct crd_columns *crds, const char *group, const char *kind,
			  struct json_object *obj, int64_t now_ms, struct strbuf *out);

/*
 * The kind's wide-only cells as "label=value" words, space-separated,
 * leaving out empty ones ("<none>", "<unknown>", ""): pods give
 * "ip=10.1.0.5 node=worker-1".  The label is the header in lower case with
 * '-' for spaces.  For the wide watch line.
 */
void columns_wide_detail(const struct crd_columns *crds, const char *group, const char *kind,
			 struct json_object *obj, int64_t now_ms, struct strbuf *out);

/*
 * One cell: the column named header (as printed, "STATUS") of the kind's
 * table, wide columns included.  Returns 0, or -1 when the kind has no
 * such column (out untouched).
 */
int columns_cell(const struct crd_columns *crds, const char *group, const char *kind,
		 const char *header, struct json_object *obj, int64_t now_ms, struct strbuf *out);
/*
 * Every cell of headers (NULL-terminated), each followed by a NUL ("" for
 * a column the kind has not, or every cell when obj is NULL), appended to
 * out: what columns_cell() gives each, with what cells share (a pod's
 * summary, behind READY, STATUS and RESTARTS) made once.
 */
void columns_cells(const struct crd_columns *crds, const char *group, const char *kind,
		   const char *const *headers, struct json_object *obj, int64_t now_ms,
		   struct strbuf *out);

/*
 * The headers a live view (the TUI's table) shows for a kind between its
 * own NAME and RV columns, NULL-terminated; each is one that
 * columns_cell() knows for that kind.  Static, or crds' (valid until
 * crd_columns_free()).  The same pointer for the same crds, group and
 * kind, but once: when crds learns the kind, it goes from the default's
 * to the CRD's (a view whose columns must hold asks with crds NULL for
 * a kind crds did not know as it opened).
 */
const char *const *columns_live_headers(const struct crd_columns *crds, const char *group,
					 const char *kind);

/* ---- meta.k8s.io/v1 Tables --------------------------------------------- */

/*
 * A meta.k8s.io/v1 Table of objs (borrowed; the rows' "object" members
 * hold references) with the kind's columns (wide ones at priority 1), as
 * the apiserver would answer for them: print it with kubetable_print().
 * A new tree the caller puts.
 */
struct json_object *columns_table_json(const struct crd_columns *crds, const char *group,
				       const char *kind, struct json_object *const *objs, size_t n,
				       int64_t now_ms);

#endif

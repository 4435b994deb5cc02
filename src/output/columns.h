/*
 * columns.h — kubectl's table columns per kind, the short status of the
 * watch line, and the aligned table writer of `kinf get`.
 *
 * One table row per kind (Pod, Deployment, Node, Namespace, ConfigMap,
 * Secret, Event); any other kind, custom resources included, gets NAME
 * and AGE.  Headers and cells are kubectl's (pkg/printers/internalversion):
 *
 *   Pod         NAME READY STATUS RESTARTS AGE
 *               wide: + IP NODE "NOMINATED NODE" "READINESS GATES"
 *   Deployment  NAME READY UP-TO-DATE AVAILABLE AGE
 *               wide: + CONTAINERS IMAGES SELECTOR
 *   Node        NAME STATUS ROLES AGE VERSION
 *               wide: + INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION
 *                       CONTAINER-RUNTIME
 *   Namespace   NAME STATUS AGE
 *   ConfigMap   NAME DATA AGE
 *   Secret      NAME TYPE DATA AGE
 *   Event       LAST SEEN, TYPE, REASON, OBJECT, MESSAGE (no NAME)
 *               wide: LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE
 *                     MESSAGE "FIRST SEEN" COUNT NAME
 *   (other)     NAME AGE
 *
 * With COLUMNS_NAMESPACE a NAMESPACE column comes first (kubectl -A).
 *
 * Pod STATUS follows kubectl's reason logic: the phase, or status.reason,
 * SchedulingGated, Init:… while init containers run or fail, a container's
 * waiting or terminated reason (CrashLoopBackOff, ErrImagePull, Completed,
 * ExitCode:N, Signal:N), NotReady/Running back from Completed, Terminating
 * once deletionTimestamp is set on a pod not yet Succeeded or Failed, and
 * Unknown for a deleted pod on an unreachable node.  RESTARTS reads
 * "3 (5m ago)" when the last termination time is known.
 *
 * Every function takes the object as a json-c tree (borrowed: see
 * kobj_tree()) and "now" in wall-clock milliseconds, so that AGE is
 * reproducible in tests.  Nothing here keeps a reference to the tree.
 * No function is thread-safe on the same struct table; distinct tables
 * and the per-object functions may be used from any thread.
 */
#ifndef KINF_COLUMNS_H
#define KINF_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct strbuf;

/*
 * The members columns_short_status() and columns_wide_detail() read of a
 * kind's objects, for kobj_tree_pick(); NULL: the whole object.
 */
struct kobj_pick;
const struct kobj_pick *columns_pick(const char *kind);

/*
 * The short status of the watch line: pod "Running 1/1" (STATUS and
 * READY), deployment "3/3 ready", node "Ready" (its STATUS), namespace
 * its phase; nothing for other kinds.  Appended to out.
 */
void columns_short_status(const char *kind, struct json_object *obj,
			  int64_t now_ms, struct strbuf *out);

/*
 * The kind's wide-only cells as "label=value" words, space-separated,
 * leaving out empty ones ("<none>", "<unknown>", ""): pods give
 * "ip=10.1.0.5 node=worker-1".  The label is the header in lower case with
 * '-' for spaces.  For the wide watch line.
 */
void columns_wide_detail(const char *kind, struct json_object *obj,
			 int64_t now_ms, struct strbuf *out);

/*
 * One cell: the column named header (as printed, "STATUS") of the kind's
 * table, wide columns included.  Returns 0, or -1 when the kind has no
 * such column (out untouched).
 */
int columns_cell(const char *kind, const char *header, struct json_object *obj,
		 int64_t now_ms, struct strbuf *out);

/* kubectl's AGE of metadata.creationTimestamp ("<unknown>" if absent). */
/*
 * The headers a live view (the TUI's table) shows for a kind between its
 * own NAME and RV columns, NULL-terminated and static; each is one that
 * columns_cell() knows for that kind.
 */
const char *const *columns_live_headers(const char *kind);

void columns_age(struct json_object *obj, int64_t now_ms, char buf[32]);
/* The same from the creationTimestamp's text (NULL: "<unknown>"). */
void columns_age_since(const char *timestamp, int64_t now_ms, char buf[32]);

/*
 * Parses an RFC 3339 time as Kubernetes writes it ("2024-05-01T10:00:00Z",
 * fractions and offsets allowed) into wall-clock ms.  Returns -1 if it is
 * not one.
 */
int columns_parse_time(const char *s, int64_t *ms);

/* ---- tables ------------------------------------------------------------ */

/*
 * An aligned table, written as kubectl writes one: every column but the
 * last padded to its widest cell (in characters, not bytes) plus three
 * spaces, and never narrower than six (kubectl's tabwriter minimum); the
 * last column unpadded.  Rows print in the order added: sort first (kubectl
 * shows what the server sends, sorted by namespace and name).
 */
struct table;

enum {
	COLUMNS_WIDE = 1 << 0,		/* -o wide: the kind's wide columns too */
	COLUMNS_NAMESPACE = 1 << 1,	/* a NAMESPACE column first */
};

/* A table of ncols columns with these headers (copied). */
struct table *table_new(const char *const *headers, size_t ncols);
/* Adds a row of ncols cells (copied; NULL reads as ""). */
void table_add_row(struct table *t, const char *const *cells);
size_t table_rows(const struct table *t);
/*
 * Writes the header line (unless no_headers) and the rows.  Returns 0, or
 * -1 when writing failed (errno tells why; EPIPE when the reader left).
 */
int table_write(const struct table *t, FILE *out, bool no_headers);
/* The same text, appended to out. */
void table_format(const struct table *t, bool no_headers, struct strbuf *out);
/*
 * As table_format, but each column as wide as its header (and the
 * minimum) only: for rows printed one at a time under a header printed
 * once.
 */
void table_format_fixed(const struct table *t, bool no_headers, struct strbuf *out);
void table_free(struct table *t);	/* NULL is a no-op */

/* A table with the kind's headers (flags: COLUMNS_*). */
struct table *columns_table_new(const char *kind, unsigned flags);
/* Adds obj's row to a table made by columns_table_new(). */
void columns_table_add(struct table *t, struct json_object *obj, int64_t now_ms);

/* ---- custom resources and Tables ----------------------------------------- */

struct errbuf;

/*
 * Registers a CustomResourceDefinition's additionalPrinterColumns (of
 * spec.versions[name == version], or the first version when NULL) for
 * its kind, as the apiextensions apiserver's tableconvertor uses them: a
 * Name column, then each column's JSONPath, cells typed (integer, number,
 * boolean, string, date as an age); no columns means one, Age.  From
 * then on the kind's tables, live headers, watch status (its priority-0
 * columns but dates, as name=value) and wide detail use them.  Not
 * thread-safe: register before other threads print.  -1 with err set
 * when crd is not a CRD; a column whose path does not parse is left out.
 */
int columns_add_crd(struct json_object *crd, const char *version, struct errbuf *err);
void columns_clear_crds(void);

/*
 * A meta.k8s.io/v1 Table of objs (borrowed; the rows' "object" members
 * hold references) with the kind's columns (wide ones at priority 1), as
 * the apiserver would answer for them: print it with kubetable_print().
 * A new tree the caller puts.
 */
struct json_object *columns_table_json(const char *kind, struct json_object *const *objs,
				       size_t n, int64_t now_ms);

#endif

/*
 * columns.h — kubectl's table columns per kind, the short status of the
 * watch line, and the aligned table writer of `kinf get`.
 *
 * One table row per built-in kind (Pod, Deployment, Node, Namespace,
 * ConfigMap, Secret, Event), in its own API groups only; a custom resource
 * whose CRD's printer columns a struct crd_columns knows gets those; any
 * other kind gets NAME and AGE.  A kind is known by its group and its
 * name together: Knative's Service (serving.knative.dev) is not the core
 * group's, and a custom resource of kind Pod is no pod.  Headers and
 * cells are kubectl's (pkg/printers/internalversion):
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
 * Pod, Node, Namespace, ConfigMap and Secret are the core group's (""),
 * Deployment apps' (and extensions', where servers before 1.16 served
 * it), Event the core group's and events.k8s.io's.
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
#include <stdio.h>

struct json_object;
struct strbuf;
struct errbuf;

/* ---- custom resources: a CRD's additionalPrinterColumns ------------------ */

/*
 * The printer columns of custom resources, by group and kind, learned
 * from their CustomResourceDefinitions as the apiextensions apiserver's
 * tableconvertor uses them: a Name column, then each column's JSONPath,
 * cells typed (integer, number, boolean, string, date as an age); no
 * columns means one, Age.  A kind it knows gets in the functions below
 * its columns for tables and live headers, its priority-0 columns but
 * dates (as name=value) for the watch status, its priority-1 ones for
 * the wide detail.  Two CRDs of one kind in two groups (cert-manager.io's
 * Certificate and networking.internal.knative.dev's) each keep their own.
 *
 * Threads: every function is thread-safe, and crd_columns_add() may run
 * while other threads print: a kind once learned never changes or goes
 * away before crd_columns_free(), which no other thread may overlap.  So
 * what a lookup answers for a group and kind it knows is what it answers
 * from then on; for one it does not know yet, it may change once.
 */
struct crd_columns;

struct crd_columns *crd_columns_new(void);
void crd_columns_free(struct crd_columns *crds);	/* NULL is a no-op */
/*
 * Learns a CRD's columns (of spec.versions[name == version], or the
 * first version when version is NULL) for its spec.group and
 * spec.names.kind; a group and kind already known keep the columns they
 * had.  crd is borrowed.  -1 with err set when crd is not a CRD (no
 * group or kind) or names one of the built-in kinds above in its own
 * group (never a CRD's); a column whose path does not parse is left out
 * (err says which, and 0 is returned).
 */
int crd_columns_add(struct crd_columns *crds, struct json_object *crd,
		    const char *version, struct errbuf *err);
/* Whether the columns of group's kind were learned. */
bool crd_columns_has(const struct crd_columns *crds, const char *group, const char *kind);

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

/* kubectl's AGE of metadata.creationTimestamp ("<unknown>" if absent). */
void columns_age(struct json_object *obj, int64_t now_ms, char buf[32]);
/* The same from the creationTimestamp's text (NULL: "<unknown>"). */
void columns_age_since(const char *timestamp, int64_t now_ms, char buf[32]);

/*
 * Parses an RFC 3339 time as Kubernetes writes it ("2024-05-01T10:00:00Z",
 * fractions and offsets allowed) into wall-clock ms.  Returns -1 if it is
 * not one.
 */
int columns_parse_time(const char *s, int64_t *ms);

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

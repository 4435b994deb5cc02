/*
 * kinds.h — kubectl's table columns of the built-in kinds and the short
 * status of their watch lines; columns.h puts them beside the custom
 * resources' and is what the printers call.
 *
 * One table row per built-in kind, in its own API groups only (columns.h
 * says what the other kinds get).  Headers and cells are kubectl's
 * (pkg/printers/internalversion):
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
 * The functions take what columns.h's take, from any thread.
 */
#ifndef KINF_KINDS_H
#define KINF_KINDS_H

#include <stdbool.h>
#include <stdint.h>

struct json_object;
struct kobj_pick;
struct strbuf;

/* Whether group's kind is one of the kinds above (not the default). */
bool kinds_builtin(const char *group, const char *kind);
/* columns_live_headers() of a built-in kind or the default (static). */
const char *const *kinds_live_headers(const char *group, const char *kind);
/* columns_pick() of a built-in kind: a pod's members, else NULL. */
const struct kobj_pick *kinds_pick(const char *group, const char *kind);
/* columns_short_status() of a built-in kind. */
void kinds_short_status(const char *group, const char *kind, struct json_object *obj,
			int64_t now_ms, struct strbuf *out);
/* columns_wide_detail() of a built-in kind. */
void kinds_wide_detail(const char *group, const char *kind, struct json_object *obj,
		       int64_t now_ms, struct strbuf *out);
/* columns_cell() and columns_cells() of a built-in kind. */
int kinds_cell(const char *group, const char *kind, const char *header,
	       struct json_object *obj, int64_t now_ms, struct strbuf *out);
void kinds_cells(const char *group, const char *kind, const char *const *headers,
		 struct json_object *obj, int64_t now_ms, struct strbuf *out);

/* ---- meta.k8s.io/v1 Tables: their columnDefinitions and cells ----------- */

/*
 * A column definition (a new tree the caller puts); is_name: the
 * object's name, of format "name" as the apiserver marks it.
 */
struct json_object *kinds_column_def(const char *name, const char *type, bool is_name,
				     long priority);
/* The kind's columns' definitions (wide ones at priority 1), added to defs. */
void kinds_table_defs(const char *group, const char *kind, struct json_object *defs);
/* obj's cells, each a string, added to cells. */
void kinds_table_cells(const char *group, const char *kind, struct json_object *obj,
		       int64_t now_ms, struct json_object *cells);

#endif

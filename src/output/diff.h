/*
 * diff.h — what changed between two versions of an object: as an RFC 6902
 * JSON Patch for `-o json --diff`, and as one line per changed leaf for
 * `--diff` on line output.
 *
 * Comparison: objects member by member, recursively; arrays element by
 * element over their common length, then the extra elements added (at the
 * end) or removed (from the end, highest index first, so that each op's
 * index is right when the ops are applied in order).  When more than half
 * of the common elements differ (an insertion at the front shifts them
 * all) the whole array is replaced instead: one op says it better.
 * Scalars compare by json_object_equal(): 1 and 1.0 differ, as their text
 * does.
 *
 * The values in the patch's ops are references to subtrees of new_obj
 * (shared, not copied), so neither may be changed while both live.
 */
#ifndef KINF_DIFF_H
#define KINF_DIFF_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct strbuf;

/*
 * The ops turning old_obj into new_obj: "add", "remove" and "replace",
 * with RFC 6901 paths ("~" written "~0", "/" written "~1").  Each
 * "remove" and "replace" also carries "old", the value it takes away
 * (a member RFC 6902 lets appliers ignore), so that `jq` can tell what
 * changed from what.  Applying the ops in order to old_obj gives new_obj
 * but for metadata.resourceVersion, which changes on every write and is
 * left out (the record carries both versions).  Empty array when equal.
 */
struct json_object *diff_json_patch(struct json_object *old_obj,
				    struct json_object *new_obj);

enum diff_what {
	DIFF_ADDED,		/* new_value only */
	DIFF_REMOVED,		/* old_value only */
	DIFF_CHANGED,		/* both */
};

/*
 * One changed leaf.  path is dotted, with array indexes in brackets and
 * keys that would be ambiguous quoted: spec.containers[0].image,
 * metadata.labels["app.kubernetes.io/name"].  Conditions (an array under
 * a "conditions" key whose elements each have a distinct "type") pair by
 * type, wherever each sits, and read status.conditions[type=Ready].status.  An added or removed object
 * or array is walked down to its leaves; an empty one is a leaf.  A value
 * of NULL is JSON null (json-c's representation): `what` says which side
 * is absent.
 */
struct diff_change {
	enum diff_what what;
	const char *path;
	struct json_object *old_value;
	struct json_object *new_value;
};

typedef void diff_change_fn(void *ctx, const struct diff_change *change);

/*
 * Calls fn for each changed leaf, skipping the noise
 * that changes on every write without saying anything:
 *   metadata.resourceVersion       (every write; the line shows it anyway)
 *   metadata.managedFields         (bookkeeping of who wrote which field)
 *   status.conditions[].lastHeartbeatTime
 *                                  (a node's kubelet rewrites it every few
 *                                   seconds; lastTransitionTime, which
 *                                   moves only when the condition does,
 *                                   is kept)
 *   kind, apiVersion               (list items carry none, watch events
 *                                   do: an object first listed, then
 *                                   watched, would "gain" them)
 * metadata.generation is not noise: it moves when the spec does.
 * Order: within an object, its removed members first (in the old order),
 * then changed and added ones in the new object's order; the same order
 * as the patch's ops.  Returns the number of changes reported.
 */
size_t diff_walk(struct json_object *old_obj, struct json_object *new_obj,
		 diff_change_fn *fn, void *ctx);

enum {
	DIFF_COLOR = 1 << 0,	/* ANSI colours on "+" and "-" lines */
	DIFF_ASCII = 1 << 1,	/* "->" and "..." for "→" and "…" (LANG=C) */
};
/*
 * The human form, one line per diff_walk() change, each prefixed with
 * indent and ended with '\n':
 *   spec.replicas: 2 → 3
 *   metadata.labels.app: + web
 *   metadata.labels.tier: - front
 * Strings are shown bare (quoted when empty, or when they hold spaces at
 * an end); other values as compact JSON; a value longer than 80 bytes
 * is cut with "…".  With DIFF_COLOR, "+" lines are green and "-" lines
 * red (ANSI).  Returns the number of lines.
 */
size_t diff_human(struct json_object *old_obj, struct json_object *new_obj,
		  const char *indent, unsigned flags, struct strbuf *out);

#endif

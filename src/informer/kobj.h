/*
 * kobj.h — a Kubernetes object as the informer holds it.
 *
 * Ownership, the one rule: a kobj is immutable once made and
 * reference-counted; whoever holds a pointer holds one reference.  The
 * Indexer holds one, every queued delta holds its own, every listener
 * notification holds its own.  kobj_ref() to keep, kobj_unref() when done.
 * Because it never changes, any thread may read it without a lock.
 *
 * The object is kept as compact JSON text (after the transform: by
 * default metadata.managedFields is dropped), not as a json-c tree: a
 * tree costs several times the text, and most objects are never looked
 * at again.  The few fields the machinery reads on every delta (key,
 * resourceVersion, index values) are extracted once, when made.
 * kobj_tree() parses the text for the rare reader that needs more
 * (kobj_tree_pick(), in kobj_pick.h, a few of its members).
 * A kobj is one allocation, the struct, its strings and its text, plus
 * the namespace, kind, labels and owners it shares with the objects that
 * have the same.
 *
 * The text is kept packed (lib/zpack: zstd against a dictionary of the
 * first objects of its kind), which holds a cache in a fraction of its
 * JSON; those first objects, and any that packing would not shrink,
 * keep it as it is.  Readers get it back with kobj_json() or kobj_text(),
 * byte for byte: unpacking costs a few microseconds an object, next to
 * the tens that parsing or printing it costs.
 *
 * Making one builds no tree: one pass over the bytes validates them as
 * RFC 8259 JSON (nesting up to 1024 deep; bytes of 0x80 and above pass
 * through unchecked, as json-c lets them), extracts the fields and copies
 * the compact text.  Malformed text is an error, never a partial object.
 * The text is what json-c would write for the same object (whitespace
 * between tokens dropped, strings with escapes rewritten as json-c writes
 * them: "\u00e9" becomes "é", "\/" becomes "/"), so compact input comes
 * out byte for byte.  Two differences: numbers are kept as they came
 * (json-c rewrote integers: "-0" as "0", clamped beyond 64 bits), and
 * duplicate member names are kept (json-c kept one); for every field kinf
 * reads, the last of duplicates wins, as with json-c, Go and jq.
 */
#ifndef KINF_KOBJ_H
#define KINF_KOBJ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct json_object;
struct strbuf;
struct zpack;

struct kobj {
	atomic_int refs;
	uint32_t json_len;	/* the length of its compact JSON text */
	/*
	 * "namespace/name", or "name" when cluster-scoped: always the first
	 * thing after the struct, so that kobj_key_of() finds it from the
	 * object's address without reading the object.
	 */
	char *key;
	const char *name;	/* into key */
	/*
	 * "" when cluster-scoped.  A second NUL follows it, so that ns also
	 * reads as a packed list (below) of zero or one value.
	 */
	char *ns;
	char *rv;		/* metadata.resourceVersion, "" if absent */
	char *kind;		/* "" when the object has none */
	/*
	 * Index values, each a packed list "a\0b\0\0" (empty list: "\0"):
	 * labels as "key=value", spec.nodeName, ownerReferences[].uid.
	 */
	char *labels;
	char *node;
	char *owners;
	/* The text's size packed by lib/zpack (not a packed list); 0: as it is. */
	uint32_t packed_len;
	/*
	 * The compact JSON text, as it is (NUL-terminated) or packed by pack:
	 * read it with kobj_json() or kobj_text(), never here.
	 */
	const char *stored;
	struct zpack *pack;
	/* What a reader derived from the object, kept with it: kobj_memo(). */
	_Atomic(char *) memo;
	struct intern *shared;	/* holds ns, kind, labels, owners */
};

/* obj->key, from obj's address alone (one load less where many are read). */
static inline const char *kobj_key_of(const struct kobj *obj)
{
	return (const char *)(obj + 1);
}

/*
 * The bytes obj's own allocation holds: the struct, its key, rv and node,
 * and its text as stored (packed or not); not its memo, nor the interned
 * strings it shares with others.  What freeing its last reference gives
 * back.
 */
static inline size_t kobj_bytes(const struct kobj *obj)
{
	return (size_t)(obj->stored - (const char *)obj) +
	       (obj->packed_len ? obj->packed_len : (size_t)obj->json_len + 1);
}

/* Flags for the transform applied when an object is made. */
enum {
	KOBJ_KEEP_MANAGED_FIELDS = 1 << 0,
	/*
	 * An object without metadata.name (or without metadata) is made all
	 * the same, keyed as client-go's MetaNamespaceKeyFunc keys it: "ns/"
	 * or "".  The informer's, which caches what client-go caches.
	 */
	KOBJ_ALLOW_UNNAMED = 1 << 1,
};

/*
 * Makes a kobj from a parsed object (borrowed).  The caller's tree is never
 * changed: the transform works on throwaway shallow containers that share
 * its members by reference, so no other thread may be taking or putting
 * references into that tree meanwhile (json-c's counts are not atomic).
 * Returns NULL and fills err when the object has no metadata.name (unless
 * KOBJ_ALLOW_UNNAMED).
 */
struct kobj *kobj_from_tree(struct json_object *obj, unsigned flags,
			    struct errbuf *err);
/* Same from JSON text. */
struct kobj *kobj_from_json(const char *json, size_t len, unsigned flags,
			    struct errbuf *err);

/*
 * One JSON document that must be a single object, scanned by s (set up
 * by the caller on text, with or without an out): fn gets its members.
 * Errors are worded as every reader of objects words them ("cannot parse
 * object: ... at byte N", N counted from text).  0 or -1.
 */
struct json_scan;
int kobj_scan_document(struct json_scan *s, const char *text,
		       int (*fn)(struct json_scan *s, const char *key, size_t klen, void *ctx),
		       void *ctx, struct errbuf *err);

/* What a list's items lack: the server leaves TypeMeta to the list. */
struct kobj_type {
	const char *api_version;	/* "v1", "apps/v1" */
	const char *kind;		/* "Pod" */
};
/*
 * From the JSON text of a list item: adds apiVersion and kind (when the
 * item has no kind), so that an object reads the same whether it came
 * from a list or a watch event.  type NULL: as kobj_from_json.
 */
struct kobj *kobj_from_list_item(const char *json, size_t len,
				 const struct kobj_type *type, unsigned flags,
				 struct errbuf *err);

/*
 * A new json-c tree of an object's JSON text, or with in_event of a watch
 * event's ({"type":..,"object":{..}}), without the object's
 * metadata.managedFields unless flags keep them: they are skipped in the
 * text, never built.  NULL when the text does not parse.
 */
struct json_object *kobj_parse(const char *json, size_t len, bool in_event,
			       unsigned flags);

/* A watch event's type; UNKNOWN for any other text. */
enum kobj_event_type {
	KOBJ_EVENT_UNKNOWN,
	KOBJ_EVENT_ADDED,
	KOBJ_EVENT_MODIFIED,
	KOBJ_EVENT_DELETED,
	KOBJ_EVENT_BOOKMARK,
	KOBJ_EVENT_ERROR,
};

/* A watch event, read in one pass; kobj_event_release() when done. */
struct kobj_event {
	enum kobj_event_type type;
	char type_name[48];	/* as it came (a non-string: its JSON text), cut short */
	/* ADDED, MODIFIED, DELETED: the object, or NULL and obj_err why. */
	struct kobj *obj;
	struct errbuf obj_err;
	struct json_object *tree;	/* BOOKMARK, ERROR: the object's tree */
};

/*
 * Reads a watch event line ({"type":..,"object":{..}}), applying the
 * transform to its object.  Returns -1 with err when it is not a JSON
 * object with a type and an object member, its own kind or apiVersion
 * (names folded as encoding/json folds them) is neither a string nor
 * null, the object of a known type has no kind (a non-empty string), or
 * (BOOKMARK, ERROR) the object does not parse; 0 otherwise, an unknown
 * type included.
 */
int kobj_from_event(const char *json, size_t len, unsigned flags,
		    struct kobj_event *ev, struct errbuf *err);
void kobj_event_release(struct kobj_event *ev);

/*
 * The object's memo: the string derive(obj, ctx) returns (malloc'd; the
 * kobj owns it from then on) the first time, the same string after, so
 * that a reader that needs the object's tree to compute something (the
 * watch line's columns) parses it once per object, not once per delta.
 * Any thread; when two race, one result is kept and the other freed.  One
 * memo per object, for one kind of reader: the line printer.
 */
typedef char *kobj_derive_fn(const struct kobj *obj, void *ctx);
const char *kobj_memo(const struct kobj *obj, kobj_derive_fn *derive, void *ctx);

struct kobj *kobj_ref(struct kobj *obj);	/* NULL: NULL */
void kobj_unref(struct kobj *obj);	/* NULL is a no-op */

/*
 * True when a and b are the same object: the same compact text (what
 * every other field is made from, with the same flags).
 */
bool kobj_same(const struct kobj *a, const struct kobj *b);

/* Appends the object's compact JSON text (json_len bytes) to sb. */
void kobj_json(const struct kobj *obj, struct strbuf *sb);
/*
 * The object's compact JSON text (json_len bytes, NUL-terminated): the
 * object's own when kept as it is, else unpacked into scratch (emptied
 * first).  Valid while both the object and scratch are.
 */
const char *kobj_text(const struct kobj *obj, struct strbuf *scratch);

/* A new json-c tree of the object; the caller puts it. */
struct json_object *kobj_tree(const struct kobj *obj);

/* True when the packed list (labels, node, owners) holds value. */
bool packed_contains(const char *packed, const char *value);
/* Iterate a packed list: for (p = list; *p; p += strlen(p) + 1) */

/* Builds the key as client-go's MetaNamespaceKeyFunc does. */
char *kobj_make_key(const char *ns, const char *name);

#endif

/*
 * kobj_pick.h — a json-c tree of some members of a kobj, for a reader
 * that needs a few fields of a large object (the watch line's columns):
 * the rest of its text is scanned past, never made into json-c objects.
 * Any thread: a kobj never changes.
 */
#ifndef KINF_KOBJ_PICK_H
#define KINF_KOBJ_PICK_H

struct json_object;
struct kobj;

/*
 * Which members kobj_tree_pick() keeps, a list ended by a NULL name:
 * PICK_ALL the whole value, PICK_SOME an object's listed members,
 * PICK_EACH an array whose objects keep their listed members (other
 * elements whole), PICK_COUNT an array as as many empty objects (what
 * its length says).
 */
struct kobj_pick {
	const char *name;
	enum { PICK_ALL, PICK_SOME, PICK_EACH, PICK_COUNT } how;
	const struct kobj_pick *members;	/* PICK_SOME, PICK_EACH */
};

/* The tree of obj's members that pick names; never NULL. */
struct json_object *kobj_tree_pick(const struct kobj *obj, const struct kobj_pick *pick);

#endif

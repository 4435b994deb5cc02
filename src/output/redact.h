/*
 * redact.h — a Secret's values kept off the screen.
 *
 * kinf's line output, --diff on it, and the TUI never show what a Secret
 * holds: each value under data and stringData is replaced by its size,
 * as `kubectl describe secret` shows it ("password: 12 bytes"), and so is
 * the kubectl.kubernetes.io/last-applied-configuration annotation, which
 * holds the data in the clear (describe leaves it out).  -o json
 * prints the object whole, as `kubectl get -o json` does: a reader who
 * asks for JSON asks for everything.
 *
 * The tree is changed in place: the caller's own (kobj_tree() gives a
 * new one).
 */
#ifndef KINF_REDACT_H
#define KINF_REDACT_H

struct json_object;

/*
 * For a core v1 Secret (kind Secret, apiVersion v1), replaces each value
 * of data (base64: its decoded size) and stringData, and the
 * last-applied-configuration annotation, with "N bytes"; anything else
 * is left alone.
 */
void redact_secret(struct json_object *obj);

/*
 * Both versions of an object, for a diff: as redact_secret(), and a value
 * that changed without changing size reads "N bytes, changed" in new_obj,
 * so that the diff still shows it changed.
 */
void redact_secret_pair(struct json_object *old_obj, struct json_object *new_obj);

#endif

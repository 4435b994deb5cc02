/*
 * handler.h — controller-runtime's event handlers, for the simulated
 * controller: which keys (reconcile.Requests) one event enqueues.
 *
 *   EnqueueRequestForObject   the object's own key, on Create, Update and
 *                             Delete.  On an Update the new object's key;
 *                             the old one's only when there is no new
 *                             object (v0.15 and later: earlier versions
 *                             added both keys).  The informer's old and
 *                             new objects share one key, so it is one.
 *   EnqueueRequestForOwner    (--enqueue-owner KIND, OnlyControllerOwner):
 *                             the key of the object's controller
 *                             reference (the first ownerReference with
 *                             controller: true) when its kind is KIND
 *                             (and, given as KIND.GROUP, its API group is
 *                             GROUP); on an Update, of the old and the
 *                             new object, each key once.  The owner's
 *                             namespace is the object's: kinf has no REST
 *                             mapper to tell a cluster-scoped owner.
 * With an owner kind, objects of that kind are the controller's own
 * (For()) and take EnqueueRequestForObject; every other kind takes
 * EnqueueRequestForOwner (Owns()).
 *
 * A tombstone (a Delete whose object is DeletedFinalStateUnknown) is a
 * Delete event with DeleteStateUnknown set, unwrapped to its last known
 * object, as controller-runtime's source event handler does; the handler
 * enqueues its key as for any Delete.
 *
 * Follows controller-runtime v0.22 pkg/handler/enqueue.go
 * (TypedEnqueueRequestForObject.Create/Update/Delete), enqueue_owner.go
 * (getOwnerReconcileRequest, getOwnersReferences with OnlyControllerOwner)
 * and pkg/internal/source/event_handler.go (OnDelete's tombstone).
 *
 * Single-threaded: a handler is read-only once made.
 */
#ifndef KINF_HANDLER_H
#define KINF_HANDLER_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

struct kobj;

enum handler_event { HANDLER_CREATE, HANDLER_UPDATE, HANDLER_DELETE };

struct handler {
	char *owner_kind;	/* NULL: EnqueueRequestForObject for all */
	char *owner_group;	/* NULL: any group */
};

/* spec: NULL, "KIND" or "KIND.GROUP"; -1 and err when empty. */
int handler_init(struct handler *h, const char *owner_spec, struct errbuf *err);
void handler_release(struct handler *h);

/* The keys one event enqueues, each once; free them with handler_keys_release. */
struct handler_keys {
	char *v[4];
	size_t nr;
};
void handler_keys_release(struct handler_keys *k);

/*
 * kind, group: the informer's (the object's kind).  old: an Update's old
 * object, else NULL.  Fills out; returns true when the object is the
 * controller's own kind (EnqueueRequestForObject).
 */
bool handler_requests(const struct handler *h, const char *kind, const char *group,
		      enum handler_event ev, const struct kobj *obj,
		      const struct kobj *old, struct handler_keys *out);

#endif

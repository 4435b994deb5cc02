/*
 * reflector_list.h — the reflector's LIST (reflector_list.c): one LIST
 * into the FIFO as one Replace.  Private to the reflector's files, on
 * the reflector's thread.
 */
#ifndef KINF_REFLECTOR_LIST_H
#define KINF_REFLECTOR_LIST_H

#include "informer/reflector_impl.h"

/* The items a list gathers. */
struct list_state {
	struct reflector *r;
	struct kobj **items;
	size_t nr, alloc;
	struct errbuf err;	/* why an item could not be decoded */
	unsigned tap_x;		/* the tap's number of its last page's exchange */
};

/*
 * What a list hands on for obj: the object the informer already holds
 * when it is the same (hooks.same), else obj.  Takes obj's reference over.
 */
struct kobj *reflector_known_or(struct reflector *r, struct kobj *obj);
/* Drops the items' references (keeps the array). */
void reflector_list_state_clear(struct list_state *ls);
/* One LIST (at "0", the last RV, or ""), its items to the FIFO as one Replace. */
enum outcome reflector_list(struct reflector *r);

#endif

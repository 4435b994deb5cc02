/*
 * reflector_hooks.h — how a reflector (reflector.h) tells its informer
 * what it did, and asks it what it holds.  Apart from reflector.h so
 * that the reflector's own files (reflector_impl.h) can hold them
 * without the public header.
 *
 * The hooks run on the reflector's thread and must not block.  ctx is
 * the caller's.
 */
#ifndef KINF_REFLECTOR_HOOKS_H
#define KINF_REFLECTOR_HOOKS_H

#include <stdbool.h>

struct activity_info;
struct kobj;

struct reflector_hooks {
	void (*activity)(void *ctx, const struct activity_info *info);
	/* After each Replace (an empty list pops nothing: sync is due here). */
	void (*replaced)(void *ctx);
	/*
	 * The watch phase of a ListAndWatch began (after its list) or ended:
	 * client-go resyncs only in between (watchWithResync).
	 */
	void (*watching)(void *ctx, bool on);
	/*
	 * A new reference to the object the informer holds under obj's key
	 * when it is byte for byte obj, else NULL.  Called for each listed
	 * object (and each initial event of a streaming list) as it is
	 * decoded: a relist of unchanged objects hands on the ones in memory
	 * and frees its copies at once.  May be NULL.
	 */
	struct kobj *(*same)(void *ctx, const struct kobj *obj);
	void *ctx;
};

#endif

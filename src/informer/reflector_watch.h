/*
 * reflector_watch.h — the reflector's WATCH (reflector_watch.c).
 * Private to the reflector's files; called on the reflector's thread.
 */
#ifndef KINF_REFLECTOR_WATCH_H
#define KINF_REFLECTOR_WATCH_H

#include <stdbool.h>

#include "informer/reflector_impl.h"

/*
 * One watch, until it ends.  With `initial`, a streaming list
 * (sendInitialEvents) from the last RV or "", which becomes the watch
 * once its end bookmark came.
 */
enum outcome reflector_watch(struct reflector *r, bool initial);

#endif

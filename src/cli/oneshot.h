/*
 * oneshot.h — how the commands that answer once from informers (get
 * --from-cache, verify) wait for them to sync.
 *
 * An informer retries a refusal (400, 401, 403, 404) for ever, as
 * client-go's Run does (informer/reflector.h), and watch and tui let it:
 * events flow once RBAC is granted or the CRD installed.  A command that
 * answers once does not wait for that: the first list cycle that ends
 * refused ends it, with the refusal's message and no promise of a retry,
 * as kubectl's get ends and as it ends itself when discovery meets the
 * refusal first (no discovery cache).
 */
#ifndef KINF_ONESHOT_H
#define KINF_ONESHOT_H

#include <stdint.h>

#include "informer/session.h"
#include "lib/util.h"

/*
 * Blocks until every informer of s (started) has synced: 0.  Else -1
 * with err: the refusal that ended an informer's list cycle (a streaming
 * list's refusal alone does not: its LIST, which RBAC may allow, comes
 * next), why one stopped, or, once timeout_ms (0: never) has passed,
 * "the R informer did not sync within Ns" and its last error.
 */
int oneshot_wait_synced(struct session *s, int64_t timeout_ms, struct errbuf *err);

#endif

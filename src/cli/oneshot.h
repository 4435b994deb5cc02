/*
 * oneshot.h — how the commands that answer once from informers (get
 * --from-cache, verify) wait for them to sync.
 *
 * An informer retries a refusal (400, 401, 403, 404) for ever, as
 * client-go's Run does (informer/reflector.h), and watch and tui let it:
 * events flow once RBAC is granted or the CRD installed.  A command that
 * answers once does not wait for that: the first list cycle that ends
 * refused is that informer's answer, its message without the promise of
 * a retry, as kubectl's get tells a type's refused LIST and goes on with
 * the other types (and as it ends itself when discovery meets the
 * refusal first, with no discovery cache).
 */
#ifndef KINF_ONESHOT_H
#define KINF_ONESHOT_H

#include <stdint.h>

#include "informer/session.h"
#include "lib/util.h"

/*
 * Blocks until every informer of s (started) has synced, or had its
 * list cycle refused (a streaming list's refusal alone is not one: its
 * LIST, which RBAC may allow, comes next): 0, with *refused an array of
 * s->nr, NULL where the informer synced, its refusal's message where it
 * was refused (oneshot_refusals_free() frees them).  Else -1 with err:
 * why one stopped, or, once timeout_ms (0: never) has passed, "the R
 * informer did not sync within Ns" and its last error.
 */
int oneshot_wait_settled(struct session *s, int64_t timeout_ms, char ***refused,
			 struct errbuf *err);
/* Frees oneshot_wait_settled()'s refusals, nr of them (NULL: none). */
void oneshot_refusals_free(char **refused, size_t nr);
/* The same, where a refusal fails the wait too: -1 with the first one's message. */
int oneshot_wait_synced(struct session *s, int64_t timeout_ms, struct errbuf *err);

#endif

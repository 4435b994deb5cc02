/*
 * ratelimit.h — how long a failed item waits before it is queued again:
 * client-go's DefaultTypedControllerRateLimiter, the worse of two limits.
 *
 *   exponential  per item: base * 2^failures, capped at max (client-go's
 *                ItemExponentialFailureRateLimiter; the default 5 ms to
 *                1000 s).  When() counts one more failure; Forget() wipes
 *                the count; NumRequeues() reads it.
 *   bucket       for every item together: lib's token_bucket (client-go's
 *                BucketRateLimiter over golang.org/x/time/rate, the
 *                default 10 qps, burst 100); each When() takes a token.
 *   MaxOf        asks both (each counts the call) and answers the longer.
 *
 * Follows client-go v0.36.2 (kubernetes v1.36.2) util/workqueue
 * default_rate_limiters.go: TypedItemExponentialFailureRateLimiter.When,
 * Forget and NumRequeues, TypedBucketRateLimiter.When (rate.Limiter's
 * Reserve().Delay()) and TypedMaxOfRateLimiter.When.
 *
 * Time is the caller's: every call takes now, in ms on the simulation's
 * clock, and answers a delay in ms (rounded up to a whole ms, where
 * Go keeps nanoseconds), so that the same calls give the same delays.
 *
 * Ownership: keys are copied.  Single-threaded: the owner serialises.
 */
#ifndef KINF_RATELIMIT_H
#define KINF_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/hashmap.h"
#include "lib/token_bucket.h"

struct ratelimit {
	struct hashmap failures;	/* the exponential limit's: key (owned) -> an unsigned count */
	struct token_bucket bucket;
	bool with_bucket;
};

/*
 * with_bucket: DefaultTypedControllerRateLimiter, exponential 5 ms..1000 s
 * and the bucket 10/100; else the exponential limit alone (what
 * controller-runtime v0.23+ gives its priority queue).
 */
void ratelimit_init(struct ratelimit *rl, bool with_bucket);
void ratelimit_release(struct ratelimit *rl);
int64_t ratelimit_when(struct ratelimit *rl, const char *key, int64_t now);
/* Forget reaches the exponential limit only: the bucket keeps no items. */
void ratelimit_forget(struct ratelimit *rl, const char *key);
unsigned ratelimit_num_requeues(const struct ratelimit *rl, const char *key);

#endif

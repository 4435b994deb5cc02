/*
 * token_bucket.h — golang.org/x/time/rate's Limiter as client-go uses it
 * (flowcontrol's token bucket behind rest.Config's QPS and Burst, and
 * workqueue's BucketRateLimiter): qps tokens a second, at most burst,
 * full at first.  A take reserves one token and answers how long the
 * bucket needs to refill what was taken beyond it: the wait before the
 * reservation may be used (rate.Limiter's Reserve().Delay(), as Wait
 * sleeps it).  Reservations are never given back.  A take may be
 * bounded: one that would have to wait longer than max_wait_ms takes
 * nothing and answers -1, as Wait fails at once, with no token spent,
 * when the wait would pass its context's deadline.
 *
 * Time is the caller's, in ms, and so is the delay (rounded up to a
 * whole ms, where Go keeps nanoseconds), so that the same calls give the
 * same delays.  Single-threaded: the owner serialises.
 */
#ifndef KINF_TOKEN_BUCKET_H
#define KINF_TOKEN_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

struct token_bucket {
	double qps, burst;
	double tokens;
	int64_t last_ms;
	bool started;		/* the first take finds the bucket full */
};

#define TOKEN_BUCKET_INIT(qps_, burst_) { .qps = (qps_), .burst = (burst_) }

/* The wait before the token taken may be used; -1: none taken (max_wait_ms < 0: no bound). */
int64_t token_bucket_take(struct token_bucket *b, int64_t now_ms, int64_t max_wait_ms);

#endif

/*
 * stop.h — a stop request that threads sleep on.
 *
 * A thread that must wait (backoff, Retry-After, the resync period)
 * sleeps with stop_sleep(), which returns early the moment stop_request()
 * is called from any thread.  `flag` is also handed to libcurl's progress
 * callback (stream_opts.stop) so a transfer in progress ends at once, and
 * stop_fd() becomes readable, so a thread asleep in poll() (libcurl's
 * curl_multi_poll) wakes for it.  No polling: waits are condition-variable
 * timeouts on CLOCK_MONOTONIC (cond_wait_until()), or poll() on that fd.
 */
#ifndef KINF_STOP_H
#define KINF_STOP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct stop {
	atomic_bool flag;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int pipe[2];		/* [0] readable once stop was requested */
};

void stop_init(struct stop *s);
void stop_destroy(struct stop *s);
void stop_request(struct stop *s);
static inline bool stop_requested(struct stop *s)
{
	return atomic_load(&s->flag);
}
/* Sleeps up to ms; returns true when stop was requested. */
bool stop_sleep(struct stop *s, int64_t ms);
/* Readable once stop_request() was called (never drained). */
static inline int stop_fd(const struct stop *s)
{
	return s->pipe[0];
}

#endif

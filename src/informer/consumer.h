/*
 * consumer.h — the loop of the thread that consumes a session's
 * informers: `kinf watch`'s main thread and the TUI's terminal thread.
 * One path for the jobs both have:
 *
 *   - the self-pipe the signal handlers write to, so that signals are
 *     handled in the loop, outside signal context;
 *   - one listener per informer, drained in order into ops->notify;
 *   - the checks of each cache against a quorum LIST
 *     (informer/verify_check.h): asked for with consumer_verify() (the
 *     TUI's `V`) or every verify_every_ms (--verify-every).  The LIST runs
 *     on a worker thread (lib/worker.h), one at a time, so the loop never
 *     waits for the server; the wait for the informer to catch up is
 *     looked at every CONSUMER_LAG_POLL_MS; the report goes to
 *     ops->verified;
 *   - other slow jobs of the caller's (the TUI's discovery for `:`) on the
 *     same worker, handed back to ops->job_done;
 *   - the flight recorder's triggers (informer/flight.h) that an informer's
 *     notifications and the checks' reports show: a check that found a
 *     divergence (with its keys), a relist that changed, added or deleted
 *     keys, a resourceVersion that went back, a watch error, each when
 *     dump_on has it.  Writing the dump, once due, is the caller's.
 *
 * The caller owns the poll(): consumer_fds() fills in the fds the consumer
 * needs, consumer_next_ms() caps the sleep, consumer_dispatch() handles
 * what woke it.
 *
 * Threads: every function here is for the one thread that consumes (the
 * callbacks run on it too); the worker runs only the LIST and the
 * caller's job->run().  While a job runs, the session's arrays must not
 * change (no session_add()): the TUI adds an informer only from
 * ops->job_done, when the worker is idle.
 */
#ifndef KINF_CONSUMER_H
#define KINF_CONSUMER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "informer/flight.h"
#include "informer/informer.h"
#include "informer/metrics.h"
#include "informer/session.h"
#include "informer/verify.h"
#include "lib/worker.h"

#define CONSUMER_LAG_POLL_MS 50

struct consumer_ops {
	/*
	 * Listener i's next notification, which the callee takes over.  0 to
	 * go on; anything else ends that drain and is returned by it (the
	 * rest of the batch is released unseen).
	 */
	int (*notify)(void *ctx, size_t i, struct notification *n);
	/*
	 * A check of informer i ended: its report (released by the consumer
	 * after), or r NULL and why it could not be made.  A negative return
	 * is returned by consumer_dispatch().
	 */
	int (*verified)(void *ctx, size_t i, const struct verify_report *r, const char *why);
	/* A job of consumer_submit() finished; the callee frees it.  May be NULL. */
	void (*job_done)(void *ctx, struct worker_job *job);
};

struct consumer_check;

struct consumer {
	/* Set by the caller before consumer_init(). */
	struct session *session;
	const struct consumer_ops *ops;
	void *ctx;
	int64_t resync_ms;		/* each listener's resync period; 0: none */
	bool bookmarks;			/* listeners get NOTIFY_BOOKMARK too */
	size_t drain_max;		/* notifications per listener per drain; 0: all */
	int64_t verify_every_ms;	/* 0: only consumer_verify() */
	int64_t verify_lag_ms;		/* how long a check waits for the informer */
	/* --metrics: fed every notification and report, ticked; NULL: none. */
	struct metrics *metrics;
	/* The flight recorder (borrowed), or NULL; dump_on: an enum dump_on mask. */
	struct flight *flight;
	unsigned dump_on;

	/* Private. */
	size_t nr;
	struct listener **listeners;
	struct consumer_check *checks;
	struct worker *worker;
	struct worker_job *queued;	/* a consumer_submit() job waiting for the worker */
	size_t listing;			/* the check whose LIST is on the worker */
	bool job_running;		/* a consumer_submit() job on the worker */
	bool job_cancelled;		/* ... and consumer_cancel() gave up on it */
};

/*
 * Adds a listener to each informer of the session (before or after it
 * started) and starts the worker.  consumer_release() stops the worker
 * (cancelling what it runs); the listeners stay the informers'.
 */
void consumer_init(struct consumer *c);
void consumer_release(struct consumer *c);
/* The session gained informers (session_add()): a listener each. */
void consumer_grow(struct consumer *c);
/* The number of fds consumer_fds() fills in: the worker's, then one a listener. */
static inline size_t consumer_nfds(const struct consumer *c)
{
	return 1 + c->nr;
}
void consumer_fds(struct consumer *c, struct pollfd *fds);
/*
 * After poll(), with the fds consumer_fds() filled: takes a finished job,
 * drains the listeners that woke, and moves the checks on.  Returns 0, or
 * the first nonzero value a drain or ops->verified gave.
 */
int consumer_dispatch(struct consumer *c, const struct pollfd *fds);
/* ms until consumer_dispatch() has something to do by the clock; -1: none. */
int64_t consumer_next_ms(const struct consumer *c);

/*
 * A check of informer i now (`V`).  -1 with err when one is under way or
 * the informer has not synced; 0 when queued (it starts once the worker is
 * free).
 */
int consumer_verify(struct consumer *c, size_t i, struct errbuf *err);
/* Informer i's check is under way (queued, listing or waiting). */
bool consumer_verifying(const struct consumer *c, size_t i);
/*
 * Runs job on the worker once it is free; -1 when a job of the caller's is
 * already queued or running.  ops->job_done gets it back.
 */
int consumer_submit(struct consumer *c, struct worker_job *job);
/*
 * A job of the caller's is queued or on the worker (a cancelled one
 * included, until it has returned: it may still be using what it was
 * given).
 */
bool consumer_job_pending(const struct consumer *c);
/*
 * Gives up on everything under way: every check, and the caller's job
 * (freed, never handed back).  Returns whether there was any.  Never
 * blocks: a LIST or job on the worker is stopped, and dropped when it
 * returns.
 */
bool consumer_cancel(struct consumer *c);

/*
 * The self-pipe: handlers for signals[] (with sigaction's sa_flags) that
 * write the signal's number to it; returns its read end.  Once per
 * process; consumer_signals_restore() puts the old handlers back.
 * consumer_signal_next() reads the next signal that arrived (0: none).
 */
int consumer_signals_install(const int *signals, size_t nr, int sa_flags);
void consumer_signals_restore(void);
int consumer_signal_next(void);

#endif

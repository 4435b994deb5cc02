/*
 * watch_loop.h — the main thread's loop for `kinf watch`: sleep in poll()
 * on every listener's wake-up fd and on a self-pipe fed by SIGINT/SIGTERM,
 * drain, filter, print.  Ends on a signal, --timeout, --max-deltas,
 * when stdout is closed (a reader like `head` went away: status 0), or
 * at the end of a replay.
 *
 * With verify_every_ms, each informer's cache is checked against the
 * server that often (informer/consumer.h): neither the LIST, which runs
 * on a worker thread, nor the wait for the informer to catch up blocks
 * the loop (it goes on printing).  Reports go through printer_verify().
 */
#ifndef KINF_WATCH_LOOP_H
#define KINF_WATCH_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct session;
struct printer;
struct metrics;
struct notification;

/*
 * A consumer beside the printer (watch --controller): note() is handed
 * every object notification, printed or filtered out, before it is
 * released; tick() runs after each wake-up; wait_ms() bounds the sleep
 * (-1: no bound).  All on the loop's thread.
 */
struct verify_report;
struct watch_hook {
	void (*note)(void *ctx, const struct notification *n);
	/* informer i's --verify-every check ended with r; NULL: not wanted */
	void (*verified)(void *ctx, size_t i, const struct verify_report *r);
	void (*tick)(void *ctx);
	int64_t (*wait_ms)(void *ctx);
	void *ctx;
};
struct flight;

struct watch_loop {
	struct session *session;
	struct printer *printer;
	unsigned types;		/* mask of 1 << delta_type; 0: all */
	bool watch_only;	/* hide the initial list's deltas */
	bool hide_unchanged;	/* hide resync-only updates (RV unchanged) */
	long max_deltas;	/* 0: no limit */
	int64_t timeout_ms;	/* 0: none */
	/* When the --timeout began (mono_ms()), if before the loop; 0: at its start. */
	int64_t timeout_from_ms;
	int64_t resync_ms;	/* the listener's resync period; 0: none */
	int64_t verify_every_ms;	/* 0: no checks */
	int64_t verify_lag_ms;		/* how long a check waits for the informer */
	int64_t health_every_ms;	/* printer_health() this often; 0: never */
	struct metrics *metrics;	/* --metrics: the consumer feeds it; NULL: none */
	/*
	 * The NAME watched, or NULL.  When the informer syncs without it, a
	 * notice says so once (on notices: stderr, or NULL with -q).
	 */
	const char *name;
	/* Only the deltas of this key ("ns/name"); NULL: every key. */
	const char *key;
	/*
	 * Readable when nothing more will come (a replay's end): the loop
	 * ends, status 0, once every queue is empty and printed.  0: none.
	 */
	int done_fd;
	const struct watch_hook *hook;	/* NULL: none */
	/*
	 * The flight recorder (informer/flight.h), or NULL: the triggers of
	 * dump_on (an enum dump_on mask, cli/flight_flags.h) and SIGUSR1
	 * make it dump; the loop writes the dump when its tail has passed,
	 * and at its end one still due, saying where on stderr (and with
	 * --events as a FlightDump record).
	 */
	struct flight *flight;
	unsigned dump_on;
	FILE *notices;
	long printed;
	bool name_checked;	/* the notice about name was considered */
};

/*
 * Adds a listener to each informer, starts them, and prints until done.
 * Returns the exit status: 0, 1, or 128 + the signal that ended it.  1
 * also when --timeout finds an informer not synced, or --max-deltas one
 * that never completed a list (a line for each on stderr).
 */
int watch_loop_run(struct watch_loop *loop);

#endif

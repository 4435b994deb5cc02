/*
 * controller_flags.h — `--controller` and the flags that shape the
 * simulated controller (controller/controller.h), shared by watch and
 * replay; and the watch loop's hook that feeds it and prints its records.
 *
 * Threads: everything runs on the thread that owns stdout (the watch
 * loop's).
 */
#ifndef KINF_CONTROLLER_FLAGS_H
#define KINF_CONTROLLER_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/watch_loop.h"
#include "lib/opt.h"
#include "lib/strbuf.h"

struct controller_flags {
	bool enabled;
	long workers;			/* 0: not given (1) */
	const char *reconcile_time;	/* "1s", "50ms..500ms" */
	int64_t requeue_after_ms;
	const char *error_rate;		/* "0.1" */
	long seed;
	const char *predicate;		/* For()'s */
	const char *owns_predicate;	/* Owns()' */
	const char *event_filter;	/* WithEventFilter: every source's */
	const char *enqueue_owner;
	const char *runtime;		/* --controller-runtime VERSION */
	const char *timeline;		/* --timeline FILE */
	struct strbuf outcomes;		/* --reconcile-outcome, ','-joined */
};
extern struct controller_flags controller_flags;
extern const struct option controller_flag_options[];

/* A running simulation, wired to a watch loop and its printer. */
struct controller_run;

/*
 * With --controller: checks the flags (usage errors of cmd exit) and
 * makes the simulation, loop's hook (it sets loop->hook); NULL without
 * --controller.  It takes from loop (borrowed, outlives the run):
 * - the session, whose informers are the controller's sources (the
 *   workers start once all have synced), and the one of the owner kind
 *   gives a KIND without a group its group;
 * - the printer, for its records;
 * - the flight recorder (informer/flight.h), or NULL: a Reconcile that
 *   starts with states no Reconcile read (unseen) triggers a dump,
 *   reason controller-unseen when it finds the object gone and dump_on
 *   has DUMP_ON_CONTROLLER_UNSEEN, else controller-coalesced when it has
 *   DUMP_ON_CONTROLLER_COALESCED;
 * - --metrics (informer/metrics.h), or NULL: the workqueue's figures are
 *   published there once a second, as the first informer's (the
 *   controller's For());
 * - --key: only the records of key (the request's, or the object's an
 *   event was for) are printed; the controller still sees every delta,
 *   and the summary counts them all.  NULL: every record.
 * live: its clock is the machine's, and -v prints the summary every
 * 30 s; else (a replay) time is the recording's only.  base_ms: the wall
 * time at clock 0, for the records' times.
 */
struct controller_run *controller_run_new(const struct command *cmd, struct watch_loop *loop,
					  bool live, int64_t base_ms, bool verbose);
/* Checks the flags (usage errors of cmd exit), before anything connects. */
void controller_flags_check(const struct command *cmd);
/*
 * With --controller: checks the flags (usage errors of cmd exit) and
 * fills o for a simulation the caller runs (the TUI's, one per tab:
 * it sets the clock, the records' sink and the sources); false without
 * --controller.  o's outcome script lives as long as the process.
 */
struct controller_opts;
bool controller_flags_opts(const struct command *cmd, struct controller_opts *o);
/* A replay's base_ms: the recording's "started" (RFC 3339), 0 if unreadable. */
int64_t controller_base_ms(const char *started);
/*
 * At the end: drains a replay's work, prints what was never reconciled
 * and the summary, and closes --timeline's file (-1: it could not be
 * written, said on stderr).
 */
int controller_run_finish(struct controller_run *run);
void controller_run_free(struct controller_run *run);	/* NULL: no-op */

#endif

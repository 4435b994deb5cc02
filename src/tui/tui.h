/*
 * tui.h — the live terminal UI (`kinf tui`, `kinf watch --tui`): the
 * Indexer as a table, the delta stream and the informer's health, one
 * tab per resource.
 *
 * tui_run() takes a session that is open but not started: it adds one
 * listener per informer, starts the session and runs until the user quits
 * or a signal (SIGINT, SIGTERM, SIGHUP) arrives.  It owns the terminal
 * for that time and gives it back restored on every way out, die()
 * included (through set_die_hook).  The caller closes the session, which
 * may by then hold more informers than it was opened with: `:` adds one
 * per resource named (session_add).
 *
 * Not thread-safe, and not reentrant: one TUI per process.
 */
#ifndef KINF_TUI_H
#define KINF_TUI_H

#include <stddef.h>
#include <stdint.h>

struct controller_opts;
struct crd_columns;
struct metrics;
struct session;

struct tui_opts {
	/* The TUI listener's resync period (0: only `r` resyncs). */
	int64_t resync_ms;
	/* States kept per object for the detail view's steps (HIST_STATES). */
	unsigned hist_states;
	/* Bytes all objects' histories may hold (0: HIST_BUDGET_DEFAULT). */
	size_t hist_budget;
	/* Check each tab's cache against the server this often, as V; 0: only V. */
	int64_t verify_every_ms;
	/* --metrics: the consumer feeds it (borrowed; NULL: none). */
	struct metrics *metrics;
	/*
	 * Custom resources' columns for the tables (borrowed; NULL: none).
	 * The TUI teaches it the columns of each resource `:` adds.
	 */
	struct crd_columns *crds;
	/*
	 * The flight recorder (informer/flight.h; borrowed), or NULL: `D`,
	 * and the triggers of dump_on (an enum dump_on mask) as the consumer
	 * finds them, make a dump, written once its tail has passed; the
	 * status line says where.  One still due at the end is the caller's
	 * to write.
	 */
	struct flight *flight;
	/*
	 * --controller (borrowed; NULL: none): each tab runs a simulated
	 * controller with these options on its notifications, shown by `w`
	 * (tui_view.h, tui_controller.c); the clock and the records' sink
	 * are the TUI's.
	 */
	const struct controller_opts *controller;
	unsigned dump_on;
};

/*
 * Returns the process exit status: 0 after `q`, 1 when the terminal is
 * unusable or the session fails to start (reported on stderr), 130 after
 * SIGINT, 143 after SIGTERM.
 */
int tui_run(struct session *s, const struct tui_opts *opts);

#endif

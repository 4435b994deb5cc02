/*
 * flight_flags.h — `kinf watch --flight-recorder` and its flags: one
 * option table (included in watch's), the checks of what was given, and
 * the flight recorder (informer/flight.h) they ask for.
 */
#ifndef KINF_FLIGHT_FLAGS_H
#define KINF_FLIGHT_FLAGS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "informer/flight.h"
#include "lib/opt.h"

struct recording_info;

struct flight_flags {
	int64_t window_ms;	/* --flight-recorder; 0: none */
	int64_t tail_ms;	/* -1: not given */
	const char *size, *dir, *dump_on;
	long keep;		/* -1: not given */
	unsigned dump_mask;	/* --dump-on, checked: an enum dump_on mask */
	size_t budget;		/* --flight-recorder-size, checked */
};

extern struct flight_flags flight_flags;
/* --flight-recorder, --flight-recorder-size, --flight-tail, --flight-dir, ... */
extern const struct option flight_options[];
/* --dump-on's triggers, in the order of enum dump_on; NULL-terminated. */
extern const char *const flight_dump_on_names[];

/*
 * Checks the flags right after opt_parse(), before anything starts: a
 * bad value, or a --flight-dir kinf cannot write in, is a usage error of
 * cmd (exit 2).  A flight flag without --flight-recorder is one too, and
 * so is --dump-on controller-unseen without --controller (controller:
 * whether it was given).
 */
void flight_flags_check(const struct command *cmd, bool controller);
/*
 * The flight recorder asked for (info: borrowed, outlives it), tapping
 * session's client and taking its informers' checkpoints, or NULL:
 * none.  Before session_start(); freed after session_close().
 */
struct session;
struct flight *flight_flags_open(struct session *session, const struct recording_info *info);
/*
 * After the TUI: a dump still due is written now, and one being written
 * ended; each said where on stderr.
 */
void flight_flags_finish(struct flight *flight);

#endif

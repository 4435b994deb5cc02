/*
 * flight_flags.c — the flight recorder's flags.  See the header.
 */
#include "cli/flight_flags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cluster/http.h"
#include "cluster/recording.h"
#include "informer/informer.h"
#include "informer/session.h"

/* The recorder's working room within --flight-recorder-size (a quarter of it, if less). */
#define FLIGHT_ROOM ((size_t)16 << 20)

struct flight_flags flight_flags = { .tail_ms = -1, .keep = -1 };

const struct option flight_options[] = {
	OPT_DURATION(0, "flight-recorder", &flight_flags.window_ms,
		     "keep what the server sent over the last DURATION in memory, "
		     "and write it for kinf replay when something goes wrong"),
	OPT_STRING(0, "flight-recorder-size", &flight_flags.size, "SIZE",
		   "the flight recorder's memory, compressed (default 256Mi)", COMPLETE_NONE),
	OPT_DURATION(0, "flight-tail", &flight_flags.tail_ms,
		     "what comes after a trigger that a dump holds too (default 30s)"),
	OPT_STRING(0, "flight-dir", &flight_flags.dir, "DIR",
		   "write the dumps here (default: the current directory)", COMPLETE_FILE),
	OPT_INT(0, "flight-keep", &flight_flags.keep, "N",
		"keep at most N dumps in --flight-dir, removing the oldest (default 20)"),
	OPT_STRING(0, "dump-on", &flight_flags.dump_on, "TRIGGERS",
		   "what writes a dump: verify, relist, rv-regression, watch-error, "
		   "controller-unseen (needs --controller: states no Reconcile read, of an "
		   "object gone), controller-coalesced (any state no Reconcile read) "
		   "(default verify,relist,rv-regression)", COMPLETE_DUMP_ON),
	OPT_END(),
};

const char *const flight_dump_on_names[] = {
	"verify", "relist", "rv-regression", "watch-error", "controller-unseen",
	"controller-coalesced", NULL,
};

/* --dump-on's comma list into a mask; -1 with *bad (static) on a name it lacks. */
static int parse_dump_on(const char *list, unsigned *mask, const char **bad)
{
	static char name[64];

	*mask = 0;
	while (*list) {
		size_t n = strcspn(list, ",");
		int k = 0;
		snprintf(name, sizeof(name), "%.*s", (int)n, list);
		while (flight_dump_on_names[k] && strcmp(flight_dump_on_names[k], name))
			k++;
		if (!flight_dump_on_names[k]) {
			*bad = name;
			return -1;
		}
		*mask |= 1u << k;
		list += n + (list[n] == ',');
	}
	return 0;
}

void flight_flags_check(const struct command *cmd, bool controller)
{
	struct flight_flags *f = &flight_flags;
	struct errbuf err = { "" };
	const char *bad;

	if (!f->window_ms) {
		if (f->size || f->dir || f->dump_on || f->keep >= 0 || f->tail_ms >= 0)
			usage_error(cmd, "the --flight-* and --dump-on flags need --flight-recorder");
		return;
	}
	if (f->window_ms < 0)
		usage_error(cmd, "invalid value for '--flight-recorder': expected a duration above 0");
	f->budget = 256u << 20;
	if (f->size && parse_size(f->size, &f->budget) < 0)
		usage_error(cmd, "invalid value '%s' for '--flight-recorder-size': "
			    "expected a size, e.g. 64Mi or 1G", f->size);
	f->dump_mask = DUMP_ON_DEFAULT;
	if (f->dump_on && parse_dump_on(f->dump_on, &f->dump_mask, &bad) < 0)
		usage_error(cmd, "unknown trigger '%s' in --dump-on (verify, relist, "
			    "rv-regression, watch-error, controller-unseen, "
			    "controller-coalesced)", bad);
	/* it would never fire: said now rather than waited for in vain */
	if ((f->dump_mask & DUMP_ON_CONTROLLER_UNSEEN) && !controller)
		usage_error(cmd, "--dump-on controller-unseen needs --controller");
	if ((f->dump_mask & DUMP_ON_CONTROLLER_COALESCED) && !controller)
		usage_error(cmd, "--dump-on controller-coalesced needs --controller");
	if (f->keep == -1)
		f->keep = 20;
	if (f->keep < 0)
		usage_error(cmd, "invalid value for '--flight-keep': expected 0 or more");
	if (f->tail_ms < 0)
		f->tail_ms = 30000;
	if (!f->dir)
		f->dir = ".";
	if (flight_check_dir(f->dir, &err) < 0)
		usage_error(cmd, "%s", err.msg);
}

struct flight *flight_flags_open(struct session *session, const struct recording_info *info)
{
	if (!flight_flags.window_ms)
		return NULL;
	/*
	 * --flight-recorder-size bounds the recorder's memory, not only what
	 * it keeps: its zstd context, the segment being filled and the
	 * allocator's slack between freed
	 * segments took up to 15 MiB at 64Mi in `make flight-soak`.  So what
	 * it keeps is held within the size less that room.
	 */
	size_t room = flight_flags.budget / 4 < FLIGHT_ROOM ? flight_flags.budget / 4 : FLIGHT_ROOM;
	struct flight_opts fo = {
		.window_ms = flight_flags.window_ms,
		.budget = flight_flags.budget - room,
		.tail_ms = flight_flags.tail_ms,
		.dir = flight_flags.dir,
		.keep = (unsigned)flight_flags.keep,
		.info = info,
	};
	struct errbuf err = { "" };
	struct flight *f = flight_new(&fo, &err);
	if (!f)
		die("%s", err.msg);
	kclient_set_tap(session->cluster.client, &flight_tap, f);
	session_set_checkpoints(session, &flight_checkpoints, f);
	return f;
}

void flight_flags_finish(struct flight *flight)
{
	struct errbuf err = { "" };
	char *path, *reason;
	int rc;

	while (flight && (rc = flight_dump_due(flight, true, &path, &reason, &err))) {
		if (rc < 0) {
			warning("flight recorder: %s", err.msg);
			continue;
		}
		fprintf(stderr, "kinf: flight recorder: %s: wrote '%s'\n", reason, path);
		free(path);
		free(reason);
	}
}

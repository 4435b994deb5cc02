/*
 * cmd_tui.c — `kinf tui RESOURCE[,RESOURCE...]`: the informers of the
 * named resources, live in the terminal (see tui.h).
 */
#include <stdio.h>

#include "cluster/cluster.h"
#include "cluster/http.h"
#include "cluster/recording.h"
#include "controller/controller.h"
#include "cli/cmd.h"
#include "cli/controller_flags.h"
#include "cli/flight_flags.h"
#include "cli/informer_flags.h"
#include "cli/metrics_flag.h"
#include "informer/session.h"
#include "output/columns.h"
#include "output/printer_columns.h"
#include "tui/tui.h"
#include "tui/tui_model.h"

static long history = HIST_STATES;
static const char *history_size;
static int64_t verify_every_ms;

static const struct option tui_options[] = {
	OPT_INT(0, "history", &history, "N",
		"keep the last N states of each object, to step through in the detail view (default 8; 0: none, nor the last update's change)"),
	OPT_STRING(0, "history-size", &history_size, "SIZE",
		   "bytes all objects' histories may hold, their deltas and states; the oldest go first (default 8Mi, at least 64Ki)", COMPLETE_NONE),
	OPT_DURATION(0, "verify-every", &verify_every_ms,
		     "check each tab's cache against a LIST from the server this often, as V does"),
	OPT_INCLUDE(controller_flag_options),
	OPT_INCLUDE(metrics_flag_options),
	OPT_INCLUDE(flight_options),
	OPT_INCLUDE(informer_flag_options),
	OPT_INCLUDE(cluster_options),
	OPT_END(),
};

static int run_tui(int argc, const char **argv)
{
	struct errbuf err = { "" };
	struct session s;
	struct metrics_server ms;
	struct controller_opts co;

	argc = opt_parse(&command_tui, argc, argv);
	if (argc < 1)
		usage_error(&command_tui, "no resource type given, e.g. 'kinf tui pods'");
	if (argc > 1)
		usage_error(&command_tui, "unexpected argument '%s'", argv[1]);
	if (history > HIST_MAX)
		usage_error(&command_tui, "--history %ld: at most %d states are kept", history, HIST_MAX);
	size_t hist_budget = HIST_BUDGET_DEFAULT;
	if (history_size && (parse_size(history_size, &hist_budget) < 0 || hist_budget < HIST_BUDGET_MIN))
		usage_error(&command_tui, "invalid value '%s' for '--history-size': "
			    "expected a size of at least 64Ki, e.g. 8Mi", history_size);
	bool controller = controller_flags_opts(&command_tui, &co);
	flight_flags_check(&command_tui, controller_flags.enabled);
	metrics_flag_start(&command_tui, &ms);	/* a busy port: exit 2 here */

	struct session_opts so = informer_flags_session(&command_tui, argv[0], NULL);
	if (informer_flags_open(&s, &so, 0, false, NULL, &err) < 0) {
		error("%s", err.msg);
		metrics_flag_stop(&ms);
		return 1;
	}
	struct recording_info info;
	informer_flags_recording_info(&s, &so, &info);
	struct flight *flight = flight_flags_open(&s, &info);
	struct tui_opts to = { .resync_ms = informer_flags.resync_ms,
			       .hist_states = (unsigned)history,
			       .hist_budget = hist_budget,
			       .verify_every_ms = verify_every_ms,
			       .metrics = ms.metrics,
			       .controller = controller ? &co : NULL,
			       .crds = crd_columns_new(),
			       .flight = flight, .dump_on = flight_flags.dump_mask };
	printer_columns_load(to.crds, &s.cluster, s.resources, s.nr);
	int ret = tui_run(&s, &to);
	flight_flags_finish(flight);
	session_close(&s);	/* the informers feed the flight: gone before it goes */
	flight_free(flight);
	metrics_flag_stop(&ms);
	crd_columns_free(to.crds);
	return ret;
}

const struct command command_tui = {
	.name = "tui",
	.run = run_tui,
	.summary = "Show the informers live: cache, deltas, health",
	.usage = "kinf tui RESOURCE[,RESOURCE...] [options]",
	.description =
		"A terminal UI over one shared informer per resource (a tab each): the\n"
		"cache as a table updated as deltas arrive, the delta stream, and the\n"
		"informer's health (state, resourceVersion, lists, relists, 410s,\n"
		"errors, resyncs, FIFO depth).  Press ? for the keys.",
	.examples =
		"  kinf tui pods -n default\n"
		"  kinf tui pods,deployments -A --resync 30s\n",
	.options = tui_options,
	.positional = COMPLETE_RESOURCE,
};

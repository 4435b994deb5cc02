/*
 * cmd_tui.c — `kinf tui RESOURCE[,RESOURCE...]`: the informers of the
 * named resources, live in the terminal (see tui.h).
 */
#include <stdio.h>

#include "cluster.h"
#include "cmd.h"
#include "session.h"
#include "tui.h"

static const char *const fifo_names[] = { "delta", "real", NULL };

static struct {
	const char *label_selector, *field_selector;
	int fifo;
	int64_t resync_ms;
	bool keep_managed_fields, streaming_list;
	long chunk_size;
} o = { .chunk_size = -1 };

static const struct option tui_options[] = {
	OPT_STRING('l', "selector", &o.label_selector, "SELECTOR",
		   "label selector, e.g. app=web,tier!=db", COMPLETE_NONE),
	OPT_STRING(0, "field-selector", &o.field_selector, "SELECTOR",
		   "field selector, e.g. spec.nodeName=node-1", COMPLETE_NONE),
	OPT_ENUM(0, "fifo", &o.fifo, "KIND", fifo_names,
		 "the queue: client-go's DeltaFIFO or 1.36's RealFIFO"),
	OPT_DURATION(0, "resync", &o.resync_ms,
		     "resync period: Sync deltas for every cached object"),
	OPT_BOOL(0, "keep-managed-fields", &o.keep_managed_fields,
		 "keep metadata.managedFields (dropped by default)"),
	OPT_INT(0, "chunk-size", &o.chunk_size, "N",
		"objects per LIST page (default: 500, as client-go pages); 0: one response"),
	OPT_BOOL(0, "streaming-list", &o.streaming_list,
		 "list through a watch with sendInitialEvents (falls back to LIST)"),
	OPT_INCLUDE(cluster_options),
	OPT_END(),
};

static int run_tui(int argc, const char **argv)
{
	struct errbuf err = { "" };
	struct session s;

	argc = opt_parse(&command_tui, argc, argv);
	if (argc < 1)
		usage_error(&command_tui, "no resource type given, e.g. 'kinf tui pods'");
	if (argc > 1)
		usage_error(&command_tui, "unexpected argument '%s'", argv[1]);

	struct session_opts so = {
		.resources = argv[0],
		.label_selector = o.label_selector,
		.field_selector = o.field_selector,
		.fifo = o.fifo ? FIFO_REAL : FIFO_DELTA,
		.keep_managed_fields = o.keep_managed_fields,
		.resync_ms = o.resync_ms,
		.streaming_list = o.streaming_list,
		.page_size = session_page_size(o.chunk_size),
	};
	if (session_open(&s, &so, &err) < 0) {
		error("%s", err.msg);
		return 1;
	}
	struct tui_opts to = { .resync_ms = o.resync_ms };
	int ret = tui_run(&s, &to);
	session_close(&s);
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

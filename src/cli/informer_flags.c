/* informer_flags.c — the informer flags of watch and tui; see the header. */
#include "cli/informer_flags.h"

static const char *const fifo_names[] = { "delta", "real", NULL };

struct informer_flags informer_flags = { .chunk_size = -1 };

const struct option informer_flag_options[] = {
	OPT_STRING('l', "selector", &informer_flags.label_selector, "SELECTOR",
		   "label selector, e.g. app=web,tier!=db", COMPLETE_NONE),
	OPT_STRING(0, "field-selector", &informer_flags.field_selector, "SELECTOR",
		   "field selector, e.g. spec.nodeName=node-1", COMPLETE_NONE),
	OPT_DURATION(0, "resync", &informer_flags.resync_ms,
		     "resync period: Sync deltas for every cached object"),
	OPT_ENUM(0, "fifo", &informer_flags.fifo, "KIND", fifo_names,
		 "the queue: client-go's DeltaFIFO or 1.36's RealFIFO"),
	OPT_BOOL(0, "keep-managed-fields", &informer_flags.keep_managed_fields,
		 "keep metadata.managedFields (dropped by default)"),
	OPT_INT(0, "chunk-size", &informer_flags.chunk_size, "N",
		"objects per LIST page (default: 500, as client-go pages); 0: one response"),
	OPT_BOOL(0, "streaming-list", &informer_flags.streaming_list,
		 "list through a watch with sendInitialEvents (falls back to LIST)"),
	OPT_DURATION(0, "stall-timeout", &informer_flags.stall_ms,
		     "tear down a watch silent for this long (default 125s)"),
	OPT_END(),
};

struct session_opts informer_flags_session(const char *resources, const char *name)
{
	const struct informer_flags *f = &informer_flags;

	return (struct session_opts){
		.resources = resources,
		.name = name,
		.label_selector = f->label_selector,
		.field_selector = f->field_selector,
		.fifo = f->fifo ? FIFO_REAL : FIFO_DELTA,
		.keep_managed_fields = f->keep_managed_fields,
		.resync_ms = f->resync_ms,
		.streaming_list = f->streaming_list,
		.page_size = session_page_size(f->chunk_size),
		.stall_ms = f->stall_ms,
	};
}

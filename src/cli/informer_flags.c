/* informer_flags.c — the informer flags of watch and tui; see the header. */
#include "cli/informer_flags.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cmd.h"
#include "cluster/discovery.h"
#include "cluster/http.h"
#include "cluster/recording.h"
#include "lib/selector.h"

/* The reflector's backoff (informer/reflector.c), for a refused discovery. */
#define DISCOVERY_BACKOFF_MS 800
#define DISCOVERY_BACKOFF_CAP_MS 30000

const char *const informer_fifo_names[] = { "delta", "real", "atomic", NULL };

struct informer_flags informer_flags = { .chunk_size = -1, .fifo = -1 };

const struct option informer_flag_options[] = {
	OPT_STRING('l', "selector", &informer_flags.label_selector, "SELECTOR",
		   "label selector, e.g. app=web,tier!=db", COMPLETE_NONE),
	OPT_STRING(0, "field-selector", &informer_flags.field_selector, "SELECTOR",
		   "field selector, e.g. spec.nodeName=node-1", COMPLETE_NONE),
	OPT_DURATION(0, "resync", &informer_flags.resync_ms,
		     "resync period: Sync deltas for every cached object"),
	OPT_STRING(0, "client-go", &informer_flags.client_go, "VERSION",
		   "imitate this client-go (e.g. 1.28, 1.33, v0.35.1; default: the newest, 1.36)",
		   COMPLETE_CLIENT_GO),
	OPT_ENUM(0, "fifo", &informer_flags.fifo, "KIND", informer_fifo_names,
		 "override the queue: DeltaFIFO (<=1.32), RealFIFO (1.33-1.35), atomic (1.36)"),
	OPT_BOOL(0, "keep-managed-fields", &informer_flags.keep_managed_fields,
		 "keep metadata.managedFields (dropped by default)"),
	OPT_INT(0, "chunk-size", &informer_flags.chunk_size, "N",
		"objects per LIST page (default: 500, as client-go pages); 0: one response"),
	OPT_BOOL_SEEN(0, "streaming-list", &informer_flags.streaming_list,
		      &informer_flags.streaming_list_seen,
		      "override: list through a watch with sendInitialEvents (=false: LIST)"),
	OPT_DURATION(0, "stall-timeout", &informer_flags.stall_ms,
		     "warn when a watch has no event or bookmark this long (default 75s)"),
	OPT_DURATION(0, "renew-silent", &informer_flags.renew_ms,
		     "kinf's own, off by default: renew a watch silent this long (client-go never does)"),
	OPT_END(),
};

struct session_opts informer_flags_session(const struct command *cmd,
					   const char *resources, const char *name)
{
	const struct informer_flags *f = &informer_flags;
	const struct client_go_profile *profile = profile_default();

	if (f->client_go) {
		struct errbuf err = { "" };
		profile = profile_find(f->client_go, &err);
		if (!profile)
			usage_error(cmd, "%s", err.msg);
	}
	if (f->label_selector) {
		/* A usage error before any request, as kinf get tells it. */
		struct errbuf err = { "" };
		struct selector *sel = selector_parse(f->label_selector, &err);

		if (!sel)
			usage_error(cmd, "%s", err.msg);
		selector_free(sel);
	}
	return (struct session_opts){
		.resources = resources,
		.name = name,
		.label_selector = f->label_selector,
		.field_selector = f->field_selector,
		.profile = profile,
		.fifo_set = f->fifo >= 0,
		.fifo = f->fifo >= 0 ? (enum fifo_kind)f->fifo : FIFO_DELTA,
		.keep_managed_fields = f->keep_managed_fields,
		.resync_ms = f->resync_ms,
		.streaming_set = f->streaming_list_seen,
		.streaming_list = f->streaming_list,
		.page_size = session_page_size(f->chunk_size),
		.stall_ms = f->stall_ms,
		.renew_ms = f->renew_ms,
	};
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int informer_flags_open(struct session *s, const struct session_opts *so, int64_t timeout_ms,
			bool quiet, int64_t *waited_ms, struct errbuf *err)
{
	int64_t start = mono_ms(), backoff_ms = 0;
	long refused;

	if (waited_ms)
		*waited_ms = 0;
	while (session_open(s, so, &refused, err) < 0) {
		if (!refused)
			return -1;
		backoff_ms = backoff_ms ? backoff_ms * 2 : DISCOVERY_BACKOFF_MS;
		if (backoff_ms > DISCOVERY_BACKOFF_CAP_MS)
			backoff_ms = DISCOVERY_BACKOFF_CAP_MS;
		int64_t delay = backoff_ms + (int64_t)(rand_unit() * (double)backoff_ms);
		int64_t left = timeout_ms ? start + timeout_ms - mono_ms() : delay;
		if (left <= 0)
			return -1;
		if (delay > left)
			delay = left;
		if (!quiet) {
			fprintf(stderr, "kinf: error: %s; retrying as client-go's reflector retries "
				"a refusal\nkinf: backing off %.1fs: discovering again\n", err->msg,
				(double)delay / 1000);
			fflush(stderr);
		}
		sleep_ms(delay);
		if (waited_ms)
			*waited_ms = mono_ms() - start;
	}
	return 0;
}

void informer_flags_recording_info(struct session *s, const struct session_opts *so,
				   struct recording_info *info)
{
	const struct client_go_profile *prof = so->profile ? so->profile : profile_default();

	*info = (struct recording_info){
		.server = kclient_server(s->cluster.client),
		.ns = s->cluster.scope_ns,
		.client_go = prof->version,
		.fifo = fifo_kind_name(so->fifo_set ? so->fifo : prof->fifo),
		.streaming_list = so->streaming_set ? so->streaming_list : prof->streaming_list,
		.resources = s->resources,
		.nr = s->nr,
	};
	session_selectors(s, &info->label_selector, &info->field_selector);
}

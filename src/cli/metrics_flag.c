/*
 * metrics_flag.c — see metrics_flag.h.
 *
 * DESIGN (threads): the struct metrics made here is shared by the
 * consuming thread, which feeds it, and libmicrohttpd's thread, which
 * reads it (informer/metrics.c says who locks what).  So the server stops
 * before the figures are freed, and both after the consumer is gone.
 */
#include "cli/metrics_flag.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "lib/util.h"

static const char *metrics_flag_addr;

const struct option metrics_flag_options[] = {
	OPT_STRING(0, "metrics", &metrics_flag_addr, "ADDR",
		   "serve /metrics (Prometheus) and /healthz on ADDR: PORT (127.0.0.1), "
		   ":PORT (every interface), HOST:PORT",
		   COMPLETE_NONE),
	OPT_END(),
};

void metrics_flag_start(const struct command *cmd, struct metrics_server *ms)
{
	struct errbuf err = { "" };

	ms->metrics = NULL;
	ms->httpd = NULL;
	if (!metrics_flag_addr)
		return;
	ms->metrics = metrics_new();
	ms->httpd = httpd_new(metrics_flag_addr, metrics_serve, ms->metrics, &err);
	if (!ms->httpd) {
		metrics_free(ms->metrics);
		ms->metrics = NULL;
		usage_error(cmd, "--metrics: %s", err.msg);
	}
}

void metrics_flag_stop(struct metrics_server *ms)
{
	httpd_free(ms->httpd);	/* no request reads the figures after this */
	metrics_free(ms->metrics);
	ms->httpd = NULL;
	ms->metrics = NULL;
}

/*
 * metrics_flag.h — `--metrics ADDR` for the commands that run informers
 * for long (watch and tui): the canary's HTTP server, serving /metrics and
 * /healthz (informer/metrics.h) on libmicrohttpd's thread (lib/httpd.h).
 */
#ifndef KINF_METRICS_FLAG_H
#define KINF_METRICS_FLAG_H

#include "informer/metrics.h"
#include "lib/httpd.h"
#include "lib/opt.h"

extern const struct option metrics_flag_options[];

struct metrics_server {
	struct metrics *metrics;	/* NULL without --metrics */
	struct httpd *httpd;
};

/*
 * With --metrics, binds ADDR and serves; the caller hands ms->metrics to
 * its consumer.  A bad address or a port in use ends the process with
 * one line and status 2, so call it before anything starts.
 */
void metrics_flag_start(const struct command *cmd, struct metrics_server *ms);
/* Stops the server, then frees the figures. */
void metrics_flag_stop(struct metrics_server *ms);

#endif

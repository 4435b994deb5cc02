/*
 * cmd_verify.c — `kinf verify RESOURCE`: syncs an informer, LISTs the
 * server (a quorum read), waits until the informer has seen as far as
 * that list, and reports the keys its cache is missing, holds in excess,
 * or holds at an older resourceVersion (informer/verify_check.h does the work,
 * informer/verify.h the comparison).  Exit 0 equal, 3 divergent.
 *
 * A freshly synced informer disagrees with the server only when the
 * server's watch disagrees with its lists; the check earns its keep on a
 * long-running informer, which `kinf watch --verify-every` checks the same
 * way.
 *
 * DESIGN (threads): the informer runs its own threads; this, the main
 * thread, drains the one listener, waits and prints.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/informer_flags.h"
#include "cli/oneshot.h"
#include "informer/verify_check.h"
#include "cluster/discovery.h"
#include "informer/informer.h"
#include "informer/session.h"
#include "lib/strbuf.h"
#include "output/verify_report.h"

static const char *const output_names[] = { "text", "json", NULL };
enum { OUT_TEXT, OUT_JSON };

static struct {
	int output;
	int64_t lag_wait_ms, sync_timeout_ms;
} o = { .lag_wait_ms = 10000, .sync_timeout_ms = 60000 };

static const struct option verify_options[] = {
	OPT_ENUM('o', "output", &o.output, "FORMAT", output_names,
		 "the report as text (default) or as one JSON object"),
	OPT_DURATION(0, "lag-wait", &o.lag_wait_ms,
		     "wait this long for the informer to reach the server's list (default 10s)"),
	OPT_DURATION(0, "sync-timeout", &o.sync_timeout_ms,
		     "give up waiting for the informer's sync (default 60s); a refused list (400, "
		     "401, 403, 404) ends it at once"),
	OPT_INCLUDE(informer_flag_options),
	OPT_INCLUDE(cluster_options),
	OPT_END(),
};

static void drain(struct listener *l, struct verify_check *vc)
{
	struct notification batch[64];
	size_t n;

	while ((n = listener_drain(l, batch, ARRAY_SIZE(batch))))
		for (size_t i = 0; i < n; i++) {
			verify_check_note(vc, &batch[i]);
			notification_release(&batch[i]);
		}
}

/*
 * Waits until the informer has reached the list's RV with nothing queued,
 * or the lag wait passes; true when it caught up.
 */
static bool wait_caught_up(struct listener *l, struct verify_check *vc)
{
	int64_t deadline = mono_ms() + o.lag_wait_ms;

	for (;;) {
		drain(l, vc);
		if (verify_check_caught_up(vc) > 0)
			return true;
		int64_t left = deadline - mono_ms();
		if (left <= 0)
			return false;
		/* Woken by the listener; the FIFO empties without telling. */
		struct pollfd pfd = { .fd = listener_wake_fd(l), .events = POLLIN };
		if (poll(&pfd, 1, left < 20 ? (int)left : 20) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
	}
}

/*
 * The report once the informer reaches the list's RV, or the lag wait
 * passes.  A cache that equals the list already is not kept waiting: the
 * RV is the whole server's (etcd's revision), so on a real cluster other
 * types' writes carry it past this informer's, which only a bookmark, a
 * minute later, would bring it up to.
 */
static void check(struct listener *l, struct verify_check *vc, struct verify_report *r)
{
	bool caught_up = verify_check_caught_up(vc) > 0;

	if (!caught_up) {
		verify_check_snapshot(vc);
		drain(l, vc);
		verify_check_finish(vc, false, r);
		if (verify_equal(r))
			return;
		verify_report_release(r);
		caught_up = wait_caught_up(l, vc);
	}
	verify_check_snapshot(vc);
	drain(l, vc);
	verify_check_finish(vc, caught_up, r);
}

static int print_report(const char *resource, const struct verify_report *r)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	if (o.output == OUT_JSON) {
		strbuf_addch(&sb, '{');
		verify_report_json(resource, r, &sb);
		strbuf_adds(&sb, "}\n");
	} else {
		verify_report_text(resource, r, &sb);
	}
	if (fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) != 0) {
		if (errno != EPIPE) {
			error("cannot write output: %s", strerror(errno));
			ret = -1;
		}
	}
	strbuf_release(&sb);
	return ret;
}

static int run_verify(int argc, const char **argv)
{
	struct errbuf err = { "" };
	struct verify_check vc;
	struct verify_report report = { 0 };
	struct session s;
	int ret = 1;

	argc = opt_parse(&command_verify, argc, argv);
	if (argc < 1)
		usage_error(&command_verify, "no resource type given, e.g. 'kinf verify pods'");
	if (argc > 1)
		usage_error(&command_verify, "unexpected argument '%s'", argv[1]);
	if (strchr(argv[0], ','))
		usage_error(&command_verify, "verify takes one resource type");

	struct session_opts so = informer_flags_session(&command_verify, argv[0], NULL);
	if (session_open(&s, &so, NULL, &err) < 0) {
		error("%s", err.msg);
		return 1;
	}
	struct listener *l = informer_add_listener(s.informers[0], 0);
	verify_check_init(&vc, &s, 0);
	if (session_start(&s, &err) < 0) {
		error("%s", err.msg);
		goto cleanup;
	}
	if (oneshot_wait_synced(&s, o.sync_timeout_ms, &err) < 0) {
		error("%s", err.msg);
		goto cleanup;
	}
	drain(l, &vc);
	if (verify_check_begin(&vc, &err) < 0) {
		error("%s", err.msg);
		goto cleanup;
	}
	check(l, &vc, &report);
	session_stop(&s);
	if (print_report(s.resources[0]->name, &report) == 0)
		ret = verify_equal(&report) ? 0 : EXIT_DIVERGENT;
cleanup:
	verify_report_release(&report);
	verify_check_release(&vc);
	session_close(&s);
	return ret;
}

const struct command command_verify = {
	.name = "verify",
	.run = run_verify,
	.summary = "Check an informer's cache against the server",
	.usage = "kinf verify RESOURCE [options]",
	.description =
		"Syncs an informer, then LISTs the server (a quorum read) and, once the\n"
		"informer has seen as far as that list's resourceVersion (or --lag-wait\n"
		"passed), compares: keys the cache is missing, keys it holds that the\n"
		"server does not (extra), and keys it holds at an older resourceVersion\n"
		"(stale).  What the cache saw after the list is not counted against it;\n"
		"a cache that equals the list already is told without waiting.\n"
		"Exit status 0 when the cache equals the server, 3 when it differs.\n"
		"A long-running informer is checked with 'kinf watch --verify-every'.",
	.examples =
		"  kinf verify pods -A\n"
		"  kinf verify deployments -n shop -o json | jq '.missing[].key'\n"
		"  kinf watch pods --verify-every 1m\n",
	.options = verify_options,
	.positional = COMPLETE_RESOURCE,
};

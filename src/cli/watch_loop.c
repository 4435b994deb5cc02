/*
 * watch_loop.c — see watch_loop.h.
 *
 * DESIGN (threads): runs on the main thread, the only one writing to
 * stdout.  The consumer (informer/consumer.h) turns signals into bytes on
 * a pipe and runs the checks' LISTs on its worker; everything else
 * happens here, outside signal context.
 */
#include "cli/watch_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/flight_flags.h"
#include "informer/metrics.h"
#include "informer/consumer.h"
#include "cluster/discovery.h"
#include "informer/informer.h"
#include "output/printer.h"
#include "informer/session.h"
#include "informer/store.h"
#include "lib/termsafe.h"
#include "lib/util.h"

/*
 * Takes the due dump once its tail has passed (now: at once, and waits
 * for the writer), and says where a dump the writer ended was written;
 * 0 when none had ended.
 */
static int flight_write(struct watch_loop *loop, bool now)
{
	struct errbuf err = { "" };
	char *path, *reason;

	if (!loop->flight)
		return 0;
	int rc = flight_dump_due(loop->flight, now, &path, &reason, &err);
	if (rc < 0)
		warning("flight recorder: %s", err.msg);
	if (rc <= 0)
		return rc;
	printer_flush(loop->printer);
	fprintf(stderr, "kinf: flight recorder: %s: wrote '%s'\n", reason, path);
	fflush(stderr);
	printer_flight_dump(loop->printer, path, reason);
	if (loop->metrics)
		metrics_count_dump(loop->metrics);
	free(path);
	free(reason);
	return rc;
}

static bool wanted(const struct watch_loop *loop, const struct notification *n)
{
	if (n->kind == NOTIFY_ACTIVITY)
		return true;
	if (loop->key && (!n->delta.obj || strcmp(n->delta.obj->key, loop->key)))
		return false;
	if (loop->types && !(loop->types & (1u << n->delta.type)))
		return false;
	if (loop->hide_unchanged && n->resync_only)
		return false;
	if (loop->watch_only && (n->replay ||
	    (n->delta.source == SOURCE_LIST && n->delta.list_no == 0)))
		return false;
	return true;
}

/*
 * One notification (consumer_ops.notify): printed when wanted.  -1 when
 * output failed, 1 when done (--max-deltas reached).
 */
static int on_notification(void *ctx, size_t i, struct notification *n)
{
	struct watch_loop *loop = ctx;
	int ret = 0;

	(void)i;
	if (wanted(loop, n)) {
		if (printer_notification(loop->printer, n) < 0)
			ret = -1;
		else if (n->kind != NOTIFY_ACTIVITY &&
			 loop->max_deltas && ++loop->printed >= loop->max_deltas)
			ret = 1;
	}
	/* Of the activity, a controller counts only its sources' syncs. */
	if (ret == 0 && loop->hook && n->kind != NOTIFY_BOOKMARK &&
	    (n->kind != NOTIFY_ACTIVITY || n->activity->act == ACT_SYNCED))
		loop->hook->note(loop->hook->ctx, n);
	notification_release(n);
	return ret;
}

/* A --verify-every check ended: its report printed, or a warning. */
static int on_verified(void *ctx, size_t i, const struct verify_report *r, const char *why)
{
	struct watch_loop *loop = ctx;
	const char *resource = loop->session->resources[i]->name;

	if (!r) {
		warning("%s: verify: %s", resource, why);
		return 0;
	}
	int ret = printer_verify(loop->printer, resource, r);
	if (loop->hook && loop->hook->verified)	/* after the report it follows */
		loop->hook->verified(loop->hook->ctx, i, r);
	return ret;
}

static const struct consumer_ops watch_ops = {
	.notify = on_notification,
	.verified = on_verified,
};

/*
 * `watch pods NAME` for an object that is not there: once the informer
 * synced without it, say so once, so that the silence is not taken for
 * a hang.  It goes on watching: the object may yet be created.
 */
static void check_name(struct watch_loop *loop)
{
	struct informer *inf = loop->session->informers[0];

	if (!loop->name || loop->name_checked || !informer_has_synced(inf))
		return;
	loop->name_checked = true;
	if (loop->notices && store_len(informer_store(inf)) == 0) {
		char *line = xasprintf("kinf: %s: no object named '%s' yet; watching for it",
				       loop->session->resources[0]->name, loop->name);
		char *safe = termsafe_dup(line, TERMSAFE_ONE_LINE);	/* discovery's name */
		fprintf(loop->notices, "%s\n", safe);
		fflush(loop->notices);
		free(safe);
		free(line);
	}
}

/*
 * At --timeout or --max-deltas, an informer that never synced is no
 * success: says so for each (with its last error) and returns 1.  At
 * --timeout every informer must have synced; at --max-deltas (which the
 * initial list's deltas may reach before the rest are popped) only one
 * that never completed a list fails.
 */
static int check_synced(struct watch_loop *loop, bool at_timeout, int64_t started_ms)
{
	struct session *s = loop->session;
	int64_t ms = at_timeout ? loop->timeout_ms : mono_ms() - started_ms;
	char after[32];
	int ret = 0;

	if (ms % 1000)
		snprintf(after, sizeof(after), "%.1fs", (double)ms / 1000);
	else
		snprintf(after, sizeof(after), "%llds", (long long)(ms / 1000));
	for (size_t i = 0; i < s->nr; i++) {
		struct informer_stats st;
		if (informer_has_synced(s->informers[i]))
			continue;
		informer_get_stats(s->informers[i], &st);
		/* a replay whose recording stopped in its list: nothing to sync to */
		if (!at_timeout && (st.last_list_ms || st.recording_ended))
			continue;
		error("%s: not synced after %s%s%s", s->resources[i]->name, after,
		      st.last_error[0] ? ": " : "", st.last_error);
		ret = 1;
	}
	return ret;
}

/* watch --health-every: a health notice for each informer. */
static void print_health(struct watch_loop *loop)
{
	struct session *s = loop->session;

	for (size_t i = 0; i < s->nr; i++) {
		struct informer_stats st;
		informer_get_stats(s->informers[i], &st);
		printer_health(loop->printer, s->resources[i]->name, &st, wall_ms());
	}
}

/*
 * Whether every informer's queue and every listener are empty, and no
 * informer is between its last initial pop and its "synced" notice.
 */
static bool all_taken(struct session *s, struct listener **ls)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct informer_stats st;
		informer_get_stats(s->informers[i], &st);
		if (st.fifo_depth || listener_pending(ls[i]) ||
		    informer_sync_unsaid(s->informers[i]))
			return false;
	}
	return true;
}

/* The loop's state: its fds and clocks. */
struct run {
	struct consumer cons;
	/* [0] signals, [1] stdout (POLLERR once a pipe's reader is gone), [2]
	 * the replay's end, [3] the flight recorder's writer, then the
	 * consumer's. */
	struct pollfd *fds;
	size_t nfds;
	int64_t started, deadline, health_at;
	bool finishing;		/* the replay ended: print what is left */
	int write_errno;
};

#define RUN_FDS 4

/* wait (-1: no bound) bounded by until too (-1: none), and by a day. */
static void sooner(int64_t *wait, int64_t until)
{
	if (until >= 0 && (*wait < 0 || until < *wait))
		*wait = until > 86400000 ? 86400000 : until;
}

/* How long poll() may sleep; -2 when --timeout ran out. */
static int run_wait(struct watch_loop *loop, struct run *r)
{
	int64_t wait = -1;

	if (r->deadline) {
		int64_t left = r->deadline - mono_ms();
		if (left <= 0)
			return -2;
		sooner(&wait, left);
	}
	sooner(&wait, consumer_next_ms(&r->cons));
	sooner(&wait, loop->hook ? loop->hook->wait_ms(loop->hook->ctx) : -1);
	if (loop->health_every_ms) {
		int64_t until = r->health_at - mono_ms();
		if (until <= 0) {
			print_health(loop);
			r->health_at = mono_ms() + loop->health_every_ms;
			until = loop->health_every_ms;
		}
		sooner(&wait, until);
	}
	sooner(&wait, loop->flight ? flight_due_ms(loop->flight) : -1);
	if (r->finishing)	/* the queues empty without waking anyone */
		sooner(&wait, 10);
	return (int)wait;
}

/* One turn after poll(): -1 to go on, else the exit status. */
static int run_turn(struct watch_loop *loop, struct run *r)
{
	struct pollfd *fds = r->fds;
	int sig = consumer_signal_next();

	if (fds[2].revents & POLLIN) {
		r->finishing = true;
		fds[2].fd = -1;
	}
	if (sig == SIGUSR1) {	/* a dump asked for: whatever --dump-on says */
		if (loop->flight)
			flight_trigger(loop->flight, "signal", NULL);
		sig = 0;
	}
	if (sig)
		return 128 + sig;
	if (fds[1].revents & (POLLERR | POLLHUP | POLLNVAL)) {
		/* The reader left (| head) while nothing was printed. */
		r->write_errno = EPIPE;
		return 0;
	}
	if (loop->hook)
		loop->hook->tick(loop->hook->ctx);
	int rc = consumer_dispatch(&r->cons, fds + RUN_FDS);
	flight_write(loop, false);
	if (rc == 0)
		check_name(loop);
	if (rc < 0 || printer_flush(loop->printer) < 0) {
		r->write_errno = errno;
		/* A reader that went away (| head) is no failure. */
		return r->write_errno == EPIPE ? 0 : 1;
	}
	if (rc > 0 || (r->finishing && all_taken(loop->session, r->cons.listeners)))
		return check_synced(loop, false, r->started);
	return -1;
}

static void run_init(struct watch_loop *loop, struct run *r)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

	memset(r, 0, sizeof(*r));
	r->cons = (struct consumer){
		.session = loop->session, .ops = &watch_ops, .ctx = loop,
		.resync_ms = loop->resync_ms,
		/* Bookmark deltas are no handler calls: shown only when asked for. */
		.bookmarks = (loop->types >> DELTA_BOOKMARK) & 1,
		.verify_every_ms = loop->verify_every_ms,
		.verify_lag_ms = loop->verify_lag_ms,
		.metrics = loop->metrics,
		.flight = loop->flight,
		.dump_on = loop->dump_on,
	};
	consumer_init(&r->cons);
	if (loop->flight)	/* not reset: each SIGUSR1 asks for a dump */
		consumer_signals_install((const int[]){ SIGUSR1 }, 1, SA_RESTART);
	r->nfds = RUN_FDS + consumer_nfds(&r->cons);
	r->fds = xcalloc(r->nfds, sizeof(*r->fds));
	/*
	 * SA_RESETHAND: a second Ctrl-C kills at once, should a clean stop
	 * hang (an exec credential plugin waiting for a login, say).
	 */
	r->fds[0] = (struct pollfd){
		.fd = consumer_signals_install(signals, ARRAY_SIZE(signals), SA_RESETHAND),
		.events = POLLIN };
	r->fds[1] = (struct pollfd){ .fd = STDOUT_FILENO, .events = 0 };
	/* a negative fd is not polled */
	r->fds[2] = (struct pollfd){ .fd = loop->done_fd > 0 ? loop->done_fd : -1,
				     .events = POLLIN };
	/* the flight recorder's writer ended a dump (flight_write() reads it) */
	r->fds[3] = (struct pollfd){ .fd = loop->flight ? flight_fd(loop->flight) : -1,
				     .events = POLLIN };
	consumer_fds(&r->cons, r->fds + RUN_FDS);
	r->started = mono_ms();
	r->deadline = !loop->timeout_ms ? 0
		    : (loop->timeout_from_ms ? loop->timeout_from_ms : r->started) + loop->timeout_ms;
	r->health_at = r->started + loop->health_every_ms;
}

int watch_loop_run(struct watch_loop *loop)
{
	struct run r;
	struct errbuf err = { "" };
	int ret = -1;

	run_init(loop, &r);
	if (session_start(loop->session, &err) < 0) {
		error("%s", err.msg);
		ret = 1;
	}
	while (ret < 0) {
		int wait = run_wait(loop, &r);
		if (wait == -2) {
			ret = check_synced(loop, true, r.started);
			break;
		}
		if (poll(r.fds, r.nfds, wait) < 0 && errno != EINTR) {
			poll_failure(&err, errno, r.nfds);
			error("%s", err.msg);
			ret = 1;
			break;
		}
		ret = run_turn(loop, &r);
	}
	consumer_release(&r.cons);
	/* a dump still due holds what came; one being written is ended, and said */
	while (flight_write(loop, true))
		;
	/* EINVAL: a template error, which the command reports */
	if (r.write_errno && r.write_errno != EPIPE && r.write_errno != EINVAL)
		error("cannot write output: %s", strerror(r.write_errno));
	if (!r.write_errno)
		printer_finish(loop->printer);
	free(r.fds);
	return ret;
}

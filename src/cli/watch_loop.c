/*
 * watch_loop.c — see watch_loop.h.
 *
 * DESIGN (threads): runs on the main thread, the only one writing to
 * stdout.  The signal handler only writes a byte to a pipe; everything
 * else happens here, outside signal context.
 */
#include "cli/watch_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "informer/verify_check.h"
#include "cluster/discovery.h"
#include "informer/informer.h"
#include "output/printer.h"
#include "informer/session.h"
#include "informer/store.h"
#include "lib/util.h"

/* One informer's --verify-every checks: waiting for the next, or for lag. */
struct verify_state {
	struct verify_check vc;
	bool waiting;		/* listed; waiting for the informer to catch up */
	int64_t at;		/* mono ms: the next check, or the wait's end */
};

static int sig_fds[2] = { -1, -1 };
static volatile sig_atomic_t caught;

static void on_signal(int signo)
{
	int saved = errno;
	caught = signo;
	if (write(sig_fds[1], "", 1) < 0) {
		/* A full pipe is already readable. */
	}
	errno = saved;
}

int signal_pipe(void)
{
	if (sig_fds[0] >= 0)
		return sig_fds[0];
	if (pipe2(sig_fds, O_NONBLOCK | O_CLOEXEC) < 0)
		die("cannot create a pipe: %s", strerror(errno));
	/*
	 * SA_RESETHAND: a second Ctrl-C kills at once, should a clean stop
	 * hang (an exec credential plugin waiting for a login, say).
	 */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return sig_fds[0];
}

int signal_caught(void)
{
	return caught;
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
 * Prints what the listener holds; -1 when output failed, 1 when done
 * (--max-deltas reached, or an informer gave up: loop->failed).
 */
static int drain(struct watch_loop *loop, struct listener *l, struct verify_state *vs)
{
	struct notification batch[64];
	size_t n;
	int ret = 0;

	while (ret == 0 && (n = listener_drain(l, batch, ARRAY_SIZE(batch)))) {
		for (size_t i = 0; i < n; i++) {
			if (vs)	/* every one, filtered out or not */
				verify_check_note(&vs->vc, &batch[i]);
			if (ret == 0 && batch[i].kind == NOTIFY_ACTIVITY &&
			    batch[i].activity->fatal) {
				error("%s", batch[i].activity->message);
				loop->failed = true;
				ret = 1;
			} else if (ret == 0 && wanted(loop, &batch[i])) {
				if (printer_notification(loop->printer, &batch[i]) < 0)
					ret = -1;
				else if (batch[i].kind != NOTIFY_ACTIVITY &&
					 loop->max_deltas && ++loop->printed >= loop->max_deltas)
					ret = 1;
			}
			if (ret == 0 && loop->hook && batch[i].kind != NOTIFY_ACTIVITY)
				loop->hook->note(loop->hook->ctx, &batch[i]);
			notification_release(&batch[i]);
		}
	}
	return ret;
}

/*
 * Advances informer i's checks: lists when one is due, reports when the
 * informer caught up or the lag wait ran out.  Returns what drain() does
 * (the report's drain prints deltas too) or -1 when writing failed.
 */
static int verify_step(struct watch_loop *loop, size_t i, struct listener *l,
		       struct verify_state *vs)
{
	struct session *s = loop->session;
	const char *resource = s->resources[i]->name;
	int64_t now = mono_ms();
	int ret = 0;

	if (!vs->waiting) {
		if (now < vs->at)
			return 0;
		vs->at = now + loop->verify_every_ms;
		if (!informer_has_synced(s->informers[i]))
			return 0;	/* nothing to check yet */
		struct errbuf err = { "" };
		if (verify_check_begin(&vs->vc, &err) < 0) {
			warning("%s: verify: %s", resource, err.msg);
			return 0;
		}
		vs->waiting = true;
		vs->at = mono_ms() + loop->verify_lag_ms;
	}
	int caught_up = verify_check_caught_up(&vs->vc);
	if (caught_up <= 0 && mono_ms() < vs->at)
		return 0;
	struct verify_report report;
	verify_check_snapshot(&vs->vc);
	ret = drain(loop, l, vs);	/* the deletes the snapshot reflects */
	verify_check_finish(&vs->vc, caught_up > 0, &report);
	if (ret >= 0 && printer_verify(loop->printer, resource, &report) < 0)
		ret = -1;
	verify_report_release(&report);
	vs->waiting = false;
	vs->at = mono_ms() + loop->verify_every_ms;
	return ret;
}

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
		fprintf(loop->notices, "kinf: %s: no object named '%s' yet; watching for it\n",
			loop->session->resources[0]->name, loop->name);
		fflush(loop->notices);
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
		if (!at_timeout && st.last_list_ms)
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

/* The poll's timeout, bounded by the hook's next timer (-1: none). */
static int hook_wait(const struct watch_loop *loop, int wait)
{
	int64_t until = loop->hook ? loop->hook->wait_ms(loop->hook->ctx) : -1;

	if (until >= 0 && (wait < 0 || until < wait))
		wait = until > 86400000 ? 86400000 : (int)until;
	return wait;
}

/* Whether every informer's queue and every listener are empty. */
static bool all_taken(struct session *s, struct listener **ls)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct informer_stats st;
		informer_get_stats(s->informers[i], &st);
		if (st.fifo_depth || listener_pending(ls[i]))
			return false;
	}
	return true;
}

int watch_loop_run(struct watch_loop *loop)
{
	struct session *s = loop->session;
	/* [0] signals, [1] stdout (POLLERR once a pipe's reader is gone), then
	 * one wake-up fd per listener. */
	struct pollfd *fds = xcalloc(s->nr + 3, sizeof(*fds));
	struct listener **ls = xcalloc(s->nr, sizeof(*ls));
	int64_t started = mono_ms();
	int64_t deadline = loop->timeout_ms ? started + loop->timeout_ms : 0;
	struct verify_state *vs = NULL;
	int ret = -1;

	fds[0] = (struct pollfd){ .fd = signal_pipe(), .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = STDOUT_FILENO, .events = 0 };
	for (size_t i = 0; i < s->nr; i++) {
		ls[i] = informer_add_listener(s->informers[i], loop->resync_ms);
		fds[i + 2] = (struct pollfd){ .fd = listener_wake_fd(ls[i]), .events = POLLIN };
	}
	/* last: the replay's end (a negative fd is not polled) */
	fds[s->nr + 2] = (struct pollfd){ .fd = loop->done_fd > 0 ? loop->done_fd : -1,
					  .events = POLLIN };
	bool finishing = false;
	int64_t health_at = mono_ms() + loop->health_every_ms;
	if (loop->verify_every_ms) {
		vs = xcalloc(s->nr, sizeof(*vs));
		for (size_t i = 0; i < s->nr; i++) {
			verify_check_init(&vs[i].vc, s, i);
			vs[i].at = mono_ms() + loop->verify_every_ms;
		}
	}
	struct errbuf err = { "" };
	if (session_start(s, &err) < 0) {
		error("%s", err.msg);
		ret = 1;
	}
	int write_errno = 0;

	while (ret < 0) {
		int wait = -1;
		if (deadline) {
			int64_t left = deadline - mono_ms();
			if (left <= 0) {
				ret = check_synced(loop, true, started);
				break;
			}
			wait = left > 86400000 ? 86400000 : (int)left;
		}
		/* The next check, or a look at a lagging informer: the FIFO
		 * empties without waking anyone. */
		for (size_t i = 0; vs && i < s->nr; i++) {
			int64_t until = vs[i].waiting ? 50 : vs[i].at - mono_ms();
			if (until < 0)
				until = 0;
			if (wait < 0 || until < wait)
				wait = (int)until;
		}
		if (loop->health_every_ms) {
			int64_t until = health_at - mono_ms();
			if (until <= 0) {
				print_health(loop);
				health_at = mono_ms() + loop->health_every_ms;
				until = loop->health_every_ms;
			}
			if (wait < 0 || until < wait)
				wait = (int)until;
		}
		wait = hook_wait(loop, wait);
		if (finishing)	/* the queues empty without waking anyone */
			wait = wait < 0 || wait > 10 ? 10 : wait;
		if (poll(fds, s->nr + 3, wait) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (fds[s->nr + 2].revents & POLLIN) {
			finishing = true;
			fds[s->nr + 2].fd = -1;
		}
		if (signal_caught()) {
			ret = 128 + signal_caught();
			break;
		}
		if (fds[1].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			/* The reader left (| head) while nothing was printed. */
			ret = 0;
			write_errno = EPIPE;
			break;
		}
		if (loop->hook)
			loop->hook->tick(loop->hook->ctx);
		for (size_t i = 0; i < s->nr && ret < 0; i++) {
			int rc = 0;
			if (fds[i + 2].revents & POLLIN)
				rc = drain(loop, ls[i], vs ? &vs[i] : NULL);
			if (rc == 0 && vs)
				rc = verify_step(loop, i, ls[i], &vs[i]);
			if (rc == 0 && i == 0)
				check_name(loop);
			if (rc < 0 || printer_flush(loop->printer) < 0) {
				write_errno = errno;
				/* A reader that went away (| head) is no failure. */
				ret = write_errno == EPIPE ? 0 : 1;
			} else if (rc > 0) {
				ret = loop->failed ? 1 : check_synced(loop, false, started);
			}
		}
		if (ret < 0 && finishing && all_taken(s, ls))
			ret = loop->failed ? 1 : check_synced(loop, false, started);
	}
	for (size_t i = 0; vs && i < s->nr; i++)
		verify_check_release(&vs[i].vc);
	free(vs);
	/* EINVAL: a template error, which the command reports */
	if (write_errno && write_errno != EPIPE && write_errno != EINVAL)
		error("cannot write output: %s", strerror(write_errno));
	if (!write_errno)
		printer_finish(loop->printer);
	free(fds);
	free(ls);
	return ret;
}

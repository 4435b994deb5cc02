/*
 * consumer.c — see consumer.h.
 *
 * DESIGN (threads): the consuming thread (the caller's) owns everything
 * here but the list job while the worker runs it.  A check's LIST runs
 * into the job's own verify_check; the consuming thread meanwhile notes
 * every notification into the check's (so that a deletion during the LIST
 * is remembered with its resourceVersion, as when the LIST blocked the
 * loop), and moves the server's side over when the job comes back.  The
 * signal handlers only write a byte to a pipe.
 */
#include "informer/consumer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/http.h"
#include "informer/verify_check.h"
#include "lib/stop.h"
#include "lib/strbuf.h"
#include "lib/util.h"

enum check_state {
	CHECK_IDLE,
	CHECK_QUEUED,		/* waiting for the worker */
	CHECK_LISTING,		/* its LIST on the worker */
	CHECK_WAITING,		/* listed; waiting for the informer to catch up */
};

struct consumer_check {
	enum check_state state;
	struct verify_check vc;	/* noted into from the moment it was queued */
	/* IDLE: the next --verify-every check; WAITING: the lag wait's end. */
	int64_t at;
	uint64_t rv_backwards;	/* the informer's count, last looked at */
	/*
	 * The divergence the last verify dump was written for (its keys and
	 * classes, divergence_sig()), or NULL since the cache was last
	 * equal: a lasting divergence is dumped once, and again only when it
	 * changes, so the first dump (the one that holds the loss) is not
	 * pruned by --flight-keep dumps of the same.
	 */
	char *dumped;
};

/* A check's LIST, on the worker. */
struct list_job {
	struct worker_job base;
	struct verify_check vc;
	struct errbuf err;
	int rc;
};

static void list_job_run(struct worker_job *job, struct stop *stop)
{
	struct list_job *lj = (struct list_job *)job;

	kclient_set_thread_stop(stop);
	lj->rc = verify_check_begin(&lj->vc, &lj->err);
	kclient_set_thread_stop(NULL);
}

static void list_job_free(struct worker_job *job)
{
	struct list_job *lj = (struct list_job *)job;

	verify_check_release(&lj->vc);
	free(lj);
}

void consumer_init(struct consumer *c)
{
	c->nr = 0;
	c->listeners = NULL;
	c->checks = NULL;
	c->queued = NULL;
	c->job_running = false;
	c->job_cancelled = false;
	c->worker = worker_new();
	consumer_grow(c);
}

void consumer_grow(struct consumer *c)
{
	struct session *s = c->session;
	int64_t now = mono_ms();

	if (s->nr <= c->nr)
		return;
	c->listeners = xrealloc(c->listeners, s->nr * sizeof(*c->listeners));
	c->checks = xrealloc(c->checks, s->nr * sizeof(*c->checks));
	for (size_t i = c->nr; i < s->nr; i++) {
		c->listeners[i] = informer_add_listener(s->informers[i], c->resync_ms);
		if (c->bookmarks)
			listener_want_bookmarks(c->listeners[i]);
		c->checks[i] = (struct consumer_check){ .at = now + c->verify_every_ms };
		verify_check_init(&c->checks[i].vc, s, i);
	}
	c->nr = s->nr;
	metrics_tick(c->metrics, s, true);	/* figures for the new ones from now on */
}

void consumer_release(struct consumer *c)
{
	worker_free(c->worker);	/* stops and drops a job under way */
	c->worker = NULL;
	if (c->queued)
		c->queued->free(c->queued);
	c->queued = NULL;
	for (size_t i = 0; i < c->nr; i++) {
		verify_check_release(&c->checks[i].vc);
		free(c->checks[i].dumped);
	}
	free(c->checks);
	free(c->listeners);
	c->checks = NULL;
	c->listeners = NULL;
	c->nr = 0;
}

void consumer_fds(struct consumer *c, struct pollfd *fds)
{
	fds[0] = (struct pollfd){ .fd = worker_fd(c->worker), .events = POLLIN };
	for (size_t i = 0; i < c->nr; i++)
		fds[1 + i] = (struct pollfd){ .fd = listener_wake_fd(c->listeners[i]),
					      .events = POLLIN };
}

/* ---- the flight recorder's triggers ---------------------------------------- */

static void flight_on(struct consumer *c, unsigned trigger, const char *reason,
		      struct json_object *keys)
{
	if (c->flight && (c->dump_on & trigger))
		flight_trigger(c->flight, reason, keys);
	else
		json_object_put(keys);
}

/* An activity of informer i that may be a trigger. */
static void flight_activity(struct consumer *c, size_t i, const struct activity_info *a)
{
	if (!c->flight || !a)
		return;
	if (a->act == ACT_RELISTED &&
	    (a->replace.added || a->replace.changed || a->replace.deleted)) {
		flight_on(c, DUMP_ON_RELIST, "relist", NULL);
	} else if (a->act == ACT_ERROR) {
		flight_on(c, DUMP_ON_WATCH_ERROR, "watch-error", NULL);
	} else if (a->act == ACT_WARNING) {
		struct informer_stats st;
		informer_get_stats(c->session->informers[i], &st);
		if (st.rv_backwards > c->checks[i].rv_backwards)
			flight_on(c, DUMP_ON_RV_REGRESSION, "rv-regression", NULL);
		c->checks[i].rv_backwards = st.rv_backwards;
	}
}

static void add_keys(struct json_object *a, const struct verify_diff *d, size_t n,
		     const char *class)
{
	for (size_t i = 0; i < n; i++) {
		struct json_object *k = json_object_new_object();
		json_object_object_add(k, "key", json_object_new_string(d[i].key));
		json_object_object_add(k, "class", json_object_new_string(class));
		/* what each side had: the cache's resourceVersion, the server's */
		if (d[i].cache_rv)
			json_object_object_add(k, "cacheRV", json_object_new_string(d[i].cache_rv));
		if (d[i].server_rv)
			json_object_object_add(k, "serverRV", json_object_new_string(d[i].server_rv));
		json_object_array_add(a, k);
	}
}

/* The keys and their classes, one a line: a divergence, whatever the rvs. */
static void divergence_sig(struct strbuf *sb, const struct verify_diff *d, size_t n, char class)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%c %s\n", class, d[i].key);
}

/*
 * A check of informer i: when its cache is divergent, and not as it was
 * at the last dump, the trigger, with its keys.
 */
static void flight_verified(struct consumer *c, size_t i, const struct verify_report *r)
{
	struct consumer_check *ck = &c->checks[i];
	struct json_object *keys;

	if (!c->flight || !(c->dump_on & DUMP_ON_VERIFY))
		return;
	if (verify_equal(r)) {
		free(ck->dumped);
		ck->dumped = NULL;
		return;
	}
	struct strbuf sig = STRBUF_INIT;
	divergence_sig(&sig, r->missing, r->nmissing, 'm');
	divergence_sig(&sig, r->extra, r->nextra, 'e');
	divergence_sig(&sig, r->stale, r->nstale, 's');
	if (ck->dumped && !strcmp(ck->dumped, sig.buf)) {
		strbuf_release(&sig);
		return;
	}
	free(ck->dumped);
	ck->dumped = strbuf_detach(&sig, NULL);
	keys = json_object_new_array();
	add_keys(keys, r->missing, r->nmissing, "missing");
	add_keys(keys, r->extra, r->nextra, "extra");
	add_keys(keys, r->stale, r->nstale, "stale");
	flight_on(c, DUMP_ON_VERIFY, "verify", keys);
}

/* ---- the listeners ---------------------------------------------------------- */

/* Drains listener i (as far as drain_max) into ops->notify; see there. */
static int consumer_drain(struct consumer *c, size_t i)
{
	struct notification batch[256];
	struct consumer_check *ck = &c->checks[i];
	size_t total = 0, n;
	int ret = 0;

	while (ret == 0 && (!c->drain_max || total < c->drain_max) &&
	       (n = listener_drain(c->listeners[i], batch, ARRAY_SIZE(batch)))) {
		for (size_t k = 0; k < n; k++) {
			if (ck->state != CHECK_IDLE)	/* every one, wanted or not */
				verify_check_note(&ck->vc, &batch[k]);
			metrics_note(c->metrics, i, &batch[k]);
			if (batch[k].kind == NOTIFY_ACTIVITY)
				flight_activity(c, i, batch[k].activity);
			if (ret == 0)
				ret = c->ops->notify(c->ctx, i, &batch[k]);
			else
				notification_release(&batch[k]);
		}
		total += n;
	}
	return ret;
}

/* Back to idle; the next --verify-every check a period from now. */
static void check_reset(struct consumer *c, size_t i)
{
	struct consumer_check *ck = &c->checks[i];

	verify_check_release(&ck->vc);
	verify_check_init(&ck->vc, c->session, i);
	ck->state = CHECK_IDLE;
	ck->at = mono_ms() + c->verify_every_ms;
}

static int check_failed(struct consumer *c, size_t i, const char *why)
{
	check_reset(c, i);
	metrics_verified(c->metrics, i, NULL);
	return c->ops->verified(c->ctx, i, NULL, why);
}

/* The worker is free: the first queued check's LIST, else the caller's job. */
static void worker_feed(struct consumer *c)
{
	if (worker_busy(c->worker))
		return;
	for (size_t i = 0; i < c->nr; i++) {
		if (c->checks[i].state != CHECK_QUEUED)
			continue;
		struct list_job *lj = xcalloc(1, sizeof(*lj));
		lj->base = (struct worker_job){ .run = list_job_run, .free = list_job_free };
		verify_check_init(&lj->vc, c->session, i);
		worker_submit(c->worker, &lj->base);
		c->checks[i].state = CHECK_LISTING;
		c->listing = i;
		return;
	}
	if (c->queued && worker_submit(c->worker, c->queued) == 0) {
		c->queued = NULL;
		c->job_running = true;
		c->job_cancelled = false;
	}
}

/*
 * Informer i caught up, or the wait ran out: the report.  With
 * equal_only, only if the cache equals the list (else nothing, and the
 * check waits on).
 */
static int check_finish(struct consumer *c, size_t i, bool caught_up, bool equal_only)
{
	struct consumer_check *ck = &c->checks[i];
	struct verify_report report;

	verify_check_snapshot(&ck->vc);
	int ret = consumer_drain(c, i);	/* the deletes the snapshot reflects */
	verify_check_finish(&ck->vc, caught_up, &report);
	if (equal_only && !verify_equal(&report)) {
		verify_report_release(&report);
		return ret;
	}
	metrics_verified(c->metrics, i, &report);
	metrics_tick(c->metrics, c->session, true);
	flight_verified(c, i, &report);
	if (ret >= 0 && c->ops->verified(c->ctx, i, &report, NULL) < 0)
		ret = -1;
	verify_report_release(&report);
	check_reset(c, i);
	return ret;
}

/* A LIST came back: the server's side moves over to the check. */
static int list_done(struct consumer *c, struct list_job *lj)
{
	size_t i = c->listing;
	struct consumer_check *ck = &c->checks[i];
	int ret = 0;

	if (lj->rc < 0) {
		ret = check_failed(c, i, lj->err.msg);
	} else {
		ck->vc.server = lj->vc.server;
		ck->vc.nserver = lj->vc.nserver;
		ck->vc.list_rv = lj->vc.list_rv;
		lj->vc.server = NULL;
		lj->vc.nserver = 0;
		lj->vc.list_rv = NULL;
		ck->state = CHECK_WAITING;
		ck->at = mono_ms() + c->verify_lag_ms;
		/*
		 * As kinf verify: a cache that equals the list already waits for
		 * nothing; the list's RV is the whole server's, which other types'
		 * writes carry past an informer a bookmark alone would bring up.
		 */
		ret = check_finish(c, i, verify_check_caught_up(&ck->vc) > 0, true);
	}
	list_job_free(&lj->base);
	return ret;
}

static int take_job(struct consumer *c)
{
	struct worker_job *job = worker_take(c->worker);

	if (!job) {	/* a cancelled job: gone once the worker is idle */
		if (!worker_busy(c->worker))
			c->job_running = false;
		return 0;
	}
	if (job->run == list_job_run)
		return list_done(c, (struct list_job *)job);
	c->job_running = false;
	if (c->ops->job_done)
		c->ops->job_done(c->ctx, job);
	else
		job->free(job);
	return 0;
}

/* Moves check i on by the clock: due, or caught up. */
static int check_step(struct consumer *c, size_t i, int64_t now)
{
	struct consumer_check *ck = &c->checks[i];

	if (ck->state == CHECK_IDLE && c->verify_every_ms && now >= ck->at) {
		ck->at = now + c->verify_every_ms;
		if (informer_has_synced(c->session->informers[i]))
			ck->state = CHECK_QUEUED;	/* else nothing to check yet */
	}
	if (ck->state != CHECK_WAITING)
		return 0;
	int caught_up = verify_check_caught_up(&ck->vc);
	if (caught_up <= 0 && mono_ms() < ck->at)
		return 0;
	return check_finish(c, i, caught_up > 0, false);
}

int consumer_dispatch(struct consumer *c, const struct pollfd *fds)
{
	int64_t now = mono_ms();
	size_t nr = c->nr;	/* fds' listeners: a job's end may add some */
	int ret = 0;

	if (fds[0].revents & POLLIN)
		ret = take_job(c);
	for (size_t i = 0; i < nr && ret == 0; i++) {
		if (fds[1 + i].revents & POLLIN)
			ret = consumer_drain(c, i);
		if (ret == 0)
			ret = check_step(c, i, now);
	}
	worker_feed(c);
	metrics_tick(c->metrics, c->session, false);
	return ret;
}

int64_t consumer_next_ms(const struct consumer *c)
{
	int64_t now = mono_ms(), wait = metrics_next_ms(c->metrics);

	for (size_t i = 0; i < c->nr; i++) {
		const struct consumer_check *ck = &c->checks[i];
		int64_t until = -1;
		/* A FIFO empties without waking anyone: look again soon. */
		if (ck->state == CHECK_WAITING)
			until = CONSUMER_LAG_POLL_MS;
		else if (ck->state == CHECK_IDLE && c->verify_every_ms)
			until = ck->at > now ? ck->at - now : 0;
		if (until >= 0 && (wait < 0 || until < wait))
			wait = until;
	}
	return wait;
}

int consumer_verify(struct consumer *c, size_t i, struct errbuf *err)
{
	struct consumer_check *ck = &c->checks[i];

	if (ck->state != CHECK_IDLE) {
		errbuf_set(err, "a check is under way");
		return -1;
	}
	if (!informer_has_synced(c->session->informers[i])) {
		errbuf_set(err, "not synced yet");
		return -1;
	}
	ck->state = CHECK_QUEUED;
	worker_feed(c);
	return 0;
}

bool consumer_verifying(const struct consumer *c, size_t i)
{
	return i < c->nr && c->checks[i].state != CHECK_IDLE;
}

int consumer_submit(struct consumer *c, struct worker_job *job)
{
	if (consumer_job_pending(c))
		return -1;
	c->queued = job;
	worker_feed(c);
	return 0;
}

bool consumer_job_pending(const struct consumer *c)
{
	return c->queued || c->job_running;
}

bool consumer_cancel(struct consumer *c)
{
	bool any = c->queued || (c->job_running && !c->job_cancelled);

	if (worker_busy(c->worker))
		worker_cancel(c->worker);
	c->job_cancelled = c->job_running;
	if (c->queued)
		c->queued->free(c->queued);
	c->queued = NULL;
	for (size_t i = 0; i < c->nr; i++) {
		if (c->checks[i].state == CHECK_IDLE)
			continue;
		any = true;
		check_reset(c, i);
	}
	return any;
}

/* ---- the signals' self-pipe ------------------------------------------------ */

#define MAX_SIGNALS 8

static int sig_fds[2] = { -1, -1 };
static int sig_nr;
static int sig_numbers[MAX_SIGNALS];
static struct sigaction sig_saved[MAX_SIGNALS];

static void on_signal(int signo)
{
	int saved = errno;
	unsigned char c = (unsigned char)signo;

	if (write(sig_fds[1], &c, 1) < 0) {
		/* A full pipe is readable already: the loop is awake. */
	}
	errno = saved;
}

int consumer_signals_install(const int *signals, size_t nr, int sa_flags)
{
	if (sig_fds[0] < 0 && pipe2(sig_fds, O_NONBLOCK | O_CLOEXEC) < 0)
		die("cannot create a pipe: %s", strerror(errno));
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = sa_flags };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < nr && sig_nr < MAX_SIGNALS; i++) {
		sig_numbers[sig_nr] = signals[i];
		sigaction(signals[i], &sa, &sig_saved[sig_nr++]);
	}
	return sig_fds[0];
}

void consumer_signals_restore(void)
{
	while (sig_nr > 0) {
		sig_nr--;
		sigaction(sig_numbers[sig_nr], &sig_saved[sig_nr], NULL);
	}
}

int consumer_signal_next(void)
{
	unsigned char c;

	if (sig_fds[0] < 0 || read(sig_fds[0], &c, 1) != 1)
		return 0;
	return c;
}

/*
 * replay.c — a recording answered again: each stream's exchanges in
 * their order, at the recorded pace or at once, on the recording's
 * clock; a kclient backend.  See the header.
 *
 * DESIGN (threads): every reflector thread of a replay reads at once.
 * The replay's lock guards each stream's cursor (which exchange and mark
 * is next) and how many streams are done; the recording is read-only,
 * so the thread handed an exchange reads it unlocked.  Each thread's
 * recorded clock is its own (thread-local).  opts.pace and opts.done run
 * on a reflector's thread with no lock held.
 */
#include "cluster/replay.h"

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/http.h"
#include "cluster/recording_impl.h"
#include "lib/stop.h"
#include "lib/strbuf.h"

struct replay {
	struct recording *rec;
	struct replay_opts opts;
	pthread_mutex_t lock;
	/* Where each stream is, by its index in rec->streams: under lock. */
	struct cursor {
		size_t next;		/* the next exchange to hand out */
		size_t next_mark;
		bool done;		/* counted in exhausted */
	} *at;
	size_t exhausted;	/* streams with nothing left */
	struct replay_divergence diverged;	/* the first; .stream NULL: none */
	int64_t began;		/* monotonic, for a recorded pace */
	unsigned long id;	/* whose clock a thread's clock_ms is */
};

/*
 * The calling thread's place in the recording's time, from 0 for each
 * replay the thread reads (clock_for()).  A replayed
 * backoff may wait longer than the live one did (its jitter is drawn
 * again) and so pass the next exchange's recorded start: that exchange's
 * times are then shifted on, so the clock never goes back and the
 * lengths within a transfer stay the recorded ones.
 */
static __thread int64_t clock_ms, shift_ms;
static __thread unsigned long clock_of;	/* the replay's id; 0: none yet */

/* The calling thread's clock is rp's: it starts at 0 for each replay. */
static void clock_for(const struct replay *rp)
{
	if (clock_of == rp->id)
		return;
	clock_of = rp->id;
	clock_ms = shift_ms = 0;
}

static struct cursor *cursor(struct replay *rp, const struct stream *s)
{
	return &rp->at[s - rp->rec->streams];
}

struct replay *replay_new(struct recording *rec, const struct replay_opts *opts)
{
	struct replay *rp = xcalloc(1, sizeof(*rp));
	rp->rec = rec;
	rp->opts = *opts;
	rp->at = xcalloc(rec->nr ? rec->nr : 1, sizeof(*rp->at));
	pthread_mutex_init(&rp->lock, NULL);
	rp->began = mono_ms();
	static atomic_ulong ids;
	rp->id = atomic_fetch_add(&ids, 1) + 1;
	return rp;
}

void replay_free(struct replay *rp)
{
	if (!rp)
		return;
	recording_free(rp->rec);
	free(rp->at);
	pthread_mutex_destroy(&rp->lock);
	free(rp);
}

int64_t replay_now_ms(struct replay *rp)
{
	clock_for(rp);
	return clock_ms;
}

/* Waits until mono_ms() reaches due, or *stop is set.  true: stopped. */
static bool wait_until(atomic_bool *stop, int stop_fd, int64_t due)
{
	while (mono_ms() < due && !(stop && atomic_load(stop))) {
		struct pollfd pfd = { .fd = stop_fd > 0 ? stop_fd : -1, .events = POLLIN };
		int64_t left = due - mono_ms();
		poll(&pfd, 1, left > 1000 ? 1000 : (int)(left > 0 ? left : 0));
	}
	return stop && atomic_load(stop);
}

/* Waits, at a recorded pace, until recorded time t.  true: stopped. */
static bool pace_to(struct replay *rp, atomic_bool *stop, int stop_fd, int64_t t)
{
	if (rp->opts.speed <= 0)
		return stop && atomic_load(stop);
	double after = (double)t / rp->opts.speed;	/* t <= RECORDING_MAX_T */
	return wait_until(stop, stop_fd, rp->began + (after < (double)RECORDING_MAX_T ?
						      (int64_t)after : RECORDING_MAX_T));
}

bool replay_sleep(struct replay *rp, atomic_bool *stop, int stop_fd, int64_t ms)
{
	clock_for(rp);
	clock_ms += ms;
	return pace_to(rp, stop, stop_fd, clock_ms);
}

/*
 * The request's clock (stream_opts.tick), called at the recorded times
 * it would have been, up to t (through t when the transfer ended with an
 * error there: a tick may be what ended it).  -1: a tick ended it.
 */
static int run_ticks(const struct stream_opts *req, int64_t *next_tick, int64_t t,
		     bool through)
{
	while (req->tick && (*next_tick < t || (through && *next_tick == t))) {
		clock_ms = *next_tick;
		int64_t again = req->tick(req->tick_ctx);
		if (again < 0)
			return -1;
		*next_tick += again > 0 ? again : 1;
	}
	return 0;
}

/*
 * The end of a stream's recording: nothing more comes.  The last stream
 * to get here tells opts.done; then it waits to be stopped.  A stream
 * the recording does not have (s NULL) has ended before it began, and
 * tells opts.done when every stream it has is done, none included.
 */
static int end_of_recording(struct replay *rp, const struct stream *s,
			    const struct stream_opts *req, struct errbuf *err)
{
	pthread_mutex_lock(&rp->lock);
	if (s && !cursor(rp, s)->done) {
		cursor(rp, s)->done = true;
		rp->exhausted++;
	}
	bool all = rp->exhausted == rp->rec->nr;
	pthread_mutex_unlock(&rp->lock);
	if (all && rp->opts.done)
		rp->opts.done(rp->opts.ctx);
	wait_until(req->stop, req->stop_fd, INT64_MAX);
	errbuf_set(err, "stopped");
	return -1;
}

/*
 * Whether ex cannot answer a request of path: it answered a request of another kind
 * with a body of that kind (2xx).  An error answered whatever was asked.
 */
static bool answers_otherwise(const char *path, const struct exchange *ex)
{
	if (!path || ex->kind == REQUEST_UNKNOWN || ex->status < 200 || ex->status > 299)
		return false;
	return request_kind_of(path) != ex->kind;
}

/* The next exchange of s for path, or NULL: none left (or none that answers). */
static const struct exchange *next_exchange(struct replay *rp, const struct stream *s,
					    const char *path)
{
	const struct exchange *ex = NULL;

	pthread_mutex_lock(&rp->lock);
	struct cursor *at = s ? cursor(rp, s) : NULL;
	if (at && at->next < s->nr) {
		ex = s->ex[at->next++];
		if (answers_otherwise(path, ex)) {
			if (!rp->diverged.stream)
				rp->diverged = (struct replay_divergence){
					.stream = s->name, .asked = request_kind_of(path),
					.recorded = ex->kind, .t = ex->t_start,
				};
			at->next = s->nr;	/* the stream's replay ends */
			ex = NULL;
		}
	}
	pthread_mutex_unlock(&rp->lock);
	return ex;
}

bool replay_diverged(struct replay *rp, struct replay_divergence *d)
{
	pthread_mutex_lock(&rp->lock);
	*d = rp->diverged;
	pthread_mutex_unlock(&rp->lock);
	return d->stream != NULL;
}

int replay_stream(struct replay *rp, const char *path, const struct stream_opts *req,
		  http_data_fn *on_data, void *ctx, struct http_response *ans, struct errbuf *err)
{
	const struct stream *s = req->record_as ? recording_stream_named(rp->rec, req->record_as)
				 : NULL;

	clock_for(rp);
	ans->status = 0;
	ans->retry_after_ms = -1;
	ans->recording_ended = false;
	const struct exchange *ex = next_exchange(rp, s, path);
	if (!ex)
		return end_of_recording(rp, s, req, err);

	/* with the consumer's pace recorded, the marks keep it instead */
	if (rp->opts.pace && !(rp->opts.marks && s->nmarks))
		rp->opts.pace(rp->opts.ctx);
	shift_ms = clock_ms > ex->t_start ? clock_ms - ex->t_start : 0;
	clock_ms = ex->t_start + shift_ms;
	if (pace_to(rp, req->stop, req->stop_fd, ex->t_start))
		goto stopped;
	ans->status = ex->status;
	ans->retry_after_ms = ex->retry_after_ms;
	snprintf(ans->content_type, sizeof(ans->content_type), "%s", ex->content_type);
	int64_t next_tick = clock_ms + (req->tick_ms > 0 ? req->tick_ms : 1);
	for (size_t i = 0; i < ex->nr; i++) {
		const struct chunk *c = &ex->chunks[i];
		if (run_ticks(req, &next_tick, c->t + shift_ms, false) < 0)
			goto aborted;
		if (pace_to(rp, req->stop, req->stop_fd, c->t))
			goto stopped;
		clock_ms = c->t + shift_ms;
		if (ex->status < 200 || ex->status > 299)
			strbuf_add(&ans->body, c->data, c->len);
		else if (on_data(ctx, c->data, c->len) < 0)
			goto aborted;
	}
	if (ex->stopped) {
		/*
		 * The recording stops here (kinf was stopped, or a dump was
		 * written), not the server: ans->recording_ended says so, so
		 * that the reflector reports no end the server never made (a
		 * very short watch, a relist).  It digests what came and asks
		 * again: then the recording has ended (end_of_recording()).
		 */
		ans->recording_ended = true;
		errbuf_set(err, "the recording ends here");
		return -1;
	}
	if (run_ticks(req, &next_tick, ex->t_end + shift_ms, ex->rc < 0) < 0)
		goto aborted;
	clock_ms = ex->t_end + shift_ms;
	if (ex->rc < 0) {
		errbuf_set(err, "%s", ex->error);
		ans->refused = ex->refused;
		ans->timed_out = ex->timed_out;
		ans->no_answer = ex->no_answer;
		ans->no_answer_timeout = ex->no_answer_timeout;
		ans->stream_broken = ex->stream_broken;
		memcpy(ans->stream_error, ex->stream_error, sizeof(ans->stream_error));
		return -1;
	}
	return 0;
aborted:
	errbuf_set(err, "aborted");
	return -1;
stopped:
	errbuf_set(err, "stopped");
	return -1;
}

/* ---- the replay client: a kclient backend ------------------------------- */

static int client_stream(struct kclient *c, const char *path, const struct stream_opts *opts,
			 http_data_fn *on_data, void *ctx, struct http_response *resp,
			 struct errbuf *err)
{
	return replay_stream(kclient_backend_data(c), path, opts, on_data, ctx, resp, err);
}

/* A request no reflector made: it was not recorded. */
static int client_get(struct kclient *c, const char *path, const char *accept,
		      int64_t within_ms, struct rest_limiter *limiter,
		      struct http_response *resp, struct errbuf *err)
{
	errbuf_set(err, "%s: not in the recording", path);
	return -1;
}

static int64_t client_now_ms(const struct kclient *c)
{
	return replay_now_ms(kclient_backend_data(c));
}

static bool client_sleep(struct kclient *c, struct stop *stop, int64_t ms)
{
	return replay_sleep(kclient_backend_data(c), &stop->flag, stop_fd(stop), ms);
}

/*
 * The pops recorded for stream's next queued entry (kclient_next_mark()),
 * in order; -1: none left, or opts.marks is off.  *last: none after it.
 */
static int64_t client_next_mark(struct kclient *c, const char *stream, bool *last)
{
	struct replay *rp = kclient_backend_data(c);
	int64_t pops = -1;

	*last = false;
	if (!rp->opts.marks)
		return -1;
	pthread_mutex_lock(&rp->lock);
	const struct stream *s = recording_stream_named(rp->rec, stream);
	struct cursor *at = s ? cursor(rp, s) : NULL;
	if (at && at->next_mark < s->nmarks) {
		pops = (int64_t)s->marks[at->next_mark++].pops;
		*last = at->next_mark == s->nmarks;
	}
	pthread_mutex_unlock(&rp->lock);
	return pops;
}

static const struct kclient_ops replay_client_ops = {
	.stream = client_stream,
	.get = client_get,
	.now_ms = client_now_ms,
	.sleep = client_sleep,
	.next_mark = client_next_mark,
};

struct kclient *replay_client_new(struct replay *rp, const char *what)
{
	return kclient_new_backend(&replay_client_ops, rp, what);
}

/*
 * replay.h — a recording (recording.h) answered again, as a kclient
 * backend (`kinf replay`): each stream's requests get that stream's
 * exchanges, in their order, whatever the query: a reflector that
 * behaves as the recorded one asks the same questions.
 *
 * Time is the recording's: each thread that replays sees a clock
 * (kclient_now_ms) at the recorded time of what it was last handed, and
 * its sleeps (kclient_sleep) move that clock without waiting, so a rule
 * that depends on time (a very short watch, a silent watch renewed, the
 * disconnected interval of a relist) decides as it did live.
 *
 * Threads: every reflector of a replay reads it at once.
 */
#ifndef KINF_REPLAY_H
#define KINF_REPLAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/http.h"
#include "cluster/recording.h"

struct kclient;
struct strbuf;

struct replay;

struct replay_opts {
	/*
	 * 0: as fast as the informer takes it.  Else the recorded pace,
	 * this many times faster (1: as recorded).
	 */
	double speed;
	/*
	 * Called before each exchange is handed out, on the reflector's
	 * thread: the replay command waits there until the informers have
	 * taken in what came before, as they had live, so a relist finds
	 * the cache as it was.  NULL: none.
	 */
	void (*pace)(void *ctx);
	/*
	 * The consumer's pace as recorded ("q" records): each stream's
	 * reflector queues as its consumer had popped then (fifo.h's
	 * pacer), and pace is not called for a stream that has them.  Only
	 * for informers made as the recorded ones were (the same client-go
	 * profile and queue): other queues pop otherwise.
	 */
	bool marks;
	/* Called once when every stream has handed out its last exchange. */
	void (*done)(void *ctx);
	void *ctx;
};

/* Takes the recording (freed with the replay). */
struct replay *replay_new(struct recording *rec, const struct replay_opts *opts);
void replay_free(struct replay *rp);
/*
 * kclient_stream() over the recording: the next exchange of the stream
 * opts->record_as names (its tick, stop and stop_fd are used, the rest
 * is live transfers'), 0 or -1 with err as it ended; resp as the
 * exchange ended (recording_ended when the recording stops in it).
 * path NULL: any exchange answers.  A stream with no exchange left,
 * or none at all (a stream the recording does not have), waits for
 * *stop: the recording has ended for it.  So does one whose next
 * exchange answered a request of another kind (request_kind_of()) with
 * a body of that kind: a reflector of another client-go may ask what
 * the recorded one did not (1.28 asks a streaming list again where 1.36
 * fell back to a LIST).  An error answers a request of any kind.
 */
int replay_stream(struct replay *rp, const char *path, const struct stream_opts *opts,
		  http_data_fn *on_data, void *ctx, struct http_response *resp, struct errbuf *err);
/* Where a stream's replay ended because its next answer was of another kind. */
struct replay_divergence {
	const char *stream;		/* borrowed from the recording */
	enum request_kind asked, recorded;
	int64_t t;			/* the recorded exchange's start, ms */
};
/* The first such end into *d, true; false: every request had its answer. */
bool replay_diverged(struct replay *rp, struct replay_divergence *d);
/* The calling thread's clock: the recorded time it has reached, in ms. */
int64_t replay_now_ms(struct replay *rp);
/* Moves the clock on; sleeps only at a recorded pace.  true: stopped. */
bool replay_sleep(struct replay *rp, atomic_bool *stop, int stop_fd, int64_t ms);

/*
 * A client answered from rp (borrowed: rp must outlive it), freed with
 * kclient_free(): kclient_stream() is replay_stream(), kclient_now_ms()
 * and kclient_sleep() are the replay's clock, and any other request
 * (kclient_get()) fails, "PATH: not in the recording".  what: its name
 * in messages (kclient_server()).
 */
struct kclient *replay_client_new(struct replay *rp, const char *what);

#endif
